"""The evidence a claim is judged against, read once: each passage analysed into its sentences
(their stems, clauses and negations, pairs, numbers and what their abbreviations stand for), the
passages of a case put together (:class:`_Context`, kept per set of passages), the user's question
read apart for the numbers and words it adds, and the key that tells when two questions add the
same to a claim (what the judge's verdict memo is keyed by).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from ...core.sentences import split_sentences
from ...core.numbers import Mention, digit_shape, mentions, ordinal_words
from ...core.months import months_named
from ...core.weekdays import counts_days, days_named
from ..rules import _Numbers, _without_numbers
from .words import (_Words, _language, _pairs, _read_words, clean_text, german_ellipsis_stems, language, language_told,
                    month_stems, weekday_stems)

if TYPE_CHECKING:  # pragma: no cover
    from .claim import _Claim


class _Sentence:
    """One evidence sentence: its stems, whether it negates, and per clause its stems and the
    stems within the scope of a negation."""

    __slots__ = ("text", "stemset", "negation", "clauses", "pairs", "asks", "condition", "initials", "acronyms",
                 "surface", "numbers")

    def __init__(self, text: str, found: Sequence[Mention], lang: str = "english") -> None:
        words = _Words(_without_numbers(text, found), lang)
        self.text = text
        # each stem as the sentence first writes it, and its numbers as written: what a reader is
        # shown as the words a claim found here
        self.surface = dict(zip(reversed(words.stems), reversed(words.surfaces)))
        self.numbers = tuple(m.surface for m in found)
        self.initials, self.acronyms = _initials(words)
        # "cannot be paid until ...": a negation that a condition lifts
        self.condition = words.has_negation and _CONDITION_AFTER_NEGATION.search(text.lower()) is not None
        # A question (the user's, or one a passage asks) asserts nothing a claim could contradict.
        self.asks = text.rstrip().endswith(("?", "\uff1f"))
        self.stemset = frozenset(words.stems)
        if lang == "german" and "- " in text:  # "Sonn- und Feiertagen" writes "Sonntagen" too
            self.stemset |= german_ellipsis_stems(text)
        self.negation = words.has_negation
        self.pairs = _pairs(words)
        clauses: Dict[int, Tuple[set, set]] = {}
        for s, c, scoped in zip(words.stems, words.clauses, words.in_scope):
            stems, negated = clauses.setdefault(c, (set(), set()))
            stems.add(s)
            if scoped:  # negated here, in this clause (not wherever else the word stands)
                negated.add(s)
        self.clauses = tuple((frozenset(a), frozenset(b)) for a, b in clauses.values())


def _initials(words: _Words) -> Tuple[Dict[str, Tuple[str, ...]], FrozenSet[str]]:
    """What a sentence lets an abbreviation stand for: the initials of each run of two to four
    content words in one clause ("multi-factor authentication" gives "mfa", "purchase order"
    "po"), each with the stems it spells; and the acronyms the sentence writes ("MFA")."""
    surfaces, clauses, stems = words.surfaces, words.clauses, words.stems
    out: Dict[str, Tuple[str, ...]] = {}
    for k in range(len(surfaces) - 1):
        letters = surfaces[k][0]
        for j in range(k + 1, min(k + 4, len(surfaces))):
            if clauses[j] != clauses[k]:
                break
            letters += surfaces[j][0]
            out.setdefault(letters.lower(), stems[k:j + 1])
    acronyms = frozenset(st for st, surface in zip(stems, surfaces) if _is_acronym(surface))
    return out, acronyms


def _is_acronym(surface: str) -> bool:
    """ "MFA", "PO" and "POs"."""
    return len(surface) > 1 and (surface.isupper() or (surface[-1] == "s" and len(surface) > 2
                                                        and surface[:-1].isupper()))


class _Piece:
    """A question or a passage, analysed once: stems, pairs, numbers, sentences, and for each
    sentence the stems of it and the next one (a window of two sentences in a row)."""

    __slots__ = ("stems", "pairs", "numbers", "sentences", "windows", "initials", "acronyms", "language", "told",
                 "text")

    def __init__(self, text: str, one_sentence: bool, lang: Optional[str] = None) -> None:
        text = clean_text(text)
        self.text = text
        found = mentions(text)
        # a passage is mostly long enough to tell its language; its sentences are read in it (or in
        # ``lang``, the claim's, when it tells none: see _passages_context)
        read = language(text)
        self.told = language_told(text, read)
        self.language = lang = lang or read
        # the evidence's "third" is the claim's "3rd"
        self.numbers = _Numbers(found + ordinal_words(text), text)
        sentences = []
        if one_sentence:
            sentences.append(_Sentence(text, found, lang))
        else:
            # The numbers of each sentence are those of the passage that lie within it: the
            # passage is searched for numbers once.
            pos, k = 0, 0
            for part in split_sentences(text):
                start = text.find(part, pos)
                if start < 0:  # the splitter changed the text (invisible marks): search the sentence
                    sentences.append(_Sentence(part, mentions(part), lang))
                    continue
                end = start + len(part)
                while k < len(found) and found[k].start < start:
                    k += 1
                inside = []
                j = k
                while j < len(found) and found[j].end <= end:
                    m = found[j]
                    inside.append(m._replace(start=m.start - start, end=m.end - start))
                    j += 1
                sentences.append(_Sentence(part, inside, lang))
                pos = end
        self.sentences = sentences = tuple(sentences)
        self.stems = frozenset().union(*(s.stemset for s in sentences))
        self.pairs = frozenset().union(*(s.pairs for s in sentences))
        initials: Dict[str, Tuple[str, ...]] = {}
        for sentence in sentences:
            for key, value in sentence.initials.items():
                initials.setdefault(key, value)
        self.initials = initials
        self.acronyms = frozenset().union(*(s.acronyms for s in sentences))
        self.windows = tuple(s.stemset | sentences[k + 1].stemset if k + 1 < len(sentences) else s.stemset
                             for k, s in enumerate(sentences))


#: Evidence with more sentences than this finds the claim's best sentence through an index.
_INDEX_FROM = 24


class _Question:
    """A user's question, read for the two things it adds to the evidence: its numbers
    (``numbers``: a claim may apply a passage's rule to the user's own order) and its stems
    (``stems``: a claim that only repeats the question's premise is backed by nothing). Each is
    read when first asked for, since most claims need neither: what :class:`_Piece` would give
    a question, without the sentence analysis no judgement reads."""

    __slots__ = ("text", "_found", "_numbers", "_stems", "_own", "_told", "_days")

    def __init__(self, question: str) -> None:
        self.text = clean_text(question)
        self._found: Optional[Tuple[Mention, ...]] = None
        self._numbers: Optional[_Numbers] = None
        self._stems: Dict[str, FrozenSet[str]] = {}
        self._own: Optional[str] = None
        self._told: Optional[bool] = None
        self._days: Optional[Tuple[str, ...]] = None

    def _mentions(self) -> Tuple[Mention, ...]:
        if self._found is None:
            self._found = mentions(self.text)
        return self._found

    @property
    def days(self) -> Tuple[str, ...]:
        """The days of the week the question names, as written ("since Monday")."""
        if self._days is None:
            self._days = days_named((self.text,))
        return self._days

    @property
    def numbers(self) -> _Numbers:
        if self._numbers is None:
            self._numbers = _Numbers(self._mentions() + ordinal_words(self.text), self.text, said=True)
        return self._numbers

    def stems(self, passages_language: str) -> FrozenSet[str]:
        """Its stems, read in its own language when it tells one, else in its passages' (a short
        "Ich reise Dienstag bis Freitag." beside German passages is German)."""
        own = self._own
        if own is None:
            own = self._own = _language(digit_shape(self.text))
        if own == passages_language:  # whether its words tell it changes nothing
            lang = own
        else:
            if self._told is None:
                self._told = language_told(self.text, own)
            lang = own if self._told else passages_language
        found = self._stems.get(lang)
        if found is None:
            found = self._stems[lang] = frozenset(_read_words(_without_numbers(self.text, self._mentions()), lang).stems)
        return found


class _Context:
    """Evidence (a question and some passages) put together from its analysed pieces. Only the
    passages back a claim's words: ``stems``, ``pairs`` and ``sentences`` are theirs, and
    ``asked`` holds the stems the question alone says (a claim that repeats the user's premise is
    backed by nothing). Numbers and names may come from either: a claim may apply a passage's rule
    to the user's own order ("At 1.5 percent, the analyst can release Orion's order"). Long
    evidence gets an index from each stem to the sentences that hold it.

    ``question`` ``None`` gives the passages alone (``asked`` empty), what
    :func:`_passages_context` keeps per set of passages; :func:`_with_question` adds a question to
    it without reading the passages again."""

    __slots__ = ("stems", "pairs", "numbers", "sentences", "windows", "index", "asked", "initials", "acronyms",
                 "language", "told", "each_told", "passages", "texts", "languages", "question")

    @property
    def days(self) -> Tuple[str, ...]:
        """The days of the week the question names: the user's own, which a claim may count from."""
        return () if self.question is None else self.question.days

    def __init__(self, question: Optional[_Question], pieces: Sequence[_Piece]) -> None:
        self.language = _majority_language(pieces)
        self.told = any(p.told for p in pieces)  # else its language is English by default
        self.each_told = tuple(p.told for p in pieces)
        # each passage as it is read, in its language: what a claim in another language is judged on
        self.passages = tuple((p.text, p.language) for p in pieces)
        self.texts = tuple(p.text for p in pieces)  # the passages' texts alone, as most checks read them
        self.languages = frozenset(p.language for p in pieces)
        if len(pieces) == 1:
            self.stems, self.pairs = pieces[0].stems, pieces[0].pairs
            self.initials, self.acronyms = pieces[0].initials, pieces[0].acronyms
        else:
            self.stems = frozenset().union(*(p.stems for p in pieces))
            self.pairs = frozenset().union(*(p.pairs for p in pieces))
            self.initials = {k: v for p in reversed(pieces) for k, v in p.initials.items()}
            self.acronyms = frozenset().union(*(p.acronyms for p in pieces))
        own = [] if question is None else [question.numbers]
        self.numbers = _Numbers.union(own + [p.numbers for p in pieces])
        self.asked = frozenset() if question is None else question.stems(self.language) - self.stems
        # the question, whose days of the week (the user's, which a claim may count from) are read when a
        # claim names one
        self.question = question
        self.sentences = tuple(s for p in pieces for s in p.sentences)
        self.windows = tuple(w for p in pieces for w in p.windows)
        index: Optional[Dict[str, List[int]]] = None
        if len(self.sentences) > _INDEX_FROM:
            index = {}
            for k, s in enumerate(self.sentences):
                for st in s.stemset:
                    index.setdefault(st, []).append(k)
        self.index = index


def _majority_language(pieces: Sequence[_Piece]) -> str:
    """The language most of the passages are read in, counting those that tell theirs (all when none
    does). A tie never depends on the order of the passages nor on how a set iterates: the other
    languages go before English (a piece that tells none reads as English by default, so English is
    what a tie cannot decide), then by name."""
    told = [p.language for p in pieces if p.told] or [p.language for p in pieces]
    if not told:
        return "english"
    counts: Dict[str, int] = {}
    for lang in told:
        counts[lang] = counts.get(lang, 0) + 1
    return min(counts, key=lambda lang: (-counts[lang], lang == "english", lang))


def _with_question(base: _Context, question: _Question) -> _Context:
    """``base`` (passages alone) with the question's numbers and the stems only it says: what
    ``_Context(question, pieces)`` gives, the passages' analysis shared. The question's numbers
    come first, as there (where both write a number, the question's way of writing it is shown)."""
    numbers = question.numbers
    asked = question.stems(base.language) - base.stems
    if not numbers.values and not asked and not question.days:
        return base
    ctx = _Context.__new__(_Context)
    ctx.stems, ctx.pairs, ctx.sentences, ctx.windows = base.stems, base.pairs, base.sentences, base.windows
    ctx.index, ctx.initials, ctx.acronyms, ctx.language = base.index, base.initials, base.acronyms, base.language
    ctx.told, ctx.each_told, ctx.passages, ctx.languages = base.told, base.each_told, base.passages, base.languages
    ctx.texts = base.texts
    ctx.numbers = _Numbers.union([numbers, base.numbers]) if numbers.values else base.numbers
    ctx.asked = asked
    ctx.question = question
    return ctx


def _question_key(claim: "_Claim", question: _Question, base: _Context) -> Tuple[Any, FrozenSet[str]]:
    """All that ``question`` can change in the verdict on ``claim`` against the passages ``base``:
    for each of the claim's numbers whether the evidence (question and passages) gives it and how it
    writes it, with the evidence's numbers as listed when one is missing (the reason names them);
    and the claim's stems that only the question says. Two questions with the same key give the
    same verdict: the question adds nothing else to the evidence (:class:`_Context`). Read from
    the question and the passages apart, as :func:`_with_question` would put them together; a
    verdict is kept with its passages (``base``) beside this key."""
    numbers: Any = None
    if claim.numbers:
        own, have = question.numbers, base.numbers
        mine, theirs = own.shown, have.shown
        found = []
        every = True
        for m in claim.numbers:
            value = m.value
            given = own.has(m) or have.has(m)
            every = every and given
            found.append((given, mine[value] if value in mine else theirs.get(value)))
        numbers = tuple(found)
        if not every:  # the reason lists the evidence's numbers, and the question's may compute the
            # missing one: the question itself, beside the passages the verdict is kept with
            numbers = (numbers, question.text)
    asked = claim.stemset - base.stems
    # the days of the week the question names, which a claim may count a day no passage names from
    days = question.days if asked and not asked.isdisjoint(weekday_stems()) and question.days \
        and counts_days(claim.framed.text) else ()
    if not claim.stemset.isdisjoint(month_stems()) and months_named(claim.framed.text):
        # a month the claim names may follow one the question names ("paid with your April salary",
        # asked about March), whether or not a passage names it too: the question's months
        days = (days, months_named(question.text))
    return numbers, (asked & question.stems(base.language) if asked else asked), days


@lru_cache(maxsize=4096)
def _passage_piece(text: str, lang: Optional[str] = None) -> _Piece:
    return _Piece(text, one_sentence=False, lang=lang)


@lru_cache(maxsize=4096)
def _question(question: str) -> _Question:
    return _Question(question)


@lru_cache(maxsize=4096)
def _passages_context(texts: Tuple[str, ...], lang: Optional[str] = None) -> _Context:
    """The passages ``texts`` put together, without a question: kept per set of passages. ``lang``:
    read in that language (a claim's, when no passage tells its own: :func:`in_claims_language`)."""
    own = [_passage_piece(t) for t in texts]
    if lang is None:  # one entry a passage in the cache, however it is called
        return _Context(None, own)
    # a passage that tells its language is read in it; the others in ``lang``
    return _Context(None, [p if p.told else _passage_piece(t, lang) for t, p in zip(texts, own)])


def in_claims_language(base: _Context, texts: Tuple[str, ...], claim_language: str) -> _Context:
    """``base`` (the passages ``texts``), or with the passages that tell no language read in the
    claim's ("Die Gutschrift verfällt nicht." against the one sentence "Die Gutschrift verfällt nach
    zwölf Monaten.", English by default; "Bis zu 5 Tage können übertragen werden." beside English
    passages): both sides are then stemmed alike. Passages that tell theirs keep it."""
    if claim_language == "english" or all(p_told for p_told in base.each_told):
        return base  # a passage that tells no language is read as English already
    return _passages_context(texts, claim_language)


def _context(question: str, texts: Tuple[str, ...]) -> _Context:
    """The evidence of a question and passages."""
    return _with_question(_passages_context(texts), _question(question))


#: After a negation, a condition that lifts it: "cannot be paid until the variance is cleared".
_CONDITION_AFTER_NEGATION = re.compile(
    r"(?:\b(?:not|no|never|cannot|nothing|none)\b|n't\b)[^.;!?]*?\b(?:unless|until|till|except|before|without)\b")
