"""The llm judge through the Message Batches API (submit, poll, results, resume) and what a run
costs by the price table, against the stub's batch endpoints."""

from __future__ import annotations

import json
import signal
import threading
import time

import pytest

from groundlab import evaluate, get_judge, load_cases

from conftest import CASES, NOTES
from messages_stub import KEY, Canceled, Expired, Fail, MessagesStub, Raw, messages_stub, stopped  # noqa: F401

ANSWERED = 10
ARGS = ("--cases", CASES, "--passages", NOTES)


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch):
    from groundlab.judges.llm import batch

    monkeypatch.setattr(batch, "POLL_INTERVAL", 0.05)


def batch_files(cache):
    return sorted((cache / "batches").glob("*.json")) if (cache / "batches").exists() else []


def test_a_batch_run_submits_polls_fetches_and_caches(messages_stub, cli, tmp_path):
    cache = tmp_path / "c"
    live = cli.json("score", "--judge", "llm", "--no-cache", *ARGS)
    live_requests = list(messages_stub.requests)
    messages_stub.requests.clear()
    messages_stub.calls.clear()
    code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", cache, "--json", *ARGS)
    assert code == 0, err
    assert json.loads(out) == live  # the same verdicts as request by request
    assert messages_stub.requests == [] and len(messages_stub.batch_requests) == ANSWERED
    assert [c.split("/")[-1] if "batches/" in c else c for c in messages_stub.calls][:1] == ["POST /v1/messages/batches"]
    (batch_id,) = messages_stub.batches
    assert f"GET /v1/messages/batches/{batch_id}" in messages_stub.calls
    assert f"GET /v1/messages/batches/{batch_id}/results" in messages_stub.calls
    params = [r["params"] for r in messages_stub.batch_requests]
    assert sorted(json.dumps(p, sort_keys=True) for p in params) == \
        sorted(json.dumps(b, sort_keys=True) for b in live_requests)  # each request as it would go alone
    assert len(list(cache.rglob("*.json"))) == ANSWERED and batch_files(cache) == []
    assert "10 requests sent, 0 answered from the cache" in err and "(10 of the requests in batches, at half price)" in err
    code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", cache, *ARGS)
    assert "0 requests sent, 10 answered from the cache" in err and len(messages_stub.batches) == 1


def test_a_batch_costs_half(messages_stub, tmp_path):
    cases = load_cases(CASES, NOTES)
    alone = get_judge("llm", cache=None, progress=False)
    evaluate(cases, alone)
    batched = get_judge("llm", cache=None, progress=False, batch=True, poll_interval=0.01)
    evaluate(cases, batched)
    assert batched.usage.input_tokens == alone.usage.input_tokens > 0
    assert batched.usage.cost == pytest.approx(alone.usage.cost / 2)
    expected = (alone.usage.input_tokens * 2 + alone.usage.output_tokens * 10) / 1e6  # claude-sonnet-5-5: $2 / $10
    assert alone.usage.cost == pytest.approx(expected)
    assert f"about ${expected:.3f} at $2 / $10 per million input / output tokens" in alone.summary()


def test_an_interrupted_batch_run_resumes_the_same_batch(messages_stub, cli, tmp_path):
    cache = tmp_path / "c"
    messages_stub.batch_polls = 10_000  # never ends while the first run waits
    main = threading.main_thread().ident

    def interrupt_once_submitted():
        deadline = time.monotonic() + 30
        while not batch_files(cache) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        signal.pthread_kill(main, signal.SIGINT)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    presser = threading.Thread(target=interrupt_once_submitted, daemon=True)
    try:
        presser.start()
        code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", cache, *ARGS)
        presser.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    (batch_id,) = messages_stub.batches
    assert code == 130 and f"the batch {batch_id} keeps running at the API; run the same command again" in err
    (record,) = batch_files(cache)
    assert record.stem == batch_id and len(json.loads(record.read_text())["keys"]) == ANSWERED
    messages_stub.batch_polls = 0
    code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", cache, "--json", *ARGS)
    assert code == 0 and json.loads(out)["errors"] == 0
    assert len(messages_stub.batches) == 1 and len(messages_stub.batch_requests) == ANSWERED  # no second batch
    assert messages_stub.requests == [] and batch_files(cache) == []


def test_results_that_expired_canceled_or_errored_are_sent_again_or_reported(messages_stub, cli, tmp_path):
    messages_stub.script = [Expired(), Canceled(), Fail(500), Fail(400, message="too many tools")]
    code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", tmp_path / "c", *ARGS)
    assert code == 0, err
    assert len(messages_stub.requests) == 3  # the expired, canceled and errored (api_error) ones, the normal way
    assert ("3 requests came back without a usable result (expired; canceled; errored: api_error); they are sent "
            "again the normal way, at the normal price") in err
    assert "the batch refused this request (invalid_request_error: too many tools)" in out
    assert "(6 of the requests in batches, at half price)" in err
    code, out, err = cli("score", "--judge", "llm", "--cache", tmp_path / "c", *ARGS)
    assert len(messages_stub.requests) == 4  # the refused one is asked again on a rerun, like any failure


def test_the_results_url_on_another_host_gets_no_key(messages_stub, cli, tmp_path):
    other = MessagesStub().start()
    try:
        messages_stub.results_url = other.url
        code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", tmp_path / "c", *ARGS)
        stop = stopped(code, out, err)
        assert f"refused to send a request to {other.url}/v1/messages/batches/" in stop
        assert f"which is not the run's endpoint {messages_stub.url}, so the key stayed here" in stop
        assert other.calls == [] and len(batch_files(tmp_path / "c")) == 1  # kept, to collect later
    finally:
        other.stop()


def test_an_endpoint_without_batches_is_one_sentence(messages_stub, cli, tmp_path):
    messages_stub.batch_script["create"] = [Fail(404)]
    code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", tmp_path / "c", *ARGS)
    assert code == 2 and err.count("\n") == 1 and "has no Message Batches API" in err and "without --batch" in err


def test_passing_failures_of_the_batch_calls_are_retried(messages_stub, tmp_path):
    messages_stub.batch_script = {"create": [Fail(529)], "retrieve": [Fail(500)], "results": [Fail(503)]}
    judge = get_judge("llm", cache=tmp_path / "c", backoff=0, progress=False, batch=True, poll_interval=0.01)
    ev = evaluate(load_cases(CASES, NOTES), judge)
    assert ev.claims["error"].isna().all() and len(messages_stub.batches) == 1 and messages_stub.requests == []


@pytest.mark.parametrize("step, answer", [
    ("create", Raw(200, b"<html>", "text/html")), ("create", lambda body: {"id": "../../escape"}),
    ("create", lambda body: [1, 2]), ("retrieve", lambda body: [1, 2]),
    ("retrieve", lambda body: {"processing_status": "ended", "results_url": 5}),
    ("results", Raw(200, b"\x00\xff not lines", "application/binary")),
])
def test_a_batch_call_answered_with_nonsense_is_one_sentence_or_sent_again(messages_stub, cli, tmp_path, step, answer):
    messages_stub.batch_script[step] = [answer]
    code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", tmp_path / "c", *ARGS)
    assert "Traceback" not in err
    if step == "results":  # the lines that cannot be read are skipped, their requests sent the normal way
        assert code == 0 and "sent again the normal way" in err and len(messages_stub.requests) == ANSWERED
    else:
        assert "--batch" in stopped(code, out, err)
    assert not (tmp_path / "escape.json").exists() and not (tmp_path / "c" / "escape.json").exists()


def test_a_batch_the_api_forgot_is_sent_again(messages_stub, tmp_path):
    cache = tmp_path / "c"
    (cache / "batches").mkdir(parents=True)
    judge = get_judge("llm", cache=cache, backoff=0, progress=False, batch=True, poll_interval=0.01)
    keys = [judge._key(r) for _, r in judge.requests_for(
        [(c, e) for c, e in _pairs()])]
    (cache / "batches" / "msgbatch_gone.json").write_text(json.dumps(
        {"id": "msgbatch_gone", "endpoint": messages_stub.url, "model": judge.model, "keys": keys}))
    ev = evaluate(load_cases(CASES, NOTES), judge)
    assert ev.claims["error"].isna().all()
    assert "the API no longer knows batch msgbatch_gone; its requests are sent again" in " ".join(judge.warnings)
    assert len(messages_stub.requests) == ANSWERED and batch_files(cache) == []


def _pairs():
    from groundlab.evaluate import claim_pairs, split_cases

    cases = load_cases(CASES, NOTES)
    return claim_pairs(list(zip(cases, split_cases(cases))))


def test_result_lines_that_cannot_be_read_are_skipped_and_sent_again(messages_stub, tmp_path):
    steady = messages_stub.default
    messages_stub.script = [lambda params: {"type": "message", "content": "x" * (2 << 20)}, steady, steady]
    judge = get_judge("llm", cache=tmp_path / "c", backoff=0, progress=False, batch=True, poll_interval=0.01)
    ev = evaluate(load_cases(CASES, NOTES), judge)
    assert ev.claims["error"].isna().all() and len(messages_stub.requests) == 1
    assert "came back without a usable result (a result line was larger than 1,028 KiB" in " ".join(judge.warnings)


def test_a_batch_run_prints_progress_lines_while_it_waits(messages_stub, cli, tmp_path, monkeypatch):
    from groundlab.judges.llm import progress

    monkeypatch.setattr(progress, "PROGRESS_EVERY", 0.05)
    messages_stub.batch_polls = 4
    code, out, err = cli("score", "--judge", "llm", "--batch", "--no-cache", *ARGS)
    assert code == 0
    assert "0 of 10 requests done (0%) after" in err and "; 10 processing at the API" in err


def test_a_batch_dry_run_gives_half_the_price(messages_stub, cli):
    code, out, err = cli("score", "--judge", "llm", "--dry-run", "--no-cache", *ARGS)
    whole = float(out.split("estimated price $")[1].split(" ")[0])
    code, out, err = cli("score", "--judge", "llm", "--dry-run", "--batch", "--no-cache", *ARGS)
    half = float(out.split("estimated price $")[1].split(" ")[0])
    assert half == pytest.approx(whole / 2, abs=0.001) and "in batches, at half price, at $2 / $10" in out
    assert messages_stub.calls == []


# ---------------------------------------------------------------- the price table


def test_the_price_table_can_be_replaced_from_a_file_or_the_environment(messages_stub, cli, tmp_path, monkeypatch):
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"date": "2027-01-01", "models": {"claude-in-house": {"input": 1, "output": 2}}}))
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--model", "claude-in-house", "--price-table", table,
                         *ARGS)
    assert code == 0 and f"at $1 / $2 per million input / output tokens, the price table {table} of 2027-01-01" in err
    monkeypatch.setenv("GROUNDLAB_PRICE_TABLE", str(table))
    code, out, err = cli("score", "--judge", "llm", "--dry-run", "--no-cache", "--model", "claude-in-house", *ARGS)
    assert "estimated price $0.0" in out and f"the price table {table} of 2027-01-01" in out


def test_a_model_without_a_price_says_so(messages_stub, cli):
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--model", "claude-unknown-9", *ARGS)
    assert code == 0 and "no price for claude-unknown-9 in the price table (--price-table FILE" in err


@pytest.mark.parametrize("content, says", [
    ("{", "is not JSON"), ("[]", 'holds no "models" object'),
    ('{"models": {"m": {"input": -1, "output": 2}}}', "model 'm': give \"input\" and \"output\" as numbers"),
    ('{"models": {"m": {"input": "4", "output": 2}}}', "model 'm': give \"input\" and \"output\" as numbers"),
    ('{"models": {}, "batch_discount": 2}', "batch_discount must be a number above 0 and at most 1"),
])
def test_a_bad_price_table_is_one_sentence(messages_stub, cli, tmp_path, content, says):
    table = tmp_path / "prices.json"
    table.write_text(content)
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--price-table", table, *ARGS)
    assert code == 2 and err.count("\n") == 1 and says in err and str(table) in err
    assert messages_stub.calls == []
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--price-table", tmp_path / "missing.json", *ARGS)
    assert code == 2 and "missing.json" in err


def test_prices_by_model_name_and_prompt_length():
    from groundlab.judges.llm import pricing

    table = pricing.load()
    assert table.price("claude-opus-5-5-20260922") == table.price("claude-opus-5-5")
    haiku = table.price("claude-haiku-5-5")
    assert haiku.cost(100_000, 1_000) == pytest.approx((100_000 * 0.10 + 1_000 * 0.50) / 1e6)
    assert haiku.cost(100_001, 1_000) == pytest.approx((100_001 * 0.50 + 1_000 * 2.50) / 1e6)
    assert table.batch_discount == 0.5
    assert json.loads(pricing.BUILT_IN.read_text())["date"] == "2026-12-01"


def test_a_refused_key_stops_a_batch_run_with_one_sentence(messages_stub, cli, tmp_path):
    messages_stub.batch_script["create"] = [Fail(401, message="invalid x-api-key {key}")]
    code, out, err = cli("score", "--judge", "llm", "--batch", "--cache", tmp_path / "c", *ARGS)
    assert code == 2 and err.count("\n") == 1 and f"the API at {messages_stub.url} refused the key (401)" in err
    assert messages_stub.batches == {} and "sk-test" not in err


def test_a_request_two_batches_hold_is_taken_once(messages_stub, tmp_path):
    import httpx

    cache = tmp_path / "c"
    from groundlab.records import GroundlabError

    messages_stub.batch_polls = 10_000
    messages_stub.batch_script["retrieve"] = [Fail(401)]  # the first run stops once it has submitted
    first = get_judge("llm", cache=cache, progress=False, batch=True, poll_interval=0.01)
    with pytest.raises(GroundlabError, match="refused the key"):
        evaluate(load_cases(CASES, NOTES), first)
    (record,) = batch_files(cache)
    # Another run submitted the same requests at the same moment: a second batch, a second record.
    second = httpx.post(f"{messages_stub.url}/v1/messages/batches", json={"requests": messages_stub.batch_requests[:]},
                        headers={"x-api-key": KEY}).json()["id"]
    state = json.loads(record.read_text())
    (record.parent / f"{second}.json").write_text(json.dumps(dict(state, id=second)))
    messages_stub.batch_polls = 0
    judge = get_judge("llm", cache=cache, progress=False, batch=True, poll_interval=0.01)
    ev = evaluate(load_cases(CASES, NOTES), judge)
    assert ev.claims["error"].isna().all() and len(messages_stub.batches) == 2
    assert judge.usage.requests == judge.usage.batched == ANSWERED  # each reply taken once
    assert batch_files(cache) == [] and messages_stub.requests == []
