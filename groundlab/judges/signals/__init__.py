"""The signals judge: several signals of support, weighed by a small logistic model.

The rules judges count the claim's words in the evidence. On answers written by real models
that flags many sentences a person finds supported: a word in another form ("colonized" for
"colonization"), a sentence that frames the answer ("Based on the provided passages, here is the
answer."), a sentence that talks about the passages ("Passage 2 states that ..."), a "no"
somewhere else in a long evidence sentence, an HTML entity. This judge keeps what the rules
judges do well (numbers compared by value, a reason a person can read) and reads a claim so:

1. **Text.** HTML entities are decoded and tags dropped, in the claim and in the evidence.
2. **Framing.** A sentence that only frames the answer ("Here is a summary in 84 words or less.",
   "I hope this helps.") is no fact: ``supported``, with the reason ``framing sentence, not a
   fact`` and score 1. Framing lead-ins ("Based on the passages,", "Overall,", "Passage 2 states
   that", "The author believes") and references to passages ("(Passage 3)") are set aside and
   the rest of the sentence is judged; the reason says what was set aside.
3. **Numbers** (as in the rules judges, :mod:`groundlab.numbers`): a number the evidence does not
   give makes the claim ``contradicted`` when the evidence has numbers of its own, else
   ``unsupported``; score 0.
4. **Negation, scoped.** The evidence sentence and clause that share most words with the claim
   are found; when exactly one of the two negates the words they share (the negation stands in
   that clause, and the clause holds every word the claim negates), ``contradicted``, score 0. A
   negation elsewhere in the sentence, or one the other side says in other words ("does not
   meet" / "falls far short of"), decides nothing.
5. **Signals**, each a number between 0 and 1 (words are compared by their stems, Snowball's
   English stemmer, so "launched" finds "launch"):
   ``coverage``, the share of the claim's content words in the evidence; ``pairs``, the share of
   its adjacent content-word pairs found adjacent in the evidence (an invented detail built
   from words the evidence has elsewhere breaks pairs); ``sentence``, the share found in the one
   evidence sentence that holds most of them, and ``window`` in two sentences in a row;
   ``names``, the share of its names (capitalised words inside the sentence) the evidence lacks;
   ``length``, how long the claim is; ``numbers``, whether it has numbers, all found.
   A claim whose numbers a computation from the passages' numbers backs ("13 weeks before
   1 December is 1 September, so submit your request by 1 September"; an amount, a date, a time,
   a period or a percentage, not a bare count, which small numbers reach by chance), with at least half its
   other content words in the evidence and no name it lacks, is ``supported`` by that rule
   (score 1): the words that say what the computed value is ("due", "covered", "lifts") are the
   reader's, not a fact a passage must write.
6. **Score.** A logistic model weighs the signals into ``score``, the probability that a person
   finds the claim supported; ``supported`` at or above the threshold, else ``unsupported``. Its
   weights and threshold come from ``groundlab/data/signals.json``, fitted on two public labeled
   claim sets (``bench/fit_signals.py``), or from a file ``groundlab calibrate`` fitted on your
   own labels (``get_judge("signals", config="judge.json")``).

Every verdict carries a reason that names the signals behind it. Speed comes from the rules
judges' way: each passage is analysed once and its words, stems, pairs, sentences and numbers are
reused for every claim judged against it.

This package is the judge: :class:`SignalsJudge`, which step decides a claim (:func:`_decide`),
the sentence and words shown beside a verdict (:func:`_evidence`) and its reason. What it reads
and weighs has a room each: a text's words, stems and language (``words``), the framing set aside
(``framing``), the evidence read once per passage and question (``evidence``), the claim read once
per text (``claim``), the signals measured and the negation flip (``measure``), the how-often,
when, which-way and bound words (``conflicts``), and the fitted model's weights and threshold
(``config``). Every name the module had before its rooms is named here too.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

# What the judge reads a claim and its evidence with, each in a room of its own; the names the
# module had before its rooms, and those other modules, tests and bench scripts use, are named here.
from ...core.sentences import CJK_CHARS, character_pairs, split_sentences  # noqa: F401
from ...core.numbers import Mention, digit_shape, distinct, mentions, ordinal_words  # noqa: F401
from ...core.records import Evidence, GroundlabError, Verdict, without_passage_text  # noqa: F401
from ...core.months import month_after
from ...core.weekdays import days_named, weekdays
from ...core.bounds import (OPPOSITE, Keys, asked_as_bound, asked_case, bound_elsewhere, in_another_unit,
                            ordinal_elsewhere, ordinals, period_phrases, side_across, word_keys)
from .scope import named_clauses, named_elsewhere, named_values, only_for
from ..rules import _arithmetic, _quote, _without_numbers, _written, check_numbers, computed_wrong, number_verdict  # noqa: F401
from .across import across, glossary_language, word_keys_in
from .claim import _Claim, _claim, _claim_language, _claim_words, _framed  # noqa: F401
from .config import (CONFIG_KIND, DEFAULT_CONFIG, FEATURE_SIGNS, FEATURES, JUDGE_NAME, JUDGE_VERSION,  # noqa: F401
                     MAX_CONFIG_BYTES, JudgeConfig, _shipped, check_config, load_config)
from .conflicts import (_AMOUNT_NEXT, _LOWER_WORD, CONFLICTS, _conflict, _conflict_terms, _terms, comparisons,  # noqa: F401
                        polar_restated, restated_limit, without_limit)
from .evidence import (_Context, _context, _passage_piece, _passages_context, _question, in_claims_language,  # noqa: F401
                       _question_key, _with_question)
from .framing import _LETTERS, _REFERENCE_HINT, FRAMING, LEAD_IN, PASSAGE_REFERENCE, Framed, frame  # noqa: F401
from .measure import Signals, _negation_flip, _signals
from .words import (_WORDS_OF, FOREIGN_STOP_WORDS, NEGATIONS, STOP_WORDS, _read_words, clean_text,  # noqa: F401
                    language, month_stems, stem, weekday_stems)


@lru_cache(maxsize=4096)
def _framing_verdict(set_aside: Tuple[str, ...]) -> Verdict:
    return Verdict("supported", "framing sentence, not a fact" + _aside(set_aside), 1.0)


#: Verdicts kept per judge for claims met again against the same evidence.
_MEMO_SIZE = 65536

#: What :func:`_decide` adds to the computations of a claim that restates a limit the other way
#: round, and the reason says.
_RESTATED = "the claim restates the limit the other way round"

#: The reason of a verdict given for its label alone (``judge_batch(..., explain=False)``).
UNEXPLAINED = "label only: the reason was not asked for"


class SignalsJudge:
    """Numbers, scoped negation and word signals weighed by a logistic model (see the module
    docstring). ``config``: a judge config file ``groundlab calibrate`` wrote, or ``None`` for
    the weights shipped with groundlab; ``threshold`` overrides its threshold."""

    name = JUDGE_NAME
    version = JUDGE_VERSION
    #: Pure Python on local data: a large run may be split over processes.
    cpu_bound = True

    def __init__(self, config: Union[str, Path, JudgeConfig, None] = None,
                 threshold: Optional[float] = None) -> None:
        if isinstance(config, JudgeConfig):
            self.config = config
        else:
            self.config = _shipped() if config is None else load_config(config)
        if threshold is not None and not 0 < threshold < 1:
            raise ValueError("threshold must be in (0, 1)")
        self.threshold = float(self.config.threshold if threshold is None else threshold)
        self._weights = self.config.weights
        self._intercept = self.config.intercept
        self._memo: Dict[tuple, Verdict] = {}
        self._labels: Dict[tuple, Verdict] = {}  # verdicts given without their reasons

    def identity(self) -> Dict[str, Any]:
        """The weights behind the verdicts: which file and its sha256."""
        return {"config": str(self.config.path) if self.config.path else f"groundlab/data/{DEFAULT_CONFIG}",
                "config_sha256": self.config.sha256}

    #: ``judge_batch`` takes ``explain=False`` (:func:`groundlab.measure.judging.judge_pairs`).
    explains_on_request = True

    def judge_batch(self, pairs: Sequence[Tuple[str, Evidence]], explain: bool = True) -> List[Verdict]:
        """The verdict on each pair. ``explain=False``: the label, score and error alone, the reason
        :data:`UNEXPLAINED` and no evidence shown, for a run that only counts (the same labels, for
        less work)."""
        bare = without_passage_text(pairs, self.judge_batch)  # the question alone backs nothing
        if bare is not None:
            return bare
        out = []
        last = None
        base = context = question = None
        ids: FrozenSet[str] = frozenset()
        memo = self._memo if explain else self._labels
        for text, evidence in pairs:
            if evidence is not last:  # the claims of one case share one Evidence
                last = evidence
                passages = evidence.passages
                texts = tuple([p.text for p in passages])
                plain = base = _passages_context(texts)  # each passage in the language it tells
                ids = _ids(tuple([p.id for p in passages]))
                context = question = None  # the question is read only when a claim needs it
                untold = not all(plain.each_told)
                listed = evidence.answer if evidence.answer and "\n" in evidence.answer else None
            if untold:  # a passage tells no language: read it in the claim's, if that tells one
                read = in_claims_language(plain, texts, _claim_language(digit_shape(text), plain.language))
                if read is not base:
                    base, context = read, None
            claim = _claim(text, base.language)
            # The same claim against the same passages is judged once: a repeated answer, the cited
            # passages being all the retrieved ones, or another case's question that changes nothing
            # in it (a claim without numbers, all of whose words the passages hold, reads nothing of
            # the question at all).
            asks = claim.numbers or not claim.stemset <= base.stems
            if asks:
                if question is None:
                    question = _question(evidence.question)
                key: tuple = (claim, base, ids, _question_key(claim, question, base))
            else:
                key = (claim, base, ids)
            # a total the claim states may add up the list its answer writes before it
            answer = listed if listed is not None and claim.numbers and \
                _arithmetic().may_total(claim.framed.text, listed) else None
            if answer is not None:
                key += (answer,)
            elif claim.numbers and evidence.answer \
                    and not all(question.numbers.has(m) or base.numbers.has(m) for m in claim.numbers) \
                    and _arithmetic().says_earlier(claim.framed.text):
                # "Das sind 80 %": what the sentence before it gives, all it reads of the answer
                answer = evidence.answer
                key += (_arithmetic().sentence_before(answer, claim.framed.text),)
            verdict = memo.get(key)
            if verdict is None:
                if asks and context is None:
                    context = _with_question(base, question)
                verdict = self._judge(claim, context if asks else base, ids, answer, explain)
                if len(memo) >= _MEMO_SIZE:
                    memo.clear()
                memo[key] = verdict
            out.append(verdict)
        return out

    def judge(self, text: str, evidence: Evidence) -> Verdict:
        """The verdict on one claim."""
        return self.judge_batch([(text, evidence)])[0]

    def score(self, signals: Signals) -> float:
        """The probability, by the model, that a person finds a claim with these signals supported."""
        z = self._intercept
        for w, v in zip(self._weights, signals.values):
            z += w * v
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def measure(self, text: str, evidence: Evidence) -> Tuple[str, Optional[Signals]]:
        """How a claim is decided: ``("framing", None)``, ``("number", None)``, ``("empty", None)``
        (no content words), ``("negation", signals)``, ``("conflict", signals)`` (another how-often,
        when, which-way or bound word than the evidence's) or ``("model", signals)``; what the fit
        of the weights reads."""
        texts = tuple([p.text for p in evidence.passages])
        base = _passages_context(texts)
        base = in_claims_language(base, texts, _claim_language(digit_shape(text), base.language))
        context = _with_question(base, _question(evidence.question))
        route, signals, _, _ = _decide(_claim(text, context.language), context, _passage_ids(evidence))
        return route, signals

    def _judge(self, claim: _Claim, context: _Context, ids: FrozenSet[str] = frozenset(),
               answer: Optional[str] = None, explain: bool = True) -> Verdict:
        route, signals, detail, derived = _decide(claim, context, ids, answer)
        if not explain and route != "across":
            return _label_only(route, detail, self.score(signals) if route == "model" else None, self.threshold)
        if route == "framing":
            return _framing_verdict(claim.framed.set_aside)
        aside = _aside(claim.framed.set_aside)
        if derived:  # the reason shows the computation that backs a number no passage writes
            notes = [d for d in derived if d != _RESTATED]
            aside = "".join([f"; computed: {'; '.join(notes)}" if notes else "",
                             f"; {_RESTATED}" if len(notes) < len(derived) else "",
                             aside])
        if route == "empty":
            return Verdict("supported", f"no content words to check{aside}", 1.0)
        if route == "computed":
            evidence, matched, clashed = _evidence(claim, context, "supported", signals, detail, ids)
            found = _stated_numbers(claim, ids)
            numbers = f"; {_numbers_found(found, 'found or computed')}" if found else ""
            return Verdict("supported", f"the numbers follow from the passages' and {signals.covered}/{signals.n} "
                           f"content words are in the evidence{numbers}{aside}", 1.0,
                           evidence=evidence, matched=matched, clashed=clashed)
        if route == "across":
            numbers = _stated_numbers(claim, ids)
            found = f"; {_numbers_found(numbers)}" if numbers else ""
            # the month a date names ("30. März 2025") and a time's "Uhr" are no words to find: the numbers
            # step has checked them
            dates = [m for m in mentions(claim.framed.text) if m.kind in ("date", "time")]
            text = _without_numbers(claim.framed.text, dates)
            if derived:  # the words that say a computation ("left", "im Jahr" of a computed rate) carry nothing
                from ...core.arithmetic import without_computation

                text = without_computation(text, detail)
            return across(text, claim.language, context.passages, found + aside, restated_limit)
        if route == "model":
            p = self.score(signals)
            label = "supported" if p >= self.threshold else "unsupported"
            evidence, matched, clashed = _evidence(claim, context, label, signals, detail, ids)
            return Verdict(label, _reason(label, p, self.threshold, claim, signals, _stated_numbers(claim, ids))
                           + aside, p, evidence=evidence, matched=matched, clashed=clashed)
        evidence, matched, clashed = _evidence(claim, context, route, signals, detail, ids)
        if route == "number":
            return Verdict(detail.label, detail.reason, detail.score, evidence=evidence, matched=matched,
                           clashed=clashed)
        if route == "negation":
            side = "the claim negates what the evidence says" if claim.words.negated \
                else "the evidence negates what the claim says"
            return Verdict("contradicted", f"negation flip: {side} (\"{_quote(detail)}\"); "
                           f"{signals.covered}/{signals.n} content words in the evidence{aside}", 0.0,
                           evidence=evidence, matched=matched, clashed=clashed)
        kind, said, other, sentence = detail
        return Verdict("contradicted", f"{kind}: the claim says \"{said}\" where the evidence says \"{other}\" "
                       f"(\"{_quote(sentence)}\"); {signals.covered}/{signals.n} content words in the evidence{aside}",
                       0.0, evidence=evidence, matched=matched, clashed=clashed)


def _label_only(route: str, detail: Any, p: Optional[float], threshold: float) -> Verdict:
    """The verdict :meth:`SignalsJudge._judge` gives after step ``route``, without its reason."""
    if route == "model":
        return Verdict("supported" if p >= threshold else "unsupported", UNEXPLAINED, p)
    if route == "number":
        return Verdict(detail.label, UNEXPLAINED, detail.score)
    if route in _SUPPORTED_ROUTES:
        return _SUPPORTED
    return _CONTRADICTED  # a negation flip or a conflict


_SUPPORTED = Verdict("supported", UNEXPLAINED, 1.0)
#: The steps that decide a claim ``supported`` by a rule, score 1 (calibration and the combined
#: judge read them so).
_SUPPORTED_ROUTES = ("framing", "empty", "computed")
_CONTRADICTED = Verdict("contradicted", UNEXPLAINED, 0.0)


_NEGATION_WORD = re.compile(r"\b(?:" + "|".join(sorted(NEGATIONS, key=len, reverse=True)) + r")\b|\b\w+n['\u2019]t\b",
                            re.IGNORECASE)


def _best_sentence(claim: _Claim, context: _Context) -> int:
    """The evidence sentence holding most of the claim's words (-1 when none holds any): for a
    claim a number decided, the sentence to show beside it."""
    stemset = claim.stemset
    best, best_found = -1, 0
    for k, sentence in enumerate(context.sentences):
        found = len(stemset & sentence.stemset)
        if found > best_found and not sentence.asks:
            best, best_found = k, found
    return best


def _evidence(claim: _Claim, context: _Context, route: str, signals: Optional[Signals], detail: Any,
              ids: FrozenSet[str]) -> Tuple[Optional[str], Tuple[str, ...], Tuple[str, ...]]:
    """The sentence that decided a verdict, the claim's words and numbers it holds (as it writes
    them), and what parts the two: the negation, the other bound, the numbers the claim states
    that the evidence lacks beside the ones the sentence gives, or (``route`` ``unsupported``, a
    verdict of the model) the claim's words the evidence lacks. ``route`` is the step that decided
    (:func:`_decide`), with ``supported`` and ``unsupported`` for the model's two verdicts."""
    best = signals.best if signals is not None else _best_sentence(claim, context)
    if best < 0:
        if route == "number":
            return None, (), tuple(m.surface for m in _stated_numbers(claim, ids) if not context.numbers.has(m))
        return None, (), ()
    sentence = context.sentences[best]
    surface = sentence.surface
    matched = [surface[st] for st in claim.stems if st in surface]
    if claim.numbers:  # distinct already; a passage id the claim names is no number the evidence shows
        shown = context.numbers.shown
        matched += [shown[m.value] for m in claim.numbers if m.value in shown]
    if route == "supported":
        return sentence.text, tuple(matched), ()
    matched = tuple(matched)
    numbers = _stated_numbers(claim, ids)
    if route == "unsupported":
        words = dict(zip(claim.words.stems, claim.words.surfaces))
        clashed = tuple([words.get(st, st) for st in signals.missing])
    elif route == "number":
        have = context.numbers
        # the claim's numbers the evidence lacks, and the sentence's own numbers the claim does not share
        clashed = tuple(dict.fromkeys([m.surface for m in numbers if not have.has(m)]
                                      + [n for n in sentence.numbers if n not in matched]))
    elif route == "negation":
        clashed = tuple(dict.fromkeys(w.group() for w in _NEGATION_WORD.finditer(sentence.text + " " +
                                                                               claim.framed.text)))
    else:  # another how-often, when, which-way or bound word
        clashed = (detail[1], detail[2])
    return sentence.text, matched, clashed


def _passage_ids(evidence: Evidence) -> FrozenSet[str]:
    """The evidence's passage ids as the numbers step reads codes (lower case): an answer that names
    a passage in its text ("see KB-5") refers to it, it does not state a number."""
    return _ids(tuple([p.id for p in evidence.passages]))


@lru_cache(maxsize=4096)
def _ids(ids: Tuple[str, ...]) -> FrozenSet[str]:
    return frozenset(i.lower() for i in ids if _DIGIT.search(i) is not None)


_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=4096)
def _id_tails(ids: FrozenSet[str]) -> FrozenSet[str]:
    """What an id reads as after a letter prefix the numbers step leaves out: "sw-04" of "it-sw-04"."""
    return frozenset(i.split("-", k)[k] for i in ids for k in range(1, i.count("-")))


def _stated_numbers(claim: _Claim, ids: FrozenSet[str]) -> Tuple[Mention, ...]:
    """The claim's numbers without the codes that are ids of the evidence's passages, nor names
    that start with a digit ("2FA", "3PL": two-factor authentication, third-party logistics)."""
    if not claim.numbers:
        return claim.numbers
    return tuple(m for m in claim.numbers if m.kind != "code" or (m.value not in ids and not _DIGIT_NAME.fullmatch(m.surface)
                                                                    and m.value not in _id_tails(ids)))


_DIGIT_NAME = re.compile(r"\d[A-Z]{2,}")


@lru_cache(maxsize=4096)
def _with_named_cases(sentences: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """The evidence sentences that give a value for named cases beside another value
    (:func:`~groundlab.judges.signals.scope.named_clauses`), read once per set of passages: most have none."""
    return tuple(st for st in sentences if len(st.numbers) > 1 and named_clauses(st.text))


@lru_cache(maxsize=4096)
def _with_named_values(sentences: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """The evidence sentences that list values by name (:func:`~groundlab.judges.signals.scope.named_values`),
    read once per set of passages: most have none."""
    return tuple(st for st in sentences if len(st.numbers) > 2 and named_values(st.text))


_AMOUNTS = ("money", "percent")


def _decide(claim: _Claim, context: _Context, ids: FrozenSet[str] = frozenset(),
            answer: Optional[str] = None) -> Tuple[str, Optional[Signals], Any, Tuple[str, ...]]:
    """Which step decides a claim (see the module docstring), its signals when measured, what the
    step found (the number verdict, the negated evidence sentence, or the missing clause), and the
    computations that back numbers no passage writes (:mod:`groundlab.core.arithmetic`; ``answer``:
    the answer whose list a total may add up)."""
    if claim.framed.framing:
        return "framing", None, None, ()
    numbers = _stated_numbers(claim, ids)
    derived: Tuple[str, ...] = ()
    written: Tuple[str, ...] = ()
    measured: Tuple[str, ...] = ()  # the computations of values with a unit: what a computed claim rests on
    if numbers:
        asked = context.question.text if context.question else ""
        if not all(map(context.numbers.has, numbers)):  # (most claims: every number is the evidence's)
            flagged, derived, written, measured = check_numbers(numbers, context.numbers,
                                                                _aside(claim.framed.set_aside), text=claim.framed.text,
                                                                answer=answer, by_kind=True, ids=ids, question=asked)
            if flagged is not None:
                return "number", None, flagged, ()
        listed = _with_named_values(context.sentences) if not derived else ()
        for m in numbers if listed else ():
            holding = [st.text for st in listed if m.surface in st.text]
            other = named_elsewhere(claim.framed.text, m.surface, holding, _keys_of(claim, context)) if holding else None
            if other is not None:  # "In France ... 64 EUR", the list: "Switzerland 64 EUR, France 53 EUR"
                return "number", None, Verdict(
                    "contradicted", f"the passages give {_written(m.surface)} for {_quote(other[2])}; for "
                    f"{_quote(other[0])} they give {_written(other[1])}{_aside(claim.framed.set_aside)}", 0.0), ()
        named = _with_named_cases(context.sentences) if not derived else ()
        for m in numbers if named else ():
            if m.kind in ("money", "percent", "number"):
                holding = [st.text for st in named if m.surface in st.numbers]
                cases = only_for(claim.framed.text, m.surface, holding, asked,
                                 _keys_of(claim, context)) if holding else None
                if cases is not None:  # "up to 150 EUR per night", which the passage gives for three cities
                    return "number", None, Verdict(
                        "unsupported", f"the passages give {_written(m.surface)} only for {_quote(cases)}, which the "
                        f"claim leaves out{_aside(claim.framed.set_aside)}", 0.0), ()
        phrase_at, ordinal_at = claim.numbers_read or _numbers_read(claim)
        phrases = tuple([phrase_at[m.start] for m in numbers])
        other = in_another_unit(claim.framed.text, numbers, context.numbers.quantities,
                                lambda: context.texts, phrases, asked) if any(phrases) else None
        if other is not None:  # "3 Wochen" where the passages give 3 only as "3 Kalendertage"
            return "number", None, Verdict("contradicted", f"number {_written(other[0].shown)} is not in the evidence, "
                                           f"which gives {_written(other[1].shown)}{_aside(claim.framed.set_aside)}",
                                           0.0), ()
        # the numbers that are an amount, a percentage or a period in digits: a bare number (an order's) is no bound
        stated = [m for m, phrase in zip(numbers, phrases) if (phrase and m.surface[:1].isdigit()) or m.kind in _AMOUNTS]
        # the question's numbers, and with a computation the claim's others ("30 working days", asked about 6 weeks)
        asked_numbers = [m for m in stated if context.question.numbers.has(m) or
                         (derived and not context.numbers.has(m))] if asked and stated else ()
        if asked_numbers:
            bound = asked_as_bound(claim.framed.text, asked_numbers, context.numbers.quantities,
                                   context.texts, _keys_of(claim, context))
            if bound is not None:  # "possible up to 3 days a week", asked about 3 days; the passage: up to 2
                return "number", None, Verdict(
                    "contradicted", f"number {_written(bound[0].shown)} is the question's, not the passages' "
                    f"bound, which is {_written(bound[1].shown)}{_aside(claim.framed.set_aside)}", 0.0), ()
            # (every number of the claim the user's: "only 5 of your 8 days" writes the rule's)
            past = asked_case(claim.framed.text, asked_numbers, context.numbers.quantities) \
                if all(map(context.question.numbers.has, numbers)) else None
            if past is not None and not past[0]:  # "Yes, you can carry over all 8 days"; the passage: up to 5
                return "number", None, Verdict("contradicted", f"{past[1]}{_aside(claim.framed.set_aside)}", 0.0), ()
            if past is not None and past[1].endswith(OPPOSITE):  # "No, you cannot carry over 8 days": no flip
                derived += (past[1],)
        if stated and not derived:
            bound = bound_elsewhere(claim.framed.text, stated, context.numbers.quantities,
                                    context.texts, _keys_of(claim, context))
            if bound is not None:  # "up to 3 days a week", the passage: up to 2 (and "within 3 days")
                return "number", None, Verdict(
                    "contradicted", f"bound {_written(bound[0].shown)} is not the passages', which is "
                    f"{_written(bound[1].shown)}{_aside(claim.framed.set_aside)}", 0.0), ()
        ordinal = [m for m in numbers if m.start in ordinal_at] if ordinal_at and not derived else ()
        if ordinal:
            day = ordinal_elsewhere(claim.framed.text, ordinal, context.numbers.quantities,
                                    context.texts, _keys_of(claim, context))
            if day is not None:  # "from the 5th day", the passage: "more than 3 calendar days" (and "5 days")
                return "number", None, Verdict(
                    "contradicted", f"the rule from the {_quote(day[0])} on is not the passages', which is "
                    f"{_quote(day[1])}{_aside(claim.framed.set_aside)}", 0.0), ()
    held: Tuple[str, ...] = ()
    if numbers and len(numbers) >= 2:
        compared = comparisons(claim.framed.text)
        wrong = [said for _, _, holds, said in compared if not holds]
        if wrong:  # "Since 2,000 EUR is above 2,500 EUR, ...": arithmetic the reader checks, done wrong
            return "number", None, Verdict("contradicted", f"comparison wrong: the claim says \"{_quote(wrong[0])}\", "
                                           f"which does not hold{_aside(claim.framed.set_aside)}", 0.0), ()
        held = tuple(said for _, _, _, said in compared)
    if not claim.stemset.isdisjoint(weekday_stems()):  # a day of the week counted from the user's
        days = weekdays(claim.framed.text, context.days, days_named(context.texts))
        if days.wrong is not None:
            return "number", None, computed_wrong(days.wrong, _aside(claim.framed.set_aside)), ()
        derived, written, measured = derived + days.derived, written + days.written, measured + days.derived
    if context.question is not None and not claim.stemset.isdisjoint(month_stems()):
        # "paid with your April salary", asked about March, where a passage pays the following month
        months = month_after(claim.framed.text, context.question.text, context.texts)
        derived, written = derived + tuple(note for _, note in months), written + tuple(w for w, _ in months)
    if claim.language not in context.languages and _across_languages(claim, context):
        # a claim in another language than every passage: judged on what carries across, its
        # bounds first ("Mehr als 5 Tage" against "Up to 5 days", whose words no word matches)
        text = claim.framed.text
        compared = [(text.find(said), len(said)) for said in held]  # "3.200 EUR über 2.500 EUR": no bound
        bounds = [m for m in numbers if not any(0 <= at <= m.start < at + n for at, n in compared)]
        sides = side_across(text, bounds, context.numbers.quantities, _keys_of(claim, context)) if bounds else None
        if sides is not None:
            return "number", None, Verdict(
                "contradicted", f"above or below: the claim says \"{_quote(sides[0])}\" where the evidence says "
                f"\"{_quote(sides[1])}\"{_aside(claim.framed.set_aside)}", 0.0), ()
        return "across", None, written, derived
    if not claim.stems:
        return "empty", None, None, derived
    if derived:  # numbers computed: the words that say the computation are no fact a passage must write
        from ...core.arithmetic import without_computation

        # the comparisons first, which may hold a number computed ("30 working days, more than the 20")
        text = _without_said(claim.framed.text, held)
        held = ()
        plain = _Claim(without_computation(text, written), claim.language)
        if not plain.stems or (context.asked and all(st in context.asked and st in weekday_stems() for st in plain.stems)):
            # nothing left but the computation and the day the user names ("Am Montag zählen noch 2,5
            # Stunden bis 18:00 Uhr" for a ticket opened on Monday at 15:30)
            return "empty", None, None, derived
        if len(plain.stems) < len(claim.stems):
            claim = plain
    if held:  # "since 6 weeks is more than 30 days": the comparison is arithmetic, no fact a passage must write
        plain = _Claim(_without_said(claim.framed.text, held), claim.language)
        if plain.stems and len(plain.stems) < len(claim.stems):
            claim = plain
    signals = _signals(claim, context)
    if signals.best >= 0 and (claim.negated or context.sentences[signals.best].negation) and \
            restated_limit(claim.framed.text, context.sentences[signals.best].text):
        # its words without the bound and the negation are what the evidence must back
        plain = _Claim(without_limit(claim.framed.text), claim.language)
        if plain.stems:
            signals = _signals(plain, context)
        return "model", signals, None, derived + (_RESTATED,)
    if not derived or not any(note.endswith(OPPOSITE) for note in derived):
        # (an example on the other side of a bound, said the other way round, has its negation read)
        best = signals.best  # (a flip needs a negation on one side or the other)
        flipped = _negation_flip(claim, context, best) if best >= 0 and (
            claim.negated or context.sentences[best].negation) else None
        if flipped is not None and not polar_restated(claim, context.sentences[best]):
            return "negation", signals, flipped, derived
        conflict = _conflict(claim, context, best)
        if conflict is not None:
            return "conflict", signals, conflict, derived
    if measured and 2 * (signals.covered + len(signals.asked)) >= signals.n and not signals.names_missing:
        # a computation backs the claim (step 5): a value with a unit computed from the passages',
        # at least half its other content words in the evidence or the question (the user's case:
        # "0.32 EUR × 200 km = 64 EUR for your colleague"), and no name the evidence lacks
        return "computed", signals, None, derived
    return "model", signals, None, derived


def _without_said(text: str, held: Tuple[str, ...]) -> str:
    """``text`` without the comparisons it states that hold (:func:`comparisons`)."""
    for said in held:
        text = text.replace(said, " ")
    return text


def _numbers_read(claim: _Claim) -> Tuple[Dict[int, str], FrozenSet[int]]:
    """The period phrase of each of the claim's numbers (:func:`period_phrases`) and those that may be
    ordinals (:func:`ordinals`), by where each starts: read once per claim, which is judged against
    its case's passages and again against those it cites."""
    read = claim.numbers_read
    if read is None:
        text, found = claim.framed.text, claim.numbers
        read = claim.numbers_read = ({m.start: phrase for m, phrase in zip(found, period_phrases(text, found))},
                                     frozenset([m.start for m in ordinals(text, found)]))
    return read


def _keys_of(claim: _Claim, context: _Context) -> Tuple[Keys, Keys]:
    """What reads the claim's words and a passage sentence's where a bound's matter is compared
    (:func:`~groundlab.core.bounds.bound_elsewhere`): their words alone where all are in one
    language, else with the English the glossary gives the words of each other language ("bis zu
    3 Tage pro Woche mobil arbeiten" beside "work remotely up to 2 days a week")."""
    return _keys_for(claim.language, context.languages)


_ENGLISH = frozenset(("english",))


@lru_cache(maxsize=64)
def _keys_for(claim_language: str, languages: FrozenSet[str]) -> Tuple[Keys, Keys]:
    others = tuple(sorted(languages - _ENGLISH))
    claim_keys = word_keys if claim_language == "english" else partial(word_keys_in, lang=claim_language)
    if not others:
        return claim_keys, word_keys
    return claim_keys, partial(_keys_in_each, languages=others)


def _keys_in_each(text: str, languages: Tuple[str, ...]) -> FrozenSet[str]:
    return frozenset().union(*(word_keys_in(text, lang) for lang in languages))


def _across_languages(claim: _Claim, context: _Context) -> bool:
    """Whether a claim is in another language than every passage: it tells its language, a passage
    tells another, and the claim's words do not read as English after all ("La la land has won the
    top prize" holds more English words than French ones)."""
    if claim.language in context.languages or not any(context.each_told) or not claim.told:
        return False
    said = glossary_language(claim.framed.text)
    return said != "english" if claim.language != "english" else said in ("english", None)


def _aside(set_aside: Tuple[str, ...]) -> str:
    if not set_aside:
        return ""
    return "; set aside: " + ", ".join(f"\"{_quote(s, 40)}\"" for s in set_aside)


def _reason(label: str, p: float, threshold: float, claim: _Claim, s: Signals,
            numbers: Sequence[Mention]) -> str:
    sign = "\u2265" if label == "supported" else "<"
    parts = [f"score {p:.2f} {sign} {threshold:.2f}",
             f"{s.covered}/{s.n} content words in the evidence"]
    if s.missing:
        surface = dict(zip(claim.words.stems, claim.words.surfaces))
        shown = [surface.get(m, m) for m in s.missing[:5]]
        more = ", \u2026" if len(s.missing) > 5 else ""
        parts[-1] += f" (missing: {', '.join(shown)}{more})"
    if s.pairs_total:
        parts.append(f"{s.pairs_found}/{s.pairs_total} word pairs")
    parts.append(f"best sentence holds {s.best_found}/{s.n}")
    if s.names_missing:
        surface = dict(zip(claim.words.stems, claim.words.surfaces))
        parts.append(f"names not in the evidence: {', '.join(surface.get(m, m) for m in s.names_missing[:3])}")
    if s.clause is not None:
        words, found, total = s.clause
        parts.append(f"the clause \"{_quote(' '.join(words), 60)}\" has {found}/{total} in the evidence")
    if s.asked:
        surface = dict(zip(claim.words.stems, claim.words.surfaces))
        parts.append(f"only the question says {', '.join(surface.get(m, m) for m in s.asked[:3])}")
    if numbers:
        parts.append(_numbers_found(numbers))
    return "; ".join(parts)


def _numbers_found(numbers: Sequence[Mention], how: str = "found") -> str:
    """What a reason says of the claim's numbers the evidence gives: "numbers 3, 28 EUR found"."""
    return f"numbers {', '.join(_written(m.surface) for m in numbers)} {how}"


__all__ = ["FEATURES", "JudgeConfig", "SignalsJudge", "Signals", "clean_text", "check_config", "frame",
           "load_config", "stem"]
