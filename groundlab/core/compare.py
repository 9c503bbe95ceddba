"""Compare two configurations of the assistant on the same questions, and two judges on the same claims.

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

**Two judges** (:func:`judge_diff`). ``groundlab agree --baseline OLD.json`` lines the claims of a
previous ``agree --json`` (or a claims file) up with the current judge's, claim by claim, and
shows which verdicts changed and whether agreement with the person moved, with the same paired
interval and test: equal totals can hide claims fixed and claims broken in equal numbers.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from . import formatting as _fmt
from .evaluate import Evaluation, evaluate
from ..judges import DEFAULT_JUDGE
from .frames import from_csv_cell
from .io import PathLike, json_problem, load_cases
from .records import VERDICTS, Case, GroundlabError, InputError
from .stats import Rate, percent
from .summary import figure_value, rate_figures

PAIR_BY = ("id", "question")
#: Ids listed by name where cases are left out; the rest are counted.
SHOWN_IDS = 5


# ---------------------------------------------------------------- paired proportions


def paired_difference(both: int, a_only: int, b_only: int, neither: int,
                      confidence: float = 0.95) -> Tuple[float, float, float]:
    """The difference p_B − p_A of two paired proportions and its range by Newcombe's method 10.

    Each of n units is counted twice: ``both`` had the event on both sides, ``a_only`` on side A
    alone, ``b_only`` on side B alone, ``neither`` on none. The range combines the Wilson
    intervals of p_A and p_B with the correlation between them (φ, with Newcombe's correction
    towards 0 when it is positive). NaNs when n is 0.

    >>> [round(x, 4) for x in paired_difference(36, 2, 12, 0)]   # Newcombe (1998), 36/12/2/0
    [0.2, 0.0569, 0.3404]
    """
    from .stats import wilson_interval

    n = both + a_only + b_only + neither
    if min(both, a_only, b_only, neither) < 0:
        raise ValueError("counts of pairs cannot be negative")
    if n == 0:
        return (math.nan, math.nan, math.nan)
    # Newcombe's notation: first proportion p1 = side B, second p2 = side A.
    e, f, g, h = both, b_only, a_only, neither
    p1, p2 = (e + f) / n, (e + g) / n
    l1, u1 = wilson_interval(e + f, n, confidence)
    l2, u2 = wilson_interval(e + g, n, confidence)
    margins = (e + f) * (g + h) * (e + g) * (f + h)
    phi = 0.0
    if margins:
        cross = e * h - f * g
        phi = (cross - n / 2 if cross > n / 2 else min(cross, 0)) / math.sqrt(margins)
    d = p1 - p2
    low = d - math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    high = d + math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return d, max(-1.0, low), min(1.0, high)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """McNemar's exact test on the discordant pairs (statsmodels): the two-sided binomial p value
    of ``a_only`` against ``b_only``; 1 when there is no discordant pair.

    >>> round(mcnemar_exact(2, 12), 4)
    0.0129
    """
    if a_only + b_only == 0:
        return 1.0
    from statsmodels.stats.contingency_tables import mcnemar

    return float(mcnemar([[0, a_only], [b_only, 0]], exact=True).pvalue)


# ---------------------------------------------------------------- one measure compared


@dataclass(frozen=True)
class MeasureComparison:
    """One measure on both sides, the difference B − A with its range, and a test.

    ``table`` holds the paired counts (``both``, ``a_only``, ``b_only``, ``neither``) for the
    paired proportions; ``None`` for faithfulness, whose ``details`` say how many claims and
    questions it used. ``left_out`` counts the units left out of this measure, by reason.
    """

    name: str
    a: Rate
    b: Rate
    difference: float
    low: float
    high: float
    p_value: Optional[float]
    method: str
    test: str
    units: int
    table: Optional[Dict[str, int]] = None
    left_out: Dict[str, int] = field(default_factory=dict)
    details: Dict[str, Any] = field(default_factory=dict)
    names: Tuple[str, str] = ("A", "B")

    @property
    def defined(self) -> bool:
        return not math.isnan(self.difference) and not math.isnan(self.low)

    @property
    def verdict(self) -> str:
        """``unlikely to be noise``, ``could be noise``, ``borderline`` (range and test disagree),
        or ``not measured`` (nothing to compare)."""
        if not self.defined or self.p_value is None:
            return "not measured"
        excludes_zero = self.low > 0 or self.high < 0
        significant = self.p_value < 0.05
        if excludes_zero and significant:
            return "unlikely to be noise"
        if not excludes_zero and not significant:
            return "could be noise"
        return "borderline"

    def sentence(self) -> str:
        """The comparison in plain words, e.g. ``B is flagged by the judge on 7 fewer of 120 answers; ...``."""
        a_name, b_name = self.names
        if not self.defined:
            if self.table is None and not math.isnan(self.difference):
                return f"{LABELS[self.name]}: {self._faithfulness_head()}; {self._no_range()}."
            return f"{LABELS[self.name]}: nothing to compare ({left_out_words(self.left_out) or 'no pairs'})."
        if self.table is not None:
            what = _WORDS[self.name]
            more = self.table["b_only"] - self.table["a_only"]
            if more:
                head = (f"{b_name} {what['verb']} {abs(more)} {'more' if more > 0 else 'fewer'} of "
                        f"{self.units} {what['unit']}")
            else:
                head = f"{b_name} {what['verb']} as many of {self.units} {what['unit']} as {a_name}"
            head += (f" ({a_name} alone on {self.table['a_only']}, {b_name} alone on {self.table['b_only']})")
        else:
            head = self._faithfulness_head()
        tail = (f"the difference is {points(self.difference)} points, 95% range {points(self.low)} to "
                f"{points(self.high)}: {self.verdict}, {p_text(self.p_value)}")
        return f"{head}; {tail}."

    def _faithfulness_head(self) -> str:
        diff = 100 * self.difference
        return (f"{self.names[1]}'s claims are supported {abs(round(diff)):.0f} points {'more' if diff >= 0 else 'less'} "
                f"often ({percent(self.b.rate)} of {self.b.total} claims, against {percent(self.a.rate)} of "
                f"{self.a.total})")

    def _no_range(self) -> str:
        """Why a difference that is there has no range (faithfulness only)."""
        questions = f"{self.units} question{'s' * (self.units != 1)}"
        why = (f"a range needs the claims of at least 2 questions, and there {'is' if self.units == 1 else 'are'} "
               f"{self.units}" if self.units < 2 else
               f"the claims do not vary from question to question over these {questions}")
        return (f"the difference is {points(self.difference)} points, but no 95% range can be measured ({why}): "
                f"{self.verdict}, {p_text(self.p_value)}")

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "a": rate_figures(self.a), "b": rate_figures(self.b), "units": self.units,
            "difference": {"estimate": figure_value(self.difference), "low": figure_value(self.low),
                           "high": figure_value(self.high), "method": self.method},
            "test": {"name": self.test, "p_value": self.p_value},
            "verdict": self.verdict,
        }
        if self.table is not None:
            out["table"] = dict(self.table)
        out["left_out"] = dict(self.left_out)
        out.update(self.details)
        out["summary"] = self.sentence()
        return out


LABELS = {"hallucination_rate": "flagged by the judge", "faithfulness": "faithfulness",
          "abstention": "abstention", "false_abstention": "false abstention",
          "agreement": "agreement with the person"}
_WORDS = {
    "hallucination_rate": {"verb": "is flagged by the judge on", "unit": "answers given by both"},
    "abstention": {"verb": "declines", "unit": "unanswerable questions"},
    "false_abstention": {"verb": "declines", "unit": "answerable questions"},
    "agreement": {"verb": "agrees with the person on", "unit": "labeled claims"},
}
FAITHFULNESS_NOTE = ("(claims do not pair across the two sides: the range takes each question's claims on both sides "
                     "as one cluster, and p is that fit's Wald test, not McNemar)")
NEWCOMBE = "Newcombe 1998 method 10 (paired, hybrid score)"
MCNEMAR = "McNemar exact (discordant pairs)"
CLUSTERED = "least squares, cluster-robust by question (paired), t with questions - 1 df"
WALD = "Wald t test of the same fit"


def paired_proportion(name: str, rows: Sequence[Tuple[bool, bool]], left_out: Dict[str, int],
                      names: Tuple[str, str] = ("A", "B"), confidence: float = 0.95) -> MeasureComparison:
    """A measure compared over paired units, each ``(event on A, event on B)``."""
    both = sum(1 for x, y in rows if x and y)
    a_only = sum(1 for x, y in rows if x and not y)
    b_only = sum(1 for x, y in rows if y and not x)
    neither = len(rows) - both - a_only - b_only
    diff, low, high = paired_difference(both, a_only, b_only, neither, confidence)
    return MeasureComparison(
        name, Rate(both + a_only, len(rows)), Rate(both + b_only, len(rows)), diff, low, high,
        mcnemar_exact(a_only, b_only) if rows else None, NEWCOMBE, MCNEMAR, len(rows),
        {"both": both, "a_only": a_only, "b_only": b_only, "neither": neither},
        {k: v for k, v in left_out.items() if v}, names=names)


def clustered_faithfulness(a_claims: pd.DataFrame, b_claims: pd.DataFrame, a_cluster: Mapping[str, int],
                           b_cluster: Mapping[str, int], names: Tuple[str, str] = ("A", "B"),
                           confidence: float = 0.95) -> MeasureComparison:
    """Faithfulness on both sides over the claims of paired questions, the difference with a
    cluster-robust range (each question one cluster across both sides; see the module docstring).

    ``a_cluster`` / ``b_cluster`` map each side's case id to its pair number; claims of other
    cases are not used. Claims the judge could not decide are left out and counted.
    """
    frames, undecided = [], 0
    for side, claims, cluster in ((0, a_claims, a_cluster), (1, b_claims, b_cluster)):
        mine = claims[claims["case_id"].isin(cluster)]
        undecided += int(mine["verdict"].isna().sum())
        mine = mine[mine["verdict"].notna()]
        frames.append(pd.DataFrame({"supported": (mine["verdict"] == "supported").to_numpy(dtype=float),
                                    "side": float(side), "cluster": mine["case_id"].map(cluster).to_numpy()}))
    a_rate = Rate(int(frames[0]["supported"].sum()), len(frames[0]))
    b_rate = Rate(int(frames[1]["supported"].sum()), len(frames[1]))
    stacked = pd.concat(frames, ignore_index=True)
    clusters = int(stacked["cluster"].nunique())
    diff = low = high = math.nan
    p_value: Optional[float] = None
    if a_rate.total and b_rate.total:
        diff = b_rate.rate - a_rate.rate
        if clusters >= 2:
            low, high, p_value = _cluster_range(stacked, diff, confidence)
    details = {"claims": {"a": a_rate.total, "b": b_rate.total}, "clusters": clusters}
    return MeasureComparison("faithfulness", a_rate, b_rate, diff, low, high, p_value, CLUSTERED, WALD, clusters,
                             None, {"undecided claims": undecided} if undecided else {}, details, names)


#: A standard error below this is zero up to rounding (a real one, of a difference of two shares of
#: claims, would need some 10^17 claims to get this small).
_ZERO_SE = 1e-9


def _cluster_range(stacked: pd.DataFrame, diff: float,
                   confidence: float) -> Tuple[float, float, Optional[float]]:
    """The cluster-robust range of the difference and its Wald p; NaNs and ``None`` when the
    standard error is zero or not finite (nothing can be said, see :func:`clustered_faithfulness`)."""
    import numpy as np
    from statsmodels.regression.linear_model import OLS

    y = stacked["supported"].to_numpy()
    x = np.column_stack([np.ones(len(y)), stacked["side"].to_numpy()])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": stacked["cluster"].to_numpy()}, use_t=True)
    se = float(fit.bse[1])
    p_value = float(fit.pvalues[1])
    if not (math.isfinite(se) and se > _ZERO_SE and math.isfinite(p_value)):
        # The claims do not vary from question to question (e.g. every claim of each side alike):
        # no spread to measure a range from, and a range [d, d] with p = 0 would claim certainty.
        return math.nan, math.nan, None
    low, high = (float(v) for v in np.asarray(fit.conf_int(alpha=1 - confidence))[1])
    return max(-1.0, low), min(1.0, high), p_value


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


# ---------------------------------------------------------------- two judges, claim by claim


#: The columns a claims file needs to serve as a baseline.
BASELINE_COLUMNS = ("case_id", "claim", "text", "verdict", "label")


def claim_verdicts(claims: pd.DataFrame) -> List[Dict[str, Any]]:
    """The per-claim records ``agree --json`` keeps (``case_id``, ``claim``, ``text``, ``verdict``,
    ``score``, ``label``), so a later run can be compared with it claim by claim; ``score`` is the
    judge's (the signals judge's probability that a person finds the claim supported), ``null``
    for a judge that gives none."""
    score = claims["score"] if "score" in claims else [None] * len(claims)
    return [{"case_id": str(c), "claim": int(n), "text": t, "verdict": v if isinstance(v, str) else None,
             "score": None if sc is None or sc != sc else round(float(sc), 4),
             "label": lab if isinstance(lab, str) else None}
            for c, n, t, v, sc, lab in zip(claims["case_id"], claims["claim"], claims["text"], claims["verdict"],
                                           score, claims["label"])]


@dataclass(frozen=True)
class Baseline:
    """A previous judge's verdicts, claim by claim, and what is known of that judge."""

    source: str
    claims: pd.DataFrame
    judge: Optional[str] = None
    identity: Optional[Dict[str, Any]] = None


def read_baseline(path: PathLike) -> Baseline:
    """Read a previous ``groundlab agree --json`` (``.json``) or a claims file (``.csv`` or
    ``.parquet`` with at least the columns ``case_id, claim, text, verdict, label``)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"the baseline {path} does not exist; give a file written by 'groundlab agree --json' "
                         "or a claims file (.csv or .parquet).")
    suffix = path.suffix.lower()
    if suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise InputError(f"the baseline {path} is not JSON ({json_problem(exc)}); give the output of "
                             "'groundlab agree --json'.") from None
        if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
            raise InputError(f"the baseline {path} holds no per-claim verdicts (no \"claims\" list); write it with "
                             "'groundlab agree --json' from this version of groundlab, or give a claims file.")
        if not all(isinstance(c, dict) for c in data["claims"]):
            raise InputError(f"the baseline {path} has a \"claims\" list whose items are not claim records; write "
                             "it with 'groundlab agree --json' from this version of groundlab, or give a claims file.")
        frame = pd.DataFrame(data["claims"], columns=list(BASELINE_COLUMNS))
        identity = data.get("judge_identity") if isinstance(data.get("judge_identity"), dict) else None
        judge = data.get("judge") if isinstance(data.get("judge"), str) else None
    elif suffix in (".csv", ".parquet"):
        if suffix == ".csv":
            try:
                frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
            except pd.errors.EmptyDataError:
                raise InputError(f"the baseline {path} is empty; give a claims file with the columns "
                                 f"{', '.join(BASELINE_COLUMNS)}, or the output of 'groundlab agree --json'.") from None
            except UnicodeDecodeError:
                raise InputError(f"the baseline {path} is not UTF-8 text; save it again as UTF-8 (in a spreadsheet: "
                                 "CSV UTF-8).") from None
            except pd.errors.ParserError as exc:
                raise InputError(f"the baseline {path} is not a readable CSV file ({_reason(exc)}); give each "
                                 f"record the columns {', '.join(BASELINE_COLUMNS)} and nothing more.") from None
            frame = frame.map(from_csv_cell)  # as --claims-out wrote it: "'=x" was "=x"
        else:
            try:
                frame = pd.read_parquet(path)
            except ImportError:
                raise InputError(f"reading the Parquet baseline {path} needs pyarrow (pip install pyarrow); "
                                 "or give a .csv claims file.") from None
            except Exception:  # pyarrow's ArrowInvalid, OSError and the like, for a damaged or empty file
                raise InputError(f"the baseline {path} cannot be read as Parquet (damaged, empty, or not Parquet); "
                                 "write it again, e.g. with pandas' to_parquet, or give a .csv claims file.") from None
        missing = [c for c in BASELINE_COLUMNS if c not in frame.columns]
        if missing:
            raise InputError(f"the baseline {path} lacks the column{'s' * (len(missing) > 1)} {', '.join(missing)}; "
                             f"a claims file needs {', '.join(BASELINE_COLUMNS)}.")
        frame = frame[list(BASELINE_COLUMNS)]
        identity, judge = None, None
    else:
        raise InputError(f"the baseline {path} is neither .json (from 'groundlab agree --json') nor a claims file "
                         "(.csv or .parquet); give one of those.")
    return Baseline(str(path), _check_baseline(frame, path), judge, identity)


def _check_baseline(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    rows = []
    seen: Dict[Tuple[str, int], int] = {}
    for k, (case_id, claim, text, verdict, label) in enumerate(frame.itertuples(index=False, name=None)):
        where = f"the baseline {path}, claim record {k + 1}"
        case_id = "" if _missing(case_id) else str(case_id)
        if not case_id:
            raise InputError(f"{where}: needs a case_id and a claim number of 1 or more; fix or remove that record.")
        number = _claim_number(claim)
        if number is None or number < 1:
            shown = "nothing" if _missing(claim) else repr(str(claim).strip()[:40])
            raise InputError(f"{where} (case {case_id}): needs a whole claim number of 1 or more, not {shown}; fix "
                             "or remove that record.")
        values = []
        for name, value in (("verdict", verdict), ("label", label)):
            value = None if _missing(value) else str(value).strip().lower()
            if value is not None and value not in VERDICTS:
                raise InputError(f"{where} (case {case_id}, claim {number}): {name} {value!r} is not one of "
                                 f"{', '.join(VERDICTS)}.")
            values.append(value)
        key = (case_id, number)
        if key in seen:
            raise InputError(f"{where}: case {case_id} claim {number} is listed twice (also record {seen[key]}); "
                             "keep one.")
        seen[key] = k + 1
        rows.append((case_id, number, "" if _missing(text) else str(text), values[0], values[1]))
    return pd.DataFrame(rows, columns=list(BASELINE_COLUMNS))


def _claim_number(value: Any) -> Optional[int]:
    """A claim number as a whole number, or ``None`` (``1.7``, ``inf``, ``one``, true, nothing).

    >>> [_claim_number(v) for v in ("2", " 3.0 ", 4, 5.0, "1.7", "inf", "nan", "one", True, None)]
    [2, 3, 4, 5, None, None, None, None, None, None]
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return int(number) if math.isfinite(number) and number.is_integer() else None


def _reason(exc: BaseException) -> str:
    """An exception's message on one line, cut short."""
    words = " ".join(str(exc).split()).rstrip(".") or type(exc).__name__
    return words if len(words) <= 160 else words[:157] + "..."


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or \
        (isinstance(value, str) and not value.strip())


@dataclass
class JudgeDiff:
    """The current judge against a baseline judge on the same claims (see :func:`judge_diff`).

    ``claims``: one row per claim of either run: ``case_id``, ``claim``, ``text`` (now),
    ``baseline_text``, ``status`` (``compared``, ``text changed``, ``new``, ``gone``),
    ``before`` and ``after`` (the verdicts), ``label`` (the person's, from the current cases),
    ``move`` (``now agrees``, ``no longer agrees``, ``still agrees``, ``still disagrees``,
    ``unlabeled``; empty when not compared) and ``reason`` (the current judge's).
    ``agreement``: agreement with the person before and after over the claims compared and
    labeled, as a paired comparison.
    """

    baseline: Baseline
    claims: pd.DataFrame
    agreement: MeasureComparison

    def counts(self) -> Dict[str, int]:
        c = self.claims
        compared = c[c["status"] == "compared"]
        changed = compared[compared["before"].fillna("") != compared["after"].fillna("")]
        return {"compared": int(len(compared)), "verdict_changed": int(len(changed)),
                "text_changed": int((c["status"] == "text changed").sum()),
                "new": int((c["status"] == "new").sum()), "gone": int((c["status"] == "gone").sum()),
                "now_agree": int((compared["move"] == "now agrees").sum()),
                "no_longer_agree": int((compared["move"] == "no longer agrees").sum()),
                "label_changed": int(compared["label_changed"].sum())}

    def changed(self) -> pd.DataFrame:
        """Compared claims whose verdict changed."""
        c = self.claims
        c = c[c["status"] == "compared"]
        return c[c["before"].fillna("") != c["after"].fillna("")]

    def to_dict(self) -> Dict[str, Any]:
        changed = self.changed()
        unpaired = self.claims[self.claims["status"] != "compared"]
        return {
            "source": self.baseline.source,
            "judge": self.baseline.judge,
            "judge_identity": self.baseline.identity,
            **self.counts(),
            "agreement": self.agreement.to_dict(),
            "changes": [_record(r) for r in changed.to_dict("records")],
            "unpaired": [_record(r) for r in unpaired.to_dict("records")],
        }


def _record(row: Dict[str, Any]) -> Dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()
            if k in ("case_id", "claim", "text", "baseline_text", "status", "before", "after", "label", "move")}


def _same_text(x: str, y: str) -> bool:
    return " ".join(str(x).split()) == " ".join(str(y).split())


def judge_diff(claims: pd.DataFrame, baseline: Union[Baseline, PathLike], confidence: float = 0.95) -> JudgeDiff:
    """Line the current claims up with a baseline's by case id and claim number and say, claim by
    claim, where the verdict changed and whether agreement with the person moved.

    A claim whose text differs from the baseline's (the answer changed, or was split otherwise)
    is not compared: its status is ``text changed``, never mis-paired with another claim.
    """
    baseline = baseline if isinstance(baseline, Baseline) else read_baseline(baseline)
    old = {(r[0], r[1]): r for r in baseline.claims.itertuples(index=False, name=None)}
    rows = []
    seen = set()
    for case_id, number, text, verdict, label, reason in zip(claims["case_id"], claims["claim"], claims["text"],
                                                             claims["verdict"], claims["label"], claims["reason"]):
        key = (str(case_id), int(number))
        seen.add(key)
        after = verdict if isinstance(verdict, str) else None
        label = label if isinstance(label, str) else None
        prev = old.get(key)
        if prev is None:
            rows.append((key[0], key[1], text, None, "new", None, after, label, "", False, reason))
            continue
        before, old_label = prev[3], prev[4]
        if not _same_text(prev[2], text):
            rows.append((key[0], key[1], text, prev[2], "text changed", before, after, label, "", False, reason))
            continue
        person = label if label is not None else old_label
        rows.append((key[0], key[1], text, prev[2], "compared", before, after, person,
                     _move(before, after, person), label is not None and old_label is not None and label != old_label,
                     reason))
    for key, prev in old.items():
        if key not in seen:
            rows.append((key[0], key[1], None, prev[2], "gone", prev[3], None, prev[4], "", False, None))
    frame = pd.DataFrame(rows, columns=["case_id", "claim", "text", "baseline_text", "status", "before", "after",
                                        "label", "move", "label_changed", "reason"])
    scored = frame[(frame["status"] == "compared") & frame["label"].notna() & frame["before"].notna()
                   & frame["after"].notna()]
    pairs = [(b == lab, a == lab) for b, a, lab in zip(scored["before"], scored["after"], scored["label"])]
    undecided = int(((frame["status"] == "compared") & frame["label"].notna()
                     & (frame["before"].isna() | frame["after"].isna())).sum())
    agreement = paired_proportion("agreement", pairs, {"undecided by a judge": undecided}, ("before", "now"),
                                  confidence)
    return JudgeDiff(baseline, frame, agreement)


def _move(before: Optional[str], after: Optional[str], label: Optional[str]) -> str:
    if label is None:
        return "unlabeled"
    if before is None or after is None:
        return "undecided"
    was, now = before == label, after == label
    return {(False, True): "now agrees", (True, False): "no longer agrees", (True, True): "still agrees",
            (False, False): "still disagrees"}[(was, now)]


# ---------------------------------------------------------------- formatting


def points(x: float) -> str:
    """A difference of two rates in whole points, signed, with a real minus (never ``−0``): the
    formatting layer's (:func:`groundlab.formatting.points`), as every report and chart writes it.

    >>> points(-0.0583), points(-0.0001)
    ('−6', '+0')
    """
    from .formatting import points as formatted

    return formatted(x)


def p_text(p: Optional[float]) -> str:
    """``p = 0.02``, ``p < 0.001``, or ``no test`` when there is none.

    >>> p_text(0.0213), p_text(0.00001), p_text(1.0)
    ('p = 0.021', 'p < 0.001', 'p = 1.00')
    """
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "no test"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.2g}" if p < 0.1 else f"p = {p:.2f}"


def left_out_words(left_out: Mapping[str, int]) -> str:
    """What a measure left out, in words.

    >>> left_out_words({"answered by A only": 2, "answered by neither": 0, "undecided by the judge": 1})
    '2 answered by A only; 1 undecided by the judge'
    """
    return "; ".join(f"{n} {why}" for why, n in left_out.items() if n)


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
