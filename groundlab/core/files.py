"""Write files safely and keep them as private as their inputs: refuse an output that exists or
is an input, write through a temporary file and a rename, give new files the mode the umask (or the
most private input) allows; the sha256 of a text or a file; and a JSON Lines line that stays one
line (:func:`json_line`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

from .reading import PathLike, _display, is_stdin
from .records import InputError


#: Characters inside a JSON string that a reader of lines may take for a line's end (Python's
#: ``str.splitlines``, JavaScript before ES2019, editors): written as escapes in every JSON line.
_LINE_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}
_LINE_BREAK = re.compile("[\u2028\u2029\x85]")


def json_line(value: Any, **options: Any) -> str:
    r"""``value`` as one line of JSON Lines, newline-ended (``options`` go to :func:`json.dumps`, whose
    ``ensure_ascii`` is off unless given): U+2028, U+2029 and U+0085, which JSON may leave raw in a
    string but a reader of lines splits at, are escaped, so each record stays one line.

    >>> json_line({"text": "one\u2028two"}, allow_nan=False)
    '{"text": "one\\u2028two"}\n'
    """
    options.setdefault("ensure_ascii", False)
    text = json.dumps(value, **options)
    if not options["ensure_ascii"] and _LINE_BREAK.search(text):
        text = _LINE_BREAK.sub(lambda m: _LINE_BREAKS[m.group()], text)
    return text + "\n"


def check_output(path: PathLike, force: bool, inputs: Sequence[PathLike] = ()) -> Path:
    """Refuse an output path that exists (unless ``force``) or that is one of the ``inputs``.

    An input is never replaced, even with ``force``: the files people hand groundlab are kept
    as they were, and every command writes what it made to a new file.
    """
    path = Path(path)
    # Where the file would really land: "new/../cases.jsonl" is cases.jsonl once "new" is made.
    target = Path(os.path.realpath(path))
    for source in inputs:
        if target == Path(os.path.realpath(source)):
            raise InputError(f"{_display(path)} is also the input; nothing was written "
                             "(write to a new file: the input is kept as it was).")
    if target.is_dir():
        raise InputError(f"{_display(path)} is a folder; pass the path of the file to write.")
    if target.exists() and not force:
        raise InputError(f"{_display(path)} already exists; nothing was written "
                         "(choose another file or pass --force to replace it).")
    return path

def sha256_text(text: str) -> str:
    """The sha256 of ``text`` written as UTF-8, in hex."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file(path: PathLike) -> str:
    """The sha256 of the bytes of the file at ``path``, in hex, read a megabyte at a time."""
    import hashlib

    with open(path, "rb") as fh:
        if hasattr(hashlib, "file_digest"):
            return hashlib.file_digest(fh, "sha256").hexdigest()
        digest = hashlib.sha256()
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
        return digest.hexdigest()


def new_file_mode() -> int:
    """The mode a new file gets under the user's umask (0o666 less the umask); ``tempfile.mkstemp``
    makes every file 0600 whatever the umask, so files written through it are given this."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:  # reads the umask without changing it
            mask = next(int(line.split()[1], 8) for line in fh if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


def input_mode(path: Optional[PathLike]) -> Optional[int]:
    """The permission bits of an input (standard input: of what it is redirected from, when that is a
    regular file); ``None`` for no file, a pipe, a terminal or a path that cannot be read."""
    if path is None:
        return None
    try:
        info = os.fstat(0) if is_stdin(path) else os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        return None
    return stat.S_IMODE(info.st_mode)


def narrower_umask(paths: Sequence[Optional[PathLike]], umask: int) -> int:
    """``umask`` with the bits added that keep new files no more readable than the most private of
    ``paths`` (a 0600 input: files 0600, folders 0700; a 0640 one: 0640 and 0750). The owner keeps
    read and write, and folders stay searchable by whoever may read them."""
    mask = umask
    for path in paths:
        mode = input_mode(path)
        if mode is None:
            continue
        allowed = mode & 0o666
        allowed |= (allowed & 0o444) >> 2  # folders: searchable where readable
        mask |= ~allowed & 0o077  # group and others only: the owner always reads and writes
    return mask


@contextlib.contextmanager
def outputs_like(*paths: Optional[PathLike]) -> Iterator[None]:
    """Within the block, every file and folder this process (and a process it starts, such as a
    notebook's kernel) creates is no more readable than the most private of the input ``paths``:
    the process's umask is narrowed, then restored. A sensitive log's report, sheets, caches and
    exports are then as private as the log."""
    current = os.umask(0o022)
    os.umask(narrower_umask(paths, current))
    try:
        yield
    finally:
        os.umask(current)


def write_atomic(path: PathLike, text: str, mode: Optional[int] = None) -> Path:
    """Write ``text`` to ``path`` through a temporary file and a rename, so no half file is left.

    The rename replaces a symbolic link at ``path`` rather than writing through it; the file gets
    ``mode``, else the user's umask (:func:`new_file_mode`)."""

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)

    return replace_atomic(path, write, mode)


def replace_atomic(path: PathLike, write: Callable[[str], None], mode: Optional[int] = None) -> Path:
    """``write(temporary path)``, then rename the temporary file to ``path``: the file is written
    whole or not at all (a failure removes the temporary file), and a link at ``path`` is
    replaced, never written through. The file gets ``mode`` (a file written over keeps who may
    read it), else the user's umask (:func:`new_file_mode`), before it is put in place."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InputError(f"cannot write {_display(path)}: a part of its folder path is a file; "
                         "choose another place.") from None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, new_file_mode() if mode is None else mode)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and exc.errno and exc.filename in (None, tmp):  # a full disk names no file
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise
    return path
