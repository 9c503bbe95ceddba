"""Grow the test set from incidents: every complaint about a made-up answer becomes a labeled case.

:func:`add_incident` takes a reported answer (the record a guard read, a case of an imported log,
or one typed in), splits it into claims, checks the person's labels against them (one per claim,
in order), and appends it to a cases file with ``"origin": "incident"``. A case id the file
already holds, or one that differs from it only in spaces or in characters that do not show
(zero-width spaces and the like), is refused. The file is read and
rewritten under a lock (``.NAME.lock`` beside it: runs at the same time add their cases one after
the other, and one that waits says so), whole, through a temporary file and a rename, its
permissions kept; a symbolic link or a file that may not be written is refused rather than
replaced. Scoring counts the cases that
came from incidents apart, with their hallucination rate (``score --json``'s ``incidents``, and
the report).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence

from ..core.claims import ClaimSplitter
from ..core.io import PathLike, _json_type, json_line, load_cases, parse_labels, read_text, write_atomic
from ..core.records import InputError

ORIGIN = "incident"

#: How long a run waits for another to finish with the cases file before it gives up (seconds).
LOCK_WAIT = 120.0


@dataclass(frozen=True)
class Added:
    """What :func:`add_incident` appended."""

    case: Dict[str, Any]
    path: Path
    claims: int
    cases: int  # in the file, the new one included

    def __str__(self) -> str:
        labels = ", ".join(self.case["labels"]) or "no claim"
        return (f"added incident case {self.case['id']} to {self.path} ({self.claims} claim"
                f"{'s' * (self.claims != 1)}: {labels}); it now holds {self.cases} cases. "
                "groundlab score counts the cases from incidents apart.")


def reported_case(record: Mapping[str, Any], where: str, strings_are_ids: bool = False) -> Dict[str, Any]:
    """A case from a reported answer: the record a guard read, a case line, or an import's row
    (``question``, ``retrieved`` or ``passages``, ``answer``). A passage given as a string is its
    text, named by position, as the guard reads it; in a cases file (``strings_are_ids``) it is an
    id, which the new case cannot hold without its text."""
    if not isinstance(record, Mapping):
        raise InputError(f"{where} must be one JSON object, not {_json_type(record)}.")
    if "question" not in record and ("claims" in record or "text" in record):
        raise InputError(f"{where} is a guard result line, which holds no question or passages; pass the record the "
                         "guard read (question, retrieved, answer).")
    passages = record.get("retrieved", record.get("passages"))
    missing = [f for f, v in (("question", record.get("question")), ("retrieved", passages),
                              ("answer", record.get("answer"))) if v is None]
    if missing:
        raise InputError(f"{where} has no \"{missing[0]}\"; a reported answer needs question, retrieved and answer.")
    retrieved = []
    for k, item in enumerate(passages if isinstance(passages, list) else [None], 1):
        if isinstance(item, str) and not strings_are_ids:
            item = {"id": str(k), "text": item}
        if not isinstance(item, Mapping) or not isinstance(item.get("text"), str) or not str(item.get("id", "")).strip():
            raise InputError(f"{where}: passage {k} must be {{\"id\", \"text\"}} (or its text); the case keeps its "
                             "passages inline.")
        retrieved.append({"id": str(item["id"]), "text": item["text"]})
    case = {"question": record["question"], "retrieved": retrieved, "answer": record["answer"]}
    for key in ("id", "classification", "process", "answerable", "aliases", "meta"):
        if record.get(key) is not None:
            case[key] = record[key]
    return case


def _bare(case_id: str) -> str:
    """A case id as compared with the others: NFKC, without any kind of space and without the
    characters a reader does not see (zero-width spaces and joiners, word joiners, byte-order marks,
    direction marks: Unicode's format characters), which are read as spaces are."""
    return "".join(c for c in unicodedata.normalize("NFKC", case_id)
                   if not c.isspace() and unicodedata.category(c) != "Cf")


def _writable(path: Path) -> None:
    """Refuse a cases file that may not be written (read-only, whoever runs this), rather than
    replace it."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise InputError(f"{path} is read-only; groundlab does not replace a file it may not write: make it "
                         "writable (chmod u+w) to add the incident, or pass another cases file.")


@contextmanager
def cases_lock(path: Path, waiting: Optional[Callable[[str], None]] = None,
               wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the lock of the cases file ``path`` (``.NAME.lock`` beside it, kept) for the block: one
    run at a time reads and rewrites it. ``waiting`` is told, once, when another run holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no flock (Windows): one run at a time is up to the caller
        yield
        return
    lock = path.with_name(f".{path.name}.lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:
        raise InputError(f"cannot take the lock {lock} of {path} ({exc.strerror or exc}); the incident was not "
                         "added: check that its folder may be written.") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            (waiting or _say)(f"groundlab: waiting for another run to finish adding to {path} (it holds {lock})")
            until = time.monotonic() + wait
            while True:
                time.sleep(0.05)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > until:
                        raise InputError(f"another run has held the lock {lock} of {path} for {wait:g} s; the "
                                         "incident was not added: let that run finish (or end it) and run again.") \
                            from None
        yield
    finally:
        os.close(fd)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def add_incident(cases_path: PathLike, case: Mapping[str, Any], labels: Sequence[str], *,
                 case_id: Optional[str] = None, note: Optional[str] = None, reported: Optional[str] = None,
                 splitter: Optional[ClaimSplitter] = None,
                 waiting: Optional[Callable[[str], None]] = None) -> Added:
    """Append ``case`` with the person's ``labels`` to the cases file (created when missing), under
    the file's lock (:func:`cases_lock`; ``waiting`` is told when another run holds it)."""
    path = Path(cases_path)
    if path.is_symlink():
        raise InputError(f"{path} is a symbolic link; pass the cases file itself (groundlab does not write through "
                         "a link).")
    if path.is_dir():
        raise InputError(f"{path} is a folder; pass the cases file to add the incident to.")
    _writable(path)
    new = dict(case)
    if case_id is not None:
        new["id"] = case_id
    cid = new.get("id")
    if isinstance(cid, (int, float)) and not isinstance(cid, bool):
        cid = new["id"] = str(cid)
    if not isinstance(cid, str) or not _bare(cid):
        raise InputError("the incident needs a case id; give it with --id (e.g. --id inc-2024-031).")
    splitter = splitter or ClaimSplitter()
    claims = splitter.split(cid, str(new.get("answer", "")), question=str(new.get("question") or "")).claims
    labels = list(parse_labels(list(labels), f"the incident {cid}"))
    if len(labels) != len(claims):
        found = "; ".join(f"({c.number}) \"{c.text}\"" for c in claims) or "none"
        raise InputError(f"the incident {cid}: {len(labels)} label(s) for the answer's {len(claims)} claim(s) [{found}];"
                         " give one label per claim, in order, with --labels.")
    new["labels"] = labels
    new["origin"] = ORIGIN
    meta = dict(new.get("meta") or {})
    meta["reported"] = reported or date.today().isoformat()
    if note:
        meta["incident"] = note
    new["meta"] = meta
    line = json_line(new).rstrip("\n")
    load_cases([new])  # the new line is checked as every case is
    with cases_lock(path, waiting):  # read, checked and rewritten by one run at a time
        _writable(path)
        existing = read_text(path, "cases") if path.exists() else ""
        lines = existing.split("\n")  # JSON Lines end at \n only: a string may hold U+2028
        _check_new_id(path, lines, cid)
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
        text = existing + ("" if not existing or existing.endswith("\n") else "\n") + line + "\n"
        write_atomic(path, text, mode)  # the file keeps who may read it
    return Added(new, path, len(claims), sum(1 for x in lines if x.strip()) + 1)


def _check_new_id(path: Path, lines: Sequence[str], cid: str) -> None:
    """Refuse an id the file holds, or one that differs from one it holds only in spaces or in
    characters that do not show."""
    bare = _bare(cid)
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            other = json.loads(text)
        except ValueError:
            raise InputError(f"{path} line {number} is not valid JSON; fix the cases file before adding to it.") \
                from None
        if not isinstance(other, dict) or other.get("id") is None:
            continue
        held = str(other["id"])
        if held == cid:
            raise InputError(f"{path} line {number} already holds a case with the id {cid!r}; give the incident its "
                             "own id with --id.")
        if _bare(held) == bare:
            raise InputError(f"{path} line {number} holds a case with the id {held!r}, which {cid!r} differs from "
                             "only in spaces or characters that do not show; give the incident an id of its own "
                             "with --id.")


def read_record(path: PathLike, case: Optional[str] = None) -> Dict[str, Any]:
    """The reported answer in a file: its one JSON object (a guard's record), or with ``case`` the
    case of that id in a cases file or an import's output."""
    text = read_text(path, "incident")
    if case is None:
        rows = [line for line in text.split("\n") if line.strip()]
        if len(rows) != 1:
            raise InputError(f"{path} holds {len(rows)} lines; pass a file with the one reported record, or name the "
                             "case with --case ID.")
        try:
            return json.loads(rows[0])
        except ValueError:
            raise InputError(f"{path} is not one JSON object; pass the record the guard read.") from None
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            raise InputError(f"{path} line {number} is not valid JSON.") from None
        if isinstance(obj, dict) and obj.get("id") == case:
            return obj
    raise InputError(f"{path} holds no case with the id {case!r}; check --case.")


def typed_case(question: str, answer: str, passages: Sequence[str]) -> Dict[str, Any]:
    """A reported answer typed in: ``passages`` as ``ID=TEXT``."""
    retrieved: List[Dict[str, str]] = []
    for k, item in enumerate(passages, 1):
        pid, sep, text = item.partition("=")
        if not sep or not pid.strip():
            raise InputError(f"--passage {item[:40]!r} must read ID=TEXT, like KB-7=Refunds over 500 EUR need approval.")
        retrieved.append({"id": pid.strip(), "text": text})
    return {"question": question, "retrieved": retrieved, "answer": answer}


__all__ = ["Added", "ORIGIN", "add_incident", "read_record", "reported_case", "typed_case"]
