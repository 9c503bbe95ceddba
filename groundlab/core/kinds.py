"""What a claim states, by rules: an id, an amount of money, a date, a quantity, or none of them.

A wrong amount on a disputed invoice costs more than a vague sentence in a how-to answer, so each
claim gets the kinds of fact it states, and the measures and targets can be set per kind
(:func:`groundlab.metrics.hallucination_breakdown`, :mod:`groundlab.targets`).

============ =========================================================================
kind         what makes it
============ =========================================================================
``id``       a code: letters, a hyphen and digits (``PRC-112``, ``RM-4711``,
             ``INV-2024-001``), capitals fused with digits (``PO4500017311``), a bare
             number of 6 digits or more (``4500017311``), a number of 3 digits or more
             after a record word (``customer 10023``, ``invoice no. 5100``), ``#4711``
``amount``   money: a number with a currency sign (``$1,200``, ``1.200,50 €``), an ISO
             code (``EUR 250``, ``5k USD``) or a currency word (``200 euros``, ``fifty
             dollars``, ``30 cents``)
``date``     a date, a time or a span of time: ``2024-05-03``, ``03.05.2024``, ``3 May``,
             ``March 2024``, weekdays, ``today``, ``month-end``, ``Q3``, ``FY2024``,
             ``in 2024``, ``week 38``, ``17:00``, ``5 pm``, a day of the month (``by the
             25th``, ``the 1st of each month``), durations (``within 5 working days``,
             ``two weeks``, ``a month``; ``innerhalb von 14 Tagen``, ``drei Wochen``,
             ``trois jours``, ``15 días``) and schedules (``every morning``, ``weekly``)
``quantity`` any other number: a count or a number with a unit (``80 of 100 pieces``,
             ``1.5 percent``, ``two invoices``, ``a dozen pallets``, ``12 kg``)
``other``    none of the above
============ =========================================================================

A claim that states several kinds keeps them all (:func:`claim_kinds`, the ``kinds`` column of
:attr:`groundlab.Evaluation.claims`); its ``kind`` is the first of them in :data:`KINDS`, the
priority ``id > amount > date > quantity > other``. An id comes first because it says *which*
record the rest of the claim is about: with a wrong id, every amount, date and quantity in the
claim belongs to another invoice or order. Money comes next (a wrong amount gets paid or
claimed), then dates (deadlines, due dates), then other numbers.

Each number is classified once, by what stands just before and after it, so a number that is
part of an amount, a date or an id is not counted again as a quantity (``within 5 working days``
is a date only). A claim with no digit, currency sign or cue word is ``other`` at once; that is
most claims, and what keeps this cheap enough to run on every claim of a large log
(``bench/bench_kinds.py`` times it); results are cached by text, as the rules judge caches its
reading of a claim.

Numbers are digits, or number words found by :func:`written_numbers` (the one place that reads
numbers written in words, :data:`NUMBER_WORDS`, so a fuller reader can take its place).

>>> claim_kinds("The supplier delivered 80 of 100 pieces.")
('quantity',)
>>> claim_kinds("Invoice 5100001234 over EUR 1,200 is due within 5 working days.")
('id', 'amount', 'date')
>>> claim_kind("Safety stock is a buffer.")
'other'
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Dict, FrozenSet, Iterator, Set, Tuple

from .numbers import FOREIGN_WORD_VALUES
from .sentences import LazyPattern

#: The kinds, most severe first: the priority that picks a claim's ``kind`` among those it states.
KINDS: Tuple[str, ...] = ("id", "amount", "date", "quantity", "other")

#: Number words read as numbers. ``one`` counts only before a unit ("one day", "one euro",
#: "one pallet"): alone it is too often a pronoun ("no one", "one of the buyers").
NUMBER_WORDS: FrozenSet[str] = frozenset((
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
    "million billion dozen dozens hundreds thousands millions"
).split())

_SIGNS = "$\u20ac\u00a3\u00a5\u20b9\u20a9\u20bd\u20ba\u20aa\u20a3"  # $ € £ ¥ ₹ ₩ ₽ ₺ ₪ ₣
_CODES = frozenset(("EUR USD GBP CHF JPY CNY RMB INR SEK NOK DKK PLN CZK HUF RON CAD AUD NZD SGD HKD ZAR BRL MXN "
                    "TRY AED SAR KRW ILS").split())
_CURRENCY_WORDS = ("euros?|eurocents?|dollars?|bucks|pounds\\s+sterling|francs?|yen|yuan|renminbi|rupees?|"
                   "kron(?:a|or|er|e)|zloty|cents?|pence")
_TIME_UNITS = ("days?|weeks?|months?|years?|hours?|hrs?|minutes?|mins?|seconds?|secs?|quarters?|nights?|weekdays?|"
               "workdays?|"
               # German, French and Spanish: "innerhalb von 14 Tagen", "30 Werktage", "trois jours", "15 días"
               "(?:werk|arbeits|kalender|bank|geschäfts)?tag(?:e|en|es)?|wochen?|monat(?:e|en|s)?|jahr(?:e|en|es)?|"
               "stunden?|minuten|quartal(?:e|en|s)?|"
               "jours?|semaines?|mois|ans|années?|heures?|"
               "d[ií]as?|semanas?|mes(?:es)?|años?|horas?|minutos?")
_DAY_WORDS = "working|business|calendar|bank|banking|full|whole|consecutive"
# A unit of time after a number: "5 working days", "30-day", "two weeks".
_TIME_SPAN = rf"[\s-]+(?:(?:{_DAY_WORDS})\s+)?(?:{_TIME_UNITS})\b"
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH_ABBR = "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
_MONTH_NAMES = frozenset(_MONTHS.split("|")) | frozenset(_MONTH_ABBR.split("|"))
#: German, French and Spanish month names, after a day: "3. Mai", "3 mai", "3 de mayo".
_FOREIGN_MONTHS = ("Januar|Jänner|Februar|März|Mai|Juni|Juli|Oktober|Dezember|janvier|février|mars|avril|mai|juin|"
                   "juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|"
                   "agosto|septiembre|octubre|noviembre|diciembre")
#: The day of a month: "the 25th of the month", "the 1st of each month", "am 25. des Monats".
_MONTH_DAY = (r"(?:st|nd|rd|th)\s+of\s+(?:the|each|every|this|next|that|a|any|the\s+following|the\s+same|the\s+current)"
              r"\s+(?:calendar\s+)?(?:month|quarter)\b"
              r"|\.\s+(?:des|eines|jedes)\s+(?:Folge)?(?:Monats|Quartals)\b")
#: A bare ordinal day after a word of time: "by the 25th", "on the 1st", "until the 3rd".
_ORDINAL_END = re.compile(r"(?:st|nd|rd|th)\b(?!-)(?=\s*(?:[.,;:!?)]|$|\s+(?:at|and|or|if|when|unless|latest)\b))")
_DAY_BEFORE = re.compile(r"(?i:\b(?:by|on|until|till|before|after|from|since|due|through|starting|ending|"
                         r"no\s+later\s+than)\s+the\s*)$")
_RECORD_WORDS = frozenset((
    "order orders invoice invoices customer customers vendor vendors supplier suppliers material materials "
    "document documents account accounts ticket tickets case cases item items article articles part parts "
    "batch batches lot lots contract contracts request requests incident incidents delivery deliveries "
    "shipment shipments memo memos po so sku id ref ref. reference").split())
_NUMBER_MARKS = frozenset("no no. nr nr. number # id :".split())
_YEAR_WORDS = frozenset("in since until till by from before after during of fiscal year early mid late pre "
                        "post".split())

# A number in digits: 90, 1.5, 1,200.50, 1.200,50, 10 000 (not inside a word or another number).
_DIGITS = re.compile(r"(?<![\w.,])\d+(?:[.,\u00a0\u202f ]\d{3})*(?:[.,]\d+)?")
_CUE_CHAR = re.compile(f"[\\d{_SIGNS}]")
_LETTER_DIGIT = re.compile(r"[A-Za-z]\d")
# Letters fused with digits: PO4500017311, Q3, FY2024, CW38.
_FUSED = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{1,8})(\d+)[A-Za-z0-9]*\b")

# What may stand right after a number, tried once at its end: a scale and a currency make an
# amount; a unit of time, a month ("3 May") or am/pm make a date.
_AFTER = re.compile(
    rf"(?P<amount>(?:\s?(?:k|m|bn|mn)\b|\s+(?:thousand|million|billion)\b)?\s?"
    rf"(?:[{_SIGNS}]|(?:{'|'.join(sorted(_CODES))})\b|(?i:{_CURRENCY_WORDS})\b))"
    rf"|(?P<date>(?i:{_TIME_SPAN})|(?:st|nd|rd|th)?\.?\s+(?:of\s+)?(?:{_MONTHS}|{_MONTH_ABBR})\b"
    rf"|\.?\s+(?:de\s+)?(?i:{_FOREIGN_MONTHS})\b|(?i:{_MONTH_DAY})"
    r"|(?i:\s?[ap]\.?m\b\.?))")
# A date or time written with separators, tried where a number is followed by - . / or :
_DATE_AT = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\b|\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|\d{1,2}:\d{2}(?::\d{2})?"
                      r"(?:\s?[ap]\.?m\b\.?)?")
_ID_TAIL = re.compile(r"(?:[-/][A-Za-z0-9]+)*")

# Words that can make a claim a date, an amount or a quantity without a digit. A claim whose words
# (split at white space and hyphens, lower-cased, with trailing punctuation) meet none of them,
# and that has no digit or currency sign, is "other" at once.
_WORD_DATES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays "
    "saturdays sundays today tomorrow yesterday tonight overnight nightly daily weekly fortnightly monthly "
    "quarterly yearly annually noon midnight".split())
# Month names that are not also common words ("may", "march", "august"): those count only beside
# a number ("3 May", "May 2024").
_MONTH_WORDS = frozenset("january february april june july september october november december".split())
_MONTH_NAME = LazyPattern(r"\b(?:January|February|April|June|July|September|October|November|December)\b")
_SPAN_WORDS = frozenset("day days week weeks month months year years hour hours night nights weekday weekdays "
                        "workday workdays every end".split())
_CURRENCY_CUES = frozenset("euro euros eurocent eurocents dollar dollars bucks franc francs yen yuan renminbi rupee "
                           "rupees krona kronor kroner krone zloty cent cents pence".split())
#: Two to twelve in German, French and Spanish (as :mod:`groundlab.numbers` reads them).
_FOREIGN_NUMBER_WORDS = frozenset(FOREIGN_WORD_VALUES)
_CUE_WORDS = NUMBER_WORDS | _WORD_DATES | _MONTH_WORDS | _SPAN_WORDS | _CURRENCY_CUES | {"one"} | _FOREIGN_NUMBER_WORDS
_PUNCTUATION = ".,;:!?)\"'\u201d\u2019"
# The cue words as they stand between spaces: bare, or with punctuation after or "(" before.
_CUE_TOKENS = _CUE_WORDS | {w + p for w in _CUE_WORDS for p in _PUNCTUATION} | {"(" + w for w in _CUE_WORDS}
_WORD_SPANS = re.compile(
    rf"\b(?:one|an?|half\s+an?|a\s+few|several|a\s+couple\s+of)[\s-]+(?:(?:{_DAY_WORDS})\s+)?"
    r"(?:days?|weeks?|months?|years?|hours?|nights?|weekdays?|workdays?)\b"
    r"|\bevery\s+(?:other\s+)?(?:day|night|morning|afternoon|evening|week|month|quarter|year|weekday|hour|"
    r"(?:working|business)\s+day)\b"
    r"|\b(?:day|week|month|quarter|year|period)[\s-]end\b"
    r"|\bend\s+of\s+(?:the\s+)?(?:day|week|month|quarter|year|period)\b",
    re.IGNORECASE)
_NUMBER_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_NUMBER_WORD_RUN = re.compile(rf"\b(?:an?\s+)?(?:{_NUMBER_WORD})(?:(?:\s+and\s+|[\s-]+)(?:{_NUMBER_WORD}))*\b",
                              re.IGNORECASE)
_ONE_UNIT = re.compile(
    rf"\bone\s+(?:({_CURRENCY_WORDS})|unit|piece|pallet|box|item|invoice|order|line|case|kg|ton)s?\b", re.IGNORECASE)
_CURRENCY_WORD_AFTER = re.compile(rf"\s+(?:(?:thousand|million|billion)\s+)?(?:{_CURRENCY_WORDS})\b", re.IGNORECASE)
_TIME_AFTER = re.compile(_TIME_SPAN, re.IGNORECASE)
#: A German, French or Spanish number word, and a unit of time after it: "drei Wochen", "trois jours".
_FOREIGN_NUMBER = re.compile(r"\b(?:" + "|".join(sorted(FOREIGN_WORD_VALUES, key=len, reverse=True)) + r")\b",
                             re.IGNORECASE)

_ORDER = {kind: k for k, kind in enumerate(KINDS)}
_OTHER = ("other",)
_SHARED: Dict[Tuple[str, ...], Tuple[str, ...]] = {}


def written_numbers(text: str) -> Iterator[Tuple[int, int]]:
    """The spans of numbers written in words (``two``, ``twenty-five``, ``a dozen``,
    ``two hundred and fifty``) in ``text``; ``one`` is left out (see :data:`NUMBER_WORDS`).

    >>> text = "The buyer sent two hundred and fifty reminders."
    >>> [text[s:e] for s, e in written_numbers(text)]
    ['two hundred and fifty']
    """
    for match in _NUMBER_WORD_RUN.finditer(text):
        yield match.span()


def _digit_kind(text: str, start: int, end: int) -> Tuple[str, int]:
    """The kind of the number in digits at ``text[start:end]``, and where the thing it belongs to
    ends (a date or a code can run past the number): by what stands just before and after it."""
    after = _AFTER.match(text, end)
    if after is not None and after.lastgroup == "amount":
        return "amount", end
    before = text[max(0, start - 30):start]
    stripped = before.rstrip()
    gap = len(before) - len(stripped)
    words = stripped.rsplit(None, 2)
    last = words[-1] if words else ""
    # amount: a sign or code before it, or a sign, code or currency word after it
    if gap <= 1 and last and (last[-1] in _SIGNS or last in _CODES):
        return "amount", end
    # date: a date or time that starts here, a unit of time, a month or am/pm after it, a month or
    # week before it
    if text[end:end + 1] in ("-", ".", "/", ":"):
        date = _DATE_AT.match(text, start)
        if date:
            return "date", date.end()
    if after is not None:
        return "date", end
    if gap and (last.rstrip(".") in _MONTH_NAMES or last.lower() in ("week", "cw", "kw")):
        return "date", end
    if text[end:end + 2] in ("st", "nd", "rd", "th") and _DAY_BEFORE.search(before) and _ORDINAL_END.match(text, end):
        return "date", end  # "by the 25th": a day of the month
    number = text[start:end]
    lower = last.lower()
    if (len(number) == 4 and number[:2] in ("19", "20")
            and (gap and lower in _YEAR_WORDS or not gap and lower.rstrip("-") in _YEAR_WORDS)):
        return "date", end
    # id: a code (letters and a hyphen, or #), a record word before it, or a long bare number
    if not gap and (last.endswith("#") or last.endswith("-") and last[:-1].isalpha() and len(last) <= 9):
        tail = _ID_TAIL.match(text, end)
        return "id", tail.end() if tail else end
    if len(number) >= 3 and gap and last:
        if lower in _RECORD_WORDS or (lower in _NUMBER_MARKS and len(words) > 1 and words[-2].lower() in _RECORD_WORDS):
            return "id", end
    if len(number) >= 6 and number.isdigit():
        return "id", end
    return "quantity", end


def _fused_kind(prefix: str, digits: str) -> str:
    """The kind of letters fused with digits (``Q3``, ``FY2024``, ``PO4500017311``); ``""`` for a
    unit written onto a number or a word that is none (``v2``, ``mp3``)."""
    if prefix in _CODES:
        return "amount"  # USD500
    upper = prefix.upper()
    if upper == "Q" and digits in ("1", "2", "3", "4"):
        return "date"
    if upper in ("FY", "CY") and len(digits) in (2, 4) or upper in ("CW", "KW") and len(digits) <= 2:
        return "date"
    if prefix.isupper() and len(prefix) <= 5 and len(digits) >= 2:
        return "id"
    return ""


def _cue_words(text: str) -> FrozenSet[str]:
    """The words of ``text`` that may make it a date, an amount or a quantity without a digit."""
    words = text.lower().replace("-", " ").split()
    if _CUE_TOKENS.isdisjoint(words):  # the common case, decided in C
        return frozenset()
    return _CUE_WORDS.intersection(w.strip(_PUNCTUATION + "(\u201c\u2018") for w in words)


@lru_cache(maxsize=16384)
def claim_kinds(text: str) -> Tuple[str, ...]:
    """Every kind of fact ``text`` states, most severe first (see :data:`KINDS`); ``("other",)``
    when it states none. Cached by text, as the rules judge caches its reading of a claim:
    answers repeat sentences.

    >>> claim_kinds("Error PRC-112 means the condition record is missing.")
    ('id',)
    >>> claim_kinds("The credit memo arrives on Monday for $250.")
    ('amount', 'date')
    >>> claim_kinds("The buyer asks for two corrected invoices.")
    ('quantity',)
    """
    found: Set[str] = set()
    if _CUE_CHAR.search(text) is not None:
        position = 0
        search = _DIGITS.search
        while True:
            match = search(text, position)
            if match is None:
                break
            kind, position = _digit_kind(text, match.start(), match.end())
            found.add(kind)
        if _LETTER_DIGIT.search(text):
            for fused in _FUSED.finditer(text):
                kind = _fused_kind(fused.group(1), fused.group(2))
                if kind:
                    found.add(kind)
    cues = _cue_words(text)
    if cues:
        if not cues.isdisjoint(_WORD_DATES) or (not cues.isdisjoint(_MONTH_WORDS) and _MONTH_NAME.search(text)):
            found.add("date")
        if not cues.isdisjoint(_SPAN_WORDS) and _WORD_SPANS.search(text):
            found.add("date")
        if not cues.isdisjoint(NUMBER_WORDS):
            for start, end in written_numbers(text):
                if _CURRENCY_WORD_AFTER.match(text, end):
                    found.add("amount")
                elif _TIME_AFTER.match(text, end):
                    found.add("date")
                else:
                    found.add("quantity")
        if not cues.isdisjoint(_FOREIGN_NUMBER_WORDS):
            for match in _FOREIGN_NUMBER.finditer(text):
                found.add("date" if _TIME_AFTER.match(text, match.end()) else "quantity")
        if "one" in cues:
            match = _ONE_UNIT.search(text)
            if match:
                found.add("amount" if match.group(1) else "quantity")
    if not found:
        return _OTHER
    kinds = tuple(sorted(found, key=_ORDER.__getitem__))
    return _SHARED.setdefault(kinds, kinds)  # one object per combination: a large frame holds references


def claim_kind(text: str) -> str:
    """The most severe kind of fact ``text`` states (the first of :func:`claim_kinds`).

    >>> claim_kind("The supplier will send the credit memo for the 10 missing pieces within 5 working days.")
    'date'
    """
    return claim_kinds(text)[0]


__all__ = ["KINDS", "NUMBER_WORDS", "claim_kind", "claim_kinds", "written_numbers"]
