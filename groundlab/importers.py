"""Turn what an application logged into a cases file: Ragas-style samples and production answer logs.

Both importers write cases with the passages inline (``{"id", "text"}``): the evidence the
assistant actually received, never a fresh search. Every row is checked before anything is
written; the first problem stops the import with one sentence naming the row and the field.

- ``ragas``: JSONL or CSV rows with ``user_input``, ``retrieved_contexts`` (a list of strings)
  and ``response``, the column names of a Ragas single-turn sample. Passages get the ids
  ``P1..Pn`` within each case, so an answer can cite them as ``[P1]``. An ``id`` column, when
  there is one, gives the case ids; otherwise they are ``r1, r2, ...`` in file order.
- ``log``: JSONL records ``{"id"?, "question", "passages": [text | {"id", "text"}], "answer"}``,
  optionally with ``answerable`` and ``labels``. Ids are kept where given; a passage without
  one gets ``P<its position>``, a record without one ``r<its position>``.

Any other field of a row is kept, unchanged, under the case's ``meta`` object, so nothing the
application logged is lost (timestamps, model names, Ragas ``reference`` answers).

>>> import json
>>> record = {"question": "Who releases the order?", "passages": ["The analyst releases it."],
...           "answer": "The analyst releases it [P1]."}
>>> cases = cases_from_log([(1, record)], "log.jsonl")
>>> json.dumps(cases[0])
'{"id": "r1", "question": "Who releases the order?", "retrieved": [{"id": "P1", "text": "The analyst releases it."}], "answer": "The analyst releases it [P1]."}'
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from .claims import ClaimSplitter
from .io import (PathLike, _json_type, check_output, iter_jsonl, parse_labels, plural, read_csv, read_text,
                 write_atomic)
from .records import InputError

FORMATS: Tuple[str, ...] = ("ragas", "log")

RAGAS_COLUMNS: Tuple[str, ...] = ("user_input", "retrieved_contexts", "response")

Row = Tuple[int, dict]


@dataclass(frozen=True)
class ImportReport:
    """What an import read and wrote."""

    rows: int
    cases: int
    passages: int
    answered: int  # cases whose answer holds a claim
    without_citations: int  # of those, the ones that cite no passage
    source: Path
    out: Path

    def __str__(self) -> str:
        if self.answered and self.without_citations == self.answered:
            note = "; no answer cites a passage, so the citation measures will say \"no citations\""
        elif self.without_citations:
            note = (f"; {self.without_citations} of {self.answered} answers cite no passage, so their claims "
                    "count as not backed by a citation")
        else:
            note = ""
        return (f"read {plural(self.rows, 'row', 'rows')} from {self.source}; wrote "
                f"{plural(self.cases, 'case', 'cases')} with {plural(self.passages, 'passage', 'passages')} "
                f"inline to {self.out}{note}.")


def read_rows(path: PathLike, fmt: str) -> Tuple[List[Row], str]:
    """The rows of an input file and how to name one in a message (``line`` or ``row``).

    A ``.csv`` file (or, for any other name, one whose first character is not ``{``) is read
    as CSV; anything else as JSONL. Only the ``ragas`` format comes as CSV.
    """
    path = Path(path)
    if fmt not in FORMATS:
        raise InputError(f"there is no import format {fmt!r}; use one of: {', '.join(FORMATS)}.")
    as_csv = path.suffix.lower() == ".csv" or (
        path.suffix.lower() not in (".jsonl", ".json", ".ndjson")
        and not read_text(path, "input").lstrip().startswith("{"))
    if as_csv:
        if fmt != "ragas":
            raise InputError(f"{path} is read as CSV, but a {fmt} file must be JSONL (one JSON object "
                             "a line); convert it, or import it with the ragas format.")
        _, rows = read_csv(path, "input", RAGAS_COLUMNS)
        return rows, "row"
    return list(iter_jsonl(path, "input")), "line"


def cases_from_ragas(rows: Iterable[Row], name: str, unit: str = "line") -> List[dict]:
    """Cases from Ragas single-turn samples (see the module docstring).

    ``unit`` names a row in messages: ``"line"`` for JSONL, ``"row"`` for CSV, whose cells are
    text (so ``retrieved_contexts`` is parsed from its JSON or Python list form).
    """
    rows = list(rows)
    has_ids = any(_present(obj.get("id")) for _, obj in rows)
    cases = []
    for k, (number, obj) in enumerate(rows, 1):
        where = f"{name} {unit} {number}"
        for column in RAGAS_COLUMNS:
            if column not in obj:
                raise InputError(f"{where}: the field \"{column}\" is missing; a Ragas sample needs "
                                 f"{', '.join(RAGAS_COLUMNS)}.")
        case_id = _case_id(obj.get("id"), where) if has_ids else f"r{k}"
        if case_id is None:
            raise InputError(f"{where}: \"id\" is empty while other rows have one; give every row an id "
                             "or leave the column out.")
        contexts = _contexts(obj["retrieved_contexts"], where, cell=unit == "row")
        retrieved = [{"id": f"P{i}", "text": text} for i, text in enumerate(contexts, 1)]
        case = _case(case_id, _text(obj["user_input"], "user_input", where), retrieved,
                     _text(obj["response"], "response", where))
        _keep_rest(case, obj, RAGAS_COLUMNS + ("id",))
        cases.append(case)
    _check_unique(cases, rows, name, unit)
    return cases


def cases_from_log(rows: Iterable[Row], name: str, unit: str = "line",
                   splitter: Optional[ClaimSplitter] = None) -> List[dict]:
    """Cases from an application's answer log (see the module docstring)."""
    rows = list(rows)
    splitter = splitter or ClaimSplitter()
    cases = []
    for k, (number, obj) in enumerate(rows, 1):
        where = f"{name} {unit} {number}"
        for field in ("question", "passages", "answer"):
            if field not in obj:
                raise InputError(f"{where}: the field \"{field}\" is missing; a logged answer needs "
                                 "question, passages and answer (id is optional).")
        case_id = _case_id(obj.get("id"), where) or f"r{k}"
        case = _case(case_id, _text(obj["question"], "question", where), _passages(obj["passages"], where),
                     _text(obj["answer"], "answer", where))
        answerable = obj.get("answerable")
        if answerable is not None:
            if not isinstance(answerable, bool):
                raise InputError(f"{where}: \"answerable\" must be true, false or absent, not "
                                 f"{json.dumps(answerable)}.")
            case["answerable"] = answerable
        if obj.get("labels") is not None:
            labels = parse_labels(obj["labels"], where)
            claims = splitter.split(case_id, case["answer"]).claims
            if len(labels) != len(claims):
                raise InputError(f"{where}: {len(labels)} label(s) for the answer's {len(claims)} claim(s); "
                                 "give one label per claim, in order, or leave \"labels\" out.")
            case["labels"] = list(labels)
        _keep_rest(case, obj, ("id", "question", "passages", "answer", "answerable", "labels"))
        cases.append(case)
    _check_unique(cases, rows, name, unit)
    return cases


def import_cases(fmt: str, path: PathLike, out: PathLike, *, force: bool = False,
                 splitter: Optional[ClaimSplitter] = None) -> ImportReport:
    """Read ``path`` in format ``fmt``, check every row, and write the cases to ``out`` (atomically).

    Nothing is written when a row is wrong, when ``out`` exists (unless ``force``) or when it is
    the input itself.
    """
    path, out = Path(path), Path(out)
    check_output(out, force, inputs=[path])
    rows, unit = read_rows(path, fmt)
    if not rows:
        raise InputError(f"{path} holds no rows; nothing was written.")
    splitter = splitter or ClaimSplitter()
    if fmt == "ragas":
        cases = cases_from_ragas(rows, str(path), unit)
    else:
        cases = cases_from_log(rows, str(path), unit, splitter)
    write_atomic(out, "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases))
    splits = [splitter.split(c["id"], c["answer"]).claims for c in cases]
    answered = sum(1 for claims in splits if claims)
    without = sum(1 for claims in splits if claims and not any(claim.cites for claim in claims))
    return ImportReport(len(rows), len(cases), sum(len(c["retrieved"]) for c in cases), answered, without,
                        path, out)


# ---------------------------------------------------------------- checks of one row


def _present(value: object) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


def _case_id(value: object, where: str) -> Optional[str]:
    """A given id as a string (numbers are accepted: logs often use them); ``None`` when absent."""
    if not _present(value):
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"{where}: \"id\" must be a string or a whole number, not {_json_type(value)}.")
    return str(value).strip()


def _text(value: object, field: str, where: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{where}: \"{field}\" must be text, not {_json_type(value)}.")
    if not value.strip():
        raise InputError(f"{where}: \"{field}\" is empty; fill it in or drop the row.")
    return value


def _contexts(value: object, where: str, cell: bool) -> List[str]:
    """``retrieved_contexts``: a list of strings; in a CSV cell, that list written as JSON
    (``["a", "b"]``) or as Python (``['a', 'b']``, what ``pandas.DataFrame.to_csv`` writes)."""
    if cell:
        text = str(value).strip()
        try:
            value = json.loads(text)
        except ValueError:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                value = None
        if not isinstance(value, (list, tuple)):
            raise InputError(
                f"{where}: \"retrieved_contexts\" must be a list of strings, written in a CSV cell as JSON "
                f"[\"...\", \"...\"] or Python ['...', '...'], not {_preview(text)}.")
        value = list(value)
    if not isinstance(value, list):
        raise InputError(f"{where}: \"retrieved_contexts\" must be a list of strings, not {_json_type(value)}.")
    for i, text in enumerate(value, 1):
        if not isinstance(text, str):
            raise InputError(f"{where}: \"retrieved_contexts\" entry {i} must be a string, not "
                             f"{_json_type(text)}.")
    return value


def _passages(value: object, where: str) -> List[dict]:
    if not isinstance(value, list):
        raise InputError(f"{where}: \"passages\" must be a list of passage texts or {{\"id\", \"text\"}} "
                         f"objects, not {_json_type(value)}.")
    out = []
    for i, item in enumerate(value, 1):
        if isinstance(item, str):
            out.append({"id": f"P{i}", "text": item})
        elif isinstance(item, dict):
            text = item.get("text")
            if not isinstance(text, str):
                raise InputError(f"{where}: passage {i} needs a string \"text\"; add the passage text.")
            passage = {"id": _case_id(item.get("id"), f"{where}, passage {i}") or f"P{i}", "text": text}
            passage.update((k, v) for k, v in item.items() if k not in ("id", "text"))
            out.append(passage)
        else:
            raise InputError(f"{where}: passage {i} must be its text or an {{\"id\", \"text\"}} object, "
                             f"not {_json_type(item)}.")
    seen: Dict[str, int] = {}
    for i, passage in enumerate(out, 1):
        if passage["id"] in seen:
            raise InputError(f"{where}: passages {seen[passage['id']]} and {i} both have the id "
                             f"{passage['id']!r}; give each passage of a record its own id.")
        seen[passage["id"]] = i
    return out


def _case(case_id: str, question: str, retrieved: List[dict], answer: str) -> dict:
    return {"id": case_id, "question": question, "retrieved": retrieved, "answer": answer}


def _keep_rest(case: dict, obj: dict, used: Tuple[str, ...]) -> None:
    rest = {k: v for k, v in obj.items() if k not in used and k != ""}
    if rest:
        case["meta"] = rest


def _check_unique(cases: List[dict], rows: List[Row], name: str, unit: str) -> None:
    seen: Dict[str, int] = {}
    for case, (number, _) in zip(cases, rows):
        if case["id"] in seen:
            raise InputError(f"{name} {unit} {number}: the case id {case['id']!r} is already used on "
                             f"{unit} {seen[case['id']]}; give each row its own id.")
        seen[case["id"]] = number


def _preview(text: str, width: int = 40) -> str:
    return repr(text if len(text) <= width else text[:width] + "...")
