"""Every figure of a run, computed once from its counts (:func:`summary_of_counts`): the rates with
their ranges, people's hallucination rate beside what the judge flags, the labels that would
settle it, the risk-weighted score, the answers a precision needs. ``score --json`` prints it;
the report, its tiles and charts, the slides, ``score``, ``merge`` and the notebooks read it
(:mod:`groundlab.summary` gives it for an evaluation)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional

from ..core.languages import across_languages
from ..core.stats import Rate

if TYPE_CHECKING:  # pragma: no cover
    from .counts import Counts


def figure_value(x: Optional[float]) -> Optional[float]:
    """A figure for JSON: ``None`` for an undefined one (NaN)."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def rate_figures(rate: Rate, count: str = "count", total: str = "total") -> Dict[str, Any]:
    """A rate's count and total under their own names, then ``rate``, ``low`` and ``high`` (its
    Wilson 95% range); the last three are ``None`` when the rate is over nothing."""
    low, high = rate.interval if rate.defined else (None, None)
    return {count: rate.count, total: rate.total, "rate": figure_value(rate.rate), "low": figure_value(low),
            "high": figure_value(high)}


#: How precise a headline must be before the report stops asking for more answers or labels: ±5 points.
MARGIN = 0.05

#: Seconds a person takes to label one claim, for the label request's time: measured on the
#: sample set, whose answers carry 2 claims and 60 words of passages each, at 230 words a minute of
#: reading (the passages once an answer, each claim once) and 15 seconds to decide each claim.
#: Passages longer than the sample set's take longer: the report says what it assumed.
SECONDS_PER_CLAIM = 26

#: The figures of the label request a gate may name (it is there while some answer is unlabeled).
LABEL_REQUEST_FIGURES = ("answers", "labeled", "more", "answered", "margin", "expected_margin", "minutes",
                         "seconds_per_claim", "budget", "expected_rate")

#: The numbers of ``groundlab score --json`` by dotted name, what ``score --fail-if`` and
#: :mod:`groundlab.gate` may name. ``hallucination_rate`` is people's: by their labels on every
#: answer, or the judge's flags corrected by their labels on some; ``null`` until some answers
#: carry labels (``flagged_by_judge`` is the judge's own share, always there).
SCORE_FIGURES = tuple(
    ["cases", "claims", "penalty", "risk_weighted_score", "risk_weighted.answers", "risk_weighted.per_100",
     "risk_weighted.by_person.total", "risk_weighted.by_person.per_100", "contradicted", "unsupported", "errors",
     "errors_across_languages", "margin"]
    + [f"risk_weighted.by_person.outcomes.{k}" for k in ("correct", "abstained", "wrong")]
    + [f"label_request.{k}" for k in LABEL_REQUEST_FIGURES]
    + [f"{group}.{field}" for group, count, total in (
        ("faithfulness", "supported", "claims"),
        ("flagged_by_judge", "flagged", "answered"),
        ("hallucination_rate", "hallucinated", "answered"),
        ("hallucination_rate_by_person", "hallucinated", "answered"),
        ("hallucination_rate_corrected", "labeled", "answered"),
        ("citation_recall", "backed", "supported"),
        ("citation_precision", "relevant", "citations"),
        ("abstention", "abstained", "unanswerable"),
        ("false_abstention", "abstained", "answerable"),
        ("accuracy_score", "correct", "cases"),
    ) for field in (count, total, "rate", "low", "high")]
    + ["hallucination_rate.labeled"]
    + [f"outcomes.{k}" for k in ("correct", "abstained", "wrong")]
    + [f"answers_needed.{k}" for k in ("hallucination_rate", "false_abstention", "citation_precision")])


def summary_of_counts(counts: "Counts", penalty: float = 1.0, *, margin: float = MARGIN,
                      label_budget: Optional[int] = None) -> Dict[str, Any]:
    """Every figure of a run, from its counts: rates as fractions, each with ``low`` and ``high``
    (its Wilson 95% range), ``None`` when undefined. The one place each figure is computed: the
    report, its tiles and charts, the slides, ``score``, ``score --json``, ``merge`` and the
    notebooks read it from here.

    - ``flagged_by_judge``: answers with a claim the judge did not find supported, over answered
      ones: the judge's flags, not the hallucination rate (at a low base rate its false alarms
      outnumber what it catches).
    - ``hallucination_rate``: people's (:func:`headline_rate`): ``basis`` ``"people"`` (labels on
      every answer), ``"corrected"`` (the judge's strata weighed by labels on some) or ``None`` with
      ``rate`` null and a ``reason`` while no answer carries labels.
    - ``label_request``: the labels that would settle it (:func:`label_request`), while some
      answer is unlabeled.
    - ``risk_weighted_score``: correct − penalty × wrong over the run, by the judge's verdicts;
      ``risk_weighted``: the same per 100 answers, and by people's labels when every answer carries
      them (``by_person``).
    - ``answers_needed``: for each headline, the answers a ±``margin`` range needs at its rate (a
      simple random sample; the hallucination rate's only when people labeled every answer).
    """
    from ..core.stats import Rate, check_cost

    check_cost(penalty)  # a score past what a number holds is no figure, and JSON cannot write it
    o = counts.outcomes()
    supported, judged = counts.get("faithfulness")
    precision = counts.rate("citation_precision")
    if precision.total:
        recall = rate_figures(counts.rate("citation_recall"), "backed", "supported")
    else:
        recall = {"backed": 0, "supported": supported, "rate": None, "low": None, "high": None}
    by_person = counts.rate("hallucination_rate_by_person")
    flagged = counts.rate("hallucination_rate")
    corrected = _corrected(counts) if counts.count("labeled_cases") else None
    headline = headline_rate(counts, corrected)
    people_outcomes = {k: counts.count("outcomes_by_person", k) for k in ("correct", "abstained", "wrong")}
    every_labeled = bool(flagged.total) and by_person.total == flagged.total
    false_abstention = counts.rate("false_abstention")
    answers = sum(o.values())
    out: Dict[str, Any] = {
        "judge": counts.judge,
        "cases": counts.count("cases"),
        "claims": counts.count("claims"),
        "penalty": float(penalty),
        "risk_weighted_score": float(o["correct"] - penalty * o["wrong"]),
        "faithfulness": rate_figures(Rate(supported, judged), "supported", "claims"),
        "contradicted": counts.count("contradicted"),
        "unsupported": counts.count("unsupported"),
        "errors": counts.count("judge_errors"),
        "hallucination_rate": headline,
        "hallucination_rate_by_person": (rate_figures(by_person, "hallucinated", "answered")
                                         if by_person.total else None),
        "citation_recall": recall,
        "citation_precision": rate_figures(precision, "relevant", "citations"),
        "abstention": rate_figures(counts.rate("abstention"), "abstained", "unanswerable"),
        "false_abstention": rate_figures(false_abstention, "abstained", "answerable"),
        "outcomes": o,
        "accuracy_score": rate_figures(counts.accuracy(), "correct", "cases"),
        "judge_identity": counts.identity,
    }
    if corrected is not None:
        out["hallucination_rate_corrected"] = corrected
    out["flagged_by_judge"] = rate_figures(flagged, "flagged", "answered")
    out["risk_weighted"] = {
        "answers": answers, "per_100": per_100(o, penalty),
        "by_person": ({"total": float(people_outcomes["correct"] - penalty * people_outcomes["wrong"]),
                       "per_100": per_100(people_outcomes, penalty), "outcomes": people_outcomes}
                      if every_labeled else None)}
    out["margin"] = margin
    out["answers_needed"] = {
        "hallucination_rate": needed(headline["rate"], margin) if headline["basis"] == "people" else None,
        "false_abstention": needed(false_abstention.rate, margin) if false_abstention.total else None,
        "citation_precision": needed(precision.rate, margin) if precision.total else None,
    }
    # of the errors, claims in another language than their passages that too few words carried across
    out["errors_across_languages"] = across_languages(counts.errors)
    if flagged.total and by_person.total < flagged.total:
        out["label_request"] = label_request(counts, margin, label_budget)
    if counts.count("held_back") or "data_policy" in (counts.identity or {}):
        held, unjudged = counts.count("held_back"), counts.count("held_back_unjudged")
        out["held_back"] = {"cases": held, "judged_instead": held - unjudged, "unjudged": unjudged}
    if counts.count("origin_cases"):
        out["incidents"] = {
            "cases": counts.count("incidents"),
            "hallucination_rate": rate_figures(counts.rate("incident_hallucination_rate"), "hallucinated",
                                               "answered"),
            "hallucination_rate_by_person": rate_figures(counts.rate("incident_hallucination_rate_by_person"),
                                                         "hallucinated", "answered")}
    return out


def per_100(outcomes: Dict[str, int], penalty: float) -> Optional[float]:
    """The risk-weighted score per 100 answers scored: ``100 (correct − penalty × wrong) / answers``
    (an abstention scores 0); ``None`` over no answer.

    >>> per_100({"correct": 4, "abstained": 2, "wrong": 6}, 1.0)
    -16.666666666666668
    """
    answers = sum(outcomes.values())
    if not answers:
        return None
    return 100.0 * (outcomes["correct"] - penalty * outcomes["wrong"]) / answers


def needed(rate: Optional[float], margin: float = MARGIN) -> Optional[int]:
    """The answers a ±``margin`` Wilson range needs at ``rate`` (held within 2% and 98%, where a
    rate of 0 or 1 would claim that a handful is enough); ``None`` for an undefined rate.

    >>> needed(0.5), needed(0.6), needed(0.0)
    (381, 366, 52)
    """
    from ..core.stats import answers_needed

    if rate is None or rate != rate:
        return None
    return answers_needed(min(max(rate, 0.02), 0.98), margin)


def headline_rate(counts: "Counts", corrected: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The hallucination rate as people would find it: by their labels when every answered case
    carries them (``basis`` ``"people"``); else the judge's strata weighed by the labels some carry
    (``"corrected"``, :func:`groundlab.sampling.corrected_hallucination_rate`); else not measured
    (``basis`` ``None``, ``rate`` null, with the ``reason``). Never the judge's own flags."""
    answered = counts.count("answered_cases")
    by_person = counts.rate("hallucination_rate_by_person")
    out: Dict[str, Any] = {"basis": None, "hallucinated": None, "labeled": by_person.total, "answered": answered,
                           "rate": None, "low": None, "high": None}
    if answered and by_person.total == answered:
        low, high = by_person.interval
        return dict(out, basis="people", hallucinated=by_person.count, rate=by_person.rate, low=low, high=high)
    if corrected is not None and corrected["rate"] is not None:
        return dict(out, basis="corrected", rate=corrected["rate"], low=corrected["low"], high=corrected["high"])
    if not answered:
        return dict(out, reason="no answered case")
    if corrected is not None:
        return dict(out, reason=corrected["reason"])
    return dict(out, reason="no answer carries people's labels yet")


def _corrected(counts: "Counts") -> Dict[str, Any]:
    """``hallucination_rate_corrected`` (:func:`groundlab.sampling.corrected_hallucination_rate`)
    from the strata counts: ``rate`` null and a ``reason`` when it cannot be made."""
    answered = counts.count("answered_cases")
    sizes, labeled = _strata(counts)
    n_labeled = sum(n for _, n in labeled.values())
    if not n_labeled:
        reason = "no answer carries a person's labels"
        return {"labeled": 0, "answered": answered, "rate": None, "low": None, "high": None, "reason": reason}
    missing = [h for h in sizes if not labeled[h][1]]
    if missing:
        reason = (f"no labeled answer among the {sizes[missing[0]]} the judge found {missing[0]}, so its share "
                  "cannot be corrected; label a few of them too")
        return {"labeled": n_labeled, "answered": answered, "rate": None, "low": None, "high": None,
                "reason": reason}
    from ..core.weighted import weighted_rate_of_counts

    e = weighted_rate_of_counts([(h, sizes[h], labeled[h][1], labeled[h][0]) for h in sizes])
    return {"labeled": n_labeled, "answered": answered, "rate": figure_value(e.rate), "low": figure_value(e.low),
            "high": figure_value(e.high)}


def _strata(counts: "Counts"):
    """Answered cases per stratum of the judge's verdict, and (hallucinated, labeled) among them."""
    from ..core.weighted import STRATA

    names = {g for m, g in counts.cells if m == "stratum"}
    order = [h for h in STRATA if h in names] + sorted(names - set(STRATA), key=str)
    sizes = {h: counts.count("stratum", h) for h in order if counts.count("stratum", h)}
    return sizes, {h: counts.get("stratum_labeled", h) for h in sizes}


#: The judges whose caught and false alarms on the public claim sets groundlab ships (with the
#: signals judge's weights, measured leave one set out).
MEASURED_JUDGES = ("signals", "rules")


def judge_errors(judge: str, identity: Optional[Mapping[str, Any]] = None) -> Dict[str, tuple]:
    """``{set: (caught, false alarms)}`` of ``judge`` on each public claim set, leave one set out
    (the figures shipped with the signals judge's weights, which hold the rules judge's too);
    empty for a judge whose error groundlab has not measured."""
    if judge not in MEASURED_JUDGES:
        return {}
    try:
        from ..judges.signals import load_config

        path = (identity or {}).get("config") if judge == "signals" else None
        config = load_config(None if not path or str(path).startswith("groundlab/data/") else path)
    except Exception:  # noqa: BLE001 - a config moved or another judge's: no public figures to plan with
        return {}
    out = {}
    for name, figures in (config.data.get("leave_one_set_out") or {}).items():
        if name == "all six" or name.startswith("ExpertQA "):
            continue
        f = figures.get(judge)
        if f and f["caught"]["total"] and f["false_alarms"]["total"]:
            out[name] = (f["caught"]["rate"], f["false_alarms"]["rate"])
    return out


def label_request(counts: "Counts", margin: float = MARGIN, budget: Optional[int] = None, *,
                  use_labels: bool = True) -> Dict[str, Any]:
    """How many answers people should label for the hallucination rate to reach ``±margin``: a
    stratified sample by the judge's verdict (:func:`groundlab.core.weighted.plan_labels`), each
    stratum's share hallucinated expected from the judge's caught and false alarms on the public
    sets (the plan of the set that needs most, so that the precision holds if the judge errs here as
    badly as there), or, with no measured error, from the widest case; with labels on some answers
    already, each stratum they reach is expected to go on as they show. ``answers``: the whole
    request; ``more``: those not labeled yet; ``minutes``: about how long ``more`` takes
    (:data:`SECONDS_PER_CLAIM`). ``budget`` fixes the count instead.
    """
    from ..core.weighted import expected_interval, plan_labels, priors_from_error

    sizes, labeled = _strata(counts)
    if not use_labels:
        labeled = {h: (0, 0) for h in sizes}
    answered = sum(sizes.values())
    errors = judge_errors(counts.judge, counts.identity)
    observed = {h: (x + 0.5) / (n + 1) for h, (x, n) in labeled.items() if n}
    plans = []
    for name, (caught, alarms) in (errors.items() or [("", (None, None))]):
        if caught is None:
            priors = {h: 0.5 for h in sizes}
        else:
            priors = priors_from_error(sizes, caught, alarms)
        priors.update(observed)
        plans.append(plan_labels(sizes, priors, margin, budget=budget, basis=name))
    plan = max(plans, key=lambda p: p.answers)
    have = {h: n for h, (_, n) in labeled.items()}
    expected = expected_interval(sizes, {h: 1 for h in sizes}, plan.priors).rate if sizes else None
    more = sum(max(0, k - have.get(h, 0)) for h, k in plan.by_stratum.items())
    claims_per_answer = counts.count("claims") / max(1, counts.count("cases"))
    if errors:
        basis = (f"the {counts.judge} judge's caught and false alarms on {len(errors)} public claim sets, planned for "
                 f"the one that needs most ({plan.basis})")
    else:
        basis = f"no measured error for the {counts.judge} judge, so planned for the widest case"
    if observed:
        basis += f"; the {sum(have.values())} labels so far for the strata they reach"
    return {"answers": plan.answers, "labeled": sum(have.values()), "more": more, "answered": answered,
            "margin": margin, "expected_margin": figure_value(plan.expected_margin), "reached": plan.reached,
            "by_stratum": plan.by_stratum, "budget": budget, "priors": plan.priors, "sizes": sizes,
            "expected_rate": figure_value(expected),
            "minutes": int(math.ceil(more * claims_per_answer * SECONDS_PER_CLAIM / 60)),
            "seconds_per_claim": SECONDS_PER_CLAIM, "basis": basis}


def label_curve(request: Mapping[str, Any], points: int = 60):
    """How the corrected rate's 95% range is expected to narrow as people label more answers, for
    the strata and priors of a ``label_request``: a frame of ``n`` (answers labeled, in proportion
    to the strata), ``rate``, ``low``, ``high`` and ``half_width`` (what the label request's size was
    read from)."""
    import pandas as pd

    from ..core.weighted import allocate_labels, expected_interval

    sizes, priors = request["sizes"], request["priors"]
    total = sum(sizes.values())
    first = min(total, 2 * len(sizes))
    grid = sorted({int(round(first * (total / first) ** (k / max(1, points - 1)))) for k in range(points)}
                  | {n for n in (request["answers"], request["labeled"]) if n})
    rows = []
    for n in grid:
        e = expected_interval(sizes, allocate_labels(sizes, priors, n, rule="proportional"), priors)
        rows.append({"n": n, "rate": e.rate, "low": e.low, "high": e.high, "half_width": (e.high - e.low) / 2})
    return pd.DataFrame(rows)


