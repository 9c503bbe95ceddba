"""A value the passages give only for some named cases, stated without them.

"Hotel costs are reimbursed up to 120 EUR per night; in Munich, Hamburg and Frankfurt up to 150 EUR
per night." gives 150 EUR for three cities only. "Hotel costs are reimbursed up to 150 EUR per night"
finds every number and word in that sentence, yet it leaves out the condition the value holds
under: for a hotel in Cologne it is wrong. A claim whose number the passages write only in a clause
opened by "in", "for", "bei", "für", "en" or "pour" and names ("in Munich, Hamburg and Frankfurt"),
beside another value of the same unit in the same sentence (the rule for everything else), and
that names none of them, nor does the question, is ``unsupported``: the reason says the cases.

>>> sentence = ("Hotel costs are reimbursed up to 120 EUR per night; in Munich, Hamburg and Frankfurt up "
...             "to 150 EUR per night.")
>>> only_for("Hotel costs are reimbursed up to 150 EUR per night.", "150 EUR", [sentence], "")
'Munich, Hamburg and Frankfurt'
>>> only_for("In Munich hotel costs are reimbursed up to 150 EUR per night.", "150 EUR", [sentence], "")
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional, Sequence, Tuple

from ...core.bounds import Keys, word_keys
from ...core.numbers import mentions
from .across import place_forms

__all__ = ["named_clauses", "named_elsewhere", "named_values", "only_for"]

_NAME = r"[A-ZÄÖÜ][\w-]+"
#: A clause that opens with the named cases it holds for: "in Munich, Hamburg and Frankfurt", "für
#: Mitarbeitende in Frankreich" is not one (a lower-case word after "für").
_NAMED_CASES = re.compile(r"(?:^|[;,:(]\s*|\.\s+)(?:in|for|für|bei|en|pour|à)\s+(?P<names>" + _NAME +
                          r"(?:\s*,\s*" + _NAME + r")*(?:\s+(?:and|und|et|or|oder|ou)\s+" + _NAME + r")?)\b")
_CLAUSE_END = re.compile(r"[;.]\s|[;.]$|\)")
_NAME_WORD = re.compile(_NAME)


def only_for(claim: str, number: str, sentences: Sequence[str], question: str,
             keys_of: Tuple[Keys, Keys] = (word_keys, word_keys)) -> Optional[str]:
    """The named cases (as written) that the only sentences of ``sentences`` writing the claim's
    ``number`` give it for, when neither the claim nor the ``question`` names one of them; ``None``
    otherwise (the number also stands unconditioned, no other value of its unit stands beside it,
    or the claim or question names a case). A sentence sharing fewer than two words with the claim
    is about another matter and is not read. ``keys_of``: what reads the claim's words and a
    sentence's (for a claim in another language than its passages, with the English the glossary
    gives), and a place is named in either language ("Munich" for "München")."""
    cases = None
    claim_keys, sentence_keys = keys_of
    words = claim_keys(claim)
    for sentence in sentences:
        at = sentence.find(number)
        if at < 0 or len(words & sentence_keys(sentence)) < 2:
            continue  # a sentence on another matter that writes the same number ("150 EUR" of a computation)
        opened = None
        for start, end, names in named_clauses(sentence):
            if start < at and end >= at:
                opened = (start, names)
        if opened is None:
            return None  # the number stands here for every case
        unit = number.split()[-1] if " " in number else ""
        others = [m for m in mentions(sentence) if m.surface != number and (not unit or m.surface.endswith(unit))
                  and not opened[0] <= m.start < at]
        if not others:
            return None  # no rule for the other cases beside it: the named ones are an example
        cases = opened[1]
    if cases is None:
        return None
    said = f"{claim} {question}".lower()
    if any(_names(name, said) for name in _NAME_WORD.findall(cases)):
        return None
    return cases


def _names(name: str, said: str) -> bool:
    """Whether the text ``said`` (lower case) names ``name`` in any language the glossary reads
    ("munich" for "München"), as a word of its own."""
    return any(re.search(rf"(?<!\w){re.escape(form)}(?!\w)", said) for form in place_forms(name.lower()))


#: A name and the value a list gives it: "Austria 40 EUR", "Switzerland: 64 EUR", "P1 4 hours".
_PAIR = re.compile(r"\b(?P<name>[A-ZÄÖÜ][\w-]+)\s*:?\s+(?P<value>[€$£]\s?\d[\d.,]*|\d[\d.,]*\s?(?:EUR|USD|CHF|GBP|%))"
                   r"(?![\d.,]*\d)")


@lru_cache(maxsize=16384)
def named_values(sentence: str) -> Tuple[Tuple[str, str], ...]:
    """The names a sentence lists a value beside, three or more of them, each ``(name, value as
    written)``: "the per diem is set by country: Austria 40 EUR, Switzerland 64 EUR, France 53 EUR";
    () for most sentences."""
    pairs = tuple((m.group("name"), m.group("value").strip()) for m in _PAIR.finditer(sentence))
    return pairs if len(pairs) >= 3 and len({name for name, _ in pairs}) == len(pairs) else ()


def named_elsewhere(claim: str, number: str, sentences: Sequence[str],
                    keys_of: Tuple[Keys, Keys] = (word_keys, word_keys)) -> Optional[Tuple[str, str, str]]:
    """Where a sentence lists values by name and the claim names one of them (in either language)
    but states the value the list gives another: ``(the claim's name, its value, the name the
    claim's value is given for)``, as "In France the per diem is 64 EUR" against "Austria 40 EUR,
    Switzerland 64 EUR, France 53 EUR"; ``None`` otherwise."""
    said = claim.lower()
    claim_keys, sentence_keys = keys_of
    words = claim_keys(claim)
    for sentence in sentences:
        pairs = named_values(sentence)
        owners = [name for name, value in pairs if value == number or value.startswith(number + " ")]
        if not owners or len(words & sentence_keys(sentence)) < 2:
            continue
        named = [(name, value) for name, value in pairs if _names(name, said)]
        if len(named) == 1 and named[0][0] not in owners:
            return named[0][0], named[0][1], owners[0]
    return None


@lru_cache(maxsize=16384)
def named_clauses(sentence: str) -> Tuple[Tuple[int, int, str], ...]:
    """The clauses of a sentence that open with named cases, each ``(start, end, the names as
    written)``: read once per sentence, since most have none."""
    out = []
    for m in _NAMED_CASES.finditer(sentence):
        end = _CLAUSE_END.search(sentence, m.end())
        out.append((m.start(), end.start() if end is not None else len(sentence), m.group("names")))
    return tuple(out)
