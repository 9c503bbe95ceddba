"""The data shaping behind the notebooks: the penalty curve, interval widths, judges side by side."""

from __future__ import annotations

import math
import sys

import pytest

from groundlab import GroundlabError, evaluate, load_cases, outcomes, risk_weighted_score, wilson_interval
from groundlab import citation_problems as gl_citation_problems
from groundlab import judges as judge_registry
from groundlab import workbook
from groundlab.stats import Rate, answers_needed, interval_bounds

from conftest import NOTES, ROOT


@pytest.mark.parametrize("judge, as_is, withheld", [
    ("rules", (4, 2, 6), (4, 8, 0)),
    ("lexical", (5, 2, 5), (5, 7, 0)),
])
def test_withhold_flagged(sample_cases, judge, as_is, withheld):
    cases = evaluate(sample_cases, judge).cases
    assert tuple(outcomes(cases).values()) == as_is
    assert tuple(outcomes(cases, withhold_flagged=True).values()) == withheld
    assert risk_weighted_score(cases, 3, withhold_flagged=True) == withheld[0]


def test_withhold_keeps_confident_unbacked_answers_wrong(sample_cases):
    """An unanswerable question answered with claims the judge accepts stays wrong: nothing flagged it."""
    cases = evaluate(sample_cases, "rules").cases.copy()
    c11 = cases["case_id"] == "c11"
    cases.loc[c11, ["hallucinated", "outcome"]] = [False, "wrong"]
    assert outcomes(cases, withhold_flagged=True) == {"correct": 4, "abstained": 7, "wrong": 1}


def test_penalty_curve_c06_abstains(c06_abstains):
    ev = evaluate(load_cases(c06_abstains, NOTES), "lexical")
    by_judge = workbook.penalty_curve(ev.cases, max_penalty=9, by="judge")
    at3 = by_judge[by_judge["penalty"] == 3].set_index("policy")["score"]
    assert at3[workbook.AS_IT_IS] == -7
    assert at3[workbook.WITHHOLDS] == 5  # the judge's own view: no wrong answer left that it can see
    assert by_judge["penalty"].max() == 9 and by_judge["penalty"].min() == 0
    assert by_judge.loc[by_judge["penalty"] == 3, "target"].iloc[0] == pytest.approx(0.75)
    assert by_judge.loc[by_judge["policy"] == workbook.WITHHOLDS, "score"].nunique() == 1  # flat


def test_penalty_curve_is_scored_by_the_person_where_there_are_labels(c06_abstains):
    """Withholding what the judge flags, by the person's labels: its false alarm (c05) is a correct
    answer lost, its miss (c08) stays wrong, so the line falls with the penalty."""
    ev = evaluate(load_cases(c06_abstains, NOTES), "lexical")
    curve = workbook.penalty_curve(ev.cases, max_penalty=9)
    assert set(curve["by"]) == {"person"}
    withheld = curve[curve["policy"] == workbook.WITHHOLDS].set_index("penalty")
    assert (withheld.loc[0, "correct"], withheld.loc[0, "wrong"]) == (4, 1)
    assert withheld.loc[3, "score"] == 1 and withheld.loc[9, "score"] == -5  # it bends
    assert withheld.loc[3, "per_100"] == pytest.approx(100 / 12)
    as_is = curve[curve["policy"] == workbook.AS_IT_IS].set_index("penalty")
    assert (as_is.loc[0, "correct"], as_is.loc[0, "wrong"]) == (5, 4)
    assert set(curve["answers"]) == {12}


def test_penalty_curve_without_labels_is_the_judges_view(sample_cases):
    from dataclasses import replace

    ev = evaluate([replace(case, labels=None) for case in sample_cases], "rules")
    curve = workbook.penalty_curve(ev.cases)
    assert set(curve["by"]) == {"judge"}


@pytest.mark.parametrize("largest", [1e308, float("inf"), float("nan"), 0, -1])
def test_penalty_curve_refuses_a_largest_penalty_it_cannot_draw(sample_cases, largest):
    ev = evaluate(sample_cases, "rules")
    with pytest.raises(GroundlabError, match="the penalty curve needs a positive largest penalty"):
        workbook.penalty_curve(ev.cases, max_penalty=largest)
    assert len(workbook.penalty_curve(ev.cases, max_penalty=1000)) == 2 * 4001


def test_score_table(sample_cases):
    ev = evaluate(sample_cases, "lexical")
    table = workbook.score_table(ev.cases, 3).set_index(["policy", "scored by"])
    assert table.loc[(workbook.WITHHOLDS, "a person's labels"), ["right", "declined", "wrong"]].tolist() == [4, 7, 1]
    assert table.loc[(workbook.AS_IT_IS, "the judge"), "score per 100 answers at penalty 3"] == -83  # -10 of 12
    assert len(workbook.score_table(ev.cases, 3, withhold=False)) == 2


@pytest.mark.parametrize("count, total", [(5, 10), (50, 100), (0, 12), (7, 7)])
def test_interval_bounds_match_wilson(count, total):
    assert interval_bounds(count / total, total) == pytest.approx(wilson_interval(count, total))


def test_interval_width_frame():
    rate = Rate(6, 10)
    frame = workbook.interval_width_frame(rate, margin=0.05)
    needed = answers_needed(0.6, 0.05)
    assert frame["n"].min() == 10 and frame["n"].max() == 2000
    assert {10, needed} <= set(frame["n"])
    assert frame["half_width"].is_monotonic_decreasing
    assert (frame["low"] <= 0.6).all() and (frame["high"] >= 0.6).all()
    today = frame.set_index("n").loc[10]
    assert (round(today["low"], 2), round(today["high"], 2)) == (0.31, 0.83)
    assert workbook.plan_answers(rate)["answers_needed"] == needed == 366
    table = workbook.plan_table(workbook.plan_answers(rate, 0.05))
    assert table.loc["today"].tolist() == [10, "60%", "31%\u201383%", "\u00b126"]
    assert table.loc["for \u00b15 points", "answers"] == 366


def test_plan_table_without_answers():
    table = workbook.plan_table(workbook.plan_answers(Rate(0, 0), 0.1))
    assert table.loc["today"].tolist() == [0, "n/a", "n/a", "n/a"]
    assert table.loc["for \u00b110 points", "rate"] == "50%"  # planned at the widest case


def test_interval_width_frame_grows_to_today_and_plans_undefined_rates_at_half():
    big = workbook.interval_width_frame(Rate(900, 3000))
    assert big["n"].max() == 3000
    empty = workbook.interval_width_frame(Rate(0, 0))
    assert (empty["rate"] == 0.5).all()


def test_compare_judges_skips_unavailable(sample_cases, monkeypatch):
    monkeypatch.setitem(judge_registry._REGISTRY, "broken",
                        ("groundlab.judges.no_such_module", "Judge", "needs a package that is missing"))
    comparison = workbook.compare_judges(sample_cases, ["lexical", "broken", "rules", "nosuch", "rules"])
    assert comparison.judges == ["lexical", "rules"]
    assert set(comparison.unavailable) == {"broken", "nosuch"}
    assert "not installed" in comparison.unavailable["broken"]
    notes = comparison.notes()
    assert len(notes) == 2 and all("unavailable" in n for n in notes)
    assert "nosuch" in comparison._repr_markdown_()
    assert "unavailable" in repr(comparison)
    with pytest.raises(GroundlabError, match="nosuch"):
        comparison.get("nosuch")
    with pytest.raises(GroundlabError, match="none of the judges"):
        workbook.compare_judges(sample_cases, ["nosuch"])


def test_agreement_frames(sample_cases):
    comparison = workbook.compare_judges(sample_cases, ["lexical", "rules"])
    confusion = workbook.confusion_frames(comparison)
    rules = confusion[confusion["judge"] == "rules"].pivot(index="person", columns="verdict", values="claims")
    assert rules.loc["supported", "unsupported"] == 1 and rules.loc["unsupported", "contradicted"] == 1
    assert confusion.groupby("judge")["claims"].sum().to_dict() == {"lexical": 20, "rules": 20}

    rates = workbook.agreement_frame(comparison).set_index(["judge", "measure"])
    assert rates.loc[("lexical", "caught"), ["count", "total"]].tolist() == [5, 6]
    assert rates.loc[("rules", "caught"), ["count", "total"]].tolist() == [6, 6]

    table = workbook.judge_table(comparison, penalty=3).set_index("judge")
    assert table.loc["rules", "risk-weighted score per 100 answers (penalty 3)"] == -117  # -14 over 12 answers
    assert table.loc["lexical", "same verdict"] == "17/20 = 85% (64%\u201395%)"
    assert table.loc["lexical", "caught"] == "5/6 = 83% (44%\u201397%)"  # the range the notebook promises
    assert table.loc["rules", "false alarms"] == "1/14 = 7% (1%\u201331%)"
    assert table.loc["rules", "flagged by the judge"] == "6/10 = 60% (31%\u201383%)"

    differ = workbook.verdict_differences(comparison)
    assert differ[["case_id", "claim", "person", "lexical", "rules"]].values.tolist() == \
        [["c08", 1, "contradicted", "supported", "contradicted"]]

    disagree = workbook.disagreement_table(comparison)
    assert disagree.groupby("judge name").size().to_dict() == {"lexical": 3, "rules": 2}
    assert list(disagree.columns) == ["judge name", "case_id", "claim", "text", "person", "judge's verdict", "reason"]


def test_tables_for_notebook_01(sample_cases):
    ev = evaluate(sample_cases, "rules")
    split = workbook.verdict_frame(ev.claims).set_index("verdict")
    assert split["claims"].to_dict() == {"supported": 13, "contradicted": 3, "unsupported": 4}
    severity = workbook.verdict_frame(ev.claims, flagged_only=True)
    assert severity["share"].round(2).tolist() == [0.43, 0.57]
    assert workbook.abstentions(ev.cases).set_index("case_id")["reading"].str.split(":").str[0].to_dict() == \
        {"c04": "right", "c12": "false abstention"}
    html = workbook.style_verdicts(ev.claims).to_html()
    assert "#f6d5c0" in html and "#fbe7b5" in html
    # the flagged claims alone (row labels with gaps), as an analyst filters them, coloured alike
    flagged = workbook.style_verdicts(ev.claims[ev.claims["verdict"] != "supported"]).to_html()
    assert flagged.count("#f6d5c0") == html.count("#f6d5c0") and "#fbe7b5" in flagged
    assert "63%" in workbook.rate_table(ev, "citation precision").to_html()
    problems = workbook.citation_table(ev.claims)
    assert problems["cites"].tolist() == ["D09"]  # as written, not a tuple
    assert gl_citation_problems(ev.claims)["cites"].tolist() == [("D09",)]  # the measure stays raw
    with pytest.raises(GroundlabError, match="no rate called"):
        workbook.rate_table(ev, "precision")


def test_rates_frame_marks_undefined_rates():
    frame = workbook.rates_frame({"abstention": Rate(0, 0)})
    assert math.isnan(frame["rate"].iloc[0]) and math.isnan(frame["low"].iloc[0])
    assert "n/a" in workbook.styled_rates(frame).to_html()


def test_write_steering_report_links_figures(tmp_path, sample_cases):
    import base64

    ev = evaluate(sample_cases, "lexical")
    figure = tmp_path / "figures" / "penalty curve (final).png"
    figure.parent.mkdir()
    figure.write_bytes(b"\x89PNG-not-really")
    path = tmp_path / "out" / "report.md"
    written = workbook.write_steering_report(ev, 3, path, source="cases.jsonl", figures={"Penalty": figure})
    text = written.text
    assert path.read_text(encoding="utf-8") == text
    assert written.paths == [path, path.with_suffix(".html")]
    assert "risk-weighted score at penalty 3: \u221210 over 12 answers (\u221283 per 100 answers)" in text
    assert "![Penalty](../figures/penalty%20curve%20%28final%29.png)" in text
    page = path.with_suffix(".html").read_text(encoding="utf-8")
    assert page.startswith("<!-- groundlab report -->\n<!DOCTYPE html>")
    assert base64.b64encode(figure.read_bytes()).decode() in page and "<figcaption>Penalty</figcaption>" in page
    assert "<script" not in page and "&lt;!--" not in page
    shown = written._repr_markdown_()
    assert "## Figures" not in shown and "report.html" in shown


def test_judged_result_is_shared_and_checked(tmp_path, sample_cases):
    from conftest import CASES

    comparison = workbook.compare_judges(sample_cases, ["lexical", "rules"])
    inputs = workbook.judged_inputs(CASES, NOTES)
    saved = workbook.save_judged(tmp_path / "judged.pkl", comparison, inputs)
    shared = workbook.judged_cases(CASES, NOTES, ["rules"], judged_file=saved)
    assert shared.judges == ["rules"] and "shared result" in shared.origin
    assert shared.get("rules").claims.equals(comparison.get("rules").claims)
    with pytest.raises(GroundlabError, match="judged from other cases"):
        workbook.judged_cases(CASES, NOTES, ["rules"], judged_file=saved, abstention_phrases=["no idea"])
    (tmp_path / "other.pkl").write_bytes(b"not a pickle")
    with pytest.raises(GroundlabError, match="is not a judged result"):
        workbook.judged_cases(CASES, NOTES, ["rules"], judged_file=tmp_path / "other.pkl")
    alone = workbook.judged_cases(CASES, NOTES, ["rules"])
    assert alone.origin == "" and alone.get("rules").claims.equals(comparison.get("rules").claims)


def test_claim_settings_reach_the_splitter(tmp_path):
    import json

    case = {"id": "x1", "question": "Where is the order?", "retrieved": [{"id": "K1", "text": "Orders ship daily."}],
            "answer": "We have no record of that order. Orders ship daily (source K1)."}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    plain = workbook.judged_cases(path, None, ["rules"]).get("rules")
    assert len(plain.claims) == 2
    tuned = workbook.judged_cases(path, None, ["rules"], citation_pattern=r"\(source (\w+)\)",
                                  abstention_phrases=["no record of"]).get("rules")
    assert tuned.claims["text"].tolist() == ["Orders ship daily."]
    assert tuned.claims["cites"].tolist() == [("K1",)]
    with pytest.raises(GroundlabError, match="abstention_phrases '\\(' is not a valid regular expression"):
        workbook.claim_splitter("", ["("])


def test_tables_escape_what_they_show():
    import pandas as pd

    frame = pd.DataFrame({"case_id": ["<script>alert(1)</script>"], "text": ["<img src=x onerror=alert(1)>"],
                          "verdict": ["contradicted"], "claim": [1], "cites": [("D1",)], "reason": ["`x` | y"],
                          "label": [None]})
    for styled in (workbook.table(frame), workbook.style_verdicts(frame)):
        html = styled.to_html()
        assert "<script>" not in html and "<img" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html


# ---------------------------------------------------------------- two configurations (notebook 05)


def test_two_configurations_of_the_sample_set():
    """The sample set against its second configuration: what the default notebook 05 shows."""
    from conftest import CASES, CASES_B

    compared = workbook.compare_files(CASES, CASES_B, NOTES, "rules")
    m = compared.result.measures
    assert m["hallucination_rate"].table == {"both": 1, "a_only": 3, "b_only": 2, "neither": 1}
    assert m["abstention"].table == {"both": 1, "a_only": 0, "b_only": 2, "neither": 0}
    assert m["false_abstention"].table == {"both": 0, "a_only": 1, "b_only": 1, "neither": 7}
    assert {name: x.verdict for name, x in m.items()} == dict.fromkeys(m, "could be noise")
    table = workbook.comparison_table(compared).set_index("measure")
    assert table.loc["flagged by the judge", ["A", "B", "B \u2212 A (points)", "95% range", "test", "pairs"]].tolist() == [
        "4/7 = 57% (25%\u201384%)", "3/7 = 43% (16%\u201375%)", "\u221214", "\u221260 to +40", "McNemar exact, p = 1.00",
        "7: A alone 3, B alone 2"]
    assert table.loc["flagged by the judge", "left out"] == "3 answered by A only; 1 answered by B only; 1 answered by neither"
    assert table.loc["faithfulness", "pairs"] == "20 and 17 claims in 11 questions"
    assert table.loc["faithfulness", "test"] == "clustered t, p = 0.36"
    changed = workbook.changed_questions(compared).set_index("case")
    assert changed["for B"].to_dict() == {"c02": "better", "c03": "worse", "c05": "better", "c06": "better",
                                          "c07": "worse", "c08": "better", "c09": "worse", "c11": "better",
                                          "c12": "better"}
    assert changed.loc["c03", ["A", "B", "A: claims not backed", "B: claims not backed"]].tolist() == [
        "correct", "wrong", "0 of 2", "1 of 2"]
    outcomes_ = workbook.comparison_outcomes(compared, 3).set_index("configuration")
    # per 100 answers: -14 and -4 over 12 questions
    assert outcomes_[["right", "declined", "wrong", "score per 100 answers at penalty 3"]].values.tolist() == [
        [4, 2, 6, -117], [5, 4, 3, -33]]
    assert workbook.one_sided_table(compared).empty
    said = workbook.comparison_sentences(compared)._repr_markdown_()
    assert said.startswith("- flagged by the judge: B is flagged by the judge on 1 fewer of 7 answers given by both \\(A alone on 3, "
                           "B alone on 2\\)")
    assert "  - left out: 3 answered by A only; 1 answered by B only; 1 answered by neither" in said
    summary = compared._repr_markdown_()
    assert "12 questions paired by id, both judged by `rules`." in summary
    assert "These figures come from judge rules 2 \u00b7 threshold 0.75 \u00b7 groundlab " in summary


def test_two_configurations_use_the_runs_shared_results_only_for_their_own_files(tmp_path):
    from conftest import CASES, CASES_B

    judged = {}
    for side, cases in (("a", CASES), ("b", CASES_B)):
        judged[side] = tmp_path / f"{side}.pkl"
        workbook.save_judged(judged[side], workbook.compare_judges(load_cases(cases, NOTES), ["rules"]),
                             workbook.judged_inputs(cases, NOTES))
    shared = workbook.compare_files(CASES, CASES_B, NOTES, judged_file=judged["a"], judged_file_b=judged["b"])
    here = workbook.compare_files(CASES, CASES_B, NOTES)
    assert shared.result.to_dict() == here.result.to_dict()
    assert shared.origin == "Verdicts from the run's shared results, each file judged once." and not here.origin
    with pytest.raises(GroundlabError, match="was judged from other cases"):
        workbook.compare_files(CASES, CASES_B, NOTES, judged_file=judged["b"], judged_file_b=judged["b"])


def test_two_configurations_refuse_what_cannot_be_compared(tmp_path):
    from conftest import CASES, CASES_B

    for kwargs, message in [({"cases_b": ""}, "cases_b is empty"),
                            ({"names": ["A", "A"]}, "names must be two different names"),
                            ({"names": ["A"]}, "names must be two different names"),
                            ({"pair_by": "text"}, "cases pair by id or question")]:
        args = {"cases": CASES, "cases_b": CASES_B, "passages": NOTES, **kwargs}
        with pytest.raises(GroundlabError, match=message):
            workbook.compare_files(**args)


def test_comparison_text_escapes_names_ids_and_questions(tmp_path):
    import json

    rows_a = [{"id": "<b>x</b>", "question": "<script>q</script>?", "retrieved": [{"id": "P1", "text": "Paid in 30 days."}],
               "answer": "Paid in 30 days [P1]."}]
    rows_b = [dict(rows_a[0], answer="Paid in 45 days [P1].")]
    rows_b.append(dict(rows_a[0], id="only|b", question="[link](javascript:x)"))
    paths = []
    for name, rows in (("a.jsonl", rows_a), ("b.jsonl", rows_b)):
        paths.append(tmp_path / name)
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    compared = workbook.compare_files(*paths, names=["<i>old</i>", "new"])
    said = workbook.comparison_sentences(compared)._repr_markdown_() + compared._repr_markdown_()
    assert "<i>" not in said and "&lt;i&gt;old&lt;/i&gt;" in said and "only\\|b" in said
    for frame in (workbook.changed_questions(compared), workbook.one_sided_table(compared),
                  workbook.comparison_table(compared)):
        page = workbook.table(frame).to_html()
        assert "<script>" not in page and "<b>x" not in page and "<i>old" not in page
    assert "&lt;script&gt;q&lt;/script&gt;?" in workbook.table(workbook.changed_questions(compared)).to_html()
    assert workbook.one_sided_table(compared).values.tolist() == [["new", "only|b", "[link](javascript:x)"]]


def test_judge_line_names_every_judge_and_escapes_outside_text(sample_cases):
    from groundlab.compare import compare

    ev = evaluate(sample_cases, "lexical")
    assert workbook.judge_line(ev)._repr_markdown_().startswith("These figures come from judge lexical 1 \u00b7 ")
    both = workbook.judge_line(workbook.compare_judges(sample_cases, ["lexical", "rules"]))._repr_markdown_()
    assert both.startswith("These figures come from:\n\n- judge lexical 1") and "\n- judge rules 2" in both
    assert workbook.judge_line(compare(sample_cases, sample_cases))._repr_markdown_().startswith(
        f"These figures come from judge signals 2 \u00b7 threshold {judge_registry.get_judge('signals').threshold:g}")
    hostile = {"name": "llm", "version": "1", "model": "<img src=x onerror=alert(1)>", "groundlab": "0.1.0"}
    line = workbook.judge_line(hostile)._repr_markdown_()
    assert line == "These figures come from judge llm 1 \u00b7 model `<img src=x onerror=alert(1)>` \u00b7 groundlab 0.1.0."
    assert workbook.judge_line(None)._repr_markdown_() == "These figures come from judge unknown."
    with pytest.raises(GroundlabError, match="judge_line takes a judged result"):
        workbook.judge_line(3)


def test_comparing_two_files_reads_each_of_them_once(monkeypatch):
    """compare_files reads both files to pair them, and judges what it read: no second reading."""
    from conftest import CASES, CASES_B

    module = sys.modules[workbook.compare_files.__module__]  # where compare_files reads the files
    read, load = [], module.load_cases
    monkeypatch.setattr(module, "load_cases", lambda path, *a, **k: (read.append(str(path)), load(path, *a, **k))[1])
    compared = workbook.compare_files(CASES, CASES_B, NOTES, "lexical")
    assert sorted(read) == sorted([str(CASES), str(CASES_B)])
    assert compared.result.names == ("A", "B") and all(ev is not None for ev in compared.evaluations)


def test_targets_read_once_serve_the_checks_and_the_report(tmp_path, monkeypatch):
    from conftest import CASES

    targets_file = tmp_path / "targets.toml"
    targets_file.write_text("max_rate = 0.5\n\n[kind]\namount = 0.02\n", encoding="utf-8")
    module = sys.modules["groundlab.production.targets"]
    calls, load = [], module.load_targets
    monkeypatch.setattr(module, "load_targets", lambda path: (calls.append(path), load(path))[1])
    goals = workbook.read_targets(targets_file)
    assert workbook.read_targets(goals) is goals and workbook.read_targets("") is None
    ev = evaluate(load_cases(CASES, NOTES), "lexical")
    check = workbook.check_targets(ev, goals, 1.0)
    written = workbook.write_steering_report(ev, 1.0, tmp_path / "report.md", targets=goals, html=False)
    assert calls == [targets_file]
    assert str(targets_file) in repr(check) and "**Targets** from" in written.text


def test_an_interactive_tables_caption_is_escaped_too(monkeypatch):
    import pandas as pd

    from groundlab.present import tables

    pytest.importorskip("itables")
    monkeypatch.setitem(tables._INTERACTIVE, "on", True)
    html = workbook.table(pd.DataFrame({"case": ["c1"]}), caption="<b>from the data</b>")._repr_html_()
    assert "<b>from the data</b>" not in html and "&lt;b&gt;from the data&lt;/b&gt;" in html


def test_the_comparison_says_what_the_files_are_only_for_the_sample_set(tmp_path):
    """Notebook 05 describes the sample pair (twelve questions, a revised assistant) only when it
    compares them, wherever they lie; of other files it says what it read and nothing more."""
    import shutil

    from conftest import CASES, CASES_B

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    shutil.copy(CASES, a)
    shutil.copy(CASES_B, b)
    assert "twelve questions" in workbook.compare_files(a, b, NOTES, "rules")._repr_markdown_()
    b.write_text("".join(CASES_B.read_text(encoding="utf-8").splitlines(keepends=True)[:-1]), encoding="utf-8")
    other = workbook.compare_files(a, b, NOTES, "rules")._repr_markdown_()
    assert "twelve" not in other and "revised assistant" not in other and "sample set" not in other
    assert "questions paired by id" in other


def test_the_html_copy_leaves_out_what_tells_its_reader_to_run_it():
    import nbformat

    from groundlab.present.notebooks import for_reading

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title\n\nRead on.\n\n*The outputs (tables, charts, each case unfolded) appear "
                                      "once the notebook has run: Run All here, or open the HTML copy.*"),
        nbformat.v4.new_markdown_cell("Run All here first.", metadata={"tags": ["how-to-run"]}),
        nbformat.v4.new_markdown_cell("A cell of one's own that mentions Run All stays.")])
    cells = for_reading(nb).cells
    assert [c.source for c in cells] == ["# Title\n\nRead on.", "A cell of one's own that mentions Run All stays."]
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        shown = for_reading(nbformat.read(str(path), as_version=4))
        assert not any("Run All" in c.source for c in shown.cells), path.name
