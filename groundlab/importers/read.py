"""Read an input into records, whatever it was saved as: JSON Lines, one JSON document (an
object or an array), CSV, Parquet, an Arrow file, a Hugging Face dataset folder
(``save_to_disk``), a pandas DataFrame or a list of dicts.

The kind is told from the content, not the name: Parquet and Arrow by their magic bytes, JSON by
its first character, JSON Lines from a first line that is a whole JSON object; anything else is
read as CSV. ``-`` reads standard input, and a pipe is read like a file.
"""

from __future__ import annotations

import json
from io import BytesIO
from pathlib import Path
from typing import Any, BinaryIO, List, Optional, Sequence

from ..core.io import (MAX_LINE_BYTES, PathLike, _json_type, decode_text, display_name, is_stdin, jsonl_objects,
                       long_number_message, nesting_message, open_input, parse_csv, read_bytes, wide_encoding)
from ..core.frames import read_parquet
from ..core.records import InputError
from ..core.rows import read_table  # noqa: F401 (its older home)
from .common import Source, columns_of, plain

#: Bytes read to tell what an input is.
SNIFF = 65536


class _Prefixed:
    """A binary stream with ``prefix`` (bytes already read from it) put back in front."""

    def __init__(self, prefix: bytes, rest: Any) -> None:
        self._prefix = prefix
        self._at = 0
        self._rest = rest

    def readline(self, limit: int = -1) -> bytes:
        if self._at < len(self._prefix):
            end = self._prefix.find(b"\n", self._at)
            end = len(self._prefix) if end < 0 else end + 1
            if limit >= 0:
                end = min(end, self._at + limit)
            line = self._prefix[self._at:end]
            self._at = end
            if line.endswith(b"\n") or (0 <= limit <= len(line)) or self._at < len(self._prefix):
                return line
            return line + self._rest.readline(limit - len(line) if limit >= 0 else -1)
        return self._rest.readline(limit)

    def read(self, size: int = -1) -> bytes:
        head = self._prefix[self._at:] if size < 0 else self._prefix[self._at:self._at + size]
        self._at += len(head)
        if size < 0:
            return head + self._rest.read()
        return head + (self._rest.read(size - len(head)) if size > len(head) else b"")


def read_input(path: PathLike) -> Source:
    """The records of the file at ``path`` (``-``: standard input)."""
    name = display_name(path)
    if not is_stdin(path) and Path(path).is_dir():
        return read_folder(Path(path))
    with open_input(path, "input") as fh:
        head = fh.read(SNIFF)
        wide = wide_encoding(head)
        if wide is not None:  # a UTF-16 (or UTF-32) export: read as text, then as any other
            data = read_bytes(path, "input", head, fh)
            try:
                text = data.decode(wide.lower()).lstrip("\ufeff")
            except UnicodeDecodeError as exc:
                raise InputError(f"{name} starts as {wide} text but byte {exc.start} is not {wide}; save it as "
                                 "UTF-8 and run again.") from None
            data = text.encode("utf-8")
            fh = BytesIO(data)
            head = fh.read(SNIFF)
        if head.startswith(b"PAR1"):
            return _parquet(path, name, head, fh)
        if head.startswith(b"ARROW1") or head.startswith(b"\xff\xff\xff\xff"):
            data = read_bytes(path, "input", head, fh)
            return _arrow_table(_arrow_from(data, name), name)
        if b"\0" in head:
            raise InputError(f"{name} holds binary data, not JSON Lines, JSON, CSV or Parquet; pass the "
                             "export file itself (see 'groundlab import --help' for the formats read).")
        start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        if not start and not head:
            raise InputError(f"{name} is empty; nothing was read.")
        stream = _Prefixed(head, fh)
        if start == b"{":
            consumed = []
            line = b""
            while True:
                line = stream.readline(MAX_LINE_BYTES + 1)
                consumed.append(line)
                if not line or line.strip():
                    break
            replay = _Prefixed(b"".join(consumed), stream)
            if _is_object_line(line):
                records = list(jsonl_objects(replay, name))
                doc = records[0][1] if len(records) == 1 else None  # one line may be a whole document
                return Source(name, "jsonl", "line", records, columns_of(r for _, r in records), doc=doc)
            return _document(decode_text(read_bytes(path, "input", b"", replay), path), name)
        text = decode_text(read_bytes(path, "input", b"", stream), path)
    if start == b"[":
        return _document(text, name)
    columns, found = parse_csv(text, name, identical_repeats=True)
    return Source(name, "csv", "row", found, columns, cells=True)


def _is_object_line(line: bytes) -> bool:
    if len(line) > MAX_LINE_BYTES:
        return False
    try:
        return isinstance(json.loads(line.decode("utf-8-sig")), dict)
    except RecursionError:
        return True  # a whole line, nested too deeply: read as JSON Lines, which names the line
    except json.JSONDecodeError:
        return False
    except ValueError:
        return True  # a JSON line with a whole number too long to read: JSON Lines names the line


def _document(text: str, name: str) -> Source:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name} line {exc.lineno} is not valid JSON ({exc.msg} at column {exc.colno}); "
                         "it must be one JSON document, or JSON Lines (one object a line).") from None
    except RecursionError:
        raise InputError(nesting_message(name)) from None
    except ValueError:
        raise InputError(long_number_message(name)) from None
    if isinstance(doc, dict):
        return Source(name, "json", "record", [(1, doc)], list(doc), doc=doc)
    if not isinstance(doc, list):
        raise InputError(f"{name} is {_json_type(doc)}, not a JSON object or array of objects.")
    for k, item in enumerate(doc, 1):
        if not isinstance(item, dict):
            raise InputError(f"{name} item {k} is {_json_type(item)}, not a JSON object; a JSON array must hold "
                             "one object per record.")
    records = list(enumerate(doc, 1))
    return Source(name, "json", "item", records, columns_of(doc))


def _pyarrow(name: str):
    try:
        import pyarrow
        import pyarrow.ipc  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        raise InputError(f"reading {name} needs pyarrow; install it with 'pip install pyarrow'.") from None
    return pyarrow


def _parquet(path: PathLike, name: str, head: bytes, fh: BinaryIO) -> Source:
    pa = _pyarrow(name)
    data = read_bytes(path, "input", head, fh)
    try:
        table = read_parquet(data)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{name} is not a readable Parquet file ({exc}); write it again.") from None
    return _arrow_table(table, name)


def _arrow_from(data: bytes, name: str):
    pa = _pyarrow(name)
    for opener in (pa.ipc.open_stream, pa.ipc.open_file):
        try:
            return opener(pa.BufferReader(data)).read_all()
        except (pa.ArrowException, OSError):
            continue
    raise InputError(f"{name} is not a readable Arrow file; write it again.")


def _arrow_table(table, name: str) -> Source:
    columns = [c for c in table.column_names if not c.startswith("__index_level_")]
    records = [{k: plain(v) for k, v in row.items() if k in columns} for row in table.select(columns).to_pylist()]
    return Source(name, "parquet", "row", list(enumerate(records, 1)), columns)


def read_folder(path: Path) -> Source:
    """A Hugging Face dataset saved with ``save_to_disk``: Arrow stream files listed in
    ``state.json``; anything else is refused with what to pass instead."""
    name = str(path)
    if (path / "dataset_dict.json").is_file():
        splits = sorted(p.name for p in path.iterdir() if p.is_dir())
        raise InputError(f"{name} holds several splits of a Hugging Face dataset ({', '.join(splits)}); import "
                         f"one split's folder, e.g. {path / (splits[0] if splits else 'train')}.")
    files: List[Path] = []
    state = path / "state.json"
    if state.is_file():
        try:
            listed = json.loads(state.read_text(encoding="utf-8")).get("_data_files", [])
            files = [path / item["filename"] for item in listed]
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            files = []
    if not files:
        files = sorted(path.glob("*.arrow"))
    if not files and not state.is_file():
        documents = sorted(p for p in path.iterdir() if p.suffix.lower() == ".json" and p.is_file())
        if documents:
            return _json_files(path, documents)
    if not files or not all(f.is_file() for f in files):
        raise InputError(f"{name} is a folder; pass the export file itself, a folder of JSON files (one response "
                         "a file), or a folder written by a Hugging Face dataset's save_to_disk (it holds state.json "
                         "and .arrow files).")
    pa = _pyarrow(name)
    tables = []
    for file in files:
        with open(file, "rb") as fh:
            tables.append(_arrow_from(fh.read(), str(file)))
    return _arrow_table(pa.concat_tables(tables), name)


def _json_files(path: Path, documents: Sequence[Path]) -> Source:
    """A folder of JSON documents, one record a file (a file holding an array gives one record an
    item), named by their file names, in the order of the names."""
    records: List[tuple] = []
    refs = {}
    for file in documents:
        with open_input(file, "input") as fh:
            text = decode_text(read_bytes(file, "input", b"", fh), file)
        if not text.strip():
            raise InputError(f"{file} is empty; remove it from the folder or write it again.")
        doc = _document(text, str(file))
        for k, record in doc.records:
            number = len(records) + 1
            records.append((number, record))
            refs[number] = f"file {file.name}" + (f" item {k}" if doc.unit == "item" else "")
    return Source(str(path), "folder", "file", records, columns_of(r for _, r in records), refs=refs)


def unwrap(src: Source, keys: Sequence[str]) -> Optional[Source]:
    """The records held under ``keys`` of a JSON document (``["results", "results"]``), if any."""
    if src.doc is None:
        return None
    value: object = src.doc
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    if not isinstance(value, list):
        return None
    return src.part(keys, value)
