"""Where the llm judge sends its key: only to the endpoint set beside it (or given with
--base-url), never through a redirect or a results URL to another host; and no text it prints,
keeps or caches holds the key, even when a server echoes it."""

from __future__ import annotations

import pytest

from groundlab import evaluate, get_judge, load_cases
from groundlab.judges.llm import DEFAULT_MODEL

from conftest import CASES, NOTES
from messages_stub import (KEY, Fail, MessagesStub, json_reply, messages_stub, parse_request, text_reply,  # noqa: F401
                           tool_reply)

ARGS = ("--cases", CASES, "--passages", NOTES)
#: What a server may echo of a key: whole, cut, masked, or its last characters as consoles show them.
ECHOES = [KEY, KEY[:14] + "\u2026", "sk-test-no...7f3a", "****-key-7f3a", f"key={KEY[3:]}", f'"{KEY}"']


@pytest.fixture
def other_host():
    """A second stub, standing for a host the key must never reach."""
    stub = MessagesStub().start()
    yield stub
    stub.stop()


def leaked(text: str) -> bool:
    return any(part in text for part in (KEY, KEY[:10], KEY[-12:], "7f3a", "real-key"))


def test_a_dotenv_endpoint_does_not_take_a_key_from_the_environment(messages_stub, other_host, cli, tmp_path):
    (tmp_path / ".env").write_text(f"ANTHROPIC_BASE_URL={other_host.url}\n")
    code, out, err = cli("score", "--judge", "llm", "--no-cache", *ARGS)
    assert code == 0
    assert len(messages_stub.requests) == 10 and other_host.calls == []
    assert (f"warning: .env sets ANTHROPIC_BASE_URL={other_host.url}, but the key comes from the environment, so it "
            f"is sent to {messages_stub.url} instead") in err
    assert f"llm judge ({DEFAULT_MODEL} at {messages_stub.url}; " in err and "): 10 requests sent" in err


def test_a_key_from_the_environment_without_an_endpoint_goes_to_anthropic_only(messages_stub, other_host, monkeypatch,
                                                                               cli, tmp_path):
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    (tmp_path / ".env").write_text(f"ANTHROPIC_BASE_URL={other_host.url}\n")
    judge = get_judge("llm", cache=None)
    assert judge.endpoint.base_url == "https://api.anthropic.com" and judge.endpoint.origin == "the environment"
    code, out, err = cli("score", "--judge", "llm", "--dry-run", "--no-cache", *ARGS)
    assert f"({DEFAULT_MODEL} at https://api.anthropic.com; " in out and "Nothing was sent" in out
    assert other_host.calls == [] and messages_stub.calls == []


def test_a_key_from_dotenv_goes_to_the_dotenv_endpoint(messages_stub, other_host, monkeypatch, cli, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", other_host.url)
    (tmp_path / ".env").write_text(f"ANTHROPIC_API_KEY={KEY}\nANTHROPIC_BASE_URL={messages_stub.url}\n")
    code, out, err = cli("score", "--judge", "llm", "--no-cache", *ARGS)
    assert code == 0 and len(messages_stub.requests) == 10 and other_host.calls == []
    assert "warning: the environment sets ANTHROPIC_BASE_URL" in err and "the key comes from .env" in err


def test_base_url_on_the_command_line_wins(messages_stub, other_host, monkeypatch, cli):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", other_host.url)
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--base-url", messages_stub.url, *ARGS)
    assert code == 0 and len(messages_stub.requests) == 10 and other_host.calls == []
    assert "warning" not in err and f"at {messages_stub.url}; " in err


@pytest.mark.parametrize("url, says", [
    ("http://api.example.com", "would carry the key unencrypted"),
    ("ftp://api.example.com", "is not an http(s) address"),
    ("api.anthropic.com", "is not an http(s) address"),
    ("https://host:port", "is not an http(s) address"),
    ("https://exa\x01mple.com", "holds the control character or space '\\x01'"),
    ("https://api.example.com/v1\x7f", "holds the control character or space '\\x7f'"),
    ("https://api.example.com/v1 x", "holds the control character or space ' '"),
])
def test_an_endpoint_that_cannot_be_one_is_one_sentence(messages_stub, cli, url, says):
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--base-url", url, *ARGS)
    assert code == 2 and err.count("\n") == 1 and says in err and "--base-url" in err
    assert messages_stub.calls == []


def test_a_redirect_to_another_host_is_not_followed(messages_stub, other_host, tmp_path):
    messages_stub.script = [Fail(307, {"location": f"{other_host.url}/v1/messages"})] * 3
    ev = evaluate(load_cases(CASES, NOTES)[:1], get_judge("llm", cache=None, backoff=0, progress=False))
    assert ev.claims["error"].str.startswith("the request failed after 1 attempt (HTTP 307").all()
    assert other_host.calls == []


@pytest.mark.parametrize("echo", ECHOES)
def test_an_error_that_echoes_the_key_is_printed_without_it(messages_stub, cli, tmp_path, echo):
    messages_stub.script = [Fail(400, message=f"invalid x-api-key: {echo.replace(KEY, '{key}')}")]
    code, out, err = cli("score", "--judge", "llm", "--cache", tmp_path / "c", "--concurrency", "1", *ARGS)
    assert code == 0 and "c01 claim 1: the request failed after 1 attempt (HTTP 400" in out
    assert "[key removed]" in out
    assert not leaked(out + err), out
    code, out, err = cli("score", "--judge", "llm", "--json", "--cache", tmp_path / "c", *ARGS)
    cached = "".join(p.read_text() for p in (tmp_path / "c").rglob("*") if p.is_file())
    assert not leaked(cached)


def test_a_stop_that_quotes_the_echoed_key_is_printed_without_it(messages_stub, cli):
    messages_stub.script = [Fail(400, message="bad request from key {key}")] * 10
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--concurrency", "1", *ARGS)
    assert code == 2 and "refused the first 3 requests alike" in err and "[key removed]" in err
    assert not leaked(err)


def test_a_reply_that_echoes_the_key_is_kept_and_cached_without_it(messages_stub, tmp_path):
    def echo(body):
        reply = tool_reply([{"claim": n, "verdict": "unsupported", "supported_by": [], "reason": f"key {KEY} seen"}
                            for n, _ in parse_request(body)["claims"]], body)
        return reply
    messages_stub.script = [echo, lambda body: text_reply(f"Your key is {KEY}.", body)]
    judge = get_judge("llm", cache=tmp_path / "c", backoff=0, progress=False, concurrency=1)
    ev = evaluate(load_cases(CASES, NOTES)[:2], judge)
    assert not leaked(" ".join(ev.claims["reason"].astype(str)))
    assert not leaked(repr(judge.failed_replies)) and "[key removed]" in repr(judge.failed_replies)
    cached = "".join(p.read_text() for p in (tmp_path / "c").rglob("*") if p.is_file())
    assert cached and not leaked(cached)


def test_the_summary_names_the_endpoint_and_the_model(messages_stub, cli):
    code, out, err = cli("score", "--judge", "llm", "--no-cache", "--model", "claude-sonnet-5-5", *ARGS)
    assert f"llm judge (claude-sonnet-5-5 at {messages_stub.url}; JSON output (output_config.format), adaptive " \
           "thinking at effort low, default temperature): 10 requests sent" in err


@pytest.mark.parametrize("how", ["--model", "LLM_MODEL"])
def test_a_model_name_with_control_characters_reaches_the_terminal_escaped(messages_stub, cli, monkeypatch, tmp_path,
                                                                            how):
    model = "claude-x\x1b]0;owned\x07\u202e\x1b[2J"
    argv = ["score", "--judge", "llm", "--no-cache", *ARGS]
    if how == "--model":
        argv += ["--model", model]
    else:
        (tmp_path / ".env").write_text(f"LLM_MODEL={model}\n", encoding="utf-8")  # a planted .env
        monkeypatch.setenv("LLM_MODEL", model)
    for extra in ([], ["--dry-run"]):
        code, out, err = cli(*argv, *extra)
        assert code == 0, err
        assert not any(c in out + err for c in "\x1b\x07\u202e"), err
        assert "claude-x\\u001b]0;owned\\u0007\\u202e\\u001b[2J" in err + out


def test_the_redactor_leaves_ordinary_text_alone():
    from groundlab.judges.llm.endpoint import Redactor

    text = "the request failed: prompt is too long (2,000,000 tokens > 1,000,000 maximum); see docs/errors#keys"
    assert Redactor(KEY).text(text) == text
    assert Redactor("").text(KEY) == KEY
    assert Redactor("short").text("a short key") == "a [key removed] key"


def _escaped(text: str, every: int = 1) -> str:
    """``text`` as a JSON string may write it: every ``every``-th character as a ``\\u`` escape."""
    return "".join(f"\\u{ord(c):04x}" if k % every == 0 else c for k, c in enumerate(text))


@pytest.mark.parametrize("echo", [_escaped(KEY), _escaped(KEY, 2), KEY, f"ends in key{KEY[-6:]}", f"…{KEY[-6:]}"])
def test_a_key_echoed_inside_the_json_answer_reaches_no_output(messages_stub, cli, tmp_path, echo):
    def answer(body):
        verdicts = [{"claim": n, "verdict": "unsupported", "supported_by": [], "reason": "@@"}
                    for n, _ in parse_request(body)["claims"]]
        reply = json_reply(verdicts, body)
        reply["content"][0]["text"] = reply["content"][0]["text"].replace("@@", f"the key {echo} was seen")
        return reply
    messages_stub.default = answer
    claims, report = tmp_path / "claims.csv", tmp_path / "report.md"
    code, out, err = cli("score", "--judge", "llm", "--cache", tmp_path / "c", *ARGS, "--claims-out", claims,
                         "--report", report)
    assert code == 0, err
    reasons = claims.read_text(encoding="utf-8")
    assert "[key removed] was seen" in reasons, reasons
    cached = "".join(p.read_text() for p in (tmp_path / "c").rglob("*.json"))
    for text in (out, err, reasons, report.read_text(encoding="utf-8"), cached):
        assert not leaked(text) and KEY[-6:] not in text and "\\u0073\\u006b" not in text
    code, out, err = cli("agree", "--judge", "llm", "--cache", tmp_path / "c", *ARGS, "--json")  # from the cache
    assert code == 0 and messages_stub.calls and not leaked(out + err) and KEY[-6:] not in out


def test_the_redactor_removes_the_keys_last_characters_wherever_they_run_on():
    from groundlab.judges.llm.endpoint import Redactor

    r = Redactor(KEY)
    assert r.text(f"key {KEY}{KEY[-4:]} and key{KEY[-6:]}") == "key [key removed][key removed] and key[key removed]"
    assert r.text(f"{KEY[-6:]}2b") == "[key removed]2b"
    assert r.text(_escaped(KEY, 3)) == "[key removed]"
    assert r.text('{"a": "\\u0041\\u0022"}') == '{"a": "\\u0041\\u0022"}'  # escapes of other characters stay
