"""Growing the set from incidents: a reported answer (the record a guard read, a case of an import,
or typed in) becomes a labeled case in the cases file; a duplicate id is refused; scoring counts
the cases from incidents apart, with their hallucination rate."""

from __future__ import annotations

import json
import stat

import pytest

from conftest import CASES, NOTES


def _inline_cases(tmp_path):
    notes = {json.loads(line)["id"]: json.loads(line) for line in NOTES.read_text(encoding="utf-8").splitlines()}
    out = tmp_path / "set.jsonl"
    with open(out, "w", encoding="utf-8") as fh:
        for line in CASES.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            case["retrieved"] = [notes[p] for p in case["retrieved"]]
            fh.write(json.dumps(case) + "\n")
    out.chmod(0o640)
    return out


RECORD = {"id": "live-7", "question": "Who approves a refund?",
          "retrieved": [{"id": "KB-7", "text": "Refunds over 500 EUR are approved by the team lead. Refunds are "
                                               "never paid in cash."}],
          "answer": "Refunds over 500 EUR are approved by the team lead [KB-7]. Refunds can be paid in cash [KB-7]."}


def test_a_reported_answer_becomes_a_labeled_case_counted_apart(cli, tmp_path):
    cases = _inline_cases(tmp_path)
    before = cases.read_text(encoding="utf-8")
    record = tmp_path / "reported.json"
    record.write_text(json.dumps(RECORD), encoding="utf-8")
    code, out, err = cli("incident", "--cases", cases, "--record", record, "--labels", "supported,contradicted",
                         "--note", "customer complaint 2024-031")
    assert code == 0, err
    assert "added incident case live-7" in out and "it now holds 13 cases" in out
    text = cases.read_text(encoding="utf-8")
    assert text.startswith(before)  # nothing the file held is lost
    added = json.loads(text.splitlines()[-1])
    assert added["origin"] == "incident" and added["labels"] == ["supported", "contradicted"]
    assert added["meta"]["incident"] == "customer complaint 2024-031"
    assert stat.S_IMODE(cases.stat().st_mode) == 0o640  # the file keeps who may read it
    # The same id again: refused, the file unchanged.
    code, _, err = cli("incident", "--cases", cases, "--record", record, "--labels", "supported,contradicted")
    assert code == 2 and "line 13 already holds a case with the id 'live-7'" in err
    assert cases.read_text(encoding="utf-8") == text
    # Typed in, and taken from an import's output.
    code, _, err = cli("incident", "--cases", cases, "--id", "typed-1", "--question", "When does billing run?",
                       "--answer", "Billing runs every hour [B1].", "--passage", "B1=Billing runs every night.",
                       "--labels", "contradicted")
    assert code == 0, err
    code, _, err = cli("incident", "--cases", cases, "--from-cases", CASES, "--case", "c03", "--id", "from-c03",
                       "--labels", "supported,unsupported")
    assert code == 2 and "passage 1 must be" in err  # a case that keeps passages by id cannot be added as it is
    # Labels that do not fit the claims name the claims.
    code, _, err = cli("incident", "--cases", cases, "--record", record, "--id", "live-8", "--labels", "supported")
    assert code == 2 and "1 label(s) for the answer's 2 claim(s)" in err
    summary = cli.json("score", "--cases", cases, "--judge", "rules")
    assert summary["incidents"]["cases"] == 2
    assert summary["incidents"]["hallucination_rate_by_person"] == {
        "hallucinated": 2, "answered": 2, "rate": 1.0, "low": summary["incidents"]["hallucination_rate_by_person"]["low"],
        "high": 1.0}
    code, out, _ = cli("score", "--cases", cases, "--judge", "rules", "--report", tmp_path / "report.md")
    assert "From incidents: 2 cases reported after go-live" in out
    assert "From incidents: 2 cases" in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_a_guard_result_line_is_refused_with_what_to_pass(cli, tmp_path):
    line = tmp_path / "result.json"
    line.write_text(json.dumps({"line": 1, "text": "x", "claims": []}), encoding="utf-8")
    code, _, err = cli("incident", "--cases", tmp_path / "new.jsonl", "--record", line, "--labels", "supported")
    assert code == 2 and "is a guard result line" in err and not (tmp_path / "new.jsonl").exists()


def _typed(k: int) -> list:
    return ["incident", "--id", f"inc-{k}", "--question", "Who approves a refund?", "--answer",
            "The clerk approves it [KB-7].", "--passage", "KB-7=Refunds are approved by the team lead.",
            "--labels", "contradicted"]


def test_twenty_runs_at_once_all_keep_their_cases(tmp_path):
    """Runs that add to one cases file at the same time take its lock in turn: every case stays."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    cases = _inline_cases(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = [subprocess.Popen([sys.executable, "-m", "groundlab", *_typed(k), "--cases", str(cases)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(20)]
    done = [run.communicate(timeout=300) + (run.returncode,) for run in runs]
    assert all(code == 0 for _, _, code in done), [err for _, err, code in done if code]
    ids = [json.loads(line)["id"] for line in cases.read_text(encoding="utf-8").splitlines()]
    assert len(ids) == 32 and sorted(ids[12:]) == sorted(f"inc-{k}" for k in range(20))
    assert stat.S_IMODE(cases.stat().st_mode) == 0o640


def test_a_run_that_waits_for_the_lock_says_so(tmp_path):
    from groundlab.incidents import add_incident, cases_lock, typed_case

    cases = _inline_cases(tmp_path)
    said = []
    case = typed_case("Who approves a refund?", "The clerk approves it [KB-7].", ["KB-7=Refunds go to the lead."])
    import threading

    with cases_lock(cases):
        worker = threading.Thread(target=add_incident, args=(cases, case, ["contradicted"]),
                                  kwargs={"case_id": "inc-w", "waiting": said.append})
        worker.start()
        worker.join(0.5)
        assert worker.is_alive() and len(said) == 1 and "waiting for another run to finish adding to" in said[0]
        assert "inc-w" not in cases.read_text(encoding="utf-8")
    worker.join(10)
    assert '"inc-w"' in cases.read_text(encoding="utf-8").splitlines()[-1]


def test_a_read_only_cases_file_is_refused_not_replaced(cli, tmp_path):
    cases = _inline_cases(tmp_path)
    cases.chmod(0o440)
    before = cases.read_text(encoding="utf-8")
    inode = cases.stat().st_ino
    code, out, err = cli(*_typed(1), "--cases", cases)
    assert code == 2 and out == "" and err.count("\n") == 1 and "is read-only" in err and "chmod u+w" in err, err
    assert cases.read_text(encoding="utf-8") == before and cases.stat().st_ino == inode
    assert stat.S_IMODE(cases.stat().st_mode) == 0o440


def test_an_id_that_differs_only_in_spaces_is_refused(cli, tmp_path):
    cases = _inline_cases(tmp_path)
    assert cli(*_typed(1), "--cases", cases)[0] == 0
    text = cases.read_text(encoding="utf-8")
    for other in (" inc-1", "inc-1 ", "inc-\u00a01", "inc-\t1"):
        args = _typed(1)
        args[args.index("--id") + 1] = other
        code, _, err = cli(*args, "--cases", cases)
        assert code == 2 and "line 13 holds a case with the id 'inc-1', which" in err and "only in spaces" in err, err
    assert cases.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("mark", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
def test_an_id_that_differs_only_in_a_character_that_does_not_show_is_refused(cli, tmp_path, mark):
    """A zero-width space, joiner or non-joiner, word joiner or byte-order mark is read as a space is."""
    cases = _inline_cases(tmp_path)
    assert cli(*_typed(1), "--cases", cases)[0] == 0
    text = cases.read_text(encoding="utf-8")
    for other in (f"inc-{mark}1", f"{mark}inc-1", f"inc-1{mark}"):
        args = _typed(1)
        args[args.index("--id") + 1] = other
        code, out, err = cli(*args, "--cases", cases)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert "line 13 holds a case with the id 'inc-1', which" in err and "characters that do not show" in err, err
    args = _typed(1)
    args[args.index("--id") + 1] = f"{mark} {mark}"
    code, _, err = cli(*args, "--cases", cases)
    assert code == 2 and "the incident needs a case id" in err, err
    assert cases.read_text(encoding="utf-8") == text
