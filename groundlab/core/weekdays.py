"""A day of the week a claim computes: the user's day plus the period the claim states. "From the
third calendar day of illness, so if you fell ill on Monday you need one from Wednesday"; "within 3
business days, i.e. by Thursday" for a ticket the question says was opened on Monday; "ab dem
dritten Kalendertag, bei Krankheit ab Montag also ab Mittwoch".

The day counted from is one the question names (the user's own) or one the claim takes as given
("if you fell ill on Monday", "opened on Friday"); the period is one the claim itself states (a
number of calendar or working days, or the n-th day, which counts the first as day 1), so that a day
of the week, one of only seven, is not reached by chance through another period of the passages.
Working days run Monday to Friday (a region's holidays are not known). A day computed wrong after
words that say a computation follows ("i.e.", "so", "also", "d. h.", "donc") is told the right one.

>>> found = weekdays("Resolution within 3 business days, i.e. by Thursday.", ("Monday",))
>>> found.derived, found.written
(('Thursday = Monday + 3 business days',), ('Thursday',))
>>> weekdays("Resolution within 3 business days, i.e. by Wednesday.", ("Monday",)).wrong
('Wednesday', 'Monday + 3 business days = Thursday')
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple

from .numbers import mentions, ordinal_words

__all__ = ["DAY_NAMES", "DAY_WORDS", "Weekdays", "counts_days", "days_named", "named_days", "weekdays"]

#: The days of the week, Monday first, in English, German and French.
DAY_NAMES = (
    ("monday", "montag", "lundi"), ("tuesday", "dienstag", "mardi"), ("wednesday", "mittwoch", "mercredi"),
    ("thursday", "donnerstag", "jeudi"), ("friday", "freitag", "vendredi"), ("saturday", "samstag", "samedi"),
    ("sunday", "sonntag", "dimanche"),
)
_INDEX = {name: k for k, names in enumerate(DAY_NAMES) for name in names}
_INDEX["sonnabend"] = 5
#: Which of :data:`DAY_NAMES`' columns (English, German, French) a name is written in.
_COLUMN = {name: i for names in DAY_NAMES for i, name in enumerate(names)}
_COLUMN["sonnabend"] = 1


_WORD = re.compile(r"[^\W\d_]+")
#: The days' names in lower case: a text's words met against them tell cheaply whether it names one.
DAY_WORDS = frozenset(_INDEX)

#: What stands after a number of days the claim states: "3 business days", "third calendar day",
#: "dritten Kalendertag", "3 Arbeitstagen", "troisième jour ouvré". Group ``work``: working days.
_DAYS_AFTER = re.compile(
    r"(?P<dot>\.)?[\s-]*(?:(?P<work>(?:working|business|work)[\s-]days?|arbeitstage?n?s?|werktage?n?s?|jours?\s+ouvr(?:é|a)(?:s|bles?)?)"
    r"|(?:calendar\s+)?days?(?:\s+of\s+\w+)?|(?:kalender|krankheits|fehl)?tage?n?s?|jours?(?:\s+calendaires?)?)(?![^\W\d_])",
    re.IGNORECASE)
#: Words before a day the claim takes as given: "if you fell ill on Monday", "opened on Friday".
_GIVEN = re.compile(r"\b(?:if|when|since|opened|started|began|fell|wenn|falls|seit|si|depuis)\b[^,;.:!?]*$",
                    re.IGNORECASE)
#: Words between the period and a day that say the day is computed from it.
_CUE = re.compile(r"\b(?:i\.\s?e\.|that is|so|which means|this means|thus|hence|therefore|d\.\s?h\.|also|somit|"
                  r"folglich|das heißt|soit|donc|c'est-à-dire)(?![^\W\d_])|[=→]", re.IGNORECASE)


class Weekdays(NamedTuple):
    """What :func:`weekdays` finds: ``derived`` the computations ("Thursday = Monday + 3 business
    days"), ``written`` the days they give as the claim writes them (no words a passage must
    write), ``wrong`` a day computed wrong and the computation that gives the right one."""

    derived: Tuple[str, ...] = ()
    written: Tuple[str, ...] = ()
    wrong: Optional[Tuple[str, str]] = None


NOTHING = Weekdays()


@lru_cache(maxsize=4096)
def named_days(text: str) -> Tuple[Tuple[int, str, int], ...]:
    """The days of the week a text names: (0 for Monday … 6 for Sunday, as written, where); kept per
    text (a passage is met by many claims)."""
    low = text.lower()
    if not any(name in low for name in DAY_WORDS):  # a quicker test than its words
        return ()
    return tuple((_INDEX[m.group().lower()], m.group(), m.start()) for m in _WORD.finditer(text)
                 if m.group().lower() in _INDEX)


def days_named(texts: Iterable[str]) -> Tuple[str, ...]:
    """The days of the week ``texts`` name, as written, in order: the user's in a question (a claim
    may count from them), the ones a passage writes (found, not computed)."""
    return tuple(surface for text in texts for _, surface, _ in named_days(text))


class _Period(NamedTuple):
    days: int  # days to add to the day counted from (taken off for a period "before" it)
    work: bool  # working days
    shown: str
    end: int
    ordinal: bool  # the n-th day: the day counted from is day 1
    back: bool = False  # "24 hours before departure"

    def after(self, start: str) -> str:
        if self.back:
            return f"{start} − {self.shown}"
        return f"{self.shown} counted from {start}" if self.ordinal else f"{start} + {self.shown}"


@lru_cache(maxsize=4096)
def counts_days(text: str) -> bool:
    """Whether a text states a number of days a day of the week may be counted by ("3 business
    days", "the third calendar day"): what a claim needs for :func:`weekdays` to find anything."""
    return bool(_periods(text))


def _periods(text: str) -> List[_Period]:
    """The numbers of days a claim states: "3 business days" (+3), "the third calendar day" (day 3
    counts the first as day 1: +2)."""
    out = []
    ordinals = ordinal_words(text)
    for m in mentions(text) + ordinals:
        after = _DAYS_AFTER.match(text, m.end)
        if after is None or not m.amount.isdigit() or not 0 < int(m.amount) <= 60:
            continue
        n = int(m.amount)
        ordinal = m in ordinals or after.group("dot") is not None or _ORDINAL_DIGITS.fullmatch(m.surface) is not None
        out.append(_Period(n - 1 if ordinal else n, after.group("work") is not None, text[m.start:after.end()],
                           after.end(), ordinal))
    for m in mentions(text):  # whole days in hours: "within 24 hours", "48 Stunden vorher"
        hours = _HOURS_AFTER.match(text, m.end)
        if hours is not None and m.amount.isdigit() and int(m.amount) % 24 == 0 and 0 < int(m.amount) <= 240:
            back = _BACK.match(text, hours.end()) is not None
            out.append(_Period(int(m.amount) // 24, False, text[m.start:hours.end()], hours.end(), False, back))
    return sorted(out, key=lambda p: p.end)


_HOURS_AFTER = re.compile(r"[\s-]*(?:hours?|stunden?|heures?)(?![^\W\d_])", re.IGNORECASE)
#: Words after a period that count it back from a day or a date: "24 hours before departure", "10
#: working days in advance", "7 Wochen vor dem 1. September", "vorher", "2 semaines avant".
BACK_WORDS = r"before|prior\s+to|ahead\s+of|earlier|in\s+advance|im\s+voraus|à\s+l'avance|vor|vorher|zuvor|avant"
_BACK = re.compile(r"\s+(?:" + BACK_WORDS + r")\b", re.IGNORECASE)


_ORDINAL_DIGITS = re.compile(r"\d+(?:st|nd|rd|th|\.|e|ème)")


def _add(day: int, period: _Period) -> Optional[int]:
    if period.back:
        return None if period.work else (day - period.days) % 7
    if not period.work:
        return (day + period.days) % 7
    if day >= 5:
        return None  # working days counted from a weekend: whether Monday counts is the policy's to say
    left = period.days
    while left:
        day = (day + 1) % 7
        if day < 5:
            left -= 1
    return day


def weekdays(claim: str, said: Sequence[str] = (), written: Sequence[str] = ()) -> Weekdays:
    """The days of the week ``claim`` computes from a day the user names (``said``: the days the
    question names, as written) or one it takes as given, and the number of days it states.
    ``written``: days the passages write (found, not computed)."""
    if not named_days(claim):
        return NOTHING
    return _weekdays(claim, tuple(said), frozenset(w.lower() for w in written))


@lru_cache(maxsize=4096)
def _weekdays(claim: str, said: Tuple[str, ...], written: frozenset) -> Weekdays:
    days = named_days(claim)  # (some: :func:`weekdays` asks first)
    starts = [(_INDEX[s.lower()], s) for s in said if s.lower() in _INDEX]
    # a day the words before it take as given, back to the day before it ("if you fell ill on Monday you
    # need one from Wednesday": Monday)
    given = [(k, surface, at) for i, (k, surface, at) in enumerate(days)
             if _GIVEN.search(claim, max(0, at - 60, days[i - 1][2] + len(days[i - 1][1]) if i else 0), at)]
    starts += [(k, surface) for k, surface, _ in given]
    if not starts:
        return NOTHING
    periods = _periods(claim)
    if not periods:
        return NOTHING
    derived, shown, wrong = [], [], None
    for k, surface, at in days:
        if surface.lower() in written or any(at == g[2] for g in given):
            continue
        before = [p for p in periods if p.end <= at]
        # the nearest period before the day first; else one stated after it ("by Tuesday at 9:00, within
        # 24 hours"), which backs the day but tells no wrong one
        tried = reversed(before) if before else [p for p in periods if p.end > at]
        step = next((p.after(s) for p in tried for d, s in starts if _add(d, p) == k), None)
        if step is not None:
            derived.append(f"{surface} = {step}")
            shown.append(surface)
        if step is not None or not before:
            continue
        period = before[-1]
        if wrong is None and len({d for d, _ in starts}) == 1 and _CUE.search(claim, period.end, at):
            d, s = starts[0]
            k = _add(d, period)
            if k is None:
                continue
            right = DAY_NAMES[k][_COLUMN[surface.lower()]]
            wrong = (surface, f"{period.after(s)} = {right if surface.islower() else right.capitalize()}")
    if wrong is not None:
        return Weekdays(wrong=wrong)
    return Weekdays(tuple(derived), tuple(shown))
