"""The labeling sheet: export, a person filling it, import; each rejection; the round trip."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest

from groundlab import GroundlabError, load_cases
from groundlab.labeling import (SHEET_COLUMNS, SHEET_COLUMNS_WITH_JUDGE, fill_labels, read_sheet, sheet_frame, work_dir,
                                write_sheet)

from conftest import CASES, NOTES, ROOT


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def without_labeling(objs):
    """The records as they were before the import recorded who labeled them (``meta.labeling``)."""
    out = []
    for obj in objs:
        obj = dict(obj)
        meta = {k: v for k, v in (obj.get("meta") or {}).items() if k != "labeling"}
        obj.pop("meta", None)
        if meta:
            obj["meta"] = meta
        out.append(obj)
    return out


def write_records(path, objs):
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


def read_rows(path):
    """The sheet as a spreadsheet shows it: header + rows of cells."""
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def save_rows(path, rows, delimiter=","):
    """Save the rows back, as a spreadsheet does (here: without the byte-order mark)."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, delimiter=delimiter).writerows(rows)
    return path


def fill(rows, labels_by_case, transform=lambda label: label):
    """What a person does: write a verdict in the label column of each claim row."""
    head = rows[0]
    case, number, label = head.index("case_id"), head.index("claim_no"), head.index("label")
    for row in rows[1:]:
        known = labels_by_case.get(row[case])
        if known and row[number]:
            row[label] = transform(known[int(row[number]) - 1])
    return rows


@pytest.fixture
def unlabeled(tmp_path):
    """The sample cases without their labels, as a production log would come."""
    objs = records(CASES)
    for obj in objs:
        obj.pop("labels")
    return write_records(tmp_path / "unlabeled.jsonl", objs)


@pytest.fixture
def sheet(cli, tmp_path, unlabeled):
    out = tmp_path / "sheet.csv"
    code, stdout, err = cli("label", "export", "--cases", unlabeled, "--passages", NOTES, "--out", out)
    assert code == 0, err
    return out


SAMPLE_LABELS = {obj["id"]: obj["labels"] for obj in records(CASES)}


# ---------------------------------------------------------------- export


def test_export_layout(cli, tmp_path):
    """Blind by default: no judge column; the guidelines beside the sheet, their fingerprint and the
    passages' on every row."""
    from groundlab.core.io import sha256_file

    out = tmp_path / "sheet.csv"
    code, stdout, err = cli("label", "export", "--cases", CASES, "--passages", NOTES, "--out", out)
    assert code == 0, err
    assert stdout.startswith(f"wrote 22 rows to {out}: 20 claims of 12 cases, plus 2 rows for answers "
                             "without claims (set answerable there); no judge suggestions (blind).")
    assert f"wrote the guidelines {tmp_path / 'GUIDELINES.md'} (sha256:" in stdout
    data = out.read_bytes()
    assert b"\r\n" in data  # spreadsheet line ends between rows
    assert data.startswith(b'\xef\xbb\xbf"case_id","claim_no",')  # every cell quoted
    rows = read_rows(out)
    assert tuple(rows[0]) == SHEET_COLUMNS and "judge_verdict" not in rows[0]
    body = [dict(zip(rows[0], r)) for r in rows[1:]]
    assert len(body) == 22 and all(r["label"] == "" and r["annotator"] == "" for r in body)
    c01 = [r for r in body if r["case_id"] == "c01"]
    assert [r["claim_no"] for r in c01] == ["1", "2", "3"]
    assert [r["answerable"] for r in c01] == ["true", "", ""]  # once per case
    assert c01[0]["claim"] == "The supplier delivered 90 of 100 pieces but invoiced all 100."
    assert c01[0]["cites"] == "D07" and c01[0]["retrieved"] == "D07, D06"
    assert c01[0]["passages"].startswith("[D07] Case: quantity variance") and "\n\n[D06] " in c01[0]["passages"]
    guidelines = "sha256:" + sha256_file(tmp_path / "GUIDELINES.md")
    assert {r["guidelines"] for r in body} == {guidelines}
    assert all(r["passages_sha256"].startswith("sha256:") and len(r["passages_sha256"]) == 23 for r in body)
    c04 = [r for r in body if r["case_id"] == "c04"]
    assert len(c04) == 1 and c04[0]["claim_no"] == "" and c04[0]["answerable"] == "false"
    assert c04[0]["claim"].startswith("(no claim to label; set answerable only) I can't find the credit limit")

    shown = tmp_path / "seeing.csv"
    code, stdout, err = cli("label", "export", "--cases", CASES, "--passages", NOTES, "--out", shown, "--show-judge")
    assert code == 0, err
    assert "judge signals suggestions shown (--show-judge: labels made seeing them)" in stdout
    assert "labeled by the guidelines" in stdout  # the file beside it is kept, not written again
    rows = read_rows(shown)
    assert tuple(rows[0]) == SHEET_COLUMNS_WITH_JUDGE
    body = [dict(zip(rows[0], r)) for r in rows[1:]]
    assert body[0]["judge_verdict"] == "supported"
    c08 = next(r for r in body if r["case_id"] == "c08")
    assert c08["judge_verdict"] == "contradicted" and "not" in c08["judge_reason"]


def test_export_blind(cli, tmp_path):
    """--blind, the default now, is still accepted; a judge named without --show-judge is refused."""
    out = tmp_path / "sheet.csv"
    code, stdout, _ = cli("label", "export", "--cases", CASES, "--passages", NOTES, "--out", out, "--blind")
    assert code == 0 and "no judge suggestions (blind)" in stdout
    assert "judge_verdict" not in read_rows(out)[0]
    code, _, err = cli("label", "export", "--cases", CASES, "--out", tmp_path / "b.csv", "--blind", "--show-judge")
    assert code == 2 and "--blind and --show-judge say opposite things" in err
    code, _, err = cli("label", "export", "--cases", CASES, "--out", tmp_path / "c.csv", "--judge", "rules")
    assert code == 2 and "--judge chooses the judge whose suggestions the sheet shows" in err and "--show-judge" in err
    assert not (tmp_path / "b.csv").exists() and not (tmp_path / "c.csv").exists()


def test_export_never_overwrites(cli, tmp_path):
    out = tmp_path / "sheet.csv"
    out.write_text("my notes\n", encoding="utf-8")
    code, _, err = cli("label", "export", "--cases", CASES, "--passages", NOTES, "--out", out)
    assert code == 2 and "already exists; nothing was written" in err
    assert out.read_text(encoding="utf-8") == "my notes\n"
    assert cli("label", "export", "--cases", CASES, "--passages", NOTES, "--out", out, "--force")[0] == 0


def test_long_cells_are_cut_to_the_spreadsheet_limit(tmp_path):
    objs = [{"id": "x1", "question": "Q?", "retrieved": [{"id": "P1", "text": "word " * 8000}], "answer": "A word."}]
    cases = load_cases(write_records(tmp_path / "long.jsonl", objs))
    cut = write_sheet(sheet_frame(cases), tmp_path / "sheet.csv")
    assert cut == 1
    passages = read_sheet(tmp_path / "sheet.csv").loc[0, "passages"]
    assert len(passages) == 32767 and passages.endswith("see the cases file]")


# ---------------------------------------------------------------- the round trip


@pytest.mark.parametrize("how", ["as exported", "retyped in capitals with spaces", "saved with semicolons"])
def test_round_trip_reproduces_the_sample_labels(cli, tmp_path, unlabeled, sheet, how):
    rows = fill(read_rows(sheet), SAMPLE_LABELS,
                (lambda label: f"  {label.upper()} ") if how.startswith("retyped") else (lambda label: label))
    filled = save_rows(tmp_path / "filled.csv", rows, ";" if "semicolons" in how else ",")
    out = tmp_path / "labeled.jsonl"
    code, stdout, err = cli("label", "import", filled, "--cases", unlabeled, "--out", out)
    assert code == 0, err
    assert stdout.startswith("read 22 rows from ") and "labels for 20 claims of 10 cases" in stdout
    assert "answerable set on 12" in stdout and "remain unlabeled" not in stdout
    # Exactly the sample set: the labels, and every other field, passage ids still ids; who labeled
    # each answer beside (no name written: the sheet stands for the person).
    assert without_labeling(records(out)) == records(CASES)
    c01 = next(o for o in records(out) if o["id"] == "c01")["meta"]["labeling"]
    assert c01["people"] == [{"annotator": "filled", "labels": SAMPLE_LABELS["c01"], "answerable": True}]
    assert c01["blind"] is True and c01["guidelines"].startswith("sha256:")
    assert [c.labels for c in load_cases(out, NOTES)] == [c.labels for c in load_cases(CASES, NOTES)]


def test_fill_labels_round_trip(tmp_path, cli, unlabeled):
    sample = load_cases(CASES, NOTES)
    sheet = fill_labels(sheet_frame(load_cases(unlabeled, NOTES)), sample)
    write_sheet(sheet, tmp_path / "filled.csv")
    code, _, err = cli("label", "import", tmp_path / "filled.csv", "--cases", unlabeled,
                       "--out", tmp_path / "labeled.jsonl")
    assert code == 0, err
    assert without_labeling(records(tmp_path / "labeled.jsonl")) == records(CASES)


def test_answerable_from_the_sheet(cli, tmp_path, unlabeled, sheet):
    rows = fill(read_rows(sheet), SAMPLE_LABELS)
    head = rows[0]
    a, case = head.index("answerable"), head.index("case_id")
    for row in rows[1:]:
        if row[case] == "c12":
            row[a] = "FALSE"  # as a spreadsheet rewrites false
        if row[case] == "c03" and row[a]:
            row[a] = ""  # cleared: unknown
    code, _, err = cli("label", "import", save_rows(tmp_path / "f.csv", rows), "--cases", unlabeled,
                       "--out", tmp_path / "out.jsonl")
    assert code == 0, err
    out = {o["id"]: o for o in records(tmp_path / "out.jsonl")}
    assert out["c12"]["answerable"] is False and "answerable" not in out["c03"]
    assert out["c01"]["answerable"] is True


def test_formula_like_claims_survive(cli, tmp_path):
    objs = [{"id": "b1", "question": "Steps?", "retrieved": [{"id": "P1", "text": "Post the invoice."}],
             "answer": "- Post the invoice [P1]. =SUM is not a step."}]
    cases = write_records(tmp_path / "cases.jsonl", objs)
    assert cli("label", "export", "--cases", cases, "--out", tmp_path / "sheet.csv")[0] == 0
    rows = read_rows(tmp_path / "sheet.csv")
    k = rows[0].index("claim")
    assert [r[k] for r in rows[1:]] == ["'- Post the invoice.", "'=SUM is not a step."]
    rows[1][rows[0].index("label")] = "supported"
    rows[2][rows[0].index("label")] = "unsupported"
    rows[2][k] = rows[2][k][1:]  # a spreadsheet may save the cell without its '
    code, _, err = cli("label", "import", save_rows(tmp_path / "f.csv", rows), "--cases", cases,
                       "--out", tmp_path / "out.jsonl")
    assert code == 0, err
    assert records(tmp_path / "out.jsonl")[0]["labels"] == ["supported", "unsupported"]


#: Cases `groundlab check` takes whose ids or text a sheet could lose: an id with spaces around it,
#: ids starting with ' (one before a formula sign, which the sheet itself writes before one), a NUL.
ODD_CASES = [
    {"id": " padded ", "answer": "The team lead approves refunds [P1]."},
    {"id": "'quoted", "answer": "The team lead approves refunds [P1]."},
    {"id": "'-1", "answer": "The team lead approves refunds [P1]."},
    {"id": "-1", "answer": "The team lead approves refunds [P1]."},
    {"id": "nul\u0000id", "question": "Who\u0000 approves?", "answer": "The team\u0000lead approves refunds [P1]."},
]


def test_the_round_trip_keeps_every_case_check_accepts(cli, tmp_path):
    from groundlab.labeling import demo_sheet, import_labels

    objs = [{"question": "Who approves refunds?", "retrieved": [{"id": "P1", "text": "The team lead approves refunds."}],
             **case, "labels": ["supported"]} for case in ODD_CASES]
    cases = write_records(tmp_path / "cases.jsonl", objs)
    assert cli("check", "--cases", cases)[0] == 0
    code, _, err = cli("label", "export", "--cases", cases, "--out", tmp_path / "sheet.csv")
    assert code == 0, err
    assert b"\0" not in (tmp_path / "sheet.csv").read_bytes()
    rows = read_rows(tmp_path / "sheet.csv")
    assert [r[0] for r in rows[1:]] == [" padded ", "''quoted", "''-1", "'-1", "nul\u2400id"]
    fill(rows, {r[0]: ["unsupported"] for r in rows[1:]})
    filled = save_rows(tmp_path / "filled.csv", rows)
    code, _, err = cli("label", "import", filled, "--cases", cases, "--out", tmp_path / "out.jsonl")
    assert code == 0, err
    got = records(tmp_path / "out.jsonl")
    assert [o["id"] for o in got] == [o["id"] for o in objs] and all(o["labels"] == ["unsupported"] for o in got)
    assert got[4]["question"] == "Who\u0000 approves?"  # the cases file keeps its text as it was
    rows[1][0] = "padded"  # a spreadsheet that trims the cell
    code, _, err = cli("label", "import", save_rows(tmp_path / "trimmed.csv", rows), "--cases", cases,
                       "--out", tmp_path / "trimmed.jsonl")
    assert code == 0, err
    # notebook 04's way: the labels the cases hold, written into a copy of the sheet and read back
    demo = demo_sheet(tmp_path / "sheet.csv", load_cases(cases), tmp_path / "demo.csv")
    assert demo is not None
    import_labels(demo, cases, tmp_path / "demo.jsonl")
    assert all(o["labels"] == ["supported"] for o in records(tmp_path / "demo.jsonl"))


# ---------------------------------------------------------------- rejections


def _row(rows, case_id, claim_no):
    head = rows[0]
    return next(r for r in rows[1:] if r[head.index("case_id")] == case_id and r[head.index("claim_no")] == claim_no)


def _set(case_id, claim_no, column, value):
    def change(rows):
        _row(rows, case_id, claim_no)[rows[0].index(column)] = value
        return rows
    return change


def _drop(case_id, claim_no):
    def change(rows):
        rows.remove(_row(rows, case_id, claim_no))
        return rows
    return change


def _duplicate(case_id, claim_no):
    def change(rows):
        rows.append(list(_row(rows, case_id, claim_no)))
        return rows
    return change


def _change_answer(objs):
    for obj in objs:
        if obj["id"] == "c02":
            obj["answer"] = obj["answer"].replace("80 of 100", "85 of 100")
    return objs


def _three_claims(objs):
    for obj in objs:
        if obj["id"] == "c04":
            obj["answer"] = "The credit limit is 50000 [D01]."
    return objs


# name: (change to the sheet rows, change to the cases, message)
REJECTED = {
    "unknown verdict": (_set("c02", "1", "label", "suported"), None,
                        "row 5 (case c02, claim 1): label 'suported' is not a verdict"),
    "answer changed": (None, _change_answer,
                       "row 5 (case c02, claim 1): the sheet's claim \"The supplier delivered 80 of 100 pieces.\" "
                       "does not match the answer's \"The supplier delivered 85 of 100 pieces.\""),
    "answer now has claims": (None, _three_claims,
                              "row 9 (case c04, no claims): the sheet shows this answer without claims but it "
                              "now holds 1"),
    "claim edited away": (_set("c01", "3", "claim_no", "4"), None,
                          "row 4 (case c01, claim 4): the answer holds 3 claim(s), so there is no claim 4"),
    "missing row": (_drop("c03", "2"), None, "has no row for case c03 claim 2 \"At 1.5 percent"),
    "missing first row": (_drop("c03", "1"), None, "releas...\" (it belongs before row 7); put the row back"),
    "missing case": (_drop("c04", ""), None, "unlabeled.jsonl line 4) (its rows belong after row 8)"),
    "empty label": (_set("c07", "2", "label", ""), None,
                    "(case c07, claim 2): \"label\" is empty; write supported, contradicted or unsupported, "
                    "or pass --partial"),
    "repeated row": (_duplicate("c05", "1"), None, "claim 1 of case c05 is already on row 10"),
    "unknown case": (_set("c05", "1", "case_id", "c99"), None, "row 10: case 'c99' is not in the cases file"),
    "id lost its zeros": (_set("c05", "1", "case_id", "42"), None, "may have dropped leading zeros"),
    "label on a case without claims": (_set("c04", "", "label", "supported"), None,
                                       "row 9 (case c04, no claims): this answer holds no claim to label"),
    "answerable disagrees": (_set("c01", "3", "answerable", "no"), None,
                             "row 4: answerable is false here but true on row 2 for the same case c01"),
    "answerable not a truth value": (_set("c01", "1", "answerable", "maybe"), None,
                                     "row 2 (case c01): answerable 'maybe' is not true or false"),
    "claim number not a number": (_set("c01", "1", "claim_no", "first"), None,
                                  "row 2: claim_no 'first' is not a claim number"),
}


@pytest.mark.parametrize("name", REJECTED)
def test_rejected_sheet_writes_nothing(cli, tmp_path, unlabeled, sheet, name):
    change_rows, change_cases, message = REJECTED[name]
    rows = fill(read_rows(sheet), SAMPLE_LABELS)
    if change_rows:
        rows = change_rows(rows)
    cases = unlabeled
    if change_cases:
        cases = write_records(tmp_path / "changed.jsonl", change_cases(records(unlabeled)))
    out = tmp_path / "labeled.jsonl"
    code, stdout, err = cli("label", "import", save_rows(tmp_path / "filled.csv", rows), "--cases", cases,
                            "--out", out)
    assert code == 2 and stdout == ""
    assert message in err, err
    assert err.count("\n") == 1 and "filled.csv" in err
    assert not out.exists()


def test_sheet_without_its_columns(cli, tmp_path, unlabeled):
    save_rows(tmp_path / "s.csv", [["case_id", "claim", "verdict"], ["c01", "x", "supported"]])
    code, _, err = cli("label", "import", tmp_path / "s.csv", "--cases", unlabeled, "--out", tmp_path / "o.jsonl")
    assert code == 2 and "row 1 has no column 'claim_no', 'label', 'answerable'" in err


def test_import_never_overwrites(cli, tmp_path, unlabeled, sheet):
    filled = save_rows(tmp_path / "f.csv", fill(read_rows(sheet), SAMPLE_LABELS))
    code, _, err = cli("label", "import", filled, "--cases", unlabeled, "--out", unlabeled, "--force")
    assert code == 2 and "is also the input" in err
    out = tmp_path / "o.jsonl"
    out.write_text("mine\n", encoding="utf-8")
    code, _, err = cli("label", "import", filled, "--cases", unlabeled, "--out", out)
    assert code == 2 and "already exists" in err and out.read_text(encoding="utf-8") == "mine\n"


# ---------------------------------------------------------------- partial sheets


def test_partial_sheet(cli, tmp_path, unlabeled, sheet):
    rows = fill(read_rows(sheet), {k: v for k, v in SAMPLE_LABELS.items() if k in ("c01", "c02", "c07")})
    rows = _set("c07", "3", "label", "")(rows)   # c07 only partly labeled
    rows = _drop("c10", "2")(rows)                # a row gone
    rows = [r for r in rows if r[0] != "c11"]     # a case gone
    filled = save_rows(tmp_path / "f.csv", rows)
    out = tmp_path / "labeled.jsonl"
    code, _, err = cli("label", "import", filled, "--cases", unlabeled, "--out", out)
    assert code == 2
    code, stdout, err = cli("label", "import", filled, "--cases", unlabeled, "--out", out, "--partial")
    assert code == 0, err
    assert "labels for 5 claims of 2 cases" in stdout
    assert "15 claims in 8 cases remain unlabeled." in stdout
    assert "1 case is only partly labeled in the sheet; it keeps the labels it had (none for a fresh log): c07." \
        in stdout
    assert "1 case of " in stdout and "not in the sheet: kept unchanged." in stdout
    got = {o["id"]: o for o in records(out)}
    assert got["c01"]["labels"] == SAMPLE_LABELS["c01"] and got["c02"]["labels"] == SAMPLE_LABELS["c02"]
    assert "labels" not in got["c07"] and "labels" not in got["c10"]
    assert got["c04"]["labels"] == []  # looked at: nothing to label
    assert got["c11"] == next(o for o in records(unlabeled) if o["id"] == "c11")


def test_partial_keeps_labels_a_case_had(cli, tmp_path):
    """A sheet exported from a labeled file and left empty changes no label."""
    out = tmp_path / "sheet.csv"
    assert cli("label", "export", "--cases", CASES, "--passages", NOTES, "--out", out)[0] == 0
    code, stdout, err = cli("label", "import", out, "--cases", CASES, "--out", tmp_path / "o.jsonl", "--partial")
    assert code == 0, err
    assert records(tmp_path / "o.jsonl") == records(CASES)


def test_work_dir(tmp_path):
    assert work_dir(tmp_path / "a" / "b").is_dir()
    with pytest.raises(GroundlabError, match="work_dir is empty"):
        work_dir("")  # a round's folder is kept: no temporary folder left behind


def test_label_import_reads_the_cases_from_standard_input(tmp_path, unlabeled, sheet):
    """The cases file is read once, so it may come through a pipe: the same labels as from the file."""
    filled = save_rows(tmp_path / "filled.csv", fill(read_rows(sheet), SAMPLE_LABELS))
    out = tmp_path / "labeled.jsonl"
    proc = subprocess.run([sys.executable, "-m", "groundlab", "label", "import", str(filled), "--cases", "-",
                           "--out", str(out)], input=unlabeled.read_bytes(), capture_output=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    assert without_labeling(records(out)) == records(CASES)


def test_a_cell_starting_with_a_tab_or_carriage_return_is_text_in_the_sheet_and_comes_back_as_written():
    """The sheet neutralises what every CSV groundlab writes neutralises (a tab or CR before a
    formula is one in some spreadsheets), and reads it back unchanged."""
    from groundlab.labeling.cells import from_cell as _from_cell, to_cell as _to_cell

    for text in ("\t=cmd|' /C calc'!A0", "\r=1+1", "=1+1", "'quoted", "plain"):
        cell = _to_cell(text)
        assert cell.startswith("'") == (text != "plain")
        assert _from_cell(cell) == text


# ---------------------------------------------------------------- sheets that survive spreadsheets


def _naive_fields(path, separator):
    """What a spreadsheet that splits every line at ``separator`` (ignoring the quotes, as German
    or French Excel does with a comma-separated file) makes of the sheet: every field, its quotes
    and the spaces around it taken off."""
    text = path.read_bytes().decode("utf-8-sig")
    return [field.strip().strip('"').strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for field in line.split(separator)]


def test_no_cell_starts_a_formula_whatever_the_separator(cli, tmp_path):
    """A formula after a `;`, a `,`, a tab or a line break inside a cell is marked like one at its
    start: no field a spreadsheet splits off starts with = + - @; the labels still read back, and
    the sheet reads back as written."""
    texts = ["Post it;=1+1;done [P1].", "Sum, @SUM(A1:A9), is shown [P1].", 'Total;"-2+3" is booked [P1].']
    objs = [{"id": f"f{k}", "question": "Q; =HYPERLINK(\"http://x\")?\t@A1",
             "retrieved": [{"id": "P1", "text": "Rows:\n=cmd|' /C calc'!A0\n+1 more; -2 less"}],
             "answer": text} for k, text in enumerate(texts)]
    cases = write_records(tmp_path / "cases.jsonl", objs)
    sheet = tmp_path / "sheet.csv"
    assert cli("label", "export", "--cases", cases, "--out", sheet)[0] == 0
    for separator in (",", ";", "\t"):
        live = [f for f in _naive_fields(sheet, separator) if f.startswith(("=", "+", "-", "@"))]
        assert not live, (separator, live)
    frame = read_sheet(sheet)
    assert list(frame["claim"]) == ["Post it;=1+1;done.", "Sum, @SUM(A1:A9), is shown.", 'Total;"-2+3" is booked.']
    assert frame.loc[0, "question"] == objs[0]["question"]
    assert frame.loc[0, "passages"] == "[P1] " + objs[0]["retrieved"][0]["text"]
    rows = read_rows(sheet)
    for row in rows[1:]:
        row[rows[0].index("label")] = "supported"
    code, _, err = cli("label", "import", save_rows(tmp_path / "filled.csv", rows), "--cases", cases,
                       "--out", tmp_path / "out.jsonl")
    assert code == 0, err
    assert [o["labels"] for o in records(tmp_path / "out.jsonl")] == [["supported"]] * 3


def _sheet_filled(cli, tmp_path, cases, labels, name="filled.csv", passages=None):
    sheet = tmp_path / f"export-{name}"
    extra = ["--passages", passages] if passages else []
    code, _, err = cli("label", "export", "--cases", cases, "--out", sheet, *extra)
    assert code == 0, err
    return save_rows(tmp_path / name, fill(read_rows(sheet), labels))


def _other_configuration(objs, case_id, text=None, ids=None):
    out = []
    for obj in objs:
        obj = json.loads(json.dumps(obj))
        if obj["id"] == case_id:
            if text is not None:
                obj["retrieved"][0]["text"] = text
            if ids is not None:
                obj["retrieved"] = ids
        out.append(obj)
    return out


INLINE = [{"id": "r1", "question": "Can refunds be paid in cash?", "answer": "Refunds are paid to the card [K1].",
           "retrieved": [{"id": "K1", "text": "Refunds are paid to the card used."}]},
          {"id": "r2", "question": "Who approves refunds?", "answer": "The team lead approves refunds [K2].",
           "retrieved": [{"id": "K2", "text": "The team lead approves refunds."}]},
          {"id": "r3", "question": "When do refunds arrive?", "answer": "I can't find that in the notes.",
           "retrieved": [{"id": "K3", "text": "Refunds arrive within five days."}], "answerable": True}]


def test_labels_are_never_read_back_onto_other_passages(cli, tmp_path):
    """A sheet labeled against configuration A, read into B's log (same ids and answers, another
    retriever): the rows whose passages differ are refused, named, or with --partial left
    unlabeled and counted; answerable too."""
    a = write_records(tmp_path / "a.jsonl", INLINE)
    filled = _sheet_filled(cli, tmp_path, a, {"r1": ["supported"], "r2": ["supported"]})
    rows = list(csv.reader(io.StringIO(filled.read_text(encoding="utf-8"), newline="")))
    rows[3][rows[0].index("answerable")] = "true"
    filled = save_rows(filled, rows)
    b = write_records(tmp_path / "b.jsonl", _other_configuration(
        _other_configuration(INLINE, "r1", text="Refunds can be paid in cash at the desk."), "r3",
        text="Nothing on refund times."))
    out = tmp_path / "labeled.jsonl"
    code, stdout, err = cli("label", "import", filled, "--cases", b, "--out", out)
    assert code == 2 and not out.exists() and err.count("\n") == 1
    assert ("2 rows (" in err and "filled.csv row 2, " in err and "filled.csv row 4) were labeled against other passages "
            "than the cases file gives their answers" in err and "pass --partial" in err), err
    code, stdout, err = cli("label", "import", filled, "--cases", b, "--out", out, "--partial")
    assert code == 0, err
    got = {o["id"]: o for o in records(out)}
    assert "labels" not in got["r1"] and got["r2"]["labels"] == ["supported"]
    assert got["r3"]["answerable"] is True  # kept as B's cases file has it, not the sheet's
    assert "2 rows were labeled against other passages than" in stdout and "those answers are left unlabeled" in stdout
    # A's own log takes every label
    code, _, err = cli("label", "import", filled, "--cases", a, "--out", tmp_path / "a-labeled.jsonl")
    assert code == 0, err


def test_passages_by_id_are_checked_by_content_with_the_passages_file_and_by_id_without(cli, tmp_path):
    unlabeled = [dict(o) for o in records(CASES)]
    for o in unlabeled:
        o.pop("labels")
    cases = write_records(tmp_path / "cases.jsonl", unlabeled)
    filled = _sheet_filled(cli, tmp_path, cases, SAMPLE_LABELS, passages=NOTES)
    other_ids = write_records(tmp_path / "b.jsonl", _other_configuration(unlabeled, "c02", ids=["D09", "D06"]))
    code, _, err = cli("label", "import", filled, "--cases", other_ids, "--out", tmp_path / "o.jsonl")
    assert code == 2 and "labeled against other passages" in err and "row 5" in err
    notes = [json.loads(line) for line in NOTES.read_text(encoding="utf-8").splitlines() if line.strip()]
    for note in notes:
        if note["id"] == "D07":
            note["text"] = note["text"].replace("90 of 100", "95 of 100")
    changed = write_records(tmp_path / "notes-b.jsonl", notes)
    code, _, err = cli("label", "import", filled, "--cases", cases, "--passages", changed, "--out", tmp_path / "p.jsonl")
    assert code == 2 and "labeled against other passages" in err
    code, _, err = cli("label", "import", filled, "--cases", cases, "--passages", NOTES, "--out", tmp_path / "q.jsonl")
    assert code == 0, err


def test_a_claim_cut_to_the_cell_limit_still_reads_back(cli, tmp_path):
    """A claim longer than a spreadsheet cell is cut on export; the person's labels still come in,
    with and without --partial: the claim is found by its beginning."""
    from groundlab.labeling import CELL_LIMIT

    long_claim = "The approval rule covers " + " and ".join(f"item {k}" for k in range(6000)) + " [P1]."
    objs = [{"id": "x1", "question": "Q?", "retrieved": [{"id": "P1", "text": "The approval rule covers items."}],
             "answer": long_claim + " The team lead approves [P1]."}]
    cases = write_records(tmp_path / "long.jsonl", objs)
    sheet = tmp_path / "sheet.csv"
    code, stdout, err = cli("label", "export", "--cases", cases, "--out", sheet)
    assert code == 0 and "1 cell was longer than a spreadsheet cell holds and cut" in stdout, err
    rows = read_rows(sheet)
    assert len(rows[1][rows[0].index("claim")]) == CELL_LIMIT
    rows = fill(rows, {"x1": ["unsupported", "supported"]})
    filled = save_rows(tmp_path / "filled.csv", rows)
    for extra in ([], ["--partial"]):
        out = tmp_path / f"out{len(extra)}.jsonl"
        code, stdout, err = cli("label", "import", filled, "--cases", cases, "--out", out, *extra)
        assert code == 0, err
        assert records(out)[0]["labels"] == ["unsupported", "supported"]
    # a cut claim that no longer begins as the answer's does is still refused
    objs[0]["answer"] = objs[0]["answer"].replace("covers item 0", "covers thing 0")
    code, _, err = cli("label", "import", filled, "--cases", write_records(tmp_path / "changed.jsonl", objs),
                       "--out", tmp_path / "changed-out.jsonl")
    assert code == 2 and "does not match the answer's" in err


def test_a_sheet_saved_with_carriage_returns_alone_reads(cli, tmp_path, unlabeled, sheet):
    """Excel for Mac's "CSV (Macintosh)" ends every line, in a cell or between rows, with CR alone."""
    filled = save_rows(tmp_path / "filled.csv", fill(read_rows(sheet), SAMPLE_LABELS))
    mac = tmp_path / "mac.csv"
    mac.write_bytes(filled.read_bytes().replace(b"\r\n", b"\r").replace(b"\n", b"\r"))
    assert b"\n" not in mac.read_bytes()
    out = tmp_path / "labeled.jsonl"
    code, stdout, err = cli("label", "import", mac, "--cases", unlabeled, "--out", out)
    assert code == 0, err
    assert "read 22 rows" in stdout and without_labeling(records(out)) == records(CASES)


def _earlier_cell(text):
    """A cell as the sheets of the previous version wrote it: marked at its start only."""
    text = text.replace("\0", "\u2400")
    return "'" + text if text.startswith(("=", "+", "-", "@", "\t", "\r", "'")) else text


def test_a_sheet_of_the_previous_version_still_imports(cli, tmp_path, unlabeled):
    """The previous version's sheet (the judge's columns, no annotator, note or fingerprints; cells
    marked at their start only) reads back as before, and the labels say they were made seeing the
    judge's verdicts."""
    from groundlab.labeling.sheet import EARLIER_COLUMNS

    frame = sheet_frame(load_cases(unlabeled, NOTES), judge="rules")
    with open(tmp_path / "old.csv", "w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\r\n")
        writer.writerow(EARLIER_COLUMNS)
        for row in frame.to_dict("records"):
            writer.writerow([_earlier_cell(row[c]) for c in EARLIER_COLUMNS])
    rows = fill(read_rows(tmp_path / "old.csv"), SAMPLE_LABELS)
    out = tmp_path / "labeled.jsonl"
    code, stdout, err = cli("label", "import", save_rows(tmp_path / "old-filled.csv", rows), "--cases", unlabeled,
                            "--out", out)
    assert code == 0, err
    assert without_labeling(records(out)) == records(CASES)
    assert "labels made seeing the judge's verdicts" in stdout
    made = next(o for o in records(out) if o["id"] == "c01")["meta"]["labeling"]
    assert made["blind"] is False and "guidelines" not in made
