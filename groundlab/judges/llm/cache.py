"""The llm judge's reply cache: one JSON file a request, ``<folder>/<key[:2]>/<key>.json``.

Reading never needs to write, so a read-only cache serves a fully cached run and a dry run. An
entry that cannot be used (damaged, not an object, too large, a reply the judge cannot parse) is a
miss: the request is asked again and the entry rewritten. An entry that cannot be written is a
warning, and the run goes on with the reply in hand. Processes sharing a folder take a lock per
request (``<key>.lock``, ``fcntl.flock``) before they pay for it, and look in the cache again once
they hold it, so two runs never pay twice for one request; the operating system drops a lock with
the process that held it, so a killed run leaves no lock behind to go stale.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Callable, Optional

from ...core.records import GroundlabError

try:  # not on Windows: there a shared cache is not locked
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

#: The largest cache entry read or written, in bytes. An entry holds a copy of its request (the
#: passages included) besides the reply; the copy is left out of an entry that would be larger.
MAX_ENTRY_BYTES = 8 << 20

HELD, BUSY, UNLOCKED = "held", "busy", "unlocked"


def check_folder(folder: Path) -> None:
    """Refuse, before any request, a cache folder that cannot be one (a file, or a folder under a
    file). A read-only folder is fine to read from; writing to it is a warning later."""
    hint = "pass --cache with a folder (it is created when missing), or --no-cache"
    if folder.exists() and not folder.is_dir():
        raise GroundlabError(f"the cache folder {folder} is a file, not a folder; {hint}.")
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise GroundlabError(f"the cache folder {folder} cannot be made, since {existing} is a file; {hint}.")


class Claim:
    """A request's lock: ``state`` is :data:`HELD` (this process may pay for it), :data:`BUSY`
    (another run is asking it now) or :data:`UNLOCKED` (no lock could be taken here, as in a
    read-only cache: go on without one)."""

    def __init__(self, state: str, fd: Optional[int] = None, path: Optional[Path] = None) -> None:
        self.state, self._fd, self._path = state, fd, path

    def release(self, answered: bool) -> None:
        """Let go; once the reply is in the cache the lock file goes too (a run that opened it
        meanwhile finds the reply when it takes the lock)."""
        if self._fd is None:
            return
        try:
            if answered and self._path is not None:
                try:
                    self._path.unlink()
                except OSError:
                    pass
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)
            self._fd = None


class ReplyCache:
    def __init__(self, folder: Path, warn: Callable[[str], None]) -> None:
        self.folder = Path(folder)
        self.warn = warn
        self.unwritten = 0  # replies that could not be kept
        self.warned = False

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def writable(self) -> bool:
        existing = self.folder
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        return os.access(existing, os.W_OK | os.X_OK)

    def reply(self, key: str, usable: Callable[[Any], bool]) -> Optional[Any]:
        """The cached reply of ``key`` when there is one the judge can use; ``None`` otherwise."""
        path = self.path(key)
        try:
            # Without waiting (a FIFO there would wait for a writer) and not through a link; only a
            # regular file is an entry (a device such as /dev/zero never ends).
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None  # missing, a link, or unreadable: asked again
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                return None
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(MAX_ENTRY_BYTES + 1)
        except OSError:
            return None
        if len(data) > MAX_ENTRY_BYTES:
            return None
        try:
            entry = json.loads(data)
        except (ValueError, RecursionError):
            return None
        if not isinstance(entry, dict) or "reply" not in entry:
            return None
        try:
            return entry["reply"] if usable(entry["reply"]) else None
        except RecursionError:
            return None

    def write(self, key: str, entry: dict) -> bool:
        """Keep ``entry``; a failure is a warning (the first of a run) and ``False``."""
        from ...core.io import write_atomic

        text = json.dumps(entry, ensure_ascii=False, indent=1)
        if len(text.encode("utf-8")) > MAX_ENTRY_BYTES and "request" in entry:
            entry = dict(entry, request={"omitted": f"larger than {MAX_ENTRY_BYTES >> 20} MiB"})
            text = json.dumps(entry, ensure_ascii=False, indent=1)
        problem = None
        if len(text.encode("utf-8")) > MAX_ENTRY_BYTES:
            problem = f"the entry would be larger than {MAX_ENTRY_BYTES >> 20} MiB"
        else:
            try:
                write_atomic(self.path(key), text)
            except (OSError, GroundlabError) as exc:
                problem = getattr(exc, "strerror", None) or str(exc)
        if problem is None:
            return True
        self.unwritten += 1
        if not self.warned:
            self.warned = True
            self.warn(f"a reply could not be kept in the cache ({self.path(key)}: {problem}); the run goes on "
                      "with it, but a rerun will ask for it again")
        return False

    def claim(self, key: str) -> Claim:
        """Take the lock of ``key`` without waiting."""
        if fcntl is None:
            return Claim(UNLOCKED)
        path = self.path(key).with_suffix(".lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError:
            return Claim(UNLOCKED)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return Claim(BUSY)
        except OSError:
            os.close(fd)
            return Claim(UNLOCKED)
        return Claim(HELD, fd, path)
