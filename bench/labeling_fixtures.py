"""Make the Label Studio and Argilla exports the tests read (tests/data/labeling_tools/), with the
tools' own SDKs: two people labeling the sample set's tasks as groundlab exports them.

The SDKs are heavy (Argilla 2.8 with its dependencies is about 450 MB) and no test needs them,
so they are not among groundlab's requirements: run this in a throwaway virtual environment.

    python -m venv /tmp/sdk && /tmp/sdk/bin/pip install argilla==2.8.0 requests label-studio-sdk==2.1.2
    groundlab label export --cases unlabeled.jsonl --passages data/notes.jsonl --format label-studio --out /tmp/ls
    groundlab label export --cases unlabeled.jsonl --passages data/notes.jsonl --format argilla --out /tmp/ag
    /tmp/sdk/bin/python bench/labeling_fixtures.py /tmp/ls /tmp/ag tests/data/labeling_tools data/grounded_cases.jsonl

(``unlabeled.jsonl``: ``data/grounded_cases.jsonl`` without its ``labels``.) Label Studio's SDK
checks the labeling config and the tasks against each other and builds each annotation's result
(``LabelInterface``); the export around the results is laid out as Label Studio's documentation
gives its JSON export (``id``, ``data``, ``annotations`` with ``completed_by``, ``was_cancelled``,
``ground_truth``, ``result``). Argilla's SDK reads the records (``Record.from_dict``), takes the
responses and writes them as ``dataset.records.to_json`` does (``GenericIO.to_list``), nested and
flat; the settings are checked against its models.

Who labels what: person 1 every claim with the sample set's labels; person 2 (Label Studio:
``ben@example.com``, given as an object; Argilla: user ...02) the claims of c01, c02, c05 and c08,
the same except c05's first claim (unsupported) and c08's (can't tell, with a note). Label Studio
also holds a cancelled annotation (c03) and a ground-truth one settling c08's claim as
contradicted; Argilla a response left without a value (discarded) on c03.
"""

import json
import sys
import uuid
from pathlib import Path

#: The sample set's labels, by case (read from the labeled cases file given last).
SAMPLE_LABELS = {}
SECOND = {("c05", 1): "unsupported", ("c08", 1): "can't tell"}
SECOND_CASES = ("c01", "c02", "c05", "c08")


def labels_of(data, person):
    """(verdict, note) person 1 or 2 gives a task; None where they do not label it."""
    case, number = data["case_id"], data["claim_no"]
    if person == 2 and case not in SECOND_CASES:
        return None
    if number is None:
        return None
    verdict = SAMPLE_LABELS[case][number - 1]
    if person == 2 and (case, number) in SECOND:
        verdict = SECOND[(case, number)]
        return verdict, "the note does not say which block applies" if verdict == "can't tell" else ""
    return verdict, ""


def label_studio(folder: Path, out: Path) -> None:
    from label_studio_sdk.label_interface import LabelInterface

    config = LabelInterface((folder / "label-config.xml").read_text(encoding="utf-8"))
    tasks = json.loads((folder / "tasks.json").read_text(encoding="utf-8"))
    exported = []
    annotation_id = 100
    for k, task in enumerate(tasks, 1):
        assert config.validate_task(task), task
        data = task["data"]
        annotations = []
        for person in (1, 2):
            given = labels_of(data, person)
            if given is None and not (person == 1 and data["claim_no"] in (None, 1)):
                continue
            values = {}
            if given is not None:
                values["verdict"] = given[0]
                if given[1]:
                    values["note"] = given[1]
            if person == 1 and data["claim_no"] in (None, 1):
                values["answerable"] = "false" if data["case_id"] in ("c04", "c06", "c12") else "true"
            if not values:
                continue
            result = [json.loads(region.to_json()) for region in config.create_regions(values)]
            assert config.validate_annotation({"result": result})
            annotation_id += 1
            annotations.append({
                "id": annotation_id, "completed_by": 1 if person == 1 else
                {"id": 2, "first_name": "Ben", "last_name": "", "email": "ben@example.com", "avatar": None,
                 "initials": "be"},
                "result": result, "was_cancelled": False, "ground_truth": False,
                "created_at": "2025-11-03T10:00:00.000000Z", "updated_at": "2025-11-03T10:00:00.000000Z",
                "draft_created_at": None, "lead_time": 24.5, "prediction": {}, "result_count": 0,
                "unique_id": str(uuid.UUID(int=annotation_id)), "import_id": None, "last_action": None,
                "bulk_created": False, "task": k, "project": 7, "updated_by": person, "parent_prediction": None,
                "parent_annotation": None, "last_created_by": None})
        if data["case_id"] == "c03" and data["claim_no"] == 1:
            annotation_id += 1
            annotations.append({"id": annotation_id, "completed_by": 3, "was_cancelled": True, "ground_truth": False,
                                "result": [json.loads(r.to_json()) for r in config.create_regions({"verdict": "contradicted"})],
                                "task": k, "project": 7, "lead_time": 3.0})
        if data["case_id"] == "c08" and data["claim_no"] == 1:
            annotation_id += 1
            annotations.append({"id": annotation_id, "completed_by": 4, "was_cancelled": False, "ground_truth": True,
                                "result": [json.loads(r.to_json()) for r in config.create_regions({"verdict": "contradicted"})],
                                "task": k, "project": 7, "lead_time": 40.0})
        exported.append({"id": k, "annotations": annotations, "file_upload": "tasks.json", "drafts": [],
                         "predictions": [], "data": data, "meta": {}, "created_at": "2025-11-03T09:00:00.000000Z",
                         "updated_at": "2025-11-03T10:00:00.000000Z", "inner_id": k,
                         "total_annotations": len(annotations), "cancelled_annotations": 0, "total_predictions": 0,
                         "comment_count": 0, "unresolved_comment_count": 0, "last_comment_updated_at": None,
                         "project": 7, "updated_by": None, "comment_authors": []})
    (out / "label-studio-export.json").write_text(json.dumps(exported, indent=1, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")


def argilla(folder: Path, out: Path) -> None:
    import argilla as rg
    from argilla._models._dataset import DatasetModel
    from argilla._models._settings._fields import FieldModel
    from argilla._models._settings._metadata import MetadataFieldModel
    from argilla._models._settings._questions import QuestionModel
    from argilla.records._io import GenericIO

    settings = json.loads((folder / ".argilla" / "settings.json").read_text(encoding="utf-8"))
    for question in settings["questions"]:
        QuestionModel(**question)
    for field in settings["fields"]:
        FieldModel(**field)
    for meta in settings["metadata"]:
        MetadataFieldModel(**meta)
    DatasetModel(**json.loads((folder / ".argilla" / "dataset.json").read_text(encoding="utf-8")))
    records = [rg.Record.from_dict(d) for d in json.loads((folder / "records.json").read_text(encoding="utf-8"))]
    users = {1: uuid.UUID(int=1), 2: uuid.UUID(int=2), 3: uuid.UUID(int=3)}
    for record in records:
        data = {"case_id": record.metadata["case_id"], "claim_no": record.metadata.get("claim_no")}
        for person in (1, 2):
            given = labels_of(data, person)
            if given is not None:
                record.responses.add(rg.Response("verdict", given[0], user_id=users[person], status="submitted"))
                if given[1]:
                    record.responses.add(rg.Response("note", given[1], user_id=users[person], status="submitted"))
            if person == 1 and data["claim_no"] in (None, 1):
                answerable = "false" if data["case_id"] in ("c04", "c06", "c12") else "true"
                record.responses.add(rg.Response("answerable", answerable, user_id=users[1], status="submitted"))
        if data["case_id"] == "c03" and data["claim_no"] == 1:
            record.responses.add(rg.Response("verdict", None, user_id=users[3], status="discarded"))
    (out / "argilla-records.json").write_text(
        json.dumps(GenericIO.to_list(records, flatten=False), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "argilla-records-flat.json").write_text(
        json.dumps(GenericIO.to_list(records, flatten=True), indent=1, ensure_ascii=False, default=str) + "\n",
        encoding="utf-8")


if __name__ == "__main__":
    ls_folder, argilla_folder, target, labeled = map(Path, sys.argv[1:5])
    for line in labeled.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            SAMPLE_LABELS[case["id"]] = case["labels"]
    target.mkdir(parents=True, exist_ok=True)
    label_studio(ls_folder, target)
    argilla(argilla_folder, target)
