"""promptfoo: the results of ``promptfoo eval -o results.json`` (``results.results[]``),
``-o results.jsonl`` (one result a line) and ``-o results.csv``.

The answer is the provider's output (``response.output``; in the CSV, the column named
``[provider] prompt``). The question and the passages are test variables: the first of
``query``, ``question``, ``input``, ``user_input``, ``prompt``, and of ``context``, ``contexts``,
``retrieved_contexts``, ``passages``, ``documents`` (a list, or passages joined with a blank
line); ``--map question=vars.q,retrieved=vars.docs`` names others. A list-valued variable that
promptfoo expanded into one test per value gives one case per value, as the file holds them.
"""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Mapping, Optional

from ..core.records import InputError
from .common import (Draft, Item, RowError, Source, answer_text, get, parse_json_cell, passages, present,
                     question_text, rows, split_blank_lines)
from .read import unwrap

NAME = "promptfoo"
TITLE = "promptfoo"
ROWS = True
EXPECTS = "eval results with vars, response.output (or the CSV's [provider] prompt column)"

QUESTION_VARS = ("query", "question", "input", "user_input", "prompt")
CONTEXT_VARS = ("context", "contexts", "retrieved_contexts", "passages", "documents", "retrieved")

_OUTPUT_COLUMN = re.compile(r"^\[.+?\] ")
_CSV_META = ("Status", "Score", "Named Scores", "Grader Reason", "Comment")


def inner(src: Source) -> Source:
    return unwrap(src, ("results", "results")) or src


def detect(src: Source) -> Optional[str]:
    columns = set(inner(src).columns)
    if ("vars" in columns or "testCase" in columns) and "response" in columns and \
            ({"promptIdx", "gradingResult", "provider", "success"} & columns):
        return "eval results (vars, response.output)"
    if src.cells and any(_OUTPUT_COLUMN.match(c) for c in columns) and "Status" in columns:
        return "results CSV (variables, a [provider] prompt column)"
    return None


def convert(src: Source, mapping: Mapping[str, str]) -> Iterator[Item]:
    if src.cells:
        yield from _csv(src, mapping)
        return

    def one(obj: dict, ref: str) -> Draft:
        variables = obj.get("vars") if isinstance(obj.get("vars"), Mapping) else get(obj, "testCase.vars")
        variables = variables if isinstance(variables, Mapping) else {}
        question, qname = _var(obj, variables, mapping.get("question"), QUESTION_VARS, "question")
        context, cname = _var(obj, variables, mapping.get("retrieved"), CONTEXT_VARS, "retrieved")
        if "answer" in mapping:
            answer = get(obj, mapping["answer"])
        else:
            answer = get(obj, "response.output")
            if answer is None and present(obj.get("error")):
                raise RowError(f"the test did not run (error: {str(obj['error'])[:80]}); it holds no answer")
            if isinstance(answer, Mapping):
                answer = answer.get("output", answer.get("text"))
        draft = Draft(ref, question_text(question, qname), answer_text(answer, mapping.get("answer", "response.output")),
                      _passages(context, cname))
        draft.meta = _meta(obj, variables, {qname.split(".")[-1], cname.split(".")[-1]})
        return draft

    yield from rows(src, one)


def _var(obj: Mapping, variables: Mapping, path: Optional[str], names: tuple, field: str):
    if path is not None:
        value = get(obj, path)
        return (value if value is not None else variables.get(path)), path
    for name in names:
        if name in variables:
            return variables[name], f"vars.{name}"
    if field == "retrieved":
        return None, "vars.context"
    raise RowError(f"no test variable holds the question (looked for {', '.join(names)}); name it with "
                   "--map question=vars.NAME")


def _passages(value: object, name: str) -> List[dict]:
    if not present(value):
        return []
    if isinstance(value, str):
        return passages(split_blank_lines(value), name)
    if isinstance(value, list):
        return passages(value, name)
    raise RowError(f"\"{name}\" must hold the passages as text or a list")


def _meta(obj: Mapping, variables: Mapping, used: set) -> Dict[str, object]:
    meta: Dict[str, object] = {}
    provider = obj.get("provider")
    provider = provider.get("label") or provider.get("id") if isinstance(provider, Mapping) else provider
    if present(provider):
        meta["provider"] = provider
    prompt = get(obj, "prompt.label")
    if present(prompt):
        meta["prompt"] = prompt
    for key in ("score", "success", "namedScores", "latencyMs", "cost", "failureReason"):
        if present(obj.get(key)) and obj.get(key) != {}:
            meta[key] = obj[key]
    rest = {k: v for k, v in variables.items() if k not in used and k != "response"}
    if rest:
        meta["vars"] = rest
    return meta


def _csv(src: Source, mapping: Mapping[str, str]) -> Iterator[Item]:
    outputs = [c for c in src.columns if _OUTPUT_COLUMN.match(c)]
    if "answer" not in mapping and len(outputs) != 1:
        raise InputError(f"{src.name} has {len(outputs)} output columns ({', '.join(outputs) or 'none'}); name the "
                         "one that holds the answers with --map answer=COLUMN.")
    answer_column = mapping.get("answer", outputs[0] if outputs else "")
    question_column = mapping.get("question") or next((c for c in QUESTION_VARS if c in src.columns), None)
    context_column = mapping.get("retrieved") or next((c for c in CONTEXT_VARS if c in src.columns), None)
    if question_column is None:
        raise InputError(f"{src.name} has no column holding the question (looked for {', '.join(QUESTION_VARS)}); "
                         "name it with --map question=COLUMN.")

    def one(obj: dict, ref: str) -> Draft:
        context = obj.get(context_column) if context_column else None
        if isinstance(context, str) and context.strip().startswith("["):
            parsed = parse_json_cell(context)
            context = parsed if isinstance(parsed, list) else context
        draft = Draft(ref, question_text(obj.get(question_column), question_column),
                      answer_text(obj.get(answer_column), answer_column),
                      _passages(context, context_column or "context"))
        meta: Dict[str, object] = {"provider": answer_column}
        for key, value in obj.items():
            if key in _CSV_META or key.startswith("Metric: "):
                if present(value):
                    meta[key] = parse_json_cell(value)
        draft.meta = meta
        return draft

    yield from rows(src, one)
