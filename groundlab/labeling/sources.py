"""Where people's labels come back from, each read into the same rows (:class:`LabelRow`): a
labeling sheet (CSV, filled in a spreadsheet or the labeling view), Label Studio's JSON export of a
project made from ``label export --format label-studio``, and Argilla's exported records of a
dataset made from ``label export --format argilla``. Checking the rows against the cases and
writing the labels is :mod:`groundlab.labeling.importing`.

- **Label Studio** (its "JSON" export): a list of tasks, each with the ``data`` groundlab wrote
  and ``annotations``, one per person: ``completed_by`` (the user's id, or an object with their
  email), ``result`` holding the ``verdict`` choice (``value.choices``), the ``note``
  (``value.text``) and ``answerable``; an annotation ``was_cancelled`` (skipped) is left out, and
  one marked ``ground_truth`` settles the claim. Its "JSON-MIN" export (one flat object per
  annotation) is read too.
- **Argilla** (2.x, ``dataset.records.to_json`` or ``dataset.to_disk``): a list of records with
  ``fields``, ``metadata`` (``case_id``, ``claim_no`` and the fingerprints groundlab wrote) and
  ``responses``, per question a list of ``{"value", "user_id", "status"}``; a response discarded
  or left as a draft is left out. The flat form (``verdict.responses`` beside
  ``verdict.responses.users``) is read too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..core.io import PathLike, read_csv
from ..core.reading import _display, parse_csv, read_text
from ..core.people import PERSON_LABELS, person_label
from ..core.records import InputError
from .sheet import READ_COLUMNS, is_current

#: The names of the questions in the Label Studio config and the Argilla settings groundlab writes.
VERDICT, NOTE, ANSWERABLE = "verdict", "note", "answerable"


@dataclass
class LabelRow:
    """One person's labels of one claim (or of one answer without claims), as a source gives it.

    ``claim`` is the claim text as the source holds it: a sheet's cell (``encoded``: marked
    against formulas, maybe cut) or a tool's plain text. ``None`` for the fingerprints and
    ``retrieved`` means the source does not record them (a sheet of an earlier version); ``blind``
    whether it showed the judge's verdict (``None``: not known)."""

    where: str
    source: str
    case_id: str
    claim_no: str
    claim: str
    label: str = ""
    answerable: str = ""
    annotator: str = ""
    note: str = ""
    settled: str = ""
    retrieved: Optional[str] = None
    passages_sha256: Optional[str] = None
    guidelines: Optional[str] = None
    blind: Optional[bool] = None
    encoded: bool = False
    fragments: bool = True
    #: What the person read, for a sheet of the claims left to settle.
    question: str = ""
    cites: str = ""
    passages: str = ""
    #: The row number in a sheet (what a spreadsheet shows), 0 elsewhere.
    number: int = 0


@dataclass
class Source:
    """The rows one file gave, and what kind of file it was."""

    path: Path
    kind: str  # "sheet", "label-studio" or "argilla"
    rows: List[LabelRow]
    count: int  # rows of a sheet, tasks or records of a tool's export

    @property
    def name(self) -> str:
        return _display(self.path)

    @property
    def unit(self) -> str:
        return {"sheet": "row", "label-studio": "task", "argilla": "record"}[self.kind]


def read_source(path: PathLike) -> Source:
    """The labels in ``path``: a sheet, a Label Studio export or Argilla records, told apart by
    what the file holds (JSON: a tool's export; else a CSV sheet). A folder is read as an Argilla
    dataset saved with ``to_disk`` (its ``records.json``)."""
    path = Path(path)
    if path.is_dir():
        records = path / "records.json"
        if not records.is_file():
            raise InputError(f"{_display(path)} is a folder without records.json; give the labeled sheet, Label "
                             "Studio's JSON export or Argilla's exported records (a file).")
        path = records
    text = read_text(path, "labels")
    head = text.lstrip("\ufeff \t\r\n")[:1]
    if head in ("[", "{"):
        return _read_json(path, text)
    return read_sheet_rows(path, text)


# ---------------------------------------------------------------- a sheet


def read_sheet_rows(path: PathLike, text: Optional[str] = None) -> Source:
    """A sheet's rows. Who labeled a row is its ``annotator`` cell; a row without one is the
    one person the sheet names elsewhere, or, when it names nobody, the sheet itself (its file
    name), so that two people's sheets are two people. A sheet shows the judge's verdict when its
    ``judge_verdict`` column holds any."""
    path = Path(path)
    name = _display(path)
    columns, rows = (read_csv(path, "sheet", READ_COLUMNS) if text is None else
                     parse_csv(text, name, READ_COLUMNS))
    fragments = is_current(columns)
    names = sorted({row.get("annotator", "").strip() for _, row in rows} - {""})
    seeing = any(row.get("judge_verdict", "").strip() for _, row in rows)
    out: List[LabelRow] = []
    for number, row in rows:
        annotator = row.get("annotator", "").strip()
        if not annotator:
            if len(names) > 1 and (row["label"].strip() or row.get("settled", "").strip()):
                raise InputError(f"{name} row {number} carries a label but no annotator, while other rows name "
                                 f"{', '.join(names[:3])}; write who labeled it in its annotator cell.")
            annotator = names[0] if names else path.stem
        get = row.get
        out.append(LabelRow(
            where=f"{name} row {number}", source=name, case_id=row["case_id"], claim_no=row["claim_no"],
            claim=row["claim"], label=row["label"], answerable=row["answerable"], annotator=annotator,
            note=_text(get("note", ""), fragments), settled=get("settled", ""),
            retrieved=get("retrieved") if "retrieved" in columns else None,
            passages_sha256=(get("passages_sha256") or "").strip() or None,
            guidelines=(get("guidelines") or "").strip() or None, blind=not seeing, encoded=True,
            fragments=fragments, question=_text(get("question", ""), fragments), cites=get("cites", ""),
            passages=_text(get("passages", ""), fragments), number=number))
    return Source(path, "sheet", out, len(rows))


def _text(cell: str, fragments: bool) -> str:
    from .cells import from_cell

    return from_cell(cell, fragments)


# ---------------------------------------------------------------- a tool's export


def _read_json(path: Path, text: str) -> Source:
    name = _display(path)
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except ValueError as exc:
        raise InputError(f"{name} is not valid JSON ({exc}); give Label Studio's JSON export or Argilla's "
                         "exported records as the tool wrote them.") from None
    if isinstance(data, dict):  # a single task or record, or an export wrapped in an object
        for key in ("tasks", "records", "data"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            data = [data]
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise InputError(f"{name} is not a list of tasks or records; give Label Studio's JSON export or "
                         "Argilla's exported records as the tool wrote them.")
    if not data:
        raise InputError(f"{name} holds no task or record; export the project or dataset after labeling.")
    first = data[0]
    if "data" in first or "annotations" in first or "completions" in first:
        return Source(path, "label-studio", _label_studio(data, name), len(data))
    if ("fields" in first or "responses" in first or any(key.endswith(".responses") for key in first)
            or ("_server_id" in first and "case_id" in first)):
        return Source(path, "argilla", _argilla(data, name), len(data))
    if "case_id" in first and VERDICT in first:  # Label Studio's JSON-MIN: one flat object per annotation
        return Source(path, "label-studio", _label_studio_min(data, name), len(data))
    raise InputError(f"{name} holds neither Label Studio tasks (with \"data\" and \"annotations\") nor Argilla "
                     "records (with \"fields\" and \"responses\"); give one of their JSON exports.")


def _task_fields(data: Mapping[str, Any], where: str) -> Dict[str, Any]:
    """What groundlab wrote into a task's data or a record's metadata, checked."""
    case_id = data.get("case_id")
    if not isinstance(case_id, (str, int)) or isinstance(case_id, bool) or not str(case_id).strip():
        raise InputError(f"{where} has no case_id; label a project made by 'groundlab label export --format "
                         "label-studio' (or argilla), whose tasks carry it.")
    claim_no = data.get("claim_no")
    claim_no = "" if claim_no in (None, "") else str(claim_no)
    blind = data.get("blind")
    if isinstance(blind, str) and blind.strip().lower() in ("true", "false"):  # Argilla's terms metadata
        blind = blind.strip().lower() == "true"
    return dict(case_id=str(case_id), claim_no=claim_no, claim=str(data.get("claim") or ""),
                retrieved=None if data.get("retrieved") is None else str(data.get("retrieved")),
                passages_sha256=str(data.get("passages_sha256") or "").strip() or None,
                guidelines=str(data.get("guidelines") or "").strip() or None,
                blind=blind if isinstance(blind, bool) else None,
                question=str(data.get("question") or ""), cites=str(data.get("cites") or ""),
                passages=str(data.get("passages") or ""))


def _who(annotation: Mapping[str, Any]) -> str:
    """Who made a Label Studio annotation: the email (or name) when the export gives the user as
    an object or a user name, else ``user <id>``."""
    by = annotation.get("completed_by")
    if isinstance(by, dict):
        for key in ("email", "username"):
            if isinstance(by.get(key), str) and by[key].strip():
                return by[key].strip()
        full = " ".join(str(by.get(k) or "").strip() for k in ("first_name", "last_name")).strip()
        if full:
            return full
        by = by.get("id")
    named = annotation.get("created_username")
    if isinstance(named, str) and named.strip():
        return named.split(",")[0].strip()
    if by is None or by == "":
        return "user (unknown)"
    return f"user {by}"


def _choices(item: Any) -> str:
    value = item.get("value") or {} if isinstance(item, dict) else {}
    choices = value.get("choices") if isinstance(value, dict) else None
    if isinstance(choices, list) and choices:
        return str(choices[0])
    return choices if isinstance(choices, str) else ""


def _choice(result: Sequence[Any], name: str) -> str:
    """The choice of the control ``name``; for the verdict, in a project whose config names its
    controls otherwise, the one choice that is a verdict or "can't tell"."""
    for item in result:
        if isinstance(item, dict) and item.get("from_name") == name:
            return _choices(item)
    if name == VERDICT:
        found = [_choices(item) for item in result if isinstance(item, dict) and item.get("type") == "choices"
                 and person_label(_choices(item)) in PERSON_LABELS]
        if len(found) == 1:
            return found[0]
    return ""


def _note(result: Sequence[Any]) -> str:
    for item in result:
        if isinstance(item, dict) and (item.get("from_name") == NOTE or item.get("type") == "textarea"):
            value = item.get("value") or {}
            text = value.get("text") if isinstance(value, dict) else None
            if isinstance(text, list):
                return " ".join(str(t) for t in text).strip()
            if isinstance(text, str):
                return text.strip()
    return ""


def _label_studio(tasks: List[Dict[str, Any]], name: str) -> List[LabelRow]:
    rows: List[LabelRow] = []
    for k, task in enumerate(tasks, 1):
        where = f"{name} task {task.get('id', k)}"
        data = task.get("data")
        if not isinstance(data, dict):
            raise InputError(f"{where} has no \"data\" object; give Label Studio's JSON export of the project.")
        fields = _task_fields(data, where)
        annotations = task.get("annotations")
        if annotations is None:
            annotations = task.get("completions") or []  # Label Studio before 1.0
        if not isinstance(annotations, list):
            raise InputError(f"{where}: \"annotations\" is not a list; give Label Studio's JSON export as it wrote it.")
        for j, annotation in enumerate(annotations, 1):
            if not isinstance(annotation, dict) or annotation.get("was_cancelled"):
                continue
            result = annotation.get("result") or []
            if not isinstance(result, list):
                continue
            at = f"{where} annotation {annotation.get('id', j)}"
            label = _choice(result, VERDICT)
            truth = bool(annotation.get("ground_truth"))
            rows.append(LabelRow(where=at, source=name, annotator=_who(annotation), label="" if truth else label,
                                 settled=label if truth else "", note=_note(result),
                                 answerable=_choice(result, ANSWERABLE), **fields))
    return rows


def _label_studio_min(items: List[Dict[str, Any]], name: str) -> List[LabelRow]:
    rows: List[LabelRow] = []
    for k, item in enumerate(items, 1):
        where = f"{name} item {item.get('annotation_id', item.get('id', k))}"
        fields = _task_fields(item, where)
        verdict = item.get(VERDICT)
        note = item.get(NOTE)
        annotator = item.get("annotator")
        rows.append(LabelRow(where=where, source=name, label=str(verdict or ""),
                             note=str(note or "").strip() if not isinstance(note, list) else " ".join(map(str, note)),
                             answerable=str(item.get(ANSWERABLE) or ""),
                             annotator=str(annotator).strip() if annotator not in (None, "") else
                             f"user {item.get('completed_by', '(unknown)')}", **fields))
    return rows


#: Argilla responses that are not labels: a record the person set aside, or an answer not submitted.
_NOT_SUBMITTED = ("discarded", "draft")


def _argilla(records: List[Dict[str, Any]], name: str) -> List[LabelRow]:
    rows: List[LabelRow] = []
    for k, record in enumerate(records, 1):
        where = f"{name} record {record.get('id', k)}"
        if "fields" not in record and "metadata" not in record:  # the flat form: everything at the top
            given: Dict[str, Any] = dict(record)
        else:
            fields_given = record.get("fields") or {}
            metadata = record.get("metadata") or {}
            if not isinstance(fields_given, dict) or not isinstance(metadata, dict):
                raise InputError(f"{where}: \"fields\" and \"metadata\" must be objects; give Argilla's exported "
                                 "records as it wrote them.")
            given = {**fields_given, **metadata}
        fields = _task_fields(given, where)
        by_user: Dict[str, Dict[str, str]] = {}
        questions = [VERDICT, NOTE, ANSWERABLE]
        if not _responses(record, VERDICT, where):  # a dataset whose verdict question is named otherwise
            questions[0] = next((q for q in _questions(record) if q not in (NOTE, ANSWERABLE) and any(
                person_label(str(v)) in PERSON_LABELS for _, v, _ in _responses(record, q, where) if v is not None)),
                VERDICT)
        for question in questions:
            for user, value, status in _responses(record, question, where):
                if status in _NOT_SUBMITTED:
                    continue
                if value is None:  # a response left without a value (discarded, in the nested export)
                    continue
                by_user.setdefault(user, {})[VERDICT if question == questions[0] else question] = str(value)
        for user, answers in by_user.items():
            rows.append(LabelRow(where=f"{where} (user {user})", source=name, annotator=user,
                                 label=answers.get(VERDICT, ""), note=answers.get(NOTE, "").strip(),
                                 answerable=answers.get(ANSWERABLE, ""), **fields))
    return rows


def _questions(record: Mapping[str, Any]) -> List[str]:
    """The questions a record holds responses to, nested or flat."""
    responses = record.get("responses")
    if isinstance(responses, dict):
        return list(responses)
    return [key[:-len(".responses")] for key in record if key.endswith(".responses")]


def _responses(record: Mapping[str, Any], question: str, where: str) -> List[Tuple[str, Any, Optional[str]]]:
    """``(user, value, status)`` of each response to ``question`` in a record, nested or flat."""
    responses = record.get("responses")
    if isinstance(responses, dict) and question in responses:
        given = responses[question]
        if not isinstance(given, list):
            raise InputError(f"{where}: the responses to {question!r} are not a list; give Argilla's exported "
                             "records as it wrote them.")
        out = []
        for response in given:
            if not isinstance(response, dict):
                continue
            status = response.get("status")
            out.append((str(response.get("user_id")), response.get("value"),
                        str(status) if status is not None else None))
        return out
    flat = record.get(f"{question}.responses")
    if isinstance(flat, list):
        users = record.get(f"{question}.responses.users") or [None] * len(flat)
        statuses = record.get(f"{question}.responses.status") or [None] * len(flat)
        return [(str(user), value, str(status) if status is not None else None)
                for value, user, status in zip(flat, users, statuses)]
    return []


__all__ = ["ANSWERABLE", "LabelRow", "NOTE", "Source", "VERDICT", "read_sheet_rows", "read_source"]
