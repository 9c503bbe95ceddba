"""Curves of a run: the risk-weighted score against the penalty (:func:`penalty_curve`), and the
judge's point with the points its threshold moved a little would give (:func:`threshold_points`).
Frames for the charts and the tables to draw; nothing here draws."""

from __future__ import annotations

import math
from typing import Optional, Sequence

import pandas as pd

from .metrics import has_person_labels, outcomes
from .records import GroundlabError

#: The two policies of a penalty curve: the assistant as it is, and had it withheld every
#: answer the judge flags.
AS_IT_IS = "as it is"
WITHHOLDS = "withholding the answers the judge flags"

THRESHOLD_STEPS = (-0.2, -0.1, -0.05, 0.05, 0.1, 0.2)


def threshold_points(roc: pd.DataFrame, steps: Sequence[float] = THRESHOLD_STEPS) -> pd.DataFrame:
    """The judge's point and the points its threshold moved by each of ``steps`` would give (within
    0 and 1; a move that changes nothing, or lands where a smaller one did, is left out): the
    columns of :func:`roc_frame` and ``caught_change`` and ``false_alarm_change``, from the judge's
    point. Only the judge's point when it has no threshold."""
    if roc.empty:
        return roc.assign(caught_change=pd.Series(dtype=int), false_alarm_change=pd.Series(dtype=int))
    chosen = roc[roc["chosen"]].iloc[0]
    curve = roc[~roc["chosen"]].sort_values("threshold")
    rows = [chosen]
    seen = {(chosen["caught"], chosen["false_alarms"])}
    t0 = chosen["threshold"]
    if t0 == t0:  # not NaN
        for step in sorted(steps, key=abs):
            t = t0 + step
            if not 0 < t < 1:
                continue
            # a claim is flagged below the threshold: t flags what the lowest curve point at or above it flags
            point = curve[curve["threshold"] >= t].iloc[0].copy()
            key = (point["caught"], point["false_alarms"])
            if key in seen:
                continue
            seen.add(key)
            point["threshold"] = round(t, 4)
            rows.append(point)
    out = pd.DataFrame(rows).sort_values("threshold", kind="stable").reset_index(drop=True)
    out["caught_change"] = (out["caught"] - chosen["caught"]).astype(int)
    out["false_alarm_change"] = (out["false_alarms"] - chosen["false_alarms"]).astype(int)
    return out


#: The most points of a penalty curve (a largest penalty of 1,000 at the default step of 0.25).
MAX_CURVE_POINTS = 4000


def penalty_curve(cases: pd.DataFrame, max_penalty: float = 9.0, step: float = 0.25,
                  by: Optional[str] = None) -> pd.DataFrame:
    """The risk-weighted score against the penalty, for the assistant as it is and had it
    withheld every answer the judge flags.

    ``by``: ``"person"`` scores both by the person's labels (a false alarm of the judge then costs
    a correct answer, a miss stays wrong), ``"judge"`` by the judge's own verdicts (withholding
    then removes every wrong answer the judge can see, so that line is flat); default: the
    person's where any answer carries labels, else the judge's.

    Columns: ``penalty``, ``target`` (the confidence target t with penalty t/(1−t)), ``policy``,
    ``score``, ``per_100`` (the score per 100 answers scored), ``correct``, ``wrong``, ``answers``
    and ``by``.
    """
    if not (0 < max_penalty < math.inf and 0 < step < math.inf) or max_penalty / step > MAX_CURVE_POINTS:
        raise GroundlabError(f"the penalty curve needs a positive largest penalty and step, with at most "
                             f"{MAX_CURVE_POINTS:,} steps between 0 and it (not {max_penalty:g} in steps of {step:g}).")
    by = by or ("person" if has_person_labels(cases) else "judge")
    steps = int(round(max_penalty / step))
    penalties = [round(k * step, 10) for k in range(steps + 1)]
    if penalties[-1] < max_penalty:
        penalties.append(max_penalty)
    rows = []
    for policy, withhold in ((AS_IT_IS, False), (WITHHOLDS, True)):
        counts = outcomes(cases, withhold_flagged=withhold, by=by)
        answers = sum(counts.values())
        for p in penalties:
            score = float(counts["correct"] - p * counts["wrong"])
            rows.append({"penalty": p, "target": p / (1 + p), "policy": policy, "score": score,
                         "per_100": 100 * score / answers if answers else math.nan,
                         "correct": counts["correct"], "wrong": counts["wrong"], "answers": answers, "by": by})
    return pd.DataFrame(rows)


__all__ = ["AS_IT_IS", "MAX_CURVE_POINTS", "THRESHOLD_STEPS", "WITHHOLDS", "penalty_curve", "threshold_points"]
