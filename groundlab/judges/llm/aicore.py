"""An SAP AI Core tenant: its credentials, read as SAP's own SDK reads them, the OAuth token, and
requests to its AI API that keep the secret and the token where they belong. One piece, which the
llm judge's ``sap-ai-core`` provider (:mod:`.orchestration`) and ``groundlab sap metric --push``
(:mod:`groundlab.production.sap_metric`) both use.

**Credentials** (:func:`find_credentials`) are looked for in the order of SAP's Python SDK
(``ai_core_sdk.credentials.fetch_credentials``: arguments, environment variables, the profile
configuration file, ``VCAP_SERVICES``), with groundlab's ``.env`` read right after the
environment, as python-dotenv would load it into the environment:

1. a service key file as BTP gives it (``--service-key FILE``): ``clientid``, ``clientsecret``,
   ``url`` (the authentication URL) and ``serviceurls.AI_API_URL``, also under ``"credentials"``;
2. the environment: ``AICORE_AUTH_URL``, ``AICORE_CLIENT_ID``, ``AICORE_CLIENT_SECRET``,
   ``AICORE_BASE_URL``;
3. ``.env`` in the current folder, the same names;
4. the profile configuration file, the same names as JSON keys: ``$AICORE_CONFIG``, else
   ``$AICORE_HOME`` (default ``~/.aicore``) ``/config.json``, or ``config_<profile>.json`` for
   ``$AICORE_PROFILE``;
5. ``VCAP_SERVICES``: the service labelled ``aicore``, its ``credentials`` as in a service key.

The first source that holds a client secret gives all four (where every source is complete this is
the SDK's rule, "all credentials come from one source"; where one holds only part, say
``AICORE_BASE_URL`` in the environment and the secret in the configuration file, the SDK would stop
on the part, groundlab takes the source of the secret and says what it left aside), so a URL set
in another place never receives the secret. The resource group, which is no secret, is the first
one named (environment, ``.env``, configuration file), else ``default``, as in the SDK. As the SDK
does, ``/oauth/token`` is added to an authentication URL without it and the AI API's ``/v2`` is
read whether the URL ends in it or not.

**The token** comes by OAuth client credentials from the authentication URL, is kept in memory
only and fetched again :data:`REFRESH_AHEAD` seconds before it expires (half its lifetime, for a
short one). **Requests** (:class:`AICore`) go out through one HTTP client that follows no
redirect and checks each on its way out: the client's credentials only to the token URL, the
token only to the AI API's host, nothing anywhere else. Every text the tenant sends back passes
through one :class:`~groundlab.core.redact.Redactor` first, which removes the secret and every
token in each form an echo carries them (the ``Basic`` credential, base64, URL-encoded,
JSON-escaped, hex, cut short).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit

from ...core.records import GroundlabError
from ...core.redact import Redactor
from .endpoint import display_url, dotenv_values

SETTINGS = ("AICORE_AUTH_URL", "AICORE_CLIENT_ID", "AICORE_CLIENT_SECRET", "AICORE_BASE_URL")
RESOURCE_GROUP_VARIABLE = "AICORE_RESOURCE_GROUP"
DEPLOYMENT_VARIABLE = "AICORE_DEPLOYMENT_ID"
TOKEN_PATH = "/oauth/token"
#: Seconds before a token expires that it is fetched anew (half its lifetime at most).
REFRESH_AHEAD = 300.0
#: A token whose answer gives no lifetime is used this many seconds.
UNTIMED_TOKEN = 300.0
#: The longest answer of the token endpoint or the deployments list read, in bytes.
MAX_ANSWER_BYTES = 1 << 20
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}
_DEPLOYMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


class AICoreError(GroundlabError):
    """An answer of the tenant no retry will change (credentials refused, no deployment)."""


class Unavailable(Exception):
    """The token endpoint or the AI API answered 429 or 5xx: worth another try later. ``text``
    says so in a phrase; ``retry_after`` is the wait it asked for, in seconds."""

    def __init__(self, text: str, status: int, retry_after: Optional[float] = None) -> None:
        super().__init__(text)
        self.status, self.retry_after = status, retry_after


class NotSent(GroundlabError):
    """A request was about to leave for a place its credentials do not belong to; it was not sent."""


@dataclass(frozen=True)
class Credentials:
    """A tenant's settings and where they came from (``origin``: "the environment", ".env", "the
    service key FILE", ...); ``note`` names settings of another source that were left aside."""

    auth_url: str
    client_id: str
    client_secret: str = field(repr=False)
    base_url: str = ""
    resource_group: str = "default"
    origin: str = ""
    note: Optional[str] = None

    @property
    def token_url(self) -> str:
        url = self.auth_url.rstrip("/")
        return url if url.endswith(TOKEN_PATH) else url + TOKEN_PATH

    @property
    def api_root(self) -> str:
        """The AI API's address without its version (``https://api.ai....ondemand.com``)."""
        url = self.base_url.rstrip("/")
        return url[:-3] if url.endswith("/v2") else url

    @property
    def api_url(self) -> str:
        """The AI API's version 2 (``.../v2``), where ``lm/deployments`` and the inference URLs live."""
        return self.api_root + "/v2"

    @property
    def display(self) -> str:
        return display_url(self.api_root)

    def secrets(self) -> Redactor:
        """What never leaves a text: the secret, alone and as the basic credential it is sent in
        (a token is added to it once it is issued)."""
        return Redactor(self.client_secret, users=[self.client_id])


# ---------------------------------------------------------------- where the credentials are


def profile_file() -> Path:
    """The profile configuration file the SDK reads (see the module docstring)."""
    direct = os.environ.get("AICORE_CONFIG")
    if direct:
        return Path(direct)
    home = Path(os.environ.get("AICORE_HOME") or Path.home() / ".aicore")
    profile = os.environ.get("AICORE_PROFILE") or ""
    return home / ("config.json" if profile in ("", "default") else f"config_{profile}.json")


def _json_file(path: Path, what: str, fix: str) -> Dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise GroundlabError(f"{what} {path} is not UTF-8 text; {fix}.") from None
    except OSError as exc:
        raise GroundlabError(f"{what} {path} cannot be read ({exc.strerror or exc}); {fix}.") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise GroundlabError(f"{what} {path} is not JSON; {fix}.") from None
    if not isinstance(data, dict):
        raise GroundlabError(f"{what} {path} holds no JSON object; {fix}.")
    return data


def _from_key(key: Dict[str, Any]) -> Dict[str, Optional[str]]:
    """The settings of a service key (or of a VCAP_SERVICES entry's ``credentials``)."""
    urls = key.get("serviceurls") if isinstance(key.get("serviceurls"), dict) else {}
    values = {"AICORE_AUTH_URL": key.get("url"), "AICORE_CLIENT_ID": key.get("clientid"),
              "AICORE_CLIENT_SECRET": key.get("clientsecret"), "AICORE_BASE_URL": urls.get("AI_API_URL")}
    return {k: v if isinstance(v, str) and v.strip() else None for k, v in values.items()}


def _service_key(path: str) -> Dict[str, Optional[str]]:
    fix = "pass the JSON of the service key as BTP gives it (clientid, clientsecret, url, serviceurls.AI_API_URL)"
    key = _json_file(Path(path), "the service key", fix)
    if isinstance(key.get("credentials"), dict) and "clientid" not in key:
        key = key["credentials"]
    values = _from_key(key)
    if not values["AICORE_CLIENT_SECRET"] and (key.get("certificate") or key.get("credential-type") == "x509"):
        raise GroundlabError(f"the service key {path} holds an X.509 certificate, not a client secret; groundlab signs "
                             "in with client credentials: create a service key of the default kind (clientsecret).")
    return values


def _vcap() -> Tuple[Dict[str, Optional[str]], Optional[str]]:
    raw = os.environ.get("VCAP_SERVICES")
    if not raw:
        return {}, None
    try:
        services = json.loads(raw)
    except (ValueError, RecursionError):
        raise GroundlabError("VCAP_SERVICES is not JSON; fix the environment or unset it.") from None
    found = [s for group in (services.values() if isinstance(services, dict) else []) if isinstance(group, list)
             for s in group if isinstance(s, dict) and s.get("label") == "aicore"]
    if not found or not isinstance(found[0].get("credentials"), dict):
        return {}, None
    name = found[0].get("name")
    return _from_key(found[0]["credentials"]), "VCAP_SERVICES" + (f" (service {name})" if isinstance(name, str) else "")


def _sources(service_key: Optional[str]) -> List[Tuple[str, Dict[str, Optional[str]]]]:
    """Each source of settings, in the order they are read, with the settings it holds."""
    out: List[Tuple[str, Dict[str, Optional[str]]]] = []
    if service_key:
        out.append((f"the service key {service_key}", _service_key(service_key)))
    names = SETTINGS + (RESOURCE_GROUP_VARIABLE,)
    out.append(("the environment", {k: os.environ.get(k) or None for k in names}))
    dotenv = dotenv_values()
    out.append((".env", {k: dotenv.get(k) or None for k in names}))
    path = profile_file()
    if path.is_file():
        config = _json_file(path, "the SAP AI Core configuration file", "fix it or remove it (the SDK reads it too)")
        out.append((f"the configuration file {path}",
                    {k: str(config[k]) if config.get(k) not in (None, "") else None for k in names}))
    elif os.environ.get("AICORE_CONFIG") or os.environ.get("AICORE_PROFILE") not in (None, "", "default"):
        raise GroundlabError(f"the SAP AI Core configuration file {path} ({'AICORE_CONFIG' if os.environ.get('AICORE_CONFIG') else 'AICORE_PROFILE'}"
                             " names it) does not exist; create it or unset the variable.")
    vcap, origin = _vcap()
    if origin:
        out.append((origin, vcap))
    return out


def _check_url(url: str, name: str, origin: str) -> str:
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() or not c.isprintable()
                                                                          for c in url):
        raise GroundlabError(f"{name} from {origin} is not an http(s) address; give the service key's value, such "
                             "as https://<subdomain>.authentication.<region>.hana.ondemand.com.")
    if parts.username or parts.password:
        raise GroundlabError(f"{name} from {origin} holds a user name or password; give the address alone.")
    if parts.scheme == "http" and parts.hostname not in _LOOPBACK:
        raise GroundlabError(f"{name} from {origin} ({display_url(url)}) would carry the client secret unencrypted; "
                             "use https:// (plain http is accepted only on this machine).")
    return url


def find_credentials(service_key: Optional[str] = None, *, purpose: str = "SAP AI Core") -> Credentials:
    """The tenant's credentials (see the module docstring); one sentence naming what is missing
    and where it was looked for. ``purpose`` says who needs them ("--push needs ...")."""
    sources = _sources(service_key)
    chosen = next(((origin, values) for origin, values in sources if values.get("AICORE_CLIENT_SECRET")), None)
    if chosen is None:
        given = next((origin for origin, values in sources if any(values.get(k) for k in SETTINGS)), None)
        where = (f"a service key (--service-key FILE), the environment or .env, the configuration file "
                 f"{profile_file()} or VCAP_SERVICES")
        missing = SETTINGS if given is None else [k for k in SETTINGS if not dict(sources)[given].get(k)]
        raise GroundlabError(f"{purpose} needs {', '.join(SETTINGS)} from {where}, as the tenant's service key gives "
                             f"them (AICORE_RESOURCE_GROUP defaults to default); missing: {', '.join(missing)}"
                             + (f" (in {given})" if given else "") + ".")
    origin, values = chosen
    missing = [k for k in SETTINGS if not values.get(k)]
    if missing:
        also = " (which sets AICORE_CLIENT_SECRET, so the others are read there too)"
        raise GroundlabError(f"{purpose} needs {', '.join(SETTINGS)} in {origin}{also}, from the tenant's service "
                             f"key (AICORE_RESOURCE_GROUP defaults to default); missing: {', '.join(missing)}.")
    aside = [f"{k} in {o}" for o, vals in sources if o != origin for k in SETTINGS
             if vals.get(k) and vals.get(k) != values.get(k) and k != "AICORE_CLIENT_SECRET"]
    note = None
    if aside:
        note = (f"{', '.join(aside[:3])}{' and more' if len(aside) > 3 else ''} left aside: the client secret comes "
                f"from {origin}, so its settings are used with it")
    group = next((vals[RESOURCE_GROUP_VARIABLE] for _, vals in sources if vals.get(RESOURCE_GROUP_VARIABLE)), None)
    return Credentials(_check_url(values["AICORE_AUTH_URL"], "AICORE_AUTH_URL", origin), values["AICORE_CLIENT_ID"],
                       values["AICORE_CLIENT_SECRET"], _check_url(values["AICORE_BASE_URL"], "AICORE_BASE_URL", origin),
                       group or "default", origin, note)


def check_deployment_id(value: str, where: str) -> str:
    if not _DEPLOYMENT_ID.fullmatch(value or ""):
        raise GroundlabError(f"{where} {value!r} is not a deployment id (letters, digits, - and _, as SAP AI Launchpad "
                             "shows it, e.g. d1a2b3c4d5e6f7a8).")
    return value


# ---------------------------------------------------------------- the tenant's answers


def _origin(url: str) -> Tuple[str, str, int]:
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or (443 if parts.scheme == "https" else 80)


def answer_text(response: Any, secrets: Redactor, limit: int = 300) -> str:
    """What an error answer says, in one line: SAP's ``error.message`` (with its ``location``),
    OAuth's ``error: error_description``, else the body; every secret removed."""
    try:
        body = json.loads(response.content[:MAX_ANSWER_BYTES])
    except (ValueError, RecursionError):
        body = response.content[:2000].decode("utf-8", "replace")
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, list) and error:
            error = error[-1]  # orchestration's fallbacks: the last attempt's error sets the status
        if isinstance(error, str) and isinstance(body.get("error_description"), str):  # OAuth's shape
            text = f"{error}: {body['error_description']}"
        elif isinstance(error, dict):
            text = str(error.get("message") or json.dumps(error))
            location = error.get("location")
            if isinstance(location, str) and location and location not in text:
                text = f"{location}: {text}"
        else:
            text = str(error or body.get("message") or body.get("error_description") or json.dumps(body))
    else:
        text = str(body)
    text = secrets.text(" ".join(text.split()))
    return text[:limit] + ("..." if len(text) > limit else "")


def retry_after(response: Any) -> Optional[float]:
    """The wait an answer asks for: its ``Retry-After`` header, else the ``x-retry-after`` that
    orchestration puts in an error's ``headers``; ``None`` when it names none in seconds."""
    candidates = [response.headers.get("retry-after")]
    try:
        body = json.loads(response.content[:MAX_ANSWER_BYTES])
    except (ValueError, RecursionError):
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    for item in (error if isinstance(error, list) else [error]):
        headers = item.get("headers") if isinstance(item, dict) else None
        if isinstance(headers, dict):
            candidates += [v for k, v in headers.items() if str(k).lower() in ("retry-after", "x-retry-after")]
    for value in candidates:
        try:
            wait = float(value)
        except (TypeError, ValueError):
            continue
        if wait == wait and wait >= 0:
            return wait
    return None


@dataclass(frozen=True)
class Deployment:
    """An orchestration deployment: its id and URL, and how it was found (in words)."""

    id: str
    url: str
    how: str


class AICore:
    """One tenant's AI API (see the module docstring): ``timeout`` bounds each answer of the token
    endpoint and of the AI API's own calls (the judge bounds its completions itself)."""

    def __init__(self, credentials: Credentials, timeout: float = 30.0, connect_timeout: float = 10.0) -> None:
        try:
            import httpx
        except ImportError:  # pragma: no cover - httpx comes with the sap and llm extras
            raise GroundlabError("SAP AI Core needs the httpx package; install it with pip install 'groundlab[sap]'.") \
                from None
        self.credentials = credentials
        self.secrets = credentials.secrets()
        self.timeout = timeout
        self._auth = _origin(credentials.token_url)
        self._api = _origin(credentials.api_root)
        self._lock = threading.Lock()
        self._token: Optional[str] = None
        self._renew_at = 0.0
        self.tokens_fetched = 0
        self.http = httpx.Client(follow_redirects=False, event_hooks={"request": [self._guard]},
                                 timeout=httpx.Timeout(timeout, connect=min(timeout, connect_timeout)))

    def close(self) -> None:
        self.http.close()

    def _guard(self, request: Any) -> None:
        """Let a request out only where its credentials belong (an httpx request hook)."""
        url = str(request.url)
        where = _origin(url)
        auth = request.headers.get("authorization", "")
        token_url = self.credentials.token_url
        if auth.lower().startswith("basic") and (where != self._auth or urlsplit(url).path.rstrip("/") !=
                                                 urlsplit(token_url).path.rstrip("/")):
            raise NotSent(f"groundlab refused to send the client's credentials to {display_url(url)}, which is not "
                          f"the token URL {display_url(token_url)}; nothing was sent.")
        if auth.lower().startswith("bearer") and where != self._api:
            raise NotSent(f"groundlab refused to send the token to {display_url(url)}, which is not the AI API of "
                          f"the credentials ({self.credentials.display}); nothing was sent.")
        if where not in (self._auth, self._api):
            raise NotSent(f"groundlab refused to send a request to {display_url(url)}, which is not the tenant's; "
                          "nothing was sent.")

    # ------------------------------------------------------------ the token

    def token(self) -> str:
        """The bearer token: the one in hand, or a new one when it is due to expire.
        :class:`AICoreError` when the client is refused, :class:`Unavailable` on 429 or 5xx."""
        with self._lock:
            now = time.monotonic()
            if self._token is None or now >= self._renew_at:
                token, lifetime = self._fetch()
                self.secrets.add(token)
                self._token = token
                self._renew_at = now + max(0.0, lifetime - min(REFRESH_AHEAD, lifetime / 2))
                self.tokens_fetched += 1
            return self._token

    def forget_token(self) -> None:
        """Drop the token in hand (the AI API refused it): the next request fetches a new one."""
        with self._lock:
            self._token = None

    def _fetch(self) -> Tuple[str, float]:
        creds = self.credentials
        where = display_url(creds.token_url)
        response = self.http.post(creds.token_url, data={"grant_type": "client_credentials"},
                                  auth=(creds.client_id, creds.client_secret), headers={"Accept": "application/json"})
        status = response.status_code
        if status in (400, 401, 403):
            raise AICoreError(f"the token endpoint {where} refused the client ({status}: "
                              f"{answer_text(response, self.secrets)}); check AICORE_CLIENT_ID and AICORE_CLIENT_SECRET "
                              f"({creds.origin}) against the service key's clientid and clientsecret.")
        if 300 <= status < 400:
            raise AICoreError(f"the token endpoint {where} answered with a redirect ({status}), which groundlab does not "
                              f"follow, so the secret stayed here; check AICORE_AUTH_URL ({creds.origin}) is the "
                              "service key's url.")
        if status == 429 or status >= 500:
            raise Unavailable(f"the token endpoint {where} answered {status} ({answer_text(response, self.secrets)})",
                              status, retry_after(response))
        if status != 200:
            raise AICoreError(f"the token endpoint {where} answered {status} ({answer_text(response, self.secrets)}); "
                              f"check AICORE_AUTH_URL ({creds.origin}) is the service key's url.")
        try:
            body = json.loads(response.content[:MAX_ANSWER_BYTES])
        except (ValueError, RecursionError):
            body = None
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token.strip():
            raise AICoreError(f"the token endpoint {where} answered without an access_token; check AICORE_AUTH_URL "
                              f"({creds.origin}) is the service key's url.")
        try:
            lifetime = float(body.get("expires_in"))
        except (TypeError, ValueError):
            lifetime = UNTIMED_TOKEN
        return token.strip(), lifetime if lifetime == lifetime and lifetime > 0 else UNTIMED_TOKEN

    # ------------------------------------------------------------ the AI API

    def headers(self) -> Dict[str, str]:
        """The headers of every AI API request: the bearer token and the resource group."""
        return {"Authorization": f"Bearer {self.token()}", "AI-Resource-Group": self.credentials.resource_group}

    def refused(self, status: int, response: Any, doing: str) -> str:
        """The sentence for a refusal of the AI API (401, 403, 404 on ``doing``)."""
        creds, text = self.credentials, answer_text(response, self.secrets)
        if status == 401:
            return (f"the AI API at {creds.display} refused the token ({doing}; 401: {text}); check that AICORE_BASE_URL "
                    f"({creds.origin}) is the AI API URL of the service key the client belongs to.")
        if status == 403:
            return (f"the AI API at {creds.display} does not let the client {doing} in resource group "
                    f"{creds.resource_group} (403: {text}); check AICORE_RESOURCE_GROUP and the service key's roles.")
        return (f"the AI API at {creds.display} answered {status} ({doing}: {text}); check AICORE_BASE_URL "
                f"({creds.origin}) and AICORE_RESOURCE_GROUP ({creds.resource_group}).")

    def orchestration(self, deployment_id: Optional[str] = None) -> Deployment:
        """The orchestration deployment to send completions to: the one named, else the running one
        of the resource group (``GET /v2/lm/deployments?scenarioId=orchestration&status=RUNNING``,
        the most recently started when there are several, as SAP's SDK picks)."""
        creds = self.credentials
        if deployment_id:
            return Deployment(deployment_id, f"{creds.api_url}/inference/deployments/{deployment_id}", "named")
        response = self.http.get(f"{creds.api_url}/lm/deployments", headers=self.headers(),
                                 params={"scenarioId": "orchestration", "status": "RUNNING"})
        status = response.status_code
        if status in (401, 403, 404):
            if status == 401:
                self.forget_token()
            raise AICoreError(self.refused(status, response, "list the deployments"))
        if status == 429 or status >= 500:
            raise Unavailable(f"the AI API at {creds.display} answered {status} listing the deployments "
                              f"({answer_text(response, self.secrets)})", status, retry_after(response))
        try:
            body = json.loads(response.content[:MAX_ANSWER_BYTES]) if status == 200 else None
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("resources"), list):
            raise AICoreError(f"the AI API at {creds.display} answered {status} to GET /v2/lm/deployments without a "
                              "list of deployments (resources); check AICORE_BASE_URL "
                              f"({creds.origin}) is the service key's serviceurls.AI_API_URL.")
        running = [d for d in body["resources"] if isinstance(d, dict) and d.get("scenarioId", "orchestration") ==
                   "orchestration" and str(d.get("status", "RUNNING")).upper() == "RUNNING"
                   and isinstance(d.get("deploymentUrl"), str) and d["deploymentUrl"]]
        if not running:
            raise AICoreError(f"resource group {creds.resource_group} of the AI API at {creds.display} has no running "
                              "orchestration deployment (scenario orchestration, status RUNNING); start one (SAP AI "
                              "Launchpad, or POST /v2/lm/deployments with the orchestration configuration), set "
                              "AICORE_RESOURCE_GROUP to the group that has one, or name one with --deployment-id "
                              f"(or {DEPLOYMENT_VARIABLE}).")
        running.sort(key=lambda d: str(d.get("startTime") or ""), reverse=True)
        chosen = running[0]
        url = chosen["deploymentUrl"].rstrip("/")
        if _origin(url) != self._api:
            raise AICoreError(f"the running orchestration deployment's URL {display_url(url)} is not on the AI API of "
                              f"the credentials ({creds.display}), so the token was not sent there; name a deployment "
                              f"of this tenant with --deployment-id (or {DEPLOYMENT_VARIABLE}).")
        ident = str(chosen.get("id") or url.rsplit("/", 1)[-1])
        many = f", the latest started of {len(running)}" if len(running) > 1 else ""
        return Deployment(ident, url, f"the running orchestration deployment of resource group "
                                      f"{creds.resource_group}{many}")


__all__ = ["AICore", "AICoreError", "Credentials", "DEPLOYMENT_VARIABLE", "Deployment", "NotSent", "REFRESH_AHEAD",
           "SETTINGS", "Unavailable", "answer_text", "check_deployment_id", "find_credentials", "profile_file",
           "retry_after"]
