"""`groundlab guard`: one JSON line in, one JSON line out, bad records answered and the stream kept going."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from groundlab.guard import DEFAULT_NOTICE

from conftest import ROOT
from messages_stub import Fail, messages_stub  # noqa: F401 (a fixture)

REFUND = [{"id": "KB-7", "text": "Refunds over 500 EUR are approved by the team lead. Refunds are never paid in cash."}]
GOOD = {"id": "a1", "question": "Who approves a refund?", "retrieved": REFUND,
        "answer": "The team lead approves refunds over 500 EUR [KB-7]. Refunds can be paid in cash [KB-7]."}


def _line(obj) -> bytes:
    return (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")


def _run(cli, monkeypatch, data: bytes, *args):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code, out, err = cli("guard", *args)
    return code, [json.loads(line) for line in out.splitlines()], err


def test_each_record_gets_its_result_line(cli, monkeypatch):
    code, out, err = _run(cli, monkeypatch, _line(GOOD) + _line({**GOOD, "id": 2}), "--mode", "hide")
    assert code == 0 and err == ""
    first, second = out
    assert first["id"] == "a1" and first["line"] == 1 and second["id"] == 2
    assert first["text"] == f"The team lead approves refunds over 500 EUR [KB-7]. {DEFAULT_NOTICE}"
    assert first["mode"] == "hide" and first["changed"] and first["route_to_person"]
    assert first["routed_because"] == "claim 2 is contradicted by the passages"
    (flag,) = first["flagged"]
    assert flag["claim"] == 2 and flag["verdict"] == "contradicted" and flag["span"] == [52, 87]
    assert flag["sentence"] == "Refunds can be paid in cash [KB-7]." and flag["reason"].startswith("negation flip")
    assert [(c["claim"], c["verdict"], c["cites"]) for c in first["claims"]] == [
        (1, "supported", ["KB-7"]), (2, "contradicted", ["KB-7"])]


def test_bad_records_are_answered_with_one_sentence_and_the_stream_goes_on(cli, monkeypatch):
    huge = b'{"question": "q", "retrieved": [], "answer": "' + b"x" * 9_000_000 + b'"}\n'
    data = b"".join([
        b"not json\n",
        _line({"id": "m", "question": "q", "answer": "a"}),
        _line({"id": "p", "question": "q", "passages": ["x"], "answer": "a"}),
        _line({"id": "t", "question": 3, "retrieved": [], "answer": "a"}),
        _line({"id": "r", "question": "q", "retrieved": "The sky is blue.", "answer": "a"}),
        _line({"id": "i", "question": "q", "retrieved": [7], "answer": "a"}),
        _line({"id": {"x": 1}, "question": "q", "retrieved": [], "answer": "a"}),
        b"[1, 2]\n",
        b'{"id": "u", "answer": "caf\xe9"}\n',
        b"\n",
        huge,
        _line(GOOD),
        b'{"id": "last", "question": "q", "retrieved": ["The sky is blue."], "answer": "The sky is blue."}',
    ])
    code, out, err = _run(cli, monkeypatch, data)
    assert code == 0, err
    errors = {(o["id"], o["line"]): o["error"] for o in out if "error" in o}
    assert errors == {
        (None, 1): "the line is not valid JSON (Expecting value at column 1); send one JSON object a line.",
        ("m", 2): "the required field \"retrieved\" is missing; a record needs question, retrieved and answer.",
        ("p", 3): "the required field \"retrieved\" is missing (rename \"passages\" to \"retrieved\"); a record "
                  "needs question, retrieved and answer.",
        ("t", 4): "the question must be a string, not a number.",
        ("r", 5): "retrieved must be a list of passages ({\"id\", \"text\"} objects or strings), not a string.",
        ("i", 6): "retrieved passage 1 is a number; give a string or an {\"id\", \"text\"} object.",
        (None, 7): "\"id\" must be a string or a number.",
        (None, 8): "the line is not a JSON object; send {\"question\", \"retrieved\", \"answer\"}.",
        (None, 9): "the line is not UTF-8 text (byte 0xe9 at column 27); send UTF-8.",
        (None, 11): "the line is longer than 8,000,000 bytes and was skipped; send shorter records or raise "
                    "--max-record-bytes.",
    }
    good = [o for o in out if "error" not in o]
    assert [(o["id"], o["line"]) for o in good] == [("a1", 12), ("last", 13)]  # after the huge line, in order
    assert good[0]["text"].endswith("[KB-7]. \u26a0") and good[1]["flagged"] == []
    assert [o["line"] for o in out] == sorted(o["line"] for o in out) and len(out) == 12  # the blank line: nothing


def _strict(line: str):
    """A result line as a strict JSON reader sees it: NaN and Infinity are not JSON."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(line, parse_constant=refuse)


def test_deep_nesting_and_non_finite_ids_are_answered_and_the_stream_goes_on(cli, monkeypatch):
    deep = b'{"id": "d", "question": "q", "retrieved": ' + b"[" * 100_000 + b"]" * 100_000 + b', "answer": "a"}\n'
    data = b"".join([
        deep,
        b'{"id": NaN, "question": "q", "retrieved": ["The sky is blue."], "answer": "The sky is blue."}\n',
        b'{"id": -Infinity, "question": "q", "retrieved": [], "answer": "a"}\n',
        b'{"id": 1e400, "question": "q", "retrieved": [], "answer": "a"}\n',
        _line(GOOD),
    ])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code, out, err = cli("guard")
    assert code == 0, err
    out = [_strict(line) for line in out.splitlines()]  # every line is strict JSON
    nesting, *ids, good = out
    assert (nesting["id"], nesting["line"]) == (None, 1)
    assert nesting["error"].startswith("the line nests JSON lists or objects more deeply than groundlab reads")
    assert nesting["error"].endswith("; flatten that record.") and "RecursionError" not in nesting["error"]
    assert [(o["id"], o["line"]) for o in ids] == [(None, 2), (None, 3), (None, 4)]
    assert {o["error"] for o in ids} == {("\"id\" is NaN or Infinity, which JSON cannot carry; give the record a "
                                          "string or a finite number as its id.")}
    assert (good["id"], good["line"]) == ("a1", 5) and "error" not in good


def test_a_whole_number_too_long_to_read_is_an_error_line_and_the_stream_goes_on(cli, monkeypatch):
    data = b'{"id": "n", "question": "q", "retrieved": [], "answer": "a", "n": ' + b"9" * 5000 + b"}\n" + _line(GOOD)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code, out, err = cli("guard")
    assert code == 0, err
    number, good = [_strict(line) for line in out.splitlines()]
    assert number["line"] == 1 and "a whole number of more than 4,300 digits" in number["error"]
    assert good["id"] == "a1" and "error" not in good


def test_a_result_json_cannot_carry_becomes_an_error_line(cli, monkeypatch):
    import importlib

    module = importlib.import_module("groundlab.guard")  # the package's name "guard" is the function

    class Odd:
        def to_dict(self):
            return {"text": "a", "score": float("nan")}

    real = module.guard
    monkeypatch.setattr(module, "guard",
                        lambda question, *a, **k: Odd() if question == "odd" else real(question, *a, **k))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_line({**GOOD, "id": "o", "question": "odd"})
                                                                  + _line(GOOD)), encoding="utf-8"))
    code, out, err = cli("guard")
    assert code == 0, err
    odd, good = [_strict(line) for line in out.splitlines()]
    assert odd == {"id": "o", "line": 1, "error": "the result holds NaN or Infinity, which JSON cannot carry; "
                                                  "check the judge's verdicts for this record."}
    assert good["id"] == "a1" and "error" not in good


def test_options_marker_notice_route_rule_and_claim_splitting(cli, monkeypatch):
    code, (out,), _ = _run(cli, monkeypatch, _line(GOOD), "--marker", "[unverified]", "--route-when", "never")
    assert out["text"].endswith("[KB-7]. [unverified]") and not out["route_to_person"]
    code, (out,), _ = _run(cli, monkeypatch, _line(GOOD), "--mode", "route")
    assert out["text"] == GOOD["answer"] and out["route_to_person"] and not out["changed"]
    refusal = {**GOOD, "answer": "The team lead approves refunds over 500 EUR \u30101\u3011. Please ask finance."}
    code, (out,), _ = _run(cli, monkeypatch, _line(refusal), "--mode", "hide", "--notice", "[hidden]",
                           "--citation-pattern", "\u3010(\\d+)\u3011", "--abstention-phrase", "ask finance")
    assert code == 0 and out["text"] == refusal["answer"] and [c["cites"] for c in out["claims"]] == [["1"]]


def test_option_mistakes_stop_before_reading(cli, monkeypatch, tmp_path):
    for args, says in ((("--mode", "block"), "invalid choice: 'block'"),
                       (("--marker", ""), "the marker must be some visible text"),
                       (("--judge", "oracle"), "there is no judge called 'oracle'"),
                       (("--model", "x"), "--model does not apply to the signals judge"),
                       (("--citation-pattern", "[("), "is not a valid regular expression"),
                       ((str(tmp_path / "nope.jsonl"),), "does not exist"),
                       ((str(tmp_path),), "is a folder")):
        code, out, err = _run(cli, monkeypatch, _line(GOOD), *args)
        assert code == 2 and out == [] and says in err and "Traceback" not in err, (args, err)


def test_records_from_a_file(cli, tmp_path):
    records = tmp_path / "answers.jsonl"
    records.write_bytes(_line(GOOD) + _line({**GOOD, "id": "b"}))
    code, out, err = cli("guard", records, "--judge", "lexical")
    assert code == 0 and [json.loads(line)["id"] for line in out.splitlines()] == ["a1", "b"]
    assert json.loads(out.splitlines()[0])["flagged"] == []  # the lexical judge cannot see the negation


def test_llm_judge_asks_once_per_record_and_flags_what_it_could_not_judge(cli, monkeypatch, messages_stub, tmp_path):
    messages_stub.script = [Fail(400)]  # the first request is refused (not retried)
    code, out, err = _run(cli, monkeypatch, _line(GOOD) + _line({**GOOD, "id": "b"}), "--judge", "llm",
                          "--cache", tmp_path / "cache")
    assert code == 0 and len(messages_stub.requests) == 2
    failed, judged = out
    assert [f["verdict"] for f in failed["flagged"]] == [None, None]  # fail closed: nothing unchecked goes out
    assert failed["flagged"][0]["reason"].startswith("the judge could not decide")
    assert [c["verdict"] for c in judged["claims"]] == ["supported", "contradicted"]
    assert "1 request sent" in err and "1 request failed" in err


# ---------------------------------------------------------------- behind a real pipe


def _as_from_a_terminal() -> None:
    """In the child, before groundlab starts: Ctrl-C's signal as a terminal hands it to a program it
    starts. A suite started in the background inherits SIGINT ignored, and Python then leaves it so."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spawn(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "groundlab", "guard", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=_as_from_a_terminal)


def test_behind_a_pipe_each_answer_comes_back_before_the_next_record_is_sent():
    proc = _spawn("--mode", "hide")
    try:
        for k in range(3):
            proc.stdin.write(_line({**GOOD, "id": k}))
            proc.stdin.flush()
            out = json.loads(proc.stdout.readline())  # would hang if results were held back
            assert out["id"] == k and out["text"].endswith(DEFAULT_NOTICE)
        proc.stdin.close()
        assert proc.stdout.read() == b"" and proc.wait(timeout=60) == 0
        assert proc.stderr.read() == b""
    finally:
        proc.kill()
        proc.wait()


def test_a_closed_pipe_and_ctrl_c_end_quietly():
    proc = _spawn()
    try:
        proc.stdin.write(_line(GOOD))
        proc.stdin.flush()
        proc.stdout.readline()
        proc.stdout.close()  # the reader goes away
        proc.stdin.write(_line(GOOD) * 50)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        assert proc.stderr.read() == b""
    finally:
        proc.kill()
        proc.wait()

    proc = _spawn()
    try:
        proc.stdin.write(_line(GOOD))
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == "a1"
        time.sleep(0.2)  # waiting for the next record
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
        assert proc.stderr.read() == b"" and proc.stdout.read() == b""
    finally:
        proc.kill()
        proc.wait()



def test_line_separators_in_a_record_are_escaped_so_each_result_stays_one_line(cli, monkeypatch):
    """U+2028, U+2029 and U+0085 are legal raw in a JSON string, but a reader of lines (Python's
    splitlines, JavaScript before ES2019) splits there: every JSON line groundlab writes escapes them."""
    odd = {**GOOD, "id": "s\u2028p", "answer": "The team lead approves refunds\u2028over 500 EUR [KB-7].\u2029"
                                                 "Refunds can be\x85paid in cash [KB-7]."}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_line(odd) + _line(GOOD)), encoding="utf-8"))
    code, out, err = cli("guard")
    assert code == 0, err
    assert not any(c in out for c in "\u2028\u2029\x85") and "\\u2028" in out
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["id"] == "s\u2028p" and "\u2029" in first["text"] and second["id"] == "a1"


@pytest.mark.parametrize("judge", ["entail", "signals", "rules"])
def test_the_guard_passes_no_claim_on_no_passage_text(cli, monkeypatch, judge):
    """With no passage, or only empty ones, the entail judge found a short claim supported
    ('entailment 0.59 on 0 words') and the guard let it through."""
    records = [{"id": "none", "question": "How are refunds paid?", "retrieved": [],
                "answer": "Refunds can be paid in cash."},
               {"id": "empty", "question": "How are refunds paid?", "retrieved": [{"id": "D1", "text": " "}],
                "answer": "Refunds are paid."}]
    code, out, err = _run(cli, monkeypatch, b"".join(_line(r) for r in records), "--judge", judge, "--mode", "hide")
    assert code == 0, err
    for result in out:
        assert result["changed"] and [c["verdict"] for c in result["claims"]] == ["unsupported"], result
        assert "no passage text" in result["flagged"][0]["reason"]
