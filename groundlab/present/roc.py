"""The judge's threshold, read against people's labels: the ROC curve of its score
(:func:`roc_frame`), whether its score is a probability (:func:`reliability_frame`), and what
moving the threshold would cost (:func:`threshold_moves`)."""

from __future__ import annotations

import math
from typing import Optional, Sequence

import pandas as pd

from ..core.curves import THRESHOLD_STEPS, threshold_points
from ..measure.evaluate import Evaluation


_ROC_COLUMNS = ["threshold", "caught", "hallucinated", "false_alarms", "supported", "caught_rate",
                "false_alarm_rate", "chosen", "judge"]


def judge_threshold(evaluation: Evaluation) -> Optional[float]:
    """The score threshold the judge's verdicts were given with (from its identity), if it has one."""
    settings = (evaluation.claims.attrs.get("judge") or {}).get("settings") or {}
    value = settings.get("threshold")
    return float(value) if isinstance(value, (int, float)) else None


def roc_frame(evaluation: Evaluation) -> pd.DataFrame:
    """The judge's ROC curve on the claims a person labeled: for every threshold a claim's
    ``score`` can be held to (a claim scoring below it is flagged), the hallucinated claims caught
    and the supported claims flagged (false alarms), as counts and rates.

    One row per operating point, from flagging nothing to flagging everything; the row
    ``chosen`` is the judge's own point, counted from its verdicts (for the signals judge the
    same as its threshold on the score; a rules judge also flags by negation, which its score,
    the word coverage, does not show). Empty when the judge gives no scores or nothing is labeled.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "signals")
    >>> roc_frame(ev).query("chosen")[["caught", "hallucinated", "false_alarms", "supported"]].values.tolist()
    [[6, 6, 1, 14]]
    """
    import numpy as np

    claims = evaluation.claims
    labeled = claims[claims["label"].notna() & claims["verdict"].notna() & claims["score"].notna()]
    if labeled.empty:
        return pd.DataFrame(columns=_ROC_COLUMNS)
    score = labeled["score"].to_numpy(dtype=float)
    hallucinated = (labeled["label"] != "supported").to_numpy()
    n_h, n_s = int(hallucinated.sum()), int((~hallucinated).sum())
    rows = []
    for t in list(np.unique(score)) + [math.inf]:
        flagged = score < t
        rows.append({"threshold": float(t), "caught": int((flagged & hallucinated).sum()), "hallucinated": n_h,
                     "false_alarms": int((flagged & ~hallucinated).sum()), "supported": n_s, "chosen": False})
    flagged = (labeled["verdict"] != "supported").to_numpy()
    chosen = judge_threshold(evaluation)
    rows.append({"threshold": chosen if chosen is not None else math.nan,
                 "caught": int((flagged & hallucinated).sum()), "hallucinated": n_h,
                 "false_alarms": int((flagged & ~hallucinated).sum()), "supported": n_s, "chosen": True})
    frame = pd.DataFrame(rows)
    frame["caught_rate"] = frame["caught"] / n_h if n_h else math.nan
    frame["false_alarm_rate"] = frame["false_alarms"] / n_s if n_s else math.nan
    frame["judge"] = evaluation.judge
    frame = frame.sort_values(["false_alarm_rate", "caught_rate", "chosen"], kind="stable").reset_index(drop=True)
    return frame[_ROC_COLUMNS]


def reliability_frame(evaluation: Evaluation, bins: int = 5) -> pd.DataFrame:
    """Is the judge's score a probability? The claims a person labeled, in ``bins`` equal ranges of
    the score the judge's model gave (claims a rule decided, scored 0 or 1, left out): per range
    the claims, their mean score, and the share the person found supported, with its Wilson 95%
    range. A calibrated score lies on the diagonal: of claims scored 0.7, seven in ten are supported.
    Empty when the judge gives no scores or nothing is labeled.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "signals")
    >>> reliability_frame(ev)[["high", "claims", "supported"]].astype(float).values.tolist()[-1]
    [1.0, 11.0, 11.0]
    """
    from ..core.stats import Rate

    claims = evaluation.claims
    columns = ["low", "high", "claims", "mean_score", "supported", "share", "share_low", "share_high", "judge"]
    score = claims["score"]
    labeled = claims[claims["label"].notna() & score.notna() & (score > 0) & (score < 1)]
    if labeled.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for k in range(bins):
        low, high = k / bins, (k + 1) / bins
        inside = labeled[(labeled["score"] >= low) & ((labeled["score"] < high) | (k == bins - 1))]
        if inside.empty:
            continue
        supported = int((inside["label"] == "supported").sum())
        rate = Rate(supported, len(inside))
        lo, hi = rate.interval
        rows.append({"low": round(low, 4), "high": round(high, 4), "claims": len(inside),
                     "mean_score": float(inside["score"].mean()), "supported": supported, "share": rate.rate,
                     "share_low": lo, "share_high": hi, "judge": evaluation.judge})
    return pd.DataFrame(rows, columns=columns)
def threshold_moves(roc: pd.DataFrame, steps: Sequence[float] = THRESHOLD_STEPS) -> pd.DataFrame:
    """What moving the judge's threshold would cost, for reading: the judge's point and the points
    of :func:`threshold_points`, each with its claims caught and false alarms and the change from
    the judge's point (a lower threshold flags fewer claims: fewer caught, fewer false alarms).

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "signals")
    >>> threshold_moves(roc_frame(ev))["change"].tolist()
    ['1 fewer false alarm', "the judge's verdicts", '1 more false alarm']
    """
    columns = ["threshold", "caught", "false alarms", "change"]
    rows = []
    for r in threshold_points(roc, steps).itertuples():
        if r.chosen:
            change = "the judge's verdicts"
        else:
            parts = [_more_or_fewer(r.caught_change, "caught", "caught"),
                     _more_or_fewer(r.false_alarm_change, "false alarm", "false alarms")]
            change = ", ".join(p for p in parts if p)
        shown = "\u2014" if r.threshold != r.threshold else f"{r.threshold:.2f}"
        rows.append({"threshold": shown, "caught": f"{int(r.caught)}/{int(r.hallucinated)}",
                     "false alarms": f"{int(r.false_alarms)}/{int(r.supported)}", "change": change})
    return pd.DataFrame(rows, columns=columns)


def _more_or_fewer(delta: int, one: str, many: str) -> str:
    if not delta:
        return ""
    word = one if abs(delta) == 1 else many
    return f"{abs(delta)} {'more' if delta > 0 else 'fewer'} {word}"
