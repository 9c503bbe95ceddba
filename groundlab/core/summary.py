"""Every figure of a run in one place: what ``score --json``, ``agree --json``, the tables and the
steering report print. Built once from an :class:`~groundlab.evaluate.Evaluation`."""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any, Dict, Optional

from .stats import Rate, UndefinedRateWarning

if TYPE_CHECKING:  # pragma: no cover - the measures (and pandas) are loaded when a run's figures are made
    from .evaluate import Evaluation


def figure_value(x: Optional[float]) -> Optional[float]:
    """A figure for JSON: ``None`` for an undefined one (NaN)."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def rate_figures(rate: Rate, count: str = "count", total: str = "total") -> Dict[str, Any]:
    """A rate's count and total under their own names, then ``rate``, ``low`` and ``high`` (its
    Wilson 95% range); the last three are ``None`` when the rate is over nothing."""
    low, high = rate.interval if rate.defined else (None, None)
    return {count: rate.count, total: rate.total, "rate": figure_value(rate.rate), "low": figure_value(low),
            "high": figure_value(high)}


#: The numbers of ``groundlab score --json`` by dotted name, what ``score --fail-if`` and
#: :mod:`groundlab.gate` may name (``hallucination_rate_by_person`` is ``null`` without labels).
SCORE_FIGURES = tuple(
    ["cases", "claims", "penalty", "risk_weighted_score", "contradicted", "unsupported", "errors"]
    + [f"{group}.{field}" for group, count, total in (
        ("faithfulness", "supported", "claims"),
        ("hallucination_rate", "hallucinated", "answered"),
        ("hallucination_rate_by_person", "hallucinated", "answered"),
        ("hallucination_rate_corrected", "labeled", "answered"),
        ("citation_recall", "backed", "supported"),
        ("citation_precision", "relevant", "citations"),
        ("abstention", "abstained", "unanswerable"),
        ("false_abstention", "abstained", "answerable"),
        ("accuracy_score", "correct", "cases"),
    ) for field in (count, total, "rate", "low", "high")]
    + [f"outcomes.{k}" for k in ("correct", "abstained", "wrong")])


def score_summary(evaluation: Evaluation, penalty: float = 1.0) -> Dict[str, Any]:
    """The figures of ``groundlab score --json``: rates as fractions, each with ``low`` and ``high``
    (its Wilson 95% range), ``None`` when undefined; ``judge_identity`` says which judge gave them
    (:func:`groundlab.identity.judge_identity`, ``None`` for frames built by hand)."""
    from .metrics import (abstention_rate, accuracy_score, agreement, citation_precision, citation_recall, faithfulness,
                          false_abstention_rate, hallucination_rate, outcomes, risk_weighted_score, verdict_counts)

    claims, cases = evaluation.claims, evaluation.cases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        counts = verdict_counts(claims)
        by_person = hallucination_rate(cases, by="person")
        return dict(_figures(evaluation, claims, cases, counts, by_person, penalty), **apart_figures(evaluation))


def apart_figures(evaluation: Evaluation) -> Dict[str, Any]:
    """What a run counts apart, each only when it applies: ``held_back``, the cases a data policy
    kept from the judge (when one was in effect), and ``incidents``, the cases made from reported
    answers, with their hallucination rate."""
    from .metrics import (abstention_rate, accuracy_score, agreement, citation_precision, citation_recall, faithfulness,
                          false_abstention_rate, hallucination_rate, outcomes, risk_weighted_score, verdict_counts)

    cases = evaluation.cases
    out: Dict[str, Any] = {}
    identity = evaluation.claims.attrs.get("judge") or {}
    if "held_back" in cases.columns or "data_policy" in identity:
        held = cases[cases["held_back"].notna()] if "held_back" in cases.columns else cases.iloc[0:0]
        unjudged = int(((held["claims"] > 0) & (held["errors"] == held["claims"])).sum())
        out["held_back"] = {"cases": int(len(held)), "judged_instead": int(len(held)) - unjudged, "unjudged": unjudged}
    if "origin" in cases.columns:
        from_incidents = cases[cases["origin"] == "incident"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedRateWarning)
            out["incidents"] = {"cases": int(len(from_incidents)),
                                "hallucination_rate": rate_figures(hallucination_rate(from_incidents), "hallucinated",
                                                                   "answered"),
                                "hallucination_rate_by_person": rate_figures(
                                    hallucination_rate(from_incidents, by="person"), "hallucinated", "answered")}
    return out


def _figures(evaluation: Evaluation, claims, cases, counts, by_person, penalty: float) -> Dict[str, Any]:
    from .metrics import (abstention_rate, accuracy_score, agreement, citation_precision, citation_recall, faithfulness,
                          false_abstention_rate, hallucination_rate, outcomes, risk_weighted_score, verdict_counts)

    if True:
        return {
            "judge": evaluation.judge,
            "cases": int(len(cases)),
            "claims": int(len(claims)),
            "penalty": float(penalty),
            "risk_weighted_score": risk_weighted_score(cases, penalty),
            "faithfulness": rate_figures(faithfulness(claims), "supported", "claims"),
            "contradicted": counts["contradicted"],
            "unsupported": counts["unsupported"],
            "errors": counts["errors"],
            "hallucination_rate": rate_figures(hallucination_rate(cases), "hallucinated", "answered"),
            "hallucination_rate_by_person": (
                rate_figures(by_person, "hallucinated", "answered") if by_person.total else None),
            # With no citation anywhere recall is undefined (null), over every supported claim.
            "citation_recall": (rate_figures(citation_recall(claims), "backed", "supported")
                                if citation_precision(claims).total else
                                {"backed": 0, "supported": counts["supported"], "rate": None, "low": None,
                                 "high": None}),
            "citation_precision": rate_figures(citation_precision(claims), "relevant", "citations"),
            "abstention": rate_figures(abstention_rate(cases), "abstained", "unanswerable"),
            "false_abstention": rate_figures(false_abstention_rate(cases), "abstained", "answerable"),
            "outcomes": outcomes(cases),
            "accuracy_score": rate_figures(accuracy_score(cases), "correct", "cases"),
            "judge_identity": evaluation.claims.attrs.get("judge"),
            **_corrected(cases),
        }


def _corrected(cases) -> Dict[str, Any]:
    """``hallucination_rate_corrected`` when some answers carry a person's labels: the judge's rate
    corrected by its error on them (:func:`groundlab.sampling.corrected_hallucination_rate`), with
    ``rate`` null and a ``reason`` when it cannot be made."""
    if "labeled" not in cases or not cases["labeled"].astype(bool).any():
        return {}
    from .weighted import corrected_hallucination_rate

    c = corrected_hallucination_rate(cases)
    if c.estimate is None:
        return {"hallucination_rate_corrected": {"labeled": c.labeled, "answered": c.answered, "rate": None,
                                                 "low": None, "high": None, "reason": c.reason}}
    e = c.estimate
    return {"hallucination_rate_corrected": {"labeled": c.labeled, "answered": c.answered,
                                             "rate": figure_value(e.rate), "low": figure_value(e.low),
                                             "high": figure_value(e.high)}}


def agree_summary(evaluation: Evaluation) -> Dict[str, Any]:
    """The figures of ``groundlab agree --json`` (rates with ``low`` and ``high`` as in
    :func:`score_summary`)."""
    from .metrics import (abstention_rate, accuracy_score, agreement, citation_precision, citation_recall, faithfulness,
                          false_abstention_rate, hallucination_rate, outcomes, risk_weighted_score, verdict_counts)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        result = agreement(evaluation.claims, evaluation.cases)
    return {
        "judge": evaluation.judge,
        "order": result.order,
        "confusion": result.confusion,
        "agreement": rate_figures(result.agreement, "agree", "claims"),
        "caught": rate_figures(result.caught, "caught", "hallucinated"),
        "false_alarms": rate_figures(result.false_alarms, "flagged", "supported"),
        "kappa": figure_value(result.kappa),
        "unlabeled_cases": result.unlabeled_cases,
        "judge_identity": evaluation.claims.attrs.get("judge"),
    }


def rates(evaluation: Evaluation) -> Dict[str, Rate]:
    """Every rate of a run by its name in the tables, each with its count and Wilson range."""
    from .metrics import (abstention_rate, accuracy_score, agreement, citation_precision, citation_recall, faithfulness,
                          false_abstention_rate, hallucination_rate, outcomes, risk_weighted_score, verdict_counts)

    claims, cases = evaluation.claims, evaluation.cases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        return {
            "hallucination rate": hallucination_rate(cases),
            "hallucination rate by the person": hallucination_rate(cases, by="person"),
            "faithfulness": faithfulness(claims),
            "citation recall": citation_recall(claims),
            "citation precision": citation_precision(claims),
            "abstention": abstention_rate(cases),
            "false abstention": false_abstention_rate(cases),
            "accuracy-only score": accuracy_score(cases),
        }


RATE_COLUMNS = ["measure", "count", "total", "rate", "low", "high"]


def rates_frame(rates: Dict[str, Rate], **columns: object):
    """One row per rate: ``measure``, ``count``, ``total``, ``rate``, ``low``, ``high`` (NaN when undefined).

    Extra keyword arguments become constant columns (``judge="rules"``).

    >>> rates_frame({"caught": Rate(5, 6)}).round(2).to_dict("records")
    [{'measure': 'caught', 'count': 5, 'total': 6, 'rate': 0.83, 'low': 0.44, 'high': 0.97}]
    """
    import pandas as pd

    rows = [{"measure": name, "count": r.count, "total": r.total, "rate": r.rate,
             "low": r.interval[0], "high": r.interval[1]} for name, r in rates.items()]
    frame = pd.DataFrame(rows, columns=RATE_COLUMNS)
    for name, value in columns.items():
        frame[name] = value
    return frame
