"""An SAP AI Core evaluation read back and calibrated: results.db files and tracking API answers in
the shapes SAP's tutorials show (tests/sap_eval_files.py builds them), several runs, metric names
JSON-quoted or not, a run without the grounding module, a judge error row; every figure checked,
every bad input one sentence."""

from __future__ import annotations

import json
import sqlite3

import pytest

from groundlab import evaluate, load_cases
from groundlab.core.platform import compare_platform
from groundlab.importers.sap_eval import SQLITE_MAGIC

import sap_eval_files as files
from sap_eval_files import GROUNDEDNESS, OURS, Row, RunSpec


def _read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def evaluation(tmp_path, cli):
    """The loop of docs/sap.md up to the evaluation: logs, labels, the dataset, the results."""
    files.write_logs(tmp_path)
    code, out, err = cli("sap", "dataset", "--cases", tmp_path / "labeled.jsonl", "--out", tmp_path / "eval-data")
    assert code == 0, err
    files.write_results(tmp_path, tmp_path / "eval-data" / "testdata" / "labeled.csv")
    return tmp_path


def _imported(cli, folder):
    code, out, err = cli("import", folder / "results.db", "--out", folder / "runs")
    assert code == 0, err
    return out, folder / "runs" / "Run-grounding-gpt-4o-2024-08-06.jsonl", folder / "runs" / "Run-context-gpt-4o-2024-08-06.jsonl"


# ---------------------------------------------------------------- results.db


def test_each_run_becomes_a_cases_file_with_its_ratings_passages_and_labels(cli, evaluation):
    out, grounding, context = _imported(cli, evaluation)
    assert "recognised as an SAP AI Core evaluation's results.db" in out and "2 runs" in out
    a, b = _read(grounding), _read(context)
    assert [c["id"] for c in a] == [c["id"] for c in b] == [f"c{k:02d}" for k in range(1, 13)]
    cases_b = {c["id"]: c for c in _read(files.DATA / "grounded_cases_b.jsonl")}
    cases_a = {c["id"]: c for c in _read(files.DATA / "grounded_cases.jsonl")}
    for case in a:  # the grounding module's passages, ids from its metadata as the orchestration import reads them
        assert case["answer"] == cases_b[case["id"]]["answer"]
        assert [p["id"] for p in case["retrieved"]] == cases_b[case["id"]]["retrieved"]
        assert case["retrieved"][0]["metadata"] == {"doc_id": [cases_b[case["id"]]["retrieved"][0]]}
        ratings = case["meta"]["platform"]["ratings"]
        assert ratings[GROUNDEDNESS]["rating"] == files.RATINGS["grounding"][GROUNDEDNESS][case["id"]]
        assert ratings[GROUNDEDNESS]["scale"] == [1, 3] and ratings[OURS]["scale"] == [1, 3]
        assert case["meta"]["platform"]["model"] == "gpt-4o:2024-08-06"
        assert case["meta"]["platform"]["run"] == "Run-grounding-gpt-4o-2024-08-06"
    notes = dict(files.notes())
    for case in b:  # no grounding module: the passages the dataset gave the prompt
        assert case["answer"] == cases_a[case["id"]]["answer"]
        assert [(p["id"], p["text"]) for p in case["retrieved"]] == [(i, notes[i]) for i in cases_a[case["id"]]["retrieved"]]
        assert case["labels"] == cases_a[case["id"]]["labels"]  # the answer people labeled, word for word
    # labels come back only on an answer that is the one people labeled
    same = sum(cases_a[c]["answer"] == cases_b[c]["answer"] for c in cases_a)
    assert sum("labels" in c for c in a) == same == 3  # c01, c04 (abstains) and c10
    assert "labels: left out on 9 answers the run wrote anew" in out
    # the judge error row: no rating, its error kept, counted
    c09 = next(c for c in b if c["id"] == "c09")["meta"]["platform"]["ratings"][GROUNDEDNESS]
    assert c09["rating"] is None and "could not be parsed" in c09["error"]
    assert "its judge failed on 1 (c09), left unrated" in out
    assert "passages: 12 answers ran without the grounding module" in out


def test_agree_against_the_platform_counts_caught_and_false_alarms_beside_groundlab(cli, evaluation):
    _, _, context = _imported(cli, evaluation)
    code, out, err = cli("agree", "--cases", context, "--against", f"sap:{GROUNDEDNESS}", "--judge", "signals")
    assert code == 0, err
    # people found c02 c06 c08 c10 c11 hallucinated; the platform flags c02 c06 c07 c10; c09 unrated
    assert "Pointwise RAG Groundedness  answers  3/5 = 60%   23%\u201388%    1/4 = 25%     5%\u201370%" in out
    assert "groundlab signals judge     answers  5/5 = 100%  57%\u2013100%   1/4 = 25%     5%\u201370%" in out
    assert "groundlab signals judge     claims   6/6 = 100%  61%\u2013100%   1/12 = 8%     1%\u201335%" in out
    assert ("Pointwise RAG Groundedness caught 3 of 5 hallucinated answers, groundlab's signals judge 5 of 5, with 1 "
            "and 1 false alarms in 4 answers people found grounded.") in out
    assert "left out: 1 answer the platform's judge could not rate (c09:" in out
    assert "2 answers that abstained" in out
    data = cli.json("agree", "--cases", context, "--against", f"sap:{GROUNDEDNESS}")
    assert data["platform"]["confusion"] == [[3, 1], [2, 3]]
    assert data["platform"]["caught"]["count"] == 3 and data["platform"]["caught"]["total"] == 5
    assert round(data["platform"]["caught"]["low"], 2) == 0.23 and round(data["platform"]["caught"]["high"], 2) == 0.88
    assert data["judge_answers"]["confusion"] == [[3, 1], [0, 5]]
    assert data["judge_claims"]["caught"]["count"] == 6 and data["judge_claims"]["false_alarms"]["total"] == 12
    assert data["left_out"] == {"unrated": 0, "platform_errors": 1, "judge_errors": 0, "abstained": 2, "unlabeled": 0}
    # groundlab's own metric mirrors the judge's answer-level flags, on the same answers
    data = cli.json("agree", "--cases", context, "--against", f"sap:{OURS}")
    assert data["platform"]["confusion"] == [[4, 1], [0, 5]]


def test_without_labels_the_disagreements_are_shown_with_the_claim_that_decides(cli, evaluation):
    _, grounding, _ = _imported(cli, evaluation)
    code, out, err = cli("agree", "--cases", grounding, "--against", f"sap:{GROUNDEDNESS}")
    assert code == 0, err
    lines = out.split("differ (2):\n", 1)[1].splitlines()
    assert lines[0].startswith("  c07: Pointwise RAG Groundedness 3 (grounded), groundlab not grounded: claim 2 "
                               "\"The warehouse releases blocked orders every Friday afternoon.\" unsupported (")
    assert lines[1].startswith("  c08: Pointwise RAG Groundedness 2 (not grounded), groundlab grounded: every claim "
                               "supported; the platform says: Rated 2")
    # c01 and c10 are answered as people labeled them: the only labeled answers that do not abstain,
    # calibrated on their own
    data = cli.json("agree", "--cases", grounding, "--against", f"sap:{GROUNDEDNESS}")
    assert data["labeled"] == 2 and data["left_out"]["unlabeled"] == 6


def test_the_grounded_threshold_is_configurable(cli, evaluation):
    _, _, context = _imported(cli, evaluation)
    data = cli.json("agree", "--cases", context, "--against", f"sap:{GROUNDEDNESS}", "--grounded-at", "2")
    assert data["grounded_at"] == 2 and data["platform"]["confusion"] == [[4, 0], [4, 1]]  # only c02's 1 is a flag
    code, _, err = cli("agree", "--cases", context, "--against", f"sap:{GROUNDEDNESS}", "--grounded-at", "5")
    assert code == 2 and "--grounded-at 5 is outside the scale of 'Pointwise RAG Groundedness', 1 to 3" in err


def test_labels_from_a_sheet_keep_the_ratings(cli, evaluation, tmp_path):
    """The run's own answers labeled through the sheet: the ratings travel in meta."""
    _, grounding, _ = _imported(cli, evaluation)
    sheet = tmp_path / "sheet.csv"
    code, _, err = cli("label", "export", "--cases", grounding, "--out", sheet, "--blind")
    assert code == 0, err
    import csv

    rows = list(csv.DictReader(open(sheet, encoding="utf-8-sig", newline="")))
    labels = {c["id"]: c["labels"] for c in _read(files.DATA / "grounded_cases_b.jsonl")}
    for row in rows:
        if row["claim_no"]:
            row["label"] = labels[row["case_id"]][int(row["claim_no"]) - 1]
    with open(sheet, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    labeled = tmp_path / "run-labeled.jsonl"
    code, _, err = cli("label", "import", sheet, "--cases", grounding, "--out", labeled)
    assert code == 0, err
    data = cli.json("agree", "--cases", labeled, "--against", f"sap:{GROUNDEDNESS}")
    # people: c03 c07 c10 hallucinated; the platform flags c03 c08 c10
    assert data["platform"]["confusion"] == [[4, 1], [1, 2]] and data["labeled"] == 8


def test_against_names_what_is_wrong_in_one_sentence(cli, evaluation):
    _, _, context = _imported(cli, evaluation)
    code, _, err = cli("agree", "--cases", context, "--against", "Pointwise RAG Groundedness")
    assert code == 2 and "must name a platform and a metric, as sap:" in err
    code, _, err = cli("agree", "--cases", context, "--against", "sap:Pointwise Groundedness")
    assert code == 2 and err.count("\n") == 1
    assert "the metric 'Pointwise Groundedness' is not among the ratings of these cases; its answers carry " \
           "'Pointwise RAG Groundedness', 'groundlab-groundedness-r1'." in err
    code, _, err = cli("agree", "--against", f"sap:{GROUNDEDNESS}")  # the sample set: no ratings at all
    assert code == 2 and "carry no platform rating (import an evaluation's results.db" in err
    code, _, err = cli("agree", "--cases", context, "--grounded-at", "2")
    assert code == 2 and "--grounded-at applies with --against" in err


@pytest.mark.parametrize("entry, message", [
    ({"rating": {"value": 2}, "scale": [1, 3]}, "its 'Pointwise RAG Groundedness' rating is {'value': 2}, not a number"),
    ({"rating": "high", "scale": [1, 3]}, "its 'Pointwise RAG Groundedness' rating is 'high', not a number"),
    ({"rating": True, "scale": [1, 3]}, "its 'Pointwise RAG Groundedness' rating is true, not a number"),
    ({"rating": -5, "scale": [1, 3]}, "its 'Pointwise RAG Groundedness' rating -5 is outside the metric's scale, 1 to 3"),
    ({"rating": 2, "scale": ["low", "high"]}, "its 'Pointwise RAG Groundedness' rating has the scale ['low', 'high'], "
                                              "not two numbers"),
    ("3", "its 'Pointwise RAG Groundedness' rating (meta.platform.ratings) is '3', not an object"),
    ({"rating": 2, "scale": [1, float("nan")]}, "its 'Pointwise RAG Groundedness' rating has the scale [1, nan], not "
                                                 "two numbers"),
])
def test_against_ratings_that_are_no_ratings_are_one_sentence(cli, tmp_path, entry, message):
    """A cases file whose platform rating is an object, a text, true, off its scale, or no object at
    all: one sentence naming the case, never a traceback or a rating read as something else."""
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c02")]))
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    cases = _read(tmp_path / "cases.jsonl")
    cases[1]["meta"]["platform"]["ratings"][GROUNDEDNESS] = entry
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    code, out, err = cli("agree", "--cases", tmp_path / "cases.jsonl", "--against", f"sap:{GROUNDEDNESS}")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"case c02: {message}" in err


def test_against_an_answer_without_rating_or_error_is_counted_as_unrated_and_said_so(cli, tmp_path):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c02")]))
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    cases = _read(tmp_path / "cases.jsonl")
    cases[1]["meta"]["platform"]["ratings"][GROUNDEDNESS] = {}
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    code, out, err = cli("agree", "--cases", tmp_path / "cases.jsonl", "--against", f"sap:{GROUNDEDNESS}")
    assert code == 0, err
    assert "could not rate (c02: no rating recorded)" in out


# ---------------------------------------------------------------- bad results.db


def _one_run(rows, **kw):
    return [RunSpec("11112222333344445555666677778888", "Run-one", rows, **kw)]


def _row(cid, answer="The credit analyst releases it [D01].", ratings=None, **kw):
    variables = {"question": "Who releases the order?", "case_id": cid,
                 "passages": json.dumps([{"id": "D01", "text": "The credit analyst releases orders."}])}
    return Row(variables, answer, None, {GROUNDEDNESS: 3} if ratings is None else ratings, **kw)


def test_several_runs_need_a_folder_or_a_run(cli, evaluation):
    code, _, err = cli("import", evaluation / "results.db", "--out", evaluation / "one.jsonl")
    assert code == 2 and "holds 2 runs ('Run-grounding-gpt-4o-2024-08-06', 'Run-context-gpt-4o-2024-08-06'); give " \
                         "--out a folder" in err
    code, out, err = cli("import", evaluation / "results.db", "--out", evaluation / "one.jsonl", "--run",
                         "Run-context-gpt-4o-2024-08-06")
    assert code == 0, err
    assert len(_read(evaluation / "one.jsonl")) == 12
    code, _, err = cli("import", evaluation / "results.db", "--out", evaluation / "two.jsonl", "--run", "Run-x")
    assert code == 2 and "holds no run 'Run-x'; its runs are 'Run-grounding" in err


def test_run_names_that_differ_only_in_letter_case_get_file_names_that_differ_otherwise_too(cli, tmp_path):
    """RUN-X and run-x would be one file on a case-insensitive file system (macOS, Windows): each
    gets a suffix from its run's id, the same on every import, and the import says so."""
    import hashlib

    runs = [RunSpec("aaaa1111000000000000000000000000", "RUN-X", [_row("c01")]),
            RunSpec("bbbb2222000000000000000000000000", "run-x", [_row("c01", ratings={GROUNDEDNESS: 1})]),
            RunSpec("cccc3333000000000000000000000000", "Run-other", [_row("c01")])]
    db = files.results_db(tmp_path / "results.db", runs)
    code, out, err = cli("import", db, "--out", tmp_path / "runs")
    assert code == 0, err
    names = sorted(p.name for p in (tmp_path / "runs").iterdir())
    suffix = {r.id: hashlib.sha256(r.id.encode()).hexdigest()[:8] for r in runs}
    assert names == sorted([f"RUN-X-{suffix[runs[0].id]}.jsonl", f"run-x-{suffix[runs[1].id]}.jsonl",
                            "Run-other.jsonl"])
    assert len({n.casefold() for n in names}) == 3
    assert (f"file name: run-x-{suffix[runs[1].id]}.jsonl, the run's name and a suffix from its id, as the runs "
            "'RUN-X', 'run-x' would give file names that a case-insensitive file system") in out
    ratings = _read(tmp_path / "runs" / f"run-x-{suffix[runs[1].id]}.jsonl")[0]["meta"]["platform"]["ratings"]
    assert ratings[GROUNDEDNESS]["rating"] == 1
    code, out, err = cli("import", db, "--out", tmp_path / "runs", "--force")  # the same names again
    assert code == 0 and sorted(p.name for p in (tmp_path / "runs").iterdir()) == names
    devices = [RunSpec("dddd4444000000000000000000000000", "CON", [_row("c01")]),
               RunSpec("eeee5555000000000000000000000000", "nul.", [_row("c01")])]
    code, out, err = cli("import", files.results_db(tmp_path / "devices.db", devices), "--out", tmp_path / "dev")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "dev").iterdir()) == sorted(
        f"{r.name.rstrip('.')}-{hashlib.sha256(r.id.encode()).hexdigest()[:8]}.jsonl" for r in devices)
    assert "as 'CON' names a device on Windows, not a file." in out


def test_a_trailing_slash_names_a_folder_whatever_its_name_ends_in(cli, evaluation):
    code, out, err = cli("import", evaluation / "results.db", "--out", f"{evaluation / 'out_x.db'}/")
    assert code == 0, err
    assert sorted(p.name for p in (evaluation / "out_x.db").iterdir()) == [
        "Run-context-gpt-4o-2024-08-06.jsonl", "Run-grounding-gpt-4o-2024-08-06.jsonl"]
    code, _, err = cli("import", evaluation / "results.db", "--out", evaluation / "out_y.db")
    assert code == 2 and "give --out a folder" in err


@pytest.mark.parametrize("damage, message", [
    ("text", "is not a SQLite database, so not an evaluation's results.db"),
    ("garbage", "cannot be read as a SQLite database"),
    ("no evaluation_result", "has no table evaluation_result; an evaluation's results.db holds run, submission, "
                             "submission_result, evaluation_result (its tables: configuration, run, submission, "
                             "submission_result)"),
    ("no metric column", "the table evaluation_result has no column metric"),
])
def test_a_file_that_is_not_an_evaluations_results_is_one_sentence(cli, tmp_path, damage, message):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01")]))
    if damage == "text":
        db.write_text("id,question\n1,hello\n", encoding="utf-8")
    elif damage == "garbage":
        db.write_bytes(SQLITE_MAGIC + b"\x00" * 20 + b"not a database" * 50)
    else:
        connection = sqlite3.connect(db)
        if damage == "no evaluation_result":
            connection.execute("DROP TABLE evaluation_result")
        else:
            connection.execute("ALTER TABLE evaluation_result RENAME COLUMN metric TO name")
        connection.commit()
        connection.close()
    code, out, err = cli("import", db, "--from", "sap-eval", "--out", tmp_path / "cases.jsonl")
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "cases.jsonl").exists()


@pytest.mark.parametrize("name, content", [
    ("results.db", b"<!DOCTYPE html>\n<html><body>Sign in to SAP AI Launchpad</body></html>\n"),
    ("results.db", b"results\n"),
    ("results.sqlite", b""),
    ("eval.SQLITE3", b"id,question\n1,hello\n"),
])
def test_a_database_file_that_is_not_sqlite_says_so_without_from(cli, tmp_path, name, content):
    (tmp_path / name).write_bytes(content)
    code, out, err = cli("import", tmp_path / name, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"{name} is not a SQLite database, so not an evaluation's results.db" in err
    assert not (tmp_path / "cases.jsonl").exists()


def test_rows_of_no_known_tool_name_sap_eval_among_the_choices(cli, tmp_path):
    (tmp_path / "rows.csv").write_text("ask,docs\nWho?,none\n", encoding="utf-8")
    code, _, err = cli("import", tmp_path / "rows.csv", "--out", tmp_path / "cases.jsonl")
    assert code == 2 and "could not tell which tool wrote" in err and "|sap|log|sap-eval, or map" in err


def test_a_metric_not_there_and_a_rating_outside_its_scale_are_one_sentence(cli, tmp_path):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c02", ratings={GROUNDEDNESS: 5})]))
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and err.count("\n") == 1
    assert ("results.db run 'Run-one' submission 11112222000000000000000000000001 (case c02): Pointwise RAG "
            "Groundedness rated 5 (evaluation_result row 2), outside its scale 1 to 3") in err
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01")]))
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl", "--metric", "Groundedness")
    assert code == 2 and "no answer was rated by the metric 'Groundedness'; its metrics are 'Pointwise RAG " \
                         "Groundedness'" in err
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl", "--metric", GROUNDEDNESS)
    assert code == 0, err


@pytest.mark.parametrize("metric", [GROUNDEDNESS, OURS])
def test_a_fraction_on_a_scale_of_whole_ratings_is_one_sentence(cli, tmp_path, metric):
    """An LLM-as-a-judge metric's judge answers an integer rating: SAP's built-in groundedness (its
    definition, and without one its documented scale) and a rubric of 3, 2 and 1."""
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c02", ratings={metric: 2.5})]))
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert (f"results.db run 'Run-one' submission 11112222000000000000000000000001 (case c02): {metric} rated 2.5 "
            "(evaluation_result row 2), not a whole number, while its judge rates in whole numbers from 1 to 3; this "
            "is not a rating that metric gives") in err
    assert not (tmp_path / "cases.jsonl").exists()
    if metric == GROUNDEDNESS:  # no definitions: the built-in metric's documented scale is of whole ratings too
        connection = sqlite3.connect(db)
        connection.execute("DROP TABLE configuration")
        connection.commit()
        connection.close()
        code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
        assert code == 2 and "Pointwise RAG Groundedness rated 2.5 (evaluation_result row 2), not a whole number" in err


def _changed(db, *statements):
    connection = sqlite3.connect(db)
    for sql in statements:
        connection.execute(sql)
    connection.commit()
    connection.close()
    return db


C02 = "WHERE submission_id = '11112222000000000000000000000001'"


@pytest.mark.parametrize("value, result, shown", [
    (-5, None, "rated -5 (evaluation_result row 2), outside its scale 1 to 3"),
    (1e999, None, "rated inf (evaluation_result row 2), which is not a number"),
    ("true", None, "rated 'true' (evaluation_result row 2), which is not a number"),
    (None, '{"rating": true, "explanation": "fine"}', "rated true (evaluation_result row 2), which is not a number"),
    (None, '{"rating": 1e999}', "rated inf (evaluation_result row 2), which is not a number"),
    (None, '{"rating": "high"}', "rated 'high' (evaluation_result row 2), which is not a number"),
    (None, '{"rating": {"value": 3}}', "rated {'value': 3} (evaluation_result row 2), which is not a number"),
])
def test_a_rating_that_is_no_rating_on_its_scale_is_one_sentence_naming_its_row(cli, tmp_path, value, result, shown):
    """-5, infinity or true on a scale of 1 to 3 stop the import with a sentence naming the row,
    never reaching agree --against as a rating or an uncounted judge error."""
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c02")]))
    connection = sqlite3.connect(db)
    connection.execute(f"UPDATE evaluation_result SET aggregating_value = ?, metric_result = ? {C02}", (value, result))
    connection.commit()
    connection.close()
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"results.db run 'Run-one' submission 11112222000000000000000000000001 (case c02): {GROUNDEDNESS} {shown}" \
        in err and "correct or delete evaluation_result row 2." in err
    assert not (tmp_path / "cases.jsonl").exists()


@pytest.mark.parametrize("table", ["submission_result", "evaluation_result"])
@pytest.mark.parametrize("count, shown", [("two", "'two'"), (1.5, "1.5"), (-1, "-1")])
def test_a_repetition_count_that_is_no_count_is_one_sentence_naming_its_row(cli, tmp_path, table, count, shown):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c02")]))
    connection = sqlite3.connect(db)
    connection.execute(f"UPDATE {table} SET repetition_count = ? {C02}", (count,))
    connection.commit()
    connection.close()
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert (f"results.db: {table} row 2 has the repetition_count {shown}, not a whole number of 1 or more (an "
            "evaluation counts each row's repetitions 1, 2, ...); the file cannot be read as it is: correct that row")\
        in err


def test_two_ratings_of_one_answer_that_differ_are_refused_naming_both_rows(cli, tmp_path):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c02", ratings={GROUNDEDNESS: 3,
                                                                                                OURS: 3})]))
    copy = ("INSERT INTO evaluation_result SELECT submission_id, run_id, repetition_count, metric, {}, {}, {}, "
            "created_at, updated_at FROM evaluation_result " + C02 + " AND metric = '\"" + GROUNDEDNESS + "\"'")
    _changed(db, copy.format("1", "metric_result", "error"))
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and err.count("\n") == 1 and not (tmp_path / "cases.jsonl").exists()
    assert (f"results.db: evaluation_result rows 2 and 4 both rate submission 11112222000000000000000000000001 (run "
            f"11112222333344445555666677778888, repetition 1) by {GROUNDEDNESS}, 3 and 1, and the file cannot say "
            f"which holds; delete the row that does not (sqlite3 {db} \"DELETE FROM evaluation_result WHERE "
            "rowid = 4\", or 2), or import another metric with --metric.") in err
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl", "--metric", OURS)  # the other metric reads
    assert code == 0, err
    _changed(db, "DELETE FROM evaluation_result WHERE rowid = 4", copy.format("NULL", "NULL", "'the judge timed out'"))
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl", "--force")
    assert code == 2 and f"by {GROUNDEDNESS}, 3 and no rating (the judge timed out)" in err
    # the same rating twice is no conflict: read once, and said
    _changed(db, "DELETE FROM evaluation_result WHERE rowid = 4", copy.format("aggregating_value", "metric_result", "error"))
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl", "--force")
    assert code == 0, err
    assert "ratings: 1 evaluation_result row repeats a rating given alike before (the same submission, repetition " \
           "and metric), read once." in out
    assert _read(tmp_path / "cases.jsonl")[1]["meta"]["platform"]["ratings"][GROUNDEDNESS]["rating"] == 3


def test_a_metric_rated_in_fractions_keeps_its_fractions(cli, tmp_path):
    templates = [{"name": "BERT Score", "evaluationMethod": "computed",
                  "additionalProperties": {"supported_values": [0, 1]}},
                 {"name": "tone", "evaluationMethod": "llm-as-a-judge",
                  "spec": {"configuration": {"promptConfiguration": {"ratingRubric": [
                      {"rating": 1, "rule": "friendly"}, {"rating": 0.5, "rule": "neutral"},
                      {"rating": 0, "rule": "rude"}]}}}}]
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01", ratings={
        GROUNDEDNESS: 3, "BERT Score/F1": 0.87, "tone": 0.5, "custom": 2.5})]), templates=templates)
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    ratings = _read(tmp_path / "cases.jsonl")[0]["meta"]["platform"]["ratings"]
    assert [ratings[m]["rating"] for m in ("BERT Score/F1", "tone", "custom")] == [0.87, 0.5, 2.5]


def test_names_stored_without_quotes_read_alike(cli, tmp_path):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01", ratings={GROUNDEDNESS: 2})]), quote_names=False)
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert _read(tmp_path / "cases.jsonl")[0]["meta"]["platform"]["ratings"][GROUNDEDNESS]["rating"] == 2
    stored = sqlite3.connect(db).execute("SELECT metric FROM evaluation_result").fetchone()[0]
    assert stored == GROUNDEDNESS
    quoted = files.results_db(tmp_path / "q.db", _one_run([_row("c01")]))
    assert sqlite3.connect(quoted).execute("SELECT metric FROM evaluation_result").fetchone()[0] == f'"{GROUNDEDNESS}"'


def test_a_run_without_grounding_module_nor_passages_column_says_so(cli, tmp_path):
    row = _row("c01")
    del row.variables["passages"]
    db = files.results_db(tmp_path / "results.db", _one_run([row]))
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert "passages: none for 1 answer: the run used no grounding module and the dataset row holds no passages column" \
        in out
    assert _read(tmp_path / "cases.jsonl")[0]["retrieved"] == []


def _labeled_row(cid, grounding, judged=(("D01", "The credit analyst releases orders."),)):
    """A dataset row people labeled (the answer, its one claim supported, answerable) over the
    passages ``judged``, and the run's answer to it, word for word the labeled one, over ``grounding``."""
    from groundlab.core.io import sha256_text

    answer = "The credit analyst releases it [D01]."
    variables = {"question": "Who releases the order?", "case_id": cid, "labels": json.dumps(["supported"]),
                 "labeled_answer_sha256": sha256_text(answer), "answerable": "true"}
    if judged is not None:
        variables["passages"] = json.dumps([{"id": i, "text": t} for i, t in judged])
    return Row(variables, answer, list(grounding), {GROUNDEDNESS: 3})


def test_labels_hold_only_over_the_passages_people_judged(cli, tmp_path):
    """The run's answer is the labeled one word for word, but a label holds for the passages it was
    given: where the grounding module retrieved others (by content, whatever the ids), the case
    is unlabeled and the import says how many and why."""
    rows = [_labeled_row("same", [("D01", "The credit  analyst\nreleases orders.")]),
            _labeled_row("renamed", [("doc-1", "The credit analyst releases orders.")]),
            _labeled_row("contradicts", [("D01", "The buyer releases orders; the credit analyst never does.")]),
            _labeled_row("more", [("D01", "The credit analyst releases orders."), ("D02", "Orders over 10,000 EUR.")]),
            _labeled_row("unsaid", [("D01", "The credit analyst releases orders.")], judged=None),
            _labeled_row("none", [], judged=())]  # people judged it over no passage, and the run retrieved none
    db = files.results_db(tmp_path / "results.db", _one_run(rows))
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    cases = {c["id"]: c for c in _read(tmp_path / "cases.jsonl")}
    for cid in ("same", "renamed", "none"):
        assert cases[cid]["labels"] == ["supported"] and cases[cid]["answerable"] is True
    for cid in ("contradicts", "more", "unsaid"):
        assert "labels" not in cases[cid] and "answerable" not in cases[cid], cid
    assert ("labels: left out on 2 answers (contradicts, more), whose passages differ from those people judged the "
            "labeled answer against (the grounding module retrieved others") in out
    assert "labels: left out on 1 answer (unsaid): the dataset row does not say which passages people judged" in out
    code, out, err = cli("agree", "--cases", tmp_path / "cases.jsonl", "--json")
    assert code == 0, err
    assert json.loads(out)["unlabeled_cases"] == 3


def test_an_answer_the_orchestration_did_not_give_stops_the_import_unless_skipped(cli, tmp_path):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c02", answer=None)]))
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and "submission 11112222000000000000000000000001: its orchestration response holds no answer" \
                         in err and "nothing was written (pass --skip-invalid" in err
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl", "--skip-invalid")
    assert code == 0 and "skipped 1 row that cannot be used" in out
    assert [c["id"] for c in _read(tmp_path / "cases.jsonl")] == ["c01"]


@pytest.mark.parametrize("stored, message", [
    ("upstream request timeout", "its orchestration response recorded in submission_result (completion_result) is "
                                 "not JSON, but 'upstream request timeout'"),
    ('{"request_id": "r1", "error": "timeout"}', "its orchestration response recorded in submission_result "
                                                 "(completion_result) is JSON without an orchestration response's "
                                                 "intermediate_results (or module_results)"),
    (None, "no orchestration response was recorded for it in submission_result"),
])
def test_a_response_that_cannot_be_read_is_named_for_what_it_is(cli, tmp_path, stored, message):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c02")]))
    connection = sqlite3.connect(db)
    connection.execute("UPDATE submission_result SET completion_result = ? WHERE submission_id = ?",
                       (stored, "11112222000000000000000000000001"))
    connection.commit()
    connection.close()
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"results.db run 'Run-one' submission 11112222000000000000000000000001: {message}; nothing was written " \
           "(pass --skip-invalid" in err


def test_a_response_kept_as_a_json_string_of_its_json_reads_alike(cli, tmp_path):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01")]))
    connection = sqlite3.connect(db)
    (stored,) = connection.execute("SELECT completion_result FROM submission_result").fetchone()
    connection.execute("UPDATE submission_result SET completion_result = ?", (json.dumps(stored),))
    connection.commit()
    connection.close()
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert _read(tmp_path / "cases.jsonl")[0]["answer"] == "The credit analyst releases it [D01]."


def test_repetitions_are_cases_of_their_own(cli, tmp_path):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01"), _row("c01", repetition=2,
                                                                              ratings={GROUNDEDNESS: 1})]))
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    cases = _read(tmp_path / "cases.jsonl")
    assert [c["id"] for c in cases] == ["c01", "c01~2"]
    assert [c["meta"]["platform"]["ratings"][GROUNDEDNESS]["rating"] for c in cases] == [3, 1]
    assert "repetitions: 1 further answer to the same rows" in out


def test_compare_pairs_two_runs_by_case_id(cli, evaluation):
    _, grounding, context = _imported(cli, evaluation)
    data = cli.json("compare", context, grounding)
    assert data["pairs"] == 12 and data["only_in_a"]["count"] == data["only_in_b"]["count"] == 0


# ---------------------------------------------------------------- the tracking API's aggregates


def test_aggregated_metrics_become_trend_rows(cli, evaluation, tmp_path):
    code, out, err = cli("import", evaluation / "metrics.json", "--out", tmp_path / "trend.jsonl")
    assert code == 0, err
    rows = _read(tmp_path / "trend.jsonl")
    by = {(r["run"], r["metric"]): r for r in rows}
    g = by[("Run-context-gpt-4o-2024-08-06", GROUNDEDNESS)]
    assert g["counts"] == {"1": 1, "2": 3, "3": 7} and g["answers"] == 11 and round(g["mean"], 4) == round(28 / 11, 4)
    ours = by[("Run-context-gpt-4o-2024-08-06", OURS)]  # its name arrived JSON-quoted
    assert ours["counts"] == {"1": 2, "2": 4, "3": 6} and ours["execution_id"] == "e8d0adb660289477"
    assert by[("Run-grounding-gpt-4o-2024-08-06", GROUNDEDNESS)]["counts"] == {"1": 1, "2": 2, "3": 9}
    assert len(rows) == 4 and "wrote 4 rows (a run and metric each)" in out
    # a later execution appends; the same run again replaces its row
    later = files.aggregates(files.scenario(evaluation / "eval-data" / "testdata" / "labeled.csv")[:1],
                             execution="f1e2d3c4b5a69788")
    (tmp_path / "later.json").write_text(json.dumps(later), encoding="utf-8")
    code, out, err = cli("import", tmp_path / "later.json", "--out", tmp_path / "trend.jsonl")
    assert code == 2 and "already exists" in err
    code, out, err = cli("import", tmp_path / "later.json", "--out", tmp_path / "trend.jsonl", "--append")
    assert code == 0, err
    assert "beside the 4 it held" in out
    assert len(_read(tmp_path / "trend.jsonl")) == 6
    code, out, err = cli("import", tmp_path / "later.json", "--out", tmp_path / "trend.jsonl", "--append")
    assert len(_read(tmp_path / "trend.jsonl")) == 6


@pytest.mark.parametrize("doc, message", [
    ("{not json", "is not JSON"),
    ("not json", "is not a SQLite database, so not an evaluation's results.db, nor JSON"),
    ({"count": 0}, "holds no \"resources\" list"),
    ({"resources": [{"metrics": [{"name": f"{GROUNDEDNESS}/5/count", "value": 2}]}]},
     "Pointwise RAG Groundedness counts answers rated 5, outside its scale 1 to 3"),
    ({"resources": [{"metrics": [{"name": f"{GROUNDEDNESS}/2/count", "value": "many"}]}]}, "has no number as its value"),
    ({"resources": [{"metrics": [{"name": "latency/average", "value": 2}]}]}, "holds no rated metric"),
])
def test_bad_aggregates_are_one_sentence(cli, tmp_path, doc, message):
    path = tmp_path / "metrics.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    code, _, err = cli("import", path, "--from", "sap-eval", "--out", tmp_path / "trend.jsonl")
    assert code == 2 and message in err and err.count("\n") == 1


def test_a_zero_count_outside_the_scale_is_no_error(cli, tmp_path):
    """SAP's own runs report groundedness/0/count = 0 for a 1-5 metric."""
    doc = {"resources": [{"executionId": "e1", "metrics": [{"name": f"{GROUNDEDNESS}/0/count", "value": 0.0},
                                                           {"name": f"{GROUNDEDNESS}/3/count", "value": 4.0}]}]}
    (tmp_path / "m.json").write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = cli("import", tmp_path / "m.json", "--out", tmp_path / "trend.jsonl")
    assert code == 0, err


# ---------------------------------------------------------------- the figures, from Python


def test_the_comparison_on_the_frames_matches_the_command(cli, evaluation):
    _, _, context = _imported(cli, evaluation)
    ev = evaluate(load_cases(context), "signals")
    c = compare_platform(ev.claims, ev.cases, GROUNDEDNESS)
    assert c.source == "sap-eval" and c.grounded_at == 3 and c.scale == (1.0, 3.0)
    assert (c.platform.caught.count, c.platform.caught.total) == (3, 5)
    assert (c.platform.false_alarms.count, c.platform.false_alarms.total) == (1, 4)
    assert list(c.disagreements()["case_id"]) == ["c08", "c05", "c11", "c07"]


# ---------------------------------------------------------------- the report and notebook 02


def test_the_report_sets_the_platform_beside_people_and_groundlab(cli, evaluation, tmp_path):
    from groundlab.present.report import html_report, steering_report

    _, _, context = _imported(cli, evaluation)
    ev = evaluate(load_cases(context), "signals")
    text = steering_report(ev)
    section = text.split("### The platform's metric beside people and groundlab", 1)[1].split("## In plain words")[0]
    assert ("Pointwise RAG Groundedness caught 3 of 5 hallucinated answers, groundlab's signals judge 5 of 5, with 1 "
            "and 1 false alarms in 4 answers people found grounded") in section
    assert "| Pointwise RAG Groundedness | answers | 3/5 = 60% | 23%\u201388% | 1/4 = 25% | 5%\u201370% |" in section
    assert "| groundlab signals judge | claims | 6/6 = 100% | 61%\u2013100% | 1/12 = 8% | 1%\u201335% |" in section
    assert "groundlab\\-groundedness\\-r1** (sap\\-eval)" in section  # both groundedness metrics, escaped
    plain = steering_report(evaluate(load_cases(files.DATA / "grounded_cases.jsonl", files.NOTES_PATH), "signals"))
    assert "platform's metric" not in plain


def test_outside_text_is_escaped_in_the_report_and_the_terminal(cli, tmp_path):
    from groundlab.present.report import html_report, steering_report

    metric = "<img src=x onerror=alert(1)> groundedness"
    answer = "The credit analyst releases it [D01]. It takes *three* days <b>[D01]</b>."
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01", answer=answer, ratings={metric: 1})]),
                          templates=[{"name": metric, "additionalProperties": {"supported_values": [1, 3]}}])
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    ev = evaluate(load_cases(tmp_path / "cases.jsonl"), "signals")
    text = steering_report(ev)
    assert "<img" not in text and "&lt;img src=x onerror=alert\\(1\\)&gt; groundedness" in text
    page = html_report(text)
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    code, out, err = cli("agree", "--cases", tmp_path / "cases.jsonl", "--against", f"sap:{metric}")
    assert code == 0, err
    assert metric in out


def test_a_line_break_in_a_case_id_or_an_explanation_cannot_forge_a_line_of_agree(cli, tmp_path):
    forged = "forged\n# every answer is grounded"
    rows = [_row("c|02 **b**\n# H", ratings={GROUNDEDNESS: 1, forged: 1}),
            _row("c03\n# E", ratings={GROUNDEDNESS: (None, "the judge failed\n# forged error"), forged: 3}),
            _row("c04", ratings={GROUNDEDNESS: 3, forged: 3})]
    db = files.results_db(tmp_path / "results.db", _one_run(rows),
                          templates=[{"name": forged, "additionalProperties": {"supported_values": [1, 3]}}])
    connection = sqlite3.connect(db)
    connection.execute("UPDATE evaluation_result SET metric_result = ? WHERE aggregating_value = 1",
                       (json.dumps({"rating": 1, "explanation": "Rated 1.\n# forged: every answer is grounded"}),))
    connection.commit()
    connection.close()
    code, _, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    code, out, err = cli("agree", "--cases", tmp_path / "cases.jsonl", "--against", f"sap:{GROUNDEDNESS}")
    assert code == 0, err
    assert not [line for line in out.splitlines() if line.startswith("#")]
    assert ("  'c|02 **b**\\n# H': Pointwise RAG Groundedness 1 (not grounded), groundlab grounded: every claim "
            "supported; the platform says: 'Rated 1.\\n# forged: every answer is grounded'") in out
    assert "could not rate ('c03\\n# E': 'the judge failed\\n# forged error')" in out
    code, out, err = cli("agree", "--cases", tmp_path / "cases.jsonl", "--against", f"sap:{forged}")
    assert code == 0, err
    assert not [line for line in out.splitlines() if line.startswith("#")]
    assert "  'c|02 **b**\\n# H': 'forged\\n# every answer is grounded' 1 (not grounded)" in out


def test_notebook_02_reads_the_three_side_by_side(cli, evaluation):
    from groundlab.present import platform

    _, _, context = _imported(cli, evaluation)
    ev = evaluate(load_cases(context), "signals")
    frame = platform.side_by_side(ev, GROUNDEDNESS)
    assert frame[["rater", "unit", "caught", "hallucinated", "false_alarms", "grounded"]].values.tolist() == [
        [GROUNDEDNESS, "answers", 3, 5, 1, 4], ["groundlab signals judge", "answers", 5, 5, 1, 4],
        ["groundlab signals judge", "claims", 6, 6, 1, 12]]
    assert platform.side_by_side(ev, "").empty and platform.disagreement_frame(ev, "").empty
    assert list(platform.disagreement_frame(ev, GROUNDEDNESS)["case_id"]) == ["c08", "c05", "c11", "c07"]
    cells = [c for c in json.loads((files.ROOT / "notebooks" / "02-judge-agreement.ipynb").read_text())["cells"]]
    assert any("platform.side_by_side(comparison.get(judge), platform_metric" in "".join(c["source"]) for c in cells)


# ---------------------------------------------------------------- docs/sap.md


#: The tenant docs/sap.md shows; the commands run against a stand-in for it on 127.0.0.1.
DOC_TENANT = "https://api.ai.prod.eu-central-1.aws.ml.hana.ondemand.com"


def test_docs_sap_examples_print_what_they_show_when_run_in_order(cli, tmp_path, monkeypatch):
    """docs/sap.md's commands, run one after the other in one folder as a reader would: the logs and
    labels first, the evaluation's results once its dataset is written."""
    import re
    import shlex

    from aicore_stub import CLIENT, SECRET, Tenant

    doc = (files.ROOT / "docs" / "sap.md").read_text(encoding="utf-8")
    examples = re.findall(r"```\n\$ (groundlab .*?)\n(.*?)\n```", doc, re.S)
    assert len(examples) == 11
    files.write_logs(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ("AICORE_AUTH_URL", "AICORE_CLIENT_ID", "AICORE_CLIENT_SECRET", "AICORE_BASE_URL",
                 "AICORE_RESOURCE_GROUP", "AICORE_DEPLOYMENT_ID", "VCAP_SERVICES", "AICORE_CONFIG", "AICORE_PROFILE",
                 "LLM_PROVIDER", "LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AICORE_HOME", str(tmp_path / "no-aicore-home"))
    tenant = Tenant()
    try:
        (tmp_path / ".env").write_text(f"AICORE_AUTH_URL={tenant.url}\nAICORE_CLIENT_ID={CLIENT}\n"
                                       f"AICORE_CLIENT_SECRET={SECRET}\nAICORE_BASE_URL={tenant.url}\n"
                                       "AICORE_RESOURCE_GROUP=grounding\n", encoding="utf-8")
        (tmp_path / "key.json").write_text(json.dumps({  # the service key step 9 passes, as BTP gives it
            "clientid": CLIENT, "clientsecret": SECRET, "url": tenant.url, "identityzone": "tenant",
            "serviceurls": {"AI_API_URL": tenant.url}}), encoding="utf-8")
        for command, shown in examples:
            if command.startswith("groundlab import results.db"):
                files.write_results(tmp_path, tmp_path / "eval-data" / "testdata" / "labeled.csv")
            code, out, err = cli(*shlex.split(command)[1:])
            assert code == 0, err
            assert (out + err).rstrip("\n").replace(tenant.url, DOC_TENANT) == shown, command
    finally:
        tenant.close()


def test_without_metric_definitions_the_documented_scale_serves(cli, tmp_path):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01", ratings={GROUNDEDNESS: 2})]))
    connection = sqlite3.connect(db)
    connection.execute("DROP TABLE configuration")
    connection.commit()
    connection.close()
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert _read(tmp_path / "cases.jsonl")[0]["meta"]["platform"]["ratings"][GROUNDEDNESS]["scale"] == [1, 3]
    assert "tables evaluation_result, run, submission, submission_result;" in out


@pytest.mark.parametrize("stored, what", [
    ("[{name: groundlab-groundedness-r1", "is not JSON, but '[{name: groundlab-groundedness-r1'"),
    ('{"name": "groundlab-groundedness-r1"}', "is JSON but not a list of metric definitions"),
])
def test_metric_definitions_that_cannot_be_read_are_named_and_the_documented_scales_serve(cli, tmp_path, stored,
                                                                                          what):
    db = files.results_db(tmp_path / "results.db", _one_run([_row("c01", ratings={GROUNDEDNESS: 2, OURS: 2})]))
    connection = sqlite3.connect(db)
    connection.execute("UPDATE configuration SET metric_templates = ?", (stored,))
    connection.commit()
    connection.close()
    code, out, err = cli("import", db, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert (f"  note: run 'Run-one': configuration row 1's metric_templates {what}, so its metrics' scales are read "
            "without those definitions (a built-in metric's as SAP documents it; another's is unknown, and agree "
            "--against needs --grounded-at for it).") in out.splitlines()
    ratings = _read(tmp_path / "cases.jsonl")[0]["meta"]["platform"]["ratings"]
    assert ratings[GROUNDEDNESS]["scale"] == [1, 3] and "scale" not in ratings[OURS]

