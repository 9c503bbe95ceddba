"""Every figure of a run in one place: what ``score --json``, ``agree --json``, the tables and the
steering report print. Built once from an :class:`~groundlab.evaluate.Evaluation`."""

from __future__ import annotations

import math
import warnings
from typing import Any, Dict, Optional

from .evaluate import Evaluation
from .metrics import (
    abstention_rate,
    accuracy_score,
    agreement,
    citation_precision,
    citation_recall,
    faithfulness,
    false_abstention_rate,
    hallucination_rate,
    outcomes,
    risk_weighted_score,
    verdict_counts,
)
from .stats import Rate, UndefinedRateWarning


def _num(x: float) -> Optional[float]:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _rate(rate: Rate, count: str, total: str, interval: bool = False) -> Dict[str, Any]:
    out: Dict[str, Any] = {count: rate.count, total: rate.total, "rate": _num(rate.rate)}
    if interval:
        low, high = rate.interval
        out["low"], out["high"] = _num(low), _num(high)
    return out


def score_summary(evaluation: Evaluation, penalty: float = 1.0) -> Dict[str, Any]:
    """The figures of ``groundlab score --json`` (rates as fractions, ``None`` when undefined)."""
    claims, cases = evaluation.claims, evaluation.cases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        counts = verdict_counts(claims)
        by_person = hallucination_rate(cases, by="person")
        return {
            "judge": evaluation.judge,
            "cases": int(len(cases)),
            "claims": int(len(claims)),
            "penalty": float(penalty),
            "risk_weighted_score": risk_weighted_score(cases, penalty),
            "faithfulness": _rate(faithfulness(claims), "supported", "claims"),
            "contradicted": counts["contradicted"],
            "unsupported": counts["unsupported"],
            "errors": counts["errors"],
            "hallucination_rate": _rate(hallucination_rate(cases), "hallucinated", "answered", interval=True),
            "hallucination_rate_by_person": (
                {"hallucinated": by_person.count, "answered": by_person.total} if by_person.total else None),
            # With no citation anywhere recall is undefined (null), over every supported claim.
            "citation_recall": (_rate(citation_recall(claims), "backed", "supported")
                                if citation_precision(claims).total else
                                {"backed": 0, "supported": counts["supported"], "rate": None}),
            "citation_precision": _rate(citation_precision(claims), "relevant", "citations"),
            "abstention": _counts(abstention_rate(cases), "abstained", "unanswerable"),
            "false_abstention": _counts(false_abstention_rate(cases), "abstained", "answerable"),
            "outcomes": outcomes(cases),
        }


def agree_summary(evaluation: Evaluation) -> Dict[str, Any]:
    """The figures of ``groundlab agree --json``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        result = agreement(evaluation.claims, evaluation.cases)
    return {
        "judge": evaluation.judge,
        "order": result.order,
        "confusion": result.confusion,
        "agreement": {"agree": result.agreement.count, "claims": result.agreement.total},
        "caught": {"caught": result.caught.count, "hallucinated": result.caught.total},
        "false_alarms": {"flagged": result.false_alarms.count, "supported": result.false_alarms.total},
        "kappa": _num(result.kappa),
        "unlabeled_cases": result.unlabeled_cases,
    }


def _counts(rate: Rate, count: str, total: str) -> Dict[str, int]:
    return {count: rate.count, total: rate.total}


def rates(evaluation: Evaluation) -> Dict[str, Rate]:
    """Every rate of a run by its name in the tables, each with its count and Wilson range."""
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
