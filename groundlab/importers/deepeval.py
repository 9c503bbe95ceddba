"""DeepEval: goldens and test cases saved with ``EvaluationDataset.save_as`` (JSON, JSONL, CSV;
``input``, ``actual_output``, ``expected_output``, ``retrieval_context``), the test run file
``.deepeval/.latest_test_run.json`` (``testRunData.testCases[]``, camelCase), and the result of
``deepeval.evaluate`` dumped as JSON (``test_results[]``).

``retrieval_context`` is a list, except in JSONL and CSV, where DeepEval joins the passages
with ``|`` (so a passage that itself holds ``|`` cannot be told from two). A structured passage,
``RetrievedContextData(context=text, source=id)``, is written ``deepeval_source=<id>,
deepeval_context=<text>``: the id is kept. ``additional_metadata`` (or ``metadata``) is kept in
``meta`` field by field; the metric scores as ``meta.metrics.<name>``.
"""

from __future__ import annotations

import re
from typing import Iterator, List, Mapping, Optional

from ..core.io import _json_type
from .common import (Draft, Item, RowError, Source, answer_text, case_id, get, meta_of, parse_json_cell, passage,
                     present, question_text, require, rows)
from .read import unwrap

NAME = "deepeval"
TITLE = "DeepEval"
ROWS = True
EXPECTS = "test cases with input, actual_output and retrieval_context (or a test run's testCases)"

SNAKE = {"question": "input", "answer": "actual_output", "retrieved": "retrieval_context", "id": "name"}
CAMEL = {"question": "input", "answer": "actualOutput", "retrieved": "retrievalContext", "id": "name"}

_STRUCTURED = re.compile(r"deepeval_source=(.*?),deepeval_context=(.*)\Z", re.DOTALL)

#: Fields DeepEval writes that say nothing about the case (always empty here, or bookkeeping).
_DROP = ("conversational", "multimodal", "index", "order", "flaky", "runDuration", "run_duration",
         "source_file", "_dataset_rank", "_dataset_alias", "_dataset_id")


def inner(src: Source) -> Source:
    for keys in (("testRunData", "testCases"), ("test_results",), ("testCases",), ("goldens",), ("test_cases",)):
        inner = unwrap(src, keys)
        if inner is not None:
            return inner
    return src


def detect(src: Source) -> Optional[str]:
    columns = set(inner(src).columns)
    if "input" in columns and "actual_output" in columns:
        return "test cases (input, actual_output, retrieval_context)"
    if "input" in columns and "actualOutput" in columns:
        return "test run (testCases: input, actualOutput, retrievalContext)"
    return None


def convert(src: Source, mapping: Mapping[str, str]) -> Iterator[Item]:
    cols = {**(CAMEL if "actualOutput" in src.columns else SNAKE), **mapping}
    require(src, [cols["question"], cols["answer"]], "a DeepEval test case")

    def one(obj: dict, ref: str) -> Draft:
        for column in (cols["question"], cols["answer"]):
            if column not in obj and get(obj, column) is None:
                raise RowError(f"the field \"{column}\" is missing; a DeepEval test case needs {cols['question']} "
                               f"and {cols['answer']}")
        question = question_text(get(obj, cols["question"]), cols["question"])
        answer = answer_text(get(obj, cols["answer"]), cols["answer"])
        found = _contexts(get(obj, cols["retrieved"]), cols["retrieved"])
        meta = meta_of(obj, [c for c in cols.values() if c] + ["success"], _DROP)
        for key in ("additional_metadata", "metadata", "additionalMetadata"):
            extra = parse_json_cell(meta.pop(key, None))
            if isinstance(extra, dict):
                for k, v in extra.items():
                    meta.setdefault(k, v)
            elif present(extra):
                meta[key] = extra
        for key in ("metrics_data", "metricsData"):
            metrics = parse_json_cell(meta.pop(key, None))
            if isinstance(metrics, list):
                scores = {m["name"]: m.get("score") for m in metrics if isinstance(m, dict) and "name" in m}
                if scores:
                    meta["metrics"] = scores
        if present(obj.get("success")):
            meta["success"] = obj["success"]
        return Draft(ref, question, answer, found, case_id(get(obj, cols["id"])), meta)

    yield from rows(src, one)


def _contexts(value: object, name: str) -> List[dict]:
    if not present(value):
        return []
    if isinstance(value, str):
        value = parse_json_cell(value) if value.startswith('["') else value
    if isinstance(value, str):
        items: List[object] = value.split("|")
    elif isinstance(value, list):
        items = value
    else:
        raise RowError(f"\"{name}\" must be a list of passages, not {_json_type(value)}")
    found = []
    for k, item in enumerate(items, 1):
        if isinstance(item, str):
            match = _STRUCTURED.match(item)
            if match:
                found.append({"id": match.group(1).strip() or None, "text": match.group(2)})
                continue
        elif isinstance(item, dict) and "context" in item and ("source" in item or "deepeval_source" in item):
            source = item.get("source", item.get("deepeval_source"))
            found.append({"id": str(source) if present(source) else None, "text": item["context"]})
            continue
        found.append(passage(item, k, name))
    return found
