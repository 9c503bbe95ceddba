"""A runtime guard: judge every live answer and flag, hide or route what its passages do not back.

groundlab measures an assistant before go-live; afterwards, the same cheap judge can run on every
answer before the user sees it. :func:`guard` does that in four steps:

1. **claims** — the answer is split into claims (:class:`~groundlab.claims.ClaimSplitter`); each
   knows where its sentence sits in the answer (:attr:`~groundlab.records.Claim.span`, citations
   included). Abstention sentences and headings are no claims, so the guard never touches them.
2. **verdicts** — each claim is judged against the question and all retrieved passages, as
   :func:`groundlab.evaluate` judges it. A claim the judge could not decide (a model judge's
   failed request) counts as not backed: the guard fails closed.
3. **rewrite** — by ``mode``:

   - ``flag``: each unsupported or contradicted sentence stays, followed by ``marker`` ("⚠");
   - ``hide``: each such sentence is removed and ``notice`` stands in its place; neighbouring
     hidden sentences (nothing but white space or list markers between them) share one notice;
     the rest keeps its lines and list markers;
   - ``route``: the text is left as it is; the answer is marked for a person.

4. **route** — :attr:`GuardResult.route_to_person` says whether a person should see the answer
   before (or instead of) the user. ``route_when`` decides: ``"contradicted"`` (any claim says the
   opposite of a passage; the default of ``flag`` and ``hide``), ``"flagged"`` (any claim not
   backed; the default of ``route``), ``"never"``, or a function of the claims' verdicts
   (a sequence of :class:`GuardedClaim`) that returns True to route.

Measure the guard before trusting it: ``bench/bench_guard.py`` times it, and
:func:`guard_outcomes` says, on labeled cases, how many hallucinated claims each mode would have
caught and how many correct ones it would have hit (notebook 03). A guard that misses negations
gives false comfort.

>>> passages = ["Refunds over 500 EUR are approved by the team lead."]
>>> result = guard("Who approves refunds?", passages,
...                "The team lead approves refunds over 500 EUR [1]. Refunds are paid within 3 days.")
>>> result.text
'The team lead approves refunds over 500 EUR [1]. Refunds are paid within 3 days. ⚠'
>>> [(f.claim, f.verdict) for f in result.flagged], result.route_to_person
([(2, 'contradicted')], True)
>>> guard("Who approves refunds?", passages,
...       "The team lead approves refunds over 500 EUR [1]. Refunds are paid within 3 days.", mode="hide").text
'The team lead approves refunds over 500 EUR [1]. (Removed: not backed by the sources.)'
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..core.claims import INVISIBLE, ClaimSplitter
from ..measure.evaluate import Evaluation, judge_pairs
from ..core.io import _json_type, named_value
from ..measure.policy import make_judge
from ..judges import Judge
from ..core.records import Claim, Evidence, GroundlabError, Passage

#: What the guard does with a sentence its passages do not back.
MODES: Tuple[str, ...] = ("flag", "hide", "route")
#: Put after each flagged sentence in ``flag`` mode.
DEFAULT_MARKER = "\u26a0"
#: Stands in for hidden sentences in ``hide`` mode.
DEFAULT_NOTICE = "(Removed: not backed by the sources.)"

Span = Tuple[int, int]


@dataclass(frozen=True)
class GuardedClaim:
    """One claim of the answer with the judge's verdict.

    ``number``: 1-based, in answer order; ``text``: the claim (citations taken out); ``sentence``:
    the sentence as written in the answer, ``answer[span[0]:span[1]]``; ``verdict``: supported,
    contradicted, unsupported, or ``None`` when the judge could not decide (``error`` says why).
    """

    number: int
    text: str
    sentence: str
    span: Optional[Span]
    cites: Tuple[str, ...]
    verdict: Optional[str]
    reason: str
    error: Optional[str] = None

    @property
    def flagged(self) -> bool:
        """Not backed by the passages: unsupported, contradicted, or undecided (fail closed)."""
        return self.verdict != "supported"


@dataclass(frozen=True)
class Flag:
    """A sentence the guard flagged, hid or routed: which claim, where it was, and why.

    ``span``: where the sentence is in the answer as given; ``at``: what stands for it in
    :attr:`GuardResult.text` — the sentence itself (``flag``, before its marker; ``route``), or the
    notice that replaced it (``hide``; sentences hidden together share one notice).
    """

    claim: int
    sentence: str
    span: Span
    verdict: Optional[str]
    reason: str
    at: Span


@dataclass(frozen=True)
class GuardResult:
    """What the guard made of one answer.

    ``text``: the answer to show (rewritten by ``mode``); ``answer``: as it was given; ``claims``:
    every claim with its verdict; ``flagged``: the sentences not backed, in answer order, each with
    its reason; ``route_to_person``: whether a person should see this answer; ``routed_because``:
    why, in a few words (empty when not routed).
    """

    text: str
    answer: str
    mode: str
    claims: Tuple[GuardedClaim, ...]
    flagged: Tuple[Flag, ...]
    route_to_person: bool
    routed_because: str = ""

    @property
    def changed(self) -> bool:
        """Whether :attr:`text` differs from the answer as given."""
        return self.text != self.answer

    def to_dict(self) -> Dict[str, object]:
        """A plain dict for JSON: the text, the route decision, the flags and every claim's verdict."""
        return {
            "text": self.text, "mode": self.mode, "changed": self.changed,
            "route_to_person": self.route_to_person, "routed_because": self.routed_because,
            "flagged": [{"claim": f.claim, "verdict": f.verdict, "reason": f.reason, "sentence": f.sentence,
                         "span": list(f.span), "at": list(f.at)} for f in self.flagged],
            "claims": [{"claim": c.number, "text": c.text, "cites": list(c.cites), "verdict": c.verdict,
                        "reason": c.reason, "span": list(c.span) if c.span else None} for c in self.claims],
        }


RouteRule = Callable[[Sequence[GuardedClaim]], bool]

#: The named route rules: when an answer goes to a person.
ROUTE_RULES: Dict[str, RouteRule] = {
    "contradicted": lambda claims: any(c.verdict == "contradicted" for c in claims),
    "flagged": lambda claims: any(c.flagged for c in claims),
    "never": lambda claims: False,
}

Retrieved = Sequence[Union[Passage, Mapping[str, object], str]]


#: The guard's judge unless told otherwise: ``signals``, chosen by caught and false alarms on the six
#: public claim sets, each judged leave-one-set-out (docs/judges.md): 81% caught with 29% false alarms,
#: against ``rules`` 74% with 32%; ``entail`` catches fewer (81% against 91% in bench/combine_entail.py's
#: own refit of ``signals``) with as many false alarms (39% against 38%).
GUARD_JUDGE = "signals"


def guard(
    question: str,
    retrieved: Retrieved,
    answer: str,
    judge: Union[str, Judge] = GUARD_JUDGE,
    mode: str = "flag",
    *,
    splitter: Optional[ClaimSplitter] = None,
    route_when: Union[str, RouteRule, None] = None,
    marker: str = DEFAULT_MARKER,
    notice: str = DEFAULT_NOTICE,
    classification: Optional[str] = None,
) -> GuardResult:
    """Judge one answer's claims against its passages and rewrite it by ``mode`` (see the module).

    ``retrieved``: the passages the assistant was given, as ``{"id", "text"}`` dicts,
    :class:`~groundlab.records.Passage` objects or plain strings (named ``1``, ``2``, ... by
    position, so an answer can cite them as ``[1]``). ``judge``: a judge name (its object is made
    once and kept for later calls) or a judge object. ``splitter``: how answers split into claims
    (default: the built-in citation pattern and abstention wordings). An answer with no claim comes
    back as it is, with no flags. ``classification``: the answer's, for a judge behind a data
    policy (:func:`groundlab.policy.apply_policy`) to decide where its claims may go.
    """
    check_options(mode, marker, notice)
    rule = route_rule(route_when, mode)
    if not isinstance(question, str):
        raise GroundlabError(f"the question must be a string, not {_json_type(question)}.")
    if not isinstance(answer, str):
        raise GroundlabError(f"the answer must be a string, not {_json_type(answer)}.")
    passages = as_passages(retrieved)
    classification = named_value("classification", classification)  # as a cases file's is read
    judge = judge_object(judge)
    split = (splitter or _default_splitter()).split("", answer, [p.id for p in passages], question=question)
    claims: Sequence[Claim] = split.claims
    if claims:
        evidence = Evidence(question, passages, answer, classification)
        verdicts = judge_pairs(judge, [(claim.text, evidence) for claim in claims])
    else:
        verdicts = []
    judged = tuple(
        GuardedClaim(c.number, c.text, answer[c.span[0]:c.span[1]] if c.span else c.text, c.span, c.cites,
                     v.label, v.reason if v.label is not None else f"the judge could not decide: {v.error}", v.error)
        for c, v in zip(claims, verdicts))
    return _rewrite(answer, judged, mode, rule, route_when, marker, notice)


def check_options(mode: str, marker: str = DEFAULT_MARKER, notice: str = DEFAULT_NOTICE) -> None:
    """Refuse a mode that is not one of :data:`MODES`, and an empty marker or notice (a flag nobody
    can see, a silent removal)."""
    if mode not in MODES:
        raise GroundlabError(f"there is no guard mode {mode!r}; use one of: {', '.join(MODES)}.")
    if not isinstance(marker, str) or not marker.strip():
        raise GroundlabError("the marker must be some visible text, like \"\u26a0\" or \"[unverified]\".")
    if not isinstance(notice, str) or not notice.strip():
        raise GroundlabError("the notice must be some visible text, like "
                             f"\"{DEFAULT_NOTICE}\"; a removal the reader cannot see is not offered.")


def route_rule(route_when: Union[str, RouteRule, None], mode: str = "flag") -> RouteRule:
    """The route rule ``route_when`` names (see the module); ``None`` is ``flagged`` in ``route``
    mode and ``contradicted`` otherwise."""
    if route_when is None:
        route_when = "flagged" if mode == "route" else "contradicted"
    if callable(route_when):
        return route_when
    rule = ROUTE_RULES.get(route_when) if isinstance(route_when, str) else None
    if rule is None:
        raise GroundlabError(f"there is no route rule {route_when!r}; use one of: {', '.join(ROUTE_RULES)}, "
                             "or a function of the claims' verdicts.")
    return rule


def rewrite(answer: str, claims: Sequence[GuardedClaim], mode: str = "flag",
            route_when: Union[str, RouteRule, None] = None, *, marker: str = DEFAULT_MARKER,
            notice: str = DEFAULT_NOTICE) -> GuardResult:
    """Steps 3 and 4 alone: ``answer`` rewritten by ``mode`` from claims judged before (say, the
    :attr:`GuardResult.claims` of another mode), each carrying its span in this answer."""
    check_options(mode, marker, notice)
    for claim in claims:
        if claim.span is None or answer[claim.span[0]:claim.span[1]] != claim.sentence:
            raise GroundlabError(f"claim {claim.number} does not say where it is in this answer (its span); "
                                 "rewrite the claims guard() split from the same answer.")
    return _rewrite(answer, claims, mode, route_rule(route_when, mode), route_when, marker, notice)


def _rewrite(answer: str, claims: Sequence[GuardedClaim], mode: str, rule: RouteRule,
             route_when: Union[str, RouteRule, None], marker: str, notice: str) -> GuardResult:
    flagged = [c for c in claims if c.flagged]
    if mode == "flag":
        text, at = _mark(answer, flagged, marker)
    elif mode == "hide":
        text, at = _hide(answer, flagged, notice)
    else:
        text, at = answer, [c.span for c in flagged]
    flags = tuple(Flag(c.number, c.sentence, c.span, c.verdict, c.reason, where) for c, where in zip(flagged, at))
    routed = bool(rule(claims))
    return GuardResult(text, answer, mode, tuple(claims), flags, routed, _because(claims, route_when, mode)
                       if routed else "")


def _because(claims: Sequence[GuardedClaim], route_when, mode: str) -> str:
    if route_when is None:
        route_when = "flagged" if mode == "route" else "contradicted"
    if route_when == "contradicted":
        numbers = [c.number for c in claims if c.verdict == "contradicted"]
        return f"{_claims(numbers)} contradicted by the passages"
    if route_when == "flagged":
        numbers = [c.number for c in claims if c.flagged]
        return f"{_claims(numbers)} not backed by the passages"
    return "the route rule"


def _claims(numbers: Sequence[int]) -> str:
    if len(numbers) == 1:
        return f"claim {numbers[0]} is"
    return f"claims {', '.join(map(str, numbers[:-1]))} and {numbers[-1]} are"


#: Full-width stops and brackets: a marker follows them without a space (CJK text has none).
_FULL_WIDTH = re.compile(r"[\u3000-\u303f\uff00-\uffef]")


def _mark(answer: str, flagged: Sequence[GuardedClaim], marker: str) -> Tuple[str, List[Span]]:
    parts: List[str] = []
    at: List[Span] = []
    pos = length = 0
    for claim in flagged:
        start, end = claim.span
        parts.append(answer[pos:end])
        length += end - pos
        at.append((length - (end - start), length))
        tail = ("" if _FULL_WIDTH.match(answer[end - 1]) else " ") + marker
        parts.append(tail)
        length += len(tail)
        pos = end
    parts.append(answer[pos:])
    return "".join(parts), at


_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
#: A list or quote marker at the start of a line: what may stand between two hidden sentences.
_LIST_MARKER = re.compile(r"\s*(?:[-*+>\u2022\u2023\u25e6\u2043\u2219\u00b7\u2013\u2014]|\d{1,3}[.)]|[a-zA-Z][.)]"
                          r"|\((?:\d{1,3}|[a-zA-Z])\))(?=\s|$)")
_STRIP_INVISIBLE = {ord(c): None for c in INVISIBLE}
_LINE_BREAK = re.compile(f"[{_LINE_BREAKS}]")


def _blank(text: str) -> bool:
    return not text.translate(_STRIP_INVISIBLE).strip()


def _between(gap: str) -> bool:
    """Whether two hidden sentences with ``gap`` between them are neighbours: nothing but white
    space and list markers (no sentence, heading or abstention) between them."""
    for line in _LINE_BREAK.split(gap):
        found = _LIST_MARKER.match(line)
        if not _blank(line[found.end():] if found else line):
            return False
    return True


def _hide(answer: str, flagged: Sequence[GuardedClaim], notice: str) -> Tuple[str, List[Span]]:
    groups: List[List[GuardedClaim]] = []
    for claim in flagged:
        if groups and _between(answer[groups[-1][-1].span[1]:claim.span[0]]):
            groups[-1].append(claim)
        else:
            groups.append([claim])
    # A group that runs over several lines and ends inside a line would pull the rest of that line up
    # into the first one: cut it where it last crossed a line, so every kept sentence keeps its line.
    runs: List[List[GuardedClaim]] = []
    for group in groups:
        last = group[-1].span[1]
        found = _LINE_BREAK.search(answer, last)
        cut = 0
        if not _blank(answer[last:found.start() if found else len(answer)]):
            for k in range(1, len(group)):
                if _LINE_BREAK.search(answer, group[k - 1].span[1], group[k].span[0]):
                    cut = k
        if cut:
            runs += [group[:cut], group[cut:]]
        else:
            runs.append(group)
    parts: List[str] = []
    at: List[Span] = []
    pos = length = 0
    for run in runs:
        start, end = run[0].span[0], run[-1].span[1]
        parts += [answer[pos:start], notice]
        length += start - pos
        at += [(length, length + len(notice))] * len(run)
        length += len(notice)
        pos = end
    parts.append(answer[pos:])
    return "".join(parts), at


# ---------------------------------------------------------------- inputs


def as_passages(retrieved: Retrieved) -> Tuple[Passage, ...]:
    """The passages of ``retrieved``: :class:`Passage` objects, ``{"id", "text"}`` dicts (``id``
    optional) or plain strings; a passage without an id is named by its position (``1``, ``2``, ...)."""
    if isinstance(retrieved, (str, bytes, Mapping)) or not isinstance(retrieved, Sequence):
        raise GroundlabError("retrieved must be a list of passages ({\"id\", \"text\"} objects or strings), "
                             f"not {_json_type(retrieved)}.")
    out = []
    for k, item in enumerate(retrieved, 1):
        if isinstance(item, Passage):
            out.append(item)
        elif isinstance(item, str):
            out.append(Passage(str(k), item))
        elif isinstance(item, Mapping):
            text, pid = item.get("text"), item.get("id", k)
            if not isinstance(text, str):
                raise GroundlabError(f"retrieved passage {k} needs a string \"text\", not {_json_type(text)}.")
            if isinstance(pid, bool) or not isinstance(pid, (str, int)) or not str(pid).strip():
                raise GroundlabError(f"retrieved passage {k} has the id {pid!r}; an id is a non-empty string "
                                     "(or leave it out to name the passage by its position).")
            out.append(Passage(str(pid), text))
        else:
            raise GroundlabError(f"retrieved passage {k} is {_json_type(item)}; give a string or an "
                                 "{\"id\", \"text\"} object.")
    return tuple(out)


_JUDGES: Dict[str, Judge] = {}
_LOCK = threading.Lock()
_SPLITTER: List[ClaimSplitter] = []


def judge_object(judge: Union[str, Judge]) -> Judge:
    """The judge object for ``judge``: a name's object is made on first use and kept, so a guard
    in a loop pays for it once."""
    if not isinstance(judge, str):
        return make_judge(judge)
    found = _JUDGES.get(judge)
    if found is None:
        with _LOCK:
            found = _JUDGES.get(judge)
            if found is None:
                found = _JUDGES[judge] = make_judge(judge)
    return found


def _default_splitter() -> ClaimSplitter:
    if not _SPLITTER:
        _SPLITTER.append(ClaimSplitter())
    return _SPLITTER[0]


# ---------------------------------------------------------------- what it would have done


#: The measures of :func:`guard_outcomes`: name, what it is counted over.
OUTCOME_MEASURES: Tuple[Tuple[str, str], ...] = (
    ("answers touched", "answers with a claim"),
    ("answers routed to a person", "answers with a claim"),
    ("hallucinated claims caught", "claims a person found not supported"),
    ("correct claims hit by mistake", "claims a person found supported"),
    ("correct answers routed by mistake", "answers a person found right"),
)


def guard_outcomes(evaluation: Evaluation, modes: Sequence[str] = MODES,
                   route_when: Union[str, RouteRule, None] = None) -> "pd.DataFrame":
    """What each guard mode would have done to the answers of a judged run, with Wilson ranges.

    One row per mode and measure; columns ``mode``, ``measure``, ``over`` (what it is counted over),
    ``count``, ``total``, ``rate``, ``low``, ``high`` (NaN over nothing). Over the answers with at
    least one claim:

    - ``answers touched``: answers whose text the guard changes (a sentence flagged or hidden;
      none in ``route`` mode, which changes no text);
    - ``answers routed to a person``: answers the route rule sends to a person (``route_when``,
      by default ``contradicted`` for flag and hide, ``flagged`` for route).

    Over the claims and answers a person labeled:

    - ``hallucinated claims caught``: claims the person found not supported that the guard
      flagged (``flag``), hid (``hide``), or sent to a person with their answer (``route``);
    - ``correct claims hit by mistake``: claims the person found supported that the guard flagged
      or hid (none in ``route`` mode);
    - ``correct answers routed by mistake``: answers whose every claim the person found supported
      that went to a person anyway.

    The verdicts are the run's, so the judge of the run is the guard's; a claim the judge could not
    decide counts as flagged, as :func:`guard` treats it.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "rules")
    >>> frame = guard_outcomes(ev)
    >>> frame[frame["mode"] == "hide"].set_index("measure")["count"].to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'answers touched': 6, 'answers routed to a person': 3, 'hallucinated claims caught': 6,
     'correct claims hit by mistake': 1, 'correct answers routed by mistake': 0}
    """
    import pandas as pd

    from ..core.stats import Rate
    from ..measure.summary import rates_frame

    for mode in modes:
        check_options(mode)
    answers: List[Tuple[Tuple[GuardedClaim, ...], Tuple[Optional[str], ...]]] = []
    for _, rows in evaluation.claims.groupby("case_id", sort=False):
        judged = tuple(GuardedClaim(int(r.claim), r.text, r.text, None, tuple(r.cites), r.verdict, r.reason, r.error)
                       for r in rows.itertuples())
        answers.append((judged, tuple(None if pd.isna(label) else label for label in rows["label"])))
    frames = []
    for mode in modes:
        rule = route_rule(route_when, mode)
        tally = {name: [0, 0] for name, _ in OUTCOME_MEASURES}
        for judged, labels in answers:
            routed = bool(rule(judged))
            _count(tally["answers touched"], mode != "route" and any(c.flagged for c in judged))
            _count(tally["answers routed to a person"], routed)
            for c, label in zip(judged, labels):
                if label is None:
                    continue
                if label != "supported":
                    _count(tally["hallucinated claims caught"], routed if mode == "route" else c.flagged)
                else:
                    _count(tally["correct claims hit by mistake"], mode != "route" and c.flagged)
            if labels and all(label == "supported" for label in labels):
                _count(tally["correct answers routed by mistake"], routed)
        frame = rates_frame({name: Rate(*tally[name]) for name, _ in OUTCOME_MEASURES}, mode=mode)
        frame["over"] = [over for _, over in OUTCOME_MEASURES]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)[["mode", "measure", "over", "count", "total", "rate", "low", "high"]]


def _count(cell: List[int], hit: bool) -> None:
    cell[0] += bool(hit)
    cell[1] += 1


__all__ = ["DEFAULT_MARKER", "DEFAULT_NOTICE", "Flag", "GuardResult", "GuardedClaim", "MODES", "OUTCOME_MEASURES",
           "ROUTE_RULES", "as_passages", "guard", "guard_outcomes", "judge_object", "rewrite", "route_rule"]
