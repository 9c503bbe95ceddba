"""The report's headline: the judge's rate corrected by people's labels when some exist, else the
flagged rate with how far the judge's measured error could move it; the score's reliability."""

import json
from dataclasses import replace

import matplotlib
import pytest

matplotlib.use("Agg")

from groundlab import evaluate, plots, workbook  # noqa: E402
from groundlab.report import steering_report  # noqa: E402
from groundlab.sampling import corrected_hallucination_rate, weighted_rate  # noqa: E402
from groundlab.summary import score_summary  # noqa: E402


def _headline(ev):
    """The report's line on the hallucination rate, under the decision panel."""
    return next(line for line in steering_report(ev).splitlines()
                if line.startswith("- **Hallucination rate per answer:**"))


def _keep_labels(cases, ids):
    return [case if case.id in ids else replace(case, labels=None) for case in cases]


def test_every_answer_labeled_gives_the_persons_rate(sample_cases):
    ev = evaluate(sample_cases, "signals")
    c = corrected_hallucination_rate(ev.cases)
    by_person = ev.cases[ev.cases["claims"] > 0]["hallucinated_by_person"].astype(bool).mean()
    assert c.labeled == c.answered == 10 and c.estimate.rate == pytest.approx(by_person)
    s = score_summary(ev)
    assert s["hallucination_rate"]["basis"] == "people" and s["hallucination_rate"]["rate"] == 0.5
    assert "label_request" not in s  # nothing left to label
    line = _headline(ev)
    assert line == ("- **Hallucination rate per answer:** 50% by people's labels on every answer (95% range "
                    "24%\u201376%); flagged by the judge: 60% (6 of 10 answers; 95% range 31%\u201383%).")


def test_labels_on_some_answers_correct_the_judges_rate_stratum_by_stratum(sample_cases):
    ids = {"c01", "c02", "c03", "c05", "c06", "c08", "c10", "c11"}
    ev = evaluate(_keep_labels(sample_cases, ids), "signals")
    c = corrected_hallucination_rate(ev.cases)
    assert (c.labeled, c.answered) == (8, 10)
    # by hand: the weights are each stratum's share of the answered cases, the rates its labeled answers'
    answered = ev.cases[ev.cases["claims"] > 0]
    from groundlab.sampling import judge_strata

    strata = judge_strata(answered)
    labeled = answered[answered["labeled"]]
    expected = sum((strata == h).mean() * labeled.loc[strata[labeled.index] == h, "hallucinated_by_person"].mean()
                   for h in set(strata))
    assert c.estimate.rate == pytest.approx(expected)
    assert c.estimate.low <= c.estimate.rate <= c.estimate.high
    s = score_summary(ev)
    assert s["hallucination_rate_corrected"]["labeled"] == 8 and s["hallucination_rate_corrected"]["rate"] == \
        pytest.approx(expected)
    h = s["hallucination_rate"]
    assert (h["basis"], h["labeled"], h["answered"]) == ("corrected", 8, 10)
    assert (h["rate"], h["low"], h["high"]) == (c.estimate.rate, c.estimate.low, c.estimate.high)
    line = _headline(ev)
    assert "corrected by people's labels on 8 of 10 answers" in line and "flagged by the judge: 60%" in line
    # the two answers left unlabeled are what the request asks for next
    assert s["label_request"]["labeled"] == 8 and s["label_request"]["more"] == 2


def test_a_stratum_without_labeled_answers_is_named_not_guessed(sample_cases):
    ev = evaluate(_keep_labels(sample_cases, {"c01", "c02", "c03", "c04"}), "signals")
    c = corrected_hallucination_rate(ev.cases)
    assert c.estimate is None and "no labeled answer among the" in c.reason and "label a few of them too" in c.reason
    s = score_summary(ev)
    assert s["hallucination_rate_corrected"]["rate"] is None
    assert s["hallucination_rate"]["rate"] is None and "no labeled answer among the" in s["hallucination_rate"]["reason"]
    line = _headline(ev)
    assert line.startswith("- **Hallucination rate per answer:** not measured yet") and "flagged by the judge" not in \
        line.split(".")[0]


def test_without_labels_no_output_calls_the_flagged_share_the_rate(sample_cases, cli, tmp_path):
    ev = evaluate(_keep_labels(sample_cases, set()), "signals")
    s = score_summary(ev)
    assert "hallucination_rate_corrected" not in s
    assert s["hallucination_rate"]["rate"] is None and s["flagged_by_judge"]["rate"] == 0.6
    line = _headline(ev)
    assert line.startswith("- **Hallucination rate per answer:** not measured yet: no answer carries people's labels. "
                           "Label all 10 answers (about 8 minutes)")
    assert "Meanwhile the judge flags 60% (6 of 10 answers; 95% range 31%\u201383%)" in line
    assert "anywhere from" not in line  # no range made without labels (docs/measures.md says why)
    # what the request rests on stands once, in the tile's note (which the HTML page shows too)
    report = steering_report(ev)
    note = next(x for x in report.splitlines() if x.startswith("- **Hallucination rate:**"))
    assert "the signals judge's caught and false alarms on 6 public claim sets" in note
    assert "seconds a claim" in note and report.count("seconds a claim") == 1
    lexical = steering_report(evaluate(_keep_labels(sample_cases, set()), "lexical"))
    assert "no measured error for the lexical judge, so planned for the widest case" in lexical
    path = _write(tmp_path, _keep_labels(sample_cases, set()))
    code, out, err = cli("score", "--cases", path)
    rows = {line.split("  ")[0]: line for line in out.splitlines()}
    assert rows["hallucination rate"].split()[2:5] == ["not", "measured", "yet"]
    assert "%" not in rows["hallucination rate"][:40]
    assert "60%" in next(line for line in out.splitlines() if line.startswith("  flagged by the judge"))


def _write(tmp_path, cases):
    path = tmp_path / "cases.jsonl"
    rows = []
    for case in cases:
        row = {"id": case.id, "question": case.question, "retrieved": [{"id": p.id, "text": p.text}
                                                                      for p in case.retrieved],
               "answer": case.answer}
        if case.labels is not None:
            row["labels"] = list(case.labels)
        if case.answerable is not None:
            row["answerable"] = case.answerable
        rows.append(json.dumps(row))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_score_prints_the_corrected_rate_as_the_headline(cli, tmp_path, sample_cases):
    path = _write(tmp_path, _keep_labels(sample_cases, {"c01", "c02", "c03", "c05", "c06", "c08", "c10", "c11"}))
    code, out, err = cli("score", "--cases", path)
    assert code == 0, err
    head = next(line for line in out.splitlines() if line.startswith("hallucination rate"))
    assert "8/10 labeled" in head and "corrected by people's labels on 8 of 10 answers" in head
    assert next(line for line in out.splitlines() if line.startswith("  flagged by the judge"))


def test_the_label_request_is_sized_from_the_judges_measured_error(sample_cases):
    from groundlab.measure.counts import counts_of
    from groundlab.measure.summary import judge_errors, label_request
    from groundlab.core.weighted import plan_labels, priors_from_error

    ev = evaluate(_keep_labels(sample_cases, set()), "signals")
    errors = judge_errors("signals")
    assert set(errors) == {"Factcheck-GPT", "WiCE", "FRANK CNN/DM", "FRANK XSum", "HaluEval QA", "ExpertQA"}
    request = label_request(counts_of(ev))
    sizes = request["sizes"]
    # the plan of the public set whose error needs most labels: each set's plan by hand
    plans = [plan_labels(sizes, priors_from_error(sizes, c, f)) for c, f in errors.values()]
    assert request["answers"] == max(p.answers for p in plans)
    assert request["by_stratum"] == max(plans, key=lambda p: p.answers).by_stratum
    fixed = label_request(counts_of(ev), budget=6)
    assert fixed["answers"] == 6 and sum(fixed["by_stratum"].values()) == 6
    assert not judge_errors("entail")  # not measured: the widest case
def test_weighted_rate_reads_back_a_known_design():
    import pandas as pd

    r = weighted_rate(pd.Series([True] * 5 + [False] * 5 + [True] + [False] * 9),
                      pd.Series(["flagged"] * 10 + ["passed"] * 10), {"flagged": 20, "passed": 80})
    assert r.rate == pytest.approx(0.2 * 0.5 + 0.8 * 0.1)


def test_the_reliability_curve_bins_the_score_against_the_persons_labels(sample_cases, tmp_path):
    ev = evaluate(sample_cases, "signals")
    frame = workbook.reliability_frame(ev)
    model = ev.claims[(ev.claims["score"] > 0) & (ev.claims["score"] < 1)]
    assert frame["claims"].sum() == len(model)
    assert (frame["share_low"] <= frame["share"]).all() and (frame["share"] <= frame["share_high"]).all()
    assert frame["mean_score"].between(frame["low"], frame["high"]).all()
    ax = plots.reliability_curve(frame)
    assert "a calibrated score" in [line.get_label() for line in ax.get_lines()]
    png, svg = plots.save_figure(ax, tmp_path, "judge_reliability")
    assert png.stat().st_size > 10_000
    unlabeled = workbook.reliability_frame(evaluate([replace(c, labels=None) for c in sample_cases], "signals"))
    assert unlabeled.empty and "nothing to draw" in plots.reliability_curve(unlabeled).texts[0].get_text()


def test_the_run_says_where_to_read_the_labels_back_first_round_and_after(sample_cases, tmp_path):
    """A first round reads the labels back into the sample drawn (its weights give the log's rate);
    once the log holds labels, the new round's sample holds only the answers drawn now, so the
    labels go back into the log, beside the ones it holds, and the run is made again on it."""
    from types import SimpleNamespace

    from groundlab.cli.workbook import _label_request_line, _run_summary

    (tmp_path / "labeling").mkdir()
    (tmp_path / "labeling" / "sheet.csv").write_text("case_id\n", encoding="utf-8")

    def line(cases):
        comparison = SimpleNamespace(evaluations={"signals": evaluate(cases, "signals")})
        return _label_request_line(_run_summary(comparison, "signals", {}), tmp_path, "run", "logs/cases.jsonl")

    first = line(_keep_labels(sample_cases, set()))
    assert first.startswith("the hallucination rate is not measured yet: label all 10 answers")
    assert first.endswith("groundlab label import run/labeling/sheet.csv --cases run/labeling/sample.jsonl "
                          "--out labeled.jsonl --partial")
    later = line(_keep_labels(sample_cases, {"c01", "c02", "c03", "c05", "c06", "c08", "c10", "c11"}))
    assert later.startswith("the hallucination rate is corrected by the labels so far: label")
    assert "groundlab label import run/labeling/sheet.csv --cases logs/cases.jsonl --out labeled.jsonl --partial" \
        in later and "run again with --cases labeled.jsonl" in later and "sample.jsonl" not in later
    assert line(sample_cases) == ""  # every answer labeled: nothing to ask


def test_the_run_ends_with_the_headline(sample_cases):
    from types import SimpleNamespace

    from groundlab.cli.workbook import _headline_line, _run_summary

    def line(cases):
        comparison = SimpleNamespace(evaluations={"signals": evaluate(cases, "signals")})
        return _headline_line(_run_summary(comparison, "signals", {}))

    assert line(sample_cases).startswith("hallucination rate: 50% (by people's labels on every answer; 95% range "
                                         "24%\u201376%); flagged by the judge: ")
    unlabeled = line(_keep_labels(sample_cases, set()))
    assert unlabeled.startswith("hallucination rate: not measured yet (people's, by their labels); flagged by the "
                                "judge: ") and "%" in unlabeled
