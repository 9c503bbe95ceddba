"""An application's own answer log, and any file whose columns ``--map`` names.

``log``: records ``{"id"?, "question", "passages": [text | {"id", "text"}], "answer"}``,
optionally with ``answerable`` and ``labels``, as JSON Lines (or JSON, CSV, Parquet). Ids are
kept where given (a number is read as text); a record without one gets ``r`` and its position.
"""

from __future__ import annotations

from typing import Dict, Iterator, Mapping, Optional

from ..core.io import _json_type, _json_value, parse_labels
from ..core.records import InputError
from .common import (Draft, Item, RowError, Source, answer_text, case_id, get, list_cell, meta_of, parse_json_cell,
                     passages, present, question_text, require, rows, set_ids)

NAME = "log"
TITLE = "an answer log"
ROWS = True
EXPECTS = "records with question, passages and answer (id, answerable and labels optional)"

LOG = {"id": "id", "question": "question", "retrieved": "passages", "answer": "answer",
       "answerable": "answerable", "labels": "labels"}


def detect(src: Source) -> Optional[str]:
    if {"question", "passages", "answer"} <= set(src.columns):
        return "(question, passages, answer)"
    return None


def convert(src: Source, mapping: Mapping[str, str], base: Optional[Dict[str, str]] = None) -> Iterator[Item]:
    """Rows of ``src`` as cases, each field read from the column ``mapping`` names (else from the
    log's own column)."""
    cols = {**(LOG if base is None else base), **mapping}
    required = [cols[f] for f in ("question", "retrieved", "answer") if cols.get(f)]
    what = "a logged answer" if base is None and not mapping else "each row"
    require(src, required, what)

    def one(obj: dict, ref: str) -> Draft:
        for column in required:
            if column not in obj and get(obj, column) is None:
                raise RowError(f"the field \"{column}\" is missing; {what} needs "
                               f"{', '.join(required)}{' (id is optional)' if base is None else ''}")
        cid = case_id(get(obj, cols.get("id")))
        question = question_text(get(obj, cols["question"]), cols["question"])
        found = _passages(get(obj, cols["retrieved"]), cols["retrieved"], src.cells)
        ids_column = cols.get("retrieved_ids")
        if ids_column and present(get(obj, ids_column)):
            set_ids(found, get(obj, ids_column), ids_column, src.cells)
        answer = answer_text(get(obj, cols["answer"]), cols["answer"])
        draft = Draft(ref, question, answer, found, cid, meta_of(obj, [c for c in cols.values() if c]))
        answerable = get(obj, cols.get("answerable"))
        if src.cells and isinstance(answerable, str):
            answerable = {"true": True, "false": False, "": None}.get(answerable.strip().lower(), answerable)
        if answerable is not None:
            if not isinstance(answerable, bool):
                raise RowError(f"\"answerable\" must be true, false or absent, not {_json_value(answerable)}")
            draft.answerable = answerable
        labels = get(obj, cols.get("labels"))
        if src.cells and isinstance(labels, str):
            labels = list_cell(labels, cols["labels"]) if labels.strip() else None
        if labels is not None:
            try:
                draft.labels = list(parse_labels(labels, ""))
            except InputError as error:
                raise RowError(str(error)[2:].rstrip(".")) from None
        return draft

    yield from rows(src, one)


def _passages(value: object, name: str, cells: bool) -> list:
    """Passages: a list of texts or of passage objects; in a CSV cell, such a list written as
    JSON or Python, or else one passage."""
    if isinstance(value, str) and cells:
        parsed = parse_json_cell(value) if value.strip()[:1] == "[" else value
        if isinstance(parsed, str):
            return [{"id": None, "text": value}] if value.strip() else []
        value = parsed
    if value is None:
        return []
    if not isinstance(value, list):
        raise RowError(f"\"{name}\" must be a list of passage texts or {{\"id\", \"text\"}} objects, not "
                       f"{_json_type(value)}")
    for k, item in enumerate(value, 1):
        if isinstance(item, dict) and not isinstance(item.get("text", item.get("page_content")), str):
            raise RowError(f"passage {k} needs a string \"text\"; add the passage text")
        if not isinstance(item, (str, dict)):
            raise RowError(f"passage {k} must be its text or an {{\"id\", \"text\"}} object, not {_json_type(item)}")
    found = passages(value, name)
    for item, original in zip(found, value):
        if isinstance(original, dict):  # anything else the log keeps with a passage (a score) stays
            item.update((k, v) for k, v in original.items() if k not in ("id", "text") and k not in item)
    return found
