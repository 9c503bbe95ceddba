"""A claim as the signals judge reads it, once per text: its framing set aside, the language it is
read in (its own, or its passages' when it shows no English), its content words, stems, pairs and
clauses, and its numbers. Claims that differ only in their digits share the reading of their words
and framing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Dict, Optional

from ...core.numbers import digit_shape, distinct, mentions
from ..rules import _without_numbers
from .framing import Framed, frame
from .across import glossary_language
from .words import _WORDS_OF, ENGLISH_HINTS, FOREIGN_STOP_WORDS, STOP_WORDS, _claim_pairs, _read_words, clean_text, language, language_told


class _Claim:
    __slots__ = ("framed", "words", "stems", "stemset", "pairs", "numbers", "negated", "clauses", "language", "_told",
                 "numbers_read")

    def __init__(self, text: str, lang: str = "english") -> None:
        self.language = lang
        framed = _framed(clean_text(text))
        self._told: Optional[bool] = None
        self.numbers_read: Optional[tuple] = None  # what the signals judge reads of its numbers, once
        self.framed = framed
        found = mentions(framed.text)
        self.words, self.stems, self.stemset, self.pairs, self.clauses = _claim_words(
            _without_numbers(framed.text, found), lang)
        self.negated = self.words.has_negation
        self.numbers = distinct(found)


def _told(claim: "_Claim") -> bool:
    """Whether a claim's own words tell its language (else it is read in its passages'), read when a
    passage is in another language only."""
    if claim._told is None:
        shape = digit_shape(claim.framed.text)
        claim._told = language_told(shape) or glossary_language(shape) == claim.language
    return claim._told


_Claim.told = property(_told)


def _framed(text: str) -> Framed:
    """:func:`frame` of a claim, read once per shape (its digits as 0) when nothing is set aside: the
    framing patterns tell no digit from another, so a claim whose shape has no framing has none."""
    shape = digit_shape(text)
    if shape != text:
        framed = frame(shape)
        if not framed.set_aside and not framed.framing and framed.text == shape:
            return Framed(text, (), False)
    return frame(text)


@lru_cache(maxsize=8192)
def _claim_words(text: str, lang: str) -> tuple:
    """What a claim's words give (its words, their stems once each as a tuple and a set, its pairs
    and its clauses), kept per text with its numbers as 0: claims that differ only in their numbers
    read the same."""
    words = _read_words(text, lang)
    stems = tuple(dict.fromkeys(words.stems))
    # the clauses of two content words or more: (their stems, the words as written)
    clauses: Dict[int, Dict[str, str]] = {}
    for st, surface, c in zip(words.stems, words.surfaces, words.clauses):
        clauses.setdefault(c, {}).setdefault(st, surface)
    return (words, stems, frozenset(stems), _claim_pairs(words),
            tuple((tuple(ws), tuple(dict.fromkeys(ws.values()))) for ws in clauses.values()
                  if len(ws) >= 2) if len(clauses) > 1 else ())


@lru_cache(maxsize=16384)
def _claim(text: str, evidence_language: str = "english") -> _Claim:
    """A claim analysed in its language: its own when it tells it ("Der Antrag muss genehmigt
    werden"), else its passages' when they are not English and the claim shows no English
    ("Estos días deben utilizarse antes del 31 de marzo." against Spanish passages)."""
    return _Claim(text, _claim_language(digit_shape(text), evidence_language))


@lru_cache(maxsize=8192)
def _claim_language(text: str, evidence_language: str) -> str:
    """The language a claim is read in (see :func:`_claim`): read in its words alone, so the same for
    the claim and its shape (:func:`~groundlab.core.numbers.digit_shape`)."""
    lang = language(text)
    foreign = lang == "english" and not language_told(text, lang) and _may_be_foreign(text)
    if foreign:
        # a short claim: its glossary words and function words may tell what two hints cannot
        lang = glossary_language(text) or lang
    if lang == "english" and evidence_language != "english" and \
            sum(1 for w in _WORDS_OF.findall(text.lower()) if w in _ENGLISH_HINTS) < 2 and \
            glossary_language(text) != "english":  # "Hotel costs are reimbursed without a receipt." is English
        lang = evidence_language
    return lang


_FOREIGN_LETTERS = frozenset("äöüßéèêëàâçîïôûùœÄÖÜÉÈÊÀÂÇÎÔÛ")
_FOREIGN_WORDS = frozenset().union(*FOREIGN_STOP_WORDS.values()) - STOP_WORDS


def _may_be_foreign(text: str) -> bool:
    """Whether a short claim that tells no language may be German or French: a letter or a function
    word of theirs (a plain English claim never loads the glossary)."""
    return any(ch in _FOREIGN_LETTERS for ch in text) or any(w in _FOREIGN_WORDS for w in _WORDS_OF.findall(text.lower()))


_ENGLISH_HINTS = ENGLISH_HINTS
