"""Stratified sampling by the judge's verdict, and the weights that correct the rate estimate."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from groundlab import GroundlabError, evaluate, hallucination_rate, load_cases
from groundlab.labeling import (
    ImportReport,
    SheetWaiting,
    export_sheet,
    fill_labels,
    import_labels,
    read_back,
    read_sheet,
    sheet_frame,
    write_sheet,
)
from groundlab.sampling import (
    LabeledSample,
    allocate,
    compare_rates,
    design_table,
    estimate_hallucination_rate,
    judge_on_sample,
    judge_strata,
    read_design,
    stratified_sample,
    weigh_back,
    weighted_rate,
    write_sample,
)

from conftest import CASES, NOTES


def case_frame(supported=0, unsupported=0, contradicted=0, abstained=0, undecided=0):
    """A case frame as evaluate() makes it, with that many answers of each kind."""
    rows = ([(2, 2, 0, 0, 0)] * supported + [(2, 1, 0, 1, 0)] * unsupported + [(2, 1, 1, 0, 0)] * contradicted
            + [(0, 0, 0, 0, 0)] * abstained + [(1, 0, 0, 0, 1)] * undecided)
    frame = pd.DataFrame(rows, columns=["claims", "supported", "contradicted", "unsupported", "errors"])
    frame.insert(0, "case_id", [f"r{i}" for i in range(len(frame))])
    return frame


def test_judge_strata():
    frame = case_frame(supported=2, unsupported=1, contradicted=1, abstained=1, undecided=1)
    assert list(judge_strata(frame)) == ["supported", "supported", "unsupported", "contradicted", "abstained",
                                         "undecided"]


def test_judge_strata_of_the_sample_set(sample_cases):
    strata = judge_strata(evaluate(sample_cases, "rules").cases)
    assert strata.value_counts().to_dict() == {"supported": 4, "unsupported": 3, "contradicted": 3, "abstained": 2}


@pytest.mark.parametrize("sizes, n, shares, expected", [
    ({"contradicted": 10, "supported": 990}, 100, None, {"contradicted": 10, "supported": 90}),
    ({"contradicted": 50, "supported": 950}, 100, None, {"contradicted": 50, "supported": 50}),
    ({"contradicted": 50, "supported": 950}, 100, "proportional", {"contradicted": 5, "supported": 95}),
    ({"contradicted": 50, "supported": 950}, 100, {"contradicted": 3, "supported": 1},
     {"contradicted": 50, "supported": 50}),
    ({"contradicted": 500, "supported": 500}, 100, {"contradicted": 3, "supported": 1},
     {"contradicted": 75, "supported": 25}),
    ({"contradicted": 1, "unsupported": 0, "supported": 3000}, 2, None, {"contradicted": 1, "supported": 1}),
    ({"contradicted": 500, "supported": 500}, 10, {"contradicted": 1}, {"contradicted": 9, "supported": 1}),
    ({"contradicted": 3, "supported": 4}, 50, None, {"contradicted": 3, "supported": 4}),
])
def test_allocate(sizes, n, shares, expected):
    seats = allocate(sizes, n, shares)
    assert seats == expected
    assert sum(seats.values()) == min(n, sum(sizes.values()))


@pytest.mark.parametrize("sizes, n, shares, message", [
    ({"contradicted": 5, "unsupported": 5, "supported": 5}, 2, None, "cannot hold one answer from each of the 3"),
    ({"contradicted": 5, "supported": 5}, 4, {"flagged": 1}, "stratum 'flagged', which does not exist"),
    ({"contradicted": 5, "supported": 5}, 4, {"contradicted": -1}, "shares must be 0 or more"),
    ({"contradicted": 5, "supported": 5}, 4, "random", "shares must be 'equal', 'proportional'"),
])
def test_allocate_rejects(sizes, n, shares, message):
    with pytest.raises(GroundlabError, match=message):
        allocate(sizes, n, shares)


def test_stratified_sample_over_represents_flagged_answers():
    log = case_frame(supported=900, unsupported=80, contradicted=20)
    design = stratified_sample(log, 90, seed=3)
    # Equal shares; the seats contradicted cannot use (it has 20) go to the others.
    assert design["stratum"].value_counts().to_dict() == {"supported": 35, "unsupported": 35, "contradicted": 20}
    weights = design.groupby("stratum")["weight"].first().to_dict()
    assert weights == {"contradicted": 1.0, "unsupported": 80 / 35, "supported": 900 / 35}
    # Every drawn answer stands for weight answers: together they stand for the whole log.
    assert design["weight"].sum() == pytest.approx(1000)
    assert design["case_id"].is_unique and set(design["case_id"]) <= set(log["case_id"])
    assert list(design["case_id"]) == [c for c in log["case_id"] if c in set(design["case_id"])]
    assert design.equals(stratified_sample(log, 90, seed=3))
    assert not design.equals(stratified_sample(log, 90, seed=4))


def test_weights_correct_the_rate():
    """With a person who agrees with the judge, the weighted rate is the log's rate; the plain rate over
    the over-sampled answers is not."""
    log = case_frame(supported=900, unsupported=80, contradicted=20)
    design = stratified_sample(log, 90, seed=0)
    person = design["stratum"] != "supported"
    answered = design  # no abstentions in this log
    sizes = answered.groupby("stratum")["population"].first().to_dict()
    estimate = weighted_rate(person, answered["stratum"], sizes)
    assert estimate.rate == pytest.approx(100 / 1000)
    assert person.mean() == pytest.approx(55 / 90)  # what the sample alone would say
    assert estimate.population == 1000 and estimate.labeled == 90
    assert estimate.low <= estimate.rate <= estimate.high
    assert estimate.by_stratum.set_index("stratum")["rate"].to_dict() == {
        "contradicted": 1.0, "unsupported": 1.0, "supported": 0.0}
    assert str(estimate).startswith("10% (95% range ")


def test_weighted_rate_interval():
    # Within strata the person disagrees now and then: the interval is Wilson on the effective size
    # the stratified variance gives (no Kish bound for the unequal weights, which would undo what
    # stratifying gains: bench/coverage.py measures the range's coverage without it).
    values = pd.Series([True] * 6 + [False] * 4 + [True] * 2 + [False] * 8)
    strata = pd.Series(["flagged"] * 10 + ["clean"] * 10)
    r = weighted_rate(values, strata, {"flagged": 100, "clean": 900})
    assert r.rate == pytest.approx(0.1 * 0.6 + 0.9 * 0.2)
    f, c = 6.5 / 11, 2.5 / 11  # each stratum's rate, smoothed for the variance
    var = 0.1 ** 2 * f * (1 - f) / 10 * 0.9 + 0.9 ** 2 * c * (1 - c) / 10 * (1 - 10 / 900)
    center = 0.1 * f + 0.9 * c
    assert r.effective_n == pytest.approx(min(20, 10 / 0.9, center * (1 - center) / var))
    low, high = proportion_confint(r.rate * r.effective_n, r.effective_n, method="wilson")
    assert (r.low, r.high) == pytest.approx((low, high))
    assert r.design_effect == pytest.approx(20 / r.effective_n)


def test_weighted_rate_interval_stays_honest_when_a_stratum_shows_nothing():
    """A large stratum whose sample holds no hallucination is still uncertain: the range must
    not collapse to what all labeled answers would give."""
    sizes = {"contradicted": 300, "unsupported": 300, "supported": 9400}
    strata = pd.Series(["contradicted"] * 100 + ["unsupported"] * 100 + ["supported"] * 100)
    values = pd.Series([True] * 2 + [False] * 98 + [True] * 2 + [False] * 98 + [False] * 100)
    r = weighted_rate(values, strata, sizes)
    assert r.effective_n < 120  # the big stratum has only a third of the labels
    assert r.high > 0.03  # about the Wilson bound of 0 in 100, weighted by the stratum's 94%


def test_weighted_rate_covers_the_true_rate():
    rng = np.random.default_rng(7)
    sizes, true, drawn = (300, 300, 9400), (0.02, 0.02, 0.03), (100, 100, 100)
    truth = sum(n * t for n, t in zip(sizes, true)) / sum(sizes)
    covered = 0
    for _ in range(300):
        values, strata = [], []
        for h, (t, n) in enumerate(zip(true, drawn)):
            values += list(rng.random(n) < t)
            strata += [str(h)] * n
        r = weighted_rate(pd.Series(values), pd.Series(strata), {str(h): n for h, n in enumerate(sizes)})
        covered += r.low <= truth <= r.high
    assert covered / 300 >= 0.93


def test_weighted_rate_census_is_the_plain_rate():
    values = pd.Series([True, False, False, True, False])
    r = weighted_rate(values, pd.Series(["a", "a", "b", "b", "b"]), {"a": 2, "b": 3})
    assert r.rate == pytest.approx(0.4) and r.effective_n == 5
    assert (r.low, r.high) == pytest.approx(proportion_confint(2, 5, method="wilson"))


def test_weighted_rate_skips_unlabeled_and_names_an_empty_stratum():
    values = pd.Series([True, None, False], dtype="boolean")
    r = weighted_rate(values, pd.Series(["a", "a", "b"]), {"a": 10, "b": 10})
    assert r.labeled == 2 and r.rate == pytest.approx(0.5)
    with pytest.raises(GroundlabError, match="no labeled answer stands for the 10 answers of the stratum 'b'"):
        weighted_rate(pd.Series([True, None], dtype="boolean"), pd.Series(["a", "b"]), {"a": 10, "b": 10})
    with pytest.raises(GroundlabError, match="stratum 'c', which the population sizes do not list"):
        weighted_rate(pd.Series([True]), pd.Series(["c"]), {"a": 10})


def test_sample_sheet_and_estimate_end_to_end(tmp_path, sample_cases):
    """Draw from the sample set, write the sample, label it through the sheet, estimate."""
    ev = evaluate(sample_cases, "rules")
    design = stratified_sample(ev.cases, 8, seed=0)
    assert design["stratum"].value_counts().to_dict() == {
        "contradicted": 2, "unsupported": 2, "supported": 2, "abstained": 2}

    unlabeled = tmp_path / "log.jsonl"
    objs = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    unlabeled.write_text("".join(json.dumps({k: v for k, v in o.items() if k != "labels"}) + "\n" for o in objs),
                         encoding="utf-8")
    sample = write_sample(unlabeled, design, tmp_path / "sample.jsonl")
    assert read_design(sample).equals(design)

    sheet = fill_labels(sheet_frame(load_cases(sample, NOTES)), sample_cases)
    write_sheet(sheet, tmp_path / "sheet.csv")
    import_labels(tmp_path / "sheet.csv", sample, tmp_path / "labeled.jsonl")
    assert read_design(tmp_path / "labeled.jsonl").equals(design)  # the weights travel with the cases

    labeled = evaluate(load_cases(tmp_path / "labeled.jsonl", NOTES), "rules")
    estimate = estimate_hallucination_rate(read_design(tmp_path / "labeled.jsonl"), labeled.cases)
    by = estimate.by_stratum.set_index("stratum")
    assert by["population"].to_dict() == {"contradicted": 3, "unsupported": 3, "supported": 4}
    assert estimate.population == 10 and estimate.labeled == 6
    expected = sum(by.loc[h, "population"] / 10 * by.loc[h, "rate"] for h in by.index)
    assert estimate.rate == pytest.approx(expected)
    plain = hallucination_rate(labeled.cases, by="person")
    assert (plain.count, plain.total) == (by["count"].sum(), 6)

    table = compare_rates(ev.cases, labeled.cases, estimate)
    assert list(table.index) == ["flagged by the judge, whole log (not the rate)", "person, sample as drawn",
                                 "person, weighted to the log"]
    assert table["answers"].tolist() == [10, 6, 6]
    assert table.loc["person, weighted to the log", "rate"] == round(estimate.rate, 3)
    shares = design_table(design)
    assert list(shares.index) == ["contradicted", "unsupported", "supported", "abstained"]
    assert shares["sampled"].sum() == 8 and shares["population"].sum() == 12


def test_write_sample_refuses_other_cases(tmp_path):
    design = pd.DataFrame({"case_id": ["nope"], "stratum": ["supported"], "population": [1], "sampled": [1],
                           "weight": [1.0]})
    with pytest.raises(GroundlabError, match="holds 0 of the 1 drawn cases"):
        write_sample(CASES, design, tmp_path / "s.jsonl")
    with pytest.raises(GroundlabError, match="has no \"sample\" design"):
        read_design(CASES)


def _round(tmp_path, log_path, seed=0):
    """Steps 1-3 of notebook 04: judge the log, draw 8, write the sample and its sheet."""
    log = load_cases(log_path, NOTES)
    ev = evaluate(log, "rules")
    design = stratified_sample(ev.cases, 8, seed=seed)
    sample = write_sample(log_path, design, tmp_path / "sample.jsonl")
    export_sheet(sample, tmp_path / "sheet.csv", passages=NOTES)
    return log, ev, sample


def _log_without_labels(tmp_path, keep=()):
    objs = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in o.items() if k != "labels" or o["id"] in keep}) + "\n"
                            for o in objs), encoding="utf-8")
    return path


def test_a_first_round_over_an_unlabeled_log_waits_for_the_sheet(tmp_path):
    """No filled sheet and no labels in the log: a note, not an import failing on empty labels."""
    log, ev, sample = _round(tmp_path, _log_without_labels(tmp_path))
    read = read_back(tmp_path / "sheet.csv", sample, tmp_path / "labeled.jsonl", cases=log)
    assert isinstance(read, SheetWaiting)
    assert str(read).startswith(f"The sheet {tmp_path / 'sheet.csv'} is waiting to be filled")
    assert "filled_sheet" in str(read) and "\n" not in str(read)
    assert not (tmp_path / "labeled.jsonl").exists() and not (tmp_path / "sheet-filled-demo.csv").exists()
    assert weigh_back(ev.cases, read, "rules", NOTES) is read  # the later steps say the same
    assert judge_on_sample(read) is read


def test_a_partly_labeled_log_stands_in_only_with_partial(tmp_path):
    log, _, sample = _round(tmp_path, _log_without_labels(tmp_path, keep={"c06"}))
    assert isinstance(read_back(tmp_path / "sheet.csv", sample, tmp_path / "labeled.jsonl", cases=log), SheetWaiting)
    read = read_back(tmp_path / "sheet.csv", sample, tmp_path / "labeled.jsonl", cases=log, partial=True)
    assert isinstance(read, ImportReport) and read.labeled_cases == 1


def test_a_labeled_log_stands_in_for_the_person_and_a_filled_sheet_wins(tmp_path, sample_cases):
    log, ev, sample = _round(tmp_path, CASES)
    read = read_back(tmp_path / "sheet.csv", sample, tmp_path / "labeled.jsonl", cases=log)
    assert isinstance(read, ImportReport) and read.sheet == tmp_path / "sheet-filled-demo.csv"
    result = weigh_back(ev.cases, read, "rules", NOTES)
    assert isinstance(result, LabeledSample)
    assert result.rates.index.tolist() == ["flagged by the judge, whole log (not the rate)", "person, sample as drawn",
                                           "person, weighted to the log"]
    assert "The person, weighted to the log:" in result._repr_html_()
    assert str(result).startswith("the person, weighted to the log: ")
    table = judge_on_sample(result)
    assert "caught 4/4 = 100% (51%\u2013100%)" in table.caption
    assert table.data[["case_id", "person", "judge"]].values.tolist() == [["c06", "unsupported", "contradicted"]]

    # people's own sheet: every claim supported, whatever the log said
    sheet = read_sheet(tmp_path / "sheet.csv")
    sheet.loc[sheet["claim_no"] != "", "label"] = "supported"
    write_sheet(sheet, tmp_path / "filled.csv")
    read = read_back(tmp_path / "sheet.csv", sample, tmp_path / "labeled.jsonl", filled_sheet=tmp_path / "filled.csv",
                     cases=log)
    assert read.sheet == tmp_path / "filled.csv"
    assert weigh_back(ev.cases, read, "rules", NOTES).estimate.rate == 0


def test_a_round_never_writes_over_a_sheet_someone_filled(tmp_path):
    """Notebook 04's round: a rerun with the same draw rewrites nothing; a sheet filled in place
    (and read back with filled_sheet) is left as it is, the new round's files going beside it."""
    from groundlab.labeling import write_round

    log = load_cases(CASES, NOTES)
    design = stratified_sample(evaluate(log, "rules").cases, 8, seed=0)
    first = write_round(CASES, design, tmp_path, passages=NOTES)
    assert (first.sample.name, first.sheet.name, first.labeled.name) == ("sample.jsonl", "sheet.csv", "labeled.jsonl")
    # the 6 drawn answers with claims hold 11, fewer than kappa within ±0.15 needs: all go to a second person too
    assert first.second.name == "second-person.csv" and (first.share.answers, first.share.claims) == (6, 11)
    assert "fewer than the 108 claims that would put Cohen's kappa within \u00b10.15, so within about \u00b10.47" \
        in str(first)
    assert set(first.written) == {first.sample, first.sheet, first.second, tmp_path / "GUIDELINES.md"}
    again = write_round(CASES, design, tmp_path, passages=NOTES)
    assert again.written == () and again.sheet == first.sheet and "nothing was rewritten" in str(again)

    sheet = read_sheet(first.sheet)
    sheet.loc[sheet["claim_no"] != "", "label"] = "supported"
    write_sheet(sheet, first.sheet, force=True)  # filled in place, against the advice
    filled = first.sheet.read_bytes()
    second = write_round(CASES, design, tmp_path, passages=NOTES)
    assert (second.sample.name, second.sheet.name, second.labeled.name, second.second.name) == \
        ("sample-2.jsonl", "sheet-2.csv", "labeled-2.jsonl", "second-person-2.csv")
    assert first.sheet.read_bytes() == filled and "left as it is" in str(second)
    read = read_back(second.sheet, second.sample, second.labeled, filled_sheet=first.sheet, cases=log)
    assert isinstance(read, ImportReport) and read.labeled_claims > 0
    assert first.sheet.read_bytes() == filled


def test_the_sample_and_the_labels_read_back_keep_a_line_separator_on_its_line(tmp_path, sample_cases):
    """An answer holding U+2028 stays one line of the sample and of the labeled cases: JSON may leave
    it raw, and a reader of lines splits there."""
    objs = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    objs[0]["question"] = objs[0]["question"] + "\u2028(asked twice)"
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8")
    ev = evaluate(load_cases(log, NOTES), "rules")
    design = stratified_sample(ev.cases, 12, seed=0)
    sample = write_sample(log, design, tmp_path / "sample.jsonl")
    text = sample.read_text(encoding="utf-8")
    assert "\u2028" not in text and "\\u2028" in text and len(text.splitlines()) == len(design)
    sheet = fill_labels(sheet_frame(load_cases(sample, NOTES)), sample_cases)
    write_sheet(sheet, tmp_path / "sheet.csv")
    import_labels(tmp_path / "sheet.csv", sample, tmp_path / "labeled.jsonl")
    labeled = (tmp_path / "labeled.jsonl").read_text(encoding="utf-8")
    assert "\u2028" not in labeled and len(labeled.splitlines()) == len(design)


def _whole_log_labeled(tmp_path, sample_cases, every=True):
    """The sample set drawn whole (every answered case) and labeled through the sheet."""
    ev = evaluate(sample_cases, "rules")
    design = stratified_sample(ev.cases, len(ev.cases), seed=0)
    sample = write_sample(_log_without_labels(tmp_path), design, tmp_path / "sample.jsonl")
    sheet = fill_labels(sheet_frame(load_cases(sample, NOTES)), sample_cases)
    if not every:  # the first answer with a claim left unlabeled
        first = sheet.index[sheet["claim_no"] != ""][0]
        sheet.loc[sheet["case_id"] == sheet.loc[first, "case_id"], "label"] = ""
    write_sheet(sheet, tmp_path / "sheet.csv")
    return import_labels(tmp_path / "sheet.csv", sample, tmp_path / "labeled.jsonl", partial=not every)


def test_a_small_log_fully_labeled_says_the_margin_it_reaches_not_enough_labels(tmp_path, sample_cases):
    """Every answer of a 10-answer log labeled: ±26 points read 'that is within ±5 points: enough labels'."""
    progress = _whole_log_labeled(tmp_path, sample_cases).progress
    assert (progress.labeled, progress.drawn, progress.population) == (10, 10, 10)
    assert not progress.enough and progress.more == 0
    text = str(progress)
    assert "enough labels" not in text and "within \u00b15 points" not in text
    assert text.endswith("from 10 labeled of the 10 answers drawn; the log is fully labeled and the margin it "
                         "reaches is \u00b126 points, not \u00b15 points: labeling more of this log cannot narrow it "
                         "(only more answers can).")
    # one answer short: labeling it is what is left, and it cannot reach ±5 points either
    (tmp_path / "short").mkdir()
    short = str(_whole_log_labeled(tmp_path / "short", sample_cases, every=False).progress)
    assert "labeling the other 1 would narrow it to about \u00b126 points, not \u00b15 points" in short


def test_every_drawn_answer_labeled_of_a_larger_log_asks_for_more_of_the_log():
    from groundlab.labeling.sampling import LabelProgress
    from groundlab.core.weighted import WeightedRate

    e = WeightedRate(0.5, 0.24, 0.76, 10, 4000, 10.0)
    assert "about 372 more answers of the log, drawn and labeled, would bring it within \u00b15 points" in str(
        LabelProgress(e, "", 10, 10, 372, 0.05, True, 0.05, 4000))
    assert "even the whole log of 30 labeled would narrow it only to about \u00b117 points" in str(
        LabelProgress(e, "", 10, 10, 0, 0.05, False, 0.17, 30))
    narrow = WeightedRate(0.5, 0.47, 0.53, 1000, 4000, 1000.0)
    assert str(LabelProgress(narrow, "", 1000, 1000, 0, 0.05, True, 0.03, 4000)).endswith("enough labels.")


def test_one_answer_left_to_label_is_one_answer(sample_cases):
    from dataclasses import replace

    from groundlab.present.headline import label_request_words
    from groundlab.summary import score_summary

    ev = evaluate([replace(c, labels=None) if c.id == "c01" else c for c in sample_cases], "signals")
    words = label_request_words(score_summary(ev))
    assert words.startswith("label the 1 answer still unlabeled (about 1 minute); 9 labeled so far; even with every "
                            "answer labeled the range stays about \u00b126 points")


def test_a_sample_of_declined_answers_only_is_not_called_enough_labels():
    from groundlab.labeling.sampling import SAMPLE_FIELD, label_progress

    records = [{"id": f"a{k}", "labels": [], SAMPLE_FIELD: {"stratum": "abstained", "population": 3}} for k in range(3)]
    progress = label_progress(records, lambda r: 0)
    assert progress.drawn == 0 and not progress.enough
    assert str(progress).startswith("no answer drawn holds a claim, so the labels give no hallucination rate")
