"""Compare two configurations of the assistant on the same questions.

**Two configurations** (:func:`compare`). A new prompt, model or retriever answers the same
questions as the old one; both case files are judged by the same judge and the cases are paired
by ``id`` (or by question text). Because the same questions are asked of both, each measure is
compared *paired*, which is both fairer and more sensitive than comparing two independent rates:

- **hallucination rate**: the questions answered (at least one claim) on *both* sides, each
  hallucinated or not on each side; a question one side declines is left out here (and shows up
  in abstention), as is one the judge could not decide.
- **abstention / false abstention**: the questions whose ``answerable`` flag is ``false`` /
  ``true`` on both sides (or on one side, when the other leaves it unknown and both were given
  the very same passages); a question whose flag differs, or is unknown, is left out and counted.
- for these three, each side's rate with its Wilson 95% range; the difference (B − A) with the
  95% range of Newcombe's hybrid score interval for paired proportions (method 10 of Newcombe,
  *Statistics in Medicine* 17:2635–2650, 1998); and McNemar's exact test on the discordant
  pairs (statsmodels).
- **faithfulness** is a share of *claims*, and claims do not pair: each side splits its own
  answer into its own claims. Each side's rate (Wilson, as ``score`` reports it) is over the
  claims of the paired questions; the difference is the coefficient of a least-squares fit of
  "claim supported" on "side B" over the claims of both sides, with a cluster-robust standard
  error that takes each question (both sides' claims of it) as one cluster: claims of one answer
  are not independent, and the two sides' answers to one question are paired. The range is
  ``t`` with (questions − 1) degrees of freedom, and its p value the matching Wald test, not McNemar.

The paired statistics each measure rests on are :mod:`groundlab.measure.paired`'s; two judges
compared claim by claim (``groundlab agree --baseline``) are :mod:`groundlab.measure.judge_diff`'s;
both are named here too, as they always were.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import pandas as pd

from ..core import formatting as _fmt
from .evaluate import Evaluation, evaluate
from ..judges import DEFAULT_JUDGE
from ..core.frames import from_csv_cell  # noqa: F401 (named here before the baseline moved)
from ..core.io import PathLike, json_problem, load_cases  # noqa: F401
from .judge_diff import BASELINE_COLUMNS, Baseline, JudgeDiff, claim_verdicts, judge_diff, read_baseline  # noqa: F401
from .paired import (CLUSTERED, FAITHFULNESS_NOTE, LABELS, MCNEMAR, NEWCOMBE, WALD, MeasureComparison,  # noqa: F401
                     clustered_faithfulness, left_out_words, mcnemar_exact, p_text, paired_difference,
                     paired_proportion, points)
from ..core.records import VERDICTS, Case, GroundlabError, InputError  # noqa: F401
from ..core.stats import Rate, percent  # noqa: F401
from .summary import figure_value, rate_figures  # noqa: F401

PAIR_BY = ("id", "question")
#: Ids listed by name where cases are left out; the rest are counted.
SHOWN_IDS = 5

# ---------------------------------------------------------------- pairing


@dataclass(frozen=True)
class Pairing:
    """Which case of A goes with which case of B; the cases found on one side only."""

    by: str
    pairs: Tuple[Tuple[str, str], ...]
    only_a: Tuple[str, ...]
    only_b: Tuple[str, ...]


def _question_key(question: str) -> str:
    return " ".join(question.split()).casefold()


def pair_cases(a: Sequence[Case], b: Sequence[Case], by: str = "id",
               names: Tuple[str, str] = ("A", "B")) -> Pairing:
    """Pair the cases of two runs by ``id`` or by ``question`` (white space and letter case
    ignored). A key used twice on one side cannot be paired: one sentence naming it."""
    if by not in PAIR_BY:
        raise GroundlabError(f"cases pair by {' or '.join(PAIR_BY)}, not {by!r}.")
    keyed = []
    for name, cases in zip(names, (a, b)):
        seen: Dict[str, Case] = {}
        for case in cases:
            key = case.id if by == "id" else _question_key(case.question)
            if key in seen:
                if by == "id":
                    raise InputError(f"{case.where} in {name}: case id {case.id!r} is used twice; give each case "
                                     "its own id.")
                raise InputError(
                    f"{name} asks the question {case.question[:80]!r} twice (cases {seen[key].id} and {case.id}), "
                    "so it cannot be paired by question; pair by id, or keep one of them.")
            seen[key] = case
        keyed.append(seen)
    ka, kb = keyed
    pairs = tuple((ka[k].id, kb[k].id) for k in ka if k in kb)
    only_a = tuple(ka[k].id for k in ka if k not in kb)
    only_b = tuple(kb[k].id for k in kb if k not in ka)
    if not pairs:
        hint = "pair by question with --pair-by question, or check" if by == "id" else "check"
        raise InputError(f"no case of {names[0]} has a matching {by} in {names[1]} ({len(ka)} and {len(kb)} cases); "
                         f"{hint} that the two files hold answers to the same questions.")
    return Pairing(by, pairs, only_a, only_b)


# ---------------------------------------------------------------- the comparison


@dataclass
class Comparison:
    """Two configurations compared, measure by measure (see the module docstring)."""

    names: Tuple[str, str]
    sources: Tuple[str, str]
    cases: Tuple[int, int]
    pairing: Pairing
    measures: Dict[str, MeasureComparison]
    judge_identity: Optional[Dict[str, Any]] = None

    def to_dict(self) -> Dict[str, Any]:
        """Every figure, as ``groundlab compare --json`` prints it."""
        p = self.pairing
        out: Dict[str, Any] = {
            "a": {"name": self.names[0], "source": self.sources[0], "cases": self.cases[0]},
            "b": {"name": self.names[1], "source": self.sources[1], "cases": self.cases[1]},
            "pair_by": p.by,
            "pairs": len(p.pairs),
            "only_in_a": {"count": len(p.only_a), "first": list(p.only_a[:SHOWN_IDS])},
            "only_in_b": {"count": len(p.only_b), "first": list(p.only_b[:SHOWN_IDS])},
        }
        out.update({name: m.to_dict() for name, m in self.measures.items()})
        out["judge_identity"] = self.judge_identity
        return out

    def explained(self) -> List[Tuple[str, List[str]]]:
        """Each measure in plain words, with its notes: what it left out, and how faithfulness was
        compared (claims do not pair)."""
        out = []
        for name, m in self.measures.items():
            notes = []
            left = left_out_words(m.left_out)
            if left:
                notes.append(f"left out: {left}")
            if name == "faithfulness" and m.defined:
                notes.append(FAITHFULNESS_NOTE)
            # an undefined measure's sentence already starts with its name
            out.append((m.sentence() if not m.defined else f"{LABELS[name]}: {m.sentence()}", notes))
        return out

    def reading(self) -> str:
        """How to read the differences and their ranges."""
        a, b = self.names
        return (f"differences are in points ({b}'s rate minus {a}'s); ranges are 95%: Newcombe's paired interval, "
                "and for faithfulness the cluster-robust one.")

    def one_sided(self) -> List[str]:
        """Sentences on the cases found on one side only (empty when every case paired)."""
        out = []
        for name, ids in zip(self.names, (self.pairing.only_a, self.pairing.only_b)):
            if ids:
                shown = ", ".join(ids[:SHOWN_IDS]) + (", \u2026" if len(ids) > SHOWN_IDS else "")
                out.append(f"only in {name}: {len(ids)} case{'s' * (len(ids) != 1)} ({shown}), left out")
        return out


def compare(a: Union[PathLike, Sequence[Case]], b: Union[PathLike, Sequence[Case]], judge: Any = DEFAULT_JUDGE, *,
            passages: Optional[PathLike] = None, passages_b: Optional[PathLike] = None, pair_by: str = "id",
            splitter: Any = None, names: Tuple[str, str] = ("A", "B"),
            evaluations: Optional[Tuple[Evaluation, Evaluation]] = None, sources: Optional[Tuple[str, str]] = None,
            confidence: float = 0.95) -> Comparison:
    """Judge two runs' cases with the same judge and compare them, paired (module docstring).

    ``a`` and ``b`` are cases files or lists of :class:`~groundlab.Case`; ``passages`` is the
    passages file their ids refer to (``passages_b`` for B's, when it differs). ``evaluations``
    reuses frames already judged, both by the same judge (their identities must match);
    ``sources`` names the two sides in the output (default: the file names).

    >>> import dataclasses
    >>> from groundlab import load_cases, sample_path
    >>> a = load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"))
    >>> fixed = "The supplier delivered 90 of 100 pieces [D07]."   # c02 no longer contradicts D07
    >>> b = [dataclasses.replace(c, answer=fixed, labels=None) if c.id == "c02" else c for c in a]
    >>> compare(a, b).measures["hallucination_rate"].sentence()
    'B is flagged by the judge on 1 fewer of 10 answers given by both (A alone on 1, B alone on 0); the difference is \
−10 points, 95% range −32 to +14: could be noise, p = 1.00.'
    """
    from .policy import make_judge

    sources = sources or tuple(str(x) if isinstance(x, (str, Path)) else "(cases)" for x in (a, b))
    a_cases = load_cases(a, passages) if isinstance(a, (str, Path)) else list(a)
    b_cases = load_cases(b, passages_b if passages_b is not None else passages) if isinstance(b, (str, Path)) \
        else list(b)
    pairing = pair_cases(a_cases, b_cases, pair_by, names)
    if evaluations is None:
        judge = make_judge(judge)
        from .policy import policy_of

        policy = policy_of(judge)
        if policy is not None:  # both sides placed before either is judged
            policy.check_cases(a_cases)
            policy.check_cases(b_cases)
        evaluations = (evaluate(a_cases, judge, splitter=splitter), evaluate(b_cases, judge, splitter=splitter))
    ev_a, ev_b = evaluations
    if ev_a.claims.attrs.get("judge") != ev_b.claims.attrs.get("judge"):
        raise GroundlabError(f"{names[0]} and {names[1]} were judged by different judges ({ev_a.judge} and "
                             f"{ev_b.judge}, or other settings); judge both alike to compare them.")
    measures = compare_evaluations(ev_a, ev_b, a_cases, b_cases, pairing, names, confidence)
    return Comparison(names, tuple(sources), (len(a_cases), len(b_cases)), pairing, measures,  # type: ignore[arg-type]
                      ev_a.claims.attrs.get("judge"))


def compare_evaluations(ev_a: Evaluation, ev_b: Evaluation, a_cases: Sequence[Case], b_cases: Sequence[Case],
                        pairing: Pairing, names: Tuple[str, str] = ("A", "B"),
                        confidence: float = 0.95) -> Dict[str, MeasureComparison]:
    """The four measures compared over the pairs of ``pairing``."""
    columns = ["claims", "hallucinated", "abstained"]
    rows_a = ev_a.cases.set_index("case_id")[columns].to_dict("index")
    rows_b = ev_b.cases.set_index("case_id")[columns].to_dict("index")
    case_a = {c.id: c for c in a_cases}
    case_b = {c.id: c for c in b_cases}

    halluc: List[Tuple[bool, bool]] = []
    only = {True: f"answered by {names[0]} only", False: f"answered by {names[1]} only"}
    h_out = {only[True]: 0, only[False]: 0, "answered by neither": 0, "undecided by the judge": 0}
    abst: List[Tuple[bool, bool]] = []
    false_abst: List[Tuple[bool, bool]] = []
    a_out = {"answerable differs between the sides": 0, "answerable unknown": 0,
             "answerable set on one side only, passages differ": 0}
    for ia, ib in pairing.pairs:
        ra, rb = rows_a[ia], rows_b[ib]
        answered = (ra["claims"] > 0, rb["claims"] > 0)
        if all(answered):
            if pd.isna(ra["hallucinated"]) or pd.isna(rb["hallucinated"]):
                h_out["undecided by the judge"] += 1
            else:
                halluc.append((bool(ra["hallucinated"]), bool(rb["hallucinated"])))
        else:
            h_out[only[answered[0]] if any(answered) else "answered by neither"] += 1
        flag, why = _answerable(case_a[ia], case_b[ib])
        if flag is None:
            a_out[why] += 1
        else:
            (false_abst if flag else abst).append((bool(ra["abstained"]), bool(rb["abstained"])))
    a_cluster = {ia: k for k, (ia, _) in enumerate(pairing.pairs)}
    b_cluster = {ib: k for k, (_, ib) in enumerate(pairing.pairs)}
    return {
        "hallucination_rate": paired_proportion("hallucination_rate", halluc, h_out, names, confidence),
        "faithfulness": clustered_faithfulness(ev_a.claims, ev_b.claims, a_cluster, b_cluster, names, confidence),
        "abstention": paired_proportion("abstention", abst, a_out, names, confidence),
        "false_abstention": paired_proportion("false_abstention", false_abst, a_out, names, confidence),
    }


def _answerable(a: Case, b: Case) -> Tuple[Optional[bool], str]:
    """The pair's ``answerable`` flag, or ``None`` and why it has none."""
    if a.answerable is not None and b.answerable is not None:
        if a.answerable == b.answerable:
            return a.answerable, ""
        return None, "answerable differs between the sides"
    known = a.answerable if a.answerable is not None else b.answerable
    if known is None:
        return None, "answerable unknown"
    # Whether the passages hold the answer is a property of the question and the passages: it
    # carries over to the other side only if that side was given the very same passages.
    same = [(p.id, p.text) for p in a.retrieved] == [(p.id, p.text) for p in b.retrieved]
    return (known, "") if same else (None, "answerable set on one side only, passages differ")


#: Which way each compared measure is better for the second configuration.
BETTER = {"hallucination_rate": "lower", "faithfulness": "higher", "abstention": "higher",
          "false_abstention": "lower", "agreement": "higher"}


def compare_rows(comparison: Any) -> List[Dict[str, Any]]:
    """Per measure of a comparison: the difference, its range, and whether it is better for B,
    worse, or could be noise (which way is better written in the label)."""
    result = comparison.result if hasattr(comparison, "result") else comparison
    b = result.names[1]
    rows = []
    for name, m in result.measures.items():
        if not m.defined:
            continue
        better = BETTER.get(name, "lower")
        good = (m.difference < 0) == (better == "lower")
        state = ("good" if good else "bad") if m.verdict == "unlikely to be noise" else "unsure"
        words = (f"better for {b}" if good else f"worse for {b}") if state != "unsure" else m.verdict
        rows.append({"label": f"{LABELS[name]} ({better} is better)", "value": m.difference, "low": m.low,
                     "high": m.high, "state": state,
                     "note": f"{_fmt.points(m.difference)} points ({_fmt.points_range(m.low, m.high)}): {words}"})
    return rows


__all__ = ["BETTER", "Baseline", "Comparison", "JudgeDiff", "MeasureComparison", "PAIR_BY", "Pairing", "claim_verdicts", "compare_rows",
           "compare", "compare_evaluations", "judge_diff", "left_out_words", "mcnemar_exact", "pair_cases",
           "paired_difference", "p_text", "points", "read_baseline"]
