"""The steps of a computation a reader accepts (:mod:`groundlab.core.arithmetic` searches them): a
sum or a difference of like quantities, a rate times a quantity, an amount times a count, a ratio, a
percentage of an amount of money, a date plus or minus a period, the day after a passage's deadline,
a period or a rate in other units of time, a share of a whole, a span of months and an expression
the claim writes out; and whether a step gives a claim's number as it writes it."""

from __future__ import annotations

import calendar
import datetime as _dt
import operator
import re
from functools import lru_cache
from typing import List, NamedTuple, Optional, Sequence, Tuple, Union

from .months import MONTHS
from .quantities import Quantity, is_half
from .weekdays import BACK_WORDS, _INDEX as _WEEKDAYS  # each day's name (English, German, French) to its place, Monday 0

_PERIODS = frozenset(("workday", "day", "week", "month", "year", "hour", "minute"))
#: The periods a date moves by.
_DATE_PERIODS = _PERIODS - {"hour", "minute"}
_CONVERSIONS = {  # (from, to): factor
    ("week", "day"): 7.0, ("day", "week"): 1 / 7, ("year", "month"): 12.0, ("month", "year"): 1 / 12,
    ("year", "week"): 52.0, ("week", "year"): 1 / 52, ("day", "hour"): 24.0, ("hour", "day"): 1 / 24,
    ("hour", "minute"): 60.0, ("minute", "hour"): 1 / 60,
    ("workday", "week"): 1 / 5, ("week", "workday"): 5.0,  # five working days are a week, ten are two
}


#: Conversions a reader makes only as a round figure ("93 days, about three months").
_ROUND_CONVERSIONS = {
    ("day", "month"): 1 / 30.44, ("month", "day"): 30.44, ("day", "year"): 1 / 365.25,
    ("week", "month"): 1 / 4.345, ("month", "week"): 4.345, ("workday", "day"): 7 / 5, ("year", "day"): 365.25,
    ("month", "workday"): 4.345 * 5, ("workday", "month"): 1 / (4.345 * 5),  # a month, about 22 working days
}


class _Step(NamedTuple):
    value: float
    unit: str
    expression: str
    op: str
    said: bool  # one of its numbers is the claim's or the question's own
    date: Optional[Tuple[int, int, int]] = None
    operands: Tuple["Quantity", ...] = ()


def _money(unit: str) -> bool:
    return len(unit) == 3 and unit.isupper()


def _per(q: Quantity) -> str:
    # an annual entitlement is what "30 days" means in a policy: "a year" adds nothing to a sum; a
    # hotel's night and its breakfast's day are one ("120 EUR pro Nacht" less "5,60 EUR pro Tag")
    return "" if q.per == "year" else "day" if q.per == "night" else q.per


def _one_steps(a: Quantity, b: Quantity) -> List[_Step]:
    """What one step makes of ``a`` and ``b`` (in this order), each with its unit."""
    return [step._replace(operands=(a, b)) for step in _one_steps_of(a, b)]


def _one_steps_of(a: Quantity, b: Quantity) -> List[_Step]:
    out: List[_Step] = []
    said = a.said or b.said
    ua, ub = a.unit, b.unit
    va, vb = a.value, b.value
    fa, fb = a.shown, b.shown
    if "time" in (ua, ub):  # a time of day and a period of hours or minutes, or two times apart
        if ua == "time" and ub in ("hour", "minute") and vb:
            delta = vb * (60 if ub == "hour" else 1)
            if delta < 1440:  # a day or more later the time alone says nothing: the day it falls on decides
                out.append(_Step((va + delta) % 1440, "time", f"{fa} + {fb}", "+", said))
                out.append(_Step((va - delta) % 1440, "time", f"{fa} − {fb}", "−", said))
        elif ua == ub == "time" and va > vb:
            out.append(_Step((va - vb) / 60, "hour", f"{fa} − {fb}", "−", said))
            out.append(_Step(va - vb, "minute", f"{fa} − {fb}", "−", said))
        return out
    if ua == ub and _per(a) == _per(b) and ua != "%":
        out.append(_Step(va + vb, ua, f"{fa} + {fb}", "+", said))
        out.append(_Step(va - vb, ua, f"{fa} − {fb}", "−", said))
    if ua == ub == "%":
        out.append(_Step(va + vb, "%", f"{fa} + {fb}", "+", said))
        out.append(_Step(va - vb, "%", f"{fa} − {fb}", "−", said))
    if ua == ub and ua and a.per == b.per and vb:  # like quantities: how many times, or a share in per cent
        out.append(_Step(va / vb, "times", f"{fa} ÷ {fb}", "÷", said))
        out.append(_Step(100 * va / vb, "%", f"{fa} ÷ {fb}", "÷", said))
    elif ((ua == "day" and ub == "workday") or (ua == "workday" and ub == "day")) and _per(a) == _per(b) and vb:
        # days of an entitlement counted in working days: "24 Tage" of "30 Arbeitstage" a year is 80 %
        out.append(_Step(100 * va / vb, "%", f"{fa} ÷ {fb}", "÷", said))
    if va in (0.0, 1.0) or vb in (0.0, 1.0):
        return out
    if "%" in (ua, ub):
        if ub == "%" and _money(ua):  # a percentage of an amount of money, and the amount less or plus it
            share = va * vb / 100
            out.append(_Step(share, ua, f"{fb} of {fa}", "%", said))
            if not is_half(b):  # (a passage's "half" is a share, no amount less or plus it)
                out.append(_Step(va - share, ua, f"{fa} − {fb}", "−", said))
                out.append(_Step(va + share, ua, f"{fa} + {fb}", "+", said))
        return out
    # a product: a rate times what it is counted per ("0.30 EUR per km" × "500 km"), an amount or a
    # period times a count, an amount of money times the days, nights or kilometres it is paid for
    if a.per and a.per == ub and not _per(b):
        out.append(_Step(va * vb, ua, f"{fa} × {fb}", "×", said))
    elif not ub and ua:
        out.append(_Step(va * vb, ua, f"{fa} × {fb}", "×", said))
    elif not ua and not ub:
        out.append(_Step(va * vb, "", f"{fa} × {fb}", "×", said))
    elif _money(ua) and not a.per and (ub in _PERIODS or ub in ("km", "night")):
        out.append(_Step(va * vb, ua, f"{fa} × {fb}", "×", said))
    # a ratio: an amount per count, a quantity per rate ("18 days" ÷ "3 days a week" = 6 weeks)
    if not ub:
        out.append(_Step(va / vb, ua, f"{fa} ÷ {fb}", "÷", said))
    elif ua == ub and not a.per and b.per:
        out.append(_Step(va / vb, b.per, f"{fa} ÷ {fb}", "÷", said))
    elif ua and ub in ("day", "workday") and ua != ub and a.per and a.per == b.per:
        # hours a week over the days of that week: "40 Stunden pro Woche" ÷ "5-Tage-Woche" = 8 hours a day
        out.append(_Step(va / vb, ua, f"{fa} ÷ {fb}", "÷", said))
    return out


#: A rate in another period, as the calendar gives it: "3 times per calendar month" is "36 times a
#: year" (``(per, to per): factor``). Weeks are left out: a year of working weeks is the passage's own.
_RATE_CONVERSIONS = {("month", "year"): 12.0, ("year", "month"): 1 / 12}
_RATE_PERIODS = frozenset(per for per, _ in _RATE_CONVERSIONS)


def _conversions(q: Quantity, unit: str, approx: bool = False, per: str = "") -> Optional[_Step]:
    """``q`` in ``unit`` (a period in another unit of time), or, counted ``per`` another period, the
    same rate per that period."""
    factor = _CONVERSIONS.get((q.unit, unit)) or (_ROUND_CONVERSIONS.get((q.unit, unit)) if approx else None)
    if factor is None:
        rate = _RATE_CONVERSIONS.get((q.per, per)) if per and q.unit == unit else None
        if rate is None:
            return None
        return _Step(q.value * rate, unit, f"{q.shown} {'× 12' if rate > 1 else '÷ 12'} months", "×", q.said, None, (q,))
    return _Step(q.value * factor, unit, f"{q.shown} in {'working day' if unit == 'workday' else unit}s", "×", q.said,
                 None, (q,))


def _converted(target: Quantity, pool: Sequence[Quantity]) -> Optional[_Step]:
    """A quantity of ``pool`` in the target's unit of time ("12 months" for "one year", "180 days"
    for "about six months") or per its period ("3 times a month" for "36 times a year"): the same
    period or rate said otherwise, taken without words of a computation
    (a round conversion only for a round figure)."""
    for q in pool:
        step = _conversions(q, target.unit, target.approx, target.per)
        # a figure not marked round converts exactly: 30 days are no "4 weeks" (4.3), 14 days are 2 weeks
        if step is not None and _matches(step, target) and (target.approx or abs(step.value - target.value) < 1e-6):
            return step
    return None


def _share(a: Quantity, b: Quantity, c: Quantity) -> Optional[_Step]:
    """``a × b ÷ c`` with ``b`` and ``c`` alike: a share of a whole (pro rata), the whole ``c`` the
    passages' (the user's number is the part: "30 × 4 ÷ 5", not "6 weeks × 15 minutes ÷ 30 minutes")."""
    if not c.value or not b.value or b.value == c.value or c.said or "date" in (a.unit, b.unit, c.unit) or \
            "time" in (a.unit, b.unit, c.unit):  # a time of day is no amount to share
        return None
    if _money(b.unit) or _money(c.unit) or "%" in (b.unit, c.unit):
        return None
    if b.unit and c.unit and (b.unit, b.per) != (c.unit, c.per):
        return None  # b and c alike: the same unit, or a bare number beside one
    return _Step(a.value * b.value / c.value, a.unit, f"{a.shown} × {b.shown} ÷ {c.shown}", "×÷",
                 a.said or b.said or c.said, None, (a, b, c))


#: A period written with the word that moves a date back by it: "7 weeks before 1 September", "7 Wochen
#: vor dem 1. September", "2 semaines avant".
_PERIOD_BACK = re.compile(r"\d+\s+(?:[^\W\d_]+\s+)?(?:days?|weeks?|months?|years?|[^\W\d_]*tage?n?|wochen?|monaten?|"
                          r"jahren?|jours?|semaines?|mois|ans|années?)\s+(?:" + BACK_WORDS + r")\b", re.IGNORECASE)


#: Words of a passage sentence that say its amount is taken off another: "if breakfast is provided,
#: 5.60 EUR is deducted", "kürzt sie um 11,20 EUR", "réduite de 5,60 EUR".
_DEDUCTED = re.compile(r"\b(?:deduct\w*|reduc\w*|subtract\w*|minus|less(?!\s+than)|abgezogen|abzuziehen|ab(?:ge)?zug\w*|"
                       r"gekürzt|kürz\w*|vermindert|reduziert\w*|déduit\w*|rédui\w*|retranch\w*)\b", re.IGNORECASE)


def deducted(step: "_Step") -> bool:
    """Whether a difference takes off an amount of money its passage sentence says is deducted, from
    the amount that sentence gives ("The per diem is 28 EUR; if breakfast is provided, 5.60 EUR is
    deducted": 22.40 EUR with breakfast), which a reader computes though the claim writes no word of
    a computation."""
    if step.op != "−" or len(step.operands) != 2:
        return False
    whole, part = step.operands
    if not (_money(part.unit) and part.unit == whole.unit and not part.said and _says_deducted(part.group)):
        return False
    # the amount it is taken off in its sentence: its clause, or the clause before it ("… is 28 EUR; if …")
    return whole.group == part.group or (whole.group.rstrip().endswith((";", ":")) and
                                         0 < part.start - whole.start <= len(whole.group) + len(part.group) + 2)


def takes_off(evidence: Sequence[Quantity]) -> bool:
    """Whether some amount of money of the evidence is one its sentence says is deducted, or the
    evidence pays a half of one ("half of the rate is paid")."""
    return any((_money(q.unit) and not q.said and _says_deducted(q.group)) or is_half(q) for q in evidence)


@lru_cache(maxsize=4096)
def _says_deducted(sentence: str) -> bool:
    return _DEDUCTED.search(sentence) is not None


def moved_back(text: str) -> bool:
    """Whether a claim moves a date back by its period ("7 weeks before 1 September")."""
    return _PERIOD_BACK.search(text) is not None


def written_again(q: Quantity, example: Quantity) -> bool:
    """Whether ``q`` writes the claim's ``example`` again ("For 300 km ... (300 × 0.30 EUR)"): its
    number, bare or with the same unit."""
    return q.value == example.value and q.date == example.date and q.unit in ("", example.unit) and \
        q.per in ("", example.per)


def _date_steps(d: Quantity, n: Quantity) -> List[_Step]:
    """A date plus or minus a period."""
    if n.unit not in _DATE_PERIODS or d.date is None or n.value != int(n.value) \
            or not 0 < n.value <= 3660:
        return []
    year, month, day = d.date
    if not day:  # a month of a year ("March 2022"): shifted by months and years, into a month
        if n.unit not in ("month", "year") or not year:
            return []
        out = []
        for sign, word in ((1, "+"), (-1, "−")):
            total = month - 1 + int(n.value) * sign * (12 if n.unit == "year" else 1)
            out.append(_Step(0.0, "date", f"{d.shown} {word} {n.shown}", "date", d.said or n.said,
                             (year + total // 12, total % 12 + 1, 0), (d, n)))
        return out
    try:
        start = _dt.date(year or 2001, month, day)
    except ValueError:
        if (month, day) != (2, 29):
            return []
        start = _dt.date(2004, 2, 29)  # 29 February of a year not given: a leap year's
    out = []
    month_end = _to_month_end(n.group, n.shown)  # "3 months to the end of a calendar month": forward only
    for sign, word in ((1, "+"), (-1, "−")):
        found = _shift(start, int(n.value) * sign, n.unit, bool(year))
        if found is None:
            continue
        expression = f"{d.shown} {word} {n.shown}"
        if month_end and sign > 0:
            found = _dt.date(found.year, found.month, calendar.monthrange(found.year, found.month)[1])
            expression += ", to the end of the month"
        out.append(_Step(0.0, "date", expression, "date", d.said or n.said,
                         (found.year if year else 0, found.month, found.day), (d, n)))
    return out


@lru_cache(maxsize=4096)
def _to_month_end(sentence: str, shown: str) -> bool:
    """Whether a period of a passage's ``sentence`` (as written: ``shown``) counts to a month's end."""
    at = sentence.find(shown)
    return at >= 0 and _MONTH_END.match(sentence, at + len(shown)) is not None


#: A period counted to the end of a month: "3 months to the end of a calendar month", "zum Monatsende",
#: "zum Ende eines Kalendermonats", "pour la fin d'un mois".
_MONTH_END = re.compile(r"\s*(?:to|until|by)\s+the\s+end\s+of\s+(?:a|the)\s+(?:calendar\s+)?month|\s*zum\s+(?:Monatsende|"
                        r"Ende\s+(?:eines|des)\s+(?:Kalender)?monats)|\s*(?:à|pour)\s+la\s+fin\s+(?:d'un|du)\s+mois",
                        re.IGNORECASE)


def _last_day(q: Quantity) -> Optional[_dt.date]:
    """The last day before the boundary a date's words draw: "by 31 March" and "after 31 March"
    draw it after 31 March, "from 1 April" and "before 1 April" before 1 April (so does "on 1
    April" in a claim: what happens then happens after 31 March)."""
    if q.date is None or not q.date[2] or not q.edge:
        return None
    try:
        day = _dt.date(q.date[0] or 2001, q.date[1], q.date[2])
    except ValueError:
        return None
    return day if q.edge in ("end", "after") else day - _dt.timedelta(days=1)


def _next_day(target: Quantity, pool: Sequence[Quantity]) -> Optional[_Step]:
    """A claim's date that draws the boundary a passage's date draws, from its other side: "still
    open on 1 April are forfeited" for "must be taken by 31 March", "ab dem 1. April" for "nach dem
    31. März", "by 31 March" for "before 1 April". A date a thing happens on ("on 31 December") is
    no boundary in a passage: it may be the last day or the first."""
    last = _last_day(target)
    if last is None:
        return None
    for d in pool:
        if d.unit != "date" or d.said or d.edge in ("", "on") or d.date[1:] == target.date[1:]:
            continue  # (the same day, with a year or without, is found, not computed)
        other = _last_day(d)
        if other is None or (other.month, other.day) != (last.month, last.day) \
                or (target.date[0] and d.date[0] and other.year != last.year):
            continue
        later = target.edge in ("start", "on", "before")
        day = last + _dt.timedelta(days=1) if later else last
        return _Step(0.0, "date", f"{'the day after' if later else 'the day before'} {d.shown}", "date", False,
                     (day.year if target.date[0] else 0, day.month, day.day), (d,))
    return None


def _shift(start: _dt.date, k: int, unit: str, year_known: bool) -> Optional[_dt.date]:
    try:
        if unit == "day":
            return start + _dt.timedelta(days=k)
        if unit == "week":
            return start + _dt.timedelta(weeks=k)
        if unit in ("month", "year"):
            total = start.month - 1 + k * (12 if unit == "year" else 1)
            y, m = start.year + total // 12, total % 12 + 1
            return _dt.date(y, m, min(start.day, calendar.monthrange(y, m)[1]))
        if unit == "workday" and not year_known and k % 5 == 0:  # five working days from a working day: a week
            return start + _dt.timedelta(weeks=k // 5)
        if unit == "workday" and year_known:  # Monday to Friday (a region's holidays are not known)
            step, day, left = (1 if k > 0 else -1), start, abs(k)
            while left:
                day += _dt.timedelta(days=step)
                if day.weekday() < 5:
                    left -= 1
            return day
    except (OverflowError, ValueError):
        return None
    return None


_NUMBER_RUN = re.compile(r"\d[\d.,]*\d|\d")
_DECIMALS = re.compile(r"[.,](\d+)$")


def _decimals(target: Quantity) -> int:
    run = _NUMBER_RUN.search(target.surface)
    if run is None:
        return 0
    tail = _DECIMALS.search(run.group())
    # three digits after the last separator of a whole number are thousands ("1,250", "1.000")
    if tail is None or (len(tail.group(1)) == 3 and float(target.value).is_integer()):
        return 0
    return len(tail.group(1))


def _units_fit(step: _Step, target: Quantity) -> bool:
    unit = target.unit
    if _money(unit) or unit in ("%", "time"):
        return step.unit == unit
    if _money(step.unit) or step.unit in ("%", "date"):
        return False
    if step.unit == "times":  # how many times one quantity holds a like one: a count
        return not unit
    return not unit or not step.unit or step.unit == unit or (step.unit == "workday" and unit == "day")


def _matches(step: _Step, target: Quantity) -> bool:
    """Whether a step gives the claim's number as written (rounded to its decimals), in its unit."""
    if target.unit == "date":
        if step.date is None or target.date is None:
            return False
        ty, tm, td = target.date
        sy, sm, sd = step.date
        return (tm, td) == (sm, sd) and (not ty or not sy or ty == sy)
    if step.date is not None or not _units_fit(step, target) or abs(step.value) < 1e-12:
        return False
    if target.approx:  # "about three months", "approx. two weeks": near enough, as a reader rounds
        return abs(step.value - target.value) <= max(0.12 * abs(target.value), 0.5 * 10 ** -_decimals(target))
    if not target.unit and not _decimals(target):  # a bare count is no rounded value: "3 attempts" is no 2.5
        return abs(step.value - target.value) < 1e-9
    return abs(step.value - target.value) <= 0.5 * 10 ** -_decimals(target) + 1e-9


#: What stands between two numbers of an expression written out: a unit or a currency, brackets
#: closed, an operator sign, brackets opened, a currency ("500 km × 0.30 EUR", "9/12 × 30", "28 EUR -
#: 11,20 EUR", "3 × (170 − 5.60)").
_BETWEEN = re.compile(r"\s*(?:[^\W\d_]{1,12}\.?\s*)?(?P<close>(?:\)\s*)*)([×x*÷/+−–-])\s*(?P<open>(?:\(\s*)*)"
                      r"(?:€|EUR|USD|CHF|GBP|\$|£)?\s*$", re.IGNORECASE)
_CUT_SHORT = re.compile(r"[\d×x*÷/+−–-]\s*$")
#: What stands between an expression and its result: brackets closed, "=", "≈".
_EQUALS = re.compile(r"\s*(?:[^\W\d_]{1,12}\.?\s*)?(?P<close>(?:\)\s*)*)[=≈]\s*(?:€|EUR|USD|CHF|GBP|\$|£)?\s*$",
                     re.IGNORECASE)
#: Brackets opened right before an expression's first number: "(170 − 5.60) × 3".
_OPENED = re.compile(r"(?:\(\s*)+$")
_SIGNS = {"×": "×", "x": "×", "X": "×", "*": "×", "÷": "÷", "/": "÷", "+": "+", "−": "−", "–": "−", "-": "−"}


def _expression(text: str, target: Quantity, before: Sequence[Quantity]) -> Optional[_Step]:
    """The value of the expression of numbers, operator signs and brackets the claim writes right
    before "=" and ``target`` ("9/12 × 30 = 22,5 Tage": 9 ÷ 12 × 30; "3 × (170 − 5.60) = 493.20":
    3 × 164.40), × and ÷ before + and −, brackets first; ``None`` where no such expression of two
    numbers or more stands there, or its brackets do not pair. A date or a time is no operand."""
    last = before[-1]
    equals = _EQUALS.fullmatch(text, last.start + len(last.surface), target.start)
    if equals is None:
        return None
    operands: List[Quantity] = [last]
    tokens: List[Union[float, str]] = [last.value] + [")"] * equals.group("close").count(")")
    signs = []
    for q in reversed(before[:-1]):
        m = _BETWEEN.fullmatch(text, q.start + len(q.surface), operands[0].start)
        if m is None:
            break
        operands.insert(0, q)
        signs.insert(0, _SIGNS[m.group(2)])
        tokens[:0] = [q.value] + [")"] * m.group("close").count(")") + [_SIGNS[m.group(2)]] + \
            ["("] * m.group("open").count("(")
    if not signs or any(q.unit in ("date", "time") for q in operands) or \
            _CUT_SHORT.search(text, max(0, operands[0].start - 3), operands[0].start):
        return None  # (an expression whose first number is not read, "9/" of "9/12 × 30" said twice: no value)
    opened = _OPENED.search(text, max(0, operands[0].start - 8), operands[0].start)
    if opened is not None:
        tokens[:0] = ["("] * opened.group().count("(")
    value = _evaluate(tokens)
    if value is None:
        return None
    start = operands[0].start if opened is None else opened.start()
    shown = text[start:operands[-1].start + len(operands[-1].surface)] + ")" * equals.group("close").count(")")
    return _Step(value, target.unit, shown, "".join(sorted(set(signs))), True, None, tuple(operands))


_APPLY = {"+": operator.add, "−": operator.sub, "×": operator.mul, "÷": operator.truediv}


def _evaluate(tokens: Sequence[Union[float, str]]) -> Optional[float]:
    """The value of an expression of numbers, × ÷ + − and brackets, as a reader reckons it; ``None``
    where its brackets do not pair (a bracket opened before the part the claim writes as its
    expression) or it divides by zero."""
    at = 0

    def level(signs: Tuple[str, ...], operand) -> float:
        nonlocal at
        value = operand()
        while at < len(tokens) and tokens[at] in signs:
            sign = tokens[at]
            at += 1
            value = _APPLY[sign](value, operand())  # a division by zero raises, and gives no value
        return value

    def expression() -> float:
        return level(("+", "−"), term)

    def term() -> float:
        return level(("×", "÷"), factor)

    def factor() -> float:
        nonlocal at
        token = tokens[at] if at < len(tokens) else None
        at += 1
        if token == "(":
            value = expression()
            if at >= len(tokens) or tokens[at] != ")":
                raise ValueError("a bracket not closed")
            at += 1
            return value
        if isinstance(token, float):
            return token
        raise ValueError("no number")

    try:
        value = expression()
    except (ValueError, ZeroDivisionError):
        return None
    return value if at == len(tokens) else None


#: Months named as a span: "von April bis Dezember", "from April to December", "d'avril à décembre"
#: (each word then looked up in :data:`MONTHS`).
_MONTH_SPAN = re.compile(r"\b(?:von|from|d'|de|between)\s*(?P<span>([^\W\d_]{3,})\s+(?:bis(?:\s+(?:einschließlich|"
                         r"inklusive))?|to|through|until|till|and|à|au|jusqu'(?:à|en))\s+([^\W\d_]{3,}))\b", re.IGNORECASE)


_DAY_SPAN = re.compile(r"(?P<span>\b(" + "|".join(_WEEKDAYS) + r")\s*(?:bis(?:\s+(?:einschließlich|inklusive))?|to|through|"
                       r"until|till|thru|au|à|jusqu'au|[-–])\s*(" + "|".join(_WEEKDAYS) + r")\b)", re.IGNORECASE)


def _day_span(texts: Sequence[str], target: Quantity) -> Optional[_Step]:
    """The days of a span of weekdays the claim or the question names, both counted ("I was sick
    from Monday to Wednesday": 3 days; "Montag bis Donnerstag": 3 nights), for a number of days or
    nights the claim states."""
    if target.unit not in ("day", "workday", "night") or target.per or not target.value.is_integer():
        return None
    for text in texts:
        for days, span in _day_spans(text):
            count = days - 1 if target.unit == "night" else days
            if count == target.value:
                return _Step(float(count), target.unit, span, "span", True, None, ())
    return None


@lru_cache(maxsize=16384)
def _day_spans(text: str) -> Tuple[Tuple[int, str], ...]:
    """The spans of weekdays a text names, each with its count of days, read once per text (a
    question is read for each of its claims)."""
    return tuple(((_WEEKDAYS[m.group(3).lower()] - _WEEKDAYS[m.group(2).lower()]) % 7 + 1, m.group("span"))
                 for m in _DAY_SPAN.finditer(text))


def _month_span(text: str, target: Quantity, any_count: bool = False) -> Optional[_Step]:
    """The months of a span the claim names, both counted ("Von April bis Dezember sind das 9
    Monate"), for a number of months it states; with ``any_count`` the span before it whatever
    its count, for the right value of one counted wrong ("… 8 Monate")."""
    if not target.value.is_integer() or not 1 <= target.value <= 12:
        return None
    for m in _MONTH_SPAN.finditer(text, 0, target.start):
        first, last = MONTHS.get(m.group(2).lower()), MONTHS.get(m.group(3).lower())
        if first and last and len(m.group(2)) > 3 and len(m.group(3)) > 3 and \
                (any_count or (last - first) % 12 + 1 == target.value):
            return _Step(float((last - first) % 12 + 1), "month", m.group("span"), "span", True, None, ())
    return None
