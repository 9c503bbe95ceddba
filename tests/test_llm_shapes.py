"""The llm judge's request shapes: what each model may be sent (the model table), the request the
judge builds from it, and runs against the stub behaving as the model does (refusing a forced tool
or a temperature with the API's 400, thinking before it answers, answering in JSON)."""

from __future__ import annotations

import json

import pytest

from groundlab import evaluate, get_judge, load_cases
from groundlab.judges.llm import DEFAULT_MODEL, Request
from groundlab.judges.llm.capabilities import FORCED_TOOL, Shape, choose, load
from groundlab.judges.llm.prompt import (JSON_SYSTEM_PROMPT, PROMPT_VERSION, SYSTEM_PROMPT, THINKING_ROOM,
                                         request_params, verdict_schema)
from groundlab.records import Passage

from conftest import CASES, NOTES
from messages_stub import (REFUSALS, json_reply, messages_stub, parse_request, rules_verdicts,  # noqa: F401
                           stopped, text_reply, tool_reply, with_thinking)

ARGS = ("--cases", CASES, "--passages", NOTES)
ANSWERED = 10


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch):
    from groundlab.judges.llm import batch

    monkeypatch.setattr(batch, "POLL_INTERVAL", 0.05)


def judge(tmp_path, **options):
    options.setdefault("cache", tmp_path / "cache")
    options.setdefault("backoff", 0.0)
    options.setdefault("progress", False)
    return get_judge("llm", **options)


def measures(out: str) -> dict:
    """``score --json`` without the judge's identity (which names the model and the request shape)."""
    return {k: v for k, v in json.loads(out).items() if k != "judge_identity"}


# ---------------------------------------------------------------- the table and the shapes


def test_each_current_model_gets_a_request_it_accepts():
    table = load()
    shapes = {model: choose(table.capabilities(model)) for model in
              ("claude-opus-5-5", "claude-sonnet-5-5", "claude-fable-5-1", "claude-haiku-5-5", "claude-opus-5",
               "claude-sonnet-5", "claude-opus-4-7", "claude-haiku-4-5")}
    for model in ("claude-opus-5-5", "claude-sonnet-5-5", "claude-fable-5-1", "claude-haiku-5-5"):
        assert shapes[model] == Shape("json", False, "adaptive", "low"), model  # no forced tool, no temperature
    for model in ("claude-opus-5", "claude-sonnet-5"):  # forcing a tool needs thinking off, which they allow
        assert shapes[model] == Shape("tool", False, "disabled"), model
    assert shapes["claude-opus-4-7"] == Shape("tool", False, "off")  # no temperature from 4.7 on
    assert shapes["claude-haiku-4-5"] == FORCED_TOOL
    assert table.capabilities("claude-opus-5-5-20260922") == table.capabilities("claude-opus-5-5")
    # A model the table lacks, even of a known line, gets what every current model accepts.
    for model in ("claude-opus-5-7", "claude-fable-5-2", "my-proxy-model"):
        assert not table.capabilities(model).known
        assert choose(table.capabilities(model)) == Shape("json", False, "default", None)


def test_each_shape_sends_only_what_the_model_accepts():
    request = Request("Q?", (Passage("D1", "text"),), ("claim one", "claim two"))
    built = {}
    for shape in (FORCED_TOOL, Shape("tool", False, "disabled"), Shape("json", False, "adaptive", "low"),
                  Shape("json", False, "default"), Shape("auto-tool", False, "off")):
        built[shape.kind, shape.thinking] = request_params(request, "m", None, shape)
    forced = built["tool", "off"]
    assert forced["temperature"] == 0 and forced["tool_choice"] == {"type": "tool", "name": "record_verdicts"}
    assert forced["system"] == SYSTEM_PROMPT and "thinking" not in forced and "output_config" not in forced
    quiet = built["tool", "disabled"]
    assert quiet["thinking"] == {"type": "disabled"} and "temperature" not in quiet
    answer = built["json", "adaptive"]
    assert "temperature" not in answer and "tools" not in answer and "tool_choice" not in answer
    assert "thinking" not in answer  # left adaptive: it cannot be disabled on these models
    assert answer["output_config"] == {"format": {"type": "json_schema", "schema": verdict_schema()}, "effort": "low"}
    assert answer["system"] == JSON_SYSTEM_PROMPT and answer["max_tokens"] == forced["max_tokens"] + THINKING_ROOM
    assert "output_config" in built["json", "default"] and "effort" not in built["json", "default"]["output_config"]
    offered = built["auto-tool", "off"]
    assert offered["tool_choice"] == {"type": "auto"} and "Call it once, with every claim" in offered["system"]
    # The JSON answer's schema is the tool's, closed as structured outputs require.
    schema = verdict_schema()
    item = schema["properties"]["verdicts"]["items"]
    assert schema["additionalProperties"] is False and item["additionalProperties"] is False
    assert item["required"] == ["claim", "reason", "verdict", "supported_by"]
    # The rules are the same in every shape: only the sentence saying where the verdicts go differs.
    rules = SYSTEM_PROMPT[: SYSTEM_PROMPT.index("Record every claim")]
    assert JSON_SYSTEM_PROMPT.startswith(rules) and JSON_SYSTEM_PROMPT[len(rules):].startswith("Answer with one JSON")
    assert PROMPT_VERSION == "3"  # the prompt says computations count; replies to the old one stop matching


def test_the_cache_key_names_the_shape_and_the_old_shape_keeps_its_old_key():
    import hashlib

    request = Request("Q?", (Passage("D1", "text"),), ("claim",))
    old = json.dumps(["1", "m", PROMPT_VERSION, "Q?", [["D1", "text"]], None, ["claim"]], ensure_ascii=False,
                     separators=(",", ":"))
    assert request.key("m", "1", FORCED_TOOL) == hashlib.sha256(old.encode()).hexdigest()  # replies cached before
    keys = {request.key("m", "1", shape) for shape in (FORCED_TOOL, Shape("tool", False, "disabled"),
                                                       Shape("json", False, "adaptive", "low"),
                                                       Shape("json", False, "adaptive", "medium"),
                                                       Shape("json", False, "default"))}
    assert len(keys) == 5


def test_a_reply_cached_in_one_shape_is_not_reused_for_another(messages_stub, tmp_path):
    cache = tmp_path / "cache"
    cases = load_cases(CASES, NOTES)[:1]
    evaluate(cases, judge(tmp_path, model="claude-haiku-4-5", cache=cache))
    table = tmp_path / "models.json"
    table.write_text(json.dumps({"models": {"claude-haiku-4-5": {
        "forced_tool": False, "temperature": False, "thinking": "off", "structured_outputs": True, "effort": False}}}))
    evaluate(cases, judge(tmp_path, model="claude-haiku-4-5", cache=cache, model_table=table))
    assert len(messages_stub.requests) == 2 and "output_config" in messages_stub.requests[1]
    evaluate(cases, judge(tmp_path, model="claude-haiku-4-5", cache=cache, model_table=table))
    assert len(messages_stub.requests) == 2  # each shape finds its own reply
    entry = json.loads(next(p for p in cache.rglob("*.json")).read_text())
    assert entry["request_shape"].startswith(("tool;", "json;"))


# ---------------------------------------------------------------- the default model, end to end


def test_the_default_model_is_sent_what_it_accepts_and_gives_the_same_verdicts(messages_stub, cli, tmp_path):
    code, out, err = cli("score", "--judge", "llm", "--model", "claude-haiku-4-5", "--no-cache", "--json", *ARGS)
    forced = measures(out)
    assert code == 0 and all(b["tool_choice"]["type"] == "tool" for b in messages_stub.requests)
    messages_stub.requests.clear()
    messages_stub.behave_like(DEFAULT_MODEL)  # refuses a forced tool, a temperature, disabled thinking; thinks
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--json", *ARGS)
    assert code == 0, err
    assert measures(out) == forced  # the stub gave the same verdicts: the same figures
    assert len(messages_stub.requests) == ANSWERED and messages_stub.refused == 0
    for body in messages_stub.requests:
        assert body["model"] == DEFAULT_MODEL and "temperature" not in body and "tool_choice" not in body
        assert body["output_config"]["effort"] == "low" and body["output_config"]["format"]["type"] == "json_schema"
    identity = json.loads(out)["judge_identity"]
    assert identity["request_shape"] == ("JSON output (output_config.format), adaptive thinking at effort low, "
                                         "default temperature")
    assert "3,000 of them thinking" in err  # 300 a reply, as the stub counts them
    assert "requests sent" in err and "$2 / $10" in err


def test_a_model_that_refuses_the_forced_tool_stops_the_run_saying_which_entry_to_change(messages_stub, cli,
                                                                                        tmp_path):
    messages_stub.behave_like("claude-opus-5-5")
    table = tmp_path / "models.json"  # a table that is wrong about the model
    table.write_text(json.dumps({"date": "2027-01-01", "models": {"claude-opus-5-5": {
        "forced_tool": True, "temperature": False, "thinking": "off", "structured_outputs": True, "effort": False}}}))
    code, out, err = cli("score", "--judge", "llm", "--model", "claude-opus-5-5", "--model-table", table,
                         "--no-cache", "--concurrency", "1", *ARGS)
    stop = stopped(code, out, err)
    assert REFUSALS["forced_tool"] in stop and "refused the first 3 requests alike (HTTP 400" in stop
    assert f"the model table {table} of 2027-01-01 says claude-opus-5-5 takes this" in stop
    assert '"forced_tool": false' in stop and "--model-table FILE" in stop
    assert len(messages_stub.requests) == 3 and messages_stub.refused == 3
    # What the stopped run spent comes before the sentence: three requests sent, none answered.
    assert err.splitlines()[0].startswith("groundlab: llm judge (claude-opus-5-5 at ")
    assert "0 requests sent" in err.splitlines()[0] and "3 requests failed" in err.splitlines()[0]


def test_a_model_that_refuses_a_temperature_is_named_too(messages_stub, cli, tmp_path):
    messages_stub.rejects = {"temperature"}
    code, out, err = cli("score", "--judge", "llm", "--model", "claude-haiku-4-5", "--no-cache", "--concurrency",
                         "1", *ARGS)
    stop = stopped(code, out, err)
    assert "`temperature` is deprecated for this model." in stop and '"temperature": false' in stop


def test_an_unknown_model_gets_the_shape_every_current_model_accepts_with_a_note(messages_stub, cli, tmp_path):
    messages_stub.rejects = {"forced_tool", "temperature", "thinking_disabled"}
    messages_stub.thinks = True
    code, out, err = cli("score", "--judge", "llm", "--model", "claude-fable-5-2", "--no-cache", *ARGS)
    assert code == 0 and messages_stub.refused == 0 and "judge errors" not in out
    notes = [line for line in err.splitlines() if "model table has no entry" in line]
    assert len(notes) == 1 and "claude-fable-5-2" in notes[0] and "--model-table FILE" in notes[0]
    for body in messages_stub.requests:
        assert body["output_config"] == {"format": {"type": "json_schema", "schema": verdict_schema()}}
        assert not {"temperature", "thinking", "tools", "tool_choice"} & set(body)


def test_a_model_without_forced_tools_or_json_answers_is_offered_the_tool(messages_stub, tmp_path):
    table = tmp_path / "models.json"
    table.write_text(json.dumps({"models": {"claude-old": {
        "forced_tool": False, "temperature": True, "thinking": "off", "structured_outputs": False, "effort": False}}}))
    def explained(body):  # some text, then the call
        reply = tool_reply(rules_verdicts(parse_request(body)), body)
        return {**reply, "content": [{"type": "text", "text": "I will record them."}] + reply["content"]}

    messages_stub.script = [explained, lambda body: text_reply("All supported, I think.", body)]
    ev = evaluate(load_cases(CASES, NOTES)[:2], judge(tmp_path, model="claude-old", model_table=table,
                                                      concurrency=1))
    assert [b["tool_choice"] for b in messages_stub.requests] == [{"type": "auto"}] * 2
    assert all(b["temperature"] == 0 for b in messages_stub.requests)
    assert ev.claims["error"].isna().tolist() == [True] * 3 + [False] * 2
    assert set(ev.claims["error"].dropna()) == {"the reply held no record_verdicts tool call"}


# ---------------------------------------------------------------- replies of a thinking model


def test_thinking_blocks_before_the_json_answer_are_skipped(messages_stub, tmp_path):
    messages_stub.script = [lambda body: with_thinking(json_reply(rules_verdicts(parse_request(body)), body),
                                                       redacted=True, tokens=1234)]
    j = judge(tmp_path)
    ev = evaluate(load_cases(CASES, NOTES)[:1], j)
    assert ev.claims["error"].isna().all() and ev.claims["verdict"].notna().all()
    assert j.usage.thinking_tokens == 1234 and "1,234 of them thinking" in j.summary()


@pytest.mark.parametrize("reply, says", [
    (lambda body: text_reply("The claims look fine.", body),
     "the reply held no JSON object of verdicts (its text starts 'The claims look fine.')"),
    (lambda body: with_thinking({**text_reply("", body), "content": []}), "the reply held no JSON object of verdicts "
                                                                           "(it held no text)"),
    (lambda body: text_reply('{"verdicts": "all fine"}', body), "the reply held no list of verdicts"),
    (lambda body: text_reply('{"verdicts": [{"claim": 7, "verdict": "supported"}]}', body),
     "the reply numbered a claim 7 but the request had 3 claims; its numbering cannot be trusted"),
    (lambda body: {**text_reply("", body), "stop_reason": "refusal"}, "the model declined to answer (stop_reason "
                                                                      "refusal)"),
])
def test_a_json_answer_that_cannot_be_used_is_one_sentence_per_claim(messages_stub, tmp_path, reply, says):
    messages_stub.script = [reply]
    j = judge(tmp_path)
    ev = evaluate(load_cases(CASES, NOTES)[:1], j)
    assert ev.claims["verdict"].isna().all() and set(ev.claims["error"]) == {says}
    assert not any((tmp_path / "cache").rglob("*.json")) and len(j.failed_replies) == 1


def test_a_json_answer_in_a_code_fence_or_a_tool_call_is_still_read(messages_stub, tmp_path):
    def fenced(body):
        return text_reply("```json\n" + json.dumps({"verdicts": rules_verdicts(parse_request(body))}) + "\n```", body)

    messages_stub.script = [fenced, lambda body: tool_reply(rules_verdicts(parse_request(body)), body)]
    ev = evaluate(load_cases(CASES, NOTES)[:2], judge(tmp_path, concurrency=1))
    assert ev.claims["error"].isna().all()


def test_the_dry_run_counts_thinking_and_says_it_is_a_guess(messages_stub, cli):
    code, out, err = cli("score", "--judge", "llm", "--dry-run", "--no-cache", *ARGS)
    assert code == 0 and f"({DEFAULT_MODEL} at {messages_stub.url}; JSON output" in out
    assert "and 5,000 of thinking, a guess at 500 a request" in out  # 10 requests at effort low
    assert "for the system prompt and the schema of the answer" in out
    code, out2, err = cli("score", "--judge", "llm", "--dry-run", "--no-cache", "--model", "claude-haiku-4-5", *ARGS)
    assert "of thinking" not in out2 and "tool definition" in out2


# ---------------------------------------------------------------- batches and the whole run in one


def test_a_batch_run_sends_the_default_model_s_shape(messages_stub, cli, tmp_path):
    messages_stub.behave_like(DEFAULT_MODEL)
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--json", *ARGS)
    live = measures(out)
    code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", tmp_path / "c", "--json", *ARGS)
    assert code == 0, err
    assert measures(out) == live and messages_stub.refused == 0
    assert len(messages_stub.batch_requests) == ANSWERED
    assert all("output_config" in r["params"] and "tool_choice" not in r["params"]
               for r in messages_stub.batch_requests)
    assert "(10 of the requests in batches, at half price)" in err and "of them thinking" in err


def test_a_batch_the_model_refuses_names_the_table_entry_to_change(messages_stub, cli, tmp_path):
    messages_stub.behave_like("claude-opus-5-5")
    table = tmp_path / "models.json"
    table.write_text(json.dumps({"models": {"claude-opus-5-5": {
        "forced_tool": True, "temperature": True, "thinking": "off", "structured_outputs": True, "effort": False}}}))
    code, out, err = cli("score", "--judge", "llm", "--model", "claude-opus-5-5", "--model-table", table, "--batch",
                         "--cache", tmp_path / "c", *ARGS)
    stop = stopped(code, out, err)
    assert "could not judge any of the 20 claims (the first: the batch refused this request" in stop
    assert REFUSALS["forced_tool"] in stop and '"forced_tool": false' in stop and str(table) in stop


def test_a_batch_run_larger_than_one_chunk_is_one_batch(messages_stub, cli, tmp_path, monkeypatch):
    import importlib

    monkeypatch.setattr(importlib.import_module("groundlab.evaluate"), "CHUNK", 3)  # the 12 sample cases: 4 chunks
    code, out, err = cli("score", "--judge", "llm", "--no-cache", *ARGS)
    assert code == 0 and len(messages_stub.requests) == ANSWERED
    code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", tmp_path / "c", *ARGS)
    assert code == 0, err
    assert messages_stub.calls.count("POST /v1/messages/batches") == 1 and len(messages_stub.batches) == 1
    assert len(messages_stub.batch_requests) == ANSWERED


# ---------------------------------------------------------------- the model table of one's own


def test_a_model_table_from_a_file_or_the_environment(messages_stub, cli, tmp_path, monkeypatch):
    table = tmp_path / "models.json"
    table.write_text(json.dumps({"date": "2027-01-01", "models": {"claude-in-house": {
        "forced_tool": True, "temperature": True, "thinking": "off", "structured_outputs": True, "effort": False}}}))
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--model", "claude-in-house", "--model-table",
                         table, *ARGS)
    assert code == 0 and "model table has no entry" not in err
    assert all(b["tool_choice"]["type"] == "tool" for b in messages_stub.requests)
    monkeypatch.setenv("GROUNDLAB_MODEL_TABLE", str(table))
    code, out, err = cli("score", "--judge", "llm", "--dry-run", "--no-cache", "--model", "claude-in-house", *ARGS)
    assert "forced record_verdicts tool call, temperature 0" in out


@pytest.mark.parametrize("content, says", [
    ("{", "is not JSON"), ("[]", 'holds no "models" object'),
    ('{"models": {"m": {"forced_tool": "yes"}}}', "model 'm': give forced_tool, temperature and structured_outputs"),
    ('{"models": {"m": {"forced_tool": true, "temperature": true, "thinking": "sometimes", '
     '"structured_outputs": true}}}', "thinking as off, on, always"),
    ('{"models": {}, "unknown": {"forced_tool": true, "temperature": true, "thinking": "off", '
     '"structured_outputs": true, "effort": "lots"}}', "entry 'unknown': give"),
])
def test_a_bad_model_table_is_one_sentence(messages_stub, cli, tmp_path, content, says):
    table = tmp_path / "models.json"
    table.write_text(content)
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--model-table", table, *ARGS)
    assert code == 2 and err.count("\n") == 1 and says in err and str(table) in err
    assert messages_stub.calls == []


# ---------------------------------------------------------------- options that do not apply


def test_label_export_blind_refuses_every_model_option_in_one_sentence(cli, tmp_path):
    out = tmp_path / "sheet.csv"
    code, _, err = cli("label", "export", "--blind", "--batch", "--timeout", "5", "--base-url", "https://x.example",
                       "--price-table", "p.json", "--model-table", "m.json", "--cases", CASES, "--passages", NOTES,
                       "--out", out)
    assert code == 2 and err.count("\n") == 1 and not out.exists()
    assert ("--timeout, --base-url, --batch, --price-table, --model-table choose the judge whose suggestions the sheet "
            "shows, and the sheet is blind by default; add --show-judge to show them, or drop them.") in err
    code, _, err = cli("label", "export", "--concurrency", "2", "--cases", CASES, "--passages", NOTES,
                       "--out", out)
    assert code == 2 and "--concurrency chooses the judge" in err and "add --show-judge to show them, or drop it" in err
