"""The llm judge through SAP AI Core's orchestration service (``--provider sap-ai-core``): the
generative AI hub's models (``anthropic--claude-4-sonnet``, ``gpt-4.1``, ...) inside the SAP
boundary, with the tenant's credentials (:mod:`.aicore`).

Each request is the judge's own (the same system prompt, the same user message, one per answered
case), sent as the orchestration API v2 documents it: ``POST {deploymentUrl}/v2/completion`` with
the headers ``Authorization: Bearer <token>`` and ``AI-Resource-Group``, and the body

- ``config.modules.prompt_templating.prompt.template``: the system prompt of a JSON answer, then a
  user message that is the single placeholder ``{{?judge_request}}``, filled from
  ``placeholder_values``: the case goes in as a value, never as template text, so a passage or an
  answer that holds ``{{?...}}`` is not read as a placeholder;
- ``...prompt.response_format``: ``json_schema`` with the verdicts' schema, strict (left out for a
  model a model table says takes no structured output: the prompt asks for the JSON all the same);
- ``...model``: ``name`` and ``version`` (``latest`` unless ``--model NAME:VERSION``), ``params``
  with ``max_completion_tokens`` (the reply budget, which orchestration requires for Anthropic's
  models) and ``temperature: 0`` unless a model table says the model takes no temperature.

No other module is configured: orchestration's content filtering and data masking run only when a
request asks for them, and this one does not (groundlab masks before anything leaves the machine,
``--mask``; the tenant's own filters still apply). The reply's verdicts are
``final_result.choices[0].message.content``, read as the JSON answer of the Anthropic API is; its
tokens are ``final_result.usage`` (``prompt_tokens``, ``completion_tokens``, reasoning tokens when
counted). Error answers carry ``{"error": {"request_id", "code", "message", "location",
"intermediate_results"}}`` (a list of them when fallbacks were configured; the last sets the
status): the input filter's refusal (status 400, location ``Input Filter``) and a reply withheld by
an output filter (``finish_reason: content_filter``) become this case's unscored verdicts, with the
reason, counted; a model the tenant does not offer (``Model X not supported``) stops the run.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from ...core.records import GroundlabError
from ...core.redact import Redactor
from .aicore import (AICore, AICoreError, Credentials, Deployment, NotSent, Unavailable, answer_text, find_credentials,
                     retry_after)
from .capabilities import Capabilities, Shape
from .endpoint import StatusError, _Abort, display_url
from .prompt import JSON_SYSTEM_PROMPT, THINKING_ROOM, TOOL, TOOL_NAME, Request, reply_tokens, verdict_schema
from .reply import MAX_REPLY_BYTES, Reply, TooSlow, Unusable, parse_json, read_body

PROVIDER = "sap-ai-core"
#: The hub model judged with when none is named: Anthropic's Claude Sonnet 4 as the generative AI
#: hub names it, the judge's own family.
DEFAULT_MODEL = "anthropic--claude-4-sonnet"
DEFAULT_VERSION = "latest"
COMPLETION_PATH = "/v2/completion"
PLACEHOLDER = "judge_request"


@dataclass(frozen=True)
class HubShape(Shape):
    """The request a hub model gets: always a JSON answer; ``response_format`` says whether its
    schema goes along as ``response_format``; thinking ``off`` (no room for it) or ``default``
    (a model that reasons: its reasoning tokens get room, as on Anthropic's API)."""

    response_format: bool = True

    def key(self) -> str:
        return f"{super().key()};response_format={'json_schema' if self.response_format else 'none'}"

    def describe(self) -> str:
        """
        >>> HubShape("json", True, "off").describe()
        'JSON output (response_format json_schema), temperature 0, through SAP AI Core orchestration v2'
        """
        parts = ["JSON output (response_format json_schema)" if self.response_format else
                 "JSON answer asked for in the prompt (no response_format)"]
        if self.thinks:
            parts.append("reasoning at the model's default")
        parts.append("temperature 0" if self.temperature else "default temperature")
        return ", ".join(parts) + ", through SAP AI Core orchestration v2"


def hub_shape(cap: Capabilities) -> HubShape:
    """The request for a hub model: a JSON answer held to the schema at temperature 0, unless a
    model table of one's own says the model takes no temperature, no structured output, or
    reasons (``thinking`` other than ``off``). The built-in table holds Anthropic's API names
    only, so a hub model's entry is one's own."""
    if not cap.known:
        return HubShape("json", True, "off", None, True)
    return HubShape("json", cap.temperature, "off" if cap.thinking == "off" else "default", None,
                    cap.structured_outputs)


def split_model(model: str) -> "tuple[str, str]":
    """``NAME[:VERSION]``: the hub model's name and version (``latest`` when none is given).

    >>> split_model("gpt-4o:2024-08-06"), split_model("anthropic--claude-4-sonnet")
    (('gpt-4o', '2024-08-06'), ('anthropic--claude-4-sonnet', 'latest'))
    """
    name, _, version = model.partition(":")
    return name.strip(), version.strip() or DEFAULT_VERSION


def completion_body(request: Request, model: str, max_tokens: Optional[int], shape: HubShape) -> Dict[str, Any]:
    """The orchestration v2 body of ``request`` (see the module docstring)."""
    name, version = split_model(model)
    params: Dict[str, Any] = {"max_completion_tokens": reply_tokens(len(request.claims), max_tokens)
                              + (THINKING_ROOM if shape.thinks else 0)}
    if shape.temperature:
        params["temperature"] = 0
    prompt: Dict[str, Any] = {"template": [{"role": "system", "content": JSON_SYSTEM_PROMPT},
                                           {"role": "user", "content": "{{?" + PLACEHOLDER + "}}"}]}
    if shape.response_format:
        prompt["response_format"] = {"type": "json_schema", "json_schema": {
            "name": TOOL_NAME, "description": TOOL["description"], "strict": True, "schema": verdict_schema()}}
    return {"config": {"modules": {"prompt_templating": {"prompt": prompt, "model": {
        "name": name, "version": version, "params": params}}}},
        "placeholder_values": {PLACEHOLDER: request.message()}}


def prompt_parts(shape: HubShape) -> Dict[str, Any]:
    """What the model is told besides the case, for the judge's identity."""
    parts: Dict[str, Any] = {"system": JSON_SYSTEM_PROMPT, "template": "{{?" + PLACEHOLDER + "}}"}
    if shape.response_format:
        parts["schema"] = verdict_schema()
    return parts


# ---------------------------------------------------------------- reading what comes back


def _count(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _content(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # a list of parts, as the harmonized API may give
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def read_completion(obj: Any, secrets: Any) -> Reply:
    """A :class:`~.reply.Reply` from an orchestration v2 response (parsed JSON), every string in it
    redacted; :class:`~.reply.Unusable` for anything else."""
    if not isinstance(obj, dict):
        raise Unusable(f"the orchestration answered with JSON that is not a completion (a {type(obj).__name__})")
    if obj.get("error") is not None:
        raise Unusable(f"the orchestration answered with an error: {secrets.text(str(obj.get('error')))[:160]}")
    final = obj.get("final_result")
    choices = final.get("choices") if isinstance(final, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise Unusable("the orchestration answered without final_result.choices (not an orchestration v2 completion)")
    choice = choices[0]
    text = secrets.text(_content(choice.get("message")))
    finish = choice.get("finish_reason")
    usage = final.get("usage") if isinstance(final.get("usage"), dict) else {}
    details = usage.get("completion_tokens_details") if isinstance(usage.get("completion_tokens_details"), dict) else {}
    filtered = None
    if finish == "content_filter":
        steps = obj.get("intermediate_results") if isinstance(obj.get("intermediate_results"), dict) else {}
        output = steps.get("output_filtering") if isinstance(steps.get("output_filtering"), dict) else {}
        said = output.get("message")
        filtered = ("SAP AI Core's content filter withheld the model's reply (output filter"
                    + (f": {secrets.text(' '.join(str(said).split()))[:160]}" if said else
                       ", the model provider's own") + "); the case is left unjudged")
    stop = {"stop": "end_turn", "length": "max_tokens"}.get(finish, finish if isinstance(finish, str) else None)
    return Reply(None, stop, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")),
                 [{"type": "text", "text": text}], text, _count(details.get("reasoning_tokens")), filtered=filtered,
                 served=final.get("model") if isinstance(final.get("model"), str) else None)


_FILTER_WORDS = ("content filter", "content_filter", "content management policy", "content filtered")
_MODEL_UNKNOWN = re.compile(r"\bmodel\b.{0,120}\bnot (?:supported|found|available|allowed|offered|deployed)"
                            r"|\b(?:unsupported|unknown|invalid) model\b", re.I | re.S)


def status_error(status: int, response: Any, data: bytes, secrets: Redactor) -> StatusError:
    """An orchestration error answer as a :class:`~.endpoint.StatusError`, with what it means:
    ``filter`` for the input filter's refusal, ``model`` for a model the tenant does not offer."""
    class _Body:  # answer_text and retry_after read .content and .headers
        content = data
        headers = response.headers

    text = answer_text(_Body, secrets, 240)
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, list) and error:
        error = error[-1]
    error = error if isinstance(error, dict) else {}
    location = str(error.get("location") or "")
    message = str(error.get("message") or text)
    steps = error.get("intermediate_results") if isinstance(error.get("intermediate_results"), dict) else {}
    kind = None
    if status == 400 and ("filter" in location.lower() or "input_filtering" in steps
                          or any(w in message.lower() for w in _FILTER_WORDS)):
        kind = "filter"
    elif status in (400, 404) and _MODEL_UNKNOWN.search(message):
        kind = "model"
    return StatusError(status, text, retry_after(_Body), kind)


# ---------------------------------------------------------------- the provider


class Unreached(Exception):
    """The token endpoint or the AI API's deployments did not answer; ``phrase`` says which, and how."""

    def __init__(self, phrase: str) -> None:
        super().__init__(phrase)
        self.phrase = phrase


def _unreached(exc: Exception, where: str, timeout: float) -> Unreached:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return Unreached(f"{where} did not answer within {timeout:g} s")
    return Unreached(f"could not reach {where} ({type(exc).__name__}: {' '.join(str(exc).split())[:160]})")


class Orchestration:
    """The judge's requests through a tenant's orchestration deployment: found once, when the first
    request is sent (``deployment_id`` names one instead), the token fetched and renewed by
    :class:`~.aicore.AICore`."""

    provider = PROVIDER
    settings_hint = ("check --model (or LLM_MODEL) against the models the tenant's generative AI hub offers, and what "
                     "the model takes (a model table of your own, --model-table FILE, as docs/llm-judge.md shows)")

    def __init__(self, credentials: Credentials, deployment_id: Optional[str], timeout: float, model: str,
                 model_origin: str = "") -> None:
        self.credentials = credentials
        self.api = AICore(credentials, timeout=timeout)
        self.secrets = self.api.secrets
        self.deployment_id = deployment_id
        self.timeout = timeout
        self.model, self.model_origin = model, model_origin
        self.served: Dict[str, int] = {}  # the model names the replies gave, and how often
        self._deployment: Optional[Deployment] = None
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        deployment = f" (deployment {self._deployment.id})" if self._deployment else ""
        return f"SAP AI Core's orchestration at {self.credentials.display}{deployment}"

    @property
    def unreachable(self) -> tuple:
        import httpx

        return (httpx.TransportError, TooSlow, Unreached)

    def describe(self) -> str:
        """Where the requests go, in words, for the summary."""
        if self._deployment is None:
            found = (f"deployment {self.deployment_id}" if self.deployment_id else
                     f"the running orchestration deployment of resource group {self.credentials.resource_group}")
            return f"SAP AI Core at {self.credentials.display}, {found}"
        return f"SAP AI Core at {self.credentials.display}, deployment {self._deployment.id} ({self._deployment.how})"

    def deployment(self) -> Deployment:
        with self._lock:
            if self._deployment is None:
                if not self.deployment_id:
                    self._headers()  # the token first, so that its trouble is said as its own
                self._deployment = self._ask(lambda: self.api.orchestration(self.deployment_id),
                                             f"the AI API's deployments at {self.credentials.display}")
            return self._deployment

    def _headers(self) -> Dict[str, str]:
        return self._ask(self.api.headers, f"the token endpoint {display_url(self.credentials.token_url)}")

    def _ask(self, call: Callable[[], Any], where: str) -> Any:
        """``call()``, one of the tenant's own answers, its faults as the judge's: a refusal stops the
        run, a 429 or 5xx is retried as a status, no answer from ``where`` counts as unreachable."""
        import httpx

        try:
            return call()
        except (AICoreError, NotSent) as exc:
            raise _Abort(str(exc)) from None
        except Unavailable as exc:
            raise StatusError(exc.status, str(exc), exc.retry_after) from None
        except httpx.TransportError as exc:
            raise _unreached(exc, where, self.timeout) from exc

    def post(self, body: Dict[str, Any], secrets: Any = None) -> Reply:
        """One completion; its reply read within the timeout and the reply size limit. A 401 is
        tried once more with a fresh token (one may expire early), then stops the run."""
        url = self.deployment().url + COMPLETION_PATH
        for fresh in (False, True):
            deadline = time.monotonic() + self.timeout
            try:
                with self.api.http.stream("POST", url, json=body, headers=self._headers()) as response:
                    data = read_body(response.iter_bytes(), MAX_REPLY_BYTES, deadline)
            except NotSent as exc:
                raise _Abort(str(exc)) from None
            status = response.status_code
            if status == 401 and not fresh:
                self.api.forget_token()
                continue
            if 300 <= status < 400:
                raise _Abort(f"the orchestration deployment at {display_url(url)} answered with a redirect ({status}) "
                             f"to {display_url(response.headers.get('location') or '?')}, which groundlab does not "
                             "follow, so the token stayed here; check the deployment (--deployment-id).")
            if status >= 400:
                raise status_error(status, response, data, self.secrets)
            reply = read_completion(parse_json(data, response.headers.get("content-type")), self.secrets)
            if reply.served:
                with self._lock:
                    self.served[reply.served] = self.served.get(reply.served, 0) + 1
            return reply
        raise AssertionError("unreachable")  # pragma: no cover

    def refusal(self, status: int, error: Any = None) -> Optional[str]:
        """The sentence that stops a run on ``status``, or ``None`` when it is one request's trouble."""
        message = getattr(error, "message", "") or ""
        where = self.where
        if getattr(error, "kind", None) == "model":
            origin = f" ({self.model_origin})" if self.model_origin else ""
            return (f"{where} does not offer the model {self.model!r}{origin} ({status}: {message}); pass a model the "
                    "tenant's generative AI hub offers with --model or LLM_MODEL, as SAP names it (such as gpt-4.1 "
                    "or anthropic--claude-4-sonnet: SAP AI Launchpad's generative AI hub lists them), or ask its "
                    "administrator to add it")
        if status == 401:
            return (f"{where} refused the token twice (401: {message}); check that AICORE_BASE_URL "
                    f"({self.credentials.origin}) is the AI API URL of the service key the client belongs to")
        if status == 403:
            return (f"{where} does not let the client use the deployment in resource group "
                    f"{self.credentials.resource_group} (403: {message}); check AICORE_RESOURCE_GROUP and the service "
                    "key's roles")
        if status == 404:
            named = ("--deployment-id (or AICORE_DEPLOYMENT_ID) names a deployment the resource group does not have"
                     if self.deployment_id else "the deployment found is gone; run again to find the running one")
            return f"{where} answered 404 ({message}): {named}"
        return None

    def table_hint(self, problem: str, shape: HubShape, capabilities: Capabilities) -> Optional[str]:
        """How to fix a refusal of a part of the request groundlab sends a hub model."""
        said = (f"{capabilities.table} says {self.model} takes it" if capabilities.known else
                f"groundlab sends it to a hub model its model table has no entry for ({self.model})")
        lowered = problem.lower()
        for words, entry, sent in ((("response_format", "json_schema", "structured"), '"structured_outputs": false',
                                    shape.response_format),
                                   (("temperature",), '"temperature": false', shape.temperature),
                                   (("max_completion_tokens", "max_tokens"), '"thinking": "off"', shape.thinks)):
            if sent and any(w in lowered for w in words):
                return (f"{said}, so give it {entry} in a model table of your own (--model-table FILE, as "
                        "docs/llm-judge.md shows)")
        return None


def credentials_for(service_key: Optional[str], need: bool) -> Optional[Credentials]:
    """The tenant's credentials for the judge; ``need=False`` (a dry run) gives ``None`` where there
    are none instead of a sentence."""
    try:
        return find_credentials(service_key, purpose="the llm judge on --provider sap-ai-core")
    except GroundlabError:
        if need or service_key:
            raise
        return None


def served_text(served: Dict[str, int]) -> str:
    """The models the replies named, for the summary ("" when none)."""
    if not served:
        return ""
    names: List[str] = sorted(served, key=lambda m: -served[m])
    return f"; served as {', '.join(names[:3])}{' and more' if len(names) > 3 else ''}"


__all__ = ["COMPLETION_PATH", "DEFAULT_MODEL", "DEFAULT_VERSION", "HubShape", "Orchestration", "PLACEHOLDER",
           "PROVIDER", "completion_body", "credentials_for", "hub_shape", "prompt_parts", "read_completion",
           "served_text", "split_model", "status_error"]
