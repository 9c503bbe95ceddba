"""Every figure of a run in one place: what ``score --json``, ``agree --json``, the tables and the
steering report print. Built once from an :class:`~groundlab.evaluate.Evaluation`, by way of its
counts (:mod:`groundlab.measure.figures` computes every figure from them)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Dict, Optional

from .figures import (LABEL_REQUEST_FIGURES, MARGIN, MEASURED_JUDGES, SCORE_FIGURES, SECONDS_PER_CLAIM,  # noqa: F401
                      figure_value, headline_rate, judge_errors, label_curve, label_request, needed, per_100,
                      rate_figures, summary_of_counts)
from ..core.stats import Rate, UndefinedRateWarning

if TYPE_CHECKING:  # pragma: no cover - the measures (and pandas) are loaded when a run's figures are made
    from .evaluate import Evaluation


def score_summary(evaluation: Evaluation, penalty: float = 1.0, *, margin: float = MARGIN,
                  label_budget: Optional[int] = None) -> Dict[str, Any]:
    """The figures of ``groundlab score --json`` (:func:`summary_of_counts` of the evaluation's
    counts: the frames and a streamed run give the same figures because they are the same
    computation); ``judge_identity`` says which judge gave them (``None`` for frames built by hand)."""
    from .counts import counts_of

    return summary_of_counts(counts_of(evaluation), penalty, margin=margin, label_budget=label_budget)


def apart_figures(evaluation: Evaluation) -> Dict[str, Any]:
    """What a run counts apart (``held_back``, ``incidents``), from :func:`score_summary`."""
    s = score_summary(evaluation)
    return {k: s[k] for k in ("held_back", "incidents") if k in s}


def agree_summary(evaluation: Evaluation) -> Dict[str, Any]:
    """The figures of ``groundlab agree --json`` (rates with ``low`` and ``high`` as in
    :func:`score_summary`)."""
    from ..core.metrics import (abstention_rate, accuracy_score, agreement, citation_precision, citation_recall,
                                faithfulness, false_abstention_rate, hallucination_rate, outcomes, risk_weighted_score,
                                verdict_counts)

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
    """Every rate of a run by its name in the tables, each with its count and Wilson range (from the
    run's counts, as every figure: :meth:`groundlab.counts.Counts.rates`). ``flagged by the judge``
    is the judge's share of answers with a claim it did not find supported; ``hallucination rate by
    the person`` is over the answers people labeled."""
    from .counts import counts_of

    return counts_of(evaluation).rates()


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
