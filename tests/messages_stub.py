"""A stand-in for the Anthropic Messages API on 127.0.0.1, so the LLM judge is tested offline.

It answers ``POST /v1/messages`` the way the API does, in the shape the request asks for: a
``tool_use`` block for a request that offers the tool, a ``text`` block holding the JSON for one
with ``output_config.format``; with ``usage`` and ``stop_reason``. It counts the requests it gets,
and can be scripted to fail: each entry of :attr:`MessagesStub.script` decides one request, in
order, before the default answer takes over. The default answer reads the claims and passages back
out of the request and judges them with the rules judge, so runs through the stub give plausible,
deterministic verdicts.

It can behave like a model that refuses parts of a request (:attr:`MessagesStub.rejects`:
``forced_tool``, ``temperature``, ``thinking_disabled``), answering those with the API's 400
``invalid_request_error`` and its message (:data:`REFUSALS`), and like a model that thinks
(:attr:`MessagesStub.thinks`: every reply starts with a ``thinking`` block and counts thinking
tokens); :meth:`MessagesStub.behave_like` sets both as a current model does.

It also serves the Message Batches API in the API's shape: ``POST /v1/messages/batches`` takes
``{"requests": [{"custom_id", "params"}]}`` (each request decided by the same script and
default), ``GET /v1/messages/batches/{id}`` reports ``processing_status`` (``in_progress`` for
the first :attr:`MessagesStub.batch_polls` looks, then ``ended`` with a ``results_url``), and
the results URL returns JSONL lines ``{"custom_id", "result": {"type": "succeeded", "message"}}``
(or ``errored`` with an error, ``expired``, ``canceled``).

Fault modes, as script entries: :class:`Fail` (an HTTP error, whose message may echo the key),
:class:`Raw` (any body, such as HTML with status 200), :class:`Silent` (accept and never answer),
:class:`Drop` (close the connection), :class:`Expired` / :class:`Canceled` (batch results), or a
function of the request body returning the reply JSON (or bytes, sent as they are).
"""

from __future__ import annotations

import html
import itertools
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Set

import pytest

from groundlab.judges.rules import RulesJudge
from groundlab.records import Evidence, Passage

_QUESTION = re.compile(r"<question>(.*?)</question>", re.S)
_PASSAGE = re.compile(r'<passage id="([^"]*)">(.*?)</passage>', re.S)
_CLAIM = re.compile(r'<claim n="(\d+)">(.*?)</claim>', re.S)

KEY = "sk-test-not-a-real-key-7f3a"


def parse_request(body: dict) -> Dict[str, Any]:
    """The question, passages and numbered claims of a request, unescaped."""
    text = body["messages"][0]["content"]
    return {
        "question": html.unescape(_QUESTION.search(text).group(1)),
        "passages": [(html.unescape(i), html.unescape(t)) for i, t in _PASSAGE.findall(text)],
        "claims": [(int(n), html.unescape(t)) for n, t in _CLAIM.findall(text)],
    }


def rules_verdicts(request: Dict[str, Any]) -> List[dict]:
    """What a careful judge might say: the rules judge's verdicts, with the backing passages."""
    judge = RulesJudge()
    passages = tuple(Passage(i, t) for i, t in request["passages"])
    evidence = Evidence(request["question"], passages)
    out = []
    for number, claim in request["claims"]:
        verdict = judge.judge(claim, evidence)
        backing: List[str] = []
        if verdict.label == "supported":
            backing = [p.id for p in passages
                       if judge.judge(claim, Evidence(request["question"], (p,))).label == "supported"]
            backing = backing or [p.id for p in passages]
        out.append({"claim": number, "verdict": verdict.label, "supported_by": backing,
                    "reason": verdict.reason})
    return out


#: What the API answers a request part the model does not take (HTTP 400, invalid_request_error), as
#: Anthropic's pages and reported API answers give it (docs/llm-judge.md names the sources).
REFUSALS = {
    "forced_tool": 'tool_choice: type "tool" and "any" are not supported for this model.',
    "temperature": "`temperature` is deprecated for this model.",
    "thinking_disabled": ('"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" '
                          'and "output_config.effort" to control thinking behavior.'),
}

#: What each model refuses and whether it thinks, as the model table of 2026-12-01 has it.
PROFILES = {
    "claude-opus-5-5": ({"forced_tool", "temperature", "thinking_disabled"}, True),
    "claude-sonnet-5-5": ({"forced_tool", "temperature", "thinking_disabled"}, True),
    "claude-fable-5-1": ({"forced_tool", "temperature", "thinking_disabled"}, True),
    "claude-haiku-5-5": ({"temperature"}, True),
    "claude-haiku-4-5": (set(), False),
}


def refusal(body: dict, rejects) -> Optional[str]:
    """The API's message refusing ``body``, or ``None`` when the model takes it."""
    if "forced_tool" in rejects and (body.get("tool_choice") or {}).get("type") in ("tool", "any"):
        return REFUSALS["forced_tool"]
    if "temperature" in rejects and "temperature" in body:
        return REFUSALS["temperature"]
    if "thinking_disabled" in rejects and (body.get("thinking") or {}).get("type") == "disabled":
        return REFUSALS["thinking_disabled"]
    return None


def answer(verdicts: Any, body: dict, thinks: bool = False) -> dict:
    """The reply a model gives ``body``: JSON text for a request with ``output_config.format``,
    else a ``record_verdicts`` call; after a thinking block when the model ``thinks``."""
    json_answer = (body.get("output_config") or {}).get("format")
    reply = json_reply(verdicts, body) if json_answer else tool_reply(verdicts, body)
    if thinks:
        reply = with_thinking(reply)
    return reply


def with_thinking(reply: dict, redacted: bool = False, tokens: int = 300) -> dict:
    """``reply`` as a thinking model gives it: a ``thinking`` block first (its text empty, as the
    default ``display: omitted`` gives it; or a ``redacted_thinking`` block too), and the thinking
    counted in the output tokens."""
    blocks = [{"type": "thinking", "thinking": "", "signature": "c2lnbmF0dXJl"}]
    if redacted:
        blocks.append({"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"})
    usage = dict(reply["usage"])
    usage["output_tokens"] = usage.get("output_tokens", 0) + tokens
    usage["output_tokens_details"] = {"thinking_tokens": tokens}
    return {**reply, "content": blocks + reply["content"], "usage": usage}


def json_reply(verdicts: Any, body: dict) -> dict:
    reply = text_reply(json.dumps({"verdicts": verdicts}), body)
    reply["usage"] = {"input_tokens": len(json.dumps(body)) // 4, "output_tokens": 40 * len(verdicts or [])}
    return reply


def tool_reply(verdicts: Any, body: dict) -> dict:
    return {
        "id": "msg_stub", "type": "message", "role": "assistant", "model": body.get("model", "stub"),
        "content": [{"type": "tool_use", "id": "toolu_stub", "name": "record_verdicts",
                     "input": {"verdicts": verdicts}}],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": len(json.dumps(body)) // 4, "output_tokens": 40 * len(verdicts or [])},
    }


def text_reply(text: str, body: dict) -> dict:
    return {
        "id": "msg_stub", "type": "message", "role": "assistant", "model": body.get("model", "stub"),
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 10},
    }


class Fail:
    """A scripted HTTP error (e.g. 429 with ``retry-after: 0``); ``message`` is the error's text,
    ``{key}`` in it replaced by the key the request carried (a server that echoes it)."""

    def __init__(self, status: int, headers: Optional[Dict[str, str]] = None, message: Optional[str] = None) -> None:
        self.status, self.headers, self.message = status, headers or {}, message


class Raw:
    """A reply sent as it is: any status, body and content type (HTML with 200, say)."""

    def __init__(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.status, self.body, self.content_type = status, body, content_type


HTML = Raw(200, b"<!doctype html><html><body><h1>Sign in to the proxy</h1></body></html>", "text/html")


class Silent:
    """Accept the request and answer nothing for ``seconds`` (or until the stub stops)."""

    def __init__(self, seconds: float = 30.0) -> None:
        self.seconds = seconds


class Drop:
    """Close the connection without an answer."""


class Expired:
    """In a batch: the request expired before it was processed."""


class Canceled:
    """In a batch: the request was canceled."""


_KINDS = {429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error",
          404: "not_found_error", 400: "invalid_request_error", 413: "request_too_large"}

#: A script entry: one of the classes above, or a function of the request body returning the reply.
Action = Any


class MessagesStub:
    def __init__(self) -> None:
        self.requests: List[dict] = []  # bodies of POST /v1/messages
        self.batch_requests: List[dict] = []  # every request of every batch submitted
        self.calls: List[str] = []  # "METHOD path" of every call, batches included
        self.script: List[Action] = []
        self.rejects: Set[str] = set()  # request parts refused with a 400, as a model would (REFUSALS)
        self.thinks = False  # every default reply starts with a thinking block
        self.refused = 0  # requests refused for a part in rejects
        self.default: Callable[[dict], Any] = lambda body: answer(rules_verdicts(parse_request(body)), body,
                                                                  stub.thinks)
        self.headers: List[Dict[str, str]] = []  # of every call
        self.delay = 0.0  # seconds before each answer to POST /v1/messages
        self.batch_polls = 1  # looks at a batch before it has ended
        self.batch_script: Dict[str, List[Action]] = {"create": [], "retrieve": [], "results": []}
        self.results_url: Optional[str] = None  # where results are said to be (default: this stub)
        self.batches: Dict[str, dict] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self._note("POST")
                if path == "/v1/messages/batches":
                    return self._batch_create(body)
                if path != "/v1/messages":
                    return self._error(404, self.path)
                with stub._lock:
                    stub.requests.append(body)
                    refused = refusal(body, stub.rejects)
                    if refused:
                        stub.refused += 1
                    action = Fail(400, message=refused) if refused else (
                        stub.script.pop(0) if stub.script else stub.default)
                if stub.delay:
                    stub._stopping.wait(stub.delay)
                self._act(action, body)

            def do_GET(self) -> None:  # noqa: N802
                path = self._note("GET")
                match = re.fullmatch(r"/v1/messages/batches/([^/]+)(/results)?", path)
                batch = stub.batches.get(match.group(1)) if match else None
                if batch is None:
                    return self._error(404, path)
                fault = self._fault("results" if match.group(2) else "retrieve")
                if fault is not None:
                    return self._act(fault, {})
                if match.group(2):
                    if batch["polls"] <= stub.batch_polls:
                        return self._error(404, "the batch has not ended")
                    data = b"".join(json.dumps(line).encode() + b"\n" for line in batch["results"])
                    return self._raw(200, data, "application/binary")
                with stub._lock:
                    batch["polls"] += 1
                self._send(200, stub._batch_object(batch, batch["polls"] > stub.batch_polls))

            def _note(self, method: str) -> str:
                path = self.path.split("?")[0]
                with stub._lock:
                    stub.calls.append(f"{method} {path}")
                    stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                return path

            def _fault(self, step: str) -> Optional[Action]:
                with stub._lock:
                    script = stub.batch_script[step]
                    return script.pop(0) if script else None

            def _batch_create(self, body: dict) -> None:
                fault = self._fault("create")
                if fault is not None:
                    return self._act(fault, body)
                results = []
                with stub._lock:
                    for request in body.get("requests", []):
                        stub.batch_requests.append(request)
                        refused = refusal(request["params"], stub.rejects)
                        if refused:
                            stub.refused += 1
                        action = Fail(400, message=refused) if refused else (
                            stub.script.pop(0) if stub.script else stub.default)
                        results.append({"custom_id": request["custom_id"],
                                        "result": stub._batch_result(action, request["params"])})
                    batch_id = f"msgbatch_stub{next(stub._ids):04d}"
                    batch = stub.batches[batch_id] = {"id": batch_id, "results": results, "polls": 0,
                                                     "count": len(results)}
                self._send(200, stub._batch_object(batch, False))

            def _act(self, action: Action, body: dict) -> None:
                if isinstance(action, Fail):
                    message = action.message or _KINDS.get(action.status, "api_error")
                    message = message.replace("{key}", self.headers.get("x-api-key", ""))
                    return self._error(action.status, message, action.headers)
                if isinstance(action, Raw):
                    return self._raw(action.status, action.body, action.content_type)
                if isinstance(action, Silent):
                    stub._stopping.wait(action.seconds)
                    self.close_connection = True
                    return
                if isinstance(action, Drop):
                    self.close_connection = True
                    return
                reply = action(body)
                if isinstance(reply, bytes):
                    return self._raw(200, reply, "application/json")
                self._send(200, reply)

            def _error(self, status: int, message: str, headers: Optional[Dict[str, str]] = None) -> None:
                kind = _KINDS.get(status, "api_error")
                self._send(status, {"type": "error", "error": {"type": kind, "message": message}}, headers)

            def _send(self, status: int, payload: Any, headers: Optional[Dict[str, str]] = None) -> None:
                self._raw(status, json.dumps(payload).encode(), "application/json", headers)

            def _raw(self, status: int, data: bytes, content_type: str,
                     headers: Optional[Dict[str, str]] = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("content-type", content_type)
                    self.send_header("content-length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout, a reply too large): nothing to tell it

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def _batch_result(self, action: Action, params: dict) -> dict:
        if isinstance(action, Expired):
            return {"type": "expired"}
        if isinstance(action, Canceled):
            return {"type": "canceled"}
        if isinstance(action, Fail):
            kind = _KINDS.get(action.status, "api_error")
            return {"type": "errored", "error": {"type": "error", "error": {"type": kind, "message": action.message or kind}}}
        return {"type": "succeeded", "message": action(params)}

    def _batch_object(self, batch: dict, ended: bool) -> dict:
        counts = {"processing": 0 if ended else batch["count"], "succeeded": 0, "errored": 0, "canceled": 0,
                  "expired": 0}
        if ended:
            for line in batch["results"]:
                counts[line["result"]["type"]] += 1
        base = self.results_url or self.url
        stamp = "2026-12-01T09:00:00Z"
        return {"id": batch["id"], "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
                "request_counts": counts, "created_at": stamp, "expires_at": "2026-12-02T09:00:00Z",
                "ended_at": stamp if ended else None, "archived_at": None, "cancel_initiated_at": None,
                "results_url": f"{base}/v1/messages/batches/{batch['id']}/results" if ended else None}

    def behave_like(self, model: str) -> "MessagesStub":
        """Refuse what ``model`` refuses and think if it thinks (:data:`PROFILES`)."""
        self.rejects, self.thinks = set(PROFILES[model][0]), PROFILES[model][1]
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "MessagesStub":
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()


def stopped(code: int, out: str, err: str) -> str:
    """The stop sentence of a run that stopped (exit 2, nothing on stdout, no traceback): the last
    line of stderr, after at most the summary of what the run spent, when it sent anything."""
    lines = err.splitlines()
    assert code == 2 and out == "" and "Traceback" not in err and 1 <= len(lines) <= 2, err
    if len(lines) == 2:
        assert lines[0].startswith("groundlab: llm judge (") and " sent, " in lines[0], err
    assert lines[-1].startswith("groundlab: "), err
    return lines[-1]


@pytest.fixture
def messages_stub(monkeypatch, tmp_path):
    """A running stub, with the key and base URL set, run from an empty folder (no ``.env``)."""
    stub = MessagesStub().start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.url)
    monkeypatch.delenv("LLM_MODEL", raising=False)
    monkeypatch.delenv("GROUNDLAB_PRICE_TABLE", raising=False)
    monkeypatch.chdir(tmp_path)
    yield stub
    stub.stop()
