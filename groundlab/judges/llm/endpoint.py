"""Where the llm judge's requests go, with which key, and how the key is kept out of every text.

The key and the endpoint are read as a pair: a key from the environment goes to the endpoint the
environment names (``ANTHROPIC_BASE_URL``, else Anthropic's), a key from ``.env`` to the one
``.env`` names; ``--base-url`` (``base_url=``) overrides both. So a ``.env`` left in a working
folder cannot send a key from the environment to a host of its choosing. Every request is checked
on its way out against that one endpoint (scheme, host and port), so neither a redirect nor a
``results_url`` pointing elsewhere carries the key away, and any text that may reach a message, a
verdict, a log or the cache passes through :class:`Redactor` first.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Optional
from urllib.parse import urlsplit

from ...core.records import GroundlabError
# REDACTED and Redactor: named here, as they always were
from ...core.redact import REDACTED, Redactor, url_secrets, without_userinfo  # noqa: F401

DEFAULT_BASE_URL = "https://api.anthropic.com"
KEY_VARIABLE = "ANTHROPIC_API_KEY"
URL_VARIABLE = "ANTHROPIC_BASE_URL"
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def dotenv_values() -> Dict[str, str]:
    """The variables of ``.env`` in the current folder (``{}`` without one)."""
    dotenv = Path(".env")
    if not dotenv.is_file():
        return {}
    from dotenv import dotenv_values as read

    return {k: v for k, v in read(dotenv).items() if v}


def setting(name: str) -> Optional[str]:
    """A setting that is not a secret (``LLM_MODEL``): the environment, else ``.env``."""
    return os.environ.get(name) or dotenv_values().get(name) or None


@dataclass(frozen=True)
class Endpoint:
    """Where requests go and with which key; ``origin`` says where the key came from."""

    base_url: str
    key: Optional[str] = None
    origin: str = ""  # "the environment", ".env"
    note: Optional[str] = None  # an endpoint setting that was left aside, and why

    @property
    def display(self) -> str:
        """The endpoint as printed: scheme, host, port and path, never a user or password."""
        return display_url(self.base_url)

    @property
    def redactor(self) -> Redactor:
        """What cleans this endpoint's replies: its key, and the password its address may carry."""
        user, password = url_secrets(self.base_url)
        return Redactor(self.key, password, users=[user])

    def allows(self, scheme: str, host: str, port: Optional[int]) -> bool:
        parts = urlsplit(self.base_url)
        return (scheme, host.lower(), port or _default_port(scheme)) == \
            (parts.scheme, (parts.hostname or "").lower(), parts.port or _default_port(parts.scheme))


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def display_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}"


def resolve(base_url: Optional[str] = None, need_key: bool = True) -> Endpoint:
    """The endpoint and key of a run (see the module docstring); ``need_key=False`` for a dry run,
    which sends nothing. A missing key or an endpoint that cannot be one is one sentence."""
    dotenv = dotenv_values()
    env_key = os.environ.get(KEY_VARIABLE) or None
    note = None
    if env_key:
        key, origin, url, where = env_key, "the environment", os.environ.get(URL_VARIABLE), "the environment"
        other = dotenv.get(URL_VARIABLE)
        if other and not base_url and other != url:
            note = (f".env sets {URL_VARIABLE}={display_url(other)}, but the key comes from the environment, so it is "
                    f"sent to {display_url(url or DEFAULT_BASE_URL)} instead; set {URL_VARIABLE} in the environment "
                    "or pass --base-url to send it elsewhere")
    else:
        key, origin, url, where = dotenv.get(KEY_VARIABLE), ".env", dotenv.get(URL_VARIABLE), ".env"
        other = os.environ.get(URL_VARIABLE)
        if key and other and not base_url and other != url:
            note = (f"the environment sets {URL_VARIABLE}={display_url(other)}, but the key comes from .env, so it "
                    f"is sent to {display_url(url or DEFAULT_BASE_URL)} instead; set {URL_VARIABLE} in .env or "
                    "pass --base-url to send it elsewhere")
        if not key:
            origin = ""
    if base_url:
        url, where = base_url, "--base-url"
    url = url or DEFAULT_BASE_URL
    check_url(url, where if url != DEFAULT_BASE_URL else "the default")
    if need_key and not key:
        raise GroundlabError(f"the llm judge needs an API key in {KEY_VARIABLE} (environment or .env); "
                             "set it, or use --judge rules, which needs none.")
    return Endpoint(url.rstrip("/"), key, origin, note)


def check_url(url: str, where: str) -> None:
    """Refuse an endpoint that is not an http(s) address, or that would carry the key unencrypted
    to another machine."""
    bad = next((c for c in url if not c.isprintable() or c.isspace()), None)
    if bad is not None:
        raise GroundlabError(f"the API endpoint {without_userinfo(url)!r} from {where} holds the control character or "
                             f"space {bad!r}, which no address holds; give one such as {DEFAULT_BASE_URL}.")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise GroundlabError(f"the API endpoint {without_userinfo(url)!r} from {where} is not an http(s) address; give "
                             f"one such as {DEFAULT_BASE_URL}.")
    if parts.scheme == "http" and parts.hostname not in _LOOPBACK:
        raise GroundlabError(f"the API endpoint {display_url(url)} from {where} would carry the key unencrypted; "
                             "use https:// (plain http is accepted only on this machine: localhost, 127.0.0.1).")


class ForeignHost(Exception):
    """A request was about to leave for a host other than the run's endpoint; it was not sent."""

    def __init__(self, url: str, endpoint: Endpoint) -> None:
        super().__init__(f"groundlab refused to send a request to {display_url(url)}, which is not the run's "
                         f"endpoint {endpoint.display}, so the key stayed here")


def host_guard(endpoint: Endpoint) -> Callable[[Any], None]:
    """An httpx request hook that lets a request out only to ``endpoint``."""

    def guard(request: Any) -> None:
        url = request.url
        if not endpoint.allows(url.scheme, url.host, url.port):
            raise ForeignHost(str(url), endpoint)

    return guard


def make_client(endpoint: Endpoint, timeout: float):
    """An Anthropic client for ``endpoint``: its key only, no redirect followed, every request
    checked by :func:`host_guard`, and the SDK's own retries off (the judge counts its own)."""
    try:
        import anthropic
        import httpx
    except ImportError:
        raise GroundlabError("the llm judge needs the anthropic package; install it with "
                             "pip install 'groundlab[llm]', or use --judge rules.") from None
    http = anthropic.DefaultHttpxClient(follow_redirects=False, event_hooks={"request": [host_guard(endpoint)]},
                                        timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)))
    return anthropic.Anthropic(api_key=endpoint.key, base_url=endpoint.base_url, max_retries=0,
                               timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)),
                               http_client=http)


#: Seconds to open a connection: a host that takes longer is not going to answer.
CONNECT_TIMEOUT = 10.0


# ---------------------------------------------------------------- failures of a request

class _Abort(Exception):
    """A failure no retry or other request will fix (bad key, unknown model, endpoint down)."""


class _Stopped(Exception):
    """The run is stopping (another request aborted it, or it was interrupted): nothing more is sent."""


class StatusError(Exception):
    """An HTTP error answer of the model's API, whichever the provider: its status, a phrase from
    its body (``message``), the wait it asked for (``retry_after``, seconds) and what it means
    when the provider says (``kind``: ``"filter"``, a content filter blocked this request;
    ``"model"``, the model is not offered)."""

    def __init__(self, status: int, message: str, retry_after: Optional[float] = None,
                 kind: Optional[str] = None) -> None:
        super().__init__(message)
        self.status_code, self.message, self.retry_after, self.kind = status, message, retry_after, kind


def _retry_after(exc: Exception) -> Optional[float]:
    if isinstance(exc, StatusError):
        return exc.retry_after
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                wait = float(value) * scale
            except ValueError:
                continue  # an HTTP date: fall back to our own backoff
            if wait == wait:  # not NaN
                return max(0.0, wait)
    return None


def _transport_errors():
    import httpx

    return httpx.TransportError


def _timeout_errors():
    import httpx

    return httpx.TimeoutException
