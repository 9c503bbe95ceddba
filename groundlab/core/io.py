"""Read and check cases and passages in groundlab's own format (JSON Lines, or rows of a
DataFrame or list), each case with its passages looked up, its labels and fields checked.

Every problem with an input file is raised as :class:`~groundlab.records.InputError` with one
sentence naming the file, the line (and case id when known) and what to do about it. Reading the
bytes and lines of an input is :mod:`groundlab.core.reading`'s; writing files safely is
:mod:`groundlab.core.files`'; both are named here too, as they always were.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import (TYPE_CHECKING, Any, BinaryIO, Callable, Dict, Iterable, Iterator, List, Mapping, Optional,
                    Sequence, Tuple, Union)

from . import reading as _reading
from ._gc import paused_gc
from .files import (check_output, input_mode, json_line, narrower_umask, new_file_mode, outputs_like,  # noqa: F401
                    replace_atomic, sha256_file, sha256_text, write_atomic)
from .reading import (IMPORT_HINT, MAX_DOCUMENT_BYTES, MAX_LINE_BYTES, MAX_LINES, STDIN, PathLike,  # noqa: F401
                      Span, _display, _line_error, _mb, decode_text, display_name, is_regular_file,
                      is_stdin, iter_jsonl, json_problem, jsonl_objects, long_number_message, nesting_message,
                      open_input, parse_csv, plural, read_bytes, read_csv, read_text, split_file, wide_encoding,
                      wide_text_message)
from .records import VERDICTS, Case, InputError, Passage
from .rows import _json_type, read_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

_CASE_FIELDS = ("id", "question", "retrieved", "answer")


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
        if self.size > _reading.MAX_DOCUMENT_BYTES:
            raise InputError(f"{_display(self.path)} is larger than {_mb(_reading.MAX_DOCUMENT_BYTES)}, more than groundlab "
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


def sample_path(name: str = "") -> Path:
    """Path of the sample set shipped inside the package (``notes.jsonl``, ``grounded_cases.jsonl``)."""
    return Path(__file__).parent.parent / "data" / name
