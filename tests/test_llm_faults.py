"""The llm judge against a misbehaving Messages API: every fault is one sentence and exit 2, or an
error verdict for the claims it touches, never a traceback, a hang or a lost paid reply."""

from __future__ import annotations

import json
import time

import pytest

from groundlab import evaluate, get_judge, load_cases
from groundlab.judges.llm import DEFAULT_MODEL
from groundlab.judges.llm.prompt import THINKING_ROOM
from groundlab.records import Evidence, Passage

from conftest import CASES, NOTES
from messages_stub import (HTML, KEY, Drop, Fail, Raw, Silent, messages_stub, parse_request,  # noqa: F401
                           rules_verdicts, stopped, text_reply, tool_reply)

ANSWERED = 10
ARGS = ("--cases", CASES, "--passages", NOTES)


def judge(tmp_path, **options):
    options.setdefault("cache", tmp_path / "cache")
    options.setdefault("backoff", 0.0)
    options.setdefault("progress", False)
    return get_judge("llm", **options)


def one_sentence(code, out, err):
    """The sentence a run stopped with (after the summary of what it spent, if it sent anything)."""
    return stopped(code, out, err)


def edited(edit):
    """A reply with the stub's own verdicts, then ``edit(reply)``."""
    def reply(body):
        message = tool_reply(rules_verdicts(parse_request(body)), body)
        edit(message)
        return message
    return reply


# ---------------------------------------------------------------- replies the judge cannot read


def test_a_claim_number_that_only_looks_like_a_digit_is_an_error_verdict(messages_stub, cli, tmp_path):
    def superscript(message):
        message["content"][0]["input"]["verdicts"][0]["claim"] = "\u00b2"  # "²".isdigit() is True
    messages_stub.script = [edited(superscript)]
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--concurrency", "1", *ARGS)
    assert code == 0 and "Traceback" not in err
    assert "c01 claim 1: the reply numbered a claim '\u00b2' but the request had 3 claims" in out


def test_a_digit_string_claim_number_still_counts(messages_stub, tmp_path):
    def as_text(message):
        for item in message["content"][0]["input"]["verdicts"]:
            item["claim"] = f" {item['claim']} "
    messages_stub.script = [edited(as_text)]
    ev = evaluate(load_cases(CASES, NOTES)[:1], judge(tmp_path))
    assert ev.claims["error"].isna().all()


def test_html_with_status_200_on_every_request_stops_with_one_sentence(messages_stub, cli):
    messages_stub.script = [HTML] * 50
    err = one_sentence(*cli("score", "--judge", "llm", "--no-cache", "--concurrency", "1", *ARGS))
    assert ("answered the first 3 requests alike with no usable message (the endpoint answered with a body that is "
            "not JSON (text/html, starting '<!doctype html>") in err
    assert len(messages_stub.requests) == 3  # not retried: the same address would give the same page


def test_html_with_status_200_on_one_request_is_that_case_s_error(messages_stub, cli):
    messages_stub.script = [messages_stub.default, HTML]
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--concurrency", "1", *ARGS)
    assert code == 0 and "Traceback" not in err and len(messages_stub.requests) == ANSWERED
    assert "the request failed after 1 attempt (the endpoint answered with a body that is not JSON (text/html" in out


@pytest.mark.parametrize("usage", [{"input_tokens": "many", "output_tokens": 40}, {"input_tokens": None},
                                   "lots", {"input_tokens": -3, "output_tokens": True}, [1, 2]])
def test_a_reply_whose_token_counts_are_not_numbers_is_kept_and_counted(messages_stub, cli, tmp_path, usage):
    def odd_usage(message):
        message["usage"] = usage
    messages_stub.script = [edited(odd_usage)]
    args = ("score", "--judge", "llm", "--cache", tmp_path / "c", "--concurrency", "1", *ARGS)
    code, out, err = cli(*args)
    assert code == 0 and "judge errors" not in out
    assert "1 reply gave no usable token count (not priced)" in err
    code, out, err = cli(*args)
    assert len(messages_stub.requests) == ANSWERED  # the paid reply was cached like any other


@pytest.mark.parametrize("body", [
    b"null", b"[]", b'"a message"', b"[" * 100_000, b'{"type": "message", "content": "text"}',
    b'{"type": "message", "content": 5}', b'{"type": "error", "error": {"message": "overloaded"}}',
    b'{"content": [{"type": "tool_use", "name": "record_verdicts", "input": [1, 2]}]}',
    b'{"content": [{"type": "tool_use", "name": "record_verdicts", "input": {"verdicts": [1, "x", null]}}]}',
    b'{"content": [{"type": "tool_use", "name": "record_verdicts", "input": {"verdicts": '
    b'[{"claim": 1.0, "verdict": ["supported"], "supported_by": {"a": 1}, "reason": {"x": [1]}}]}}]}',
    b'{"content": [{"type": "tool_use", "name": "record_verdicts", "input": {"verdicts": '
    b'[{"claim": 1, "verdict": ["supported"], "supported_by": {"a": 1}, "reason": {"x": [1]}}]}}]}',
    b'{"content": [{"type": "tool_use", "name": "record_verdicts", "input": {"verdicts": '
    b'[{"claim": true, "verdict": "supported"}]}}]}',
    b'{"content": [null, 3, "x", {"type": "tool_use"}]}',
    b'{"content": [' + b"[" * 900 + b"]" * 900 + b"]}",
])
def test_odd_replies_become_error_verdicts_never_a_traceback(messages_stub, cli, body):
    messages_stub.script = [lambda request, body=body: body]
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--concurrency", "1", *ARGS)
    assert code == 0 and "Traceback" not in err, err
    assert "c01 claim 1: " in out  # the case that got the odd reply is listed, the others judged


def test_a_reply_larger_than_the_limit_is_not_read(messages_stub, tmp_path):
    def huge(body):
        return tool_reply(rules_verdicts(parse_request(body)), body) | {"padding": "x" * (2 << 20)}
    messages_stub.script = [huge]
    j = judge(tmp_path)
    ev = evaluate(load_cases(CASES, NOTES)[:1], j)
    assert ev.claims["error"].str.contains("the reply was larger than 1,024 KiB and was not read").all()
    assert len(messages_stub.requests) == 1 and not any((tmp_path / "cache").rglob("*.json"))


def test_a_reply_cut_at_max_tokens_says_so(messages_stub, tmp_path):
    def cut(message):
        message["content"][0]["input"]["verdicts"] = message["content"][0]["input"]["verdicts"][:1]
        message["stop_reason"] = "max_tokens"
    messages_stub.script = [edited(cut)]
    ev = evaluate(load_cases(CASES, NOTES)[:1], judge(tmp_path))
    assert ev.claims["error"].isna().tolist() == [True, False, False]
    assert ev.claims["error"][1] == ("the reply gave no verdict for claim 2; the reply was cut off at its limit of "
                                     "9,304 output tokens (thinking included)")  # 1,112 for the reply, 8,192 to think
    messages_stub.script = [edited(cut)]
    ev = evaluate(load_cases(CASES, NOTES)[:1], judge(tmp_path, model="claude-haiku-4-5"))
    assert ev.claims["error"][1] == ("the reply gave no verdict for claim 2; the reply was cut off at its limit of "
                                     "1,112 output tokens")


# ---------------------------------------------------------------- an endpoint that does not answer


@pytest.mark.parametrize("fault", [Silent(30), Drop()], ids=["silent", "dropped"])
def test_an_endpoint_that_does_not_answer_stops_the_run_keeping_what_came(messages_stub, tmp_path, fault):
    from groundlab.records import GroundlabError

    cache = tmp_path / "cache"
    messages_stub.script = [messages_stub.default] * 2 + [fault] * 40
    began = time.monotonic()
    with pytest.raises(GroundlabError) as stopped:
        evaluate(load_cases(CASES, NOTES), judge(tmp_path, cache=cache, concurrency=1, timeout=0.3,
                                                  stop_after_unreachable=3))
    assert time.monotonic() - began < 5
    message = str(stopped.value)
    assert f"the endpoint {messages_stub.url} did not answer 3 requests in a row" in message
    assert "the replies received so far are kept in the cache" in message and "--timeout (now 0.3 s)" in message
    if isinstance(fault, Silent):
        assert "(the last: no complete reply within 0.3 s)" in message
    assert len(list(cache.rglob("*.json"))) == 2
    assert len(messages_stub.requests) == 5  # two answered, then three attempts at the third case


def test_a_silent_endpoint_costs_seconds_on_the_command_line_not_half_an_hour(messages_stub, cli, tmp_path):
    messages_stub.script = [Silent(30)] * 40
    began = time.monotonic()
    err = one_sentence(*cli("score", "--judge", "llm", "--timeout", "0.3", "--cache", tmp_path / "c", *ARGS))
    assert time.monotonic() - began < 10
    assert "did not answer 5 requests in a row" in err and "raise --timeout (now 0.3 s)" in err


def test_the_timeout_must_be_a_positive_number(cli):
    for bad in ("0", "-1", "soon", "inf"):
        code, out, err = cli("score", "--judge", "llm", "--timeout", bad, *ARGS)
        assert code == 2 and "--timeout must be a number above 0" in err


def test_one_slow_request_among_answered_ones_stops_nothing(messages_stub, tmp_path):
    messages_stub.script = [Silent(30), messages_stub.default, Silent(30)] + [messages_stub.default] * 20
    ev = evaluate(load_cases(CASES, NOTES), judge(tmp_path, concurrency=1, timeout=0.3, stop_after_unreachable=2))
    assert ev.claims["error"].isna().all()  # each slow attempt was retried; a reply in between reset the count


def test_progress_lines_when_stderr_is_not_a_terminal(messages_stub, cli, tmp_path, monkeypatch):
    from groundlab.judges.llm import progress

    monkeypatch.setattr(progress, "PROGRESS_EVERY", 0.05)
    messages_stub.delay = 0.12
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--concurrency", "1", *ARGS)
    assert code == 0
    lines = [line for line in err.splitlines() if " requests done (" in line]
    assert len(lines) >= 3, err
    assert lines[0].startswith(f"groundlab: llm judge ({DEFAULT_MODEL}): ") and " of 10 requests done (" in lines[0]
    assert "%) after " in lines[0]


def test_a_fast_run_prints_no_progress_line(messages_stub, cli):
    code, out, err = cli("score", "--judge", "llm", "--no-cache", *ARGS)
    assert code == 0 and "requests done" not in err and err.count("\n") == 1  # the summary only


# ---------------------------------------------------------------- long answers


def long_case(n: int) -> list:
    passage = Passage("P1", " ".join(f"Item {k} costs {k} euros." for k in range(1, n + 1)))
    claims = [f"Item {k} costs {k} euros." for k in range(1, n + 1)]
    evidence = Evidence("What does each item cost?", (passage,), answer=" ".join(claims))
    return [(claim, evidence) for claim in claims]


def test_a_case_with_more_claims_than_one_reply_holds_is_judged_in_parts(messages_stub, tmp_path):
    pairs = long_case(130)
    verdicts = judge(tmp_path).judge_batch(pairs)
    assert len(messages_stub.requests) == 4
    sent = [parse_request(body) for body in messages_stub.requests]
    texts = [text for request in sorted(sent, key=lambda r: r["claims"][0][1].split()[1].zfill(4))
             for _, text in request["claims"]]
    assert texts == [claim for claim, _ in pairs]  # every claim once, in order
    assert all(len(request["claims"]) <= 38 for request in sent)
    assert all(body["max_tokens"] <= 8192 + THINKING_ROOM for body in messages_stub.requests)
    assert all(f"<answer>{pairs[0][1].answer}</answer>" in body["messages"][0]["content"]
               for body in messages_stub.requests)
    assert all(v.label == "supported" for v in verdicts)


def test_each_part_is_cached_on_its_own(messages_stub, tmp_path):
    pairs = long_case(130)
    judge(tmp_path).judge_batch(pairs)
    entries = sorted((tmp_path / "cache").rglob("*.json"))
    assert len(entries) == 4
    entries[2].unlink()
    messages_stub.requests.clear()
    again = judge(tmp_path).judge_batch(pairs)
    assert len(messages_stub.requests) == 1 and all(v.label == "supported" for v in again)


def test_a_smaller_max_tokens_makes_smaller_parts(messages_stub, tmp_path):
    judge(tmp_path, max_tokens=1000).judge_batch(long_case(5))
    assert sorted(len(parse_request(b)["claims"]) for b in messages_stub.requests) == [1, 2, 2]
    assert {b["max_tokens"] for b in messages_stub.requests} == {1000 + THINKING_ROOM}  # the reply, and room to think


def test_the_dry_run_counts_the_parts(messages_stub, tmp_path):
    from groundlab.judges.llm import LLMJudge

    assert LLMJudge(cache=None, dry_run=True).estimate(long_case(130)).requests == 4
    assert messages_stub.requests == []


# ---------------------------------------------------------------- the reply and its body, directly


def test_reading_a_body_stops_at_its_limit_and_its_deadline():
    from groundlab.judges.llm.reply import TooLarge, TooSlow, lines, read_body

    with pytest.raises(TooLarge):
        read_body(iter([b"x" * 600, b"x" * 600]), limit=1000)

    def trickle():
        while True:
            time.sleep(0.01)
            yield b"x"
    with pytest.raises(TooSlow):
        read_body(trickle(), deadline=time.monotonic() + 0.1)
    got = list(lines(iter([b'{"a"', b': 1}\n' + b"y" * 50, b"y" * 60 + b"\n{}\n", b"{}"]), limit=40))
    assert got[0] == b'{"a": 1}' and isinstance(got[1], TooLarge) and got[2:] == [b"{}", b"{}"]


def test_a_deeply_nested_cache_entry_is_a_miss(messages_stub, tmp_path):
    cases = load_cases(CASES, NOTES)[:1]
    evaluate(cases, judge(tmp_path))
    (entry,) = (tmp_path / "cache").rglob("*.json")
    entry.write_text("[" * 100_000)
    messages_stub.requests.clear()
    ev = evaluate(cases, judge(tmp_path))
    assert len(messages_stub.requests) == 1 and ev.claims["error"].isna().all()
    assert json.loads(entry.read_text())["reply"]["verdicts"]
