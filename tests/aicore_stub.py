"""A stand-in for an SAP AI Core tenant on 127.0.0.1, answering in the shapes SAP documents:

- the token endpoint of its service key (``POST /oauth/token``, OAuth client credentials by HTTP
  basic authentication): ``{"access_token", "token_type", "expires_in"}``, or OAuth's ``{"error",
  "error_description"}``; each token lives ``token_lifetime`` seconds, and an expired one is
  refused with 401 like a wrong one;
- the metric registry (``POST /v2/lm/evaluationMetrics``): 201 ``{"message", "id", "scenario",
  "name", "version"}`` or ``{"error": {"code", "message"}}``;
- the deployments (``GET /v2/lm/deployments?scenarioId=orchestration&status=RUNNING``):
  ``{"count", "resources": [{"id", "deploymentUrl", "configurationId", "configurationName",
  "scenarioId", "status", "startTime", ...}]}``;
- the orchestration service (``POST /v2/inference/deployments/{id}/v2/completion``, API v2): it
  checks the bearer token and the ``AI-Resource-Group`` header, fills the template's ``{{?name}}``
  placeholders from ``placeholder_values`` as the templating module does (a missing one is SAP's
  400 ``Input Parameters`` error), refuses a model it does not offer (``400 - Request Body: Model X
  not supported.``), and answers ``{"request_id", "intermediate_results": {"templating", "llm"},
  "final_result": {"id", "object", "created", "model", "choices": [{"index", "message":
  {"role", "content"}, "finish_reason"}], "usage": {"completion_tokens", "prompt_tokens",
  "total_tokens"}}}``, its content the JSON of the verdicts: the rules judge's on the claims it
  reads back out of the filled prompt, or people's labels (:attr:`Tenant.oracle`).

Each completion can be scripted (:attr:`Tenant.script`, in order, before the default answer
takes over): :class:`Fail` (an HTTP error in orchestration's ``{"error": {...}}`` shape, with
headers), :class:`Raw` (any body), :class:`Silent`, :data:`INPUT_FILTER` (the input filter's 400,
location ``Input Filter``, with ``intermediate_results.input_filtering``), :data:`OUTPUT_FILTER`
(200 with ``finish_reason: content_filter`` and an empty message, ``output_filtering`` saying why),
or a function of the request body returning the completion (a dict) or bytes. The token endpoint
and the registry can be scripted too (:attr:`Tenant.token_answer`, :attr:`Tenant.metric_answer`),
as a proxy that echoes the request or a registry that answers in another shape would.
"""

from __future__ import annotations

import base64
import html
import itertools
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlsplit

SECRET = "sb-test-client-secret-0123456789abcdef$9c1e"
TOKEN = "eyJhbGciOiJSUzI1NiJ9.test-token-not-real.7f3a9b"
CLIENT = "sb-test-client!b1234|aicore!b540"
DEPLOYMENT = "d0rch3s7ra7e0001"

_PLACEHOLDER = re.compile(r"\{\{\s*\?([A-Za-z0-9_-]+)\s*\}\}")
_QUESTION = re.compile(r"<question>(.*?)</question>", re.S)
_PASSAGE = re.compile(r'<passage id="([^"]*)">(.*?)</passage>', re.S)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S)
_CLAIM = re.compile(r'<claim n="(\d+)">(.*?)</claim>', re.S)


class Fail:
    """An orchestration error: ``status``, its ``message`` and ``location``, response ``headers``."""

    def __init__(self, status: int, message: str = "oops", location: str = "LLM Module",
                 headers: Optional[Dict[str, str]] = None, body: Optional[dict] = None) -> None:
        self.status, self.message, self.location, self.headers, self.body = status, message, location, headers or {}, body


class Raw:
    def __init__(self, status: int, body: bytes, content_type: str = "application/json",
                 headers: Optional[Dict[str, str]] = None) -> None:
        self.status, self.body, self.content_type, self.headers = status, body, content_type, headers or {}


class Silent:
    def __init__(self, seconds: float = 30.0) -> None:
        self.seconds = seconds


INPUT_FILTER = "input filter"
OUTPUT_FILTER = "output filter"


def parse_prompt(body: dict) -> Dict[str, Any]:
    """The question, passages, answer and numbered claims of the filled prompt's user message."""
    text = next(m["content"] for m in body["_rendered"] if m["role"] == "user")
    answer = _ANSWER.search(text)
    return {"question": html.unescape(_QUESTION.search(text).group(1)),
            "passages": [(html.unescape(i), html.unescape(t)) for i, t in _PASSAGE.findall(text)],
            "answer": html.unescape(answer.group(1)) if answer else None,
            "claims": [(int(n), html.unescape(t)) for n, t in _CLAIM.findall(text)]}


def rules_verdicts(body: dict) -> List[dict]:
    from groundlab.judges.rules import RulesJudge
    from groundlab.records import Evidence, Passage

    request = parse_prompt(body)
    judge = RulesJudge()
    passages = tuple(Passage(i, t) for i, t in request["passages"])
    out = []
    for number, claim in request["claims"]:
        verdict = judge.judge(claim, Evidence(request["question"], passages))
        backing = [p.id for p in passages] if verdict.label == "supported" else []
        out.append({"claim": number, "reason": verdict.reason, "verdict": verdict.label, "supported_by": backing})
    return out


def labels_of(path) -> Dict[Tuple[str, str], List[str]]:
    """People's labels of a cases file, by (question, answer): what the oracle answers with."""
    out = {}
    for line in open(path, encoding="utf-8"):
        case = json.loads(line)
        if case.get("labels"):
            out[(case["question"], case["answer"])] = case["labels"]
    return out


def completion(content: str, body: dict, finish: str = "stop", usage: Optional[dict] = None) -> dict:
    """An orchestration v2 completion answering ``body`` with ``content``."""
    model = body["config"]["modules"]["prompt_templating"]["model"]
    version = model.get("version") or "latest"
    result = {"id": "chatcmpl-stub", "object": "chat.completion", "created": 1767225600,
              "model": f"{model['name']}-{'20250514' if version == 'latest' else version}",
              "system_fingerprint": "fp_stub",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
              "usage": usage or {"completion_tokens": 40 * max(1, content.count('"claim"')),
                                 "prompt_tokens": len(json.dumps(body["_rendered"])) // 4,
                                 "total_tokens": 0}}
    result["usage"]["total_tokens"] = result["usage"]["completion_tokens"] + result["usage"]["prompt_tokens"]
    return {"request_id": "req-stub", "intermediate_results": {"templating": body["_rendered"], "llm": result},
            "final_result": result}


class Tenant:
    """The token endpoint, the metric registry, the deployments and the orchestration service on
    one local server. ``token_status``, ``metric_status``, ``delay`` (before every answer),
    ``metric_delay`` (before the registry's only), ``token_lifetime``, ``deployments``,
    ``models`` (the hub models offered), ``resource_groups``, ``script`` and ``oracle`` script
    the answers; ``token_answer`` and ``metric_answer``, when set, answer in the stead of the
    token endpoint and the registry: ``(headers, body) -> (status, bytes of the body)``.
    ``requests`` holds every ``(path, headers, body)`` received and ``completions`` the completion
    bodies as parsed JSON, the filled template under ``_rendered``."""

    def __init__(self) -> None:
        self.requests: List[Tuple[str, dict, bytes]] = []
        self.completions: List[dict] = []
        self.token_status = 200
        self.metric_status = 201
        self.delay = 0.0
        self.metric_delay = 0.0
        self.completion_delay = 0.0
        self.token_lifetime = 43199.0
        self.tokens: Dict[str, float] = {}  # token -> when it expires
        self.resource_groups = {"default", "grounding"}
        self.models = {"anthropic--claude-4-sonnet", "gpt-4.1", "gpt-4o"}
        self.script: List[Any] = []
        self.oracle: Optional[Dict[Tuple[str, str], List[str]]] = None
        self.redirect_to: Optional[str] = None  # a token endpoint or an orchestration that redirects
        self.redirect_what = "token"
        self.token_answer: Optional[Callable[[dict, bytes], Tuple[int, bytes]]] = None
        self.metric_answer: Optional[Callable[[dict, bytes], Tuple[int, bytes]]] = None
        self._lock = threading.Lock()
        self._serial = itertools.count(1)
        tenant = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _record(self) -> bytes:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                tenant.requests.append((self.path, dict(self.headers), body))
                return body

            def _bearer_ok(self) -> Optional[str]:
                """Why the request's token or resource group is refused, or None."""
                auth = self.headers.get("Authorization") or ""
                token = auth[len("Bearer "):] if auth.startswith("Bearer ") else None
                expires = tenant.tokens.get(token) if token else None
                if expires is None or time.monotonic() > expires:
                    return "401"
                if self.headers.get("AI-Resource-Group") not in tenant.resource_groups:
                    return "403"
                return None

            def do_GET(self):
                self._record()
                if tenant.delay:
                    time.sleep(tenant.delay)
                path = urlsplit(self.path)
                if path.path != "/v2/lm/deployments":
                    return self._send(404, {"error": {"code": "404", "message": "not found"}})
                refused = self._bearer_ok()
                if refused == "401":
                    return self._send(401, {"error": {"code": "01000001", "message": "Unauthorized: the token "
                                                                                     "is invalid or expired"}})
                if refused == "403":
                    return self._send(403, {"error": {"code": "03000003", "message": "Resource group "
                                                      f"{self.headers.get('AI-Resource-Group')} is not accessible"}})
                query = parse_qs(path.query)
                found = [d for d in tenant.deployments
                         if d["scenarioId"] in query.get("scenarioId", [d["scenarioId"]])
                         and d["status"] in query.get("status", [d["status"]])]
                self._send(200, {"count": len(found), "resources": found})

            def do_POST(self):
                body = self._record()
                if tenant.delay:
                    time.sleep(tenant.delay)
                if self.path == "/oauth/token":
                    return self._token(body)
                if self.path == "/v2/lm/evaluationMetrics":
                    return self._metric(body)
                match = re.fullmatch(r"/v2/inference/deployments/([^/]+)/v2/completion", self.path)
                if match:
                    return self._completion(match.group(1), body)
                self._send(404, {"message": "not found"})

            def _token(self, body):
                if tenant.redirect_to and tenant.redirect_what == "token":
                    return self._send(307, {}, {"Location": tenant.redirect_to + "/oauth/token"})
                if tenant.token_answer is not None:
                    return self._raw(*tenant.token_answer(dict(self.headers), body), "application/json", {})
                status = tenant.token_status
                expected = "Basic " + base64.b64encode(f"{CLIENT}:{SECRET}".encode()).decode()
                if status == 200 and self.headers.get("Authorization") != expected:
                    status = 401
                if status != 200:
                    return self._send(status, {"error": "invalid_client",
                                               "error_description": f"Bad credentials for {SECRET}"})
                with tenant._lock:
                    n = next(tenant._serial)
                    token = TOKEN if n == 1 else f"{TOKEN}.{n}"
                    tenant.tokens[token] = time.monotonic() + tenant.token_lifetime
                self._send(200, {"access_token": token, "token_type": "bearer",
                                 "expires_in": int(tenant.token_lifetime) if tenant.token_lifetime >= 1
                                 else tenant.token_lifetime, "scope": "aicore!b540.all", "jti": "stub"})

            def _metric(self, body):
                if tenant.metric_delay:
                    time.sleep(tenant.metric_delay)
                if tenant.metric_answer is not None:
                    return self._raw(*tenant.metric_answer(dict(self.headers), body), "application/json", {})
                status = tenant.metric_status
                sent = json.loads(body)
                reply = {201: {"message": "Metric created", "id": "9b349f8e-cd39-486d-809c-3dcfa3b15ac7",
                               "scenario": sent["scenario"], "name": sent["name"], "version": sent["version"]},
                         409: {"error": {"code": "409", "message": "Metric already exists"}},
                         400: {"error": {"code": "400", "message": "spec.configuration.promptConfiguration."
                                                                   "ratingRubric: must not be empty"}},
                         401: {"error": {"message": f"Invalid token {TOKEN}"}},
                         403: {"error": {"message": "Forbidden"}}}.get(status, {"message": "oops"})
                self._send(status, reply)

            def _completion(self, deployment, raw):
                if tenant.redirect_to and tenant.redirect_what == "completion":
                    return self._send(307, {}, {"Location": f"{tenant.redirect_to}{self.path}"})
                if tenant.completion_delay:
                    time.sleep(tenant.completion_delay)
                refused = self._bearer_ok()
                if refused == "401":
                    return self._error(401, "Unauthorized", "Authorization")
                if refused == "403":
                    return self._error(403, "Forbidden: resource group not accessible", "Authorization")
                if deployment not in {d["id"] for d in tenant.deployments}:
                    return self._error(404, f"Deployment {deployment} not found", "Deployment")
                body = json.loads(raw)
                config = body["config"]["modules"]["prompt_templating"]
                values = body.get("placeholder_values") or {}
                used, missing, rendered = set(), [], []
                for message in config["prompt"]["template"]:
                    def fill(m):
                        used.add(m.group(1))
                        if m.group(1) not in values:
                            missing.append(m.group(1))
                            return m.group(0)
                        return values[m.group(1)]
                    rendered.append({"role": message["role"], "content": _PLACEHOLDER.sub(fill, message["content"])})
                if missing or set(values) - used:
                    return self._error(400, "400 - Input Parameters: Error validating parameters. Missing: "
                                            f"{sorted(missing)}, unused: {sorted(set(values) - used)}.",
                                       "Input Parameters")
                if config["model"]["name"] not in tenant.models:
                    return self._error(400, f"400 - Request Body: Model {config['model']['name']} not supported.",
                                       "Request Body")
                body["_rendered"] = rendered
                with tenant._lock:
                    tenant.completions.append(body)
                    action = tenant.script.pop(0) if tenant.script else None
                self._act(action, body)

            def _act(self, action, body):
                if isinstance(action, Fail):
                    if action.body is not None:
                        return self._send(action.status, action.body, action.headers)
                    return self._error(action.status, action.message, action.location, action.headers)
                if isinstance(action, Raw):
                    return self._raw(action.status, action.body, action.content_type, action.headers)
                if isinstance(action, Silent):
                    time.sleep(action.seconds)
                    return self._error(504, "late", "LLM Module")
                if action == INPUT_FILTER:
                    return self._send(400, {"error": {
                        "request_id": "req-stub", "code": 400,
                        "message": "400 - Filtering Module - Input Filter: Content filtered due to safety violations. "
                                   "Please modify the prompt and try again.", "location": "Input Filter",
                        "intermediate_results": {"templating": body["_rendered"], "input_filtering": {
                            "message": "Content filtered due to safety violations.",
                            "data": {"azure_content_safety": {"Hate": 0, "SelfHarm": 0, "Sexual": 0, "Violence": 4}}}}}})
                if action == OUTPUT_FILTER:
                    reply = completion("", body, finish="content_filter")
                    reply["intermediate_results"]["output_filtering"] = {
                        "message": "1 of 1 choices failed the output filter.",
                        "data": {"choices": [{"index": 0, "azure_content_safety": {"Violence": 4}}]}}
                    return self._send(200, reply)
                if callable(action):
                    reply = action(body)
                    if isinstance(reply, bytes):
                        return self._raw(200, reply, "application/json", {})
                    return self._send(200, reply)
                self._send(200, completion(json.dumps({"verdicts": tenant.verdicts(body)}), body))

            def _error(self, status, message, location, headers=None):
                self._send(status, {"error": {"request_id": "req-stub", "code": status, "message": message,
                                              "location": location, "intermediate_results": {}}}, headers)

            def _send(self, status, payload, headers=None):
                self._raw(status, json.dumps(payload).encode(), "application/json", headers or {})

            def _raw(self, status, data, content_type, headers):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.deployments = [{
            "id": DEPLOYMENT, "deploymentUrl": f"{self.url}/v2/inference/deployments/{DEPLOYMENT}",
            "configurationId": "c0nf-1", "configurationName": "defaultOrchestrationConfig",
            "executableId": "orchestration", "scenarioId": "orchestration", "status": "RUNNING",
            "targetStatus": "RUNNING", "createdAt": "2026-11-02T08:00:00Z", "modifiedAt": "2026-11-02T08:05:00Z",
            "submissionTime": "2026-11-02T08:00:05Z", "startTime": "2026-11-02T08:04:00Z"}]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def verdicts(self, body: dict) -> List[dict]:
        """The default answer: people's labels in oracle mode, else the rules judge's verdicts."""
        if self.oracle is None:
            return rules_verdicts(body)
        request = parse_prompt(body)
        labels = self.oracle[(request["question"], request["answer"])]
        return [{"claim": n, "reason": "as people labeled it", "verdict": labels[n - 1],
                 "supported_by": [pid for pid, _ in request["passages"]] if labels[n - 1] == "supported" else []}
                for n, _ in request["claims"]]

    def paths(self) -> List[str]:
        return [urlsplit(path).path for path, _, _ in self.requests]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def environment(monkeypatch, tenant: Tenant, tmp_path, resource_group: str = "grounding") -> None:
    """SAP's environment variables naming ``tenant``, nothing else of SAP's (no ``.env``, no
    configuration file, no VCAP_SERVICES, no deployment named)."""
    monkeypatch.chdir(tmp_path)
    for name in ("AICORE_DEPLOYMENT_ID", "VCAP_SERVICES", "AICORE_CONFIG", "AICORE_PROFILE", "LLM_MODEL",
                 "LLM_PROVIDER", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AICORE_HOME", str(tmp_path / "no-aicore-home"))
    for name, value in (("AICORE_AUTH_URL", tenant.url), ("AICORE_CLIENT_ID", CLIENT),
                        ("AICORE_CLIENT_SECRET", SECRET), ("AICORE_BASE_URL", tenant.url + "/v2"),
                        ("AICORE_RESOURCE_GROUP", resource_group)):
        monkeypatch.setenv(name, value)


__all__ = ["CLIENT", "DEPLOYMENT", "Fail", "INPUT_FILTER", "OUTPUT_FILTER", "Raw", "SECRET", "Silent", "TOKEN",
           "Tenant", "completion", "environment", "labels_of", "parse_prompt", "rules_verdicts"]
