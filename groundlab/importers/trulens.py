"""TruLens: records from ``TruSession().get_records_and_feedback()[0]`` (``record_id``,
``input``, ``output``, the app's name and version, feedback scores as columns), which keep no
passages, and the OpenTelemetry events of ``TruSession().get_events()`` (three spans a record,
joined by ``ai.observability.record_id``: the ``retrieval`` span's ``retrieved_contexts``, the
``record_root`` span's input and output)."""

from __future__ import annotations

from typing import Dict, Iterator, List, Mapping, Optional

from .common import (ANSWER_KEYS, QUESTION_KEYS, Draft, Item, RowError, Source, answer_text, by_trace, case_id,
                     meta_of, parse_json_cell, passages, pick_text, present, question_text, rows)

NAME = "trulens"
TITLE = "TruLens"
ROWS = True
EXPECTS = "records with record_id, input and output, or events with record_attributes"

_RECORD_ID = "ai.observability.record_id"
_ROOT_INPUT = "ai.observability.record_root.input"
_ROOT_OUTPUT = "ai.observability.record_root.output"
_CONTEXTS = ("ai.observability.retrieval.retrieved_contexts", "gen_ai.retrieval.documents")

#: Columns that repeat what the others say, as nested objects.
_BULKY = ("app_json", "record_json", "cost_json", "perf_json")


def detect(src: Source) -> Optional[str]:
    columns = set(src.columns)
    if "record_attributes" in columns:
        return "events (record_attributes)"
    if {"record_id", "input", "output"} <= columns:
        return "records (record_id, input, output)"
    return None


def convert(src: Source, mapping: Mapping[str, str]) -> Iterator[Item]:
    if "record_attributes" in src.columns:
        yield from _events(src)
        return
    cols = {"id": "record_id", "question": "input", "answer": "output", **mapping}

    def one(obj: dict, ref: str) -> Draft:
        question = question_text(pick_text(obj.get(cols["question"]), QUESTION_KEYS), cols["question"])
        answer = answer_text(pick_text(obj.get(cols["answer"]), ANSWER_KEYS), cols["answer"])
        found: List[dict] = []
        if "retrieved" in cols and present(obj.get(cols["retrieved"])):
            value = obj[cols["retrieved"]]
            found = passages(parse_json_cell(value) if src.cells else value, cols["retrieved"])
        meta = meta_of(obj, list(cols.values()), _BULKY)
        return Draft(ref, question, answer, found, case_id(obj.get(cols["id"])), meta)

    yield from rows(src, one)


def _attributes(obj: Mapping) -> Mapping:
    value = parse_json_cell(obj.get("record_attributes"))
    return value if isinstance(value, Mapping) else {}


def _events(src: Source) -> Iterator[Item]:
    yield from by_trace(src, lambda obj: _attributes(obj).get(_RECORD_ID),
                        lambda record_id, records, ref: _record(record_id, [_attributes(o) for o in records], ref),
                        noun="record", field=f'"record_attributes.{_RECORD_ID}"')


def _record(record_id: str, spans: List[Mapping], ref: str) -> Draft:
    def of_type(kind: str) -> List[Mapping]:
        return [s for s in spans if s.get("ai.observability.span_type") == kind]

    roots = of_type("record_root")
    question = next((pick_text(s.get(_ROOT_INPUT), QUESTION_KEYS) for s in roots if present(s.get(_ROOT_INPUT))), None)
    answer = next((pick_text(s.get(_ROOT_OUTPUT), ANSWER_KEYS) for s in roots if present(s.get(_ROOT_OUTPUT))), None)
    for span in reversed(of_type("generation")):
        if answer is None and isinstance(span.get("ai.observability.call.return"), str):
            answer = span["ai.observability.call.return"]
    for span in of_type("retrieval"):
        if question is None and isinstance(span.get("ai.observability.retrieval.query_text"), str):
            question = span["ai.observability.retrieval.query_text"]
    if question is None:
        raise RowError("the record holds no question: its record_root span has no input")
    if answer is None:
        raise RowError("the record holds no answer: neither its record_root span nor a generation span has one")
    found: List[dict] = []
    for span in of_type("retrieval"):
        contexts = next((span[key] for key in _CONTEXTS if isinstance(span.get(key), list)), None)
        if contexts is not None:
            found.extend(passages(contexts, "retrieved_contexts"))
    meta: Dict[str, object] = {}
    first = spans[0]
    for key in ("app_name", "app_version"):
        value = first.get(f"ai.observability.{key}")
        if present(value):
            meta[key] = value
    return Draft(ref, question_text(question, "input"), answer_text(answer, "output"), found, record_id, meta)
