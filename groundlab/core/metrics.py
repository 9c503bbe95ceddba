"""The measures groundlab reports, as plain functions over the frames of :func:`groundlab.evaluate`.

Claims the judge could not decide (``verdict`` is ``None``, ``error`` says why) are left out of
every rate and counted by :func:`verdict_counts`. A rate over nothing is NaN with a warning.

>>> from groundlab import evaluate, load_cases, sample_path
>>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "lexical")
>>> str(hallucination_rate(ev.cases)), risk_weighted_score(ev.cases, penalty=3)
('5/10 = 50%', -10.0)
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Dict, List, Optional

import pandas as pd

from .records import VERDICTS, GroundlabError
from .stats import MAX_COST, Rate, UndefinedRateWarning, check_cost, make_rate  # noqa: F401 (MAX_COST: named here too)


def _judged(claims: pd.DataFrame) -> pd.DataFrame:
    return claims[claims["verdict"].notna()]


def verdict_counts(claims: pd.DataFrame) -> Dict[str, int]:
    """Claims per verdict, plus ``errors`` (claims the judge could not decide)."""
    counts = claims["verdict"].value_counts()
    out = {v: int(counts.get(v, 0)) for v in VERDICTS}
    out["errors"] = int(claims["verdict"].isna().sum())
    return out


def faithfulness(claims: pd.DataFrame) -> Rate:
    """Supported claims / judged claims (Ragas faithfulness)."""
    judged = _judged(claims)
    return make_rate((judged["verdict"] == "supported").sum(), len(judged), "faithfulness")


def hallucination_rate(cases: pd.DataFrame, by: str = "judge") -> Rate:
    """Answered cases with at least one claim not supported / answered cases.

    ``by="person"`` uses the person's labels instead of the judge (labeled cases only).
    """
    column = {"judge": "hallucinated", "person": "hallucinated_by_person"}.get(by)
    if column is None:
        raise ValueError(f"by must be 'judge' or 'person', not {by!r}")
    flags = cases.loc[cases["claims"] > 0, column].dropna()
    return make_rate(int(flags.sum()), len(flags), f"hallucination rate by {by}")


def citation_recall(claims: pd.DataFrame) -> Rate:
    """Over claims the judge found supported: the share whose cited passages alone back them (ALCE).

    When no claim cites anything (answers that were never asked to cite, as in many logs) the
    rate does not apply (NaN rather than a misleading 0%), but it still counts 0 of the supported
    claims, so that it adds up with another shard's (``Rate.applies`` is False).

    >>> import pandas as pd
    >>> claims = pd.DataFrame({"verdict": ["supported", "supported"], "citations": [0, 0],
    ...                        "citation_ok": pd.array([False, False], dtype="boolean")})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = citation_recall(claims)
    >>> (r.count, r.total, r.applies), str(r)
    ((0, 2, False), '0/2 (n/a)')
    """
    supported = claims[(claims["verdict"] == "supported") & claims["citation_ok"].notna()]
    if not _judged(claims)["citations"].any():
        warnings.warn("citation recall does not apply: no claim cites a passage", UndefinedRateWarning, stacklevel=2)
        return Rate(0, len(supported), applies=False)
    return make_rate(int(supported["citation_ok"].sum()), len(supported), "citation recall")


def citation_precision(claims: pd.DataFrame) -> Rate:
    """Relevant citations / all citations (ALCE), over claims whose citation check was decided."""
    judged = _judged(claims)
    judged = judged[judged["citation_ok"].notna()]
    return make_rate(int(judged["relevant_citations"].sum()), int(judged["citations"].sum()),
                     "citation precision")


def citations_undecided(claims: pd.DataFrame) -> int:
    """Judged claims with citations whose citation check is undecided (``citation_ok`` is NA): a
    model judge found the claim supported but named no retrieved passage behind it, or a judgement
    of the cited passages failed. They are left out of citation recall and precision: not the
    assistant's failure, and not its success."""
    judged = _judged(claims)
    return int((judged["citation_ok"].isna() & (judged["citations"] > 0)).sum())


def citation_problems(claims: pd.DataFrame) -> pd.DataFrame:
    """Claims the judge found supported whose citations do not back them."""
    mask = (claims["verdict"] == "supported") & (claims["citation_ok"] == False)  # noqa: E712 (NA-aware)
    return claims.loc[mask.fillna(False), ["case_id", "claim", "text", "cites", "reason"]]


def abstention_rate(cases: pd.DataFrame) -> Rate:
    """Unanswerable cases that abstained / unanswerable cases."""
    unanswerable = cases[cases["answerable"] == False]  # noqa: E712 (NA-aware)
    return make_rate(int(unanswerable["abstained"].sum()), len(unanswerable), "abstention")


def false_abstention_rate(cases: pd.DataFrame) -> Rate:
    """Answerable cases that abstained / answerable cases."""
    answerable = cases[cases["answerable"] == True]  # noqa: E712 (NA-aware)
    return make_rate(int(answerable["abstained"].sum()), len(answerable), "false abstention")


def outcomes(cases: pd.DataFrame, *, withhold_flagged: bool = False, by: str = "judge") -> Dict[str, int]:
    """Counts of ``correct`` / ``abstained`` / ``wrong`` cases (cases left open by judge errors are not counted).

    ``withhold_flagged=True`` gives the outcomes of the same assistant had it abstained on every
    answer the judge flags (a claim not supported): what a control that hides such answers buys.

    ``by="person"`` scores each answer by the person's labels instead of the judge: ``wrong`` when
    the person found a claim not supported or the question cannot be answered from the passages,
    else ``correct``; answers without labels are left out. Withholding still follows the judge's
    flags, so an answer it flags wrongly is a correct answer lost and one it misses stays wrong.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "lexical")
    >>> outcomes(ev.cases, withhold_flagged=True), outcomes(ev.cases, withhold_flagged=True, by="person")
    ({'correct': 5, 'abstained': 7, 'wrong': 0}, {'correct': 4, 'abstained': 7, 'wrong': 1})
    """
    if by == "judge":
        outcome = cases["outcome"]
    elif by == "person":
        outcome = person_outcome(cases)
    else:
        raise ValueError(f"by must be 'judge' or 'person', not {by!r}")
    if withhold_flagged:
        flagged = cases["hallucinated"].fillna(False).to_numpy(dtype=bool)
        outcome = outcome.mask(flagged & outcome.notna().to_numpy(), "abstained")
    counts = outcome.value_counts()
    return {k: int(counts.get(k, 0)) for k in ("correct", "abstained", "wrong")}


def person_outcome(cases: pd.DataFrame) -> pd.Series:
    """Each case's outcome by the person's labels: ``abstained`` (no claims), ``wrong`` (a claim the
    person found not supported, or an answer to a question the passages cannot answer),
    ``correct``, or ``None`` for an answer without labels."""
    by_person = cases["hallucinated_by_person"]
    wrong = (by_person == True) | (cases["answerable"] == False)  # noqa: E712 (NA-aware)
    outcome = pd.Series(None, index=cases.index, dtype=object)
    labeled = by_person.notna().to_numpy()
    outcome[labeled] = "correct"
    outcome[labeled & wrong.fillna(False).to_numpy(dtype=bool)] = "wrong"
    outcome[cases["claims"].to_numpy() == 0] = "abstained"
    return outcome


def has_person_labels(cases: pd.DataFrame) -> bool:
    """Whether any answer (a case with claims) carries a person's labels."""
    return bool(cases["hallucinated_by_person"].notna().any())


def accuracy_score(cases: pd.DataFrame) -> Rate:
    """Correct / cases: the score that makes a wrong answer cost nothing."""
    decided = cases["outcome"].notna()
    return make_rate(int((cases["outcome"] == "correct").sum()), int(decided.sum()), "accuracy")


def penalty_for_confidence(target: float) -> float:
    """The penalty that makes answering pay only above confidence ``target``: t / (1 − t).

    >>> penalty_for_confidence(0.75)
    3.0
    """
    if not 0 < target < 1:
        raise GroundlabError(f"the confidence target must be between 0 and 1 (exclusive), not {target}; "
                             "e.g. 0.75 for a penalty of 3.")
    return target / (1 - target)


def risk_weighted_score(cases: pd.DataFrame, penalty: float = 1.0, *, withhold_flagged: bool = False,
                        by: str = "judge") -> float:
    """correct − penalty × wrong; an abstention scores 0.

    ``withhold_flagged=True``: the score had the assistant abstained on the answers the judge flags;
    ``by="person"``: scored by the person's labels (see :func:`outcomes`).

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "rules")
    >>> risk_weighted_score(ev.cases, 3), risk_weighted_score(ev.cases, 3, withhold_flagged=True)
    (-14.0, 4.0)
    """
    if penalty < 0 or math.isnan(penalty):
        raise GroundlabError(f"the penalty must be 0 or more, not {penalty}; a wrong answer costs "
                             "that many correct ones (3 matches a 75% confidence target).")
    check_cost(penalty)
    counts = outcomes(cases, withhold_flagged=withhold_flagged, by=by)
    return float(counts["correct"] - penalty * counts["wrong"])


# ---------------------------------------------------------------- severity: by kind and by process

#: The label of the cases that carry no ``process`` in a breakdown by process.
NO_PROCESS = "(no process)"

BREAKDOWN_COLUMNS = ["by", "group", "process", "kind", "unit", "hallucinated", "total", "rate", "low", "high"]


def claim_hallucination_rate(claims: pd.DataFrame) -> Rate:
    """Judged claims that are not supported / judged claims: the rate per claim that the breakdown
    by kind uses (the hallucination rate proper counts answers)."""
    judged = _judged(claims)
    return make_rate(int((judged["verdict"] != "supported").sum()), len(judged), "claim hallucination rate")


def claims_of_kind(claims: pd.DataFrame, kind: str) -> pd.Series:
    """Which claims state ``kind`` (among all the kinds they state, not only the most severe)."""
    return claims["kinds"].map(lambda kinds: kind in kinds).astype(bool)


def claim_process(claims: pd.DataFrame, cases: pd.DataFrame) -> pd.Series:
    """The ``process`` of each claim's case (``None`` where the case has none)."""
    return claims["case_id"].map(cases.set_index("case_id")["process"]).astype(object)


def _row(by: str, group: str, process, kind, unit: str, rate: Rate) -> dict:
    low, high = rate.interval
    return {"by": by, "group": group, "process": process, "kind": kind, "unit": unit,
            "hallucinated": rate.count, "total": rate.total, "rate": rate.rate, "low": low, "high": high}


def hallucination_breakdown(claims: pd.DataFrame, cases: pd.DataFrame, *,
                            by: tuple = ("kind", "process")) -> pd.DataFrame:
    """The hallucinated share by kind of claim and by process, each with its Wilson 95% range: a
    tidy frame, one row per group (columns :data:`BREAKDOWN_COLUMNS`).

    - ``by="kind"``: per kind (:data:`groundlab.kinds.KINDS` order), judged claims stating that
      kind that are not supported / judged claims stating it (``unit`` ``claims``). A claim that
      states several kinds counts in the row of each (an invoice id with an amount is both an id
      and an amount claim), so the rows may add up to more than the claims.
    - ``by="process"``: per process (by name; :data:`NO_PROCESS` for cases without one, shown only
      when some case has one), the hallucination rate of its answers: answered cases with a claim
      not supported / answered cases (``unit`` ``answers``), as :func:`hallucination_rate`.
    - ``by="process kind"``: per process and kind, claims as for ``kind``.

    Groups with nothing to count are left out. Claims the judge could not decide are left out, as
    everywhere.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "rules")
    >>> hallucination_breakdown(ev.claims, ev.cases)[["group", "hallucinated", "total"]].values.tolist()
    [['id', 1, 2], ['date', 2, 2], ['quantity', 2, 6], ['other', 3, 11]]
    """
    from .kinds import KINDS

    unknown = [b for b in by if b not in ("kind", "process", "process kind")]
    if unknown:
        raise ValueError(f"by must name 'kind', 'process' or 'process kind', not {unknown[0]!r}")
    rows: List[dict] = []
    judged = _judged(claims)
    flagged = judged["verdict"] != "supported"
    exploded = pd.DataFrame({"kind": judged["kinds"], "flag": flagged}).explode("kind")
    has_process = cases["process"].notna().any()
    if "kind" in by:
        counts = exploded.groupby("kind")["flag"].agg(["sum", "size"])
        for kind in KINDS:
            if kind in counts.index:
                rate = Rate(int(counts.loc[kind, "sum"]), int(counts.loc[kind, "size"]))
                rows.append(_row("kind", kind, None, kind, "claims", rate))
    if "process" in by and has_process:
        answered = cases[cases["claims"] > 0]
        flags = answered["hallucinated"]
        process = answered["process"].fillna(NO_PROCESS)
        for name in _process_order(process):
            mine = flags[process == name].dropna()
            if len(mine):
                rows.append(_row("process", name, None if name == NO_PROCESS else name, None, "answers",
                                 Rate(int(mine.sum()), len(mine))))
    if "process kind" in by and has_process:
        exploded["process"] = claim_process(judged, cases).fillna(NO_PROCESS).reindex(exploded.index)
        counts = exploded.groupby(["process", "kind"])["flag"].agg(["sum", "size"])
        for name in _process_order(exploded["process"]):
            for kind in KINDS:
                if (name, kind) in counts.index:
                    rate = Rate(int(counts.loc[(name, kind), "sum"]), int(counts.loc[(name, kind), "size"]))
                    rows.append(_row("process kind", f"{name} / {kind}", None if name == NO_PROCESS else name,
                                     kind, "claims", rate))
    return pd.DataFrame(rows, columns=BREAKDOWN_COLUMNS)


def _process_order(process: pd.Series) -> List[str]:
    names = sorted(set(process) - {NO_PROCESS}, key=str)
    return names + ([NO_PROCESS] if NO_PROCESS in set(process) else [])


def claim_weights(claims: pd.DataFrame, weights: Dict[str, float]) -> pd.Series:
    """Each claim's weight: the largest weight among the kinds it states (a kind not in
    ``weights`` weighs 1)."""
    table = {kinds: max(float(weights.get(k, 1.0)) for k in kinds) for kinds in set(claims["kinds"])}
    return pd.Series([table[kinds] for kinds in claims["kinds"]], index=claims.index, dtype=float)


def answer_weights(claims: pd.DataFrame, cases: pd.DataFrame, weights: Dict[str, float]) -> pd.Series:
    """Per case (aligned with ``cases``): what a wrong answer of that case weighs in
    :func:`weighted_risk_score`: the largest weight among its claims the judge did not find
    supported; when there is none (a confident answer to a question the passages can't answer),
    the largest among all its claims; 1 for a case without claims (never wrong)."""
    w = claim_weights(claims, weights)
    flagged = claims["verdict"].isin(("contradicted", "unsupported"))
    heaviest_flagged = w[flagged].groupby(claims.loc[flagged, "case_id"]).max()
    heaviest = w.groupby(claims["case_id"]).max()
    by_case = heaviest_flagged.combine_first(heaviest)
    return cases["case_id"].map(by_case).fillna(1.0).astype(float)


def weighted_risk_score(claims: pd.DataFrame, cases: pd.DataFrame, weights: Dict[str, float],
                        penalty: float = 1.0, *, withhold_flagged: bool = False) -> float:
    """correct − penalty × the sum, over wrong answers, of each one's weight (:func:`answer_weights`).

    The plain :func:`risk_weighted_score` counts every wrong answer as 1; here a wrong answer
    weighs as much as the most severe kind of fact it got wrong, so with ``{"amount": 5}`` an
    answer with a wrong amount costs five times a vague one. With every weight 1 both agree.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "rules")
    >>> weights = {"id": 2, "date": 3}
    >>> weighted_risk_score(ev.claims, ev.cases, {}, 3), weighted_risk_score(ev.claims, ev.cases, weights, 3)
    (-14.0, -29.0)
    """
    if penalty < 0 or math.isnan(penalty):
        raise GroundlabError(f"the penalty must be 0 or more, not {penalty}; a wrong answer costs "
                             "that many correct ones (3 matches a 75% confidence target).")
    check_cost(penalty, weights)
    outcome = cases["outcome"]
    if withhold_flagged:
        outcome = outcome.mask(cases["hallucinated"].fillna(False).to_numpy(dtype=bool), "abstained")
    wrong = (outcome == "wrong").to_numpy(dtype=bool)
    weight = answer_weights(claims, cases, weights).to_numpy()
    return float((outcome == "correct").sum() - penalty * weight[wrong].sum())


@dataclass(frozen=True)
class Agreement:
    """How a judge compares with a person's labels, over the labeled claims.

    ``confusion[i][j]``: claims the person labeled ``order[i]`` and the judge ``order[j]``.
    ``caught``: claims the person found not supported that the judge also flagged.
    ``false_alarms``: claims the person found supported that the judge flagged.
    """

    order: List[str]
    confusion: List[List[int]]
    agreement: Rate
    caught: Rate
    false_alarms: Rate
    kappa: float
    unlabeled_cases: int
    errors: int

    @property
    def labeled_claims(self) -> int:
        return self.agreement.total


def agreement(claims: pd.DataFrame, cases: Optional[pd.DataFrame] = None) -> Agreement:
    """Confusion matrix person × judge, exact agreement, caught, false alarms and Cohen's kappa.

    Claims without a person's label are skipped; ``unlabeled_cases`` says how many cases that was
    (given ``cases``). Claims the judge could not decide are skipped and counted in ``errors``.
    """
    labeled = claims[claims["label"].notna()]
    errors = int(labeled["verdict"].isna().sum())
    labeled = labeled[labeled["verdict"].notna()]
    index = {v: k for k, v in enumerate(VERDICTS)}
    matrix = [[0, 0, 0] for _ in VERDICTS]
    for person, judged in zip(labeled["label"], labeled["verdict"]):
        matrix[index[person]][index[judged]] += 1
    agree = sum(matrix[k][k] for k in range(3))
    total = sum(map(sum, matrix))
    person_flagged = sum(matrix[1]) + sum(matrix[2])
    caught = sum(matrix[i][j] for i in (1, 2) for j in (1, 2))
    person_supported = sum(matrix[0])
    if cases is not None:
        unlabeled = int((~cases["labeled"]).sum())
    else:
        unlabeled = 0
    return Agreement(
        order=list(VERDICTS),
        confusion=matrix,
        agreement=make_rate(agree, total, "agreement"),
        caught=make_rate(caught, person_flagged, "hallucinated claims caught"),
        false_alarms=make_rate(matrix[0][1] + matrix[0][2], person_supported, "false alarms"),
        kappa=cohens_kappa(matrix),
        unlabeled_cases=unlabeled,
        errors=errors,
    )


def cohens_kappa(matrix: List[List[int]]) -> float:
    """Cohen's kappa of a square confusion matrix (statsmodels); NaN when it is undefined."""
    total = sum(map(sum, matrix))
    if total == 0:
        return math.nan
    n = len(matrix)
    expected = sum(sum(matrix[k]) * sum(row[k] for row in matrix) for k in range(n)) / total ** 2
    if expected == 1:
        return math.nan  # both raters used one and the same verdict throughout
    from statsmodels.stats.inter_rater import cohens_kappa as _kappa

    with warnings.catch_warnings():  # its z statistic divides by zero on tiny tables; kappa is fine
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(_kappa(matrix).kappa)


def disagreements(claims: pd.DataFrame) -> pd.DataFrame:
    """Claims where the person's label and the judge's verdict differ, with the judge's reason."""
    mask = claims["label"].notna() & claims["verdict"].notna() & (claims["label"] != claims["verdict"])
    frame = claims.loc[mask, ["case_id", "claim", "text", "label", "verdict", "reason"]]
    return frame.rename(columns={"label": "person", "verdict": "judge"})


@dataclass(frozen=True)
class Flips:
    """How a judge's verdicts moved between runs on the same claims.

    ``rate``: claims whose verdict changed / claims judged in every run. ``errors``: claims some run
    could not decide (left out of the rate). ``flipped``: those claims, one row each, with the
    verdict of every run in ``verdicts``.
    """

    rate: Rate
    errors: int
    flipped: pd.DataFrame


def flip_rate(runs: List[pd.DataFrame]) -> Flips:
    """Judge non-determinism: the share of claims whose verdict differs between runs.

    ``runs`` are the claim frames of two or more evaluations of the same cases.

    >>> a = pd.DataFrame({"case_id": ["c1", "c1"], "claim": [1, 2], "text": ["x", "y"],
    ...                   "verdict": ["supported", None]})
    >>> b = a.assign(verdict=["unsupported", "supported"])
    >>> f = flip_rate([a, b])
    >>> str(f.rate), f.errors
    ('1/1 = 100%', 1)
    """
    if len(runs) < 2:
        raise ValueError("flip_rate needs the claim frames of at least two runs")
    keys = list(zip(runs[0]["case_id"], runs[0]["claim"]))
    for k, run in enumerate(runs[1:], 2):
        if list(zip(run["case_id"], run["claim"])) != keys:
            raise ValueError(f"run {k} judged other claims than run 1; compare runs over the same cases")
    verdicts = list(zip(*(run["verdict"].tolist() for run in runs)))
    undecided = [any(v is None or v != v for v in row) for row in verdicts]
    changed = [not u and len(set(row)) > 1 for row, u in zip(verdicts, undecided)]
    flipped = runs[0].loc[changed, ["case_id", "claim", "text"]].assign(
        verdicts=[row for row, c in zip(verdicts, changed) if c])
    return Flips(make_rate(sum(changed), len(keys) - sum(undecided), "flip rate"), sum(undecided), flipped)
