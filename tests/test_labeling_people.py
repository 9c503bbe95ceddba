"""Labels people can trust: two people and their agreement, settling what they differ on, the
guidelines recorded with the labels, Label Studio and Argilla out and back, and what the report
says of who labeled."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from groundlab import evaluate, load_cases
from groundlab.core.people import claims_for_kappa, people_agreement
from groundlab.core.io import sha256_file

from conftest import CASES, NOTES, ROOT
# the sample set's records, the sheet's rows as a spreadsheet keeps them, and the unlabeled log with
# the sheet label export writes for it, as the labeling tests read them
from test_labeling import read_rows, records, save_rows, sheet, unlabeled, write_records  # noqa: F401

TOOLS = ROOT / "tests" / "data" / "labeling_tools"


SAMPLE_LABELS = {obj["id"]: obj["labels"] for obj in records(CASES)}


def person(rows, who, cases=None, changed=None):
    """One person's sheet: their name, and the sample's labels (``changed`` overrides some claims)."""
    head = rows[0]
    out = [head]
    for row in rows[1:]:
        case, number = row[head.index("case_id")], row[head.index("claim_no")]
        if cases is not None and case not in cases:
            continue
        row = list(row)
        row[head.index("annotator")] = who
        if number:
            label = (changed or {}).get((case, int(number)), SAMPLE_LABELS[case][int(number) - 1])
            row[head.index("label")] = label
        out.append(row)
    return out




SECOND = ("c01", "c02", "c05", "c08")
DIFFER = {("c05", 1): "unsupported", ("c08", 1): "can't tell"}


# ---------------------------------------------------------------- two people


def test_agreement_between_people_figures():
    """Percent the same and Cohen's kappa with their ranges, against statsmodels' own kappa."""
    from statsmodels.stats.inter_rater import cohens_kappa

    claims = ([("a", {"anna": "supported", "ben": "supported"})] * 10
              + [("b", {"anna": "unsupported", "ben": "contradicted"})] * 3
              + [("c", {"anna": "contradicted", "ben": "contradicted"})] * 4 + [("d", {"anna": "supported"})])
    a = people_agreement(claims)
    assert (a.claims, a.answers, a.same.count, a.people) == (17, 3, 14, ("anna", "ben"))
    expected = cohens_kappa([[10, 0, 0, 0], [0, 4, 0, 0], [0, 3, 0, 0], [0, 0, 0, 0]])
    assert math.isclose(a.kappa, expected.kappa) and math.isclose(a.kappa_low, expected.kappa_low)
    assert str(a).endswith("the same verdict on 14 of 17 claims (82%, 95% range 59%–94%), Cohen's kappa 0.68 "
                           "(95% range 0.43 to 0.93)")
    assert claims_for_kappa() == 108  # kappa within ±0.15 at 85% agreement, 55% by chance


def test_two_peoples_sheets_give_their_agreement_and_what_to_settle(cli, tmp_path, unlabeled, sheet):
    rows = read_rows(sheet)
    first = save_rows(tmp_path / "anna.csv", person(rows, "anna"))
    second = save_rows(tmp_path / "ben.csv", person(rows, "ben", SECOND, DIFFER))
    out = tmp_path / "labeled.jsonl"
    code, stdout, err = cli("label", "import", first, second, "--cases", unlabeled, "--passages", NOTES, "--out", out,
                            "--to-settle", tmp_path / "settle.csv")
    assert code == 0, err
    assert stdout.startswith(f"read 22 rows from {first}, 8 rows from {second}; wrote {out} with labels for 17 claims "
                             "of 8 cases")
    assert "Labeled by 2 people (anna, ben); labels made blind (the judge's verdicts not shown)." in stdout
    assert ("Agreement between people: the same verdict on 6 of 8 claims (75%, 95% range 41%–93%), Cohen's kappa "
            "0.60 (95% range 0.19 to 1.00).") in stdout
    assert ("2 claims are left to settle: c05 claim 1 (anna: supported, ben: unsupported); c08 claim 1 (anna: "
            "contradicted, ben: can't tell).") in stdout
    got = {o["id"]: o for o in records(out)}
    assert "labels" not in got["c05"] and "labels" not in got["c08"]  # unsettled: not yet labeled
    assert got["c01"]["labels"] == SAMPLE_LABELS["c01"]
    people = got["c01"]["meta"]["labeling"]["people"]
    assert [p["annotator"] for p in people] == ["anna", "ben"] and people[1]["labels"] == SAMPLE_LABELS["c01"]
    assert got["c03"]["meta"]["labeling"]["people"] == [{"annotator": "anna", "labels": SAMPLE_LABELS["c03"],
                                                         "answerable": True}]
    # the claims to settle, as a sheet: what each person said, an empty settled column
    settle = read_rows(tmp_path / "settle.csv")
    head = settle[0]
    assert [(r[0], r[1]) for r in settle[1:]] == [("c05", "1"), ("c08", "1")]
    assert settle[1][head.index("note")] == "anna: supported; ben: unsupported"
    assert settle[1][head.index("claim")].startswith("If the price variance is above tolerance")
    settle[1][head.index("settled")] = "unsupported"
    settle[2][head.index("settled")] = "Contradicted "
    settled = save_rows(tmp_path / "settled.csv", settle)
    code, stdout, err = cli("label", "import", first, second, settled, "--cases", unlabeled, "--out", out, "--force")
    assert code == 0, err
    got = {o["id"]: o for o in records(out)}
    assert got["c05"]["labels"] == ["unsupported", "supported"] and got["c08"]["labels"] == ["contradicted"]
    assert got["c05"]["meta"]["labeling"]["settled"] == ["unsupported", None]
    assert "left to settle" not in stdout and "labels for 20 claims of 10 cases" in stdout


def test_two_people_who_write_answerable_differently_leave_it_as_the_cases_file_has_it(cli, tmp_path, unlabeled,
                                                                                         sheet):
    rows = read_rows(sheet)
    first = person(rows, "anna")
    second = person(rows, "ben", SECOND)
    head = rows[0]
    for row in second[1:]:
        if row[0] == "c02" and row[1] == "1":
            row[head.index("answerable")] = "false"
    out = tmp_path / "o.jsonl"
    code, stdout, err = cli("label", "import", save_rows(tmp_path / "a.csv", first), save_rows(tmp_path / "b.csv", second),
                            "--cases", unlabeled, "--out", out)
    assert code == 0, err
    assert "People wrote answerable differently for 1 case (c02); it keeps what the cases file had." in stdout
    assert next(o for o in records(out) if o["id"] == "c02")["answerable"] is True


def test_the_sheet_to_settle_needs_a_name_of_its_own(cli, tmp_path, unlabeled, sheet):
    out = tmp_path / "o.jsonl"
    code, _, err = cli("label", "import", sheet, "--cases", unlabeled, "--out", out, "--to-settle", out, "--partial")
    assert code == 2 and "--to-settle and --out both name" in err and not out.exists()


def test_settling_a_claim_twice_differently_is_refused(cli, tmp_path, unlabeled, sheet):
    rows = read_rows(sheet)
    head = rows[0]
    tables = []
    for verdict in ("supported", "unsupported"):
        table = [head] + [list(r) for r in rows[1:] if (r[0], r[1]) == ("c05", "1")]
        table[1][head.index("settled")] = verdict
        tables.append(save_rows(tmp_path / f"{verdict}.csv", table))
    code, _, err = cli("label", "import", *tables, "--cases", unlabeled, "--out", tmp_path / "o.jsonl", "--partial")
    assert code == 2 and "settled as unsupported here but as supported on" in err and "settle the claim once" in err


def test_one_persons_claim_in_two_sheets_is_refused(cli, tmp_path, unlabeled, sheet):
    rows = read_rows(sheet)
    first = save_rows(tmp_path / "anna.csv", person(rows, "anna"))
    again = save_rows(tmp_path / "anna-again.csv", person(rows, "anna", ("c05",)))
    code, _, err = cli("label", "import", first, again, "--cases", unlabeled, "--out", tmp_path / "o.jsonl")
    assert code == 2 and "claim 1 of case c05 is already on" in err and "anna.csv row 10" in err


def test_unnamed_labels_in_a_sheet_naming_two_people_are_refused(cli, tmp_path, unlabeled, sheet):
    rows = person(read_rows(sheet), "anna")
    head = rows[0]
    rows[2][head.index("annotator")] = "ben"
    rows[3][head.index("annotator")] = ""
    code, _, err = cli("label", "import", save_rows(tmp_path / "s.csv", rows), "--cases", unlabeled,
                       "--out", tmp_path / "o.jsonl")
    assert code == 2 and "row 4 carries a label but no annotator, while other rows name anna, ben" in err


def test_corrected_rates_are_the_same_for_the_same_labels(cli, tmp_path, unlabeled, sheet):
    """Who labeled is recorded beside the labels; every figure of the run is what the same labels
    gave before."""
    from groundlab.measure.summary import score_summary

    filled = save_rows(tmp_path / "anna.csv", person(read_rows(sheet), "anna"))
    out = tmp_path / "labeled.jsonl"
    assert cli("label", "import", filled, "--cases", unlabeled, "--out", out)[0] == 0
    with_people = score_summary(evaluate(load_cases(out, NOTES), "rules"))
    plain = score_summary(evaluate(load_cases(CASES, NOTES), "rules"))
    assert with_people == {**plain, "judge_identity": with_people["judge_identity"]}
    for key in ("hallucination_rate", "hallucination_rate_by_person", "hallucination_rate_corrected",
                "flagged_by_judge", "answers_needed", "outcomes"):
        assert with_people[key] == plain[key], key


# ---------------------------------------------------------------- guidelines


def test_labels_made_under_different_guidelines_are_not_mixed_silently(cli, tmp_path, unlabeled, sheet):
    rows = read_rows(sheet)
    first = save_rows(tmp_path / "anna.csv", person(rows, "anna"))
    guidelines = tmp_path / "GUIDELINES.md"
    assert rows[1][rows[0].index("guidelines")] == "sha256:" + sha256_file(guidelines)
    guidelines.write_text(guidelines.read_text(encoding="utf-8") + "\nComputed values are unsupported.\n",
                          encoding="utf-8")  # the team changes its rules
    later = tmp_path / "later.csv"
    code, stdout, err = cli("label", "export", "--cases", unlabeled, "--passages", NOTES, "--out", later)
    assert code == 0 and "labeled by the guidelines" in stdout, err
    assert read_rows(later)[1][rows[0].index("guidelines")] == "sha256:" + sha256_file(guidelines)
    second = save_rows(tmp_path / "ben.csv", person(read_rows(later), "ben", SECOND))
    out = tmp_path / "o.jsonl"
    code, _, err = cli("label", "import", first, second, "--cases", unlabeled, "--out", out)
    assert code == 2 and not out.exists() and err.count("\n") == 1
    assert "labels made under different guidelines would be mixed" in err and "--mixed-guidelines" in err
    code, stdout, err = cli("label", "import", first, second, "--cases", unlabeled, "--out", out, "--mixed-guidelines")
    assert code == 0, err
    assert "Labels made under 2 different guidelines were mixed, as asked" in stdout
    assert len(records(out)[0]["meta"]["labeling"]["guidelines"]) == 2


def test_the_guidelines_say_what_each_verdict_means():
    from groundlab.labeling import GUIDELINES

    for words in ("**supported**", "**contradicted**", "**unsupported**", "## Computed values",
                  "## Outside knowledge", "even when it is true", "## Abstentions", "## Can't tell", "## Two people"):
        assert words in GUIDELINES, words


# ---------------------------------------------------------------- Label Studio and Argilla


def test_label_studio_export_is_a_project_to_import(cli, tmp_path, unlabeled):
    out = tmp_path / "ls"
    code, stdout, err = cli("label", "export", "--cases", unlabeled, "--passages", NOTES, "--format", "label-studio",
                            "--out", out)
    assert code == 0, err
    assert "wrote 22 tasks (20 claims of 12 cases, and one for each answer without claims) for Label Studio" in stdout
    tasks = json.loads((out / "tasks.json").read_text(encoding="utf-8"))
    assert len(tasks) == 22 and set(tasks[0]) == {"data"}
    data = tasks[0]["data"]
    assert (data["case_id"], data["claim_no"], data["blind"]) == ("c01", 1, True) and "judge_verdict" not in data
    assert data["passages"].startswith("[D07] ") and data["question"].startswith("Why is the invoice")
    assert data["guidelines"] == "sha256:" + sha256_file(out / "GUIDELINES.md")
    config = ET.fromstring((out / "label-config.xml").read_text(encoding="utf-8"))
    choices = {c.get("name"): [x.get("value") for x in c] for c in config.iter("Choices")}
    assert choices == {"verdict": ["supported", "contradicted", "unsupported", "can't tell"],
                       "answerable": ["true", "false"]}
    texts = {t.get("name"): t.get("value") for t in config.iter("Text")}
    assert all(value[1:] in data for value in texts.values())  # every $field is in the task's data
    assert [t.get("name") for t in config.iter("TextArea")] == ["note"]


def test_a_label_studio_export_of_two_people_imports_to_their_labels(cli, tmp_path, unlabeled):
    """Made with Label Studio's SDK (bench/labeling_fixtures.py) in its JSON export's layout: user 1
    and ben@example.com (an object), a cancelled annotation left out, a ground-truth one settling."""
    out = tmp_path / "labeled.jsonl"
    code, stdout, err = cli("label", "import", TOOLS / "label-studio-export.json", "--cases", unlabeled,
                            "--passages", NOTES, "--out", out)
    assert code == 0, err
    assert stdout.startswith("read 22 tasks from ") and "labels for 18 claims of 9 cases and answerable set on 12" in stdout
    assert "Labeled by 2 people (ben@example.com, user 1)" in stdout
    assert "the same verdict on 6 of 8 claims (75%" in stdout
    assert "1 claim is left to settle: c05 claim 1 (ben@example.com: unsupported, user 1: supported)" in stdout
    got = {o["id"]: o for o in records(out)}
    assert got["c08"]["labels"] == ["contradicted"]  # settled by the ground-truth annotation
    assert got["c03"]["labels"] == SAMPLE_LABELS["c03"]  # the cancelled annotation left out
    notes = {p["annotator"]: p.get("notes") for p in got["c08"]["meta"]["labeling"]["people"]}
    assert notes["ben@example.com"] == ["the note does not say which block applies"]
    assert all(got[c]["labels"] == SAMPLE_LABELS[c] for c in got if c not in ("c05", "c04", "c12") and "labels" in got[c])


@pytest.mark.parametrize("name", ["argilla-records.json", "argilla-records-flat.json"])
def test_argilla_records_of_two_people_import_to_their_labels(cli, tmp_path, unlabeled, name):
    """Made with Argilla's SDK (``dataset.records.to_json``'s shape, nested and flat)."""
    out = tmp_path / "labeled.jsonl"
    code, stdout, err = cli("label", "import", TOOLS / name, "--cases", unlabeled, "--passages", NOTES, "--out", out)
    assert code == 0, err
    assert stdout.startswith("read 22 records from ")
    assert "Labeled by 2 people (00000000-0000-0000-0000-000000000001, 00000000-0000-0000-0000-000000000002)" in stdout
    assert "the same verdict on 6 of 8 claims (75%" in stdout and "2 claims are left to settle" in stdout
    got = {o["id"]: o for o in records(out)}
    assert got["c03"]["labels"] == SAMPLE_LABELS["c03"]  # the discarded response is no label
    assert got["c12"]["answerable"] is False and "labels" not in got["c08"]


def test_argilla_export_is_a_dataset_folder(cli, tmp_path, unlabeled):
    out = tmp_path / "ag"
    code, stdout, err = cli("label", "export", "--cases", unlabeled, "--passages", NOTES, "--format", "argilla",
                            "--out", out)
    assert code == 0, err
    records_ = json.loads((out / "records.json").read_text(encoding="utf-8"))
    settings = json.loads((out / ".argilla" / "settings.json").read_text(encoding="utf-8"))
    dataset = json.loads((out / ".argilla" / "dataset.json").read_text(encoding="utf-8"))
    assert len(records_) == 22 and records_[0]["id"] == "c01#1" and records_[0]["metadata"]["case_id"] == "c01"
    assert set(records_[0]["fields"]) == {f["name"] for f in settings["fields"]}
    assert set(records_[0]["metadata"]) <= {m["name"] for m in settings["metadata"]}
    verdict = settings["questions"][0]
    assert verdict["settings"]["type"] == "label_selection" and \
        [o["value"] for o in verdict["settings"]["options"]] == ["supported", "contradicted", "unsupported", "can't tell"]
    assert settings["guidelines"] == (out / "GUIDELINES.md").read_text(encoding="utf-8") == dataset["guidelines"]
    # the records read back: an unlabeled export imports to nothing, refused without --partial
    code, _, err = cli("label", "import", out, "--cases", unlabeled, "--out", tmp_path / "o.jsonl")
    assert code == 2 and "has no row for case c01" in err


def test_tool_exports_that_are_not_ours_are_named(cli, tmp_path, unlabeled):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"data": {"text": "x"}, "annotations": []}]', encoding="utf-8")
    code, _, err = cli("label", "import", bad, "--cases", unlabeled, "--out", tmp_path / "o.jsonl", "--partial")
    assert code == 2 and "bad.json task 1 has no case_id" in err
    bad.write_text('{"nothing": 1}', encoding="utf-8")
    code, _, err = cli("label", "import", bad, "--cases", unlabeled, "--out", tmp_path / "o.jsonl", "--partial")
    assert code == 2 and "holds neither Label Studio tasks" in err
    bad.write_text('[{"data": ', encoding="utf-8")
    code, _, err = cli("label", "import", bad, "--cases", unlabeled, "--out", tmp_path / "o.jsonl", "--partial")
    assert code == 2 and "is not valid JSON" in err


# ---------------------------------------------------------------- the report


def test_the_report_says_who_labeled_and_how_far_people_agree(cli, tmp_path, unlabeled, sheet):
    from groundlab.present.report import steering_report

    rows = read_rows(sheet)
    first = save_rows(tmp_path / "anna.csv", person(rows, "anna"))
    second = save_rows(tmp_path / "ben.csv", person(rows, "ben", SECOND, DIFFER))
    settle = save_rows(tmp_path / "settle.csv", [rows[0]] + [
        [*r[:rows[0].index("settled")], {"c05": "unsupported", "c08": "contradicted"}[r[0]],
         *r[rows[0].index("settled") + 1:]] for r in rows[1:] if (r[0], r[1]) in (("c05", "1"), ("c08", "1"))])
    out = tmp_path / "labeled.jsonl"
    assert cli("label", "import", first, second, settle, "--cases", unlabeled, "--out", out)[0] == 0
    line = next(l for l in steering_report(evaluate(load_cases(out, NOTES), "rules")).splitlines()
                if "How the judge was checked" in l)
    assert "against people's labels on 20 claims (2 people, 10 answers; labels made blind) it caught" in line
    assert ("Two people labeled 8 claims of 4 answers both: the same verdict on 6 of 8 claims (75%, 95% range "
            "41%–93%), Cohen's kappa 0.60 (95% range 0.19 to 1.00); people agree with each other less (75%) than "
            "the judge agrees with them (85%)") in line
    # labels of the earlier kind, with no record of who made them: the line as it was
    plain = next(l for l in steering_report(evaluate(load_cases(CASES, NOTES), "rules")).splitlines()
                 if "How the judge was checked" in l)
    assert plain.endswith("the same verdict as people on 18 of 20, Cohen's kappa 0.80.") and "people," not in plain


def test_the_report_says_when_labels_were_made_seeing_the_judge(cli, tmp_path, unlabeled):
    from groundlab.present.report import steering_report

    sheet = tmp_path / "seeing.csv"
    assert cli("label", "export", "--cases", unlabeled, "--passages", NOTES, "--out", sheet, "--show-judge")[0] == 0
    filled = save_rows(tmp_path / "anna.csv", person(read_rows(sheet), "anna"))
    out = tmp_path / "labeled.jsonl"
    code, stdout, _ = cli("label", "import", filled, "--cases", unlabeled, "--out", out)
    assert code == 0 and "labels made seeing the judge's verdicts" in stdout
    line = next(l for l in steering_report(evaluate(load_cases(out, NOTES), "rules")).splitlines()
                if "How the judge was checked" in l)
    assert "(1 person, 10 answers; labels made seeing the judge's verdicts)" in line
    assert "One person labeled, so how far people agree is not measured" in line


# ---------------------------------------------------------------- the run


def test_the_run_writes_a_blind_sheet_a_second_persons_share_and_the_guidelines(cli, tmp_path, unlabeled,
                                                                                monkeypatch):
    import os
    import shutil

    monkeypatch.chdir(tmp_path)
    notebooks = tmp_path / "nbs"
    notebooks.mkdir()
    shutil.copy(ROOT / "notebooks" / "04-labeling.ipynb", notebooks)
    code, stdout, err = cli("run", "--cases", unlabeled.name, "--passages", NOTES, "--notebooks", notebooks,
                            "--out", "out", "--judge", "rules")
    assert code == 0, err
    folder = tmp_path / "out" / "labeling"
    header = read_rows(folder / "sheet.csv")[0]
    assert "judge_verdict" not in header and "annotator" in header and "guidelines" in header
    assert (folder / "GUIDELINES.md").is_file() and (folder / "second-person.csv").is_file()
    second = {r[0] for r in read_rows(folder / "second-person.csv")[1:]}
    assert second and second <= {r[0] for r in read_rows(folder / "sheet.csv")[1:]}
    assert (f"a second person labels the {len(second)} answers of out/labeling/second-person.csv as well, for how "
            "far two people agree (both by out/labeling/GUIDELINES.md)") in stdout
    assert (f"then: groundlab label import out/labeling/sheet.csv out/labeling/second-person.csv --cases "
            f"out/labeling/sample.jsonl --passages {os.path.relpath(NOTES)} --out labeled.jsonl --partial") in stdout
    executed = (tmp_path / "out" / "04-labeling.html").read_text(encoding="utf-8")
    assert "The labeling view of" in executed  # the view's static stand-in in the HTML copy
    code, _, err = cli("run", "--cases", unlabeled.name, "--passages", NOTES, "--notebooks", notebooks,
                       "--out", "seeing", "--judge", "rules", "--show-judge")
    assert code == 0, err
    assert read_rows(tmp_path / "seeing" / "labeling" / "sheet.csv")[0][6:8] == ["judge_verdict", "judge_reason"]


def test_a_label_studio_project_of_its_own_making_reads_back(cli, tmp_path, unlabeled):
    """Tasks a team made itself from the sheet (case_id, claim_no and claim only) in a project whose
    config names its controls otherwise: the one choice that is a verdict is the label, a text area
    the note; answerable, not asked, stays as the cases file has it."""
    tasks = json.loads((TOOLS / "label-studio-export.json").read_text(encoding="utf-8"))
    for task in tasks:
        task["data"] = {k: task["data"][k] for k in ("case_id", "claim_no", "claim")}
        task["data"]["claim_no"] = "" if task["data"]["claim_no"] is None else str(task["data"]["claim_no"])
        for annotation in task["annotations"]:
            annotation["result"] = [dict(r, from_name={"verdict": "label", "note": "comment"}[r["from_name"]])
                                    for r in annotation["result"] if r["from_name"] != "answerable"]
    own = tmp_path / "own.json"
    own.write_text(json.dumps(tasks), encoding="utf-8")
    out = tmp_path / "o.jsonl"
    code, stdout, err = cli("label", "import", own, "--cases", unlabeled, "--out", out, "--partial")
    assert code == 0, err
    assert "the same verdict on 6 of 8 claims" in stdout and "answerable set on 0" in stdout
    got = {o["id"]: o for o in records(out)}
    assert got["c01"]["labels"] == SAMPLE_LABELS["c01"] and got["c04"]["answerable"] is False
    notes = {p["annotator"]: p.get("notes") for p in got["c08"]["meta"]["labeling"]["people"]}
    assert notes["ben@example.com"] == ["the note does not say which block applies"]



def test_the_sheet_to_settle_never_replaces_the_passages_even_with_force(cli, tmp_path, unlabeled, sheet):
    passages = tmp_path / "notes.jsonl"
    passages.write_bytes(Path(NOTES).read_bytes())
    before = passages.read_bytes()
    code, _, err = cli("label", "import", sheet, "--cases", unlabeled, "--passages", passages,
                       "--out", tmp_path / "o.jsonl", "--to-settle", passages, "--partial", "--force")
    assert code == 2 and "is also the input" in err, err
    assert passages.read_bytes() == before


def test_a_name_with_control_characters_is_printed_as_text_from_the_report_itself(tmp_path, unlabeled, sheet):
    from groundlab.labeling.importing import import_labels

    rows = read_rows(sheet)
    first = save_rows(tmp_path / "a.csv", person(rows, "anna\x1b[2J"))
    second = save_rows(tmp_path / "b.csv", person(rows, "ben", SECOND, DIFFER))
    report = import_labels([first, second], unlabeled, tmp_path / "o.jsonl", passages=NOTES)
    text = str(report)  # what a notebook prints, with no command line between
    assert "\x1b" not in text and "anna\\u001b[2J" in text, text
