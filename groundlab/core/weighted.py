"""Rates weighted by strata: a rate over a whole log estimated from answers people labeled in each
stratum of the judge's verdict, and the hallucination rate corrected by those labels.

Each labeled answer stands for ``weight = N_h / n_h`` answers of its stratum (``N_h`` in the
log, ``n_h`` labeled); the rate of the whole log is ``sum_h (N_h / N) * p_h``
(:func:`weighted_rate`), with a Wilson interval on an effective sample size (see
:mod:`groundlab.labeling.sampling`, which draws such samples). Used by the figures of a run, the
counts of a sharded run, the cascade judge's report and the steering report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, List, Mapping, Optional, Sequence, Tuple

from .records import GroundlabError

if TYPE_CHECKING:  # pragma: no cover - pandas is imported where a frame is built or read
    import pandas as pd

#: The judge's verdict on a whole answer, worst first: an answer with a contradicted claim is
#: ``contradicted``; else with an unsupported one ``unsupported``; else, when the judge could not
#: decide a claim, ``undecided``; else ``supported``. An answer without claims is ``abstained``.
STRATA = ("contradicted", "unsupported", "undecided", "supported", "abstained")

def judge_strata(cases: pd.DataFrame) -> pd.Series:
    """The judge's verdict on each answer (see :data:`STRATA`), from the case frame of an evaluation."""
    import pandas as pd

    stratum = pd.Series("supported", index=cases.index, name="stratum", dtype=object)
    stratum[cases["errors"] > 0] = "undecided"
    stratum[cases["unsupported"] > 0] = "unsupported"
    stratum[cases["contradicted"] > 0] = "contradicted"
    stratum[cases["claims"] == 0] = "abstained"
    return stratum


def _ordered(names) -> list:
    known = [h for h in STRATA if h in set(names)]
    return known + sorted(set(names) - set(known), key=str)


#: The columns of :attr:`WeightedRate.by_stratum`, in order.
STRATUM_COLUMNS = ("stratum", "population", "labeled", "count", "rate", "share")


@dataclass(frozen=True)
class WeightedRate:
    """A rate estimated from a stratified sample, with its Wilson 95% interval.

    ``labeled``: answers behind it; ``population``: answers of the log they stand for;
    ``effective_n``: the simple random sample as precise as this one; ``strata``: one tuple per
    stratum of :data:`STRATUM_COLUMNS`, which :attr:`by_stratum` lays out as a DataFrame (one row
    per stratum with ``population``, ``labeled``, ``count``, ``rate`` and ``share`` of the log),
    built when first read: a run that only prints the rate needs no pandas.
    """

    rate: float
    low: float
    high: float
    labeled: int
    population: int
    effective_n: float
    strata: Tuple[tuple, ...] = field(default=(), repr=False)

    @cached_property
    def by_stratum(self) -> "pd.DataFrame":
        import pandas as pd

        return pd.DataFrame([dict(zip(STRATUM_COLUMNS, row)) for row in self.strata], columns=list(STRATUM_COLUMNS))

    @property
    def design_effect(self) -> float:
        """How many labeled answers this design needs for the precision of one drawn at random."""
        return self.labeled / self.effective_n

    def __str__(self) -> str:
        return (f"{_pct(self.rate)} (95% range {_pct(self.low)}\u2013{_pct(self.high)}; "
                f"{self.labeled} labeled answers standing for {self.population}, as precise as "
                f"{self.effective_n:.0f} drawn at random)")


def _pct(x: float) -> str:
    """Whole percents, with one decimal below 1% so that a small rate is not shown as 0%."""
    return f"{100 * x:.1f}%" if 0.0005 <= x < 0.01 else f"{100 * x:.0f}%"


def weighted_rate(values: pd.Series, strata: pd.Series, sizes: Mapping[str, int]) -> WeightedRate:
    """The stratified estimate of a rate over the whole log (see the module docstring).

    ``values``: per sampled answer, True / False, or NA when it is not labeled (left out);
    ``strata``: the stratum of each, aligned with ``values``; ``sizes``: answers per stratum in
    the population the rate is over. A stratum of that population with no labeled answer makes
    the estimate impossible and raises an error naming it.

    >>> import pandas as pd
    >>> r = weighted_rate(pd.Series([True, True, False, False]), pd.Series(["flagged"] * 2 + ["clean"] * 2),
    ...                   {"flagged": 10, "clean": 90})
    >>> round(r.rate, 2), r.labeled, r.population
    (0.1, 4, 100)
    """
    import pandas as pd

    frame = pd.DataFrame({"value": values.to_numpy(), "stratum": strata.to_numpy()})
    frame = frame[frame["value"].notna()]
    sizes = {h: int(size) for h, size in sizes.items() if size > 0}
    stray = sorted(set(frame["stratum"]) - set(sizes), key=str)
    if stray:
        raise GroundlabError(f"labeled answers belong to the stratum {stray[0]!r}, which the population "
                             "sizes do not list; give its size.")
    strata_counts = []
    for h, size in sizes.items():
        got = frame.loc[frame["stratum"] == h, "value"].astype(bool)
        if not len(got):
            raise GroundlabError(f"no labeled answer stands for the {size} answers of the stratum {h!r}; "
                                 "label at least one of them before estimating the rate.")
        strata_counts.append((h, size, len(got), int(got.sum())))
    return weighted_rate_of_counts(strata_counts)


def weighted_rate_of_counts(strata) -> WeightedRate:
    """:func:`weighted_rate` from counts alone: ``strata`` lists ``(stratum, population, labeled,
    hallucinated among the labeled)``, each stratum with at least one labeled answer. What a merge
    of shards needs, since each of the three counts adds up across shards.

    >>> round(weighted_rate_of_counts([("flagged", 10, 2, 2), ("clean", 90, 2, 0)]).rate, 2)
    0.1
    """
    # Plain Python, each step as the arrays of the pandas version worked it out (element by element in
    # the same order, sums added up as NumPy adds them): the same figures to the last bit.
    total = sum(size for _, size, _, _ in strata)
    rows = [(h, size, n, x, x / n, size / total) for h, size, n, x in strata]
    rate = _sum([share * r for _, _, _, _, r, share in rows])
    labeled = sum(n for _, _, n, _, _, _ in rows)
    kish = total ** 2 / _sum([float(size * size) / n for _, size, n, _, _, _ in rows])
    smoothed = [(x + 0.5) / (n + 1) for _, _, n, x, _, _ in rows]
    var = _sum([share * share * s * (1 - s) / n * (1 - float(n) / float(size))
                for (_, size, n, _, _, share), s in zip(rows, smoothed)])
    center = _sum([share * s for (_, _, _, _, _, share), s in zip(rows, smoothed)])
    effective = min(float(labeled), kish, center * (1 - center) / var if var > 0 else math.inf)
    from .stats import wilson_interval

    low, high = wilson_interval(rate * effective, effective)
    return WeightedRate(rate, float(low), float(high), labeled, total, float(effective), tuple(rows))


def _sum(values: Sequence[float]) -> float:
    """``values`` added up as NumPy adds a float64 array (pairwise, eight at a time): what
    ``Series.sum()`` gave before this module needed no pandas."""
    return 0.0 + _pairwise(values, 0, len(values))


def _pairwise(a: Sequence[float], lo: int, n: int) -> float:
    if n < 8:
        total = 0.0
        for i in range(lo, lo + n):
            total += a[i]
        return total
    if n <= 128:
        r: List[float] = list(a[lo:lo + 8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += a[lo + i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            total += a[lo + i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return _pairwise(a, lo, half) + _pairwise(a, lo + half, n - half)


@dataclass(frozen=True)
class Correction:
    """The hallucination rate corrected by the judge's error on the answers people labeled:
    ``estimate`` (``None`` when it cannot be made) and ``reason`` (why not, or what it rests on)."""

    estimate: Optional[WeightedRate]
    reason: str
    labeled: int
    answered: int


def corrected_hallucination_rate(cases: "pd.DataFrame") -> Correction:
    """The hallucination rate per answer, corrected by people's labels on some of the answers.

    The answered cases are split by the judge's verdict (:func:`judge_strata`); in each stratum the
    labeled answers say how often the person finds a hallucination there, and each stratum counts
    with its share of all answered cases: ``sum_h (N_h / N) p_h`` with its range
    (:func:`weighted_rate`). So the judge's false alarms (labeled answers it flagged that people
    found supported) and misses (labeled answers it passed that people found hallucinated) are
    taken out of the rate. It assumes the labeled answers of a stratum are like its others, as
    they are when drawn at random within the strata (notebook 04 draws such a sample and weighs it
    back). With every answer labeled it is the person's rate. A stratum with no
    labeled answer leaves it undone, and ``reason`` names that stratum.

    >>> import pandas as pd
    >>> cases = pd.DataFrame({"claims": [2] * 10, "supported": [2] * 6 + [1] * 4, "contradicted": [0] * 6 + [1] * 4,
    ...                       "unsupported": [0] * 10, "errors": [0] * 10,
    ...                       "labeled": [True, True, False, False, False, False, True, True, False, False],
    ...                       "hallucinated_by_person": [False, False, None, None, None, None, True, False, None, None]})
    >>> c = corrected_hallucination_rate(cases)
    >>> round(c.estimate.rate, 2), c.labeled, c.answered
    (0.2, 4, 10)
    """
    answered = cases[cases["claims"] > 0]
    labeled = answered[answered["labeled"].astype(bool)]
    if labeled.empty:
        return Correction(None, "no answer carries a person's labels", 0, len(answered))
    strata = judge_strata(answered)
    sizes = {h: int(n) for h, n in strata.value_counts().items()}
    missing = [h for h in _ordered(sizes) if not (strata[labeled.index] == h).any()]
    if missing:
        return Correction(None, f"no labeled answer among the {sizes[missing[0]]} the judge found {missing[0]}, so its "
                          "share cannot be corrected; label a few of them too", len(labeled), len(answered))
    values = labeled["hallucinated_by_person"].astype("boolean")
    estimate = weighted_rate(values, strata[labeled.index], {h: sizes[h] for h in _ordered(sizes)})
    return Correction(estimate, "", len(labeled), len(answered))
