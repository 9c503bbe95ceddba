"""Langfuse observations, as the Langfuse API returns them (``ObservationV2``: one a line, or
the whole response ``{"data": [...], "meta": {...}}``).

Observations are joined into traces by ``traceId``. The root observation (``isRootObservation``,
or no ``parentObservationId``) holds the question (``input``) and the final answer
(``output``; else the last ``GENERATION``'s); ``RETRIEVER`` observations hold the passages in
``output`` (``page_content`` or ``text``, the id in ``metadata.id`` or ``id``).
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Mapping, Optional

from .common import (ANSWER_KEYS, QUESTION_KEYS, Draft, Item, RowError, Source, answer_text, by_trace, passages,
                     pick_text, present, question_text, read_cells)
from .read import unwrap

NAME = "langfuse"
TITLE = "Langfuse"
ROWS = False
EXPECTS = "observations with traceId, type, input and output"


def inner(src: Source) -> Source:
    return unwrap(src, ("data",)) or src


def detect(src: Source) -> Optional[str]:
    columns = set(inner(src).columns)
    if {"traceId", "type"} <= columns and ({"isRootObservation", "parentObservationId", "input", "output"} & columns):
        return "observations (traceId, type, input, output)"
    return None


def convert(src: Source, mapping: Mapping[str, str]) -> Iterator[Item]:
    yield from by_trace(src, lambda obj: obj.get("traceId"),
                        lambda trace_id, records, ref: _trace(trace_id, [read_cells(o, src.cells) for o in records], ref),
                        field='"traceId"')


def _trace(trace_id: str, observations: List[dict], ref: str) -> Draft:
    roots = [o for o in observations if o.get("isRootObservation") is True] or \
        [o for o in observations if not present(o.get("parentObservationId"))]
    root = roots[0] if roots else observations[0]
    generations = [o for o in observations if str(o.get("type", "")).upper() == "GENERATION"]
    question = pick_text(root.get("input"), QUESTION_KEYS)
    for observation in generations:
        if question is None:
            question = pick_text(observation.get("input"), QUESTION_KEYS)
    answer = pick_text(root.get("output"), ANSWER_KEYS)
    for observation in reversed(generations):
        if answer is None:
            answer = pick_text(observation.get("output"), ANSWER_KEYS)
    if question is None:
        raise RowError("the trace holds no question: its root observation has no \"input\"")
    if answer is None:
        raise RowError("the trace holds no answer: neither its root observation nor a GENERATION has an \"output\"")
    found: List[dict] = []
    for observation in observations:
        if str(observation.get("type", "")).upper() == "RETRIEVER":
            output = observation.get("output")
            if isinstance(output, Mapping):
                output = output.get("documents", output.get("output"))
            if isinstance(output, list):
                found.extend(passages(output, "output"))
    meta: Dict[str, object] = {}
    for key in ("name", "startTime", "version", "environment", "userId", "sessionId"):
        if present(root.get(key)):
            meta[key] = root[key]
    model = next((o.get("model") for o in generations if present(o.get("model"))), None)
    if model is not None:
        meta["model"] = model
    return Draft(ref, question_text(question, "input"), answer_text(answer, "output"), found, trace_id, meta)
