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
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence, Tuple

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
    smoothed = [(x + 0.5) / (n + 1) for _, _, n, x, _, _ in rows]
    var = _sum([share * share * s * (1 - s) / n * (1 - float(n) / float(size))
                for (_, size, n, _, _, share), s in zip(rows, smoothed)])
    center = _sum([share * s for (_, _, _, _, _, share), s in zip(rows, smoothed)])
    # No stratum tells more than its own labels do for its share: an under-sampled big stratum
    # bounds the precision (with labels in proportion to the strata the bound is the labeled count).
    thinnest = min(n / share for _, _, n, _, _, share in rows)
    effective = min(float(labeled), thinnest, center * (1 - center) / var if var > 0 else math.inf)
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


# ---------------------------------------------------------------- how many labels

#: The strata a judge's flags fall in: an answer in one of them counts as flagged by the judge.
FLAGGED_STRATA = ("contradicted", "unsupported", "undecided")
#: The fewest labeled answers a stratum gets in a plan: the smallest sample that says something of
#: its rate besides "no hallucination seen".
MIN_PER_STRATUM = 2
#: The lowest hallucination rate a plan assumes: a judge that flags fewer answers than it usually
#: raises false alarms on would otherwise imply a rate near 0, and a plan for a rate near 0 asks
#: for too few labels when the rate is in fact a few percent.
PLANNING_FLOOR = 0.05


@dataclass(frozen=True)
class LabelPlan:
    """How many answers people should label for the corrected hallucination rate to reach a
    stated precision: ``answers`` in all, ``by_stratum`` (stratum -> answers), the ``margin`` aimed
    at (±, as a fraction) and the ``expected_margin`` the plan gives (half its expected 95% range),
    ``priors`` (the share of each stratum expected to be hallucinated) and what they rest on
    (``basis``). ``reached`` is False when labeling every answer cannot reach the margin (a small
    log): the plan is then every answer."""

    answers: int
    by_stratum: Dict[str, int]
    margin: float
    expected_margin: float
    priors: Dict[str, float]
    basis: str
    reached: bool = True


def expected_interval(sizes: Mapping[str, int], allocation: Mapping[str, int],
                      priors: Mapping[str, float]) -> WeightedRate:
    """The corrected rate's estimate and 95% range expected when ``allocation`` answers of each
    stratum are labeled and each stratum's share hallucinated is its prior (:func:`weighted_rate_of_counts`
    on the expected counts)."""
    strata = [(h, size, allocation[h], allocation[h] * priors[h]) for h, size in sizes.items() if size > 0]
    return weighted_rate_of_counts(strata)


def allocate_labels(sizes: Mapping[str, int], priors: Mapping[str, float], n: int,
                    minimum: int = MIN_PER_STRATUM, rule: str = "neyman") -> Dict[str, int]:
    """``n`` labels shared among the strata by Neyman's rule: in proportion to each stratum's size
    times the spread of its labels (``sqrt(p (1 - p))``, from its prior), each stratum given at
    least ``minimum`` (or all it holds) and none more than it holds; the seats are handed out one
    at a time to the stratum whose next label lowers the expected variance most.

    >>> allocate_labels({"unsupported": 300, "supported": 700}, {"unsupported": 0.2, "supported": 0.02}, 50)
    {'unsupported': 28, 'supported': 22}
    >>> allocate_labels({"unsupported": 300, "supported": 700}, {}, 50, rule="proportional")
    {'unsupported': 15, 'supported': 35}
    """
    sizes = {h: int(s) for h, s in sizes.items() if s > 0}
    seats = {h: min(size, minimum) for h, size in sizes.items()}
    total = sum(sizes.values())
    n = min(int(n), total)
    left = n - sum(seats.values())
    if left <= 0:
        return seats
    import heapq

    # The variance a stratum adds is W^2 S^2 / n (1 - n/N) = W^2 S^2 (1/n - 1/N): the next seat's
    # gain is W^2 S^2 (1/n - 1/(n+1)), and a stratum whose spread is 0 still gets its share by size.
    if rule == "proportional":
        spread = {h: 1.0 for h in sizes}
    else:
        spread = {h: max(priors.get(h, 0.5) * (1 - priors.get(h, 0.5)), 1e-4) for h in sizes}
    weight = {h: (sizes[h] / total) ** 2 * spread[h] for h in sizes}
    heap = [(-weight[h] / (seats[h] * (seats[h] + 1)) if seats[h] else -math.inf, h) for h in sizes
            if seats[h] < sizes[h]]
    heapq.heapify(heap)
    while left > 0 and heap:
        _, h = heapq.heappop(heap)
        seats[h] += 1
        left -= 1
        if seats[h] < sizes[h]:
            heapq.heappush(heap, (-weight[h] / (seats[h] * (seats[h] + 1)), h))
    return seats


def plan_labels(sizes: Mapping[str, int], priors: Mapping[str, float], margin: float = 0.05, *,
                budget: Optional[int] = None, basis: str = "", minimum: int = MIN_PER_STRATUM,
                rule: str = "proportional") -> LabelPlan:
    """The smallest stratified sample whose corrected rate is expected within ``±margin`` (95%),
    with ``priors`` the share of each stratum expected to be hallucinated; or, with ``budget``, that
    many answers, allocated alike (see :func:`allocate_labels`). The labels go to the strata in
    proportion to their sizes (``rule="proportional"``, each at least ``minimum``): on the public
    sets that design gave the narrowest ranges at the promised coverage, since the priors are
    guesses and an allocation tuned to wrong guesses costs more than it saves
    (``bench/coverage.py``, docs/measures.md); ``rule="neyman"`` tunes it to the priors.

    >>> p = plan_labels({"unsupported": 300, "supported": 700}, {"unsupported": 0.2, "supported": 0.02})
    >>> p.answers, p.by_stratum, p.expected_margin <= 0.05
    (112, {'unsupported': 34, 'supported': 78}, True)
    """
    if not 0 < margin < 0.5:
        raise GroundlabError(f"the precision asked for must be between 0 and 50 points, not {100 * margin:g}.")
    sizes = {h: int(s) for h, s in sizes.items() if s > 0}
    total = sum(sizes.values())
    if not total:
        return LabelPlan(0, {}, margin, math.nan, dict(priors), basis, False)

    def half(n: int) -> Tuple[Dict[str, int], float]:
        alloc = allocate_labels(sizes, priors, n, minimum, rule)
        e = expected_interval(sizes, alloc, priors)
        return alloc, (e.high - e.low) / 2

    if budget is not None:
        floor = sum(min(size, minimum) for size in sizes.values())
        if int(budget) < floor:
            raise GroundlabError(f"a label budget of {int(budget)} cannot give each of the {len(sizes)} strata of the "
                                 f"judge's verdict ({', '.join(sizes)}) {minimum} labeled answers; ask for at least "
                                 f"{floor}.")
        alloc, h = half(int(budget))
        return LabelPlan(sum(alloc.values()), alloc, margin, h, dict(priors), basis, h <= margin)
    lo = max(1, min(total, minimum * len(sizes)))
    alloc, h = half(lo)
    if h <= margin:
        return LabelPlan(sum(alloc.values()), alloc, margin, h, dict(priors), basis)
    alloc, h = half(total)
    if h > margin:
        return LabelPlan(total, alloc, margin, h, dict(priors), basis, False)
    hi = total
    while hi - lo > 1:  # the half-width falls as labels are added: the fewest that reach the margin
        mid = (lo + hi) // 2
        if half(mid)[1] <= margin:
            hi = mid
        else:
            lo = mid
    alloc, h = half(hi)
    return LabelPlan(sum(alloc.values()), alloc, margin, h, dict(priors), basis)


def priors_from_error(sizes: Mapping[str, int], caught: float, false_alarms: float) -> Dict[str, float]:
    """The share of each stratum expected to be hallucinated, for a judge that catches ``caught`` of
    the hallucinated answers and flags ``false_alarms`` of the others, given how many it flagged
    here: the hallucination rate that explains the flagged share (``f = caught * r + false_alarms
    * (1 - r)``, kept within :data:`PLANNING_FLOOR` and 99.5%), then ``P(hallucinated | flagged) = caught * r / f``
    for the flagged strata and ``(1 - caught) * r / (1 - f)`` for the others.

    >>> {h: round(p, 3) for h, p in priors_from_error({"unsupported": 58, "supported": 42}, 0.8, 0.5).items()}
    {'unsupported': 0.368, 'supported': 0.127}
    """
    total = sum(int(s) for s in sizes.values())
    flagged = sum(int(s) for h, s in sizes.items() if h in FLAGGED_STRATA)
    f = flagged / total if total else 0.0
    if caught > false_alarms:
        r = (f - false_alarms) / (caught - false_alarms)
    else:
        r = f
    r = min(0.995, max(PLANNING_FLOOR, r))
    p_flag = min(0.995, max(0.005, caught * r / f)) if f > 0 else 0.5
    p_clean = min(0.995, max(0.005, (1 - caught) * r / (1 - f))) if f < 1 else 0.5
    return {h: (p_flag if h in FLAGGED_STRATA else p_clean) for h in sizes}
