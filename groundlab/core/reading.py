"""Read an input's bytes and lines: standard input (``-``) or a file (a pipe too), checked to be
UTF-8 text, JSON Lines a line at a time, CSV with its header, each within groundlab's limits on
the size of a line, a file and a document.

Every problem is raised as :class:`~groundlab.records.InputError` with one sentence naming the
input and the line. What the lines hold (cases, passages) is read by :mod:`groundlab.core.io`.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO, ContextManager, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from .records import InputError
from .rows import _json_type

PathLike = Union[str, "os.PathLike[str]"]

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
    # The header ends at the first line break of any kind: a sheet saved by Excel for Mac's "CSV
    # (Macintosh)" ends its lines with a carriage return alone.
    header_line = re.split(r"\r\n|\r|\n", text, 1)[0]
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

