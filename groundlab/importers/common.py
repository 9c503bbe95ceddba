"""What every importer shares: the record a row becomes (:class:`Draft`), the sentence a row
that cannot be used gets (:class:`RowError`), and the readers of the values tools write: text,
lists written into CSV cells (JSON, Python or numpy's form), passages, ids and extra fields."""

from __future__ import annotations

import ast
import io
import json
import math
import tokenize
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from ..core.io import _json_type
from ..core.rows import Source, columns_of, plain  # noqa: F401 (the importers take them from here)

#: The case fields ``--map`` may point at other columns.
MAP_FIELDS: Tuple[str, ...] = ("id", "question", "answer", "retrieved", "retrieved_ids", "answerable", "labels",
                                "classification")


class RowError(Exception):
    """A row that cannot become a case; the message is a clause naming the field and the fix."""


@dataclass
class Draft:
    """A case as a tool's row (or trace) gives it, before ids are settled.

    ``passages``: ``{"id": str or None, "text": str, ...}`` in retrieval order (``None``: the
    tool keeps no id). ``ref`` names the row within the file (``line 3``, ``trace 0xc9af…``)."""

    ref: str
    question: str
    answer: str
    passages: List[dict]
    id: Optional[str] = None
    meta: Dict[str, Any] = field(default_factory=dict)
    answerable: Optional[bool] = None
    labels: Optional[List[str]] = None


@dataclass
class Bad:
    """A row that cannot be used: where it is and why (a clause without a final period)."""

    ref: str
    reason: str


Item = Union[Draft, Bad]


def rows(src: Source, convert: Callable[[dict, str], Draft]) -> Iterator[Item]:
    """``convert(record, ref)`` for every record; a :class:`RowError` becomes a :class:`Bad`."""
    for number, obj in src.records:
        ref = src.ref(number)
        try:
            yield convert(obj, ref)
        except RowError as error:
            yield Bad(ref, str(error))


# ---------------------------------------------------------------- values


def present(value: object) -> bool:
    """Not absent: neither ``None``, NaN nor blank text."""
    if value is None:
        return False
    if isinstance(value, float) and math.isnan(value):
        return False
    return not (isinstance(value, str) and not value.strip())


def get(obj: Mapping, path: Optional[str]) -> Any:
    """``obj[path]``, or, when no key is named so, the value at the dotted ``path``
    (``vars.query``, ``metadata.id``); ``None`` when there is none."""
    if path is None:
        return None
    if path in obj:
        return obj[path]
    value: Any = obj
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def has(obj: Mapping, path: str) -> bool:
    return path in obj or (("." in path) and get(obj, path) is not None)


def text(value: object, name: str, role: str = "value") -> str:
    """A field that must hold text (``role``: the question or the answer), named ``name``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise RowError(f"\"{name}\" is empty; the row holds no {role}")
    if not isinstance(value, str):
        raise RowError(f"\"{name}\" must be text, not {_json_type(value)}")
    if not value.strip():
        raise RowError(f"\"{name}\" is empty; fill it in or drop the row")
    return value


def question_text(value: object, name: str) -> str:
    return text(value, name, "question")


def answer_text(value: object, name: str) -> str:
    return text(value, name, "answer")


def case_id(value: object) -> Optional[str]:
    """A given id as text (a whole number is read as text: logs often use them); ``None`` when absent."""
    return passage_id(value, "\"id\"")


def passage_id(value: object, where: str) -> Optional[str]:
    """An id as text, a whole number read as text; ``None`` when absent; ``where`` names the field."""
    if not present(value):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise RowError(f"{where} must be a string or a whole number, not {_json_type(value)}")
    return str(value).strip()


def parse_json_cell(value: object) -> object:
    """A CSV cell that holds a JSON or Python value (``{"model": "v3"}``), read; other text as it is."""
    if not isinstance(value, str) or value[:1] not in "[{":
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            return value


def list_cell(cell: str, name: str) -> list:
    """A list written into a CSV cell: as JSON (``["a", "b"]``), as Python (``['a', 'b']``, what
    ``pandas.DataFrame.to_csv`` writes) or as numpy writes an array (``['a'\\n 'b']``: no
    commas, which Python would read as one string, so the items are taken token by token)."""
    body = cell.strip()
    try:
        value = json.loads(body)
    except ValueError:
        value = None
    except RecursionError:
        raise RowError(f"\"{name}\" nests lists more deeply than groundlab reads") from None
    if isinstance(value, list):
        return value
    items = _literal_items(body, name)
    if items is not None:
        return items
    try:
        value = ast.literal_eval(body)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        value = None
    if isinstance(value, (list, tuple)):
        return list(value)
    raise RowError(f"\"{name}\" must be a list of strings, written in a CSV cell as JSON [\"...\", \"...\"] or Python "
                   f"['...', '...'], not {preview(body)}")


_SKIP = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER, tokenize.COMMENT}


def _literal_items(body: str, _name: str = "the cell") -> Optional[list]:
    """The items of ``[lit, lit, ...]`` or numpy's ``[lit lit ...]``, each literal on its own;
    ``None`` when ``body`` is not such a flat list."""
    if not (body.startswith("[") and body.endswith("]")):
        return None
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(body).readline) if t.type not in _SKIP]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    if len(tokens) < 2 or tokens[0].string != "[" or tokens[-1].string != "]":
        return None
    inner = tokens[1:-1]
    items, commas, previous_item = [], 0, False
    for token in inner:
        if token.type == tokenize.OP and token.string == ",":
            if not previous_item:
                return None
            commas += 1
            previous_item = False
        elif token.type == tokenize.OP and token.string == "...":
            raise RowError("the cell holds numpy's shortened form of a long list (with \"...\"), which has lost "
                           "items; export the data with to_json or to_parquet instead of to_csv")
        elif token.type in (tokenize.STRING, tokenize.NUMBER) or (
                token.type == tokenize.NAME and token.string in ("None", "True", "False")):
            if previous_item and commas:
                return None  # "a" "b" inside a list with commas: not a form we read item by item
            try:
                items.append(ast.literal_eval(token.string))
            except (ValueError, SyntaxError, MemoryError):  # a number of more than 4,300 digits
                raise RowError(f"\"{_name}\" holds a number too long to read ({preview(token.string)}); write "
                               "it as a string, in quotes") from None
            previous_item = True
        else:
            return None
    if commas and commas not in (len(items), len(items) - 1):
        return None
    return items


def preview(value: object, width: int = 40) -> str:
    text_ = value if isinstance(value, str) else repr(value)
    return repr(text_ if len(text_) <= width else text_[:width] + "...")


def texts_list(value: object, name: str, cells: bool) -> list:
    """A list field (passages, their ids): a list, or in a CSV cell a list written as text."""
    if isinstance(value, str) and cells:
        return list_cell(value, name)
    if isinstance(value, tuple):
        return list(value)
    if not isinstance(value, list):
        raise RowError(f"\"{name}\" must be a list of strings, not {_json_type(value)}")
    return value


#: Keys under which tools keep a passage's text, and its id, in a passage object.
TEXT_KEYS = ("text", "page_content", "content", "document.content", "context", "document", "chunk")
ID_KEYS = ("id", "metadata.id", "document.id", "doc_id", "metadata.doc_id", "document_id", "metadata.document_id",
           "source_id", "source")


def passage(item: object, k: int, name: str) -> dict:
    """A passage from a list entry: its text, or an object holding it (``{"id", "text"}``,
    LangChain's ``{"page_content", "metadata": {"id"}}``, OpenInference's ``document.*``)."""
    if isinstance(item, str):
        return {"id": None, "text": item}
    if isinstance(item, Mapping):
        nested = item.get("document") if isinstance(item.get("document"), Mapping) else None
        body = nested if nested is not None else item
        text_ = next((get(body, key) for key in TEXT_KEYS if isinstance(get(body, key), str)), None)
        if text_ is None:
            raise RowError(f"\"{name}\" entry {k} needs its text (a \"text\" or \"page_content\" field); add it")
        pid = next((get(body, key) for key in ID_KEYS if present(get(body, key))), None)
        out = {"id": passage_id(pid, f"the id of \"{name}\" entry {k}"), "text": text_}
        score = get(body, "score")
        if score is None:
            score = get(body, "document.score")
        if isinstance(score, (int, float)) and not isinstance(score, bool) and present(score):
            out["score"] = score
        return out
    raise RowError(f"\"{name}\" entry {k} must be a string, not {_json_type(item)}")


def passages(values: Sequence[object], name: str) -> List[dict]:
    return [passage(item, k, name) for k, item in enumerate(values, 1)]


def split_blank_lines(value: str) -> List[str]:
    """Passages a tool joined with a blank line (Phoenix, promptfoo), split again."""
    parts = [p.strip("\n") for p in value.replace("\r\n", "\n").split("\n\n")]
    return [p for p in parts if p.strip()]


def meta_of(obj: Mapping, used: Iterable[str], drop: Iterable[str] = ()) -> Dict[str, Any]:
    """The fields of a row that are not its case fields: kept in ``meta``, empty ones left out."""
    skip = set(used) | set(drop) | {""}
    return {k: v for k, v in obj.items() if k not in skip and present(v) and v not in ([], {})}


def pick_text(value: object, keys: Sequence[str]) -> Optional[str]:
    """The text in a tool's ``inputs``/``outputs`` value: the string itself, a JSON string of an
    object, the first of ``keys`` that holds text, the only string field, or a chat message's
    ``content`` (the last one of a list of messages)."""
    if isinstance(value, str):
        if value[:1] == "{":
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                return value
            if isinstance(parsed, dict):
                found = pick_text(parsed, keys)
                return found if found is not None else value
        return value
    if isinstance(value, list) and value:
        for item in reversed(value):
            found = pick_text(item, keys) if isinstance(item, (dict, str)) else None
            if found is not None:
                return found
        return None
    if isinstance(value, Mapping):
        for key in keys:
            if key in value:
                found = pick_text(value[key], keys)
                if found is not None:
                    return found
        strings = [v for v in value.values() if isinstance(v, str)]
        if len(strings) == 1:
            return strings[0]
    return None


QUESTION_KEYS = ("question", "query", "input", "user_input", "prompt", "content", "text")
ANSWER_KEYS = ("answer", "output", "response", "result", "content", "text", "generation", "completion")


def by_trace(src: Source, key: Callable[[dict], object], build: Callable[[str, List[dict], str], Draft],
             noun: str = "trace", field: str = '"trace_id"') -> Iterator[Item]:
    """``build(trace id, its records, ref)`` for the records of ``src`` grouped by ``key(record)``
    (a trace id), in the order each trace first appears; the ref names the trace and the line of
    its first record, ``trace 0xc9af… (line 3)``. A record without a trace id is a :class:`Bad`
    naming its line and ``field`` (the id's field, quoted), in its place among the traces."""
    groups: Dict[str, List[Tuple[int, dict]]] = {}
    order: List[Union[str, Bad]] = []
    for number, obj in src.records:
        value = key(obj)
        if present(value):
            trace_id = str(value)
            if trace_id not in groups:
                groups[trace_id] = []
                order.append(trace_id)
            groups[trace_id].append((number, obj))
        else:
            order.append(Bad(src.ref(number), f"the record has no {field}, so it belongs to no {noun}; give it "
                                              f"the id of its {noun}"))
    for entry in order:
        if isinstance(entry, Bad):
            yield entry
            continue
        records = groups[entry]
        ref = f"{noun} {entry} ({src.unit} {records[0][0]})"
        try:
            yield build(entry, [obj for _, obj in records], ref)
        except RowError as error:
            yield Bad(ref, str(error))


def read_cells(obj: dict, cells: bool) -> dict:
    """A record whose CSV cells may hold JSON or Python values, with those values read."""
    return {k: parse_json_cell(v) for k, v in obj.items()} if cells else obj


def set_ids(found: List[dict], value: object, name: str, cells: bool) -> None:
    """Give ``found`` passages the ids a separate list holds (``retrieved_context_ids``), one per
    passage in the same order."""
    ids = texts_list(value, name, cells)
    if len(ids) != len(found):
        raise RowError(f"\"{name}\" holds {len(ids)} ids for {len(found)} passages; give one id per passage, in "
                       "the same order")
    for k, (item, pid) in enumerate(zip(found, ids), 1):
        item["id"] = passage_id(pid, f"\"{name}\" entry {k}")


def flat(obj: Mapping, prefix: str = "", depth: int = 0) -> Dict[str, Any]:
    """Nested objects as one level of dotted keys (``{"input": {"value": x}}`` →
    ``{"input.value": x}``); lists stay as they are."""
    out: Dict[str, Any] = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and depth < 20:
            out.update(flat(value, name + ".", depth + 1))
        else:
            out[name] = value
    return out


def require(src: Source, required: Sequence[str], what: str) -> None:
    """Refuse the whole input when no record has one of the ``required`` fields (a CSV whose
    header lacks the column): that is the file, not a row, to fix."""
    for column in required:
        if column in src.columns or any(get(obj, column) is not None for _, obj in src.records[:1000]):
            continue
        from ..core.records import InputError

        if src.cells:
            raise InputError(f"{src.name} row 1 has no column {column!r}; the first row must name the columns, "
                             f"including {', '.join(required)}.")
        raise InputError(f"{src.name or 'the input'} has no field {column!r} in any record; {what} needs "
                         f"{', '.join(required)} (map another field with --map).")
