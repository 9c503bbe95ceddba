"""Severity by process and kind of claim: the process field, the breakdown with Wilson ranges, the
targets table judged on the upper end of the range, and the weighted risk score."""

from __future__ import annotations

import json
import re
import math
from pathlib import Path

import pandas as pd
import pytest

from groundlab import InputError, evaluate, load_cases, risk_weighted_score
from groundlab.metrics import (answer_weights, claim_hallucination_rate, hallucination_breakdown,
                               weighted_risk_score)
from groundlab.stats import wilson_interval
from groundlab.targets import load_targets, target_table, targets_met

from conftest import CASES, NOTES

#: The sample cases put in two processes; c10 and c11 carry none.
PROCESS = {"c01": "procure-to-pay", "c02": "procure-to-pay", "c05": "procure-to-pay", "c06": "procure-to-pay",
           "c09": "procure-to-pay", "c03": "order-to-cash", "c04": "order-to-cash", "c07": "order-to-cash",
           "c08": "order-to-cash", "c12": "order-to-cash"}


@pytest.fixture
def with_process(tmp_path):
    out = tmp_path / "cases.jsonl"
    lines = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        if obj["id"] in PROCESS:
            obj["process"] = PROCESS[obj["id"]]
        lines.append(json.dumps(obj))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.fixture
def ev(with_process):
    return evaluate(load_cases(with_process, NOTES), "rules")


def write(tmp_path, text: str, name: str = "targets.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- the process field


def test_process_is_read_and_becomes_a_column(ev):
    process = ev.cases.set_index("case_id")["process"]
    assert process["c01"] == "procure-to-pay" and process["c07"] == "order-to-cash"
    assert process["c10"] is None and process["c11"] is None


def test_cases_without_process_have_none(sample_cases):
    assert all(case.process is None for case in sample_cases)
    assert evaluate(sample_cases).cases["process"].isna().all()


@pytest.mark.parametrize("value, shown", [(7, "7"), ("", '""'), ("  ", '"  "'), (["p2p"], '["p2p"]'),
                                          (True, "true")])
def test_a_bad_process_is_one_sentence_naming_line_and_case(cli, tmp_path, value, shown):
    cases = tmp_path / "cases.jsonl"
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    rows[2]["process"] = value
    cases.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_cases(cases, NOTES)
    message = str(exc.value)
    assert f"{cases} line 3 (case c03)" in message and '"process"' in message and shown in message
    code, out, err = cli("score", "--cases", cases, "--passages", NOTES)
    assert code == 2 and out == "" and err.strip() == f"groundlab: {message}"


def test_a_null_process_is_no_process(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"id": "a", "question": "Q?", "retrieved": [{"id": "P", "text": "Pay in 30 days."}],
                                 "answer": "Pay in 30 days [P].", "process": None}) + "\n", encoding="utf-8")
    assert load_cases(cases)[0].process is None


# ---------------------------------------------------------------- the breakdown


def _range(count, total):
    return tuple(round(x, 6) for x in wilson_interval(count, total))


def test_breakdown_by_kind_and_process_with_ranges(ev):
    frame = hallucination_breakdown(ev.claims, ev.cases)
    got = {(r.by, r.group): (r.unit, r.hallucinated, r.total, round(r.rate, 6), round(r.low, 6), round(r.high, 6))
           for r in frame.itertuples()}
    # By kind (claims; c06's claim is a date and a quantity, so it counts in both rows):
    # id: c11 1 supported, 2 unsupported; date: c06, c10/2 both flagged; quantity: c01 x2, c03 x2
    # supported, c02/1 and c06 flagged; the other 11 claims, 3 flagged (c02/2, c05/2, c08).
    expected_kinds = {"id": (1, 2), "date": (2, 2), "quantity": (2, 6), "other": (3, 11)}
    # By process (answers): procure-to-pay c02 c05 c06 of c01 c02 c05 c06 c09; order-to-cash c08 of
    # c03 c07 c08 (c04 and c12 abstain); no process: c10 and c11, both flagged.
    expected_processes = {"order-to-cash": (1, 3), "procure-to-pay": (3, 5), "(no process)": (2, 2)}
    assert list(frame["group"]) == list(expected_kinds) + list(expected_processes)
    for kind, (count, total) in expected_kinds.items():
        assert got[("kind", kind)] == ("claims", count, total, round(count / total, 6)) + _range(count, total)
    for process, (count, total) in expected_processes.items():
        assert got[("process", process)] == ("answers", count, total, round(count / total, 6)) + _range(count, total)
    assert frame.loc[frame["group"] == "(no process)", "process"].isna().all()


def test_breakdown_by_process_and_kind(ev):
    frame = hallucination_breakdown(ev.claims, ev.cases, by=("process kind",)).set_index("group")
    # procure-to-pay quantity claims: c01 x2 supported, c02/1 contradicted, c06 contradicted
    assert tuple(frame.loc["procure-to-pay / quantity", ["hallucinated", "total"]]) == (2, 4)
    assert tuple(frame.loc["order-to-cash / quantity", ["hallucinated", "total"]]) == (0, 2)
    assert tuple(frame.loc["(no process) / id", ["hallucinated", "total"]]) == (1, 2)


def test_breakdown_leaves_out_processes_when_no_case_has_one(sample_cases):
    e = evaluate(sample_cases)
    assert set(hallucination_breakdown(e.claims, e.cases)["by"]) == {"kind"}


def test_claims_the_judge_could_not_decide_are_left_out(ev):
    claims = ev.claims.copy()
    claims.loc[claims["case_id"] == "c11", "verdict"] = None
    frame = hallucination_breakdown(claims, ev.cases).set_index("group")
    assert "id" not in frame.index
    assert claim_hallucination_rate(claims).total == 18


def test_score_shows_the_breakdown_and_json_adds_it_only_when_asked(cli, with_process):
    code, out, _ = cli("score", "--cases", with_process, "--passages", NOTES, "--judge", "rules")
    assert code == 0
    assert "kind quantity" in out and "2/6 claims" in out and "process procure-to-pay" in out and "3/5 answers" in out
    plain = cli.json("score", "--cases", with_process, "--passages", NOTES, "--judge", "rules")
    assert "by_kind" not in plain and "by_process" not in plain
    s = cli.json("score", "--cases", with_process, "--passages", NOTES, "--breakdown", "--judge", "rules")
    assert list(s)[:len(plain)] == list(plain)  # the existing keys, in order, then the new ones
    assert s["by_kind"][2] == {"kind": "quantity", "hallucinated": 2, "claims": 6, "rate": 2 / 6,
                               "low": pytest.approx(wilson_interval(2, 6)[0]),
                               "high": pytest.approx(wilson_interval(2, 6)[1])}
    assert [(p["process"], p["hallucinated"], p["answered"]) for p in s["by_process"]] == [
        ("order-to-cash", 1, 3), ("procure-to-pay", 3, 5), (None, 2, 2)]


# ---------------------------------------------------------------- targets

TARGETS = """
max_rate = 0.7                 # 6/10 = 60%, range 31%-83%: within the target but not shown to be

[kind]
date = 0.5                     # 2/2: above the target
quantity = 0.9                 # 2/6 = 33%, range 10%-70%: passes
amount = 0.05                  # no amount claim: no data

[process]
"procure-to-pay" = 0.9         # 3/5 = 60%, range 23%-88%: passes
order-to-cash = 0.2            # 1/3: above

[[target]]
process = "procure-to-pay"
kind = "quantity"
max_rate = 0.95                # 2/4 = 50%, range 15%-85%: passes

[weights]
id = 2
date = 3
"""


def test_the_overall_target_waits_for_people_and_takes_the_corrected_rate(tmp_path, ev):
    from dataclasses import replace

    targets = load_targets(write(tmp_path, "max_rate = 0.5\n"))
    unlabeled = evaluate([replace(c, labels=None) for c in load_cases(CASES, NOTES)], "rules")
    row = target_table(targets, unlabeled.claims, unlabeled.cases).set_index("target").loc["all answers"]
    assert row["status"] == "not measured" and "label the answers the report asks for" in row["note"]
    some = evaluate([c if c.id in {"c01", "c02", "c03", "c05", "c06", "c08", "c10", "c11"} else replace(c, labels=None)
                     for c in load_cases(CASES, NOTES)], "rules")
    row = target_table(targets, some.claims, some.cases).set_index("target").loc["all answers"]
    from groundlab.summary import score_summary

    h = score_summary(some)["hallucination_rate"]
    assert h["basis"] == "corrected" and (row["rate"], row["high"]) == (h["rate"], h["high"])


def test_targets_table_passes_and_fails_on_the_upper_end(tmp_path, ev):
    targets = load_targets(write(tmp_path, TARGETS))
    table = target_table(targets, ev.claims, ev.cases).set_index("target")
    assert list(table.index) == ["all answers", "kind amount", "kind date", "kind quantity",  # kinds by severity
                                 "process procure-to-pay", "process order-to-cash", "procure-to-pay / quantity"]
    status = table["status"].to_dict()
    assert status == {"all answers": "fail", "kind date": "fail", "kind quantity": "pass", "kind amount": "no data",
                      "process procure-to-pay": "pass", "process order-to-cash": "fail",
                      "procure-to-pay / quantity": "pass"}
    overall = table.loc["all answers"]
    # on the hallucination rate, people's (the decision panel's): 5 of 10, where the judge flags 6
    assert (overall["hallucinated"], overall["total"]) == (5, 10)
    assert overall["rate"] <= overall["max_rate"] < overall["high"]  # the rate alone would have passed
    assert "more answers are needed" in overall["note"]
    assert "above the target" in table.loc["kind date", "note"]
    for name in ("kind quantity", "process procure-to-pay", "procure-to-pay / quantity"):
        assert table.loc[name, "high"] <= table.loc[name, "max_rate"]
    assert math.isnan(table.loc["kind amount", "high"])
    assert not targets_met(table.reset_index())
    assert targets.weights == {"id": 2.0, "date": 3.0}


def test_score_with_targets_exits_1_when_one_fails_and_0_when_all_pass(cli, tmp_path, with_process):
    args = ("score", "--cases", with_process, "--passages", NOTES, "--penalty", "3", "--judge", "rules")
    code, out, err = cli(*args, "--targets", write(tmp_path, TARGETS))
    assert code == 1
    assert "targets met: 3 of 7" in out and "no data" in out and "weighted risk score, by the judge's verdicts: -29" in out
    assert "4 of 7 targets" in err
    passing = write(tmp_path, "[kind]\nquantity = 0.9\n[process]\n\"procure-to-pay\" = 0.9\n", "pass.toml")
    code, out, err = cli(*args, "--targets", passing, "--json")
    assert code == 0, err
    s = json.loads(out)
    assert s["targets"]["met"] is True and s["targets"]["count"] == 2 and s["targets"]["failed"] == 0
    assert s["targets"]["not_measured"] == 0
    assert [r["status"] for r in s["targets"]["rows"]] == ["pass", "pass"]
    assert s["weighted_risk_score"] == {"score": -14.0, "penalty": 3.0, "weights": {}}  # no weights: the plain score
    assert s["risk_weighted_score"] == -14.0 and "by_kind" in s


def test_score_with_targets_on_a_log_without_labels_cannot_decide_yet(cli, tmp_path):
    """The overall target rests on people's rate: with no labels it is not measured, which is
    neither met nor missed: exit 2 with one sentence saying what to label; with some labels the
    corrected rate decides, its range printed without a count."""
    cases = [json.loads(line) for line in Path(CASES).read_text(encoding="utf-8").splitlines()]
    for case in cases:
        case.pop("labels", None)
    unlabeled = tmp_path / "unlabeled.jsonl"
    unlabeled.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    targets = write(tmp_path, "max_rate = 0.05\n")
    code, out, err = cli("score", "--cases", unlabeled, "--passages", NOTES, "--targets", targets)
    assert code == 2 and "Traceback" not in err
    assert "not measured" in out and "targets met: 0 of 1 (1 not measured yet)" in out
    assert "1 of 1 targets" in err and "cannot be decided yet" in err and "label the answers" in err
    code, out, err = cli("score", "--cases", unlabeled, "--passages", NOTES, "--targets", targets, "--json")
    assert code == 2
    t = json.loads(out)["targets"]
    assert (t["met"], t["failed"], t["not_measured"]) == (False, 0, 1)
    # a failing target beside an unmeasured one: not met, exit 1
    both = write(tmp_path, "max_rate = 0.05\n[kind]\ndate = 0.5\n", "both.toml")
    code, out, err = cli("score", "--cases", unlabeled, "--passages", NOTES, "--targets", both, "--judge", "rules")
    assert code == 1 and "1 of 2 targets" in err and "not met" in err
    # some answers labeled: the corrected rate and its range, no count
    labeled = {"c01", "c02", "c03", "c05", "c06", "c08", "c10", "c11"}
    original = [json.loads(line) for line in Path(CASES).read_text(encoding="utf-8").splitlines()]
    some = tmp_path / "some.jsonl"
    some.write_text("".join(json.dumps(c if c["id"] in labeled else {k: v for k, v in c.items() if k != "labels"})
                            + "\n" for c in original), encoding="utf-8")
    code, out, err = cli("score", "--cases", some, "--passages", NOTES, "--targets", targets)
    assert code == 1 and "Traceback" not in err
    row = next(line for line in out.splitlines() if line.startswith("all answers"))
    assert "10 answers" in row and "fail" in row and "%\u2013" in row


@pytest.mark.parametrize("text, words", [
    ("[kind]\namuont = 0.1\n", ["kind.amuont", "'amuont' is not a kind", "id, amount, date, quantity or other"]),
    ("[kind]\namount = 1.5\n", ["kind.amount = 1.5", "between 0 and 1"]),
    ("[kind]\namount = -0.1\n", ["kind.amount = -0.1", "between 0 and 1"]),
    ("[kind]\namount = \"2%\"\n", ["kind.amount = '2%'", "write 2% as 0.02"]),
    ("max_rate = 2\n", ["max_rate = 2", "between 0 and 1"]),
    ("[process]\np2p = true\n", ["process.p2p = true", "between 0 and 1"]),
    ("[kind\namount = 0.1\n", ["is not valid TOML", "line 1"]),
    ("[kinds]\namount = 0.1\n", ["unknown key 'kinds'", "[kind]"]),
    ("kind = 0.1\n", ["kind must be a table"]),
    ("[weights]\nmoney = 2\n", ["weights.money", "not a kind"]),
    ("[weights]\namount = -1\n", ["weights.amount = -1", "0 or more"]),
    ("[[target]]\nprocess = \"p2p\"\nkind = \"amount\"\n", ["[[target]] number 1 lacks 'max_rate'"]),
    ("[[target]]\nprocess = \"p2p\"\nkind = \"money\"\nmax_rate = 0.1\n", ["[[target]] number 1: kind", "'money'"]),
    ("# nothing here\n", ["sets no target"]),
])
def test_a_bad_targets_file_is_one_sentence_naming_file_and_key(cli, tmp_path, sample_args, text, words):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as exc:
        load_targets(path)
    message = str(exc.value)
    assert str(path) in message
    for word in words:
        assert word in message, message
    code, out, err = cli("score", *sample_args, "--targets", path)
    assert code == 2 and out == "" and err.strip() == f"groundlab: {message}"


def test_a_missing_targets_file_stops_before_judging(cli, tmp_path, sample_args):
    code, out, err = cli("score", *sample_args, "--targets", tmp_path / "nope.toml")
    assert code == 2 and "targets file" in err and "nope.toml" in err and "does not exist" in err


# ---------------------------------------------------------------- the weighted risk score


def test_weighted_score_by_hand(ev):
    weights = {"id": 2, "date": 3}
    # Wrong answers and their heaviest flagged kind: c02 quantity/other 1, c05 other 1, c06
    # date+quantity 3, c08 other 1, c10 date 3, c11 id 2: 11 in all. Correct: c01 c03 c07 c09.
    w = answer_weights(ev.claims, ev.cases, weights).set_axis(ev.cases["case_id"])
    assert w[["c02", "c05", "c06", "c08", "c10", "c11"]].tolist() == [1, 1, 3, 1, 3, 2]
    assert weighted_risk_score(ev.claims, ev.cases, weights, 3) == 4 - 3 * 11 == -29
    assert weighted_risk_score(ev.claims, ev.cases, weights, 1) == 4 - 11
    # Every weight 1 (or none given): the plain risk-weighted score.
    assert weighted_risk_score(ev.claims, ev.cases, {}, 3) == risk_weighted_score(ev.cases, 3) == -14
    # Withholding every flagged answer leaves no wrong one (c11, the unanswerable, is flagged too).
    assert weighted_risk_score(ev.claims, ev.cases, weights, 3, withhold_flagged=True) == \
        risk_weighted_score(ev.cases, 3, withhold_flagged=True) == 4


def test_a_wrong_answer_without_a_flagged_claim_weighs_its_heaviest_claim(tmp_path):
    cases = tmp_path / "cases.jsonl"
    fee = {"id": "P", "text": "The handling fee is EUR 40 per order."}
    rows = [{"id": "a", "question": "What is the fee?", "retrieved": [fee], "answerable": False,
             "answer": "The handling fee is EUR 40 per order [P]."},
            {"id": "b", "question": "What is the fee?", "retrieved": [fee], "answerable": True,
             "answer": "The handling fee is EUR 40 per order [P]."}]
    cases.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    e = evaluate(load_cases(cases))
    assert e.cases["outcome"].tolist() == ["wrong", "correct"] and e.claims["kind"].tolist() == ["amount", "amount"]
    assert answer_weights(e.claims, e.cases, {"amount": 5}).tolist() == [5.0, 5.0]
    assert weighted_risk_score(e.claims, e.cases, {"amount": 5}, 2) == 1 - 2 * 5


def test_a_target_over_answers_the_judge_could_not_decide_has_no_data(tmp_path, ev):
    cases, claims = ev.cases.copy(), ev.claims.copy()
    undecided = cases["process"] == "order-to-cash"
    cases.loc[undecided, "hallucinated"] = pd.NA
    claims.loc[claims["case_id"].isin(cases.loc[undecided, "case_id"]), "verdict"] = None
    targets = load_targets(write(tmp_path, '[process]\n"order-to-cash" = 0.5\n[[target]]\nprocess = "order-to-cash"\n'
                                           'kind = "quantity"\nmax_rate = 0.5\n'))
    table = target_table(targets, claims, cases)
    assert table["status"].tolist() == ["no data", "no data"] and table["total"].tolist() == [0, 0]


# ---------------------------------------------------------------- the steering report and notebook 03


def test_report_breaks_the_problems_down_and_checks_targets(tmp_path, ev):
    from groundlab.report import html_report, steering_report

    ev.cases.loc[ev.cases["case_id"] == "c08", "process"] = "o2c | <b>x</b> [y](javascript:z)"
    text = steering_report(ev, 3, "cases.jsonl", load_targets(write(tmp_path, TARGETS)))
    table = text[text.index("**Where the judge flags problems**"):text.index("**Targets**")]
    assert table.splitlines()[2:] == [
        "| | flagged | count | 95% range |", "| --- | ---: | ---: | --- |",
        "| kind id | 50% | 1 of 2 claims | 9%\u201391% |",
        "| kind date | 100% | 2 of 2 claims | 34%\u2013100% |",
        "| kind quantity | 33% | 2 of 6 claims | 10%\u201370% |",
        "| kind other | 27% | 3 of 11 claims | 10%\u201357% |",
        "| process o2c \\| &lt;b&gt;x&lt;/b&gt; \\[y\\]\\(javascript:z\\) | 100% | 1 of 1 answer | 21%\u2013100% |",
        "| process order\\-to\\-cash | 0% | 0 of 2 answers | 0%\u201366% |",
        "| process procure\\-to\\-pay | 60% | 3 of 5 answers | 23%\u201388% |",
        "| process \\(no process\\) | 100% | 2 of 2 answers | 34%\u2013100% |", ""]
    assert "\u2717 3 of 7 met, each" in text  # the symbol beside the colour, never colour alone
    assert "| process order\\-to\\-cash | \u2264 20% | 0% (0 of 2) | 0%\u201366% | ? fail |" in text
    # per 100 answers, as everywhere: -29 over 12 answers
    assert ("weighted by what each wrong answer got wrong, \u2212242 per 100 answers (its heaviest wrong kind weighs "
            "id 2, date 3, others 1).") in text
    page = html_report(text)
    assert page.count("<table>") == 2 and "<script" not in page.lower()
    assert set(re.findall(r'href="([^"]*)"', page)) == {"#rests-on"}  # only the tiles' links down: nothing from the text
    assert "<td>process o2c | &lt;b&gt;x&lt;/b&gt; [y](javascript:z)</td>" in page  # one cell, shown as written
    assert "<td>kind amount</td>\n<td style=\"text-align:right\">\u2264 5%</td>" in page
    plain = steering_report(ev, 3)
    assert "**Targets**" not in plain and "weighted by" not in plain and "| kind id |" in plain


def test_report_without_processes_or_claims(sample_cases):
    from dataclasses import replace

    from groundlab.report import steering_report

    text = steering_report(evaluate(sample_cases))
    assert ("(claims the judge did not find supported; a claim counts under each kind it states); no case names "
            "its process:") in text
    assert "| process" not in text
    silent = [replace(case, answer="I can't find that in the retrieved notes.", labels=None) for case in sample_cases]
    assert "**Where the problems are:** no judged claim to break down by kind or process." in steering_report(
        evaluate(silent))


def test_score_report_carries_the_targets(cli, tmp_path, with_process):
    report = tmp_path / "report.md"
    code, out, err = cli("score", "--cases", with_process, "--passages", NOTES, "--penalty", "3",
                         "--targets", write(tmp_path, TARGETS), "--report", report, "--judge", "rules")
    assert code == 1  # targets not met; the report is written all the same
    text = report.read_text(encoding="utf-8")
    assert "| process procure\\-to\\-pay | 60% | 3 of 5 answers | 23%\u201388% |" in text
    assert "\u2717 3 of 7 met, each" in text and "| kind amount | \u2264 5% | n/a | \u2014 | \u2013 no data |" in text
    assert "risk-weighted score at penalty 3: \u221214 over 12 answers (\u2212117 per 100 answers)" in text
    assert "weighted by what each wrong answer got wrong, \u2212242 per 100 answers" in text


def test_notebook_views_of_the_breakdown_and_targets(tmp_path, ev):
    from groundlab import workbook

    frame = workbook.breakdown_table(hallucination_breakdown(ev.claims, ev.cases))
    assert frame.columns.tolist() == ["by", "group", "count", "rate", "low", "high"]
    assert frame.iloc[4, :3].tolist() == ["process", "order-to-cash", "1 of 3 answers with a claim not supported"]
    assert frame["by"].tolist()[:4] == ["kind of claim"] * 4
    none = workbook.check_targets(ev, "", 3)
    assert "No targets file is set" in none._repr_markdown_()
    check = workbook.check_targets(ev, write(tmp_path, TARGETS), 3)
    assert (check.met, len(check.table), check.plain, check.weighted) == (3, 7, -14.0, -29.0)
    assert repr(check).splitlines()[1] == ("Weighted risk score \u2212242 per 100 answers beside the plain \u2212117 "
                                           "per 100 answers at penalty 3: a wrong answer weighs as much as the "
                                           "heaviest kind of fact it got wrong (id 2, date 3, others 1).")
    hostile = write(tmp_path, '[process]\n"<script>p2p</script>" = 0.5\n', "hostile.toml")
    page = workbook.check_targets(ev, hostile, 1)._repr_html_()
    assert "<script" not in page and "process &lt;script&gt;p2p&lt;/script&gt;" in page and "no data" in page
    with pytest.raises(InputError, match="is not a rate between 0 and 1"):
        workbook.check_targets(ev, write(tmp_path, "max_rate = 2\n", "bad.toml"))


def test_score_never_writes_its_report_over_its_targets_or_judge_config_even_with_force(cli, tmp_path):
    from groundlab.judges.signals import DEFAULT_CONFIG
    import groundlab

    targets = write(tmp_path, TARGETS)
    config = tmp_path / "judge.json"
    config.write_bytes((Path(groundlab.__file__).parent / "data" / DEFAULT_CONFIG).read_bytes())
    for args, kept in ((("--judge", "rules", "--targets", targets, "--report", targets), targets),
                       (("--judge-config", config, "--report", config), config)):
        before = kept.read_bytes()
        code, stdout, err = cli("score", "--cases", CASES, "--passages", NOTES, *args, "--force")
        assert code == 2 and "is also the input; nothing was written" in err, err
        assert kept.read_bytes() == before


def test_control_characters_in_the_data_reach_neither_the_terminal_nor_the_report(cli, tmp_path):
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    for row in rows[:4]:
        row["process"] = "p2\x1b[31mRED\x1b[0m\u202e\x9b"
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    targets = write(tmp_path, '[process]\n"p2\\u001b[31mRED\\u001b[0m\\u202e\\u009b" = 0.5\n')  # TOML escapes
    report = tmp_path / "report.md"
    code, out, err = cli("score", "--cases", cases, "--passages", NOTES, "--judge", "rules", "--targets", targets,
                         "--report", report)
    assert code in (0, 1), err
    written = report.read_text(encoding="utf-8")
    for text in (out, err, written):
        assert not any(ch in text for ch in "\x1b\u202e\x9b")
    assert "p2\\u001b[31mRED" in out  # shown, as an escape
    code, out, err = cli("score", "--cases", tmp_path / "nope\x1b[2J.jsonl")
    assert code == 2 and "\x1b" not in err and "nope\\u001b[2J.jsonl" in err


@pytest.mark.parametrize("argv, message", [
    (["--targets", "WEIGHTS", "--penalty", "3"], "the penalty 3 times the weight of amount, 1e+308, makes a wrong answer "
                                                 "cost 3 x 1e+308 correct ones, more than the 1e+100 a risk score counts"),
    (["--penalty", "1e307"], "the penalty 1e+307 makes a wrong answer cost 1e+307 correct ones, more than the 1e+100"),
])
def test_a_penalty_and_weights_past_what_a_score_can_count_are_one_sentence(cli, tmp_path, argv, message):
    """score --json wrote -Infinity (not JSON) from weights of 1e308: such a cost is refused before
    anything is judged, in one sentence."""
    weights = tmp_path / "targets.toml"
    weights.write_text("[weights]\namount = 1e308\ndate = 2\n", encoding="utf-8")
    argv = [str(weights) if a == "WEIGHTS" else a for a in argv]
    code, out, err = cli("score", "--cases", CASES, "--passages", NOTES, "--json", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
    weights.write_text("[weights]\namount = 1e90\n", encoding="utf-8")  # large, but a score still counts it
    code, out, err = cli("score", "--cases", CASES, "--passages", NOTES, "--json", "--targets", weights)
    assert code == 0, err
    def strict(name):
        raise AssertionError(f"{name} is not JSON")
    assert json.loads(out, parse_constant=strict)["weighted_risk_score"]["weights"] == {"amount": 1e90}
