"""What comes back from the API, read without trusting it: a body of bounded size and time, JSON,
a message with a list of content blocks, token counts that are numbers. Anything else is one
sentence (:class:`Unusable`), never a traceback; a reply whose token counts are unusable is still
used (it was paid for), and counted as unmetered.

The verdicts come in a ``record_verdicts`` tool call or, from a JSON answer, as the text of the
reply; ``thinking`` and ``redacted_thinking`` blocks, which a thinking model puts first, are
skipped (:func:`verdict_object`)."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, List, Optional, Tuple, Union

from .endpoint import Redactor
from .prompt import TOOL_NAME

#: The largest reply body read, in bytes: a reply of the full budget of 8,192 output tokens is about
#: 40 KB of JSON, so 1 MiB leaves 25 times that and still stops an endless or hostile body.
MAX_REPLY_BYTES = 1 << 20


class Unusable(Exception):
    """A reply that cannot be read as a message; the text says why, in a phrase."""


class TooLarge(Unusable):
    pass


class TooSlow(Exception):
    """A body still arriving when the request's time was up (a server that trickles bytes)."""


def read_body(chunks: Iterable[bytes], limit: int = MAX_REPLY_BYTES, deadline: Optional[float] = None) -> bytes:
    """The bytes of ``chunks``, stopping at ``limit`` (:class:`TooLarge`) or at ``deadline``
    (``time.monotonic()``, :class:`TooSlow`)."""
    parts: List[bytes] = []
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"the reply was larger than {limit // 1024:,} KiB and was not read")
        parts.append(chunk)
        if deadline is not None and time.monotonic() > deadline:
            raise TooSlow()
    return b"".join(parts)


def lines(chunks: Iterable[bytes], limit: int) -> Iterator[Union[bytes, TooLarge]]:
    """The lines of a JSONL body, each at most ``limit`` bytes; a longer one is skipped whole and
    stands as a :class:`TooLarge` in its place."""
    buffer = b""
    skipping = False
    for chunk in chunks:
        buffer += chunk
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                break
            line, buffer = buffer[:end], buffer[end + 1:]
            if skipping:
                skipping = False
                yield TooLarge(f"a result line was larger than {limit // 1024:,} KiB")
            elif line.strip():
                yield line
        if len(buffer) > limit:
            buffer, skipping = b"", True
    if skipping:
        yield TooLarge(f"a result line was larger than {limit // 1024:,} KiB")
    elif buffer.strip():
        yield buffer


def parse_json(data: bytes, content_type: Optional[str] = None) -> Any:
    """``data`` as JSON, or :class:`Unusable` saying what came instead."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        kind = (content_type or "no content type").split(";")[0].strip()
        start = " ".join(data[:60].decode("utf-8", "replace").split())
        raise Unusable(f"the endpoint answered with a body that is not JSON ({kind}, starting {start!r})") from None


@dataclass
class Reply:
    """A message read from the API: the ``record_verdicts`` input (``None`` without the call), the
    text of its text blocks, why the model stopped, its token counts (``None`` when the reply gave
    none usable; ``thinking_tokens``, part of the output tokens, when the reply counts them), and
    its content blocks (redacted) to keep when the reply fails; ``filtered`` when a content filter
    withheld it (SAP AI Core's output filter), ``served`` the model that answered when the reply
    names it."""

    tool_input: Any
    stop_reason: Optional[str]
    input_tokens: Optional[int]
    output_tokens: Optional[int]
    content: List[Any] = field(default_factory=list)
    text: str = ""
    thinking_tokens: Optional[int] = None
    filtered: Optional[str] = None  # a content filter withheld the reply: why, in a phrase
    served: Optional[str] = None  # the model the reply says served it (orchestration's final_result.model)

    @property
    def metered(self) -> bool:
        return self.input_tokens is not None and self.output_tokens is not None


def _count(value: Any) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def read_message(obj: Any, redactor: Redactor) -> Reply:
    """A :class:`Reply` from a message as parsed JSON, every string in it redacted."""
    try:
        return _read_message(obj, redactor)
    except RecursionError:
        raise Unusable("the endpoint answered with a message nested too deeply to read") from None


def _read_message(obj: Any, redactor: Redactor) -> Reply:
    if not isinstance(obj, dict):
        raise Unusable(f"the endpoint answered with JSON that is not a message (a {type(obj).__name__})")
    if obj.get("type") == "error":
        error = obj.get("error") if isinstance(obj.get("error"), dict) else {}
        raise Unusable(f"the endpoint answered with an error: {redactor.text(str(error.get('message', '')))[:160]}")
    content = obj.get("content")
    if not isinstance(content, list):
        raise Unusable("the endpoint answered with a message that holds no list of content")
    content = redactor.deep(content)
    tool_input = None
    texts: List[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use" and block.get("name") == TOOL_NAME and tool_input is None:
            tool_input = block.get("input")
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
    usage = obj.get("usage") if isinstance(obj.get("usage"), dict) else {}
    details = usage.get("output_tokens_details") if isinstance(usage.get("output_tokens_details"), dict) else {}
    stop = obj.get("stop_reason")
    return Reply(tool_input, stop if isinstance(stop, str) else None, _count(usage.get("input_tokens")),
                 _count(usage.get("output_tokens")), content, "".join(texts),
                 _count(details.get("thinking_tokens")))


_FENCE = re.compile(r"\A```(?:json)?\s*\n?(.*?)\n?```\Z", re.S | re.I)


def verdict_object(reply: Reply, json_answer: bool) -> Tuple[Any, Optional[str]]:
    """The reply's ``{"verdicts": [...]}`` object: the ``record_verdicts`` tool input if the reply
    made the call, else its text read as JSON; ``(None, why)`` when it holds neither.
    ``json_answer`` says the request asked for a JSON answer (what a missing one is called)."""
    if reply.filtered:
        return None, reply.filtered
    if reply.tool_input is not None:
        return reply.tool_input, None
    text = reply.text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if text.startswith("{"):
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict) and "verdicts" in obj:
            return obj, None
    if reply.stop_reason == "refusal":
        return None, "the model declined to answer (stop_reason refusal)"
    if not json_answer:
        return None, f"the reply held no {TOOL_NAME} tool call"
    start = " ".join(reply.text.split())[:60]
    return None, "the reply held no JSON object of verdicts" + (f" (its text starts {start!r})" if start else
                                                                  " (it held no text)")


def batch_result(obj: Any) -> Tuple[Optional[str], str, Any]:
    """``(custom_id, type, payload)`` of one line of a batch's results: the message when it
    succeeded, the error object when it errored; :class:`Unusable` for a line of another shape."""
    if not isinstance(obj, dict) or not isinstance(obj.get("custom_id"), str) or not isinstance(obj.get("result"), dict):
        raise Unusable("a result line held no custom_id and result")
    result = obj["result"]
    kind = result.get("type")
    if kind == "succeeded":
        return obj["custom_id"], kind, result.get("message")
    if kind == "errored":
        return obj["custom_id"], kind, result.get("error")
    if kind in ("expired", "canceled"):
        return obj["custom_id"], kind, None
    raise Unusable(f"a result line had the type {str(kind)[:40]!r}")
