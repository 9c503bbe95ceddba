"""Fitting the signals judge: the steps of groundlab.judges.calibration, and `groundlab calibrate`
on labeled cases, with its refusals, and `--judge-config` in the judging commands."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import numpy as np
import pytest

from groundlab import evaluate, load_cases
from groundlab.judges import get_judge
from groundlab.judges.calibration import MIN_FOR_WEIGHTS, MIN_PER_CLASS, choose_threshold, fit_weights, folds_of
from groundlab.workbook import compare_files, judged_cases, roc_frame

from conftest import CASES, CASES_B, NOTES, ROOT

PUBLIC = ROOT / "data" / "public"


@pytest.fixture(scope="module")
def labeled(tmp_path_factory) -> Path:
    """240 claims a person labeled, one a case (the first of the public Factcheck-GPT set)."""
    rows = [json.loads(line) for line in gzip.open(PUBLIC / "factcheck_gpt.jsonl.gz", "rt", encoding="utf-8")]
    # one claim each as groundlab splits them (".NET" reads as a sentence start in fc0617)
    rows = [r for r in rows if r["id"] != "fc0617"][:240]
    path = tmp_path_factory.mktemp("labeled") / "labeled.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def calibrated(labeled, tmp_path_factory):
    """`groundlab calibrate` run once on the labeled cases: its output and the config it wrote."""
    from groundlab.cli import main
    import contextlib
    import io

    out = tmp_path_factory.mktemp("config") / "judge.json"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["calibrate", "--cases", str(labeled), "--out", str(out)])
    assert code == 0, stderr.getvalue()
    return stdout.getvalue(), out


# ---------------------------------------------------------------- the steps


def test_fit_weights_finds_the_weights_that_made_the_labels():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(4000, 2))
    truth = np.array([-1.0, 3.0, -2.0])
    y = rng.uniform(size=4000) < 1 / (1 + np.exp(-(truth[0] + X @ truth[1:])))
    assert np.allclose(fit_weights(X, y, penalty=0.0), truth, atol=0.3)
    # the penalty pulls the weights toward the prior, never the intercept
    pulled = fit_weights(X, y, penalty=1e6, prior=np.array([0.0, 1.0, 1.0]))
    assert np.allclose(pulled[1:], [1.0, 1.0], atol=0.01)


def test_choose_threshold_by_balanced_accuracy_and_by_false_alarms():
    score = np.array([0.1, 0.2, 0.3, 0.4, 0.65, 0.35, 0.6, 0.7, 0.8, 0.9])
    supported = np.array([False] * 5 + [True] * 5)
    # flagging below 0.325 catches 3 of 5 with no false alarm, below 0.5 4 with 1 (0.35), below
    # 0.675 all 5 with 2: the same balanced accuracy, and the one with fewest false alarms is chosen
    assert choose_threshold(score, supported) == 0.325
    # at most 20% false alarms (1 of 5): the highest threshold that keeps to it
    assert choose_threshold(score, supported, max_false_alarms=0.2) == 0.5
    # at most 40%: 0.35 and 0.6 may be flagged, and so the 0.65 is caught too
    strict = choose_threshold(score, supported, max_false_alarms=0.4)
    flagged = score < strict
    assert (flagged & supported).sum() == 2 and (flagged & ~supported).sum() == 5
    with pytest.raises(Exception, match="no threshold keeps false alarms at or below 10%"):
        choose_threshold(np.array([0.0, 0.0, 0.2, 0.9]), np.array([True, False, False, True]), max_false_alarms=0.1)


def test_folds_keep_groups_whole_and_even():
    groups = [f"g{k // 3}" for k in range(60)] + ["big"] * 12
    fold = folds_of(groups, 5)
    for g in set(groups):
        assert len({f for f, h in zip(fold, groups) if h == g}) == 1
    sizes = np.bincount(fold)
    assert sizes.max() - sizes.min() <= 3


# ---------------------------------------------------------------- groundlab calibrate


def test_calibrate_writes_a_config_with_cross_validated_figures(calibrated):
    stdout, out = calibrated
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["kind"] == "groundlab judge config" and data["judge"] == "signals"
    assert 0 < data["threshold"] < 1 and data["threshold_rule"] == "balanced accuracy"
    cv = data["cross_validated"]["all"]
    assert cv["caught"]["total"] + cv["false_alarms"]["total"] == 240
    assert cv["caught"]["low"] <= cv["caught"]["rate"] <= cv["caught"]["high"]
    assert "cross-validated (5 folds of whole cases" in stdout
    for line in ("calibrated", "shipped weights", "rules judge"):
        assert any(row.strip().startswith(line) and "balanced accuracy" in row and "kappa" in row
                   for row in stdout.splitlines()), line
    assert f"wrote {out}; use it with --judge signals --judge-config {out}" in stdout


def test_the_config_is_used_by_every_judging_command(cli, calibrated, labeled, tmp_path):
    _, config = calibrated
    threshold = json.loads(config.read_text(encoding="utf-8"))["threshold"]
    score = cli.json("score", "--cases", labeled, "--judge-config", config)
    assert score["judge_identity"]["config"] == str(config)
    assert score["judge_identity"]["settings"]["threshold"] == threshold
    agree = cli.json("agree", "--cases", labeled, "--judge-config", config)
    shipped = cli.json("agree", "--cases", labeled)
    assert agree["judge_identity"]["config_sha256"] != shipped["judge_identity"]["config_sha256"]
    assert [c["verdict"] for c in agree["claims"]] != [c["verdict"] for c in shipped["claims"]]
    other = tmp_path / "other.jsonl"  # the same questions, every third answer changed
    rows = [json.loads(line) for line in labeled.read_text(encoding="utf-8").splitlines()]
    for row in rows[::3]:
        row["answer"] = "The answer was changed by the planning board."
    other.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    compared = cli.json("compare", labeled, other, "--judge-config", config)
    assert compared["judge_identity"]["config_sha256"] == agree["judge_identity"]["config_sha256"]
    code, _, err = cli("label", "export", "--cases", labeled, "--out", tmp_path / "sheet.csv", "--show-judge",
                       "--judge-config", config)
    assert code == 0, err
    # the notebooks' way: the same verdicts
    comparison = judged_cases(labeled, None, ["signals"], judge_config=config)
    assert comparison.get("signals").claims["verdict"].tolist() == [c["verdict"] for c in agree["claims"]]
    chosen = roc_frame(comparison.get("signals")).query("chosen").iloc[0]
    assert chosen["threshold"] == threshold


def test_calibrate_with_a_false_alarm_target(cli, labeled, tmp_path):
    out = tmp_path / "strict.json"
    code, stdout, err = cli("calibrate", "--cases", labeled, "--out", out, "--max-false-alarms", "10%")
    assert code == 0, err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["threshold_rule"] == "false alarms at most 0.1" and "(false alarms at most 10%;" in stdout
    # on the labels it was fitted on, the threshold keeps its promise
    ev = evaluate(load_cases(labeled), get_judge("signals", config=out))
    claims = ev.claims
    supported = claims[claims["label"] == "supported"]
    assert (supported["verdict"] != "supported").mean() <= 0.1


def _one_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def _cases(tmp_path, rows) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _row(k: int, answer: str, label=None):
    row = {"id": f"q{k}", "question": "Who approves refunds?",
           "retrieved": [{"id": "KB-7", "text": "Refunds over 500 EUR are approved by the team lead."}],
           "answer": answer}
    if label is not None:
        row["labels"] = [label]
    return row


@pytest.mark.parametrize("rows, words", [
    ([_row(k, "The team lead approves refunds.") for k in range(80)], "holds no labeled claims"),
    ([_row(k, "The team lead approves refunds.", "supported") for k in range(80)],
     "all 80 labeled claims are supported: a threshold cannot be chosen from one kind"),
])
def test_calibrate_refuses_labels_it_cannot_stand_on(cli, tmp_path, rows, words):
    out = tmp_path / "judge.json"
    code, stdout, err = cli("calibrate", "--cases", _cases(tmp_path, rows), "--out", out)
    assert code == 2 and stdout == ""
    message = _one_sentence(err)
    assert words in message
    assert not out.exists()


def _mixed(k_sup: int, k_not: int):
    """Labeled answers of a help desk: paraphrases people found supported, and claims of a role the
    passage never names (unsupported)."""
    sup = ["The team lead approves refunds over 500 EUR.", "Refunds above 500 EUR need the team lead.",
           "The team lead signs off large refunds.", "A team lead approval is needed for refunds over 500 EUR."]
    bad = ["The finance clerk approves refunds over 500 EUR.", "Refunds over 500 EUR go to the regional director.",
           "The controller approves refunds within a day.", "Refunds need two signatures from the board."]
    return ([_row(k, sup[k % len(sup)], "supported") for k in range(k_sup)]
            + [_row(k_sup + k, bad[k % len(bad)], "unsupported") for k in range(k_not)])


@pytest.mark.parametrize("k_not, mode, moved", [
    (4, "threshold only, the shipped weights kept", False),
    (15, "weights pulled toward the shipped ones, and threshold", True),
])
def test_calibrate_with_few_labels_moves_what_they_can_carry_and_says_how_sure(cli, tmp_path, k_not, mode, moved):
    out = tmp_path / "judge.json"
    code, stdout, err = cli("calibrate", "--cases", _cases(tmp_path, _mixed(40, k_not)), "--out", out)
    assert code == 0, err
    assert f"fitted: {mode}" in stdout
    assert "95% range over cases" in stdout and "more labeled claims of the rarer kind" in stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    low, high = data["threshold_range"]
    assert 0 <= low <= data["threshold"] <= high < 1
    shipped = get_judge("signals").config.data["weights"]
    same = all(abs(data["weights"][k] - shipped[k]) < 1e-9 for k in shipped)
    assert same is not moved
    # the config works in every command
    ev = evaluate(load_cases(_cases(tmp_path, _mixed(40, k_not))), get_judge("signals", config=out))
    assert len(ev.claims) == 40 + k_not


def test_the_sample_set_calibrates_its_threshold_only(cli, sample_args, tmp_path):
    code, stdout, err = cli("calibrate", *sample_args, "--out", tmp_path / "judge.json")
    assert code == 0, err
    assert "fitted: threshold only" in stdout and f"fewer than {MIN_FOR_WEIGHTS} labeled claims of a kind" in stdout
    assert "cross-validated (5 folds of whole cases" in stdout


def test_labels_from_several_tasks_pool(cli, tmp_path, labeled):
    other = tmp_path / "other"
    other.mkdir()
    out = tmp_path / "judge.json"
    code, stdout, err = cli("calibrate", "--cases", labeled, "--also", _cases(other, _mixed(40, 12)), "--out", out)
    assert code == 0, err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert str(labeled) in data["fitted_on"]["sources"]["cases"] and len(data["fitted_on"]["sources"]["cases"]) == 2
    assert "averaged over the sets" in stdout
    per_set = [line for line in stdout.splitlines() if line.startswith("    ")]
    assert len(per_set) == 2 and all("balanced accuracy" in line for line in per_set)
    assert set(data["cross_validated"]) >= {"all", str(labeled)}


def test_calibrate_never_overwrites_without_force(cli, labeled, tmp_path):
    out = tmp_path / "judge.json"
    out.write_text("mine", encoding="utf-8")
    code, _, err = cli("calibrate", "--cases", labeled, "--out", out)
    assert code == 2 and "already exists" in _one_sentence(err) and out.read_text() == "mine"


def test_calibrate_never_writes_over_its_inputs_even_with_force(cli, labeled, tmp_path):
    cases = tmp_path / "labeled.jsonl"
    cases.write_bytes(labeled.read_bytes())
    passages = tmp_path / "notes.jsonl"
    passages.write_bytes(NOTES.read_bytes())
    for out in (cases, passages, tmp_path / "sub" / ".." / "labeled.jsonl"):
        code, _, err = cli("calibrate", "--cases", cases, "--passages", passages, "--out", out, "--force")
        assert code == 2 and "is also the input; nothing was written" in _one_sentence(err)
    assert cases.read_bytes() == labeled.read_bytes() and passages.read_bytes() == NOTES.read_bytes()


def test_calibrate_refuses_a_false_alarm_target_the_rules_exceed(cli, tmp_path):
    # 10 of the 40 supported claims give an amount the passage writes otherwise: the number rule
    # flags them whatever the threshold
    rows = ([_row(k, "The team lead approves refunds.", "supported") for k in range(30)]
            + [_row(30 + k, "The team lead approves refunds over 600 EUR.", "supported") for k in range(10)]
            + [_row(40 + k, "The clerk approves refunds.", "unsupported") for k in range(40)])
    code, _, err = cli("calibrate", "--cases", _cases(tmp_path, rows), "--out", tmp_path / "j.json",
                       "--max-false-alarms", "0.1")
    assert code == 2
    assert ("no threshold keeps false alarms at or below 10%: the rules alone (numbers the evidence lacks, negation "
            "flips, clauses mostly missing) flag 10 of the 40 supported claims (25%)") in _one_sentence(err)


def test_run_passes_the_judge_config_to_the_notebooks(cli, calibrated, tmp_path, monkeypatch):
    _, config = calibrated
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("run", "--cases", CASES, "--passages", NOTES, "--judge-config", config, "--out", "out",
                       "--notebooks", ROOT / "notebooks", "-p", "judges", "rules", "--cases-b", CASES_B)
    assert code == 0, err
    import nbformat

    from groundlab.judges.signals import load_config

    want = load_config(config).sha256
    for name in ("01-groundedness", "02-judge-agreement", "03-risk-report", "04-labeling", "05-compare"):
        nb = nbformat.read(tmp_path / "out" / f"{name}.ipynb", as_version=4)
        injected = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
        assert 'judge_config = "' in injected.source and '/judge.json"' in injected.source, name
        assert nb.metadata["groundlab"]["judge_identity"]["config_sha256"] == want, name
    # outside a run, notebook 05's call judges both sides with the file's weights
    compared = compare_files(CASES, CASES_B, NOTES, "signals", judge_config=config)
    assert {ev.claims.attrs["judge"]["config_sha256"] for ev in compared.evaluations} == {want}
    # a shared result judged with other weights is refused by the notebooks' call
    with pytest.raises(Exception, match="other weights"):
        judged_cases(CASES, NOTES, ["signals"], judged_file=tmp_path / "out" / "judged.pkl", judge_config="")


def test_run_refuses_a_bad_judge_config_before_running(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    code, _, err = cli("run", "--cases", CASES, "--passages", NOTES, "--judge-config", bad, "--out", "out")
    assert code == 2 and "is not a groundlab judge config" in _one_sentence(err)
    assert not (tmp_path / "out").exists()


def test_run_refuses_a_judge_config_from_a_pipe_which_the_notebooks_cannot_read_again(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fifo = tmp_path / "judge.fifo"
    os.mkfifo(fifo)
    for option in (("--judge-config", "-"), ("--judge-config", str(fifo)), ("-p", "judge_config", str(fifo))):
        code, _, err = cli("run", "--cases", CASES, "--passages", NOTES, *option, "--out", "out")
        assert code == 2 and "is standard input or a pipe, which the notebooks cannot read again" in _one_sentence(err)
        assert not (tmp_path / "out").exists()
