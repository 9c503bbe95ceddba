"""Release gates: ``score --fail-if`` exit codes, every rate's range in ``score --json``, and the
pytest helper ``groundlab.testing.assert_grounded``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundlab import GroundlabError
from groundlab.gate import failing, parse_condition
from groundlab.summary import SCORE_FIGURES
from groundlab.testing import assert_grounded

from conftest import CASES, NOTES


def _numeric_leaves(value, prefix=""):
    if isinstance(value, dict):
        for key, sub in value.items():
            if key != "judge_identity":
                yield from _numeric_leaves(sub, f"{prefix}{key}.")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield prefix[:-1]


def test_every_rate_in_score_json_has_its_range_and_every_figure_is_gateable(cli, sample_args):
    s = cli.json("score", *sample_args)
    for name in ("faithfulness", "hallucination_rate", "hallucination_rate_by_person", "hallucination_rate_corrected",
                 "citation_recall", "citation_precision", "abstention", "false_abstention", "accuracy_score"):
        rate = s[name]
        assert rate["low"] <= rate["rate"] <= rate["high"], name
    assert (s["abstention"]["rate"], round(s["abstention"]["low"], 2), round(s["abstention"]["high"], 2)) == \
        (1 / 3, 0.06, 0.79)
    assert sorted(_numeric_leaves(s)) == sorted(f for f in SCORE_FIGURES if not f.startswith("label_request."))
    # the label request is there while some answer is unlabeled: its figures may be gated on too
    unlabeled = cli.json("score", "--cases", _unlabeled(), "--passages", NOTES)
    request = {f for f in _numeric_leaves(unlabeled) if f.startswith("label_request.")
               and not f.startswith(("label_request.by_stratum.", "label_request.priors.", "label_request.sizes."))}
    assert request == {f for f in SCORE_FIGURES if f.startswith("label_request.")} - {"label_request.budget"}
    assert unlabeled["hallucination_rate"]["rate"] is None and unlabeled["flagged_by_judge"]["rate"] == 0.6


def _unlabeled():
    import tempfile

    path = Path(tempfile.mkdtemp()) / "unlabeled.jsonl"
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "labels"}) + "\n" for r in rows),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("text, figure, op, threshold", [
    ("hallucination_rate.high > 0.10", "hallucination_rate.high", ">", 0.10),
    ("false_abstention.rate>20%", "false_abstention.rate", ">", 0.20),
    ("outcomes.wrong >= 3", "outcomes.wrong", ">=", 3),
    ("risk_weighted_score < -1.5", "risk_weighted_score", "<", -1.5),
    (" errors == 0 ", "errors", "==", 0),
    ("faithfulness.low != .5", "faithfulness.low", "!=", 0.5),
    ("faithfulness.low <= 1e-1", "faithfulness.low", "<=", 0.1),
])
def test_conditions_are_read(text, figure, op, threshold):
    c = parse_condition(text)
    assert (c.figure, c.op, c.threshold) == (figure, op, pytest.approx(threshold))


@pytest.mark.parametrize("text", ["hallucination_rate.high >> 0.1", "hallucination_rate.high > ten",
                                  "> 0.1", "hallucination_rate.high", "hallucination rate > 0.1", ""])
def test_a_malformed_condition_is_one_sentence(text):
    with pytest.raises(GroundlabError, match="cannot be read; write it as FIGURE OP NUMBER"):
        parse_condition(text)


def test_each_operator_compares_as_written():
    s = {"outcomes": {"wrong": 6}}
    holds = {op: bool(failing([f"outcomes.wrong {op} 6"], s)) for op in ("<", "<=", ">", ">=", "==", "!=")}
    assert holds == {"<": False, "<=": True, ">": False, ">=": True, "==": True, "!=": False}


def test_gate_passes_with_exit_0_and_says_so(cli, sample_args):
    # the rules judge, whose figures on the sample set are the reference ones (SPEC 6)
    code, out, err = cli("score", *sample_args, "--judge", "rules", "--json",
                         "--fail-if", "hallucination_rate.high > 0.9", "--fail-if", "false_abstention.rate > 20%")
    assert code == 0 and json.loads(out)["hallucination_rate"]["rate"] == 0.5  # people's, on every answer
    assert json.loads(out)["flagged_by_judge"]["rate"] == 0.6
    assert "gate passed: none of 2 conditions held" in err


def test_gate_fails_with_exit_1_naming_the_condition_and_its_figures(cli, sample_args):
    code, out, err = cli("score", *sample_args, "--judge", "rules", "--json",
                         "--fail-if", "hallucination_rate.high > 0.10", "--fail-if", "false_abstention.rate > 0.2",
                         "--fail-if", "flagged_by_judge.high > 0.8")
    assert code == 1
    assert json.loads(out)["hallucination_rate"]["high"] > 0.7  # the figures are still printed
    assert "gate failed: 2 of 3 conditions held:" in err
    assert ("hallucination_rate.high > 0.10 (it is 0.7634: 50% by people's labels on every answer, 95% range "
            "24%\u201376%)") in err
    assert "flagged_by_judge.high > 0.8 (it is 0.8318: 6/10 answered, 60%, 95% range 31%\u201383%)" in err
    assert "false_abstention" not in err.split("held:")[1]
    code, out, err = cli("score", *sample_args, "--judge", "rules", "--fail-if", "outcomes.wrong >= 6")
    assert code == 1 and "measure" in out and "outcomes.wrong >= 6 (it is 6)" in err


@pytest.mark.parametrize("condition, expect", [
    ("halucination_rate.high > 0.1", "did you mean hallucination_rate.high"),
    ("faithfulness > 0.5", "which is not a figure of score --json"),
    ("judge_identity.version > 1", "which is not a figure of score --json"),
    ("hallucination_rate.high => 0.1", "cannot be read"),
])
def test_a_gate_that_names_no_figure_is_exit_2_before_judging(cli, sample_args, condition, expect, monkeypatch):
    import importlib

    def no_judging(*args, **kwargs):
        raise AssertionError("judged although the gate was wrong")

    monkeypatch.setattr(importlib.import_module("groundlab.evaluate"), "evaluate_file", no_judging)
    code, out, err = cli("score", *sample_args, "--fail-if", condition)
    assert code == 2 and out == "" and expect in err and err.count("\n") == 1


def test_an_undefined_figure_under_a_gate_is_exit_2_not_a_pass(tmp_path, cli):
    log = tmp_path / "log.jsonl"
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row.pop("labels"), row.pop("answerable")
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, _, err = cli("score", "--cases", log, "--passages", NOTES, "--fail-if", "abstention.rate < 0.5")
    assert code == 2
    assert ("the condition 'abstention.rate < 0.5' cannot be decided: none of the 12 cases says whether its question "
            "can be answered from its passages (no \"answerable\" field)") in err
    assert 'add "answerable": true to each case whose passages hold the answer' in err
    code, _, err = cli("score", "--cases", log, "--passages", NOTES, "--fail-if",
                       "hallucination_rate_by_person.high > 0.5")
    assert code == 2 and "hallucination_rate_by_person is null: no labeled answers" in err
    # the README's gate, on a log without labels: it cannot decide, and says what would let it
    code, out, err = cli("score", "--cases", log, "--passages", NOTES, "--json", "--fail-if",
                         "hallucination_rate.high > 0.10")
    assert code == 2 and "hallucination_rate.high is undefined on these cases (no answer carries people's labels " \
                         "yet: it is people's rate, and the judge's own share is flagged_by_judge; label the 10 " \
                         "answers the label request names" in err
    assert "neither passes nor fails" in err


def test_the_readmes_gate_on_its_own_data_example_says_what_to_add_and_keeps_the_figures(tmp_path, cli):
    """The README's own-data example without "answerable": the false-abstention gate cannot decide,
    says why and what to add, and the JSON is written all the same; with it, the gate decides."""
    import re

    from conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = json.loads(re.search(r"`(\{\"id\": \"q1\".*?\})`", readme).group(1))
    assert example["answerable"] is True  # the README shows what to add
    gate = re.search(r'--fail-if "(false_abstention[^"]+)"', readme).group(1)
    cases = tmp_path / "my_cases.jsonl"
    without = {k: v for k, v in example.items() if k != "answerable"}
    cases.write_text(json.dumps(without) + "\n", encoding="utf-8")
    code, out, err = cli("score", "--cases", cases, "--json", "--fail-if", gate)
    assert code == 2, err
    assert json.loads(out)["false_abstention"] == {"abstained": 0, "answerable": 0, "rate": None, "low": None,
                                                   "high": None}
    assert err.strip().endswith('add "answerable": true to each case whose passages hold the answer ("answerable": '
                                'false to those whose passages do not), or gate on another figure.'), err
    assert 'no "answerable" field' in err and err.count("\n") == 1
    cases.write_text(json.dumps(example) + "\n", encoding="utf-8")
    code, out, err = cli("score", "--cases", cases, "--json", "--fail-if", gate)
    assert code == 0 and json.loads(out)["false_abstention"]["rate"] == 0.0, err
    # cases that all say "answerable": false: the sentence says so
    cases.write_text(json.dumps(dict(example, answerable=False)) + "\n", encoding="utf-8")
    code, out, err = cli("score", "--cases", cases, "--json", "--fail-if", gate)
    assert code == 2 and json.loads(out)["cases"] == 1
    assert 'every case that says has "answerable": false (1 of 1); add cases with "answerable": true' in err


def test_the_counts_path_writes_its_figures_before_an_undecided_gate(tmp_path, cli):
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps({k: v for k, v in r.items() if k not in ("labels", "answerable")}) + "\n"
                           for r in rows), encoding="utf-8")
    counts = tmp_path / "part.counts.json"
    code, _, err = cli("score", "--cases", log, "--passages", NOTES, "--counts-out", counts)
    assert code == 0, err
    code, out, err = cli("merge", counts, "--json", "--fail-if", "false_abstention.rate > 20%")
    assert code == 2 and json.loads(out)["cases"] == 12 and 'no "answerable" field' in err


def test_assert_grounded_passes_and_returns_the_figures():
    s = assert_grounded(CASES, NOTES, max_hallucination_rate=0.6, min_faithfulness=0.6,
                        fail_if=["hallucination_rate.high > 0.9"])
    assert s["hallucination_rate"]["rate"] == 0.5 and s["judge_identity"]["name"] == "signals"


def test_assert_grounded_raises_assertion_error_with_every_failing_figure():
    with pytest.raises(AssertionError) as info:
        assert_grounded(CASES, NOTES, judge="lexical", max_hallucination_rate=0.4, min_faithfulness=0.9,
                        max_false_abstention=0.5, fail_if=["citation_precision.rate < 70%"])
    message = str(info.value)
    assert message.startswith("the answers are less grounded than required (judge lexical, 12 cases):")
    assert "hallucination_rate.rate > 0.4 (it is 0.5: 50% by people's labels on every answer, 95% range " \
           "24%\u201376%)" in message
    assert "faithfulness.rate < 0.9 (it is 0.7: 14/20 claims, 70%" in message
    assert "citation_precision.rate < 70% (it is 0.6842: 13/19 citations, 68%" in message
    assert "false_abstention" not in message


def test_assert_grounded_refuses_a_gate_it_cannot_check(sample_cases):
    unlabeled = [c for c in sample_cases if c.answerable is not False]
    with pytest.raises(GroundlabError, match='abstention is a rate over the unanswerable questions and every case '
                                             'that says has "answerable": true'):
        assert_grounded(unlabeled, min_abstention=0.5)
    with pytest.raises(GroundlabError, match="did you mean"):
        assert_grounded(sample_cases, fail_if=["hallucination_rate.hihg > 0.1"])


@pytest.mark.parametrize("condition, expect", [
    ("hallucination_rate.rate > 10", "if you meant 10%, write 0.1 or 10%"),
    ("hallucination_rate.high > 10", "compares a rate, which is between 0 and 1, with 10"),
    ("false_abstention.low >= 20", "if you meant 20%, write 0.2 or 20%"),
    ("faithfulness.rate < 150%", "compares a rate, which is between 0 and 1, with 1.5"),
    ("citation_recall.rate < -0.1", "compares a rate, which is between 0 and 1, with -0.1"),
    ("hallucination_rate.rate > 1e999", "which no figure can be compared with"),
])
def test_a_rate_gate_with_a_threshold_outside_0_to_1_is_exit_2_before_judging(cli, sample_args, condition,
                                                                                 expect, monkeypatch):
    import importlib

    def no_judging(*args, **kwargs):
        raise AssertionError("judged although the gate was wrong")

    monkeypatch.setattr(importlib.import_module("groundlab.evaluate"), "evaluate_file", no_judging)
    code, out, err = cli("score", *sample_args, "--fail-if", condition)
    assert code == 2 and out == "" and expect in err and err.count("\n") == 1
    assert "gate passed" not in err


def test_a_rate_gate_at_the_ends_of_0_to_1_and_a_count_above_1_are_still_read():
    assert parse_condition("hallucination_rate.rate > 1").threshold == 1
    assert parse_condition("abstention.low < 0").threshold == 0
    assert parse_condition("hallucination_rate.high > 100%").threshold == 1
    assert parse_condition("outcomes.wrong >= 10").threshold == 10
    assert parse_condition("hallucination_rate.answered < 20").threshold == 20
    assert parse_condition("risk_weighted_score < -1.5").threshold == -1.5


def test_a_nan_threshold_is_refused():
    from groundlab.gate import Condition

    with pytest.raises(GroundlabError, match="which no figure can be compared with"):
        failing([Condition("outcomes.wrong", ">", float("nan"), "outcomes.wrong > nan")], {"outcomes": {"wrong": 6}})
    with pytest.raises(GroundlabError, match="cannot be read"):
        parse_condition("hallucination_rate.rate > nan")


@pytest.mark.parametrize("value, expect", [
    (10, r"max_hallucination_rate=10 is not a rate between 0 and 1, so it would check nothing; "
         r"if you meant 10%, write 0\.1\.$"),
    (float("nan"), r"max_hallucination_rate=nan is not a rate between 0 and 1"),
    (-0.1, r"max_hallucination_rate=-0\.1 is not a rate between 0 and 1"),
    ("0.4", r"max_hallucination_rate='0\.4' is not a number; write the rate as a number between 0 and 1"),
    (True, r"max_hallucination_rate=True is not a number"),
])
def test_assert_grounded_refuses_a_limit_that_is_not_a_rate(sample_cases, value, expect):
    with pytest.raises(GroundlabError, match=expect):
        assert_grounded(sample_cases, max_hallucination_rate=value)


def test_assert_grounded_refuses_a_rate_gate_outside_0_to_1_in_fail_if(sample_cases):
    with pytest.raises(GroundlabError, match="if you meant 10%, write 0.1 or 10%"):
        assert_grounded(sample_cases, fail_if=["hallucination_rate.rate > 10"])


def test_assert_grounded_takes_a_single_condition_as_one_string():
    with pytest.raises(AssertionError, match=r"hallucination_rate\.rate > 0\.1 \(it is 0\.5: 50% by people"):
        assert_grounded(CASES, NOTES, fail_if="hallucination_rate.rate > 0.1")
    s = assert_grounded(CASES, NOTES, fail_if="hallucination_rate.high > 0.9", max_hallucination_rate=1)
    assert s["hallucination_rate"]["rate"] == 0.5
