"""Read and check cases and passages (JSONL); write reports atomically.

Every problem with an input file is raised as :class:`~groundlab.records.InputError` with one
sentence naming the file, the line (and case id when known) and what to do about it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import (TYPE_CHECKING, Any, BinaryIO, Callable, ContextManager, Dict, Iterable, Iterator, List, Mapping,
                    Optional, Sequence, Tuple, Union)

from ._gc import paused_gc
from .records import VERDICTS, Case, InputError, Passage
from .rows import _json_type, read_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

PathLike = Union[str, "os.PathLike[str]"]

_CASE_FIELDS = ("id", "question", "retrieved", "answer")

#: The path that means standard input (``--cases -``, ``groundlab import -``).
STDIN = "-"

#: The longest line groundlab reads from a JSON Lines file, in bytes: a case with long passages
#: inline is a few hundred kB; a line of hundreds of MB is not a case, and reading it would only
#: fill the memory.
MAX_LINE_BYTES = 64 * 1024 * 1024

#: The most lines groundlab reads from one file (an endless stream stops here, with a message).
MAX_LINES = 10_000_000

#: The largest file groundlab reads whole (a CSV, a JSON document, a labeling sheet).
MAX_DOCUMENT_BYTES = 1024 * 1024 * 1024


def is_stdin(path: object) -> bool:
    """True for ``-``, which stands for standard input."""
    return isinstance(path, (str, os.PathLike)) and os.fspath(path) == STDIN


def _display(path: PathLike) -> str:
    return "stdin" if is_stdin(path) else str(path)


def display_name(path: PathLike) -> str:
    """How messages name an input: its path, or ``stdin`` for ``-``."""
    return _display(path)


def open_input(path: PathLike, what: str) -> ContextManager[BinaryIO]:
    """The input opened for reading bytes: standard input for ``-`` (left open afterwards), else
    the file, which may be a pipe (``/dev/stdin``, a FIFO) as well as a regular file."""
    if is_stdin(path):
        return contextlib.nullcontext(sys.stdin.buffer)
    path = Path(path)
    _check_file(path, what)
    return open(path, "rb")


def is_regular_file(path: PathLike) -> bool:
    """True for a regular file, which can be read from any byte offset (not ``-``, a pipe or a device)."""
    if is_stdin(path):
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _mb(n: int) -> str:
    return f"{n // (1024 * 1024):,} MB"


def plural(n: int, one: str, many: str) -> str:
    """``1 row``, ``2 rows``: how a count reads in a report."""
    return f"{n} {one if n == 1 else many}"


def read_bytes(path: PathLike, what: str, head: bytes = b"", fh: Optional[BinaryIO] = None) -> bytes:
    """The whole input as bytes (``head``, already read from ``fh``, first), up to
    :data:`MAX_DOCUMENT_BYTES`; a larger input is refused rather than read into memory."""
    if fh is None:
        with open_input(path, what) as fh:
            return read_bytes(path, what, head, fh)
    data = head + fh.read(MAX_DOCUMENT_BYTES + 1 - len(head))
    if len(data) > MAX_DOCUMENT_BYTES:
        raise InputError(f"{_display(path)} is larger than {_mb(MAX_DOCUMENT_BYTES)}, more than groundlab reads "
                         "whole; split it into smaller files (or save it as JSON Lines, which is read line by line).")
    return data


def wide_encoding(head: bytes) -> Optional[str]:
    """``"UTF-16-LE"``, ``"UTF-16-BE"``, ``"UTF-32-LE"`` or ``"UTF-32-BE"`` when ``head`` (the first
    bytes of a file) is text in that encoding, by its byte-order mark or, without one, by the NUL
    bytes every ASCII character brings; else ``None``."""
    for mark, name in ((b"\xff\xfe\x00\x00", "UTF-32-LE"), (b"\x00\x00\xfe\xff", "UTF-32-BE"),
                       (b"\xff\xfe", "UTF-16-LE"), (b"\xfe\xff", "UTF-16-BE")):
        if head.startswith(mark):
            return name
    sample = head[:512]
    if len(sample) < 8:
        return None
    sample = sample[:len(sample) // 4 * 4]
    for name, width, at in (("UTF-32-LE", 4, 0), ("UTF-32-BE", 4, 3), ("UTF-16-LE", 2, 0), ("UTF-16-BE", 2, 1)):
        chars = [sample[k:k + width] for k in range(0, len(sample), width)]
        if all(c[at] != 0 and c[:at] + c[at + 1:] == b"\0" * (width - 1) for c in chars[:8]) and \
                sum(c[:at] + c[at + 1:] == b"\0" * (width - 1) for c in chars) >= 0.9 * len(chars):
            return name
    return None


def wide_text_message(name: str, encoding: str) -> str:
    return (f"{name} is {encoding} text, not UTF-8; save it as UTF-8 (most editors: 'Save with encoding', or "
            f"iconv -f {encoding} -t UTF-8) and run again")


def decode_text(data: bytes, path: PathLike) -> str:
    """Bytes as UTF-8 text (a byte-order mark dropped); one sentence naming the line otherwise (and
    the encoding, when it is UTF-16 or UTF-32)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        wide = wide_encoding(data[:512])
        if wide is not None:
            raise InputError(wide_text_message(_display(path), wide) + ".") from None
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{_display(path)} line {line} is not UTF-8 text (byte 0x{data[exc.start]:02x}); "
            "save the file as UTF-8 and run again."
        ) from None


def read_text(path: PathLike, what: str) -> str:
    """The whole file as text; a clear error when it is missing, binary, too large or not UTF-8."""
    with open_input(path, what) as fh:
        head = fh.read(65536)
        if b"\0" in head:
            wide = wide_encoding(head)
            if wide is not None:
                raise InputError(wide_text_message(_display(path), wide) + ".")
            raise InputError(f"{_display(path)} holds binary data (NUL bytes), not text; "
                             f"pass the {what} file itself.")
        data = read_bytes(path, what, head, fh)
    return decode_text(data, path)


#: A part of a file: ``(first byte, end byte, number of its first line)``.
Span = Tuple[int, int, int]


def _line_error(message: str, line: int) -> InputError:
    error = InputError(message)
    error.line = line  # lets a run split over processes report the first error in file order
    return error


def iter_jsonl(path: PathLike, what: str, span: Optional[Span] = None,
               fh: Optional[BinaryIO] = None) -> Iterator[Tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file (or of a ``span``
    of it, see :func:`split_file`). ``-`` reads standard input; a pipe is read like a file.

    The file is read line by line (a large log is never held twice in memory); a missing file,
    bytes that are not UTF-8, a line that is not a JSON object, nests too deeply or is longer than
    :data:`MAX_LINE_BYTES`, and more than :data:`MAX_LINES` lines stop it with an
    :class:`InputError` naming the file and line. ``fh``: read from it instead (the input opened
    or read already), the messages still naming ``path``.
    """
    hint = ""
    if what == "cases":
        hint = IMPORT_HINT.format(name="standard input" if is_stdin(path) else _display(path), path=os.fspath(path))
    if fh is not None:
        yield from jsonl_objects(fh, _display(path), hint=hint)
        return
    start, stop, first = span or (0, -1, 1)
    with open_input(path, what) as fh:
        if start:
            fh.seek(start)
        yield from jsonl_objects(fh, _display(path), first, stop - start if stop >= 0 else -1,
                                 hint=hint if not start else "")


#: Said when the first line of a cases file is no JSON object: the file is most likely another
#: tool's export, or a CSV, which ``groundlab import`` reads.
IMPORT_HINT = ("; if {name} is another tool's export or a table (CSV, JSON, Parquet), 'groundlab import {path} "
               "--out cases.jsonl' turns it into cases")


def jsonl_objects(fh: Any, name: str, first: int = 1, length: int = -1, hint: str = "") -> Iterator[Tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line read from ``fh`` (anything with
    ``readline(limit)``), numbering from ``first`` and stopping after ``length`` bytes (-1: at the
    end); every problem is an :class:`InputError` naming ``name`` and the line. ``hint`` is added
    to the sentence when the first line is not a JSON object (what else the file may be)."""
    loads = json.loads
    readline = fh.readline
    limit = MAX_LINE_BYTES + 1
    last = first + MAX_LINES
    position = 0
    number = first - 1
    while position != length:
        raw = readline(limit)
        if not raw:
            break
        number += 1
        position += len(raw)
        if len(raw) == limit:
            raise _line_error(
                f"{name} line {number} is longer than {_mb(MAX_LINE_BYTES)}, more than groundlab reads as one "
                "line; is it JSON Lines (one JSON object a line)? Split the record or pass the right file.", number)
        if number == last:
            raise _line_error(f"{name} has more than {MAX_LINES:,} lines, more than groundlab reads from one "
                              "file; split it into smaller files.", number)
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            wide = wide_encoding(raw) if number == first else None
            if wide is not None:
                raise _line_error(wide_text_message(name, wide) + (
                    " (groundlab import reads it as it is)." if hint else "."), number) from None
            raise _line_error(
                f"{name} line {number} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                f"column {exc.start + 1}); save the file as UTF-8 and run again{hint}.", number
            ) from None
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]  # a byte-order mark some editors write
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except json.JSONDecodeError as exc:
            raise _line_error(
                f"{name} line {number} is not valid JSON ({exc.msg} at column {exc.colno}); "
                f"each line must be one JSON object{hint}.", number
            ) from None
        except RecursionError:
            raise _line_error(nesting_message(f"{name} line {number}"), number) from None
        except ValueError:  # a whole number longer than Python reads (4,300 digits)
            raise _line_error(long_number_message(f"{name} line {number}"), number) from None
        if not isinstance(obj, dict):
            raise _line_error(
                f"{name} line {number} is {_json_type(obj)}, not a JSON object; "
                "each line must be one JSON object like {\"id\": ..., ...}" + hint + ".", number
            )
        hint = ""  # past the first object, a bad line is a bad line
        yield number, obj


def nesting_message(where: str) -> str:
    """The sentence for JSON nested deeper than Python can read (about 1,000 levels)."""
    return (f"{where} nests JSON lists or objects more deeply than groundlab reads (about "
            f"{sys.getrecursionlimit():,} levels); flatten that record.")


def long_number_message(where: str) -> str:
    """The sentence for a whole number longer than Python reads from text (4,300 digits)."""
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
    return (f"{where} holds a whole number of more than {limit:,} digits, more than groundlab reads; "
            "write it as a string (in quotes), or drop it.")


def json_problem(exc: BaseException) -> str:
    """What is wrong with text ``json.loads`` refused, as a phrase: the error and where it is, a
    nesting too deep, or a whole number too long."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(exc, RecursionError):
        return f"it nests lists or objects more deeply than groundlab reads, about {sys.getrecursionlimit():,} levels"
    if isinstance(exc, UnicodeDecodeError):
        return "it is not UTF-8 text"
    return "it holds a whole number of more than 4,300 digits, more than groundlab reads"


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
                left = stop - start
                while left:  # counted a megabyte at a time: a part of a large file is never read whole
                    block = fh.read(min(left, 1 << 20))
                    line += block.count(b"\n")
                    left -= len(block)
                start = stop
    return spans


def _check_file(path: Path, what: str) -> None:
    if is_stdin(path):
        return
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
    its missing cells as empty. A cell may be of any size.
    """
    return parse_csv(read_text(path, what), _display(path), required)


def parse_csv(text: str, name: str, required: Sequence[str] = (),
              identical_repeats: bool = False) -> Tuple[List[str], List[Tuple[int, Dict[str, str]]]]:
    """:func:`read_csv` on text already read. Without ``required`` columns the separator is the
    one of ``,``, ``;`` and tab that splits the header into the most columns. A column named
    twice is refused, unless ``identical_repeats`` and its cells are the same on every row
    (pandas writes a named index that way); a column without a name (pandas' unnamed index) is
    left out of the rows."""
    header_line = text.split("\n", 1)[0]
    if required:
        delimiter = next((d for d in (",", ";", "\t")
                          if set(required) <= {c.strip() for c in next(csv.reader([header_line], delimiter=d), [])}),
                         ",")
    else:
        delimiter = max((",", ";", "\t"), key=lambda d: len(next(csv.reader([header_line], delimiter=d), [])))
    csv.field_size_limit(max(csv.field_size_limit(), 2 ** 31 - 1))  # cells of any size
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        columns = [c.strip() for c in next(reader, [])]
        missing = [c for c in required if c not in columns]
        if missing:
            raise InputError(f"{name} row 1 has no column {', '.join(repr(c) for c in missing)}; "
                             f"the first row must name the columns, including {', '.join(required)}.")
        repeated = sorted({c for c in columns if c and columns.count(c) > 1})
        if repeated and not identical_repeats:
            raise InputError(f"{name} row 1 names the column {repeated[0]!r} twice; "
                             "rename or delete one of them.")
        first_of = {}
        for k, c in enumerate(columns):
            first_of.setdefault(c, k)
        rows: List[Tuple[int, Dict[str, str]]] = []
        for number, cells in enumerate(reader, 2):
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) > len(columns) and any(cell.strip() for cell in cells[len(columns):]):
                raise InputError(f"{name} row {number} has {len(cells)} cells but the header names "
                                 f"{len(columns)} columns; quote cells that contain {delimiter!r} or a line break.")
            cells = cells + [""] * (len(columns) - len(cells))
            row: Dict[str, str] = {}
            for k, (c, cell) in enumerate(zip(columns, cells)):
                if not c:
                    continue
                if first_of[c] != k:
                    if cell != cells[first_of[c]]:
                        raise InputError(f"{name} row 1 names the column {c!r} twice and row {number} holds "
                                         "different values in them; rename or delete one of them.")
                    continue
                row[c] = cell
            rows.append((number, row))
    except csv.Error as exc:
        raise InputError(f"{name} row {reader.line_num} is not valid CSV ({exc}); "
                         "save the file again as CSV from the spreadsheet.") from None
    return [c for k, c in enumerate(columns) if c and first_of[c] == k], rows


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


def load_passages(path: PathLike, fh: Optional[BinaryIO] = None) -> Dict[str, Passage]:
    """Read a passages file (``{"id", "text"}`` a line) into a dict keyed by id (from ``fh``, when
    given, as :func:`iter_jsonl`)."""
    path = Path(path)
    passages: Dict[str, Passage] = {}
    lines: Dict[str, int] = {}
    for number, obj in iter_jsonl(path, "passages", fh=fh):
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


def load_cases(source: Union[PathLike, "pd.DataFrame", Sequence[Mapping]],
               passages: Union[PathLike, Mapping[str, Passage], None] = None) -> List[Case]:
    """Read and check cases in groundlab's case format: from a cases file (JSON Lines; ``-``
    reads standard input), or from a pandas DataFrame or a list of dicts holding one case a row.

    ``retrieved`` entries are passage ids, looked up in ``passages`` (a passages file or a
    dict from :func:`load_passages`), or inline ``{"id", "text"}`` objects. Rows of a DataFrame
    or list are checked as the lines of a file are, and named ``row 3`` (counted from 1).

    Rows in another tool's columns are converted by :func:`groundlab.load_cases` (the importers'
    reader, which this one serves for groundlab's own format).

    >>> cases = load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"))
    >>> len(cases), cases[0].id, cases[0].retrieved[0].id
    (12, 'c01', 'D07')
    >>> rows = [{"id": "q1", "question": "Who releases it?", "answer": "The analyst [D1].",
    ...          "retrieved": [{"id": "D1", "text": "The analyst releases it."}], "meta": {"model": "v3"}}]
    >>> load_cases(rows)[0].meta
    {'model': 'v3'}
    """
    table, passages_name = passage_table(passages)
    if not isinstance(source, (str, os.PathLike)):
        src = read_table(source)
        if "retrieved" not in src.columns:
            raise InputError(f"{_source_name(source)} has no \"retrieved\" column, so it is not in groundlab's case "
                             "format; read rows in another tool's columns with groundlab.load_cases, which converts "
                             "them as 'groundlab import' does.")
        return cases_of_rows(((src.where(src.ref(number)), obj) for number, obj in src.records), source, table,
                             passages_name)
    cases = []
    with paused_gc():
        cases.extend(case for _, case in iter_cases(source, table, passages_name))
    if not cases:
        raise InputError(empty_cases_message(source))
    return cases


def cases_of_rows(rows: Iterable[Tuple[str, Mapping]], source: object,
                  table: Optional[Mapping[str, Passage]], passages_name: str) -> List[Case]:
    """The cases of ``(where, case object)`` rows, each checked as a line of a cases file is; a
    repeated id, or no row at all, is an error naming ``source``."""
    cases: List[Case] = []
    seen: Dict[str, str] = {}
    for where, obj in rows:
        case = _case(obj, where, table, passages_name)
        if case.id in seen:
            raise InputError(f"{case.where}: case id {case.id!r} is already used by {seen[case.id]}; "
                             "give each case its own id.")
        seen[case.id] = where
        cases.append(case)
    if not cases:
        raise InputError(f"{_source_name(source)} holds no cases; give it one row per case "
                         "(see the case format in the README).")
    return cases


def _source_name(source: object) -> str:
    if isinstance(source, (str, os.PathLike)):
        return _display(source)
    return "the DataFrame" if hasattr(source, "columns") else "the list of cases"


def duplicate_id_message(where: str, case_id: str, first_line: int) -> str:
    return f"{where}: case id {case_id!r} is already used on line {first_line}; give each case its own id."


def empty_cases_message(path: PathLike) -> str:
    return (f"cases file {_display(path)} holds no cases; add one JSON object a line "
            "(see the case format in the README).")


def passage_table(passages: Union[PathLike, Mapping[str, Passage], None]) -> Tuple[
        Optional[Mapping[str, Passage]], str]:
    """The passages by id (read from a file when given a path), and how messages name them.

    An empty path is no passages file (the cases hold their passages inline), as ``None`` is."""
    if isinstance(passages, str) and not passages.strip():
        passages = None
    if passages is None or isinstance(passages, Mapping):
        return passages, "the passages"
    return load_passages(passages), _display(passages)


def load_cases_with_records(path: PathLike, passages: Union[PathLike, Mapping[str, Passage], None] = None
                            ) -> Tuple[List[Case], List[dict]]:
    """:func:`load_cases` of a cases file, and the JSON objects of its lines as written, from one
    read: standard input or a pipe can be read only once."""
    table, passages_name = passage_table(passages)
    records: List[dict] = []
    with paused_gc():
        cases = [case for _, case in iter_cases(path, table, passages_name, records=records)]
    if not cases:
        raise InputError(empty_cases_message(path))
    return cases, records


def read_cases_once(cases: PathLike, passages: Optional[PathLike] = None,
                    read: Optional[Dict[str, bytes]] = None) -> List[Case]:
    """:func:`load_cases` of a cases file and its passages file, for a command that hands the
    inputs on to others (``groundlab run`` to its notebooks): an input that is not a regular file
    (``-``, a pipe, a device) can be read only once, so it is read here, checked line by line as it
    comes, and its bytes put in ``read`` under its path as given, for the caller to keep. An input
    already in ``read`` is read from there. Messages name each input as given (``stdin`` for ``-``).

    All of an input that is read this way is held in memory, up to :data:`MAX_DOCUMENT_BYTES`.
    """
    read = {} if read is None else read
    if isinstance(passages, str) and not passages.strip():
        passages = None
    if passages is None or is_regular_file(passages):
        table, passages_name = passage_table(passages)
    else:
        with _read_once(passages, "passages", read) as fh:
            table, passages_name = load_passages(passages, fh), _display(passages)
    source = contextlib.nullcontext(None) if is_regular_file(cases) else _read_once(cases, "cases", read)
    with source as fh, paused_gc():
        found = [case for _, case in iter_cases(cases, table, passages_name, fh=fh)]
    if not found:
        raise InputError(empty_cases_message(cases))
    return found


class _Keeping:
    """A stream read line by line that keeps every byte read, up to :data:`MAX_DOCUMENT_BYTES`."""

    def __init__(self, fh: BinaryIO, path: PathLike):
        self.fh, self.path, self.parts, self.size = fh, path, [], 0

    def readline(self, limit: int = -1) -> bytes:
        raw = self.fh.readline(limit)
        self.size += len(raw)
        if self.size > MAX_DOCUMENT_BYTES:
            raise InputError(f"{_display(self.path)} is larger than {_mb(MAX_DOCUMENT_BYTES)}, more than groundlab "
                             "keeps in memory from a stream; save it to a file and pass its path.")
        self.parts.append(raw)
        return raw

    def read(self) -> bytes:
        return b"".join(self.parts)


@contextlib.contextmanager
def _read_once(path: PathLike, what: str, read: Dict[str, bytes]) -> Iterator[BinaryIO]:
    """``path`` to read: from ``read`` when it was read already, else opened and kept there once
    read to its end without an error."""
    key = os.fspath(path)
    if key in read:
        yield io.BytesIO(read[key])  # type: ignore[misc]
        return
    with open_input(path, what) as fh:
        kept = _Keeping(fh, path)
        yield kept  # type: ignore[misc]
        read[key] = kept.read()


def iter_cases(path: PathLike, table: Optional[Mapping[str, Passage]], passages_name: str,
               span: Optional[Span] = None, records: Optional[List[dict]] = None,
               fh: Optional[BinaryIO] = None, check_ids: bool = True) -> Iterator[Tuple[int, Case]]:
    """``(line number, case)`` for each case of ``path`` (or of a ``span`` of it, or read from
    ``fh`` as :func:`iter_jsonl`), checked; an :class:`InputError` carries the ``line`` it stopped
    at. ``records``, when given, gets each line's JSON object as written. ``check_ids=False``
    leaves a repeated case id to the caller (which may check fingerprints instead of keeping
    every id, :func:`groundlab.evaluate.count_file`)."""
    seen: Dict[str, int] = {}
    if not check_ids:
        seen = _Forgetful()  # type: ignore[assignment]
    name = _display(path)
    for number, obj in iter_jsonl(path, "cases", span, fh):
        if records is not None:
            records.append(obj)
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


class _Forgetful(dict):
    """A dict that keeps nothing: ids are not remembered, so no id is ever seen twice."""

    def __setitem__(self, key, value) -> None:
        pass


def find_repeated_id(path: PathLike, fingerprints: "set",
                     fingerprint: Callable[[str], int]) -> Optional[Tuple[int, str]]:
    """``(line, sentence)`` for the first case of a regular file whose id an earlier line used,
    looking only at ids whose fingerprint is among ``fingerprints`` (those counted twice); ``None``
    when none repeats after all (two ids that share a fingerprint)."""
    first: Dict[str, int] = {}
    try:
        for number, obj in iter_jsonl(path, "cases"):
            cid = obj.get("id")
            if not isinstance(cid, str) or fingerprint(cid) not in fingerprints:
                continue
            if cid in first:
                return number, duplicate_id_message(f"{_display(path)} line {number} (case {cid})", cid, first[cid])
            first[cid] = number
    except InputError:  # a bad line after the ids read: the caller reports it
        pass
    return None


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
                         f"{_json_value(answerable)}.")
    labels = obj.get("labels")
    if labels is not None:
        labels = parse_labels(labels, where)
    process = obj.get("process")
    if process is not None and (not isinstance(process, str) or not process.strip()):
        raise InputError(f"{where}: \"process\" must be a non-empty string like \"procure-to-pay\" or absent, "
                         f"not {json.dumps(process)}.")
    meta = obj.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise InputError(f"{where}: \"meta\" must be a JSON object like {{\"model\": \"v3\"}} or absent, "
                         f"not {_json_type(meta)}.")
    aliases = obj.get("aliases")
    if aliases is not None:
        aliases = _aliases(aliases, found, where)
    named = {field: named_value(field, obj.get(field), where) for field in ("classification", "origin")}
    return Case(cid, obj["question"], tuple(found), obj["answer"], answerable, labels, source,
                process=process, meta=meta or None, aliases=aliases, **named)


def named_value(field: str, value: Any, where: str = "") -> Optional[str]:
    """A case's ``classification`` or ``origin`` as every reader takes it (a cases file, a guard
    record, a library call): a non-empty string, the spaces around it dropped (``"confidential "``
    is ``confidential``), or ``None`` when absent; anything else is one sentence."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        example = "confidential" if field == "classification" else "incident"
        raise InputError(f"{where + ': ' if where else ''}\"{field}\" must be a non-empty string like "
                         f"\"{example}\" or absent, not {json.dumps(value) if _jsonable(value) else _json_type(value)}.")
    return value.strip()


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _aliases(aliases: object, retrieved: Sequence[Passage], where: str) -> Optional[Dict[str, str]]:
    """``{"P1": "KB-101"}``: each name the answer cites a retrieved passage by, and that passage's id."""
    if not isinstance(aliases, dict):
        raise InputError(f"{where}: \"aliases\" must be an object like {{\"P1\": \"KB-101\"}} (a name the "
                         f"answer cites, and the id of the retrieved passage it means), not {_json_type(aliases)}.")
    ids = {p.id for p in retrieved}
    for name, pid in aliases.items():
        if not isinstance(pid, str) or pid not in ids:
            raise InputError(f"{where}: alias {name!r} points to {_json_value(pid)}, which is not the id of a "
                             "retrieved passage; fix the alias or drop it.")
        if name in ids:
            raise InputError(f"{where}: alias {name!r} is also the id of a retrieved passage, so a citation of it "
                             "would be ambiguous; drop the alias.")
    return dict(aliases) or None


def _json_value(value: object) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


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


def sample_path(name: str = "") -> Path:
    """Path of the sample set shipped inside the package (``notes.jsonl``, ``grounded_cases.jsonl``)."""
    return Path(__file__).parent.parent / "data" / name


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
