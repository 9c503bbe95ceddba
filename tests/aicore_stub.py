"""A stand-in for an SAP AI Core tenant on 127.0.0.1: the token endpoint of its service key
(``POST /oauth/token``, OAuth client credentials) and the metric registry (``POST
/v2/lm/evaluationMetrics``), answering in their shapes: ``{"access_token", "token_type",
"expires_in"}``, OAuth's ``{"error", "error_description"}``, and the registry's 201 ``{"message",
"id", "scenario", "name", "version"}`` or ``{"error": {"code", "message"}}``."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, List, Optional, Tuple

SECRET = "sb-test-client-secret-0123456789abcdef$9c1e"
TOKEN = "eyJhbGciOiJSUzI1NiJ9.test-token-not-real.7f3a9b"
CLIENT = "sb-test-client!b1234|aicore!b540"


class Tenant:
    """The token endpoint (``POST /oauth/token``) and the metric registry (``POST
    /v2/lm/evaluationMetrics``) on one local server; ``token_status``, ``metric_status``,
    ``delay`` (before every answer) and ``metric_delay`` (before the registry's only, the metric
    received) script the answers; ``token_answer`` and ``metric_answer``, when set, answer in their
    stead: ``(headers, body) -> (status, bytes of the body)``, as a proxy that echoes the request or
    a registry that answers in another shape would."""

    def __init__(self) -> None:
        self.requests: List[Tuple[str, dict, bytes]] = []
        self.token_status = 200
        self.metric_status = 201
        self.delay = 0.0
        self.metric_delay = 0.0
        self.token_answer: Optional[Callable[[dict, bytes], Tuple[int, bytes]]] = None
        self.metric_answer: Optional[Callable[[dict, bytes], Tuple[int, bytes]]] = None
        tenant = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                tenant.requests.append((self.path, dict(self.headers), body))
                if tenant.delay:
                    time.sleep(tenant.delay)
                if self.path == "/oauth/token":
                    status = tenant.token_status
                    reply = ({"access_token": TOKEN, "token_type": "bearer", "expires_in": 43199} if status == 200
                             else {"error": "invalid_client", "error_description": f"Bad credentials for {SECRET}"})
                elif self.path == "/v2/lm/evaluationMetrics":
                    if tenant.metric_delay:
                        time.sleep(tenant.metric_delay)
                    status = tenant.metric_status
                    sent = json.loads(body)
                    reply = {201: {"message": "Metric created", "id": "9b349f8e-cd39-486d-809c-3dcfa3b15ac7",
                                   "scenario": sent["scenario"], "name": sent["name"], "version": sent["version"]},
                             409: {"error": {"code": "409", "message": "Metric already exists"}},
                             400: {"error": {"code": "400", "message": "spec.configuration.promptConfiguration."
                                                                       "ratingRubric: must not be empty"}},
                             401: {"error": {"message": f"Invalid token {TOKEN}"}},
                             403: {"error": {"message": "Forbidden"}}}.get(status, {"message": "oops"})
                else:
                    status, reply = 404, {"message": "not found"}
                data = json.dumps(reply).encode()
                scripted = {"/oauth/token": tenant.token_answer,
                            "/v2/lm/evaluationMetrics": tenant.metric_answer}.get(self.path)
                if scripted is not None:
                    status, data = scripted(dict(self.headers), body)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
