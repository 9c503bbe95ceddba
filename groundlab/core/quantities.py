"""A number as arithmetic reads it: a quantity with its unit and what it is counted per, read from
the words after it ("30 days", "0.30 EUR per km", "3 days a week", "30 Urlaubstage", "a 5-day
week"), a date with or without its year, a time of day, and whether it is a cap or a floor ("capped at
130 EUR", "up to 120 EUR"). What :mod:`groundlab.core.arithmetic` computes with.

>>> from groundlab.core.numbers import mentions
>>> text = "0.30 EUR per km for 500 km, 3 days a week"
>>> [(q.value, q.unit, q.per) for q in quantities(mentions(text), text, False)]
[(0.3, 'EUR', 'km'), (500.0, 'km', ''), (3.0, 'day', 'week')]
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple


__all__ = ["APPROX", "DEADLINE_WORDS", "Quantity", "quantities", "quantities_of"]


class Quantity(NamedTuple):
    """A number as arithmetic reads it. ``value``: a float (a date: 0, its day in ``date``, which
    is (year or 0, month, day)); ``unit``: "EUR" (a currency), "%", "date", a period ("day",
    "workday", "week", "month", "year", "hour", "minute"), "km", "night" or "" (a count); ``per``:
    what it is counted per ("3 days a week": "week"; "0.30 EUR per km": "km"; else ""); ``surface``:
    the number as written; ``shown``: it with its unit's words ("30 days"); ``said``: the claim or
    the question says it (the user's own numbers)."""

    value: float
    unit: str
    per: str
    surface: str
    shown: str
    said: bool
    date: Optional[Tuple[int, int, int]] = None
    bound: str = ""  # "max" for a cap ("capped at 130 EUR", "up to 120 EUR"), "min" for a floor
    group: str = ""  # the sentence it stands in: a cap bounds what its own sentence's rate gives
    approx: bool = False  # written as a round figure: "about three months", "ca. sechs Monate"
    start: int = -1  # where it stands in its text
    #: a date's side of a boundary, from the words before it: "end" its last day ("by 31 March",
    #: "bis zum"), "after" ("after 31 March"), "start" its first day ("from 1 April", "ab"),
    #: "before" ("before 1 April"), "on" the day a thing happens ("on 1 April", "am"); "" where no
    #: such word stands there
    edge: str = ""



# ------------------------------------------------------------------ reading quantities

_UNIT_WORDS = (
    ("workday", r"(?:working|business|work)[\s-]days?|arbeitstage?n?|werktage?n?|jours?\s+ouvr(?:é|a)(?:s|bles?)?"
                r"|d[ií]as\s+(?:h[aá]biles|laborables)"),
    ("day", r"(?:calendar\s+)?days?|kalendertage?n?|tage?n?|tages|jours?|d[ií]as?"),
    ("week", r"(?:calendar\s+)?weeks?|(?:kalender)?wochen?|semaines?|semanas?"),
    ("month", r"months?|monate?n?|monats|mois|mes(?:es)?"),
    ("year", r"years?|jahre?n?|jahres|ans|années?|a[nñ]os?"),
    ("hour", r"(?:business|service|working|office)\s+hours?|hours?|hrs?|h|stunden?|std\.?|heures?(?:\s+ouvrées)?|horas?"),
    ("minute", r"minutes?|mins?|minuten?|minutos?"),
    ("km", r"km|kilomet(?:er|re)s?|kilomètres?"),
    ("night", r"nights?|nächte?n?|übernachtungen?|nuits?|noches?"),
)
_UNIT = re.compile(r"\s*-?\s*(?:" + "|".join(f"(?P<{name}>{words})" for name, words in _UNIT_WORDS)
                   + r")(?![^\W\d_])", re.IGNORECASE)
_PER_WORDS = (
    ("week", r"week|woche|semaine|semana"),
    ("workday", r"(?:working|business|work)[\s-]day|arbeitstag|werktag|jour\s+ouvr(?:é|a)(?:ble)?"),
    ("day", r"day|tag|jour|d[ií]a"), ("month", r"(?:calendar\s+)?month|(?:kalender)?monat|mois|mes"),
    ("year", r"(?:calendar\s+)?year|(?:kalender)?jahr|an|año"), ("km", r"km|kilomet(?:er|re)|kilomètre"), ("night", r"night|nacht|nuit|noche"),
)
_PER = re.compile(
    r"\s*(?:(?:a|an|per|each|every|/|pro|je|im|in\s+der|par|por|al|la)\s*(?:"
    + "|".join(f"(?P<{name}>{words})" for name, words in _PER_WORDS) + r")(?![^\W\d_])"
    r"|(?:of\s+)?(?P<weekly>weekly|wöchentlich\w*|hebdomadaire)|(?:of\s+)?(?P<yearly>yearly|annual(?:ly)?|jährlich\w*|"
    r"jahres\w*|annuel\w*)|(?:of\s+)?(?P<monthly>monthly|monatlich\w*|mensuel\w*)|(?:of\s+)?(?P<daily>daily|täglich\w*))",
    re.IGNORECASE)
_PER_ADJECTIVE = {"weekly": "week", "yearly": "year", "monthly": "month", "daily": "day"}


#: German nouns of time glued to what they count ("30 Urlaubstage", "8 Servicestunden", "10 Arbeitstagen").
_GERMAN_COMPOUND = re.compile(r"\s*-?\s*[A-ZÄÖÜ][a-zäöüß]*?(?P<workday>arbeitstage?n?|werktage?n?)(?![^\W\d_])"
                              r"|\s*-?\s*[A-ZÄÖÜ][a-zäöüß]+?(?:(?P<day>tage?n?)|(?P<week>wochen?)|(?P<month>monate?n?)"
                              r"|(?P<hour>stunden?)|(?P<year>jahre?n?))(?![^\W\d_])")


#: Words between a number and the German noun it counts, which is written with a capital: its
#: attributes ("fünf nicht genommene Urlaubstage", "10 volle Arbeitstage"), lower case.
_GERMAN_ATTRIBUTES = re.compile(r"(?:\s+[a-zäöüß]{3,}){1,2}(?=\s+[A-ZÄÖÜ])")
#: Words after a number that are no attribute of a unit of time after them ("3 and 4 days", "5 to 10
#: days"); any other word may be one ("40 overtime hours", "5 unused days", "8 business hours").
NOT_ATTRIBUTES = frozenset("a an and are at after also before can could each every for from in into is may must not of "
                           "on only or per shall should than the to was were will with within would".split())
#: A word between a number and the English noun of time it counts, lower case and no function word:
#: "5 unused days", "40 overtime hours", "2 additional paid days" (one or two of them).
_ENGLISH_ATTRIBUTE = re.compile(r"\s+(?!(?:" + "|".join(sorted(NOT_ATTRIBUTES)) + r")\b)[a-z][a-z-]{2,}(?=\s)")


def attributes_end(text: str, end: int) -> int:
    """Where the English words between a number that ends at ``end`` and its unit of time end, one or
    two of them (:data:`_ENGLISH_ATTRIBUTE`); -1 where no unit follows them."""
    for _ in range(2):
        word = _ENGLISH_ATTRIBUTE.match(text, end)
        if word is None:
            return -1
        end = word.end()
        if _UNIT.match(text, end):
            return end
    return -1


_GERMAN_TIME_NOUN = re.compile(r"\s+(?=[A-ZÄÖÜ])(?i:[a-zäöüß]*?(?:tage?n?|tages|wochen?|monate?n?|monats|jahre?n?|jahres|"
                               r"stunden?|minuten?|nächte?n?|übernachtungen?))(?![^\W\d_])")

#: A count of times ("3 times per month", "3-mal pro Kalendermonat"), not a product ("3 times 4").
_TIMES = re.compile(r"\s*-?\s*(?:times|mal|fois|veces)(?![^\W\d_])(?!\s*[\d\u20ac$\u00a3])", re.IGNORECASE)


def _unit_at(text: str, end: int) -> Tuple[str, str, int]:
    """The unit written after a number that ends at ``end``, and where its words end (a count of
    times has no unit, but its words end after "times")."""
    found = _UNIT.match(text, end) or _GERMAN_COMPOUND.match(text, end)
    if found is None:
        between = _GERMAN_ATTRIBUTES.match(text, end)  # "fünf nicht genommene Urlaubstage"
        if between is not None and _GERMAN_TIME_NOUN.match(text, between.end()):
            found = _UNIT.match(text, between.end()) or _GERMAN_COMPOUND.match(text, between.end())
        else:
            between = attributes_end(text, end)  # "5 unused days", shown as written
            found = _UNIT.match(text, between) if between >= 0 else None
            if found is not None:
                return found.lastgroup or "", text[end:found.end()].strip(), found.end()
    if found is None:
        times = _TIMES.match(text, end)
        return ("", times.group().strip(), times.end()) if times else ("", "", end)
    return found.lastgroup or "", found.group().strip(), found.end()


def _per_at(text: str, end: int) -> str:
    found = _PER.match(text, end)
    if found is None:
        return ""
    name = found.lastgroup or ""
    return _PER_ADJECTIVE.get(name, name)


def _float(text: str) -> Optional[float]:
    try:
        return float(text)
    except ValueError:
        return None


#: A half a passage writes in words: "half of the rate is paid", "die Hälfte", "la moitié".
_HALF = re.compile(r"\b(?:half|Hälfte|halben?|halbe[rs]?|moitié)\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def halves(text: str) -> Tuple[Quantity, ...]:
    """A passage's halves written in words, each as 50 % of what it is said of ("For days of
    arrival and departure, half of the rate is paid": 32 EUR is half of 64 EUR)."""
    found = list(_HALF.finditer(text))
    if not found:
        return ()
    stops = _sentence_stops(text)
    return tuple(Quantity(50.0, "%", "", m.group(), m.group(), False, None, "", _sentence_at(text, stops, m.start()),
                          start=m.start()) for m in found)


def is_half(q: Quantity) -> bool:
    """Whether ``q`` is a half a passage writes in words (:func:`halves`): a share of an amount, no
    amount less or plus it."""
    return q.unit == "%" and q.surface.isalpha()


def _sentence_stops(text: str) -> List[int]:
    return [m.end() for m in _SENTENCE_END.finditer(text)]


def _sentence_at(text: str, stops: List[int], at: int) -> str:
    """The sentence (or clause, to a semicolon) of ``text`` that ``at`` stands in, its ends ``stops``."""
    k = bisect.bisect_right(stops, at)
    return text[stops[k - 1] if k else 0:stops[k] if k < len(stops) else len(text)]


def quantities_of(found: Sequence, text: str, said: bool) -> Tuple[Quantity, ...]:
    """:func:`quantities`, kept per text: a passage's numbers are read once for every claim."""
    return _quantities_of(tuple(found), text, said)


@lru_cache(maxsize=16384)
def _quantities_of(found: tuple, text: str, said: bool) -> Tuple[Quantity, ...]:
    return tuple(quantities(found, text, said))


def quantities(found: Iterable, text: str, said: bool) -> List[Quantity]:
    """The quantities of a text's number mentions (:func:`groundlab.core.numbers.mentions`):
    amounts of money in their currency, percentages, dates with or without their year, and numbers
    with the unit of time or distance written after them, each with what it is counted per. Codes
    are no quantity."""
    out = []
    stops = _sentence_stops(text) if found else []
    for m in found:
        kind = m.kind
        if kind == "date":
            date = _date_of(m.value)
            if date is not None:
                out.append(Quantity(0.0, "date", "", m.surface, m.surface, said, date, start=m.start,
                                    edge=_edge(text, m.start)))
            continue
        if kind == "time":  # minutes since midnight
            out.append(Quantity(float(int(m.value[1:3]) * 60 + int(m.value[4:6])), "time", "", m.surface, m.surface,
                                said, start=m.start))
            continue
        if kind == "code" and m.value.isdigit() and (_UNIT.match(text, m.end) or _TIMES.match(text, m.end)
                                                     or _DENOMINATOR.match(text, m.start - 2, m.end + 4)):
            kind = "number"  # "a 5-day week", "5-Tage-Woche", "3-mal": a number glued to its unit; "9/12 × 30"
        if kind not in ("money", "percent", "number"):
            continue
        value = _float(m.amount)
        if value is None:
            continue
        if kind == "money":
            unit, shown, end = m.value.split(" ", 1)[0], m.surface, m.end
        elif kind == "percent":
            unit, shown, end = "%", m.surface, m.end
        else:
            unit, words, end = _unit_at(text, m.end)
            shown = f"{m.surface} {words}".replace(" -", "-") if words else m.surface
        bound = ""
        if kind == "money":
            before = text[max(0, m.start - 30):m.start]
            bound = "max" if _CAP.search(before) else "min" if _FLOOR.search(before) else ""
        group = _sentence_at(text, stops, m.start)
        per = _per_at(text, end)
        if not per and unit in ("day", "workday") and _DAY_WEEK.match(text, end):
            per = "week"  # "a 5-day week", "5-Tage-Woche": days a week
        out.append(Quantity(value, unit, per, m.surface, shown, said, None, bound, group, start=m.start))
    return out


#: A fraction's denominator in a computation written out: the "12" of "9/12 × 30 =".
_DENOMINATOR = re.compile(r"\d/\d+\s*[×x*÷/+−=]")
_DAY_WEEK = re.compile(r"[\s-]*(?:work(?:ing)?[\s-]?)?(?:week|woche|semaine)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)")


#: The words before a number that write it as a round figure ("about three months", "ca. sechs
#: Monate", "environ 3 semaines"; :attr:`Quantity.approx`), searched in the text before it.
APPROX = re.compile(r"\b(?:about|approx\.?|approximately|roughly|around|nearly|almost|some|ca\.|circa|rund|etwa|"
                    r"ungefähr|knapp|gut|environ|presque|à peu près|près de|aproximadamente|unos)\s*"
                    r"(?:(?:alle|every|tous\s+les|toutes\s+les)\s+)?$", re.IGNORECASE)
_CAP = re.compile(r"\b(?:capped at|up to|a maximum of|maximum(?: of)?|max\.?|at most|not more than|no more than|"
                  r"limited to|höchstens|maximal|bis zu|bis|gedeckelt auf|begrenzt auf|plafonnée? à|jusqu'à|au maximum|"
                  r"hasta)\s*(?:€|EUR|USD|\$|£|CHF)?\s*$", re.IGNORECASE)
_FLOOR = re.compile(r"\b(?:at least|a minimum of|minimum(?: of)?|min\.?|no less than|mindestens|minimal|au moins|"
                    r"au minimum|al menos)\s*(?:€|EUR|USD|\$|£|CHF)?\s*$", re.IGNORECASE)
#: The words that mark a deadline as "by" does, a regular-expression alternation: "by 31 March at
#: the latest", "no later than", "spätestens", "au plus tard". No fact a passage must write: the
#: judges read them as the deadline's own marker, and a computed date's words.
DEADLINE_WORDS = r"at\s+the\s+latest|not?\s+later\s+than|spätestens|au\s+plus\s+tard"
#: The words before a date that say which side of a boundary it is (:attr:`Quantity.edge`); the
#: leftmost match decides ("au plus tard le 31 mars" is no "le 31 mars").
_EDGES = re.compile(
    r"\b(?:(?P<end>by|until|till|through|up to and including|no later than|bis(?:\s+(?:zum|zur|einschließlich))?|"
    r"spätestens(?:\s+(?:am|zum|bis\s+zum))?|jusqu'(?:au|à)|au plus tard(?:\s+le)?)"
    r"|(?P<after>after|nach\s+dem|après\s+le)|(?P<before>before|vor\s+dem|avant\s+le)"
    r"|(?P<start>from|as of|starting|beginning|ab(?:\s+dem)?|vom|à partir du|dès le)|(?P<on>on|am|le))\s+(?:the\s+)?$",
    re.IGNORECASE)


def _edge(text: str, start: int) -> str:
    m = _EDGES.search(text, max(0, start - 30), start)
    return m.lastgroup if m is not None else ""


def _date_of(value: str) -> Optional[Tuple[int, int, int]]:
    """(year or 0, month, day or 0) of a date's value: "--03-31", "2027-03-31", "2022-03" (a month)."""
    if value.startswith("--") and len(value) == 7:
        return 0, int(value[2:4]), int(value[5:7])
    if len(value) == 7 and value[4] == "-" and value[:4].isdigit() and value[5:].isdigit():
        return int(value[:4]), int(value[5:7]), 0
    if len(value) == 10 and value[4] == "-" and value[7] == "-":
        return int(value[:4]), int(value[5:7]), int(value[8:10])
    return None
