"""Anthropic's Messages API as the llm judge calls it (``provider="anthropic"``, the default): one
request sent and its reply read within the time and size limits (:meth:`AnthropicAPI.post`), an
error answer as a :class:`~.endpoint.StatusError`, and the answers that stop a run."""

from __future__ import annotations

import time
from typing import Any, Dict, Optional

from .endpoint import KEY_VARIABLE, Endpoint, StatusError, _retry_after, _transport_errors, make_client
from .reply import MAX_REPLY_BYTES, TooSlow, parse_json, read_body, read_message

#: Words of the API's refusal of a request part, the model table entry that avoids it, and whether
#: the shape sent that part. (Checked in order: the refusal of a disabled thinking names effort too.)
_TABLE_HINTS = (("tool_choice", '"forced_tool": false', lambda shape: shape.kind == "tool"),
                ("temperature", '"temperature": false', lambda shape: shape.temperature),
                ("thinking.type.disabled", '"thinking": "always"', lambda shape: shape.thinking == "disabled"),
                ("effort", '"effort": false', lambda shape: bool(shape.effort)))


class AnthropicAPI:
    """The Messages API as the judge calls it: :meth:`post` sends one request and reads its reply
    (an error answer becomes :class:`StatusError`), :meth:`refusal` says which answers stop a run."""

    provider = "anthropic"

    def __init__(self, endpoint: Endpoint, timeout: float, model: str) -> None:
        self.endpoint, self.timeout, self.model = endpoint, timeout, model
        self.client = make_client(endpoint, timeout)

    @property
    def where(self) -> str:
        return f"the API at {self.endpoint.display}"

    @property
    def unreachable(self) -> tuple:
        import anthropic

        return (anthropic.APIConnectionError, TooSlow, _transport_errors())

    settings_hint = "check --model (or LLM_MODEL) and the endpoint (ANTHROPIC_BASE_URL or --base-url)"

    def post(self, params: Dict[str, Any], redactor: Any) -> Any:
        """One request; its reply read within :attr:`timeout` and the reply size limit."""
        import anthropic

        deadline = time.monotonic() + self.timeout
        try:
            with self.client.messages.with_streaming_response.create(**params) as response:
                data = read_body(response.iter_bytes(), MAX_REPLY_BYTES, deadline)
                content_type = response.headers.get("content-type")
        except anthropic.APIStatusError as exc:
            error = StatusError(exc.status_code, str(getattr(exc, "message", None) or exc), _retry_after(exc))
            raise error from None
        return read_message(parse_json(data, content_type), redactor)

    def refusal(self, status: int, error: Any = None) -> Optional[str]:
        """The sentence that stops a run on ``status``, or ``None`` when it is one request's trouble."""
        if status in (401, 403):
            origin = f" (read from {self.endpoint.origin})" if self.endpoint.origin else ""
            return (f"the API at {self.endpoint.display} refused the key ({status}); check {KEY_VARIABLE}{origin}, or "
                    "use --judge rules, which needs none.")
        if status == 404:
            return (f"the API at {self.endpoint.display} does not know the model {self.model!r} (404); pass another "
                    "with --model or LLM_MODEL, or check the endpoint (--base-url).")
        return None

    def table_hint(self, problem: str, shape: Any, capabilities: Any) -> Optional[str]:
        """How to fix a refusal of a part of the request that the model table said the model takes."""
        for words, entry, sent in _TABLE_HINTS:
            if words in problem and sent(shape):
                return (f"{capabilities.table} says {self.model} takes this, so give it {entry} in a model table "
                        "of your own (--model-table FILE, as docs/llm-judge.md shows)")
        return None


__all__ = ["AnthropicAPI"]
