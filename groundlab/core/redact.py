"""Secrets kept out of every text that reaches a person: one cleaning for every remote reply, and
addresses printed without their user and password.

A server may answer with what it was sent: an error that quotes the key, a proxy or token endpoint
that echoes the request's headers and body. What it echoes is the secret written in any of the
ways a request carries it, so :class:`Redactor` removes each of them:

- the secret itself, whole or in part: any run of its characters that shares :data:`_WINDOW`
  characters in a row with it (a cut or partly masked copy, ``sk-ant-api03-…``), its last
  :data:`_TAIL` or more characters ending a run (``…7f3a``, as consoles show it), and
  :data:`_TAIL_ANYWHERE` or more of them anywhere in a run;
- the secret escaped: a JSON string's ``\\u0024`` and ``\\/``, a URL's or form's ``%24`` (a form
  body echoed, ``client_secret=…``), an HTML character reference (``&#36;``), even escaped twice;
- the secret in base64 (standard or URL-safe alphabet, padded or not, wrapped into lines or not):
  ``Basic <base64 of client_id:client_secret>`` as an ``Authorization`` header carries it, the
  secret alone, the secret anywhere inside a longer base64 text, or :data:`_B64_BYTES` of its
  bytes in a row (a cut copy). A secret's bytes can fall three ways against the groups of three
  bytes that base64 writes as four characters; for each, the part of the encoding that only the
  secret's bytes decide is the same whatever comes before or after it, so a base64 run holding any
  of those parts holds the secret and is removed whole;
- the secret's bytes in hex, as a dump of a request shows them.

A text in which nothing is found is returned as it was, escapes and all.

>>> r = Redactor("sb-secret-0123456789$9c1e")
>>> r.text("invalid x-api-key sb-secret-0123456789$9c1e; sb-secret-01…9c1e")
'invalid x-api-key [key removed]; [key removed]…[key removed]'
>>> import base64
>>> echo = "Basic " + base64.b64encode(b"client!b12|aicore:sb-secret-0123456789$9c1e").decode()
>>> r.text(f'{{"authorization": "{echo}"}}'), r.text("client_secret=sb-secret-0123456789%249c1e")
('{"authorization": "Basic [key removed]"}', 'client_secret=[key removed]')
>>> without_userinfo("https://user:pw@host.example:8443/v2?x=1")
'https://host.example:8443/v2?x=1'
"""

from __future__ import annotations

import base64
import html
import re
import threading
from typing import Any, Iterable, List, Optional, Sequence, Tuple
from urllib.parse import unquote, urlsplit, urlunsplit

#: What a secret becomes in a text.
REDACTED = "[key removed]"

#: What a key looks like to :class:`Redactor`: shorter secrets are only replaced whole.
_WINDOW = 8
_TAIL = 4
#: As many of the key's last characters, found inside other text, are the key's and removed too.
_TAIL_ANYWHERE = 6
#: The shortest part of a base64 encoding looked for: fewer characters could be in any base64 text.
_B64_MIN = 8

_ESCAPE = re.compile(r"\\[uU]([0-9a-fA-F]{4})|\\(/)|(?:%[0-9A-Fa-f]{2})+|&#(?:[xX]([0-9A-Fa-f]{1,6})|(\d{1,7}));")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{4,}={0,2}(?:\r?\n[A-Za-z0-9+/_-]{4,}={0,2})*")
#: The bytes of a secret in a row whose base64 is looked for, as the plain text's :data:`_WINDOW`.
_B64_BYTES = 12
_STANDARD_TO_URLSAFE = str.maketrans("+/", "-_")


class _Secret:
    """One secret and the forms a reply may carry it in."""

    def __init__(self, secret: str, users: Sequence[str] = ()) -> None:
        self.secret = secret
        self.chars = frozenset(secret)
        if len(secret) >= _WINDOW:
            self.grams = {secret[i:i + _WINDOW] for i in range(len(secret) - _WINDOW + 1)}
            self.runs: Optional[re.Pattern] = re.compile("[" + re.escape("".join(sorted(self.chars))) + "]{%d,}" % _TAIL)
        else:
            self.grams, self.runs = set(), None
        raw = secret.encode("utf-8", "surrogatepass")
        cores = set()
        # the whole secret, and every _B64_BYTES of it in a row (a cut copy, as the plain text's
        # window), each at the three places its bytes may fall within base64's groups of three
        pieces = {raw} | {raw[i:i + _B64_BYTES] for i in range(max(0, len(raw) - _B64_BYTES + 1))}
        for piece in pieces:
            for offset in range(3):
                encoded = base64.b64encode(b"\0" * offset + piece).decode("ascii")
                start = -(-8 * offset // 6)  # the first character decided by the piece's bytes alone
                end = 8 * (offset + len(piece)) // 6  # and the one after the last
                core = encoded[start:end]
                if len(core) >= _B64_MIN:
                    cores.update((core, core.translate(_STANDARD_TO_URLSAFE)))
        self.cores = re.compile("|".join(map(re.escape, sorted(cores, key=lambda c: (-len(c), c))))) if cores else None
        whole = {base64.b64encode(raw).decode("ascii")}
        whole.update(base64.b64encode(f"{u}:{secret}".encode("utf-8", "surrogatepass")).decode("ascii")
                     for u in users if u)
        self.whole = frozenset({w.rstrip("=") for w in whole} |
                               {w.translate(_STANDARD_TO_URLSAFE).rstrip("=") for w in whole})
        hexed = raw.hex()
        self.plain_forms = tuple(f for f in (hexed, hexed.upper()) if len(secret) >= _WINDOW)

    def base64(self, match: "re.Match[str]") -> str:
        run = match.group(0)
        joined = run.replace("\r", "").replace("\n", "") if "\n" in run else run  # base64 wrapped into lines
        if joined.rstrip("=") in self.whole or (self.cores is not None and self.cores.search(joined)):
            return REDACTED
        return run

    def plain(self, text: str) -> str:
        text = text.replace(self.secret, REDACTED)
        for form in self.plain_forms:  # its bytes in hex, as a dump of the request shows them
            text = text.replace(form, REDACTED)
        if self.runs is None:
            return text
        return self.runs.sub(self._run, text)

    def _run(self, match: "re.Match[str]") -> str:
        run = match.group(0)
        secret = self.secret
        if secret.endswith(run) or any(run[i:i + _WINDOW] in self.grams for i in range(len(run) - _WINDOW + 1)):
            return REDACTED
        # The key's last characters run on into others that could be the key's too ("key7f3a",
        # "…-7f3a2b"): remove the tail, and any 6 or more of the key's last characters. Every such
        # tail ends with the key's last four, so a run without them holds none.
        if secret[-_TAIL:] not in run:
            return run
        for size in range(min(len(run), len(secret)) - 1, _TAIL - 1, -1):
            tail = secret[-size:]
            if run.endswith(tail):
                return run[:-size] + REDACTED
            if size >= _TAIL_ANYWHERE and tail in run:
                return run.replace(tail, REDACTED)
        return run


class Redactor:
    """Removes secrets from text (see the module docstring): ``secrets`` given now, or later with
    :meth:`add` (a token once it is issued); ``users`` the client ids or user names a secret may be
    paired with in a ``Basic`` header (``user:secret`` in base64). A secret may be added while
    other threads clean texts (a token renewed during a run): they go on with the secrets they had.

    >>> r = Redactor("sk-test-not-a-real-key-7f3a")
    >>> r.text("invalid x-api-key sk-test-not-a-real-key-7f3a; sk-test-no…7f3a; ****-key-7f3a")
    'invalid x-api-key [key removed]; [key removed]…[key removed]; ****[key removed]'
    >>> r.text("see https://docs.example/errors#key")
    'see https://docs.example/errors#key'
    """

    def __init__(self, *secrets: Optional[str], users: Iterable[Optional[str]] = ()) -> None:
        self.users: Tuple[str, ...] = tuple(u for u in users if u)
        self._secrets: List[_Secret] = []
        self._chars: frozenset = frozenset()
        self._adding = threading.Lock()
        for secret in secrets:
            self.add(secret)

    @property
    def secret(self) -> str:
        """The first secret (``""`` without one)."""
        return self._secrets[0].secret if self._secrets else ""

    def add(self, secret: Optional[str]) -> "Redactor":
        """Remove ``secret`` too (an empty one is nothing to remove)."""
        if not secret or not isinstance(secret, str):
            return self
        with self._adding:
            if all(s.secret != secret for s in self._secrets):
                # a new list, never the one a text being cleaned goes through (sorting a list in place
                # shows it empty meanwhile); its characters first, so its escapes are read once it is
                # there. A longer secret first: it may hold a shorter one.
                self._chars = self._chars | frozenset(secret)
                self._secrets = sorted(self._secrets + [_Secret(secret, self.users)], key=lambda s: -len(s.secret))
        return self

    def text(self, text: str) -> str:
        """``text`` with every secret removed, in every form (see the module docstring)."""
        secrets = self._secrets  # the secrets of now, whatever is added meanwhile
        if not secrets or not isinstance(text, str) or not text:
            return text
        seen = text
        for _ in range(3):  # an escape escaped again (%2524) is read in a second round
            read = _ESCAPE.sub(self._unescape, seen)
            if read == seen:
                break
            seen = read
        out = seen
        for secret in secrets:
            out = _BASE64_RUN.sub(secret.base64, out)
            out = secret.plain(out)
        return text if out == seen else out

    def _unescape(self, match: "re.Match[str]") -> str:
        found = match.group(0)
        if match.group(1) or match.group(2):
            char = match.group(2) or chr(int(match.group(1), 16))
            return char if self._ours(char) else found
        if found[0] == "%":
            try:
                decoded = unquote(found, errors="strict")
            except UnicodeDecodeError:
                return found
            if all(self._ours(c) for c in decoded):
                return decoded
            # only the escapes of the secrets' own characters: "%20" stays as it was
            return re.sub(r"%[0-9A-Fa-f]{2}", lambda m: unquote(m.group(0)) if m.group(0)[1] < "8" and
                          self._ours(unquote(m.group(0))) else m.group(0), found)
        try:
            char = chr(int(match.group(3), 16) if match.group(3) else int(match.group(4)))
        except (ValueError, OverflowError):
            return found
        return char if self._ours(char) else found

    def _ours(self, char: str) -> bool:
        return char in self._chars and char.isprintable() and char not in '"\\'

    def deep(self, value: Any) -> Any:
        """``value`` (parsed JSON) with every string in it, keys included, redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.deep(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self.deep(v) for k, v in value.items()}
        return value


def without_userinfo(url: str) -> str:
    """``url`` without the user name and password it may carry (``https://user:pw@host`` gives
    ``https://host``; ``user:pw@host``, written without a scheme, gives ``host``); the rest as written.
    What counts is an ``@`` before the path, query or fragment, the last one (a password may hold
    one unescaped)."""
    if not isinstance(url, str) or "@" not in url:
        return url
    start = url.find("//")
    start = start + 2 if start >= 0 else 0
    end = min([i for i in (url.find(c, start) for c in "/?#") if i >= 0], default=len(url))
    at = url.rfind("@", start, end)
    return url if at < 0 else url[:start] + url[at + 1:]


def url_secrets(url: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """``(user, password)`` of an address (``None`` each where it carries none)."""
    if not url or "@" not in url:
        return None, None
    try:
        parts = urlsplit(url)
        return parts.username, parts.password
    except ValueError:
        return None, None


__all__ = ["REDACTED", "Redactor", "url_secrets", "without_userinfo"]
