"""Every key of a targets file is a target that score --targets checks, decided in one place
(groundlab.targets.target_state): the terminal, the exit status, score --json, the report's panel,
its decision line and its table, and notebook 03's table say the same of it."""

from __future__ import annotations

import itertools
import json

import pytest

from groundlab import InputError, evaluate, load_cases, workbook
from groundlab.report import decision_tiles, steering_report
from groundlab.targets import STARTER, load_targets, target_table

from conftest import CASES, NOTES


def write(tmp_path, text: str, name: str = "targets.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_key_the_starter_file_writes_is_checked(cli, tmp_path):
    """The starter file's own keys, max_false_abstention and min_citation_accuracy, are rows of the
    table, counted in the terminal's line, the JSON and the exit status."""
    path = tmp_path / "targets.toml"
    code, _, err = cli("targets", path)
    assert code == 0, err
    args = ("score", "--cases", CASES, "--passages", NOTES, "--targets", path)
    code, out, err = cli(*args)
    assert code == 1
    table = out.split("targets (", 1)[1]
    rows = [line for line in table.splitlines() if line.startswith(("all answers", "false abstention",
                                                                    "citation accuracy"))]
    assert [row.split()[0] for row in rows] == ["all", "false", "citation"]
    assert "\u2265 90%" in rows[2] and "12/19 citations" in rows[2] and "the rate is below the target" in rows[2]
    assert "targets met: 0 of 3" in out and "3 of 3 targets" in err
    code, out, _ = cli(*args, "--json")
    t = json.loads(out)["targets"]
    assert code == 1 and (t["count"], t["failed"], t["met"]) == (3, 3, False)
    assert [(r["target"], r["max_rate"], r["min_rate"]) for r in t["rows"]] == [
        ("all answers", 0.05, None), ("false abstention", 0.1, None), ("citation accuracy", None, 0.9)]


def test_a_missed_citation_target_fails_the_gate_the_report_says_it_misses(cli, tmp_path):
    """The hallucination rate meets its target and citation accuracy misses its own: score exits 1,
    where it printed 'targets met: 1 of 1' and exited 0 beside a report saying 'Not ready'."""
    targets = write(tmp_path, "max_rate = 0.9\nmin_citation_accuracy = 0.9\n")
    report = tmp_path / "report.md"
    code, out, err = cli("score", "--cases", CASES, "--passages", NOTES, "--targets", targets, "--report", report)
    assert code == 1, err
    assert "targets met: 1 of 2" in out and "1 of 2 targets" in err
    text = report.read_text(encoding="utf-8")
    assert "**Not ready:** it misses the target for citation accuracy." in text
    assert "| citation accuracy | \u2265 90% | 63% (12 of 19) | 41%\u201381% | \u2717 fail |" in text
    assert "\u2717 1 of 2 met, each" in text


def test_a_finer_target_missed_is_in_the_reports_decision(cli, tmp_path):
    """A target by kind of claim fails score --targets; the report's first line said 'Ready by these
    targets' over the headline alone."""
    targets = write(tmp_path, "max_rate = 0.9\n[kind]\ndate = 0.5\n")
    report = tmp_path / "report.md"
    code, out, err = cli("score", "--cases", CASES, "--passages", NOTES, "--targets", targets, "--report", report,
                         "--judge", "rules")
    assert code == 1
    decision = report.read_text(encoding="utf-8").splitlines()[3]
    assert "**Not ready:** it misses the target for kind date." in decision


def test_a_target_with_nothing_to_measure_is_not_met_anywhere(cli, tmp_path):
    """No case says whether it could be answered: false abstention has no data; score says so and
    exits 1, and the report cannot tell rather than call it ready."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "answerable"}) + "\n"
                             for line in CASES.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    targets = write(tmp_path, "max_rate = 0.9\nmax_false_abstention = 0.5\n")
    report = tmp_path / "report.md"
    code, out, err = cli("score", "--cases", cases, "--passages", NOTES, "--targets", targets, "--report", report)
    assert code == 1
    row = next(line for line in out.split("targets (", 1)[1].splitlines() if line.startswith("false abstention"))
    assert "no data" in row and "answerable" in row
    decision = report.read_text(encoding="utf-8").splitlines()[3]
    assert "**Cannot tell yet:** nothing measures false abstention" in decision


def _decision(text: str) -> str:
    line = text.splitlines()[3]
    for word in ("Ready by these targets", "Not ready", "Cannot tell yet"):
        if word in line:
            return word
    raise AssertionError(line)


@pytest.mark.parametrize("limits", [limits for limits in itertools.product((None, 0.05, 0.9), (None, 0.05, 0.6),
                                                                           (None, 0.3, 0.9)) if limits != (None,) * 3])
def test_the_terminal_the_json_the_exit_status_and_the_report_agree(cli, tmp_path, limits):
    rate, abstention, citations = limits
    lines = [f"{key} = {value}" for key, value in zip(("max_rate", "max_false_abstention", "min_citation_accuracy"),
                                                      limits) if value is not None]
    targets = write(tmp_path, "\n".join(lines) + "\n")
    report = tmp_path / "report.md"
    code, out, err = cli("score", "--cases", CASES, "--passages", NOTES, "--targets", targets, "--json",
                         "--report", report)
    t = json.loads(out)["targets"]
    assert t["count"] == len(lines) == len(t["rows"])
    decision = _decision(report.read_text(encoding="utf-8"))
    assert (code == 0) == t["met"] == (decision == "Ready by these targets"), (code, t, decision)
    missed = [r for r in t["rows"] if r["state"] == "bad"]
    assert bool(missed) == (decision == "Not ready")
    if code:
        assert f"{t['failed']} of {t['count']} targets" in err
    code_plain, plain, _ = cli("score", "--cases", CASES, "--passages", NOTES, "--targets", targets)
    assert code_plain == code
    assert f"targets met: {t['count'] - t['failed'] - t['not_measured']} of {t['count']}" in plain
    # the panel's tiles take their row's state
    ev = evaluate(load_cases(CASES, NOTES))
    goals = load_targets(targets)
    states = dict(zip(*(target_table(goals, ev.claims, ev.cases)[c] for c in ("target", "state"))))
    tiles = {t.key: t.state for t in decision_tiles(ev, goals)}
    for row, key in (("all answers", "hallucination"), ("false abstention", "false_abstention"),
                     ("citation accuracy", "citations")):
        if row in states:
            assert tiles[key] == states[row]


def test_notebook_03_shows_every_target_of_the_starter_file(tmp_path):
    path = write(tmp_path, STARTER)
    ev = evaluate(load_cases(CASES, NOTES))
    check = workbook.check_targets(ev, path, 1.0)
    assert check.table["target"].tolist() == ["all answers", "false abstention", "citation accuracy"]
    assert "0 of 3 met" in repr(check)
    assert "\u2265 90%" in check._repr_html_()
    assert "**Not ready:** it misses the target for hallucination rate, false abstention and citation accuracy." \
        in steering_report(ev, targets=load_targets(path))


def test_one_place_decides_a_target():
    from groundlab.targets import target_state

    assert target_state(0.05, 0.02, 0.09, 200, 0.1).status == "pass"
    assert (target_state(0.5, 0.2, 0.8, 10, 0.7).status, target_state(0.5, 0.2, 0.8, 10, 0.7).state) == \
        ("fail", "unsure")
    assert target_state(0.8, 0.5, 0.9, 10, 0.7).state == "bad"
    assert target_state(0.95, 0.91, 0.98, 300, 0.9, "min").state == "good"
    assert target_state(0.93, 0.85, 0.97, 50, 0.9, "min").note.endswith("reaches below it: more answers are needed "
                                                                         "to show it")
    assert target_state(0.6, 0.4, 0.8, 19, 0.9, "min").note == "the rate is below the target"
    assert target_state(None, None, None, 0, 0.9, "min", nothing="no answer cites a passage").status == "no data"
    with pytest.raises(ValueError):
        target_state(0.5, 0.4, 0.6, 10, 0.5, "at most")


@pytest.mark.parametrize("text, words", [
    ('[process]\n"p2p" = 0.1\nmax_false_abstention = 0.1\n', ["max_false_abstention is written under [process]",
                                                              "move max_false_abstention above the first table"]),
    ("[kind]\namount = 0.02\nmin_citation_accuracy = 0.9\n", ["min_citation_accuracy is written under [kind]"]),
    ("[weights]\namount = 2\nmax_rate = 0.1\n", ["max_rate is written under [weights]"]),
    ('[[target]]\nprocess = "p2p"\nkind = "amount"\nmax_rate = 0.1\nmin_citation_accuracy = 0.9\n',
     ["min_citation_accuracy is written under [[target]] number 1"]),
    ("min_citation_acuracy = 0.9\n", ["unknown key 'min_citation_acuracy'"]),
])
def test_a_key_below_a_table_or_unknown_is_one_sentence(cli, tmp_path, text, words):
    """TOML reads a key after [process] as a process of that name: checked on nothing, it was
    'no data' under a name nobody meant; now one sentence naming the file and the key."""
    path = write(tmp_path, text)
    with pytest.raises(InputError) as exc:
        load_targets(path)
    message = str(exc.value)
    assert str(path) in message and message.count(". ") == 0, message
    for word in words:
        assert word in message, message
    code, out, err = cli("score", "--cases", CASES, "--passages", NOTES, "--targets", path)
    assert code == 2 and out == "" and err.strip() == f"groundlab: {message}"
