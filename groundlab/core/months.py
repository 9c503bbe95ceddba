"""Month names as dates are written in English, German, French and Spanish, with the usual
abbreviations: what the numbers read dates with and what the sentence splitter never ends a
sentence before ("am 31. März": a date, not two sentences). Also the month a claim names after
the month the user's question names, where a passage moves to the following month
(:func:`month_after`)."""

import re
from functools import lru_cache
from typing import Sequence, Tuple

#: Each month name or abbreviation (lower case) and its number.
MONTHS = {
    # English, German, French, Spanish month names and the usual abbreviations
    "january": 1, "jan": 1, "januar": 1, "janvier": 1, "enero": 1,
    "february": 2, "feb": 2, "februar": 2, "février": 2, "fevrier": 2, "febrero": 2,
    "march": 3, "mar": 3, "märz": 3, "maerz": 3, "mars": 3, "marzo": 3,
    "april": 4, "apr": 4, "avril": 4, "abril": 4,
    "may": 5, "mai": 5, "mayo": 5,
    "june": 6, "jun": 6, "juni": 6, "juin": 6, "junio": 6,
    "july": 7, "jul": 7, "juli": 7, "juillet": 7, "julio": 7,
    "august": 8, "aug": 8, "août": 8, "aout": 8, "agosto": 8,
    "september": 9, "sep": 9, "sept": 9, "septembre": 9, "septiembre": 9,
    "october": 10, "oct": 10, "oktober": 10, "octobre": 10, "octubre": 10,
    "november": 11, "nov": 11, "novembre": 11, "noviembre": 11,
    "december": 12, "dec": 12, "dezember": 12, "décembre": 12, "decembre": 12, "diciembre": 12,
}

#: The whole month names of each language, in the order of the months.
MONTH_NAMES = (
    ("January", "Januar", "janvier", "enero"), ("February", "Februar", "février", "febrero"),
    ("March", "März", "mars", "marzo"), ("April", "April", "avril", "abril"), ("May", "Mai", "mai", "mayo"),
    ("June", "Juni", "juin", "junio"), ("July", "Juli", "juillet", "julio"), ("August", "August", "août", "agosto"),
    ("September", "September", "septembre", "septiembre"), ("October", "Oktober", "octobre", "octubre"),
    ("November", "November", "novembre", "noviembre"), ("December", "Dezember", "décembre", "diciembre"),
)


def month_after(claim: str, question: str, passages: Sequence[str]) -> Tuple[Tuple[str, str], ...]:
    """The months ``claim`` names that follow, by one, a month the ``question`` names, where a
    passage moves a payment or a deadline to the following month: "12 × 6.50 EUR = 78 EUR, paid with
    your April salary", asked about March, under "paid with the following month's salary". Each as
    (the month as the claim writes it, the note that computes it: "April = the month after March");
    () where there is none. English and German month names count written with a capital (as a
    month is), French and Spanish ones in lower case too."""
    named = [(name, MONTHS[name.lower()]) for name in months_named(claim)]
    if not named or not question or not any(_NEXT_MONTH.search(text) for text in passages):
        return ()
    asked = {MONTHS[name.lower()]: name for name in months_named(question)}
    out = []
    for written, month in named:
        before = 12 if month == 1 else month - 1
        if before in asked and month not in asked:
            out.append((written, f"{written} = the month after {asked[before]}"))
    return tuple(out)


@lru_cache(maxsize=16384)
def months_named(text: str) -> Tuple[str, ...]:
    """The month names ``text`` writes, as :func:`month_after` reads them (all it reads of the
    question: what a kept verdict on a claim naming a month is kept by)."""
    return tuple(m.group() for m in _MONTH_NAME.finditer(text))


#: A rule that moves to the month after: "with the following month's salary", "next month",
#: "im Folgemonat", "mit dem Gehalt des Folgemonats", "le mois suivant".
_NEXT_MONTH = re.compile(r"\b(?:following|next|subsequent)\s+month|\bFolgemonat|\bnächsten\s+Monat|"
                         r"\bmois\s+(?:suivant|prochain)|\bmes\s+siguiente", re.IGNORECASE)
_MONTH_NAME = re.compile(
    r"(?<![\w-])(?:(?-i:" + "|".join(sorted({n for row in MONTH_NAMES for n in row[:2]}, key=len, reverse=True)) +
    r")|(?i:" + "|".join(sorted({n for row in MONTH_NAMES for n in row[2:]}, key=len, reverse=True)) + r"))(?![\w-])")
