"""LangSmith / LangChain runs (the ``Run`` schema): ``run.json()`` one a line, as
``collect_runs()`` or the LangSmith client give them, flattened with their descendants.

Runs are joined into traces by ``trace_id``. The root run (no ``parent_run_id``) holds the
question (``inputs``) and the final answer (``outputs``); the retriever runs
(``run_type: retriever``) hold the passages in ``outputs.documents[]`` (``page_content``, the
id in ``metadata.id`` or ``id``). Root runs alone (``child_runs`` left out) give cases without
passages, and the import says so.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Mapping, Optional

from .common import (ANSWER_KEYS, QUESTION_KEYS, Draft, Item, RowError, Source, answer_text, by_trace, get, passages,
                     pick_text, present, question_text, read_cells)

NAME = "langsmith"
TITLE = "LangSmith"
ROWS = False
EXPECTS = "runs with run_type, inputs, outputs, trace_id and parent_run_id"


def detect(src: Source) -> Optional[str]:
    columns = set(src.columns)
    if {"run_type", "inputs", "outputs"} <= columns and ({"trace_id", "parent_run_id", "id"} & columns):
        return "runs (run_type, inputs, outputs, trace_id)"
    return None


def convert(src: Source, mapping: Mapping[str, str]) -> Iterator[Item]:
    def key(obj: dict) -> object:
        return obj.get("trace_id") if present(obj.get("trace_id")) else obj.get("id")

    yield from by_trace(src, key, lambda _, records, ref: _trace([read_cells(o, src.cells) for o in records], ref),
                        field='"trace_id" or "id"')


def _trace(runs: List[dict], ref: str) -> Draft:
    roots = [r for r in runs if not present(r.get("parent_run_id"))]
    root = roots[0] if roots else runs[0]
    llms = [r for r in runs if r.get("run_type") in ("llm", "chat_model")]
    question = pick_text(root.get("inputs"), QUESTION_KEYS)
    answer = pick_text(root.get("outputs"), ANSWER_KEYS)
    for run in reversed(llms):
        if answer is None:
            generations = get(run, "outputs.generations")
            if isinstance(generations, list) and generations and isinstance(generations[-1], list) and generations[-1]:
                answer = pick_text(generations[-1][0], ("text",))
    if question is None:
        raise RowError("the root run holds no question in \"inputs\"")
    if answer is None:
        error = root.get("error")
        raise RowError("the root run holds no answer in \"outputs\"" + (f" (it failed: {error})" if present(error) else ""))
    found: List[dict] = []
    for run in runs:
        if run.get("run_type") == "retriever":
            documents = get(run, "outputs.documents")
            if isinstance(documents, list):
                found.extend(passages(documents, "outputs.documents"))
    meta: Dict[str, object] = {}
    for key in ("name", "session_name", "start_time", "tags", "error"):
        if present(root.get(key)) and root.get(key) != []:
            meta[key] = root[key]
    model = next((m for m in (_model(r) for r in llms) if m), None)
    if model:
        meta["model"] = model
    return Draft(ref, question_text(question, "inputs"), answer_text(answer, "outputs"), found, str(root.get("id") or "") or None,
                 meta)


def _model(run: dict) -> Optional[str]:
    for path in ("extra.metadata.ls_model_name", "extra.invocation_params.model", "extra.invocation_params.model_name"):
        value = get(run, path)
        if isinstance(value, str) and value.strip():
            return value
    return None
