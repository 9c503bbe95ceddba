"""Rates with their Wilson 95% intervals, and how many answers a given precision needs.

Every rate groundlab reports is a :class:`Rate`: the count, the number behind it, the rate and
its Wilson score interval (by its closed formula, the same to 1e-12 as statsmodels'
``proportion_confint(method="wilson")``, without importing statsmodels and SciPy). A rate over
nothing is NaN, never 0. Rates add up: the :class:`Rate` of two sets of items is the sum of their
counts over the sum of their totals (``a + b``), so shards of a run can be scored apart and merged.
The risk scores count a wrong answer as costing ``penalty`` correct ones: :func:`check_cost` keeps
that cost where a score stays a number.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from .records import GroundlabError


class UndefinedRateWarning(UserWarning):
    """A rate was asked for over zero items; it is NaN."""


def wilson_interval(count: int, total: int, confidence: float = 0.95) -> Tuple[float, float]:
    """The Wilson score interval of ``count / total``; ``(nan, nan)`` when ``total`` is 0.

    >>> [round(x, 2) for x in wilson_interval(5, 10)]
    [0.24, 0.76]
    """
    if total < 0 or count < 0 or count > total:
        raise ValueError(f"need 0 <= count <= total, got {count} of {total}")
    if total == 0:
        return (math.nan, math.nan)
    z = _z(confidence)
    z2 = z * z
    p = count / total
    denom = 1 + z2 / total
    centre = (p + z2 / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / denom
    # At 0 of n the lower end is 0 and at n of n the upper end is 1, exactly: rounding would leave a hair.
    low = 0.0 if count == 0 else max(0.0, centre - half)
    high = 1.0 if count == total else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Rate:
    """``count`` of ``total``, with the rate and its Wilson 95% interval.

    >>> r = Rate(5, 10)
    >>> r.rate, round(r.low, 3), round(r.high, 3)
    (0.5, 0.237, 0.763)
    """

    count: int
    total: int
    #: False when the rate does not apply to these items although they can be counted (citation
    #: recall where no claim cites anything): its rate and interval are NaN, but its count and
    #: total still add up with another set's.
    applies: bool = True

    @property
    def rate(self) -> float:
        return self.count / self.total if self.defined else math.nan

    @property
    def interval(self) -> Tuple[float, float]:
        return wilson_interval(self.count, self.total) if self.applies else (math.nan, math.nan)

    @property
    def low(self) -> float:
        return self.interval[0]

    @property
    def high(self) -> float:
        return self.interval[1]

    @property
    def defined(self) -> bool:
        return self.total > 0 and self.applies

    def __add__(self, other: "Rate") -> "Rate":
        """The rate of both sets of items together.

        >>> str(Rate(0, 100, applies=False) + Rate(40, 50))
        '40/150 = 27%'
        """
        if not isinstance(other, Rate):
            return NotImplemented
        return Rate(self.count + other.count, self.total + other.total, self.applies or other.applies)

    def __str__(self) -> str:
        if not self.defined:
            return f"{self.count}/{self.total} (n/a)"
        return f"{self.count}/{self.total} = {self.rate:.0%}"

    def with_range(self) -> str:
        """The rate with its count and Wilson 95% range, for a table cell.

        >>> Rate(5, 6).with_range(), Rate(0, 0).with_range()
        ('5/6 = 83% (44%\u201397%)', '0/0 (n/a)')
        """
        if not self.defined:
            return str(self)
        return f"{self} ({self.low:.0%}\u2013{self.high:.0%})"


def percent(x: Optional[float]) -> str:
    """A fraction as whole percents; ``n/a`` for an undefined rate (None or NaN): the formatting
    layer's (:func:`groundlab.formatting.percent`).

    >>> percent(0.6), percent(float("nan"))
    ('60%', 'n/a')
    """
    from .formatting import percent as formatted

    return formatted(x)


def make_rate(count: int, total: int, what: str) -> Rate:
    """A :class:`Rate`, warning when it is undefined (``total`` is 0)."""
    if total == 0:
        warnings.warn(f"{what} is undefined: there is nothing to count it over", UndefinedRateWarning,
                      stacklevel=3)
    return Rate(int(count), int(total))


def interval_half_width(rate: float, n: int, confidence: float = 0.95) -> float:
    """Half the width of the Wilson interval for an observed ``rate`` over ``n`` answers."""
    if n <= 0:
        raise ValueError("n must be positive")
    if not 0 <= rate <= 1:
        raise ValueError("rate must be between 0 and 1")
    z = _z(confidence)
    denom = 1 + z * z / n
    return z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / denom


def interval_bounds(rate: float, n: int, confidence: float = 0.95) -> Tuple[float, float]:
    """The Wilson interval an observed ``rate`` would have over ``n`` answers (``n`` need not make
    ``rate * n`` a whole count: this is for planning, as in "at 60%, what would 100 answers give?").

    >>> [round(x, 2) for x in interval_bounds(0.5, 10)]
    [0.24, 0.76]
    """
    half = interval_half_width(rate, n, confidence)
    z = _z(confidence)
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def answers_needed(rate: float, margin: float, confidence: float = 0.95) -> int:
    """The fewest answers whose Wilson interval around ``rate`` is at most ``±margin`` wide.

    >>> answers_needed(0.5, 0.05)
    381
    """
    if not 0 < margin < 0.5:
        raise ValueError("the margin must be between 0 and 0.5 (e.g. 0.05 for ±5 points)")
    if not 0 <= rate <= 1:
        raise ValueError("the rate must be between 0 and 1")
    lo, hi = 1, 1
    while interval_half_width(rate, hi, confidence) > margin:
        lo, hi = hi, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if interval_half_width(rate, mid, confidence) > margin:
            lo = mid + 1
        else:
            hi = mid
    return lo


_Z: dict = {}


def _z(confidence: float) -> float:
    """The normal quantile of a two-sided ``confidence`` (1.96 for 95%), computed once per level."""
    z = _Z.get(confidence)
    if z is None:
        from statistics import NormalDist

        z = _Z[confidence] = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    return z


#: The most a wrong answer may cost, in correct ones (penalty times its weight): beyond it the score
#: of a large log, or its figure per 100 answers, could run past what a number holds, and JSON
#: cannot write what is left (-Infinity).
MAX_COST = 1e100


def check_cost(penalty: float, weights: Optional[Dict[str, float]] = None) -> None:
    """Refuse, in one sentence, a penalty (and weights) that would make a risk score infinite.

    >>> check_cost(3, {"amount": 5})
    >>> check_cost(3, {"amount": 1e308})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    groundlab.core.records.GroundlabError: the penalty 3 times the weight of amount, 1e+308, makes a wrong answer cost ...
    """
    named = {k: float(v) for k, v in (weights or {}).items()}
    kind, heaviest = max(named.items(), key=lambda kv: kv[1], default=(None, 1.0))
    heaviest = max(heaviest, 1.0)  # a kind not listed weighs 1
    cost = penalty * heaviest
    if math.isnan(cost) or cost > MAX_COST:
        weight = f" times the weight of {kind}, {heaviest:g}," if kind is not None and heaviest > 1 else ""
        shown = f"{cost:g}" if math.isfinite(cost) else f"{penalty:g} x {heaviest:g}"
        raise GroundlabError(f"the penalty {penalty:g}{weight} makes a wrong answer cost {shown} correct ones, more "
                             f"than the {MAX_COST:g} a risk score counts (past it a log's score can run beyond what a "
                             "number holds, which JSON cannot write); give a smaller penalty or smaller weights.")
