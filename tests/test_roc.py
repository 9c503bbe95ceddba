"""The judge's ROC curve of notebook 02: its frame, the moves of the threshold, and the chart."""

from __future__ import annotations

import math
from dataclasses import replace

import matplotlib

matplotlib.use("Agg")

from groundlab import evaluate, plots, workbook  # noqa: E402
from groundlab.judges import get_judge  # noqa: E402


def test_the_judges_point_is_its_verdicts_and_lies_on_its_curve(sample_cases):
    roc = workbook.roc_frame(evaluate(sample_cases, "signals"))
    chosen = roc[roc["chosen"]].iloc[0]
    assert (chosen["caught"], chosen["hallucinated"], chosen["false_alarms"], chosen["supported"]) == (6, 6, 1, 14)
    curve = roc[~roc["chosen"]]
    assert ((curve["caught"] == chosen["caught"]) & (curve["false_alarms"] == chosen["false_alarms"])).any()
    # from flagging nothing to flagging everything
    assert curve.iloc[0][["caught", "false_alarms"]].tolist() == [0, 0]
    assert curve.iloc[-1][["caught", "false_alarms"]].tolist() == [6, 14] and curve.iloc[-1]["threshold"] == math.inf


def test_moving_the_threshold_says_what_it_costs(sample_cases):
    points = workbook.threshold_points(workbook.roc_frame(evaluate(sample_cases, "signals")))
    chosen = points[points["chosen"]].iloc[0]
    lower, higher = points[points["threshold"] < chosen["threshold"]], points[points["threshold"] > chosen["threshold"]]
    assert (lower["caught_change"] <= 0).all() and (lower["false_alarm_change"] <= 0).all()
    assert (higher["caught_change"] >= 0).all() and (higher["false_alarm_change"] >= 0).all()
    assert not ((points["caught_change"] == 0) & (points["false_alarm_change"] == 0) & ~points["chosen"]).any()


def test_a_judge_without_scores_or_labels_draws_nothing_and_says_why(sample_cases):
    unlabeled = [replace(case, labels=None) for case in sample_cases]
    roc = workbook.roc_frame(evaluate(unlabeled, "signals"))
    assert roc.empty and workbook.threshold_moves(roc).empty
    ax = plots.roc_curve(roc)
    assert "no labeled claim has a score" in ax.texts[0].get_text()


def test_the_chart_marks_the_judges_point_and_the_moves(sample_cases, tmp_path):
    roc = workbook.roc_frame(evaluate(sample_cases, "signals"))
    ax = plots.roc_curve(roc)
    labels = [line.get_label() for line in ax.get_lines()]
    assert "its verdicts: caught 6/6, false alarms 1/14" in labels
    texts = [t.get_text() for t in ax.texts]
    box = next(t for t in texts if t.startswith("moving the threshold to"))
    t = get_judge("signals").threshold  # the shipped one; moved by 0.2 down and up
    assert f"A  threshold {t - 0.2:.2f}: +0 caught, -1 false alarm" in box
    assert f"B  threshold {t + 0.2:.2f}: +0 caught, +1 false alarm" in box
    assert any(x.startswith(f"threshold {t:.2f}") for x in texts)
    png, svg = plots.save_figure(ax, tmp_path, "judge_roc")
    assert png.stat().st_size > 10_000 and "<text" in svg.read_text(encoding="utf-8")
