"""Read and check cases and passages (JSONL); write reports atomically.

Every problem with an input file is raised as :class:`~groundlab.records.InputError` with one
sentence naming the file, the line (and case id when known) and what to do about it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from ._gc import paused_gc
from .records import VERDICTS, Case, InputError, Passage

PathLike = Union[str, "os.PathLike[str]"]

_CASE_FIELDS = ("id", "question", "retrieved", "answer")


def _display(path: Path) -> str:
    return str(path)


def plural(n: int, one: str, many: str) -> str:
    """``1 row``, ``2 rows``: how a count reads in a report."""
    return f"{n} {one if n == 1 else many}"


def read_text(path: PathLike, what: str) -> str:
    """The whole file as text; a clear error when it is missing or not UTF-8."""
    path = Path(path)
    _check_file(path, what)
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{_display(path)} line {line} is not UTF-8 text (byte 0x{data[exc.start]:02x}); "
            "save the file as UTF-8 and run again."
        ) from None


#: A part of a file: ``(first byte, end byte, number of its first line)``.
Span = Tuple[int, int, int]


def _line_error(message: str, line: int) -> InputError:
    error = InputError(message)
    error.line = line  # lets a run split over processes report the first error in file order
    return error


def iter_jsonl(path: PathLike, what: str, span: Optional[Span] = None) -> Iterator[Tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file (or of a ``span``
    of it, see :func:`split_file`).

    The file is read line by line (a large log is never held twice in memory); a missing file,
    bytes that are not UTF-8 and a line that is not a JSON object stop it with an
    :class:`InputError` naming the file and line.
    """
    path = Path(path)
    _check_file(path, what)
    loads = json.loads
    start, stop, first = span or (0, -1, 1)
    with open(path, "rb") as fh:
        fh.seek(start)
        position = start
        for number, raw in enumerate(fh, first):
            if position == stop:
                break
            position += len(raw)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _line_error(
                    f"{_display(path)} line {number} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                    f"column {exc.start + 1}); save the file as UTF-8 and run again.", number
                ) from None
            if number == 1 and line.startswith("\ufeff"):
                line = line[1:]  # a byte-order mark some editors write
            if not line.strip():
                continue
            try:
                obj = loads(line)
            except json.JSONDecodeError as exc:
                raise _line_error(
                    f"{_display(path)} line {number} is not valid JSON ({exc.msg} at column {exc.colno}); "
                    "each line must be one JSON object.", number
                ) from None
            if not isinstance(obj, dict):
                raise _line_error(
                    f"{_display(path)} line {number} is {_json_type(obj)}, not a JSON object; "
                    "each line must be one JSON object like {\"id\": ..., ...}.", number
                )
            yield number, obj


def split_file(path: PathLike, parts: int) -> List[Span]:
    """Cut a file into about ``parts`` equal spans at line ends, each with its first line number."""
    path = Path(path)
    size = path.stat().st_size
    spans: List[Span] = []
    with open(path, "rb") as fh:
        start, line = 0, 1
        for k in range(1, parts + 1):
            stop = size if k == parts else max(start, size * k // parts)
            if stop < size:
                fh.seek(stop)
                stop += len(fh.readline())  # to the end of the line the cut falls in
            if stop > start:
                fh.seek(start)
                spans.append((start, stop, line))
                line += fh.read(stop - start).count(b"\n")
                start = stop
    return spans


def _check_file(path: Path, what: str) -> None:
    if not path.exists():
        raise InputError(f"{what} file {_display(path)} does not exist; check the path "
                         "(run 'groundlab init' to get the sample set).")
    if path.is_dir():
        raise InputError(f"{what} file {_display(path)} is a folder; pass the path of a .jsonl file.")


def read_csv(path: PathLike, what: str, required: Sequence[str]) -> Tuple[List[str], List[Tuple[int, Dict[str, str]]]]:
    """The columns and ``(row_number, {column: cell})`` rows of a CSV file, header checked first.

    Rows are numbered as a spreadsheet shows them (the header is row 1). The separator may be
    ``,``, ``;`` or a tab (spreadsheets in some locales save with ``;``): the first one whose
    header holds every ``required`` column is used. Blank rows are skipped; a short row reads
    its missing cells as empty.
    """
    path = Path(path)
    text = read_text(path, what)
    header_line = text.split("\n", 1)[0]
    delimiter = next((d for d in (",", ";", "\t")
                      if set(required) <= {c.strip() for c in next(csv.reader([header_line], delimiter=d), [])}),
                     ",")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        columns = [c.strip() for c in next(reader, [])]
        missing = [c for c in required if c not in columns]
        if missing:
            raise InputError(f"{_display(path)} row 1 has no column {', '.join(repr(c) for c in missing)}; "
                             f"the first row must name the columns, including {', '.join(required)}.")
        repeated = sorted({c for c in columns if c and columns.count(c) > 1})
        if repeated:
            raise InputError(f"{_display(path)} row 1 names the column {repeated[0]!r} twice; "
                             "rename or delete one of them.")
        rows: List[Tuple[int, Dict[str, str]]] = []
        for number, cells in enumerate(reader, 2):
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) > len(columns) and any(cell.strip() for cell in cells[len(columns):]):
                raise InputError(f"{_display(path)} row {number} has {len(cells)} cells but the header names "
                                 f"{len(columns)} columns; quote cells that contain {delimiter!r} or a line break.")
            cells = cells + [""] * (len(columns) - len(cells))
            rows.append((number, {c: cell for c, cell in zip(columns, cells) if c}))
    except csv.Error as exc:
        raise InputError(f"{_display(path)} row {reader.line_num} is not valid CSV ({exc}); "
                         "save the file again as CSV from the spreadsheet.") from None
    return columns, rows


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


def load_passages(path: PathLike) -> Dict[str, Passage]:
    """Read a passages file (``{"id", "text"}`` a line) into a dict keyed by id."""
    path = Path(path)
    passages: Dict[str, Passage] = {}
    lines: Dict[str, int] = {}
    for number, obj in iter_jsonl(path, "passages"):
        where = f"{_display(path)} line {number}"
        passage = _passage(obj, where)
        if passage.id in passages:
            raise InputError(f"{where}: passage id {passage.id!r} is already used on line "
                             f"{lines[passage.id]}; give each passage its own id.")
        passages[passage.id] = passage
        lines[passage.id] = number
    if not passages:
        raise InputError(f"passages file {_display(path)} holds no passages; "
                         "add one JSON object a line: {\"id\": \"D01\", \"text\": \"...\"}.")
    return passages


def _passage(obj: Mapping, where: str) -> Passage:
    pid, text = obj.get("id"), obj.get("text")
    if not isinstance(pid, str) or not pid.strip():
        raise InputError(f"{where}: a passage needs a non-empty string \"id\"; add one.")
    if not isinstance(text, str):
        raise InputError(f"{where}: passage {pid!r} needs a string \"text\"; add the passage text.")
    return Passage(pid, text)


def load_cases(path: PathLike, passages: Union[PathLike, Mapping[str, Passage], None] = None) -> List[Case]:
    """Read and check a cases file.

    ``retrieved`` entries are passage ids, looked up in ``passages`` (a passages file or a
    dict from :func:`load_passages`), or inline ``{"id", "text"}`` objects.

    >>> cases = load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"))
    >>> len(cases), cases[0].id, cases[0].retrieved[0].id
    (12, 'c01', 'D07')
    """
    table, passages_name = passage_table(passages)
    cases: List[Case] = []
    with paused_gc():
        cases.extend(case for _, case in iter_cases(path, table, passages_name))
    if not cases:
        raise InputError(empty_cases_message(path))
    return cases


def duplicate_id_message(where: str, case_id: str, first_line: int) -> str:
    return f"{where}: case id {case_id!r} is already used on line {first_line}; give each case its own id."


def empty_cases_message(path: PathLike) -> str:
    return (f"cases file {_display(Path(path))} holds no cases; add one JSON object a line "
            "(see the case format in the README).")


def passage_table(passages: Union[PathLike, Mapping[str, Passage], None]) -> Tuple[
        Optional[Mapping[str, Passage]], str]:
    """The passages by id (read from a file when given a path), and how messages name them.

    An empty path is no passages file (the cases hold their passages inline), as ``None`` is."""
    if isinstance(passages, str) and not passages.strip():
        passages = None
    if passages is None or isinstance(passages, Mapping):
        return passages, "the passages"
    return load_passages(passages), _display(Path(passages))


def iter_cases(path: PathLike, table: Optional[Mapping[str, Passage]], passages_name: str,
               span: Optional[Span] = None) -> Iterator[Tuple[int, Case]]:
    """``(line number, case)`` for each case of ``path`` (or of a ``span`` of it), checked;
    an :class:`InputError` carries the ``line`` it stopped at."""
    path = Path(path)
    seen: Dict[str, int] = {}
    name = _display(path)
    for number, obj in iter_jsonl(path, "cases", span):
        source = f"{name} line {number}"
        try:
            case = _case(obj, source, table, passages_name)
        except InputError as error:
            error.line = number
            raise
        if case.id in seen:
            raise _line_error(duplicate_id_message(case.where, case.id, seen[case.id]), number)
        seen[case.id] = number
        yield number, case


def _case(obj: Mapping, source: str, table: Optional[Mapping[str, Passage]], passages_name: str) -> Case:
    cid = obj.get("id")
    where = f"{source} (case {cid})" if isinstance(cid, str) and cid.strip() else source
    for field in _CASE_FIELDS:
        if field not in obj:
            raise InputError(f"{where}: the required field \"{field}\" is missing; add it "
                             "(a case needs id, question, retrieved and answer).")
    if not isinstance(cid, str) or not cid.strip():
        raise InputError(f"{where}: \"id\" must be a non-empty string, like \"c01\".")
    for field in ("question", "answer"):
        if not isinstance(obj[field], str):
            raise InputError(f"{where}: \"{field}\" must be a string, not {_json_type(obj[field])}.")
    retrieved = obj["retrieved"]
    if not isinstance(retrieved, list):
        raise InputError(f"{where}: \"retrieved\" must be a list of passage ids or {{\"id\", \"text\"}} "
                         f"objects, not {_json_type(retrieved)}.")
    found: List[Passage] = []
    for item in retrieved:
        if isinstance(item, str):
            if table is None:
                raise InputError(f"{where}: retrieved passage {item!r} is an id but no passages file "
                                 "was given; pass --passages FILE or write the passage inline as "
                                 "{\"id\", \"text\"}.")
            passage = table.get(item)
            if passage is None:
                raise InputError(f"{where}: retrieved passage {item!r} is not in {passages_name}; "
                                 "fix the id or add the passage there.")
            found.append(passage)
        elif isinstance(item, dict):
            found.append(_passage(item, f"{where}, an inline passage"))
        else:
            raise InputError(f"{where}: each \"retrieved\" entry must be a passage id or an "
                             f"{{\"id\", \"text\"}} object, not {_json_type(item)}.")
    answerable = obj.get("answerable")
    if answerable is not None and not isinstance(answerable, bool):
        raise InputError(f"{where}: \"answerable\" must be true, false or absent, not "
                         f"{json.dumps(answerable)}.")
    labels = obj.get("labels")
    if labels is not None:
        labels = parse_labels(labels, where)
    process = obj.get("process")
    if process is not None and (not isinstance(process, str) or not process.strip()):
        raise InputError(f"{where}: \"process\" must be a non-empty string like \"procure-to-pay\" or absent, "
                         f"not {json.dumps(process)}.")
    return Case(cid, obj["question"], tuple(found), obj["answer"], answerable, labels, source, process)


def parse_labels(labels: object, where: str) -> Tuple[str, ...]:
    """Check a person's labels: a list of the three verdicts (case and spaces forgiven)."""
    if not isinstance(labels, list):
        raise InputError(f"{where}: \"labels\" must be a list of verdicts, not {_json_type(labels)}.")
    out = []
    for i, label in enumerate(labels, 1):
        norm = label.strip().lower() if isinstance(label, str) else None
        if norm not in VERDICTS:
            raise InputError(f"{where}: label {json.dumps(label)} for claim {i} is not a verdict; "
                             f"use {', '.join(VERDICTS[:-1])} or {VERDICTS[-1]}.")
        out.append(norm)
    return tuple(out)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def sample_path(name: str = "") -> Path:
    """Path of the sample set shipped inside the package (``notes.jsonl``, ``grounded_cases.jsonl``)."""
    return Path(__file__).parent / "data" / name


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


def write_atomic(path: PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file and a rename, so no half file is left.

    The rename replaces a symbolic link at ``path`` rather than writing through it; the file gets
    the user's umask (:func:`new_file_mode`)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InputError(f"cannot write {_display(path)}: a part of its folder path is a file; "
                         "choose another place.") from None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            os.fchmod(fh.fileno(), new_file_mode())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path
