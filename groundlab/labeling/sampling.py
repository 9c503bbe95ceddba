"""Draw answers for people to label, stratified by the judge's verdict, and weigh them back.

Labeling every answer of a production log is too costly, and a simple random sample of a few
hundred holds few of the answers that matter: the ones the judge flags. So the log is split
into strata by the judge's verdict on each answer (:func:`judge_strata`), a sample is drawn from
every stratum with flagged answers over-represented (:func:`allocate`,
:func:`stratified_sample`), and each labeled answer then stands for ``weight = N_h / n_h``
answers of its stratum (``N_h`` in the log, ``n_h`` labeled). The person-based rate of the whole
log is the stratified estimate ``sum_h (N_h / N) * p_h`` (:func:`weighted_rate`); the plain rate
over the sample would overstate it, since flagged answers were drawn more often.

The interval is a Wilson interval on an effective sample size: the smallest of the labeled
answers, Kish's size for unequal weights ``N^2 / sum_h N_h^2 / n_h`` (the precision the weighting
leaves), and ``p (1 - p) / var`` from the stratified variance
``sum_h W_h^2 p_h (1 - p_h) / n_h (1 - n_h / N_h)``, with each ``p_h`` taken as
``(x_h + 0.5) / (n_h + 1)`` there so that a stratum whose sample shows no hallucination (or only
hallucinations) still counts as uncertain instead of claiming a precision it does not have
(after Korn and Graubard's advice for small samples).

>>> import pandas as pd
>>> log = pd.DataFrame({"case_id": [f"r{i}" for i in range(100)], "claims": [2] * 100,
...                     "supported": [2] * 90 + [1] * 10, "contradicted": [0] * 90 + [1] * 10,
...                     "unsupported": [0] * 100, "errors": [0] * 100})
>>> design = stratified_sample(log, 20, seed=1)
>>> design.groupby("stratum")[["population", "sampled", "weight"]].first().to_dict("index")
{'contradicted': {'population': 10, 'sampled': 10, 'weight': 1.0}, 'supported': {'population': 90, 'sampled': 10, 'weight': 9.0}}
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Protocol, Union

import pandas as pd

from ..core.files import json_line
from ..core.io import PathLike, check_output, iter_jsonl, write_atomic
from ..judges import DEFAULT_JUDGE
from ..core.records import GroundlabError
from ..core.weighted import (STRATA, Correction, WeightedRate, _ordered, _pct, corrected_hallucination_rate,  # noqa: F401
                       judge_strata, weighted_rate, weighted_rate_of_counts)

if TYPE_CHECKING:  # imported where used: the labeling module loads the judges
    from ..core.claims import ClaimSplitter
    from ..measure.evaluate import Evaluation

#: Where :func:`write_sample` keeps the design in each sampled case.
SAMPLE_FIELD = "sample"


def strata_table(cases: pd.DataFrame) -> pd.DataFrame:
    """Answers per stratum of the judge's verdict, in the order of :data:`STRATA`.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> strata_table(ev.cases).values.tolist()
    [['contradicted', 3], ['unsupported', 3], ['supported', 4], ['abstained', 2]]
    """
    counts = judge_strata(cases).value_counts()
    names = _ordered(counts.index)
    return pd.DataFrame({"stratum": names, "answers": [int(counts[h]) for h in names]})


def allocate(sizes: Mapping[str, int], n: int,
             shares: Union[str, Mapping[str, float], None] = None) -> Dict[str, int]:
    """How many answers to draw from each stratum.

    ``shares``: ``None`` or ``"equal"`` gives every stratum the same share (so rare flagged
    answers are over-represented); ``"proportional"`` shares by stratum size (no
    over-representation); a mapping gives relative shares by stratum name. Every non-empty
    stratum gets at least one answer, none more than it holds; the seats are apportioned by the
    Huntington-Hill method (the one that gives every US state at least one seat).

    >>> allocate({"contradicted": 3, "unsupported": 40, "supported": 900}, 30)
    {'contradicted': 3, 'unsupported': 14, 'supported': 13}
    """
    sizes = {h: int(size) for h, size in sizes.items() if size > 0}
    if n >= sum(sizes.values()):
        return dict(sizes)
    if n < len(sizes):
        raise GroundlabError(f"a sample of {n} cannot hold one answer from each of the {len(sizes)} strata "
                             f"({', '.join(sizes)}); draw at least {len(sizes)}.")
    if shares is None or shares == "equal":
        weights = {h: 1.0 for h in sizes}
    elif shares == "proportional":
        weights = {h: float(size) for h, size in sizes.items()}
    elif isinstance(shares, Mapping):
        unknown = [h for h in shares if h not in STRATA]
        if unknown:
            raise GroundlabError(f"shares name the stratum {unknown[0]!r}, which does not exist; use "
                                 f"{', '.join(STRATA)}.")
        weights = {h: float(shares.get(h, 0.0)) for h in sizes}
        if any(w < 0 or math.isnan(w) for w in weights.values()) or not any(weights.values()):
            raise GroundlabError("shares must be 0 or more, and at least one stratum in the log must have "
                                 "a share above 0.")
    else:
        raise GroundlabError(f"shares must be 'equal', 'proportional' or a mapping of stratum to share, "
                             f"not {shares!r}.")
    seats = {h: 1 for h in sizes}
    for _ in range(n - len(sizes)):
        open_strata = [h for h in sizes if seats[h] < sizes[h]]
        best = max(open_strata, key=lambda h: weights[h] / math.sqrt(seats[h] * (seats[h] + 1)))
        seats[best] += 1
    return seats


def stratified_sample(cases: pd.DataFrame, n: int, *, strata: Optional[pd.Series] = None,
                      shares: Union[str, Mapping[str, float], None] = None, seed: int = 0) -> pd.DataFrame:
    """Draw ``n`` answers from a case frame, by stratum; the design as a frame.

    Returns one row per drawn case, in the frame's order: ``case_id``, ``stratum``,
    ``population`` (answers of that stratum in the log), ``sampled`` (drawn from it) and
    ``weight`` (``population / sampled``: how many answers of the log each one stands for).
    ``strata`` defaults to :func:`judge_strata`; the same ``seed`` draws the same sample.
    """
    strata = judge_strata(cases) if strata is None else strata.reindex(cases.index)
    sizes = strata.value_counts()
    seats = allocate({h: int(sizes[h]) for h in _ordered(sizes.index)}, n, shares)
    picked = []
    for h, k in seats.items():
        members = strata.index[strata == h]
        picked.extend(members if k >= len(members)
                      else pd.Series(members).sample(n=k, random_state=seed).tolist())
    picked_index = cases.index[cases.index.isin(picked)]
    design = pd.DataFrame({"case_id": cases.loc[picked_index, "case_id"].to_numpy(),
                           "stratum": strata.loc[picked_index].to_numpy()})
    design["population"] = design["stratum"].map(lambda h: int(sizes[h]))
    design["sampled"] = design["stratum"].map(seats)
    design["weight"] = design["population"] / design["sampled"]
    return design


#: Answers without claims a label request draws beside it, so that ``answerable`` gets checked
#: too (they are outside the hallucination rate).
ABSTAINED_DRAWN = 2


def interleave(design: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """The drawn answers in the order a sheet lists them: the strata interleaved, so that the
    first rows of the sheet, however many, are themselves a sample stratified as the whole is
    (the ``k``-th drawn answer of a stratum of ``n`` stands at ``(k + u) / n``, ``u`` a random
    offset per stratum), in random order within each stratum. People may stop at any row.
    """
    import random

    rng = random.Random(f"interleave:{seed}")
    keyed = []
    for stratum, rows in design.groupby("stratum", sort=True):
        index = list(rows.index)
        rng.shuffle(index)
        u = rng.random()
        keyed += [((k + u) / len(index), rng.random(), i) for k, i in enumerate(index)]
    order = [i for _, _, i in sorted(keyed)]
    return design.loc[order].reset_index(drop=True)


def request_sample(evaluation: "Evaluation", *, margin: float = 0.05, budget: Optional[int] = None,
                   seed: int = 0) -> pd.DataFrame:
    """The answers the run's label request asks people to label (``label_request`` of
    :func:`groundlab.summary.score_summary`): for each stratum of the judge's verdict, as many as
    the request gives it, less those already labeled, drawn at random among the unlabeled ones, and
    :data:`ABSTAINED_DRAWN` answers without claims beside them (for ``answerable``); in sheet order
    (:func:`interleave`). On a log whose every answer is labeled there is nothing left to ask for,
    and the sample is the one a first run would have drawn (the sample set's demonstration).

    Returns the design, as :func:`stratified_sample` does (``population`` and ``sampled`` of each
    stratum; ``weight`` the answers of the log each drawn one stands for, counting those labeled
    before).
    """
    from ..measure.counts import counts_of
    from ..measure.summary import label_request

    cases = evaluation.cases
    counts = counts_of(evaluation)
    request = label_request(counts, margin, budget)
    strata = judge_strata(cases)
    labeled = cases["hallucinated_by_person"].notna() & (cases["claims"] > 0)
    wanted = {h: max(0, k - int((labeled & (strata == h)).sum())) for h, k in request["by_stratum"].items()}
    if not any(wanted.values()):  # every answer labeled: draw as a first run would (a demonstration)
        request = label_request(counts, margin, budget, use_labels=False)
        wanted = dict(request["by_stratum"])
        labeled = pd.Series(False, index=cases.index)
    abstained = int((strata == "abstained").sum())
    if abstained:
        wanted["abstained"] = min(ABSTAINED_DRAWN, abstained)
    sizes = strata.value_counts()
    picked = []
    for h, k in wanted.items():
        pool = strata.index[(strata == h) & ~labeled]
        picked.extend(pool if k >= len(pool) else pd.Series(pool).sample(n=k, random_state=seed).tolist())
    design = pd.DataFrame({"case_id": cases.loc[picked, "case_id"].to_numpy(),
                           "stratum": strata.loc[picked].to_numpy()})
    design["population"] = design["stratum"].map(lambda h: int(sizes[h]))
    drawn = design["stratum"].value_counts()
    before = {h: int((labeled & (strata == h)).sum()) for h in drawn.index}
    design["sampled"] = design["stratum"].map(lambda h: int(drawn[h]) + before[h])
    design["weight"] = design["population"] / design["sampled"]
    return interleave(design, seed)


def draw_sample(evaluation: "Evaluation", n: int = 0, *, shares: str = "request", margin: float = 0.05,
                seed: int = 0) -> pd.DataFrame:
    """The sample notebook 04 and ``groundlab run`` draw: with ``shares="request"`` the label
    request's (:func:`request_sample`; ``n`` fixes its size instead of ``±margin``), else ``n``
    answers shared ``"equal"`` or ``"proportional"`` among the strata (:func:`stratified_sample`),
    in sheet order either way."""
    if shares == "request":
        return request_sample(evaluation, margin=margin, budget=n or None, seed=seed)
    if n < 1:
        raise GroundlabError(f"shares {shares!r} draw a fixed number of answers: set n_sample to 1 or more "
                             "(or shares to 'request', which sizes the sample for the precision asked).")
    return interleave(stratified_sample(evaluation.cases, n, shares=shares, seed=seed), seed)


@dataclass(frozen=True)
class LabelProgress:
    """A labeling round read back so far: the hallucination rate the labels give for the whole log
    (``estimate``, weighed by the design's strata; ``None`` with ``reason`` while a stratum has no
    labeled answer), how many answers carry labels, and how many ``more`` would bring its range
    within ``±margin`` (from the labels so far; 0 once it is there)."""

    estimate: Optional[WeightedRate]
    reason: str
    labeled: int
    drawn: int
    more: int
    margin: float
    #: Whether labeling every drawn answer reaches the margin, and the half-width it is expected to reach.
    reachable: bool = True
    best: float = float("nan")
    #: The answers of the log the sample was drawn from (with a claim): the drawn ones are all of
    #: them when it equals ``drawn``.
    population: int = 0

    @property
    def enough(self) -> bool:
        """Whether the range the labels give is within ``±margin``: only then are the labels enough."""
        e = self.estimate
        return e is not None and (e.high - e.low) / 2 <= self.margin

    def __str__(self) -> str:
        points = f"\u00b1{100 * self.margin:g} points"
        if self.estimate is None:
            head = f"the hallucination rate of the log cannot be given yet: {self.reason}"
        else:
            e = self.estimate
            half = (e.high - e.low) / 2
            head = (f"the hallucination rate of the log so far: {_pct(e.rate)} (95% range {_pct(e.low)}\u2013"
                    f"{_pct(e.high)}, \u00b1{100 * half:.0f} points) from {self.labeled} labeled of the "
                    f"{self.drawn} answers drawn")
        if not self.drawn:
            return ("no answer drawn holds a claim, so the labels give no hallucination rate of the log (an answer "
                    "that declines is labeled for whether it could be answered only).")
        if self.enough:
            return f"{head}; that is within {points}: enough labels."
        if self.estimate is not None and self.labeled >= self.drawn:
            reach = f"\u00b1{100 * half:.0f} points"
            if self.population <= self.drawn:  # the sample is the whole log, and every answer is labeled
                return (f"{head}; the log is fully labeled and the margin it reaches is {reach}, not {points}: "
                        "labeling more of this log cannot narrow it (only more answers can).")
            if not self.reachable:
                return (f"{head}; every answer drawn is labeled, and even the whole log of {self.population} labeled "
                        f"would narrow it only to about \u00b1{100 * self.best:.0f} points, not {points}.")
            if self.more:
                return (f"{head}; every answer drawn is labeled; about {self.more} more answers of the log, drawn and "
                        f"labeled, would bring it within {points}.")
        if not self.more:
            return (f"{head}; the labels planned for are in, yet the range is wider than {points}: label more "
                    "answers of the log ('groundlab run' draws the next ones).")
        if not self.reachable:
            return (f"{head}; labeling the other {self.more} would narrow it to about \u00b1{100 * self.best:.0f} points, "
                    f"not {points}: that needs more answers than the log holds.")
        return f"{head}; about {self.more} more labeled answers would bring it within {points}."


def label_progress(records, claims_of, margin: float = 0.05) -> Optional[LabelProgress]:
    """How far the labels of a drawn sample go (:class:`LabelProgress`): ``records`` are the
    sample's case records (each with its design under ``"sample"``), ``claims_of`` gives a record's
    number of claims. ``None`` when the records carry no design (a whole log, not a sample)."""
    from ..core.weighted import plan_labels

    sizes: Dict[str, int] = {}
    counts: Dict[str, list] = {}
    drawn = 0
    for record in records:
        design = record.get(SAMPLE_FIELD)
        if not isinstance(design, dict) or "stratum" not in design or "population" not in design:
            return None
        n = claims_of(record)
        stratum = str(design["stratum"])
        if not n or stratum == "abstained":
            continue
        drawn += 1
        sizes[stratum] = int(design["population"])
        cell = counts.setdefault(stratum, [0, 0])
        labels = record.get("labels")
        if isinstance(labels, list) and len(labels) == n:
            cell[0] += int(any(label != "supported" for label in labels))
            cell[1] += 1
    labeled = sum(n for _, n in counts.values())
    missing = [h for h in sizes if not counts[h][1]]
    estimate, reason = None, ""
    if not labeled:
        reason = "no drawn answer carries labels yet"
    elif missing:
        reason = (f"no labeled answer yet among those the judge found {missing[0]}; the sheet lists them early, so "
                  "label on from the top")
    else:
        estimate = weighted_rate_of_counts([(h, sizes[h], counts[h][1], counts[h][0]) for h in sizes])
    priors = {h: ((x + 0.5) / (n + 1) if n else 0.5) for h, (x, n) in counts.items()}
    plan = plan_labels(sizes, priors, margin) if sizes else None
    if estimate is not None and (estimate.high - estimate.low) / 2 <= margin:
        more = 0
    else:
        more = sum(max(0, k - counts[h][1]) for h, k in plan.by_stratum.items()) if plan else 0
    reachable = plan.reached if plan else True
    if not reachable:
        more = max(0, drawn - labeled)
    return LabelProgress(estimate, reason, labeled, drawn, more, margin, reachable,
                         plan.expected_margin if plan else float("nan"), sum(sizes.values()))


def design_table(design: pd.DataFrame) -> pd.DataFrame:
    """Per stratum: answers in the log, drawn, the share of each, and the weight of a drawn answer.

    >>> import pandas as pd
    >>> d = pd.DataFrame({"case_id": ["a", "b", "c"], "stratum": ["contradicted", "supported", "supported"],
    ...                   "population": [1, 9, 9], "sampled": [1, 2, 2], "weight": [1.0, 4.5, 4.5]})
    >>> design_table(d)[["population", "sampled", "weight"]].loc["supported"].tolist()
    [9.0, 2.0, 4.5]
    """
    table = design.groupby("stratum")[["population", "sampled", "weight"]].first()
    table = table.reindex(_ordered(table.index))
    table.insert(1, "log_share", (table["population"] / table["population"].sum()).round(3))
    table.insert(3, "sample_share", (table["sampled"] / table["sampled"].sum()).round(3))
    table.index.name = "stratum"
    return table


def estimate_hallucination_rate(design: pd.DataFrame, labeled_cases: pd.DataFrame) -> WeightedRate:
    """The person-based hallucination rate of the whole log, from a labeled stratified sample.

    ``design``: from :func:`stratified_sample` or :func:`read_design`; ``labeled_cases``: the case
    frame of the evaluated sample (its ``hallucinated_by_person`` column). Answers without claims
    are outside the rate, as in :func:`groundlab.hallucination_rate`, and so is their stratum.
    """
    frame = design.merge(labeled_cases[["case_id", "claims", "hallucinated_by_person"]], on="case_id",
                         how="left", validate="one_to_one")
    answered = frame[frame["claims"].fillna(0) > 0]
    population = answered.groupby("stratum")["population"].first()
    sizes = {h: int(population[h]) for h in _ordered(population.index)}
    return weighted_rate(answered["hallucinated_by_person"], answered["stratum"], sizes)


def compare_rates(log_cases: pd.DataFrame, labeled_cases: pd.DataFrame, estimate: WeightedRate) -> pd.DataFrame:
    """The hallucination rate three ways: what the judge flags on the whole log (its false alarms in,
    its misses out: not the rate), the person on the sample as drawn (which over-represents the
    strata drawn more often), and the person weighted back to the log (the rate)."""
    from ..core.metrics import hallucination_rate

    judge = hallucination_rate(log_cases)
    plain = hallucination_rate(labeled_cases, by="person")
    rows = [("flagged by the judge, whole log (not the rate)", judge.rate, judge.low, judge.high, judge.total),
            ("person, sample as drawn", plain.rate, plain.low, plain.high, plain.total),
            ("person, weighted to the log", estimate.rate, estimate.low, estimate.high, estimate.labeled)]
    return pd.DataFrame(rows, columns=["hallucination rate", "rate", "low", "high", "answers"]).set_index(
        "hallucination rate").round(3)


def write_sample(cases_path: PathLike, design: pd.DataFrame, out: PathLike, *, force: bool = False) -> Path:
    """Write the drawn cases of ``cases_path`` to ``out``, each as it was plus its design under
    ``"sample"`` (``stratum``, ``population``, ``sampled``, ``weight``), so the weights travel
    with the cases through the labeling sheet and back (:func:`read_design`)."""
    check_output(out, force, [cases_path])
    return write_atomic(out, sample_text(cases_path, design))


def sample_text(cases_path: PathLike, design: pd.DataFrame) -> str:
    """The sample file :func:`write_sample` writes, as text."""
    by_id = {row.case_id: {"stratum": row.stratum, "population": int(row.population),
                           "sampled": int(row.sampled), "weight": float(row.weight)}
             for row in design.itertuples(index=False)}
    lines = {}
    for _, obj in iter_jsonl(cases_path, "cases"):
        if obj.get("id") in by_id:
            lines[obj["id"]] = json_line(dict(obj, **{SAMPLE_FIELD: by_id[obj["id"]]})).rstrip("\n")
    # In the design's order: a sheet drawn by request_sample lists the strata interleaved.
    lines = [lines[cid] for cid in design["case_id"] if cid in lines]
    if len(lines) != len(by_id):
        raise GroundlabError(f"{cases_path} holds {len(lines)} of the {len(by_id)} drawn cases; draw the "
                             "sample from this cases file.")
    return "\n".join(lines) + "\n"


def read_design(path: PathLike) -> pd.DataFrame:
    """The design that :func:`write_sample` stored in a cases file (kept by the label import)."""
    rows = []
    for number, obj in iter_jsonl(path, "cases"):
        sample = obj.get(SAMPLE_FIELD)
        if not isinstance(sample, dict) or not {"stratum", "population", "sampled", "weight"} <= set(sample):
            raise GroundlabError(f"{path} line {number} has no \"{SAMPLE_FIELD}\" design; read the design "
                                 "from the file write_sample made (or one the label import wrote from it).")
        rows.append(dict(case_id=obj.get("id"), **{k: sample[k] for k in ("stratum", "population",
                                                                           "sampled", "weight")}))
    return pd.DataFrame(rows, columns=["case_id", "stratum", "population", "sampled", "weight"])


# ---------------------------------------------------------------- a labeling round, read back


class ReadBack(Protocol):
    """What :func:`weigh_back` needs of a round read back: the labeled sample it wrote (an
    :class:`groundlab.labeling.ImportReport`). This module reads no sheet: the sheet and its
    import stand on it, never the other way round."""

    out: Path


@dataclass(frozen=True)
class SheetWaiting:
    """A labeling round whose sheet has not come back filled yet: the steps that need labels wait."""

    sheet: Path

    def __str__(self) -> str:
        return (f"The sheet {self.sheet} is waiting to be filled: hand a copy to the people who label, and when "
                "it comes back run again with filled_sheet set to it. Reading labels back and comparing with "
                "the judge wait until then.")

    __repr__ = __str__


@dataclass(frozen=True)
class LabeledSample:
    """A labeling round read back: the labeled sample judged (``evaluation``), the person-based
    rate weighted back to the log (``estimate``) and the rate three ways (``rates``,
    :func:`compare_rates`). Shows itself as the estimate, its strata and the three rates."""

    evaluation: "Evaluation"
    estimate: WeightedRate
    rates: pd.DataFrame

    def __str__(self) -> str:
        return "\n\n".join([f"the person, weighted to the log: {self.estimate}",
                             self.estimate.by_stratum.to_string(index=False), self.rates.to_string()])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        import html

        from ..present.tables import table

        by_stratum = table(self.estimate.by_stratum).format({"rate": "{:.0%}", "share": "{:.1%}"})
        return (f"<p>The person, weighted to the log: {html.escape(str(self.estimate))}.</p>"
                "<p>Per stratum: answers in the log, labeled, and flagged by the person.</p>"
                f"{by_stratum.to_html()}<p>The hallucination rate three ways:</p>"
                f"{table(self.rates, percents=('rate', 'low', 'high')).to_html()}")


def weigh_back(log_cases: pd.DataFrame, read: Union[ReadBack, "SheetWaiting"], judge: Any = DEFAULT_JUDGE,
               passages: Optional[PathLike] = None, splitter: Optional["ClaimSplitter"] = None
               ) -> Union[LabeledSample, "SheetWaiting"]:
    """The labeled sample of a round, judged and weighed back to the log (:class:`LabeledSample`).

    ``log_cases``: the case frame of the whole log, judged; ``read``: what
    :func:`groundlab.labeling.read_back` gave; ``judge``: a judge's name or the judge itself (the
    one that judged the log, behind its data policy: ``JudgeComparison.judge``). While the sheet is waiting to be filled, that
    note is returned as it is: there is nothing to weigh yet.
    """
    from ..measure.evaluate import evaluate
    from ..core.io import load_cases

    if isinstance(read, SheetWaiting):
        return read
    labeled = evaluate(load_cases(read.out, passages or None), judge, splitter=splitter)
    estimate = estimate_hallucination_rate(read_design(read.out), labeled.cases)
    return LabeledSample(labeled, estimate, compare_rates(log_cases, labeled.cases, estimate))


def judge_on_sample(result: Union[LabeledSample, "SheetWaiting"]):
    """The judge against the person on the labeled sample: every claim where they differ, with the
    judge's reason, under a caption with agreement, caught and false alarms (each with its
    Wilson 95% range). While the sheet is waiting to be filled, that note instead."""
    import warnings

    from ..core.metrics import agreement, disagreements
    from ..core.stats import UndefinedRateWarning

    if isinstance(result, SheetWaiting):
        return result
    ev = result.evaluation
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)  # a rate over nothing says so itself
        a = agreement(ev.claims, ev.cases)
    caption = "; ".join(f"{name} {rate.with_range()}" for name, rate in
                        (("agreement", a.agreement), ("caught", a.caught), ("false alarms", a.false_alarms)))
    from ..present.tables import table

    return table(disagreements(ev.claims), caption=caption)
