"""Ragas: ``EvaluationDataset`` samples (``user_input``, ``retrieved_contexts``,
``retrieved_context_ids``, ``response``, ``reference``) as ``to_jsonl``, ``to_csv``, pandas and
Hugging Face ``datasets`` write them, Ragas 0.1's columns (``question``, ``answer``,
``contexts``, ``ground_truth``), and the result of ``ragas.evaluate`` (the metric scores are
extra columns, kept in ``meta``)."""

from __future__ import annotations

from typing import Dict, Iterator, Mapping, Optional

from ..core.io import _json_type
from .common import (Draft, Item, RowError, Source, answer_text, case_id, get, meta_of, passages, present,
                     question_text, require, rows, set_ids, texts_list)

NAME = "ragas"
TITLE = "Ragas"
ROWS = True
EXPECTS = "rows with user_input, retrieved_contexts and response (or Ragas 0.1's question, answer and contexts)"

CURRENT = {"question": "user_input", "retrieved": "retrieved_contexts", "answer": "response",
           "retrieved_ids": "retrieved_context_ids", "id": "id"}
V01 = {"question": "question", "retrieved": "contexts", "answer": "answer", "id": "id"}


def detect(src: Source) -> Optional[str]:
    columns = set(src.columns)
    if "user_input" in columns and columns & {"retrieved_contexts", "response"}:
        return "samples (user_input, retrieved_contexts, response)"
    if {"question", "contexts"} <= columns:
        return "0.1 columns (question, answer, contexts, ground_truth)"
    return None


def fields(src: Source, mapping: Mapping[str, str]) -> Dict[str, str]:
    base = V01 if "user_input" not in src.columns and "contexts" in src.columns else CURRENT
    return {**base, **mapping}


def convert(src: Source, mapping: Mapping[str, str]) -> Iterator[Item]:
    cols = fields(src, mapping)
    required = [cols[f] for f in ("question", "retrieved", "answer")]
    require(src, required, "a Ragas sample")
    has_ids = any(present(get(obj, cols["id"])) for _, obj in src.records)

    def one(obj: dict, ref: str) -> Draft:
        for column in required:
            if get(obj, column) is None and column not in obj:
                raise RowError(f"the field \"{column}\" is missing; a Ragas sample needs {', '.join(required)}")
        cid = case_id(get(obj, cols["id"])) if has_ids else None
        if has_ids and cid is None:
            raise RowError("\"id\" is empty while other rows have one; give every row an id or leave the column out")
        contexts = texts_list(get(obj, cols["retrieved"]), cols["retrieved"], src.cells)
        for k, item in enumerate(contexts, 1):
            if not isinstance(item, str):
                raise RowError(f"\"{cols['retrieved']}\" entry {k} must be a string, not {_json_type(item)}")
        found = passages(contexts, cols["retrieved"])
        ids_value = get(obj, cols.get("retrieved_ids"))
        if present(ids_value) and ids_value != []:
            set_ids(found, ids_value, cols["retrieved_ids"], src.cells)
        question = question_text(get(obj, cols["question"]), cols["question"])
        answer = answer_text(get(obj, cols["answer"]), cols["answer"])
        meta = meta_of(obj, [c for c in cols.values() if c])
        return Draft(ref, question, answer, found, cid, meta)

    yield from rows(src, one)
