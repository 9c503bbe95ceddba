"""A stand-in for the Anthropic Messages API on 127.0.0.1, so the LLM judge is tested offline.

It answers ``POST /v1/messages`` the way the API does (a ``tool_use`` block, ``usage``,
``stop_reason``), counts the requests it gets, and can be scripted to fail: each entry of
:attr:`MessagesStub.script` decides one request, in order, before the default answer takes over.
The default answer reads the claims and passages back out of the request and judges them with the
rules judge, so runs through the stub give plausible, deterministic verdicts.
"""

from __future__ import annotations

import html
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional

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
    """A scripted HTTP error (e.g. 429 with ``retry-after: 0``)."""

    def __init__(self, status: int, headers: Optional[Dict[str, str]] = None) -> None:
        self.status, self.headers = status, headers or {}


#: A script entry: a :class:`Fail`, or a function of the request body returning the reply JSON.
Action = Any


class MessagesStub:
    def __init__(self) -> None:
        self.requests: List[dict] = []
        self.script: List[Action] = []
        self.default: Callable[[dict], Any] = lambda body: tool_reply(rules_verdicts(parse_request(body)), body)
        self.headers: List[Dict[str, str]] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.split("?")[0] != "/v1/messages":
                    return self._send(404, {"type": "error", "error": {"type": "not_found_error",
                                                                       "message": self.path}})
                with stub._lock:
                    stub.requests.append(body)
                    stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                    action = stub.script.pop(0) if stub.script else stub.default
                if isinstance(action, Fail):
                    kind = {429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error",
                            404: "not_found_error", 400: "invalid_request_error"}.get(action.status, "api_error")
                    return self._send(action.status, {"type": "error", "error": {"type": kind, "message": kind}},
                                      action.headers)
                self._send(200, action(body))

            def _send(self, status: int, payload: dict, headers: Optional[Dict[str, str]] = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "MessagesStub":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def messages_stub(monkeypatch, tmp_path):
    """A running stub, with the key and base URL set, run from an empty folder (no ``.env``)."""
    stub = MessagesStub().start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.url)
    monkeypatch.delenv("LLM_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    yield stub
    stub.stop()
