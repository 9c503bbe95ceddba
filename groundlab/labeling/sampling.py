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

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Union

import pandas as pd

from ..core.io import PathLike, check_output, iter_jsonl, write_atomic
from ..judges import DEFAULT_JUDGE
from ..core.records import GroundlabError
from ..core.weighted import (STRATA, Correction, WeightedRate, _ordered, _pct, corrected_hallucination_rate,  # noqa: F401
                       judge_strata, weighted_rate, weighted_rate_of_counts)

if TYPE_CHECKING:  # imported where used: the labeling module loads the judges
    from ..core.claims import ClaimSplitter
    from ..core.evaluate import Evaluation
    from .sheet import ImportReport

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
    """The hallucination rate three ways: the judge on the whole log, the person on the sample as
    drawn (over-represents flagged answers), and the person weighted back to the log."""
    from ..core.metrics import hallucination_rate

    judge = hallucination_rate(log_cases)
    plain = hallucination_rate(labeled_cases, by="person")
    rows = [("judge, whole log", judge.rate, judge.low, judge.high, judge.total),
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
    lines = []
    for _, obj in iter_jsonl(cases_path, "cases"):
        if obj.get("id") in by_id:
            lines.append(json.dumps(dict(obj, **{SAMPLE_FIELD: by_id[obj["id"]]}), ensure_ascii=False))
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


def weigh_back(log_cases: pd.DataFrame, read: Union["ImportReport", "SheetWaiting"], judge: Any = DEFAULT_JUDGE,
               passages: Optional[PathLike] = None, splitter: Optional["ClaimSplitter"] = None
               ) -> Union[LabeledSample, "SheetWaiting"]:
    """The labeled sample of a round, judged and weighed back to the log (:class:`LabeledSample`).

    ``log_cases``: the case frame of the whole log, judged; ``read``: what
    :func:`groundlab.labeling.read_back` gave; ``judge``: a judge's name or the judge itself (the
    one that judged the log, behind its data policy: ``JudgeComparison.judge``). While the sheet is waiting to be filled, that
    note is returned as it is: there is nothing to weigh yet.
    """
    from ..core.evaluate import evaluate
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
