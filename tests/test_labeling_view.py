"""The labeling view, without a browser: built as JupyterLab would show it, its buttons pressed by
calling their handlers; every label lands in the sheet at once, atomically, and reads back."""

from __future__ import annotations

import json
import os

import pytest

from groundlab import GroundlabError, evaluate, load_cases
from groundlab.labeling import read_sheet, view, write_round
from groundlab.labeling.sampling import draw_sample

from conftest import CASES, NOTES

widgets = pytest.importorskip("ipywidgets")


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def log(tmp_path):
    """The sample set without labels, each case given a process, as a production log."""
    objs = records(CASES)
    for k, obj in enumerate(objs):
        obj.pop("labels")
        obj["process"] = "procure-to-pay" if k % 2 else "order-to-cash"
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


@pytest.fixture
def labeling_round(tmp_path, log):
    ev = evaluate(load_cases(log, NOTES), "rules")
    design = draw_sample(ev, 8, shares="equal", seed=1)
    return write_round(log, design, tmp_path / "labeling", passages=NOTES, second=2)


def open_view(labeling_round, **kwargs):
    return view(labeling_round.sheet, cases=labeling_round.sample, passages=NOTES, **kwargs)


def _toggles(v):
    """The verdict buttons of each claim of the answer shown, and their note boxes."""
    boxes = v._claims.children
    return [box.children[1] for box in boxes], [box.children[2] for box in boxes]


def test_every_click_is_saved_to_the_sheet_at_once(labeling_round):
    v = open_view(labeling_round, annotator="anna")
    box = v.widget()
    assert isinstance(box, widgets.VBox)
    first = v.answers[v.position][0]
    folder = labeling_round.sheet.parent
    before = set(os.listdir(folder))
    inode = os.stat(labeling_round.sheet).st_ino
    choices, notes = _toggles(v)
    choices[0].value = "contradicted"  # a click on the verdict
    sheet = read_sheet(labeling_round.sheet)
    row = sheet[(sheet["case_id"] == first) & (sheet["claim_no"] == "1")].iloc[0]
    assert (row["label"], row["annotator"]) == ("contradicted", "anna")
    assert os.stat(labeling_round.sheet).st_ino != inode  # written through a temporary file and a rename
    assert set(os.listdir(folder)) == before  # and no temporary file left behind
    notes[0].value = "the passage says 90, the claim 95; =1+1"
    choices, notes = _toggles(v)
    assert read_sheet(labeling_round.sheet).loc[row.name, "note"] == "the passage says 90, the claim 95; =1+1"
    v._answerable.value = "false"
    first_row = read_sheet(labeling_round.sheet)
    assert first_row[first_row["case_id"] == first].iloc[0]["answerable"] == "false"
    assert "1 of " in v._status.value  # the progress line follows


def test_keys_buttons_resume_and_progress(labeling_round):
    v = open_view(labeling_round, annotator="anna")
    v.widget()
    start = v.position
    n = len(v.claim_rows())
    v._shortcuts.value = "s" * n  # labels every claim of the answer, then is cleared
    assert v._shortcuts.value == ""
    assert not v.is_open(start)
    v._buttons[2].click()  # next open answer
    assert v.position != start and v.is_open(v.position)
    second = v.position
    v._buttons[0].click()  # previous
    assert v.position < second
    v.keys("j4")  # jump to the next open answer, mark its first claim can't tell
    assert v.frame.at[v.claim_rows()[0], "label"] == "can't tell"
    progress = v.progress()
    assert progress.labeled == n + 1 and progress.answers_done == 1
    assert f"{n + 1} of {progress.claims} claims labeled (1 of {progress.answers} answers done); about " in str(progress)
    # the pace the labels here measure: four labels 20 s apart, and a break that does not count
    v.times = [0.0, 20.0, 40.0, 60.0, 4000.0]
    assert v.progress().seconds_per_claim == 20 and v.progress().measured
    # a new view of the same sheet (a closed tab, a restarted kernel) opens where labeling stopped
    again = open_view(labeling_round)
    assert again.position == v.first_open() and again.is_open(again.position)
    assert again.frame.at[v.claim_rows(start)[0], "label"] == "supported"


def test_the_rate_updates_as_labels_arrive(labeling_round):
    v = open_view(labeling_round)
    assert v.rate_text().startswith("The hallucination rate of the log cannot be given yet: no drawn answer carries "
                                    "labels yet")
    for k in range(len(v.answers)):
        for n in v._numbers(k):
            v.label(n, "supported", answer=k)
    text = v.rate_text()
    assert text.startswith("The hallucination rate of the log so far: 0% (95% range 0%")
    # the same labels read back through the import give the same figure
    from groundlab.labeling import import_labels

    report = import_labels(labeling_round.sheet, labeling_round.sample, labeling_round.labeled, force=True)
    assert str(report.progress).startswith(text[:1].lower() + text[1:40])
    # without the sample the view gives the rate over what it labeled
    plain = view(labeling_round.sheet)
    assert plain.rate_text().startswith("The hallucination rate over the ")


def test_filters(labeling_round):
    v = open_view(labeling_round)
    v.widget()
    second = set(read_sheet(labeling_round.second)["case_id"])
    v._second.value = True
    assert {v.answers[k][0] for k in v.shown()} == second and len(second) == 2
    v._second.value = False
    v._flagged.value = True
    strata = {o["id"]: o["sample"]["stratum"] for o in records(labeling_round.sample)}
    assert {v.answers[k][0] for k in v.shown()} == {c for c, s in strata.items() if s in ("contradicted", "unsupported")}
    v._flagged.value = False
    v._process.value = "order-to-cash"
    processes = {o["id"]: o["process"] for o in records(labeling_round.sample)}
    assert all(processes[v.answers[k][0]] == "order-to-cash" for k in v.shown()) and v.shown()
    # a view without the sample cannot tell which answers the judge flags from a blind sheet: it says so
    blind = view(labeling_round.sheet)
    with pytest.raises(GroundlabError, match="does not know which answers the judge flags"):
        blind.set_filter(flagged=True)


def test_the_view_never_writes_over_a_sheet_changed_on_disk(labeling_round):
    v = open_view(labeling_round)
    v.widget()
    labeling_round.sheet.write_bytes(labeling_round.sheet.read_bytes() + b"\r\n")  # a spreadsheet saved it meanwhile
    saved = labeling_round.sheet.read_bytes()
    with pytest.raises(GroundlabError, match="changed on disk since the view read it"):
        v.label(v._numbers()[0], "supported")
    assert labeling_round.sheet.read_bytes() == saved
    choices, _ = _toggles(v)
    choices[0].value = "unsupported"  # through a button: the message shows, nothing is written
    assert "changed on disk" in v._status.value and labeling_round.sheet.read_bytes() == saved
    assert v.frame.at[v.claim_rows()[0], "label"] == ""  # and the view does not show what the sheet lacks
    assert _toggles(v)[0][0].value == ""


def test_the_view_is_blind_unless_the_sheet_shows_the_judge(tmp_path, log):
    ev = evaluate(load_cases(log, NOTES), "rules")
    design = draw_sample(ev, 8, shares="equal", seed=1)
    blind = write_round(log, design, tmp_path / "blind", passages=NOTES)
    seeing = write_round(log, design, tmp_path / "seeing", passages=NOTES, judge="rules")
    v = view(blind.sheet)
    v.widget()
    assert not v.show_judge and "judge:" not in v._claims.children[0].children[0].value
    w = view(seeing.sheet)
    w.widget()
    assert w.show_judge and "judge:" in w._claims.children[0].children[0].value
    # what the view writes keeps the sheet's columns (the judge's too) and reads back
    w.label(w._numbers()[0], "supported")
    assert list(read_sheet(seeing.sheet).attrs["columns"])[6:8] == ["judge_verdict", "judge_reason"]


def test_passages_are_escaped_and_the_evidence_marked(tmp_path):
    from groundlab.labeling import sheet_frame, write_sheet

    cases = load_cases([{"id": "h1", "question": "<script>alert(1)</script>?",
                         "retrieved": [{"id": "P<1>", "text": "Refunds need approval. The team lead approves refunds."}],
                         "answer": "The team lead approves refunds [P<1>]."}])
    write_sheet(sheet_frame(cases), tmp_path / "s.csv")
    v = view(tmp_path / "s.csv")
    page = v.answer_html()
    assert "<script>" not in page and "&lt;script&gt;" in page and "[P&lt;1&gt;]" in page
    assert ('<mark title="best evidence for claim 1">The team lead approves refunds.<sup>1</sup></mark>' in page)
    assert "<script>" not in v.fallback_html()


def test_a_missing_sheet_is_one_sentence(tmp_path):
    with pytest.raises(GroundlabError, match="the sheet .* does not exist"):
        view(tmp_path / "none.csv")


def test_a_cell_that_is_no_label_leaves_its_claim_open_and_says_so(labeling_round):
    sheet = read_sheet(labeling_round.sheet)
    first = sheet.index[sheet["claim_no"].str.strip() != ""][0]
    sheet.loc[first, "label"] = "suported"  # typed in a spreadsheet
    sheet.to_csv(labeling_round.sheet, index=False)
    v = open_view(labeling_round)
    v.widget()  # builds every claim's buttons, the misspelt one among them
    case = sheet.loc[first, "case_id"]
    answer = next(k for k, rows in enumerate(v.answers) if rows[0] == case)
    assert v.is_open(answer) and v.progress().labeled == 0
    v.position = answer
    v._refresh()
    choices, _ = _toggles(v)
    assert choices[0].value == ""
    assert "the sheet has &#x27;suported&#x27; here, which is not a label" in v._claims.children[0].children[0].value
