"""Arize Phoenix and other OpenInference traces: spans as an OpenTelemetry exporter writes them
(``span.to_json()``), as ``phoenix.client`` returns them (``spans.get_spans``, and
``get_spans_dataframe`` saved as Parquet, JSONL or CSV), and Phoenix's two helper frames:
``get_input_output_context`` (one row per trace; the passages joined with a blank line, no
ids) and ``get_retrieved_documents`` (passages without answers: refused, with what to export).

A trace becomes one case: the question and the final answer of its root span (``input.value``,
``output.value``; else the retriever's query and the last LLM span's output), and the passages
of its retriever spans (``retrieval.documents``: ``document.content``, ``document.id``,
``document.score``), or of a reranker's output when there is one, in order.
"""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Mapping, Optional, Tuple

from ..core.records import InputError
from .common import (ANSWER_KEYS, QUESTION_KEYS, Draft, Item, RowError, Source, answer_text, by_trace, case_id, flat,
                     meta_of, parse_json_cell, passages, pick_text, present, question_text, rows, split_blank_lines)

NAME = "openinference"
TITLE = "Phoenix / OpenInference"
ROWS = False
EXPECTS = "spans with context.trace_id, a span kind and OpenInference attributes (input.value, retrieval.documents)"

_INDEXED = re.compile(r"^(retrieval\.documents|reranker\.output_documents)\.(\d+)\.(.+)$")


def detect(src: Source) -> Optional[str]:
    columns = set(src.columns)
    if {"document_position", "document"} <= columns:
        return "get_retrieved_documents() (passages, no answers)"
    if {"input", "output", "context"} <= columns and "context.trace_id" in columns:
        return "get_input_output_context() (input, output, context)"
    if "context.trace_id" in columns and ("span_kind" in columns or "attributes.openinference.span.kind" in columns):
        return "spans (get_spans_dataframe)"
    for _, obj in src.records[:50]:
        context, attributes = obj.get("context"), obj.get("attributes")
        if isinstance(context, Mapping) and "trace_id" in context and isinstance(attributes, Mapping):
            if "span_kind" in obj or "openinference.span.kind" in flat(attributes):
                return "spans (context.trace_id, attributes)"
    return None


def convert(src: Source, mapping: Mapping[str, str]) -> Iterator[Item]:
    columns = set(src.columns)
    if {"document_position", "document"} <= columns:
        raise InputError(f"{src.name} holds retrieved passages but no answers (Phoenix get_retrieved_documents()); "
                         "export the spans instead, with get_spans_dataframe() or get_input_output_context().")
    if {"input", "output", "context"} <= columns and "context.trace_id" in columns:
        yield from rows(src, lambda obj, ref: _qa_row(obj, ref))
        return
    yield from by_trace(src, lambda obj: _span(obj, src.cells)["trace"],
                        lambda trace_id, records, ref: _trace(trace_id, [_span(o, src.cells) for o in records], ref),
                        field='"context.trace_id"')


def _qa_row(obj: dict, ref: str) -> Draft:
    question = question_text(obj.get("input"), "input")
    answer = answer_text(obj.get("output"), "output")
    context = obj.get("context")
    found = passages(split_blank_lines(context), "context") if isinstance(context, str) else []
    meta = meta_of(obj, ("input", "output", "context", "context.trace_id", "context.span_id"))
    if "metadata" in meta:
        extra = parse_json_cell(meta.pop("metadata"))
        if isinstance(extra, dict):
            for k, v in extra.items():
                meta.setdefault(k, v)
    return Draft(ref, question, answer, found, case_id(obj.get("context.trace_id")), meta)


def _span(obj: dict, cells: bool) -> Dict:
    context = obj.get("context") if isinstance(obj.get("context"), Mapping) else {}
    attributes: Dict = {}
    raw = parse_json_cell(obj.get("attributes")) if cells else obj.get("attributes")
    if isinstance(raw, Mapping):
        attributes.update(flat(raw))
    for key, value in obj.items():
        if key.startswith("attributes.") and present(value):
            attributes[key[len("attributes."):]] = parse_json_cell(value) if cells else value
    kind = obj.get("span_kind") or attributes.get("openinference.span.kind") or ""
    parent = obj.get("parent_id")
    resource = obj.get("resource")
    return {
        "trace": context.get("trace_id", obj.get("context.trace_id", obj.get("trace_id"))),
        "parent": parent if present(parent) else None,
        "kind": str(kind).upper(),
        "name": obj.get("name"),
        "start": obj.get("start_time"),
        "attributes": attributes,
        "resource": flat(resource.get("attributes", {})) if isinstance(resource, Mapping) else {},
    }


def _documents(attributes: Mapping, prefix: str) -> Optional[List[dict]]:
    value = attributes.get(prefix)
    if isinstance(value, list):
        return passages(value, prefix)
    indexed: Dict[int, Dict[str, object]] = {}
    for key, item in attributes.items():
        match = _INDEXED.match(key)
        if match and match.group(1) == prefix:
            indexed.setdefault(int(match.group(2)), {})[match.group(3)] = item
    if not indexed:
        return None
    return passages([indexed[k] for k in sorted(indexed)], prefix)


def _trace(trace_id: str, spans: List[Dict], ref: str) -> Draft:
    roots = [s for s in spans if s["parent"] is None]
    root = roots[0] if roots else spans[0]
    llms = [s for s in spans if s["kind"] == "LLM"]
    retrievers = [s for s in spans if s["kind"] == "RETRIEVER"]
    question = pick_text(root["attributes"].get("input.value"), QUESTION_KEYS)
    for span in retrievers + llms:
        if question is None:
            question = pick_text(span["attributes"].get("input.value"), QUESTION_KEYS)
    answer = pick_text(root["attributes"].get("output.value"), ANSWER_KEYS)
    for span in reversed(llms):
        if answer is None:
            answer = pick_text(span["attributes"].get("output.value"), ANSWER_KEYS) or \
                span["attributes"].get("llm.output_messages.0.message.content")
    if question is None:
        raise RowError("the trace holds no question: neither its root span nor a retriever or LLM span has "
                       "\"input.value\"")
    if answer is None:
        raise RowError("the trace holds no answer: neither its root span nor an LLM span has \"output.value\"")
    found: List[dict] = []
    rerankers = [s for s in spans if s["kind"] == "RERANKER"]
    for span in rerankers[-1:] or _in_order(retrievers):
        documents = _documents(span["attributes"], "reranker.output_documents" if rerankers else "retrieval.documents")
        found.extend(documents or [])
    meta: Dict[str, object] = {}
    if present(root["name"]):
        meta["name"] = root["name"]
    if present(root["start"]):
        meta["start_time"] = root["start"]
    model = next((s["attributes"].get("llm.model_name") for s in llms if present(s["attributes"].get("llm.model_name"))),
                 None)
    if model is not None:
        meta["model"] = model
    project = root["resource"].get("openinference.project.name")
    if present(project):
        meta["project"] = project
    return Draft(ref, question_text(question, "input.value"), answer_text(answer, "output.value"), found, trace_id, meta)


def _in_order(spans: List[Dict]) -> List[Dict]:
    """Retriever spans by start time when every one has a start time of the same kind, else as filed."""
    starts: List[Tuple[object, int]] = [(s["start"], k) for k, s in enumerate(spans)]
    if len(spans) > 1 and all(present(t) for t, _ in starts) and len({type(t) for t, _ in starts}) == 1:
        return [spans[k] for _, k in sorted(starts)]
    return spans
