"""A measure compared on both sides of paired units, and how the comparison reads.

Each of n units (a question both configurations answered, a claim both judges judged) is counted
on side A and on side B. For a share of paired units (:func:`paired_proportion`): each side's rate
with its Wilson 95% range; the difference (B − A) with the 95% range of Newcombe's hybrid score
interval for paired proportions (method 10 of Newcombe, *Statistics in Medicine* 17:2635–2650,
1998, :func:`paired_difference`); and McNemar's exact test on the discordant pairs (statsmodels,
:func:`mcnemar_exact`). For faithfulness, a share of claims, which do not pair
(:func:`clustered_faithfulness`): the coefficient of a least-squares fit of "claim supported" on
"side B", with a cluster-robust standard error that takes each question as one cluster, and its
Wald test. :class:`MeasureComparison` holds one such measure and says it in words; ``points``,
``p_text`` and ``left_out_words`` write its figures.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

import pandas as pd

from ..core.stats import Rate, percent
from .summary import figure_value, rate_figures

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
    from ..core.stats import wilson_interval

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


# ---------------------------------------------------------------- formatting


def points(x: float) -> str:
    """A difference of two rates in whole points, signed, with a real minus (never ``−0``): the
    formatting layer's (:func:`groundlab.formatting.points`), as every report and chart writes it.

    >>> points(-0.0583), points(-0.0001)
    ('−6', '+0')
    """
    from ..core.formatting import points as formatted

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
