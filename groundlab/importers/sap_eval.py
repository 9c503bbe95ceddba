"""SAP AI Core evaluations: what a run leaves, read back.

An evaluation (scenario ``genai-evaluations``) sends every row of its dataset through an
orchestration deployment, once per run (one run a model or orchestration configuration) and
repetition, and judges each response with the metrics it was given. It leaves:

- **results.db**, a SQLite file in the execution's output artifact, whose tables (as SAP's
  tutorials show them, read with ``SELECT *``) are ``run`` (``id``, ``name``, ``config``,
  ``tags``), ``configuration`` (``test_datasets``, ``metrics``, ``variable_mapping``,
  ``metric_templates``: each metric's definition), ``submission`` (``id``, ``run_id``,
  ``orchestration_configuration``, ``template_variables``: the dataset row, as JSON),
  ``submission_result`` (``submission_id``, ``run_id``, ``repetition_count``,
  ``completion_result``: the orchestration response, ``latency``) and ``evaluation_result``
  (``submission_id``, ``run_id``, ``repetition_count``, ``metric``: its name as a JSON string,
  quotes included, ``aggregating_value``: the rating, ``metric_result``: the judge's JSON,
  ``error``);
- **aggregated metrics** in AI Core's tracking service (``GET /v2/lm/metrics?tagFilters=
  evaluation.ai.sap.com/child-of={executionId}``): ``{"count", "resources": [{"executionId",
  "metrics": [{"name", "value", "timestamp", ...}], "tags": [{"name", "value"}]}]}``, with names
  such as ``<metric>/<rating>/count``, ``<metric>/mean``, ``submission/sum``.

:func:`read_results` turns each run of a results.db into answer-log records (one a submission and
repetition): the question from the row's template variables, the answer (``final_result``), the
passages of the grounding module when the run used one (read by
:func:`groundlab.importers.sap.grounding_passages`, as the orchestration import reads them), else
those ``groundlab sap dataset`` put in the row; and in ``meta.platform`` every metric's rating,
explanation and error, with its scale (:mod:`groundlab.core.platform`). People's labels written
into the dataset (:data:`LABELS`) come back only for an answer that is the one they labeled (a
run writes its answers anew) over the passages they judged it against (:data:`PASSAGES`, compared by
content, :func:`same_passages`): a grounding module that retrieves other passages leaves the case
unlabeled, counted in a note. :func:`read_aggregates` reads the tracking API's answer as rows for
a trend, one a run and metric.

May import :mod:`groundlab.core` and the importers beside it; the package's :func:`import_cases`
converts and writes what this module reads.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import sqlite3
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..core.io import PathLike, display_name, parse_labels, sha256_text
from ..core.platform import KNOWN_SCALES, PLATFORM, RATINGS, read_rating
from ..core.records import InputError, one_line
from .common import Bad, Draft, RowError, Source, columns_of, passages, present, preview
from .sap import QUESTION_NAMES, from_label, grounding_passages, response_parts

NAME = "sap-eval"
TITLE = "SAP AI Core evaluation"

#: The first bytes of every SQLite database file.
SQLITE_MAGIC = b"SQLite format 3\x00"
#: The file name endings of a SQLite database: such a file is read as an evaluation's results.db
#: without ``--from``, and one that is not SQLite is said to be none.
DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3")

#: The tables a run's results.db holds, and the columns read from each.
TABLES: Dict[str, Tuple[str, ...]] = {
    "run": ("id", "name", "config"),
    "submission": ("id", "run_id", "template_variables"),
    "submission_result": ("submission_id", "run_id", "repetition_count", "completion_result"),
    "evaluation_result": ("submission_id", "run_id", "repetition_count", "metric", "aggregating_value",
                          "metric_result", "error"),
}
#: Read when there: each metric's definition, whose rubric gives its scale.
OPTIONAL_TABLES: Dict[str, Tuple[str, ...]] = {"configuration": ("metric_templates",)}

# The dataset columns ``groundlab sap dataset`` writes beside the prompt template's variables;
# the evaluation keeps the whole row with each submission, so they come back here.
#: The case's id.
CASE_ID = "case_id"
#: The question (the template variable ``{{?question}}``).
QUESTION = "question"
#: The passages, each ``[id] text``, for a template without a grounding module (``{{?context}}``).
CONTEXT = "context"
#: The passages as JSON (``[{"id", "text"}]``), to read them back when the run used no grounding module.
PASSAGES = "passages"
#: People's labels, one per claim (JSON), of the answer whose SHA-256 :data:`LABELED_ANSWER` holds.
LABELS = "labels"
LABELED_ANSWER = "labeled_answer_sha256"
ANSWERABLE = "answerable"
CLASSIFICATION = "classification"
#: The columns read here; the others are kept in ``meta.dataset``.
DATASET_COLUMNS = (CASE_ID, QUESTION, CONTEXT, PASSAGES, LABELS, LABELED_ANSWER, ANSWERABLE, CLASSIFICATION)

#: Template variables that hold the question, besides those of SAP's orchestration logs.
_QUESTION_VARIABLES = (QUESTION,) + tuple(n for n in QUESTION_NAMES if n != QUESTION) + ("topic", "user_query")

#: How a metric's aggregate is named: ``<metric>/<rating>/count`` or ``<metric>/<statistic>``.
_COUNT = re.compile(r"^(?P<metric>.+)/(?P<rating>-?\d+(?:\.\d+)?)/count$")
_STATISTIC = re.compile(r"^(?P<metric>.+)/(?P<stat>mean|median|p90|p95|stddev)$")


def is_results_db(path: PathLike) -> bool:
    """Whether ``path`` is a SQLite file (by its first bytes)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def metric_name(stored: object) -> str:
    """A metric's name as ``evaluation_result`` stores it, JSON-quoted (``"BERT Score/F1"`` with the
    quotes), or plain.

    >>> metric_name('"Pointwise RAG Groundedness"'), metric_name("groundedness")
    ('Pointwise RAG Groundedness', 'groundedness')
    """
    text = str(stored).strip()
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        try:
            value = json.loads(text)
        except ValueError:
            return text.strip('"')
        if isinstance(value, str):
            return value
    return text


def _json(value: object) -> Any:
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


@dataclass
class Run:
    """One run of an evaluation: its records (one a submission and repetition) as an answer log."""

    id: str
    name: str
    model: Optional[str]
    source: Source
    notes: List[str] = field(default_factory=list)
    metrics: Dict[str, int] = field(default_factory=dict)  # rated answers per metric
    errors: Dict[str, List[str]] = field(default_factory=dict)  # the submissions each metric's judge failed on
    items: List[Any] = field(default_factory=list)  # a Draft, or the Bad saying why not, a submission


@dataclass
class Results:
    """What a results.db holds: its runs, in the order they were made."""

    name: str
    runs: List[Run]
    tables: List[str]
    notes: List[str] = field(default_factory=list)

    def run(self, name: str) -> Run:
        """The run named ``name`` (or with that id); one sentence naming the runs otherwise."""
        for run in self.runs:
            if name in (run.name, run.id):
                return run
        raise InputError(f"{self.name} holds no run {name!r}; its runs are {_names(self.runs)}.")


def _names(runs: Sequence[Run]) -> str:
    return ", ".join(repr(r.name) for r in runs) or "none"


def _connect(path: PathLike) -> sqlite3.Connection:
    name = display_name(path)
    if not is_results_db(path):
        raise InputError(f"{name} is not a SQLite database, so not an evaluation's results.db; download the "
                         "results.db of the execution's output artifact (evaluation_result) and import that.")
    try:
        connection = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
        connection.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{name} cannot be read as a SQLite database ({exc}); download it again.") from None
    return connection


def _tables(connection: sqlite3.Connection, name: str) -> Dict[str, List[str]]:
    found = {row[0]: [] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = [t for t in TABLES if t not in found]
    if missing:
        there = ", ".join(sorted(found)) or "none"
        raise InputError(f"{name} has no table{'s' * (len(missing) > 1)} {', '.join(missing)}; an evaluation's "
                         f"results.db holds {', '.join(TABLES)} (its tables: {there}); import the results.db of "
                         "an SAP AI Core evaluation run.")
    for table in list(TABLES) + [t for t in OPTIONAL_TABLES if t in found]:
        columns = [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')]
        wanted = TABLES.get(table) or OPTIONAL_TABLES[table]
        lacking = [c for c in wanted if c not in columns]
        if lacking and table in OPTIONAL_TABLES:  # read when there: the scales then come from SAP's metric list
            del found[table]
            continue
        if lacking:
            raise InputError(f"{name}: the table {table} has no column {', '.join(lacking)} (its columns: "
                             f"{', '.join(columns)}); it is not the results.db of an SAP AI Core evaluation.")
        found[table] = columns
    return found


def _scales(connection: sqlite3.Connection, tables: Mapping[str, List[str]]
            ) -> Tuple[Dict[str, Tuple[float, float]], Dict[str, bool], List[str]]:
    """Each metric's rating scale from its definition in ``configuration.metric_templates``: the
    ratings of its rubric, or the ``supported_values`` SAP lists for it; whether its ratings are
    whole numbers (an LLM-as-a-judge metric's judge answers an integer rating; a rubric's ratings
    say so themselves); and what could not be read there (``configuration row 1's
    metric_templates is not JSON ...``), a phrase each."""
    scales: Dict[str, Tuple[float, float]] = {}
    whole: Dict[str, bool] = {}
    unread: List[str] = []
    if "configuration" not in tables:
        return scales, whole, unread
    for k, (value,) in enumerate(connection.execute("SELECT metric_templates FROM configuration ORDER BY rowid"), 1):
        templates = _json(value)
        if value is None or (isinstance(value, (str, bytes)) and not value.strip()):
            continue
        if not isinstance(templates, list):
            what = (f"is not JSON, but {preview(templates)}" if isinstance(templates, str) else
                    "is JSON but not a list of metric definitions")
            unread.append(f"configuration row {k}'s metric_templates {what}")
            continue
        for t in templates:
            if not isinstance(t, Mapping) or not isinstance(t.get("name"), str):
                continue
            spec = t.get("spec") if isinstance(t.get("spec"), Mapping) else {}
            prompt = ((spec.get("configuration") or {}).get("promptConfiguration") or {}) \
                if isinstance(spec.get("configuration"), Mapping) else {}
            rubric = prompt.get("ratingRubric") if isinstance(prompt, Mapping) else None
            ratings = [r.get("rating") for r in rubric or [] if isinstance(r, Mapping)]
            ratings = [float(r) for r in ratings if isinstance(r, (int, float)) and not isinstance(r, bool)]
            supported = (t.get("additionalProperties") or {}).get("supported_values") \
                if isinstance(t.get("additionalProperties"), Mapping) else None
            if ratings:
                scales[t["name"]] = (min(ratings), max(ratings))
            elif isinstance(supported, list) and len(supported) == 2 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in supported):
                scales[t["name"]] = (float(min(supported)), float(max(supported)))
            whole[t["name"]] = (all(r.is_integer() for r in ratings) if ratings else
                                t.get("evaluationMethod") == "llm-as-a-judge")
    return scales, whole, unread


def scale_of(metric: str, scales: Mapping[str, Tuple[float, float]]) -> Optional[Tuple[float, float]]:
    """``metric``'s scale: its own definition's, else its family's (``BERT Score/F1`` is a ``BERT
    Score``), else the one SAP documents for a built-in metric."""
    for name in (metric, metric.split("/", 1)[0]):
        if name in scales:
            return scales[name]
        if name in KNOWN_SCALES:
            return tuple(float(v) for v in KNOWN_SCALES[name])  # type: ignore[return-value]
    return None


def whole_ratings(metric: str, whole: Mapping[str, bool]) -> bool:
    """Whether ``metric`` rates in whole numbers only: as its own definition (or its family's) says
    (:func:`_scales`), else when it is one of SAP's built-in LLM-as-a-judge metrics, whose judge
    answers an integer rating. A computed metric (BERT Score, BLEU, ROUGE) rates in fractions."""
    for name in (metric, metric.split("/", 1)[0]):
        if name in whole:
            return whole[name]
        if name in KNOWN_SCALES:
            return True
    return False


def _number(value: object) -> Optional[float]:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return None if isinstance(value, float) and math.isnan(value) else float(value)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return None if math.isnan(number) else number
    return None


def _model(config: object) -> Optional[str]:
    """``name:version`` of the model a run's orchestration configuration names."""
    config = _json(config)
    modules = config.get("modules") if isinstance(config, Mapping) else None
    if not isinstance(modules, Mapping):
        return None
    for module in ("prompt_templating", "llm"):
        part = modules.get(module)
        model = part.get("model") if isinstance(part, Mapping) else None
        if isinstance(model, Mapping) and isinstance(model.get("name"), str):
            version = model.get("version")
            return model["name"] + (f":{version}" if isinstance(version, str) and version else "")
    return None


def _question(variables: Mapping[str, Any], prompt: Optional[str],
              evidence: object) -> Tuple[Optional[str], str, Optional[str]]:
    """The question of a submission, where it was found, and the template variable holding it."""
    lowered = {k.lower(): k for k in variables}
    for name in _QUESTION_VARIABLES:
        key = lowered.get(name)
        if key is not None and isinstance(variables[key], str) and variables[key].strip():
            return variables[key], f"the template variable {key!r}", key
    if prompt:
        found = from_label(prompt, evidence if isinstance(evidence, str) else None)
        if found:
            return found[0], f"the filled prompt, after {found[1]!r}", None
    return None, "", None


def read_results(path: PathLike, *, passage_id_key: Optional[str] = None, metric: Optional[str] = None) -> Results:
    """The runs of an evaluation's ``results.db`` as answer-log records (see the module docstring).

    One sentence, never a traceback, for a file that is not a SQLite database, a table or column
    an evaluation's results hold missing, a ``metric`` no submission was rated by, and a rating
    outside its metric's scale (naming the run, the submission and the metric)."""
    name = display_name(path)
    connection = _connect(path)
    try:
        tables = _tables(connection, name)
        scales, whole, unread = _scales(connection, tables)
        runs = [(str(i), str(n) if n is not None else str(i), c)
                for i, n, c in connection.execute("SELECT id, name, config FROM run ORDER BY rowid")]
        submissions = {}
        for sid, run_id, variables in connection.execute(
                "SELECT id, run_id, template_variables FROM submission ORDER BY rowid"):
            submissions[str(sid)] = (str(run_id), _json(variables))
        completions: Dict[Tuple[str, str], List[Tuple[int, Any]]] = {}
        for row, sid, run_id, repetition, completion in connection.execute(
                "SELECT rowid, submission_id, run_id, repetition_count, completion_result FROM submission_result "
                "ORDER BY rowid"):
            completions.setdefault((str(run_id), str(sid)), []).append(
                (_repetition(repetition, name, "submission_result", row), _json(completion)))
        ratings: Dict[Tuple[str, str, int], Dict[str, dict]] = {}
        alike: Dict[str, int] = {}  # ratings given twice alike, by run
        for row, sid, run_id, repetition, stored, value, result, error in connection.execute(
                "SELECT rowid, submission_id, run_id, repetition_count, metric, aggregating_value, metric_result, "
                "error FROM evaluation_result ORDER BY rowid"):
            key = (str(run_id), str(sid), _repetition(repetition, name, "evaluation_result", row))
            entry = {"value": value, "result": _json(result), "error": error, "row": row}
            per, rated = ratings.setdefault(key, {}), metric_name(stored)
            if rated in per and (metric is None or rated == metric):
                _twice(name, rated, key, per[rated], entry)
                alike[key[0]] = alike.get(key[0], 0) + 1
            per.setdefault(rated, entry)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{name} cannot be read as an evaluation's results ({exc}); download it again.") from None
    finally:
        connection.close()
    if not runs:
        raise InputError(f"{name} holds no run; the evaluation wrote no results into it.")
    names = {m for per in ratings.values() for m in per}
    if metric is not None and metric not in names:
        raise InputError(f"{name}: no answer was rated by the metric {metric!r}; its metrics are "
                         f"{', '.join(repr(m) for m in sorted(names)) or 'none'} (the name as the evaluation stores "
                         "it, without its quotes).")
    out = Results(name, [], sorted(tables))
    for run_id, run_name, config in runs:
        run = _run(name, run_id, run_name, _model(config), submissions, completions, ratings, scales, passage_id_key,
                   metric, whole)
        if alike.get(run_id):
            n = alike[run_id]
            run.notes.append(f"ratings: {n} evaluation_result row{'s' * (n != 1)} repeat{'s' * (n == 1)} a rating "
                             "given alike before (the same submission, repetition and metric), read once.")
        if unread:  # read on as without definitions: SAP's documented scales for its built-in metrics
            run.notes.insert(0, f"note: run {run_name!r}: {'; '.join(unread)}, so its metrics' scales are read "
                                "without those definitions (a built-in metric's as SAP documents it; another's is "
                                "unknown, and agree --against needs --grounded-at for it).")
        out.runs.append(run)
    return out


def _run(name: str, run_id: str, run_name: str, model: Optional[str], submissions, completions, ratings, scales,
         passage_id_key: Optional[str], only: Optional[str], whole: Mapping[str, bool]) -> Run:
    items: List[Any] = []
    records: List[dict] = []
    refs: Dict[int, str] = {}
    grounded: List[Tuple[int, object, object]] = []
    how_asked: Dict[str, int] = {}
    without_grounding = from_dataset = no_passages = dropped_labels = repeated = 0
    labeled: Dict[int, _Labels] = {}  # people's labels of an item, by its number, and the passages they read
    run = Run(run_id, run_name, model, Source(f"{name} run {run_name!r}", "sqlite", "submission", [], []))
    for sid, (owner, variables) in submissions.items():
        if owner != run_id:
            continue
        variables = variables if isinstance(variables, Mapping) else {}
        for repetition, completion in completions.get((run_id, sid), [(1, None)]):
            k = len(items) + 1
            ref = f"submission {sid}" + (f" repetition {repetition}" if repetition != 1 else "")
            refs[k] = ref
            records.append({CLASSIFICATION: variables.get(CLASSIFICATION)} if present(variables.get(CLASSIFICATION))
                           else {})
            if isinstance(completion, str) and isinstance(_json(completion), Mapping):
                completion = _json(completion)  # a response kept as a JSON string of its JSON
            parts = response_parts(completion)
            answer = parts[1] if parts else None
            if answer is None or not answer.strip():
                if parts:
                    why = "its orchestration response holds no answer (final_result.choices[0].message.content)"
                elif completion is None or (isinstance(completion, str) and not completion.strip()):
                    why = "no orchestration response was recorded for it in submission_result"
                elif isinstance(completion, str):
                    why = (f"its orchestration response recorded in submission_result (completion_result) is not "
                           f"JSON, but {preview(completion)}")
                else:
                    why = ("its orchestration response recorded in submission_result (completion_result) is JSON "
                           "without an orchestration response's intermediate_results (or module_results)")
                items.append(Bad(ref, why))
                continue
            question, how, key = _question(variables, parts[4], parts[3])
            if question is None:
                items.append(Bad(ref, "its dataset row holds no question (a template variable named question, "
                                      "query, topic, ...) and its filled prompt labels none"))
                continue
            how_asked[how] = how_asked.get(how, 0) + 1
            cid = variables.get(CASE_ID)
            cid = str(cid).strip() if present(cid) and isinstance(cid, (str, int)) else sid
            if repetition != 1:
                cid, repeated = f"{cid}~{repetition}", repeated + 1
            draft = Draft(ref, question, answer, [], cid)
            if not parts[2]:
                without_grounding += 1
                given = _json(variables.get(PASSAGES))
                if isinstance(given, list) and given:
                    try:
                        draft.passages = passages(given, PASSAGES)
                    except RowError as error:
                        items.append(Bad(ref, str(error)))
                        continue
                    from_dataset += 1
                else:
                    no_passages += 1
            labels = _json(variables.get(LABELS))
            person = _Labels()
            if isinstance(labels, list):
                if variables.get(LABELED_ANSWER) == sha256_text(answer):
                    try:
                        person.labels = list(parse_labels(labels, ""))
                    except InputError as error:
                        items.append(Bad(ref, str(error)[2:].rstrip(".")))
                        continue
                else:
                    dropped_labels += 1
            answerable = variables.get(ANSWERABLE)
            if isinstance(answerable, str):
                answerable = {"true": True, "false": False}.get(answerable.strip().lower())
            if isinstance(answerable, bool):
                person.answerable = answerable
            if person:  # people's labels hold for the passages they read: compared once the run's are known
                judged = _json(variables.get(PASSAGES))
                try:
                    person.passages = passages(judged, PASSAGES) if isinstance(judged, list) else None
                except RowError:
                    person.passages = None
                labeled[k] = person
            platform: Dict[str, Any] = {"source": NAME, "run": run_name, "run_id": run_id, "submission_id": sid}
            if repetition != 1:
                platform["repetition"] = repetition
            if model:
                platform["model"] = model
            final = completion.get("final_result") or completion.get("orchestration_result")
            if isinstance(final, Mapping) and isinstance(final.get("model"), str):
                platform["served_model"] = final["model"]
            platform[RATINGS] = _ratings(name, run_name, f"{ref} (case {cid})", cid,
                                         ratings.get((run_id, sid, repetition), {}), scales, whole, only, run)
            draft.meta = {PLATFORM: platform}
            rest = {k2: v for k2, v in variables.items() if k2 not in DATASET_COLUMNS and k2 != key and present(v)}
            if rest:
                draft.meta["dataset"] = rest
            if parts[2]:
                grounded.append((k, parts[3], answer))
            items.append(draft)
    if grounded:
        found = grounding_passages([(refs[k], evidence, answer) for k, evidence, answer in grounded],
                                   passage_id_key, run.notes)
        for (k, _, _), result in zip(grounded, found):
            if isinstance(result, RowError):
                items[k - 1] = Bad(refs[k], str(result))
            else:
                items[k - 1].passages = result
    other_passages: List[str] = []
    unknown_passages: List[str] = []
    for k, person in labeled.items():
        draft = items[k - 1]
        if not isinstance(draft, Draft):
            continue
        if person.passages is None:
            unknown_passages.append(draft.id or refs[k])
        elif not same_passages(person.passages, draft.passages):
            other_passages.append(draft.id or refs[k])
        else:
            draft.labels, draft.answerable = person.labels, person.answerable
    run.items = items
    run.source = Source(f"{name} run {run_name!r}", "sqlite", "submission", list(enumerate(records, 1)),
                        columns_of(records), refs=refs)
    if grounded and without_grounding:
        run.notes.append(f"passages: the grounding module's in {len(grounded)} answers; {without_grounding} "
                         "ran without it.")
    if from_dataset:
        run.notes.append(f"passages: {from_dataset} answer{'s' * (from_dataset != 1)} ran without the grounding "
                         "module; their passages are the dataset row's (the passages column of groundlab sap "
                         "dataset), as the prompt template was given them.")
    if no_passages:
        run.notes.append(f"passages: none for {no_passages} answer{'s' * (no_passages != 1)}: the run used no "
                         "grounding module and the dataset row holds no passages column.")
    for how, n in how_asked.items():
        run.notes.append(f"questions: from {how} ({n} answer{'s' * (n != 1)}).")
    if repeated:
        run.notes.append(f"repetitions: {repeated} further answer{'s' * (repeated != 1)} to the same rows, each a "
                         "case of its own (its id ends in ~2, ~3, ...).")
    if dropped_labels:
        run.notes.append(f"labels: left out on {dropped_labels} answer{'s' * (dropped_labels != 1)} the run wrote "
                         "anew (people labeled another answer to the same question); label the run's answers "
                         "('groundlab label export').")
    if other_passages:
        run.notes.append(f"labels: left out on {_some(other_passages)}, whose passages differ from those people judged "
                         "the labeled answer against (the grounding module retrieved others: a verdict holds for "
                         "the passages it was given); these cases are unlabeled: label the run's answers "
                         "('groundlab label export').")
    if unknown_passages:
        run.notes.append(f"labels: left out on {_some(unknown_passages)}: the dataset row does not say which passages "
                         "people judged against (it has no passages column), so whether their labels hold for this "
                         "run's passages cannot be told; write the dataset with 'groundlab sap dataset', or label the "
                         "run's answers.")
    for metric, n in run.metrics.items():
        scale = scale_of(metric, scales)
        failed = run.errors.get(metric, [])
        run.notes.append(f"ratings: {metric}" + (f" ({scale[0]:g} to {scale[1]:g})" if scale else "") +
                         f" on {n} answer{'s' * (n != 1)}" +
                         (f"; its judge failed on {len(failed)} ({', '.join(failed[:3])}"
                          f"{', ...' if len(failed) > 3 else ''}), left unrated" if failed else "") + ".")
    return run


def _rating(value: object, result: Mapping[str, Any]) -> Tuple[Optional[float], Optional[str]]:
    """The rating of an evaluation_result row: its aggregating_value, else its metric_result's
    rating (:func:`~groundlab.core.platform.read_rating`: what a value that is no rating is)."""
    rating, bad = read_rating(value)
    if rating is None and bad is None:
        rating, bad = read_rating(result.get("rating"))
    return rating, bad


def _repetition(value: object, name: str, table: str, row: int) -> int:
    """A row's repetition_count: 1, 2, ... (none or 0: the first)."""
    count, bad = read_rating(value)
    if bad is None and (count is None or count == 0):
        return 1
    if bad is not None or count is None or count < 1 or not count.is_integer():
        raise InputError(f"{name}: {table} row {row} has the repetition_count {bad or f'{count:g}'}, not a whole "
                         "number of 1 or more (an evaluation counts each row's repetitions 1, 2, ...); the file "
                         "cannot be read as it is: correct that row, or download the results.db again.")
    return int(count)


def _twice(name: str, metric: str, key: Tuple[str, str, int], first: Mapping[str, Any], again: Mapping[str, Any]
           ) -> None:
    """Refuse two ratings of one answer by one metric that differ: the file cannot say which holds."""
    def reading(entry: Mapping[str, Any]) -> Tuple[Any, ...]:
        result = entry["result"] if isinstance(entry["result"], Mapping) else {}
        rating, bad = _rating(entry["value"], result)
        return rating, bad, present(entry["error"]) and str(entry["error"])

    if reading(first) == reading(again):
        return
    shown = [(f"{r[0]:g}" if r[0] is not None else r[1] or "no rating") + (f" ({one_line(r[2])})" if r[2] else "")
             for r in (reading(first), reading(again))]
    run, sid, repetition = key
    raise InputError(f"{name}: evaluation_result rows {first['row']} and {again['row']} both rate submission "
                     f"{one_line(sid)} (run {one_line(run)}, repetition {repetition}) by {one_line(metric)}, "
                     f"{shown[0]} and {shown[1]}, and the file cannot say which holds; delete the row that does not "
                     f"(sqlite3 "
                     f"{shlex.quote(name)} \"DELETE FROM "
                     f"evaluation_result WHERE rowid = {again['row']}\", or {first['row']}), or import another metric "
                     "with --metric.")


@dataclass
class _Labels:
    """What people said of a dataset row (its answer's claims, whether it can be answered) and the
    passages they said it of."""

    labels: Optional[List[str]] = None
    answerable: Optional[bool] = None
    passages: Optional[List[dict]] = None

    def __bool__(self) -> bool:
        return self.labels is not None or self.answerable is not None


def _content(text: object) -> str:
    return " ".join(unicodedata.normalize("NFC", str(text)).split())


def same_passages(judged: Sequence[Mapping[str, Any]], given: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``given`` are the passages people ``judged``, by their content: the same texts (in
    any order, their spaces and line breaks aside), whatever ids they go by.

    >>> same_passages([{"id": "D1", "text": "Refunds in 30 days."}], [{"id": "doc-1", "text": "Refunds  in 30 days. "}])
    True
    >>> same_passages([{"id": "D1", "text": "Refunds in 30 days."}], [{"id": "D1", "text": "Refunds in 14 days."}])
    False
    """
    return sorted(_content(p.get("text", "")) for p in judged) == sorted(_content(p.get("text", "")) for p in given)


def _some(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
    return f"{len(ids)} answer{'s' * (len(ids) != 1)} ({shown})"


def _ratings(name: str, run_name: str, ref: str, cid: str, found: Mapping[str, dict], scales,
             whole: Mapping[str, bool], only: Optional[str], run: Run) -> Dict[str, dict]:
    out: Dict[str, dict] = {}
    for metric, row in found.items():
        if only is not None and metric != only:
            continue
        result = row["result"] if isinstance(row["result"], Mapping) else {}
        where = f"{name} run {run_name!r} {ref}: {one_line(metric)}"
        fix = f"the file cannot be read as it is: correct or delete evaluation_result row {row['row']}."
        rating, bad = _rating(row["value"], result)
        if bad is not None:
            raise InputError(f"{where} rated {bad} (evaluation_result row {row['row']}), which is not a number, "
                             f"so not a rating that metric gives; {fix}")
        error = row["error"] if present(row["error"]) else None
        explanation = result.get("explanation") if isinstance(result.get("explanation"), str) else None
        scale = scale_of(metric, scales)
        if rating is not None and scale is not None and not scale[0] <= rating <= scale[1]:
            raise InputError(f"{where} rated {rating:g} (evaluation_result row {row['row']}), outside its scale "
                             f"{scale[0]:g} to {scale[1]:g}; this is not a rating that metric gives, so {fix}")
        if rating is not None and not rating.is_integer() and whole_ratings(metric, whole):
            among = f" from {scale[0]:g} to {scale[1]:g}" if scale is not None else ""
            raise InputError(f"{where} rated {rating:g} (evaluation_result row {row['row']}), not a whole number, "
                             f"while its judge rates in whole numbers{among}; this is not a rating that metric "
                             f"gives, so {fix}")
        if rating is None and error is None:
            error = "no rating recorded"
        entry: Dict[str, Any] = {"rating": rating, "explanation": explanation, "error": str(error) if error else None}
        if scale is not None:
            entry["scale"] = [scale[0], scale[1]]
        out[metric] = entry
        run.metrics[metric] = run.metrics.get(metric, 0) + 1
        if rating is None:
            run.errors.setdefault(metric, []).append(cid)
    return out


# ---------------------------------------------------------------- the tracking API's aggregates


@dataclass(frozen=True)
class Aggregate:
    """A run's aggregated figures for one metric."""

    execution_id: str
    run: str
    model: Optional[str]
    metric: str
    counts: Dict[str, float]
    statistics: Dict[str, float]
    timestamp: Optional[str]

    @property
    def answers(self) -> int:
        return int(sum(self.counts.values()))

    def row(self) -> dict:
        return {"execution_id": self.execution_id, "run": self.run, "model": self.model, "metric": self.metric,
                "answers": self.answers, "counts": {k: int(v) for k, v in self.counts.items()},
                **{k: v for k, v in self.statistics.items()}, "timestamp": self.timestamp}


def _split_name(name: str) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    """``(metric, rating, statistic)`` of an aggregate's name; the metric may arrive JSON-quoted."""
    for pattern, kind in ((_COUNT, "rating"), (_STATISTIC, "stat")):
        match = pattern.match(name)
        if match:
            metric = metric_name(match.group("metric"))
            return (metric, match.group("rating"), None) if kind == "rating" else (metric, None, match.group("stat"))
    return None, None, None


def read_aggregates(path: PathLike, *, metric: Optional[str] = None) -> List[Aggregate]:
    """The aggregated metrics of the tracking API's answer (see the module docstring): one
    :class:`Aggregate` a run and rated metric (one with ``<metric>/<rating>/count`` figures)."""
    name = display_name(path)
    try:
        with open(path, "rb") as fh:
            doc = json.loads(fh.read().decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{name} is not JSON ({exc}); save the tracking API's answer (GET /v2/lm/metrics?tagFilters="
                         "evaluation.ai.sap.com/child-of=EXECUTION_ID) as it comes.") from None
    resources = doc.get("resources") if isinstance(doc, dict) else None
    if not isinstance(resources, list):
        raise InputError(f"{name} holds no \"resources\" list; the tracking API answers {{\"count\", \"resources\": "
                         "[{\"executionId\", \"metrics\", \"tags\"}]}, which is what to save.")
    out: List[Aggregate] = []
    seen = set()
    for k, resource in enumerate(resources, 1):
        if not isinstance(resource, dict) or not isinstance(resource.get("metrics"), list):
            raise InputError(f"{name} resource {k} holds no \"metrics\" list; save the tracking API's answer whole.")
        tags = {t.get("name"): t.get("value") for t in resource.get("tags") or [] if isinstance(t, dict)}
        execution = str(resource.get("executionId") or tags.get("evaluation.ai.sap.com/child-of") or "")
        run = str(tags.get("evaluation.ai.sap.com/run-name") or tags.get("evaluation.ai.sap.com/run") or
                  f"resource {k}")
        model = tags.get("evaluation.ai.sap.com/model")
        per: Dict[str, Tuple[Dict[str, float], Dict[str, float], List[str]]] = {}
        for j, entry in enumerate(resource["metrics"], 1):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise InputError(f"{name} resource {k} metric {j} has no name; save the tracking API's answer whole.")
            metric_, rating, stat = _split_name(entry["name"])
            if metric_ is None:
                continue
            value = _number(entry.get("value"))
            if value is None:
                raise InputError(f"{name} resource {k} metric {j} ({entry['name']}) has no number as its value, "
                                 f"but {entry.get('value')!r}.")
            counts, stats, stamps = per.setdefault(metric_, ({}, {}, []))
            if rating is not None:
                if value < 0 or not float(value).is_integer():
                    raise InputError(f"{name} resource {k} metric {j} ({entry['name']}) counts {value:g} answers; a "
                                     "count is a whole number, 0 or more.")
                counts[f"{float(rating):g}"] = value
            else:
                stats[stat] = value
            if isinstance(entry.get("timestamp"), str):
                stamps.append(entry["timestamp"])
        for metric_, (counts, stats, stamps) in per.items():
            if not counts or (metric is not None and metric_ != metric):
                continue
            scale = scale_of(metric_, {})
            outside = [r for r, n in counts.items() if n and scale is not None and not scale[0] <= float(r) <= scale[1]]
            if outside:
                raise InputError(f"{name} resource {k} (run {run}): {metric_} counts answers rated {outside[0]}, "
                                 f"outside its scale {scale[0]:g} to {scale[1]:g}.")
            key = (execution, run, metric_)
            if key in seen:
                raise InputError(f"{name} holds run {run} of execution {execution} twice; save one answer of the "
                                 "tracking API.")
            seen.add(key)
            out.append(Aggregate(execution, run, model if isinstance(model, str) else None, metric_,
                                 dict(sorted(counts.items(), key=lambda kv: float(kv[0]))), stats,
                                 max(stamps) if stamps else None))
    if metric is not None and not out:
        names = sorted({_split_name(e.get("name", ""))[0] for r in resources if isinstance(r, dict)
                        for e in r.get("metrics") or [] if isinstance(e, dict) and isinstance(e.get("name"), str)}
                       - {None})
        raise InputError(f"{name}: no run has counts for the metric {metric!r}; its metrics are "
                         f"{', '.join(repr(n) for n in names) or 'none'}.")
    if not out:
        raise InputError(f"{name} holds no rated metric (no <metric>/<rating>/count figure); it is not the "
                         "aggregated metrics of an evaluation with an LLM-as-a-judge metric.")
    return out


def starts_like_json(path: PathLike) -> bool:
    """Whether ``path`` starts like a JSON object."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"


def looks_like_aggregates(path: PathLike) -> bool:
    """Whether ``path`` starts like the tracking API's answer (a JSON object with ``resources``)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{" and b'"resources"' in head


__all__ = ["Aggregate", "CASE_ID", "CONTEXT", "DATABASE_SUFFIXES", "DATASET_COLUMNS", "LABELED_ANSWER", "LABELS",
           "NAME", "PASSAGES", "QUESTION", "Results", "Run", "TABLES", "is_results_db", "looks_like_aggregates",
           "metric_name", "starts_like_json", "read_aggregates", "read_results", "same_passages", "scale_of",
           "whole_ratings"]
