"""Computed values: a claim's number that follows from the passages' numbers by the arithmetic a
reader accepts is backed by them, and a computation done wrong is a contradiction.

Enterprise answers compute: "30 days after 10 May, i.e. by 9 June", "28 EUR minus 11.20 EUR leaves
16.80 EUR", "500 km × 0.30 EUR = 150 EUR, capped at 130 EUR", "3 days a week gives 18 of the 30
days". A claim's number that no passage writes is searched for among what the evidence's numbers
(the passages' and the question's) and the claim's own give, by:

- one step: a sum or a difference of like quantities, a rate times a quantity ("0.30 EUR per km"
  × "500 km"), an amount times a count, a ratio ("18 days" ÷ "3 days a week" is 6 weeks), a
  percentage of an amount of money (and the amount less or plus it), a date plus or minus days,
  working days, weeks, months or years, a period in other units (7 days a week, 12 months or 52
  weeks a year, 24 hours a day, 60 minutes an hour);
- two steps, a share of a whole: ``a × b ÷ c`` with ``b`` and ``c`` alike ("30 days" × "3 days a
  week" ÷ "5 days a week": pro rata);
- a deadline in service hours: the user's time plus hours within the opening and closing times a
  sentence gives, running on at the next opening (17:00 + 4 business hours within 08:00–18:00 is
  11:00).

A cap or a floor needs no step of its own: its bound is a number the passage gives. Quantities
carry their units, read from the words after them ("30 days", "0.30 EUR per km", "3 days a
week"), and only like quantities combine: "30 days" less "4 days a week" is no computation. What a
reader accepts is bounded so that a wrong number does not pass by chance: a step needs one of its
numbers said by the claim or the question (the user's own trip, date or working week) or words that
say a computation follows ("i.e.", "gives", "leaves", "in total", "=", "ergibt", "soit"), and a
share of a whole needs a number the claim or the question says. A result is compared as the claim
writes its number: rounded to its decimals ("33.33", "16 days" for 15.6).

A claim that writes a computation out with its own numbers ("500 km × 0.30 EUR = 160 EUR") and gets
it wrong is told the right value: :attr:`Computed.wrong`.

>>> c = compute("500 km × 0.30 EUR = 150 EUR, capped at 130 EUR.", ["150 EUR"], ["Mileage is 0.30 EUR per km, capped at 130 EUR."])
>>> c.derived
('150 EUR = 500 km × 0.30 EUR',)
>>> compute("28 EUR minus 11.20 EUR leaves 16.20 EUR.", ["16.20 EUR"], ["The daily allowance is 28 EUR; breakfast is 11.20 EUR."]).wrong
('16.20 EUR', '28 EUR − 11.20 EUR = 16.80 EUR')
"""

from __future__ import annotations

import calendar
import re
from functools import lru_cache
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from .bounds import CONDITION, against_bound, example_words, is_example, past_bound
from .claims import strip_emphasis
from .numbers import mentions
from .sentences import LazyPattern
from .totals import list_sum
from .quantities import APPROX as _APPROX, DEADLINE_WORDS, Quantity, halves, is_half, quantities, quantities_of  # noqa: F401  (names this module had)
from .steps import (_DATE_PERIODS, _PERIODS, _RATE_PERIODS, _Step, _converted, _date_steps, _decimals,  # noqa: F401
                    _day_span, _expression, _matches, _money, _month_span, _next_day, _one_steps, _share, _units_fit,
                    deducted, moved_back, takes_off, written_again)

__all__ = ["Computed", "Quantity", "compute", "compute_mentions", "list_sum", "may_total", "quantities", "quantities_of",
           "says_earlier", "sentence_before", "without_computation"]

#: The most quantities one search reads (the claim's and the question's first): a claim with many
#: numbers stays fast (one step looks at every pair of them, a share of a whole at every three of
#: the first :data:`MAX_TWO_STEP`).
MAX_OPERANDS = 16
MAX_TWO_STEP = 10


class Computed(NamedTuple):
    """What arithmetic finds for a claim: ``derived`` the computations that back numbers the
    passages do not write ("150 EUR = 500 km × 0.30 EUR"), ``backed`` the surfaces of those numbers,
    ``wrong`` a number the claim computed wrong and the computation it should give (or ``None``),
    ``written`` what of the claim's text the computations account for (each computed number with its
    unit as the claim writes it, "one year"; the things a count is made of, "Mittwoch und
    Donnerstag"): no words a passage must write (:func:`without_computation`); ``measured`` those of
    ``derived`` whose value has a unit (an amount, a date, a time, a period, a percentage, a distance,
    a rate), not a bare count, which small numbers of the passages reach by chance ("twelve = fourth ×
    three")."""

    derived: Tuple[str, ...] = ()
    backed: Tuple[str, ...] = ()
    wrong: Optional[Tuple[str, str]] = None
    written: Tuple[str, ...] = ()
    measured: Tuple[str, ...] = ()
    #: an example the claim takes on the wrong side of a passage's bound, the note that says so
    #: (:func:`groundlab.core.bounds.against_bound`), or ``None``
    beyond: Optional[str] = None


NOTHING = Computed()

# ------------------------------------------------------------------ reading a claim

#: Words before a number the claim takes as given ("with 3 days a week", "for a 600 km trip", "bei 4 Tagen"): no value.
_PREMISE = re.compile(r"\b(?:with|if|for|when|assuming|say|e\.\s?g\.|for example|for instance|bei|für|wenn|mit|angenommen|"
                      r"z\.\s?b\.|zum beispiel|pour|avec|si|par exemple)(?:\s+(?:an?|the|your|you|each|every|at|on|of|about|"
                      r"ein\w{0,2}|der|die|das|den|dem|des|ihre?\w?|sie|jede\w?|um|am|von|etwa|une?|les?|la|vos|votre|vous|"
                      r"chaque|à|au|de|environ))?\s*$", re.IGNORECASE)
#: A date the user's case falls on ("for a departure on 20 May", "bei einem Urlaubsbeginn am 1. Juni"): the user's words.
_DATE_PREMISE = re.compile(r"\b(?:for|pour|bei|für)\s+(?:a|an|your|un|une|votre|einen|einem|einer|ihren|ihrem)\s+"
                           r"[^\W\d_]+\s+(?:on|le|am|au|ab|from|starting|dès le|à partir du)\s*$", re.IGNORECASE)
#: A count the claim applies a rate to ("3 nights at 120 EUR a night", "500 km à 0,30 EUR", "4 Tage zu je
#: 8 Stunden"): what follows the number, up to two words, then "at", "@", "à", "zu (je)" and a number.
_AT_RATE = re.compile(r"\s*(?:[^\W\d_]+\s+){0,2}(?:at|@|à|zu(?:\s+je)?|je)\s+(?:[^\W\d_]+\s+)?[\d€$£]", re.IGNORECASE)


# ------------------------------------------------------------------ words that say a computation follows

_CUE = re.compile(
    r"[=≈→×÷−]|\b(?:i\.\s?e|d\.\s?h)\.|\b(?:that is|which is|which means|this means|that means|gives?|giving|left(?<=s left)|"
    r"leaves|leaving|leave(?=\s+(?:you|them|us)\b|\s+[\d\u20ac$\u00a3])|comes? to|amounts? to|adds? up to|totals?|totalling|in total|altogether|in all|combined|"
    r"times(?=\s+[\d\u20ac$\u00a3])|multiplied|divided|minus|less|deduct(?:ed|s)?|subtract(?:ed|s)?|makes?|plus|pro rata|proportionally|remaining|remains?|remainder|"
    r"left over|still have|not (?:be )?(?:covered|reimbursed|refunded)|nicht (?:erstattet|übernommen|gedeckt)|"
    r"non (?:couverte?s?|remboursée?s?)|"
    # what is left, counted: "so you can print 50 more pages", "noch 50 Seiten", "encore 50 pages"
    r"(?<=\d )(?:more|further|additional)|noch(?= \d)|encore(?= \d)|"
    r"the difference|capped|together|"
    r"das heißt|ergibt|ergeben|macht|bleiben|verbleiben|übrig|übrige|übrigen|restliche|restlichen|insgesamt|zusammen|abzüglich|zuzüglich|abgezogen|gekürzt|mal(?=\s+\d)|"
    r"geteilt|"
    r"anteilig|gedeckelt|soit|c'est-à-dire|ce qui fait|fait|donne|au total|reste|restants?|restantes?|moins|fois(?=\s+\d)|au prorata|"
    r"equals?|equal to|entspricht|entsprechen|correspond|longer|shorter|later|earlier|länger|kürzer|später|früher|"
    r"de plus|plus tard|plus tôt)\b"
    r"|\d\s?[x*/]\s?\d|\s[x*/]\s"
    # a rate applied: "at 8 hours per working day", "à 0,30 EUR par km"
    r"|\b(?:at|à)\s+[\d.,]+\s*[^\W\d_]+(?:\s+[^\W\d_]+)?\s+(?:per|a|an|each|par|pro|je)\b", re.IGNORECASE)
#: The words of one operation, for the right value of a computation written out wrong.
_OPERATORS = (
    ("×", re.compile(r"[×*]|\d\s?x\s?\d|\s x \s|\bmultiplied\b|\b(?:times|mal|fois)\s+(?=[\d\u20ac$\u00a3])", re.IGNORECASE)),
    ("÷", re.compile(r"[÷/]|\b(?:divided|geteilt)\b", re.IGNORECASE)),
    ("−", re.compile(r"[−–]|\s-\s|\b(?:minus|less|abzüglich|moins|leaves|leaving|remaining|bleiben|reste)\b",
                     re.IGNORECASE)),
    ("+", re.compile(r"\+|\b(?:plus|zuzüglich)\b", re.IGNORECASE)),
    ("%", re.compile(r"%|\bper\s?cent\b|\bprozent\b|\bpour\s?cent\b", re.IGNORECASE)),
    ("date", re.compile(r"\b(?:after|before|later|earlier|from|within|nach|vor|später|innerhalb|après|avant|dans)\b",
                        re.IGNORECASE)),
)
#: What stands before the result of a computation written out: "= 150 EUR", "gives 18 days", "i.e. by 9 June".
_RESULT_BEFORE = re.compile(r"(?:[=→≈:]|\b(?:is|are|was|gives?|makes?|leaves?|leaving|equals?|totals?|comes? to|amounts? to|adds? up to|"
                            r"i\.\s?e\.|that is|ergibt|ergeben|sind|ist|macht|bleiben|also|d\.\s?h\.|soit|fait|donne|reste))"
                            r"\s*(?:[^\W\d_]+\s+){0,2}$", re.IGNORECASE)
_BEFORE = re.compile(r"\b(?:before|earlier|vor|avant)\b", re.IGNORECASE)


#: Words that say a total: "In total you receive 56 EUR", "Insgesamt erhalten Sie 84 EUR".
_TOTAL = re.compile(r"\b(?:in total|totals?|totalling|altogether|in all|all in all|combined|overall|insgesamt|zusammen|"
                    r"gesamt\w*|summe|au total|en tout|total)\b", re.IGNORECASE)


#: A claim that states what the sentence before it gives: "Das sind 80 % des Vollzeitanspruchs"
#: after "30 × 4 ÷ 5 = 24 Tage", "That is 80% of the full entitlement", "Cela fait 80 %".
_EARLIER = re.compile(r"^\W*(?:that(?: i|'|’)s|this is|these are|that makes|that comes to|which is|das sind|das ist|das macht|"
                      r"das entspricht|dies sind|dies entspricht|cela fait|cela représente|ce qui fait|soit|c'est)\b",
                      re.IGNORECASE)
_LIST_MARK = re.compile(r"\s*(?:\n\s*(?:\d+[.)]|[-*•])?\s*)$")
_SENTENCE_CUT = re.compile(r"(?<=[.!?])\s+(?=[^\d\s])|\n+")


@lru_cache(maxsize=16384)
def says_earlier(text: str) -> bool:
    """Whether a claim states what the sentence before it in its answer gives ("Das sind 80 %", "So
    you receive 16.80 EUR", "Sie erhalten also 44,80 EUR"): the judges then give
    :func:`compute_mentions` the answer, whose sentence before the claim has numbers of the answer's
    own a computation may start from."""
    head = text[:12].split(None, 1)
    if not head:
        return False
    if head[0].lower().strip(" *-•(\"") in _EARLIER_HEADS and _EARLIER.match(text) is not None:
        return True
    return _CONSEQUENCE.match(text) is not None


#: The first words of :data:`_EARLIER`'s openings: most claims are told apart by their first word.
_EARLIER_HEADS = frozenset(("that", "that's", "that’s", "this", "these", "which", "das", "dies", "cela", "ce", "soit",
                            "c'est", "c’est"))
#: A claim that draws a consequence of what comes before it, within its first words: "So you
#: receive ...", "You therefore get ...", "Sie erhalten also ...", "Somit bleiben ...", "Vous recevez
#: donc ...".
_CONSEQUENCE = re.compile(r"^\W*(?:so\b(?!\s+(?:that|far|long|much|many)\b)|(?:[^\W\d_]+\s+){0,3}?"
                          r"(?:therefore|thus|hence|as a result|this means|that means|also|somit|damit|folglich|daher|"
                          r"insgesamt|donc|ainsi)\b)", re.IGNORECASE)


def sentence_before(answer: str, text: str) -> str:
    """The sentence (or list item) right before the claim ``text`` in ``answer``, read as claims are,
    without Markdown emphasis ("**Das sind 80 %** des ..."); "" where the claim is not found there.
    All that a claim that :func:`says_earlier` reads of its answer."""
    if "*" in answer or "__" in answer:
        answer = strip_emphasis(answer)
    at = answer.find(text[:24].rstrip())
    if at <= 0:
        return ""
    before = _LIST_MARK.sub("", answer[:at].rstrip(" \t"))
    pieces = [p for p in _SENTENCE_CUT.split(before) if p.strip()]
    return pieces[-1] if pieces else ""


def _earlier(answer: str, text: str) -> Tuple[Quantity, ...]:
    """The numbers of the sentence before ``text`` in ``answer``, as the answer's own (``said``)."""
    sentence = sentence_before(answer, text)
    return tuple(q._replace(said=True) for q in quantities_of(mentions(sentence), sentence, True)) if sentence else ()


def may_total(text: str, answer: Optional[str]) -> bool:
    """Whether a claim says a total, or draws a consequence ("So you receive 16.80 EUR"), and its
    answer has lines a list may stand on: the claim is then judged with its answer
    (:func:`list_sum`). Only a claim that says a total is told a list's sum it misses: a
    consequence may state another figure the list leads to."""
    return bool(answer) and "\n" in answer and (_TOTAL.search(text) is not None or _CONSEQUENCE.match(text) is not None)


def says_total(text: str) -> bool:
    """Whether a claim says a total ("In total", "insgesamt", "au total")."""
    return _TOTAL.search(text) is not None




# ------------------------------------------------------------------ the search


def _pool(known: Sequence[Quantity], evidence: Sequence[Quantity]) -> List[Quantity]:
    """The operands of a search: the claim's numbers it may build on and the evidence's, each (value, unit, per)
    once (said by the claim or the question wins; an amount the claim repeats stays the passage's too where a
    passage deducts one, to be deducted from), at most :data:`MAX_OPERANDS` (those said first)."""
    seen: Dict[tuple, Quantity] = {}
    for k, q in enumerate(list(known) + list(evidence)):
        if _identifier(q):
            continue
        key = (q.unit, q.per, q.value, q.date, q.edge)
        if k >= len(known) and key in seen and _money(q.unit) and seen[key] in known and takes_off(evidence):
            key += (q.start,)  # "28 EUR, mit Frühstück 22,40 EUR": the passage's 28 EUR, 5.60 EUR deducted
        if key not in seen or (q.said and not seen[key].said):
            seen[key] = q
    found = list(seen.values())
    if len(found) > MAX_OPERANDS:
        found = [q for q in found if q.said] + [q for q in found if not q.said]
        found = found[:MAX_OPERANDS]
    return found


def _accepted(step: _Step, cue: bool) -> bool:
    """Whether a reader takes a step for the claim's: a sum or a difference only where the claim says
    it computes ("in total", "leaves", "=") or both its numbers are the user's or the claim's own
    results, since like numbers of the passages lie a small step apart by chance ("above the limit
    of 1 percent" is no 2 − 1.5); another step also where one of its numbers is the user's own (a
    rate times their distance, a date plus the passage's period, an amount less or plus a percentage
    of it: "2,000 EUR − 2%" is a product, no two like numbers a step apart)."""
    ops = step.operands
    if step.op in ("+", "−") and (not ops or (ops[0].unit == ops[-1].unit and ops[0].unit != "time")):
        # (a time shifts as a date does) both numbers the user's or the claim's own results: "reimbursed up to 540 EUR, so 90 EUR of
        # the 630 EUR bill would not be covered"
        return cue or (step.said and all([o.said for o in step.operands])) or deducted(step)
    return step.said or cue or (step.op == "%" and is_half(ops[-1]))  # "half of 64 EUR", the passage's


def _search(target: Quantity, pool: Sequence[Quantity], cue: bool, named: frozenset = frozenset()) -> Optional[_Step]:
    """The first computation from ``pool`` that gives ``target`` and that a reader accepts: one of
    the operations the claim names, when it names any ("30 × 4 ÷ 5 = 26" is no difference)."""
    if named:
        found = _search(target, pool, cue)
        if found is None or found.op in ("date", "within") or _names(found, named):
            return found
        return _steps(target, pool, cue, named)
    if target.unit == "date":
        for d in pool:
            if d.unit == "date":
                for n in pool:
                    for step in _date_steps(d, n):
                        if _accepted(step, cue) and _matches(step, target):
                            return step
        return _next_day(target, pool)
    if target.unit == "time":
        step = _service_hours(target, pool)
        if step is not None:
            return step
    step = _converted(target, pool)
    if step is not None:
        return step
    return _steps(target, pool, cue)


def _service_hours(target: Quantity, pool: Sequence[Quantity]) -> Optional[_Step]:
    """A time reached by counting hours within the passage's service hours, past their close to the
    next opening: "opened at 17:00, 4 service hours, 08:00 to 18:00" is 1 hour that day and 3 the
    next, by 11:00. The start is the user's own time, the hours the evidence's, the opening and
    closing times written in one sentence."""
    times = [q for q in pool if q.unit == "time"]  # (a claim that writes the hours again, its own)
    windows = [(o, c) for o in times for c in times if c.group == o.group and o.value < c.value]
    if not windows:
        return None
    hours = [n for n in pool if n.unit in ("hour", "minute") and n.value and not n.said]
    for start in (q for q in times if q.said):
        for n in hours:
            delta = n.value * (60 if n.unit == "hour" else 1)
            for opening, closing in windows:
                if not opening.value <= start.value < closing.value or start in (opening, closing):
                    continue
                left = delta - (closing.value - start.value)  # what the next day counts
                if 0 < left <= closing.value - opening.value and opening.value + left == target.value:
                    return _Step(target.value, "time", f"{start.shown} + {n.shown} within {opening.shown}–"
                                 f"{closing.shown}", "within", True, None, (start, n, opening, closing))
    return None


def _names(step: _Step, named: frozenset) -> bool:
    """Whether the claim names the step's operation (a percentage is a product)."""
    return bool(set(step.op) & named) or (step.op == "%" and "×" in named)


def _steps(target: Quantity, pool: Sequence[Quantity], cue: bool, named: Optional[frozenset] = None) -> Optional[_Step]:
    """One step of two numbers of ``pool``, then a share of a whole of three, that gives ``target``
    and a reader accepts; ``named``: only the operations the claim names."""
    for i, a in enumerate(pool):
        for j, b in enumerate(pool):
            if i != j:
                for step in _one_steps(a, b):
                    if (named is None or _names(step, named)) and _accepted(step, cue) and _matches(step, target):
                        return step
    if named is not None and "×" not in named and "÷" not in named:
        return None
    small = pool[:MAX_TWO_STEP]
    for a in small:
        for b in small:
            if b is a:
                continue
            for c in small:
                if c is a or c is b:
                    continue
                step = _share(a, b, c)
                if step is not None and step.said and _matches(step, target):
                    return step
    return None


def _typed(claim: Sequence[Quantity], evidence: Sequence[Quantity]) -> List[Quantity]:
    """The claim's bare numbers with the unit the evidence gives the same number ("30" of "30 × 4 ÷
    5" is the passage's "30 days"), and its amounts with the rate ("0.30 EUR" of "500 km × 0.30 EUR"
    is the passage's "0.30 EUR per km"), where the evidence gives one only."""
    units: Dict[float, set] = {}
    for q in evidence:
        if q.unit and q.unit != "date":
            units.setdefault(q.value, set()).add((q.unit, q.per))
    out = []
    for q in claim:
        found = units.get(q.value) if q.date is None and not q.per else None
        if found:
            # a bare number takes the passage's unit, an amount the rate it is ("0.30 EUR" per km)
            fits = [(unit, per) for unit, per in found if not q.unit or unit == q.unit]
            if len(fits) == 1:
                q = q._replace(unit=fits[0][0], per=fits[0][1])
        out.append(q)
    return out


_DATE_FIRST = re.compile(r"\d{1,2}(?:st|nd|rd|th|er)?\.? [^\W\d_]|[^\W\d_]+\.? \d{1,2}\b|\d{4}-\d{2}-\d{2}|\d{1,2}\.\d{1,2}\.\d{4}")


def _as_written(expression: str, text: str) -> str:
    """A sum or product of two numbers in the order the claim writes them."""
    for symbol in (" × ", " + "):
        parts = expression.split(symbol)
        if symbol == " + " and len(parts) == 2 and _DATE_FIRST.match(parts[0]):
            continue  # a date plus a period reads so, whichever the claim names first
        if len(parts) == 2 and not _in_order(expression, text) and _in_order(parts[1] + symbol + parts[0], text):
            return parts[1] + symbol + parts[0]
    return expression


_BRACKETED = re.compile(r"\d\s*[×x*÷/+−–-]\s*\(|\)\s*[×x*÷/+−–-]\s*\d")


def _written_out(text: str, target: Quantity, claim: Sequence[Quantity]) -> Optional[_Step]:
    """The right value of a computation the claim writes out with its own numbers before the result
    and gets wrong: an expression of numbers and operator signs right before "=" as written ("9/12 ×
    30 = 22,5 Tage" is 22.5, × and ÷ before + and −), else the step its operator words name,
    nearest the claim's result."""
    before = [q for q in claim if q.start < target.start]
    if len(before) < 2 or not _RESULT_BEFORE.search(text, max(0, target.start - 40), target.start):
        return None
    literal = _expression(text, target, before)
    if literal is not None:
        return literal
    if _BRACKETED.search(text, before[0].start, target.start):
        return None  # brackets it writes and no expression read whole: its operator words tell no step
    ops = {name for name, pattern in _OPERATORS if pattern.search(text)}
    if any(_AT_RATE.match(text, q.start + len(q.surface)) for q in before):
        ops.add("×")  # "3 nights at 120 EUR a night come to ...": a count times a rate
    if not ops:
        return None
    candidates: List[_Step] = []
    if target.unit == "date":
        if "date" in ops:
            sign = "−" if _BEFORE.search(text) else "+"
            candidates = [s for d in before for n in before for s in _date_steps(d, n) if f" {sign} " in s.expression]
        return candidates[0] if candidates else None
    for a in before:
        for b in before:
            if a is not b:
                candidates.extend(s for s in _one_steps(a, b) if s.op in ops and _units_fit(s, target))
    if "×" in ops and "÷" in ops:
        for a in before:
            for b in before:
                for c in before:
                    if len({id(a), id(b), id(c)}) == 3:
                        step = _share(a, b, c)
                        if step is not None and _units_fit(step, target):
                            candidates.append(step)
    candidates = [c for c in candidates if c.value > 0]
    if not candidates:
        return None
    # the computation the claim writes: its numbers in its order, as many of them as it writes
    ordered = [c for c in candidates if _in_order(c.expression, text)] or candidates
    most = max(len(c.operands) for c in ordered)
    return min((c for c in ordered if len(c.operands) == most), key=lambda c: abs(c.value - target.value))


def _as_claim_writes(step: _Step, text: str, target: Quantity, claim: Sequence[Quantity]) -> Optional[_Step]:
    """``step``, unless the claim writes out a computation of more of its own numbers before the
    result ("30 × 2 ÷ 5 = 10 Tage" is no 2 × 5): then the one it writes, or ``None`` where that one
    gives another value (and :func:`_written_out` tells the right one)."""
    written = _written_out(text, target, claim)
    if written is None or len(written.operands) <= len(step.operands) or not _in_order(written.expression, text):
        return step
    return written if _matches(written, target) else None


def _in_order(expression: str, text: str) -> bool:
    pos = -1
    for part in re.split(r" [−+×÷] | of ", expression):
        at = text.find(part.strip())
        if at <= pos:
            return False
        pos = at
    return True


def _result(step: _Step, target: Quantity) -> str:
    if step.unit == "time":
        minutes = int(round(step.value)) % 1440
        return f"{minutes // 60}:{minutes % 60:02d}"
    if step.date is not None:
        y, m, d = step.date
        if not d:
            return f"{calendar.month_name[m]} {y}"
        return f"{d} {calendar.month_name[m]}" + (f" {y}" if y else "")
    decimals = max(_decimals(target), 0 if float(round(step.value, 2)).is_integer() else 2)
    value = f"{step.value:.{decimals}f}"
    if decimals and re.search(r"\d,\d{1,2}(?!\d)", target.surface):  # "16,20 EUR": the claim's decimal comma
        value = value.replace(".", ",")
    if _money(target.unit):
        return f"{value} {target.unit}"
    return f"{value}%" if target.unit == "%" else value


def compute_mentions(text: str, targets: Sequence, claim_found: Sequence,
                     evidence: Union[Sequence[Quantity], Callable[[], Sequence[Quantity]]],
                     answer: Optional[str] = None, question: str = "") -> Computed:
    """:func:`compute` on number mentions read already: ``targets`` the claim's mentions the
    evidence does not write, ``claim_found`` all of the claim's, ``evidence`` the quantities of the
    passages and the question (:func:`quantities`; the question's ``said``), or what gives them
    (read only when a claim's numbers may be computed). ``answer``: the answer the claim is from,
    whose list a total may add up (:func:`list_sum`). ``question``: the user's, whose span of
    weekdays a count of days may be ("I was sick from Monday to Wednesday")."""
    read = _read_claim(text, tuple([m.start for m in targets]), tuple(claim_found))
    if read is None:
        return NOTHING
    untyped, order, premises, cue, named = read
    if callable(evidence):
        evidence = evidence()
    if answer and says_earlier(text):  # "Das sind 80 %": the numbers of the sentence before, the answer's own
        earlier = _earlier(answer, text)
        evidence = list(evidence) + list(earlier)
        # the period the sentence before states is the claim's own: "Developer laptops are replaced
        # every 3 years. So your replacement is due in June 2027" moves June 2023 by 3 years, not by
        # the 4 years the passage gives other laptops
        said_periods = frozenset((q.unit, q.value) for q in earlier if q.unit in _DATE_PERIODS)
    else:
        said_periods = frozenset()
    claim = _typed(untyped, evidence)
    premises = list(premises)
    evidence = [q for q in evidence if not _identifier(q)]  # "invoice 5178837457" computes nothing
    only_conversions = not cue and not premises and not any(q.said for q in evidence) and \
        not any(claim[i].unit == "date" or (_money(claim[i].unit) and takes_off(evidence)) for i in order)
    if only_conversions and not any(claim[i].unit in _PERIODS or claim[i].per in _RATE_PERIODS for i in order):
        # no step could be taken for the claim's: no words of a computation, no number of the user's,
        # no period another unit of time restates ("12 months", "one year"), no rate per another period
        return _written_out_only(text, order, claim)
    # the example's number written again ("Bei 4 Tagen: 30 × 4 ÷ 5") is the example
    premises += [i for i in order if i not in premises and any(claim[i].value == claim[p].value and
                                                               claim[i].date == claim[p].date for p in premises)]
    found: Dict[int, _Step] = {}
    for _ in range(2):  # a number backed may be an operand of the next ("18 days ... 6 weeks")
        for k in order:
            if k in found or k in premises:
                continue
            target = claim[k]
            known = [q for i, q in enumerate(claim) if i not in order]
            known += [claim[i]._replace(said=True) for i in list(found) + premises if i != k]
            # a result written after a computation of the claim's own numbers takes its operations
            # ("30 × 4 ÷ 5 = 26" is no difference); a number before it (an operand) any accepted one
            before = sum(1 for q in claim if q.start < target.start)
            if only_conversions:
                step = _converted(target, evidence)
            else:
                pool = _pool(known, evidence)
                if target.unit == "date":
                    pool = _own_periods(pool, claim, order, said_periods)
                step = _search(target, pool, cue, named if before >= 2 else frozenset())
                if step is not None and named and before >= 2:
                    step = _as_claim_writes(step, text, target, claim)
            if step is None and target.unit in ("month", "") and not target.per:
                step = _month_span(text, target)
            if step is None and target.unit in ("day", "workday", "night"):
                step = _day_span((text, question), target)  # "from Monday to Wednesday": 3 days
            if step is None and before >= 2:
                # the claim's own expression, written out right, of numbers the evidence gives or that
                # are backed ("9/12 × 30 = 22,5 Tage" once the 9 months are)
                step = _expression(text, target, [q for q in claim if q.start < target.start])
                pending = {claim[i].start for i in order if i not in found and i not in premises and i != k}
                if step is not None and (not _matches(step, target) or any(o.start in pending for o in step.operands)):
                    step = None
            if step is None and may_total(text, answer):
                step = list_sum(answer, target)
                step = step if step is not None and _matches(step, target) else None
            if step is not None:
                found[k] = step
        if len(found) == len(order) - len(premises):
            break
    wanted = claim
    # an example the claim takes is backed when a number it states follows from it, or from the example
    # written again ("For 300 km ... 90 EUR (300 × 0.30 EUR)")
    operands = {(o.start, o.surface) for i in found for o in found[i].operands}
    used = [k for k in premises if any((q.start, q.surface) in operands for q in wanted if written_again(q, wanted[k]))]
    capped_examples = []
    for k in premises:
        if k not in used and k in order and wanted[k].unit in _PERIODS:
            # "kept for one year" after "12 months": no example, the same period said otherwise
            step = _converted(wanted[k], evidence)
            if step is not None:
                found[k] = step
                used.append(k)
        if k not in used:
            capped = _capped_example(wanted[k]._replace(said=True), claim, evidence)
            if capped is not None:
                used.append(k)
                capped_examples.append(capped)
        if k not in used and k in order and is_example(text, wanted[k]):
            # "a file from 8 months ago" against "monthly backups are kept for 12 months"
            held = against_bound(wanted[k], text, evidence)
            if held is not None:
                if not held[0]:
                    return Computed(beyond=held[1])
                used.append(k)
                capped_examples.append(held[1])
    for k in sorted(found):
        if found[k].op == "span":  # the user's span ("from Monday to Wednesday": 3 days) is their case
            held = against_bound(wanted[k], text, evidence)
            if held is not None and not held[0]:
                return Computed(beyond=held[1])
            if held is not None:
                capped_examples.append(held[1])
        capped = past_bound(found[k], wanted[k], claim, evidence)
        if capped is not None:
            return Computed(wrong=(wanted[k].shown, f"{_as_written(found[k].expression, text)} = "
                                                    f"{_result(found[k], wanted[k])}, {capped}"))
    derived = tuple(f"{wanted[k].shown} = {_as_written(found[k].expression, text)}" for k in sorted(found))
    measured = tuple(d for k, d in zip(sorted(found), derived) if wanted[k].unit or wanted[k].per)
    derived += tuple(capped_examples)
    measured += tuple(capped_examples)  # an amount past a cap
    examples = tuple(example_words(text, wanted[k]) or _date_premise(text, wanted[k]) or wanted[k].shown for k in used)
    written = tuple(wanted[k].shown for k in sorted(found)) + tuple(
        o.surface for k in sorted(found) for o in found[k].operands if _is_named_count(o)) + tuple(
        found[k].expression for k in sorted(found) if found[k].op == "span") + tuple(  # "April bis Dezember"
        examples)  # an example the claim takes ("Bei 4 Tagen", "8 months ago"): the user's, not the passages'
    backed = tuple(wanted[k].surface for k in sorted(set(found) | set(used)))
    stated = [q for i, q in enumerate(claim) if i not in order]  # not the numbers it is to give
    own_period = bool(said_periods) or any(q.unit in _DATE_PERIODS for q in stated)
    for k in order:
        target = claim[k]
        if k not in found and k not in used:
            right = _written_out(text, target, claim)
            if right is None and target.unit == "date" and own_period:
                # only a period the claim states tells the date it should give; one of the passages'
                # ("up to 5 days of leave") moves no date the claim names as an example
                right = _date_of_own_period(target, _own_periods(_pool(stated, evidence), claim, order, said_periods),
                                            cue, " − " if moved_back(text) else " + ")
            if right is None and may_total(text, answer) and says_total(text):
                right = list_sum(answer, target)  # "In total 60 EUR" under items adding up to 56 EUR
            if right is None and target.unit == "month" and not target.per:
                right = _month_span(text, target, any_count=True)  # "April bis Dezember … 8 Monate"
            if right is not None and not _matches(right, target):
                return Computed(derived, backed, (target.shown, f"{_as_written(right.expression, text)} = "
                                                                f"{_result(right, target)}"), written, measured)
    return Computed(derived, backed, None, written, measured)


def _own_periods(pool: Sequence[Quantity], claim: Sequence[Quantity], order: Sequence[int],
                 said: frozenset = frozenset()) -> List[Quantity]:
    """``pool`` for a date the claim computes: where the claim states the period a date moves by
    ("nach drei Jahren ..., also am 15. Januar 2027"), or the sentence before it that it draws on
    does (``said``, ``(unit, value)``), only that period, not another of the passages' ("vier
    Jahre" for other devices)."""
    own = {(q.unit, q.value) for i, q in enumerate(claim) if i not in order and q.unit in _DATE_PERIODS} | said
    if not own:
        return list(pool)
    return [q for q in pool if q.unit not in _DATE_PERIODS or (q.unit, q.value) in own]


def _date_of_own_period(target: Quantity, pool: Sequence[Quantity], cue: bool, way: str = " + ") -> Optional[_Step]:
    """The one date that the claim's own period gives from a date of the evidence, for a date the
    claim states otherwise ("nach drei Jahren ..., also am 15. Januar 2028" after "15. Januar
    2024": 2027); ``None`` unless exactly one such date, moved ``way`` (" − ": "7 weeks before")."""
    periods = [q for q in pool if q.unit in _DATE_PERIODS]
    if not periods or target.date is None:
        return None
    steps = {}
    for d in pool:
        if d.unit == "date" and d.date is not None:
            for n in periods:
                for step in _date_steps(d, n):
                    if _accepted(step, cue) and way in step.expression:
                        steps.setdefault(step.date, step)
    return next(iter(steps.values())) if len(steps) == 1 else None


@lru_cache(maxsize=16384)
def _read_claim(text: str, starts: Tuple[int, ...], claim_found: tuple) -> Optional[tuple]:
    """What :func:`compute_mentions` reads in a claim alone, kept per claim (claims repeat): its
    quantities, each target's marked when written as a round figure ("about three months"), the
    targets (``starts``) as indexes into them, those that are examples the claim takes, whether it
    says it computes, and the operations it names; ``None`` when no computation can back its
    targets."""
    # The claim's own numbers that the passages write are theirs, not the user's: "said" is for the
    # question's, a number the claim computed, and an example the claim takes ("with 3 days a week").
    claim = list(quantities_of(claim_found, text, False))
    if not claim or not starts:
        return None
    at = {q.start: i for i, q in enumerate(claim)}
    if any(start not in at for start in starts):
        return None  # a code, or a number arithmetic does not read: no computation backs it
    # A target is a number the evidence does not give, so it takes no unit from the evidence
    # (:func:`_typed`): whether it names something, or is an example, is read before the evidence is.
    if any(_identifier(claim[at[start]]) for start in starts):
        return None  # "plant 1200", "order 84924": a number that names something is never computed
    for start in starts:  # a round figure ("about three months") is compared as one
        i = at[start]
        claim[i] = claim[i]._replace(approx=_APPROX.search(text, max(0, start - 48), start) is not None)
    order = tuple([at[start] for start in starts])  # the targets, as indexes into the claim's quantities
    premises = tuple([i for i in order if _is_premise(text, claim[i])])
    named_count = _named_count(text)
    if named_count is not None:  # "Mittwoch und Donnerstag: je 28 EUR": two, a count the claim says
        claim.append(named_count)
    named = _named_operations(text) if len(claim) > 2 else frozenset()
    return tuple(claim), order, premises, _says_computation(text), named


@lru_cache(maxsize=16384)
def _says_computation(text: str) -> bool:
    """Whether a claim has words that say a computation follows (kept per text: claims repeat)."""
    return _CUE.search(text) is not None


@lru_cache(maxsize=16384)
def _named_operations(text: str) -> frozenset:
    """The operations a claim's words name (×, ÷, −, +)."""
    return frozenset(name for name, pattern in _OPERATORS[:4] if pattern.search(text))


def _identifier(q: Quantity) -> bool:
    """Whether a number names rather than counts: a bare whole number of four digits or more that
    is no year ("plant 1200", "order 84924", "invoice 5178837457")."""
    return not q.unit and q.value >= 1000 and q.value == int(q.value) and not 1900 <= q.value <= 2100


#: Things named one by one that a rate applies to each of: "Mittwoch und Donnerstag: je 28 EUR",
#: "Monday, Tuesday and Wednesday: 28 EUR each". Their number is a count the claim says.
_NAMES = r"((?:[A-ZÄÖÜ][\w.-]*,\s+)*[A-ZÄÖÜ][\w.-]*\s+(?:und|and|et|y|sowie)\s+[A-ZÄÖÜ][\w.-]*)[^.;\d]{0,30}?"
_NAMED_EACH = re.compile(_NAMES + r"(?:\b(?:je|jeweils|chacun|chacune|cada\s+uno)\s+[\d\u20ac$\u00a3]|"
                         r"[\d\u20ac$\u00a3][^.;]{0,15}?\beach\b)")
_NAME_JOINS = re.compile(r",\s+|\s+(?:und|and|et|y|sowie)\s+")


def _named_count(text: str) -> Optional[Quantity]:
    """The count of things a claim names one by one and applies a rate to each of, as a number it
    says (``None`` when it names none so)."""
    if "," not in text and " " not in text:
        return None
    found = _NAMED_EACH.search(text)
    if found is None:
        return None
    names = found.group(1)
    count = len(_NAME_JOINS.split(names))
    return Quantity(float(count), "", "", names, f"{count} ({names})", True, start=found.start())


def _is_named_count(q: Quantity) -> bool:
    """Whether ``q`` is a count :func:`_named_count` made (its surface the names, not a number)."""
    return not q.unit and q.shown == f"{int(q.value)} ({q.surface})"


def _is_premise(text: str, q: Quantity) -> bool:
    """Whether the claim's number ``q`` is an example it takes: after "with", "for", "bei", "pour"
    ... or in a conditional clause; or a count it applies a rate to ("3 nights at 120 EUR a
    night come to 360 EUR"). An example backs nothing by itself: it is backed only when a number
    the claim states follows from it."""
    start = q.start
    before = text[max(0, start - 80):start]
    if _PREMISE.search(before) is not None or CONDITION.search(before) is not None or is_example(text, q) or \
            (q.unit == "date" and _DATE_PREMISE.search(before) is not None):
        return True
    end = start + len(q.surface)
    return not _money(q.unit) and q.unit != "date" and _AT_RATE.match(text, end) is not None


def _date_premise(text: str, q: Quantity) -> str:
    """The words of a date the user's case falls on ("a departure on 20 May"), "" for another number."""
    if q.unit != "date":
        return ""
    found = _DATE_PREMISE.search(text, max(0, q.start - 60), q.start)
    return text[found.start():q.start + len(q.surface)].split(None, 1)[1] if found is not None else ""


def _written_out_only(text: str, order: Sequence[int], claim: Sequence[Quantity]) -> Computed:
    """:func:`compute_mentions` where no step can back a number: only a computation written out wrong."""
    for k in order:
        right = _written_out(text, claim[k], claim)
        if right is not None and not _matches(right, claim[k]):
            return Computed(wrong=(claim[k].shown, f"{_as_written(right.expression, text)} = {_result(right, claim[k])}"))
    return NOTHING


def _capped_example(example: Quantity, claim: Sequence[Quantity], evidence: Sequence[Quantity]) -> Optional[str]:
    """An example the claim takes that an amount it states follows from through a cap: "for 600 km
    you get 130 EUR", 600 km × 0.30 EUR being 180 EUR, capped at 130 EUR."""
    for q in claim:
        if not _money(q.unit):
            continue
        caps = [e for e in evidence if e.bound == "max" and e.unit == q.unit and e.value == q.value and not e.per]
        for cap in caps:
            for rate in evidence:
                if rate.group != cap.group or rate is cap:
                    continue
                for step in _one_steps(rate, example) + _one_steps(example, rate):
                    if step.unit == q.unit and step.value > cap.value and step.op == "×":
                        return f"{q.shown} = {step.expression} = {_result(step, q)}, capped at {cap.shown}"
    return None


#: The words that say a computation, which a passage never writes: a claim whose numbers are computed
#: is read without them ("For 380 km that makes 114 EUR.": its words are the passage's).
_COMPUTATION_WORDS = LazyPattern(
    r"\b(?:equals?|equal to|makes?|gives?|giving|leaves|leaving|leave(?=\s+(?:you|them|us)\b)|minus|less|plus|times|multiplied by|divided by|in total|"
    r"totals?|altogether|therefore|thus|hence|so|that is|which is|i\.\s?e\.|comes? to|amounts? to|adds? up to|"
    r"remaining|remainder|left|restants?|restantes?|verbleibenden?|restlichen?|"
    # what of an amount the user pays: "the remaining 8 EUR are at your own expense"
    r"at your (?:own )?expense|out of pocket|à (?:votre|ta) charge|zu Ihren Lasten|selbst zu tragen|"
    r"ergibt|ergeben|macht|machen|also|d\.\s?h\.|das heißt|bleiben|verbleiben|insgesamt|zusammen|damit|"
    r"somit|abzüglich|zuzüglich|mal|geteilt durch|soit|donc|fait|donne|reste|au total|moins|fois|"
    r"entspricht|entsprechen|corresponds? to|correspondent|correspond à|équivaut à|"
    # a computed date's or time's words for a limit: "i.e. by 9 June at the latest"
    + DEADLINE_WORDS + r"|"
    # what of a span of hours or days is counted: "Friday 16:00–18:00 counts as 2 hours"
    r"counts?(?: as)?|counted(?: as)?|zählt|zählen|gezählt|compte|comptent|"
    # what the user gets of an amount computed for them: "So you receive 16.80 EUR"
    r"receives?|get|gets|erhalten|erhältst|bekommen|bekommst|recevez|recevrez|percevez|touchez|obtenez|"
    # a round figure's words: "approx. two weeks" for "10 business days"
    r"about|approx\.?|approximately|roughly|around|circa|ca\.|rund|etwa|ungefähr|environ)(?!\w)", re.IGNORECASE)


def without_computation(text: str, written: Sequence[str] = ()) -> str:
    """A claim without the words that say a computation: what its passages must back besides its
    numbers. ``written``: what of it the computations account for (:attr:`Computed.written`), each
    number with its unit, which the passages write in theirs ("one year" for "12 months")."""
    for shown in written:
        at = text.find(shown) if shown else -1
        if at >= 0:
            # with what it is counted per: "24 days per year" computed is no "per year" a passage must say
            rate = _RATE_AFTER.match(text, at + len(shown))
            text = text[:at] + " " + text[rate.end() if rate is not None else at + len(shown):]
    return _COMPUTATION_WORDS.sub(" ", text)


_RATE_AFTER = re.compile(r"\s*(?:a|an|per|each|every|pro|je|im|in\s+der|par|por)\s+(?:calendar\s+)?(?:year|week|month|day|"
                         r"(?:kalender)?jahr|woche|(?:kalender)?monat|tag|an|année|semaine|mois|jour)\b", re.IGNORECASE)


def compute(claim: str, missing: Sequence[str] = (), passages: Sequence[str] = (), question: str = "") -> Computed:
    """What arithmetic finds for the numbers ``missing`` (their surfaces as the claim writes them)
    of ``claim``, against ``passages`` and ``question``: :func:`compute_mentions` for one claim
    read from its text (the judges give the mentions they have read already)."""
    return _compute(claim, tuple(missing), tuple(passages), question)


@lru_cache(maxsize=2048)
def _compute(claim: str, missing: Tuple[str, ...], passages: Tuple[str, ...], question: str) -> Computed:
    found = mentions(claim)
    targets = [m for m in found if m.surface in missing]
    evidence: List[Quantity] = []
    if question:
        evidence.extend(quantities(mentions(question), question, True))
    for text in passages:
        evidence.extend(quantities(mentions(text), text, False))
    return compute_mentions(claim, targets, found, evidence)
