"""Files of SAP AI Core's shapes, built for the tests and for docs/sap.md: orchestration responses
(v2, ``model_dump()`` one a line) of the sample set, an evaluation's ``results.db`` with the tables
and columns SAP's tutorials show (``run``, ``configuration``, ``submission``,
``submission_result``, ``evaluation_result``; metric names stored JSON-quoted), and the tracking
API's aggregated metrics of the same runs.

``python tests/sap_eval_files.py DIR`` writes DIR/logs.jsonl and DIR/labeled.jsonl; after
``groundlab sap dataset --cases labeled.jsonl --out eval-data`` there, ``python
tests/sap_eval_files.py DIR eval-data/testdata/labeled.csv`` writes DIR/results.db and
DIR/metrics.json, an evaluation of that dataset with two runs: one through the grounding module
(its answers those of the sample set's second configuration, as a run that writes its answers
anew gives), one with the passages in the prompt (its answers the logged ones, word for word).
"""

from __future__ import annotations

import csv
import json
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
NOTES_PATH = DATA / "notes.jsonl"

GROUNDEDNESS = "Pointwise RAG Groundedness"
OURS = "groundlab-groundedness-r1"
MODEL = ("gpt-4o", "2024-08-06")
GROUNDING_TEMPLATE = "Question: {{?question}}\n\nContext: {{?groundingOutput}}"
CONTEXT_TEMPLATE = "Question: {{?question}}\n\nContext: {{?context}}"

#: The platform's ratings of each run's answers: a rating, or ``("error", why)`` for a judge that failed.
RATINGS = {
    "grounding": {GROUNDEDNESS: {"c01": 3, "c02": 3, "c03": 2, "c04": 3, "c05": 3, "c06": 3, "c07": 3, "c08": 2,
                                 "c09": 3, "c10": 1, "c11": 3, "c12": 3},
                  OURS: {"c01": 3, "c02": 3, "c03": 2, "c04": 3, "c05": 3, "c06": 3, "c07": 2, "c08": 3, "c09": 3,
                         "c10": 1, "c11": 3, "c12": 3}},
    "context": {GROUNDEDNESS: {"c01": 3, "c02": 1, "c03": 3, "c04": 3, "c05": 3, "c06": 2, "c07": 2, "c08": 3,
                               "c09": ("error", "the judge's reply could not be parsed as {\"explanation\", \"rating\"}"),
                               "c10": 2, "c11": 3, "c12": 3},
                OURS: {"c01": 3, "c02": 1, "c03": 3, "c04": 3, "c05": 2, "c06": 2, "c07": 3, "c08": 1, "c09": 3,
                       "c10": 2, "c11": 2, "c12": 3}},
}


def _read_jsonl(path: Path) -> List[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def notes() -> Dict[str, str]:
    return {n["id"]: n["text"] for n in _read_jsonl(DATA / "notes.jsonl")}


def grounding_result(passages: List[Tuple[str, str]]) -> str:
    """The grounding module's result with metadata_params, as a JSON string."""
    return json.dumps([{"content": text, "metadata": {"doc_id": [pid]}} for pid, text in passages])


def completion(k: int, prompt: str, answer: Optional[str], grounding: Optional[str], model: str = MODEL[0]) -> dict:
    """An orchestration v2 response (``/v2/completion``), as results.db's completion_result holds it."""
    result = {"id": f"chatcmpl-{k:03d}", "object": "chat.completion", "created": 1763098800 + 4 * k,
              "model": f"{model}-2024-08-06", "system_fingerprint": "fp_4a331a0222",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
              "usage": {"completion_tokens": 60, "prompt_tokens": 240, "total_tokens": 300}}
    intermediate: Dict[str, object] = {"templating": [{"content": prompt, "role": "user"}]}
    if grounding is not None:
        intermediate["grounding"] = {"message": "grounding result",
                                     "data": {"grounding_query": "grounding service", "grounding_result": grounding}}
    intermediate["llm"] = result
    body = {"request_id": f"7210615f-2b11-9523-a798-{k:012d}", "intermediate_results": intermediate}
    if answer is not None:
        body["final_result"] = result
    return body


def write_logs(folder: Path) -> Tuple[Path, Path]:
    """The sample set as orchestration responses (v2, one a line; request ids the case ids), and
    the cases importing them gives with people's labels added (what the labeling sheet gives)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = notes()
    cases = _read_jsonl(DATA / "grounded_cases.jsonl")
    lines = []
    for k, case in enumerate(cases):
        passages = [(pid, text[pid]) for pid in case["retrieved"]]
        evidence = grounding_result(passages)
        prompt = GROUNDING_TEMPLATE.replace("{{?question}}", case["question"]).replace("{{?groundingOutput}}", evidence)
        body = completion(k, prompt, case["answer"], evidence)
        body["request_id"] = case["id"]
        lines.append(json.dumps(body))
    logs = folder / "logs.jsonl"
    logs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from groundlab.importers import import_cases

    imported = folder / ".imported.jsonl"
    import_cases(logs, imported, force=True)
    labels = {c["id"]: c for c in cases}
    labeled = []
    for case in _read_jsonl(imported):
        source = labels[case["id"]]
        case["labels"] = source["labels"]
        if "answerable" in source:
            case["answerable"] = source["answerable"]
        labeled.append(json.dumps(case, ensure_ascii=False))
    imported.unlink()
    out = folder / "labeled.jsonl"
    out.write_text("\n".join(labeled) + "\n", encoding="utf-8")
    return logs, out


# ---------------------------------------------------------------- results.db


@dataclass
class Row:
    """One submission of a run: its dataset row, the answer, the grounding module's passages (``None``:
    the run used none) and each metric's rating."""

    variables: Dict[str, object]
    answer: Optional[str]
    grounding: Optional[List[Tuple[str, str]]] = None
    ratings: Dict[str, Union[float, Tuple[str, str], None]] = field(default_factory=dict)
    repetition: int = 1


@dataclass
class RunSpec:
    id: str
    name: str
    rows: List[Row]
    template: str = GROUNDING_TEMPLATE
    model: Tuple[str, str] = MODEL


SCHEMA = """
CREATE TABLE run (id TEXT PRIMARY KEY, name TEXT, config TEXT, tags TEXT, created_at TEXT, updated_at TEXT);
CREATE TABLE configuration (id TEXT PRIMARY KEY, test_datasets TEXT, metrics TEXT, variable_mapping TEXT, tags TEXT,
                            orchestration_deployment_url TEXT, repetitions INTEGER, metric_templates TEXT,
                            created_at TEXT, updated_at TEXT);
CREATE TABLE submission (id TEXT PRIMARY KEY, run_id TEXT, orchestration_configuration TEXT, template_variables TEXT,
                         created_at TEXT, updated_at TEXT);
CREATE TABLE submission_result (submission_id TEXT, run_id TEXT, repetition_count INTEGER, completion_result TEXT,
                                latency REAL, created_at TEXT, updated_at TEXT);
CREATE TABLE evaluation_result (submission_id TEXT, run_id TEXT, repetition_count INTEGER, metric TEXT,
                                aggregating_value REAL, metric_result TEXT, error TEXT, created_at TEXT,
                                updated_at TEXT);
"""

STAMP = "2025-11-14 05:38:21.964128"


def metric_templates() -> List[dict]:
    """The definitions configuration.metric_templates holds: SAP's built-in groundedness (its scale
    in additionalProperties, as SAP's system metrics give it) and groundlab's own (a structured
    metric: its scale is its rubric's ratings)."""
    return [{"evaluationMethod": "llm-as-a-judge", "scenario": "genai-evaluations", "managedBy": "imperative",
             "metricType": "evaluation", "systemPredefined": True, "id": "5f0c7a6e-3a2b-4f51-9d0e-1d2c3b4a5f60",
             "name": GROUNDEDNESS, "version": "1.0.0",
             "description": "Evaluates if the LLM response is supported by the provided context.",
             "additionalProperties": {"variables": [], "output_type": "numerical", "supported_values": [1, 3],
                                      "experimental": False}},
            {"id": "2b3cc135-a031-4d93-8641-1f3833797034", "createdAt": "2025-11-14 05:10:58.078072",
             "name": OURS, "scenario": "genai-evaluations", "version": "1", "evaluationMethod": "llm-as-a-judge",
             "managedBy": "imperative", "systemPredefined": False, "usageType": ["evaluation"],
             "spec": {"promptType": "structured", "outputType": "numerical", "configuration": {
                 "modelConfiguration": {"name": "gpt-4o", "version": "2024-08-06",
                                        "parameters": [{"key": "temperature", "value": "0"}]},
                 "promptConfiguration": {"ratingRubric": [{"rating": 3, "rule": "grounded"},
                                                          {"rating": 2, "rule": "unsupported"},
                                                          {"rating": 1, "rule": "contradicted"}]}}}}]


def orchestration_config(spec: RunSpec, grounding: bool) -> dict:
    modules: Dict[str, object] = {"prompt_templating": {
        "prompt": {"template": [{"content": spec.template, "role": "user"}]},
        "model": {"name": spec.model[0], "version": spec.model[1], "timeout": 600, "max_retries": 2}}}
    if grounding:
        modules["grounding"] = {"type": "document_grounding_service", "config": {
            "filters": [{"id": "notes", "data_repositories": ["*"], "data_repository_type": "vector"}],
            "placeholders": {"input": ["question"], "output": "groundingOutput"}}}
    return {"modules": modules}


def results_db(path: Path, runs: List[RunSpec], templates: Optional[List[dict]] = None, *,
               quote_names: bool = True) -> Path:
    """A results.db in SAP's shape holding ``runs``."""
    if path.exists():
        path.unlink()
    connection = sqlite3.connect(path)
    connection.executescript(SCHEMA)
    templates = metric_templates() if templates is None else templates
    names = sorted({m for spec in runs for row in spec.rows for m in row.ratings})
    connection.execute("INSERT INTO configuration VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       ("076096962816435e8e03c0aed7fa4743", json.dumps({"path": "testdata/labeled.csv", "type": "csv"}),
                        json.dumps(names), "{}", "{}",
                        "https://api.ai.example.eu-central-1.aws.ml.hana.ondemand.com/v2/inference/deployments/d9289",
                        1, json.dumps(templates), STAMP, STAMP))
    k = 0
    for spec in runs:
        grounding = any(row.grounding is not None for row in spec.rows)
        config = json.dumps(orchestration_config(spec, grounding))
        connection.execute("INSERT INTO run VALUES (?, ?, ?, ?, ?, ?)", (spec.id, spec.name, config, "{}", STAMP, STAMP))
        for n, row in enumerate(spec.rows):
            sid = f"{spec.id[:8]}{n:024x}"
            if row.repetition == 1:
                connection.execute("INSERT INTO submission VALUES (?, ?, ?, ?, ?, ?)",
                                   (sid, spec.id, config, json.dumps(row.variables, ensure_ascii=False), STAMP, STAMP))
            else:
                sid = f"{spec.id[:8]}{(n - row.repetition + 1):024x}"
            context = row.grounding
            evidence = grounding_result(context) if context is not None else None
            prompt = spec.template.replace("{{?question}}", str(row.variables.get("question", ""))).replace(
                "{{?groundingOutput}}", evidence or "").replace("{{?context}}", str(row.variables.get("context", "")))
            if row.answer is not None or row.ratings:
                connection.execute("INSERT INTO submission_result VALUES (?, ?, ?, ?, ?, ?, ?)",
                                   (sid, spec.id, row.repetition,
                                    json.dumps(completion(k, prompt, row.answer, evidence, spec.model[0])),
                                    9.1 + k % 7, STAMP, STAMP))
            k += 1
            for metric, rating in row.ratings.items():
                stored = json.dumps(metric) if quote_names else metric
                if isinstance(rating, tuple):
                    connection.execute("INSERT INTO evaluation_result VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                       (sid, spec.id, row.repetition, stored, None, None, rating[1], STAMP, STAMP))
                    continue
                result = {"explanation": f"Rated {rating:g}: " + ("every statement is backed by the context."
                                                                  if rating >= 3 else "a statement is not backed."),
                          "rating": rating}
                connection.execute("INSERT INTO evaluation_result VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                   (sid, spec.id, row.repetition, stored, rating, json.dumps(result), None, STAMP,
                                    STAMP))
    connection.commit()
    connection.close()
    return path


def dataset_rows(dataset: Path) -> List[Dict[str, object]]:
    """The rows of a dataset ``groundlab sap dataset`` wrote, as the evaluation keeps them."""
    if dataset.suffix == ".jsonl":
        return _read_jsonl(dataset)
    with open(dataset, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def scenario(dataset: Path) -> List[RunSpec]:
    """The two runs of docs/sap.md's evaluation of ``dataset``."""
    text = notes()
    rows = dataset_rows(dataset)
    b = {c["id"]: c for c in _read_jsonl(DATA / "grounded_cases_b.jsonl")}
    a = {c["id"]: c for c in _read_jsonl(DATA / "grounded_cases.jsonl")}
    grounding, context = [], []
    for row in rows:
        cid = str(row["case_id"])
        retrieved = [(pid, text[pid]) for pid in b[cid]["retrieved"]]
        grounding.append(Row(row, b[cid]["answer"], retrieved,
                             {m: RATINGS["grounding"][m][cid] for m in (GROUNDEDNESS, OURS)}))
        context.append(Row(row, a[cid]["answer"], None, {m: RATINGS["context"][m][cid] for m in (GROUNDEDNESS, OURS)}))
    return [RunSpec("960997700d79409680974700c0d67825", "Run-grounding-gpt-4o-2024-08-06", grounding),
            RunSpec("a7c3e1f05b2d4c6e8f9a0b1c2d3e4f50", "Run-context-gpt-4o-2024-08-06", context, CONTEXT_TEMPLATE)]


def aggregates(runs: List[RunSpec], execution: str = "e8d0adb660289477", quote: Tuple[str, ...] = (OURS,)) -> dict:
    """The tracking API's answer for ``runs``: counts per rating, mean, submissions, latency; the
    names of the metrics in ``quote`` JSON-quoted, as they may arrive."""
    resources = []
    for n, spec in enumerate(runs):
        metrics = []
        stamp = f"2025-11-14T05:52:{15 + n:02d}Z"
        for metric in sorted({m for row in spec.rows for m in row.ratings}):
            values = [row.ratings[metric] for row in spec.rows if not isinstance(row.ratings.get(metric), tuple)
                      and row.ratings.get(metric) is not None]
            shown = json.dumps(metric) if metric in quote else metric
            for rating in (1, 2, 3):
                metrics.append({"name": f"{shown}/{rating}/count", "value": float(values.count(rating)),
                                "timestamp": stamp, "step": 0, "labels": []})
            metrics.append({"name": f"{shown}/mean", "value": round(sum(values) / len(values), 6),
                            "timestamp": stamp, "step": 0, "labels": []})
        metrics.append({"name": "submission/sum", "value": float(len(spec.rows)), "timestamp": stamp, "step": 0,
                        "labels": []})
        metrics.append({"name": "latency/average", "value": 12.4, "timestamp": stamp, "step": 0, "labels": []})
        resources.append({"executionId": execution, "metrics": metrics,
                          "tags": [{"name": "evaluation.ai.sap.com/child-of", "value": execution},
                                   {"name": "evaluation.ai.sap.com/run-name", "value": spec.name},
                                   {"name": "evaluation.ai.sap.com/model", "value": spec.model[0]}],
                          "customInfo": []})
    return {"count": len(resources), "resources": resources}


def write_results(folder: Path, dataset: Path) -> Tuple[Path, Path]:
    runs = scenario(dataset)
    db = results_db(folder / "results.db", runs)
    metrics = folder / "metrics.json"
    metrics.write_text(json.dumps(aggregates(runs), indent=1) + "\n", encoding="utf-8")
    return db, metrics


if __name__ == "__main__":  # pragma: no cover - docs/sap.md says how to run it
    sys.path.insert(0, str(ROOT))
    target = Path(sys.argv[1])
    if len(sys.argv) > 2:
        print(*write_results(target, target / sys.argv[2]))
    else:
        print(*write_logs(target))
