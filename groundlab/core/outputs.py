"""Where a run of the workbook writes, so that nothing is clobbered.

- Every file is written whole: to a temporary file in the same folder, then renamed over the
  target. A rename replaces a symbolic link instead of writing through it, so an output never
  lands in a file a link points at. Files get the user's umask.
- Each run gets a folder of its own, made with ``mkdir`` (atomic: two runs started in the same
  second get ``..._101500`` and ``..._101500-2``). Its ``run.json`` says whether the run is going
  on, succeeded or failed (and in which notebook), and lists every file the run wrote with its
  SHA-256: the manifest.
- ``--force`` on a folder clears exactly the files its manifest lists, and only while each is still
  the regular file groundlab wrote (same content, no link on the way); anything else there (a
  person's own file, a filled sheet, a link) stops the run before anything is written.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence

from .io import PathLike, new_file_mode
from .io import sha256_file as sha256
from .records import GroundlabError

#: The run's own record in its folder: status and manifest.
RUN_FILE = "run.json"
#: Written beside the outputs of a run that failed, in one sentence.
FAILED_FILE = "FAILED.txt"
#: Where a run keeps an input it read from standard input or a pipe, for its notebooks to read.
INPUTS_DIR = "inputs"
_KIND = "groundlab run"


# ---------------------------------------------------------------- writing one file


@contextlib.contextmanager
def replacing(path: PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed over ``path`` when the block ends
    without an error, removed otherwise.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with replacing(folder / "a.txt") as tmp:
    ...     _ = tmp.write_text("whole")
    >>> (folder / "a.txt").read_text()
    'whole'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, new_file_mode())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        if isinstance(exc, OSError) and exc.errno and exc.filename in (None, str(tmp)):  # a full disk names no file
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise


def write_bytes(path: PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` whole (see :func:`replacing`)."""
    with replacing(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


# ---------------------------------------------------------------- the run folder


def new_run_folder(base: PathLike, stamp: Optional[str] = None) -> Path:
    """Make a new folder ``base/<date>_<time>`` (``-2``, ``-3``, ... when that name is taken, even
    by a run started at the same moment) and return it."""
    base = Path(base)
    base.mkdir(parents=True, exist_ok=True)
    stamp = stamp or datetime.now().strftime("%Y-%m-%d_%H%M%S")
    for k in range(1, 1000):
        folder = base / (stamp if k == 1 else f"{stamp}-{k}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise GroundlabError(f"{base} already holds 999 runs named {stamp}; choose another --out.")


@dataclass
class RunFolder:
    """A folder a run writes into, with its record (``run.json``)."""

    path: Path
    #: Files that were there before the run and are not the run's (a person's own).
    kept: frozenset = frozenset()
    record: Dict = field(default_factory=dict)

    def write_record(self, **fields) -> None:
        self.record.update(fields)
        write_bytes(self.path / RUN_FILE, (json.dumps(self.record, indent=2, ensure_ascii=False) + "\n").encode())

    def keep_input(self, rel: str, data: bytes) -> Path:
        """Keep an input read from standard input or a pipe at ``rel`` (under :data:`INPUTS_DIR`),
        where the notebooks read it; listed in the manifest, so ``--force`` clears it as any output."""
        if Path(rel).parts[0] != INPUTS_DIR or ".." in Path(rel).parts:
            raise ValueError(f"an input is kept under {INPUTS_DIR}/, not at {rel}")
        return write_bytes(self.path / rel, data)

    def written(self) -> Dict[str, str]:
        """Every regular file under the folder that the run wrote (relative path -> SHA-256)."""
        files = {}
        for rel in _walk(self.path):
            if rel != RUN_FILE and rel not in self.kept:
                files[rel] = sha256(self.path / rel)
        return files

    def finish(self, status: str, failure: Optional[Dict] = None, message: str = "") -> None:
        """Record how the run ended and what it wrote; a failed run says so in ``FAILED.txt`` too.

        On a full disk, where no new file can be written, the record is written over the old one
        in place (its blocks are already the folder's), so the folder still says how the run ended."""
        problem: Optional[OSError] = None
        if message:
            try:
                write_bytes(self.path / FAILED_FILE, (message.rstrip() + "\n").encode("utf-8"))
            except OSError as exc:
                problem = exc
        fields = dict(status=status, finished=_now(), failure=failure, files=self.written())
        try:
            self.write_record(**fields)
        except OSError:
            self.record.update(fields)
            data = (json.dumps(self.record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
            fd = os.open(self.path / RUN_FILE, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
            try:
                os.write(fd, data)
                os.ftruncate(fd, len(data))
            finally:
                os.close(fd)
        if problem is not None:
            raise problem


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _walk(root: Path) -> List[str]:
    """Relative paths (POSIX) of the regular files under ``root``; links are not followed."""
    out = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in files:
            full = Path(folder) / name
            if stat.S_ISREG(full.lstat().st_mode):
                out.append(full.relative_to(root).as_posix())
    return sorted(out)


def claim_folder(out: Path, force: bool, reserved: Sequence[str], inputs: Iterable[PathLike] = ()) -> "Claim":
    """Check, before anything is written, that a run may write into ``out``; say what it would
    clear there. See :class:`Claim`.

    ``reserved``: the names the run writes at the top of the folder (files and folders), which
    must not be anyone else's. ``inputs``: files the run reads, which are never cleared.
    """
    if out.is_symlink():
        raise GroundlabError(f"--out {out} is a symbolic link; nothing was written (give the folder itself, "
                             "or a new one).")
    if not out.exists():
        return Claim(out, [])
    if not out.is_dir():
        raise GroundlabError(f"--out {out} is a file, not a folder; nothing was written (give --out a new "
                             "or empty folder).")
    entries = sorted(p.name for p in out.iterdir())
    if not entries:
        return Claim(out, [])
    if not force:
        raise GroundlabError(f"{out} already exists and is not empty; nothing was written "
                             "(choose another --out or pass --force to replace the groundlab run in it).")
    manifest = _manifest(out)
    clear: List[str] = []
    for rel, digest in manifest.items():
        path = out / rel
        problem = _not_ours(out, rel, digest)
        if problem == "gone":
            continue
        if problem:
            raise GroundlabError(f"{path} {problem}, so --force leaves it alone and nothing was written (move it "
                                 f"out of {out}, or choose another --out).")
        clear.append(rel)
    record = sha256(out / RUN_FILE) if (out / RUN_FILE).is_file() and not (out / RUN_FILE).is_symlink() else ""
    owned = set(clear) | ({RUN_FILE} if record else set())
    resolved_inputs = {os.path.realpath(p) for p in inputs if p}
    for rel in sorted(owned):
        if os.path.realpath(out / rel) in resolved_inputs:
            raise GroundlabError(f"{out / rel} is an input of this run, so --force cannot clear it; nothing was "
                                 f"written (copy it out of {out} first, or choose another --out).")
    for name in reserved:
        path = out / name
        if not os.path.lexists(path):
            continue
        if path.is_symlink():
            raise GroundlabError(f"{path} is a symbolic link, and the run writes there; nothing was written "
                                 f"(remove the link, or choose another --out).")
        if path.is_dir():
            for folder, dirs, files in os.walk(path, followlinks=False):
                for entry in sorted(dirs + files):
                    full = Path(folder) / entry
                    rel = full.relative_to(out).as_posix()
                    ours = full.is_dir() or (full.is_file() and rel in owned)
                    if full.is_symlink() or not ours:
                        raise GroundlabError(f"{full} was not written by groundlab, and the run writes into "
                                             f"{path}; nothing was written (move it away, or choose another --out).")
        elif name not in owned:
            raise GroundlabError(f"{path} was not written by groundlab, and the run writes a file of that name; "
                                 "nothing was written (move it away, or choose another --out).")
    return Claim(out, clear, record)


def _manifest(out: Path) -> Dict[str, str]:
    path = out / RUN_FILE
    if not os.path.lexists(path):
        return {}
    problem = None if path.is_file() and not path.is_symlink() else "is not a regular file"
    record = None
    if problem is None:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            problem = "is not a groundlab run record"
    if problem is None and not (isinstance(record, dict) and record.get("kind") == _KIND
                                and isinstance(record.get("files", {}), dict)):
        problem = "is not a groundlab run record"
    if problem:
        raise GroundlabError(f"{path} {problem}; nothing was written (move it away, or choose another --out).")
    return {str(k): str(v) for k, v in (record.get("files") or {}).items()}


def _not_ours(out: Path, rel: str, digest: str) -> Optional[str]:
    """Why ``out/rel`` is no longer the file groundlab wrote there ("gone" if it is not there)."""
    parts = Path(rel).parts
    if Path(rel).is_absolute() or ".." in parts or not parts:
        return "is listed in run.json outside the folder"
    here = out
    for part in parts[:-1]:
        here = here / part
        if here.is_symlink():
            return "lies behind a symbolic link"
        if not here.exists():
            return "gone"
    path = out / rel
    if not os.path.lexists(path):
        return "gone"
    if path.is_symlink():
        return "is now a symbolic link"
    if not path.is_file():
        return "is no longer a file"
    if sha256(path) != digest:
        return "was changed since groundlab wrote it (a filled labeling sheet? an edited notebook?)"
    return None


@dataclass
class Claim:
    """What :func:`claim_folder` found: the folder, the files to clear before the run."""

    path: Path
    clear: List[str]
    #: The SHA-256 of the previous run's ``run.json`` ("" when there was none).
    record: str = ""

    def take(self, command: Dict) -> RunFolder:
        """Clear the previous run's files and take the folder for this run (creating it when new).

        ``run.json`` is created exclusively: a second run started at the same moment into the same
        folder stops instead of mixing its files with this one's.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        for rel in self.clear:
            with contextlib.suppress(FileNotFoundError):
                (self.path / rel).unlink()
        for rel in sorted({str(Path(r).parent) for r in self.clear if Path(r).parent != Path(".")},
                          key=lambda r: -len(Path(r).parts)):
            with contextlib.suppress(OSError):  # a folder that still holds something is kept
                (self.path / rel).rmdir()
        previous = self.path / RUN_FILE
        if self.record and previous.is_file() and not previous.is_symlink() and sha256(previous) == self.record:
            previous.unlink()  # the record of the run replaced; one written since is another run's
        record = {"kind": _KIND, "status": "running", "started": _now(), "command": command,
                  "failure": None, "files": {}}
        try:
            fd = os.open(self.path / RUN_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                         new_file_mode())
        except FileExistsError:
            raise GroundlabError(f"another groundlab run is writing into {self.path}; nothing was written "
                                 "(choose another --out).") from None
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        return RunFolder(self.path, frozenset(_walk(self.path)) - {RUN_FILE}, record)

