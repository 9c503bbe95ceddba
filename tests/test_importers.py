"""`groundlab import ragas|log`: each format, each rejection, and scoring what they produce."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from groundlab import evaluate, load_cases
from groundlab.importers import convert

RAGAS_ROWS = [
    {"user_input": "Who can release an order 1.5 percent over the credit limit?",
     "retrieved_contexts": ["If the overrun is below 2 percent the analyst releases the order.",
                            "Credit limits are reviewed every year."],
     "response": "The credit analyst can release it [P1].",
     "reference": "The credit analyst."},
    {"user_input": "What is safety stock?",
     "retrieved_contexts": ["Safety stock is a buffer quantity that planning keeps for uncertain demand."],
     "response": "Safety stock is a buffer for uncertain demand [P1]. Most companies keep two weeks of it."},
]

LOG_ROWS = [
    {"id": "q-17", "question": "Who releases a blocked order?",
     "passages": [{"id": "D01", "text": "The credit analyst releases the order.", "score": 0.82},
                  "Credit limits are reviewed every year."],
     "answer": "The credit analyst releases it [D01].", "ts": "2025-03-01T09:00:00Z"},
    {"question": "What does PRC-112 mean?", "passages": ["Error PRC-112 means the price is missing."],
     "answer": "I can't find PRC-112 in the notes."},
    {"id": 42, "question": "Can an incomplete order be billed?",
     "passages": ["Incomplete orders cannot be delivered or billed."],
     "answer": "Incomplete orders can be billed within 5 days [P1].", "answerable": True, "labels": [" Contradicted "]},
]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_csv(path, rows, contexts=json.dumps, delimiter=","):
    columns = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, columns, delimiter=delimiter)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: contexts(v) if k == "retrieved_contexts" else v for k, v in r.items()})
    return path


def read_out(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- ragas


def test_ragas_jsonl(cli, tmp_path):
    src = write_jsonl(tmp_path / "ragas.jsonl", RAGAS_ROWS)
    code, out, err = cli("import", "ragas", src, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert out.startswith("read 2 rows from ") and "wrote 2 cases with 3 passages inline" in out
    cases = read_out(tmp_path / "cases.jsonl")
    assert [c["id"] for c in cases] == ["r1", "r2"]
    assert cases[0]["retrieved"] == [{"id": "P1", "text": RAGAS_ROWS[0]["retrieved_contexts"][0]},
                                     {"id": "P2", "text": RAGAS_ROWS[0]["retrieved_contexts"][1]}]
    assert cases[0]["question"] == RAGAS_ROWS[0]["user_input"]
    assert cases[0]["answer"] == RAGAS_ROWS[0]["response"]
    assert cases[0]["meta"] == {"reference": "The credit analyst."}
    assert "meta" not in cases[1] and "labels" not in cases[1] and "answerable" not in cases[1]
    loaded = load_cases(tmp_path / "cases.jsonl")
    assert loaded[1].retrieved[0].id == "P1"


@pytest.mark.parametrize("style", ["json", "python", "semicolons"])
def test_ragas_csv_list_cells(cli, tmp_path, style):
    """A CSV cell holds the context list as JSON or as Python (what pandas' to_csv writes)."""
    rows = [dict(r, id=f"s{k}") for k, r in enumerate(RAGAS_ROWS, 1)]
    rows[1]["retrieved_contexts"] = ["Line one,\nline two with \"quotes\" and 'apostrophes'."]
    contexts = repr if style == "python" else json.dumps
    src = write_csv(tmp_path / "ragas.csv", rows, contexts, delimiter=";" if style == "semicolons" else ",")
    code, out, err = cli("import", "ragas", src, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    cases = read_out(tmp_path / "cases.jsonl")
    assert [c["id"] for c in cases] == ["s1", "s2"]
    assert cases[1]["retrieved"] == [{"id": "P1", "text": rows[1]["retrieved_contexts"][0]}]
    assert cases[0]["meta"] == {"reference": "The credit analyst."}


def test_ragas_csv_from_pandas(cli, tmp_path):
    src = tmp_path / "dataset.csv"
    pd.DataFrame(RAGAS_ROWS).to_csv(src)  # with its unnamed index column
    code, _, err = cli("import", "ragas", src, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    cases = read_out(tmp_path / "cases.jsonl")
    assert [len(c["retrieved"]) for c in cases] == [2, 1]
    assert "meta" not in cases[1] or "" not in cases[1]["meta"]


# ---------------------------------------------------------------- log


def test_log(cli, tmp_path):
    src = write_jsonl(tmp_path / "log.jsonl", LOG_ROWS)
    code, out, err = cli("import", "log", src, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert "read 3 rows" in out and "wrote 3 cases with 4 passages inline" in out
    assert "1 of 2 answers cite no passage" not in out  # both answers cite
    cases = read_out(tmp_path / "cases.jsonl")
    assert [c["id"] for c in cases] == ["q-17", "r2", "42"]
    assert cases[0]["retrieved"] == [{"id": "D01", "text": "The credit analyst releases the order.", "score": 0.82},
                                     {"id": "P2", "text": "Credit limits are reviewed every year."}]
    assert cases[0]["meta"] == {"ts": "2025-03-01T09:00:00Z"}
    assert cases[2]["answerable"] is True and cases[2]["labels"] == ["contradicted"]
    loaded = load_cases(tmp_path / "cases.jsonl")
    assert loaded[2].labels == ("contradicted",)


def test_log_in_python():
    cases = convert(LOG_ROWS, tool="log").cases
    assert [c["id"] for c in cases] == ["q-17", "r2", "42"]


# ---------------------------------------------------------------- rejections


def _ragas(**change):
    row = dict(RAGAS_ROWS[1])
    row.update(change)
    return [RAGAS_ROWS[0], {k: v for k, v in row.items() if v is not ...}]


def _log(**change):
    row = dict(LOG_ROWS[1])
    row.update(change)
    return [LOG_ROWS[0], {k: v for k, v in row.items() if v is not ...}]


REJECTED = {
    "ragas missing response": ("ragas", "jsonl", _ragas(response=...), "line 2: the field \"response\" is missing"),
    "ragas contexts not a list": ("ragas", "jsonl", _ragas(retrieved_contexts='["a JSON list in a string"]'),
                                  "line 2: \"retrieved_contexts\" must be a list of strings, not a string"),
    "ragas context not text": ("ragas", "jsonl", _ragas(retrieved_contexts=["ok", 3]),
                               "line 2: \"retrieved_contexts\" entry 2 must be a string, not a number"),
    "ragas empty question": ("ragas", "jsonl", _ragas(user_input="  "), "line 2: \"user_input\" is empty"),
    "ragas csv cell not a list": ("ragas", "csv", _ragas(retrieved_contexts="not a list"),
                                  "row 3: \"retrieved_contexts\" must be a list of strings, written in a CSV"),
    "ragas csv cell a string": ("ragas", "csv", _ragas(retrieved_contexts=["a", 2]),
                                "row 3: \"retrieved_contexts\" entry 2 must be a string, not a number"),
    "ragas csv ids partly empty": ("ragas", "csv", [dict(RAGAS_ROWS[0], id="a"), dict(RAGAS_ROWS[1], id="")],
                                   "row 3: \"id\" is empty while other rows have one"),
    "log missing question": ("log", "jsonl", _log(question=...), "line 2: the field \"question\" is missing"),
    "log answer not text": ("log", "jsonl", _log(answer=["a"]), "line 2: \"answer\" must be text, not a list"),
    "log passages not a list": ("log", "jsonl", _log(passages="text"), "line 2: \"passages\" must be a list"),
    "log passage without text": ("log", "jsonl", _log(passages=[{"id": "D1"}]),
                                 "line 2: passage 1 needs a string \"text\""),
    "log passage ids repeat": ("log", "jsonl", _log(passages=[{"id": "P2", "text": "a"}, "b"]),
                               "line 2: passages 1 and 2 both have the id 'P2'"),
    "log id repeats": ("log", "jsonl", _log(id="q-17"), "line 2: the case id 'q-17' is already used on line 1"),
    "log bad answerable": ("log", "jsonl", _log(answerable="yes"), "line 2: \"answerable\" must be true, false"),
    "log bad label": ("log", "jsonl", _log(answer="It means a missing price [P1].", labels=["wrong"]),
                      "line 2: label \"wrong\" for claim 1 is not a verdict"),
    "log label count": ("log", "jsonl", _log(answer="It means a missing price [P1].", labels=[]),
                        "line 2: 0 label(s) for the answer's 1 claim(s)"),
}


@pytest.mark.parametrize("name", REJECTED)
def test_rejected_row_writes_nothing(cli, tmp_path, name):
    fmt, kind, rows, message = REJECTED[name]
    src = (write_csv if kind == "csv" else write_jsonl)(tmp_path / f"in.{kind}", rows)
    out = tmp_path / "cases.jsonl"
    code, stdout, err = cli("import", fmt, src, "--out", out)
    assert code == 2 and stdout == ""
    assert message in err, err
    assert err.count("\n") == 1 and err.startswith("groundlab: ")
    assert not out.exists()


def test_csv_without_a_column(cli, tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("user_input,response\nq,a\n", encoding="utf-8")
    code, _, err = cli("import", "ragas", src, "--out", tmp_path / "out.jsonl")
    assert code == 2 and "row 1 has no column 'retrieved_contexts'" in err


def test_never_overwrites_without_force(cli, tmp_path):
    src = write_jsonl(tmp_path / "log.jsonl", LOG_ROWS)
    out = tmp_path / "cases.jsonl"
    out.write_text("mine\n", encoding="utf-8")
    code, _, err = cli("import", "log", src, "--out", out)
    assert code == 2 and "already exists; nothing was written" in err
    assert out.read_text(encoding="utf-8") == "mine\n"
    code, _, err = cli("import", "log", src, "--out", out, "--force")
    assert code == 0, err and len(read_out(out)) == 3


def test_never_overwrites_its_input(cli, tmp_path):
    src = write_jsonl(tmp_path / "log.jsonl", LOG_ROWS)
    before = src.read_bytes()
    code, _, err = cli("import", "log", src, "--out", src, "--force")
    assert code == 2 and "is also the input" in err
    assert src.read_bytes() == before


# ---------------------------------------------------------------- scoring an unlabeled log


def test_unlabeled_log_scores(cli, tmp_path):
    rows = [dict(r) for r in LOG_ROWS]
    del rows[2]["labels"]
    src = write_jsonl(tmp_path / "log.jsonl", rows)
    cases = tmp_path / "cases.jsonl"
    assert cli("import", "log", src, "--out", cases)[0] == 0

    code, out, err = cli("score", "--cases", cases)
    assert code == 0, err
    lines = {line.strip().split("  ")[0]: line for line in out.splitlines()}
    assert "1/2 answered" in lines["flagged by the judge"] and "%\u2013" in lines["flagged by the judge"]
    # not every answer labeled: the rate is not people's on every answer, and the request asks for labels
    s = cli.json("score", "--cases", cases)
    assert s["flagged_by_judge"]["low"] is not None and s["hallucination_rate"]["basis"] != "people"
    assert s["label_request"]["more"] >= 1

    code, out, _ = cli("agree", "--cases", cases)
    assert code == 0 and "no labeled cases were found (3 unlabeled)" in out


def test_log_without_citations_says_so(cli, tmp_path):
    rows = [dict(r, answer=r["answer"].replace(" [D01]", "").replace(" [P1]", "")) for r in LOG_ROWS]
    src = write_jsonl(tmp_path / "log.jsonl", rows)
    cases = tmp_path / "cases.jsonl"
    code, out, _ = cli("import", "log", src, "--out", cases)
    assert code == 0 and 'no answer cites a passage, so the citation measures will say "no citations"' in out

    code, out, _ = cli("score", "--cases", cases)
    for measure in ("citation recall", "citation precision"):
        line = next(line for line in out.splitlines() if line.startswith(measure))
        assert "n/a" in line and line.rstrip().endswith("no citations") and "0%" not in line
    s = cli.json("score", "--cases", cases)
    assert s["citation_recall"]["rate"] is None and s["citation_precision"]["rate"] is None
    assert s["citation_recall"]["supported"] == s["faithfulness"]["supported"] > 0  # every supported claim
    report = tmp_path / "report.md"
    assert cli("score", "--cases", cases, "--report", report)[0] == 0
    assert "the answers cite no passage, so citation recall and precision do not apply" in report.read_text()


def test_imported_cases_evaluate(tmp_path, cli):
    src = write_jsonl(tmp_path / "ragas.jsonl", RAGAS_ROWS)
    cli("import", "ragas", src, "--out", tmp_path / "cases.jsonl")
    ev = evaluate(load_cases(tmp_path / "cases.jsonl"), "rules")
    assert list(ev.claims["verdict"]) == ["supported", "supported", "unsupported"]


# ---------------------------------------------------------------- one command for every format

GOOD = {"user_input": "Who can release the order?", "retrieved_contexts": ["The credit analyst releases it."],
        "response": "The credit analyst releases it [P1]."}


def test_format_is_recognised_and_said(cli, tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", RAGAS_ROWS)
    code, out, err = cli("import", src, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert out.splitlines()[0] == f"{src}: recognised as Ragas samples (user_input, retrieved_contexts, response) " \
                                  "(--from ragas)."
    assert len(read_out(tmp_path / "cases.jsonl")) == 2


def test_json_array_and_parquet(cli, tmp_path):
    array = tmp_path / "rows.json"
    array.write_text(json.dumps(RAGAS_ROWS, indent=2), encoding="utf-8")
    parquet = tmp_path / "rows.parquet"
    pd.DataFrame(RAGAS_ROWS).to_parquet(parquet)
    for src in (array, parquet):
        out = tmp_path / f"{src.suffix[1:]}.jsonl"
        code, _, err = cli("import", src, "--out", out)
        assert code == 0, err
        cases = read_out(out)
        assert [c["retrieved"] for c in cases] == [[{"id": f"P{i}", "text": t} for i, t in enumerate(r["retrieved_contexts"], 1)]
                                                   for r in RAGAS_ROWS]


def test_huggingface_dataset_folder(cli, tmp_path):
    """A folder that datasets' save_to_disk writes: Arrow stream files listed in state.json."""
    import pyarrow as pa

    folder = tmp_path / "dataset"
    folder.mkdir()
    table = pa.Table.from_pylist(RAGAS_ROWS)
    with pa.OSFile(str(folder / "data-00000-of-00001.arrow"), "wb") as sink:
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
    (folder / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}],
                                                   "_split": None}), encoding="utf-8")
    (folder / "dataset_info.json").write_text("{}", encoding="utf-8")
    code, out, err = cli("import", folder, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert [c["question"] for c in read_out(tmp_path / "cases.jsonl")] == [r["user_input"] for r in RAGAS_ROWS]

    splits = tmp_path / "dict"
    (splits / "train").mkdir(parents=True)
    (splits / "dataset_dict.json").write_text('{"splits": ["train"]}', encoding="utf-8")
    code, _, err = cli("import", splits, "--out", tmp_path / "other.jsonl")
    assert code == 2 and "holds several splits" in err and str(splits / "train") in err
    code, _, err = cli("import", tmp_path / "dict" / "train", "--out", tmp_path / "other.jsonl")
    assert code == 2 and "is a folder; pass the export file itself" in err and err.count("\n") == 1


def test_numpy_list_cells(cli, tmp_path):
    """datasets' to_csv writes a list cell as numpy prints an array: items without commas."""
    src = tmp_path / "hf.csv"
    src.write_text("user_input,retrieved_contexts,response\n"
                   "q?,\"[\"\"It's one passage.\"\"\n 'And a second, with a comma.']\",It is [P2].\n", encoding="utf-8")
    code, _, err = cli("import", src, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert [p["text"] for p in read_out(tmp_path / "cases.jsonl")[0]["retrieved"]] == \
        ["It's one passage.", "And a second, with a comma."]
    src.write_text("user_input,retrieved_contexts,response\nq?,\"['a' 'b' ... 'y' 'z']\",It is.\n", encoding="utf-8")
    code, _, err = cli("import", src, "--out", tmp_path / "cases.jsonl", "--force")
    assert code == 2 and "numpy's shortened form" in err and "row 2" in err


def test_skip_invalid_writes_the_good_rows_and_says_why(cli, tmp_path):
    rows = [GOOD, dict(GOOD, response=None), GOOD, {k: v for k, v in GOOD.items() if k != "user_input"},
            dict(GOOD, retrieved_contexts="not a list"), GOOD, dict(GOOD, response="")]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "cases.jsonl"
    code, stdout, err = cli("import", src, "--out", out)
    assert code == 2 and stdout == "" and not out.exists()
    assert err.count("\n") == 1 and "line 2: \"response\" is empty" in err and "--skip-invalid" in err
    code, stdout, err = cli("import", src, "--out", out, "--skip-invalid")
    assert code == 0, err
    assert [c["id"] for c in read_out(out)] == ["r1", "r3", "r6"]
    skipped = next(line for line in stdout.splitlines() if line.startswith("skipped"))
    assert skipped.startswith("skipped 4 rows that cannot be used (line 2: \"response\" is empty")
    assert "line 4: the field \"user_input\" is missing" in skipped and "line 5: " in skipped
    assert "and 1 more" in skipped and "line 7" not in skipped


def test_nothing_usable_is_refused(cli, tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", [dict(GOOD, response=None)] * 2)
    code, _, err = cli("import", src, "--out", tmp_path / "cases.jsonl", "--skip-invalid")
    assert code == 2 and "none of its 2 rows can be used (line 1:" in err


def test_map_reads_other_columns(cli, tmp_path):
    rows = [{"key": "a1", "ask": "Who can release the order?", "docs": ["The credit analyst releases it."],
             "doc_ids": ["KB-1"], "said": "The credit analyst releases it [KB-1].", "model": "v3"}]
    src = write_jsonl(tmp_path / "mine.jsonl", rows)
    out = tmp_path / "cases.jsonl"
    code, stdout, err = cli("import", src, "--out", out)
    assert code == 2 and "could not tell which tool wrote" in err and "--map" in err and "ask, docs" in err
    code, stdout, err = cli("import", src, "--out", out, "--map", "question=ask,answer=said",
                            "--map", "retrieved=docs,retrieved_ids=doc_ids,id=key")
    assert code == 0, err
    assert read_out(out) == [{"id": "a1", "question": rows[0]["ask"], "answer": rows[0]["said"], "meta": {"model": "v3"},
                              "retrieved": [{"id": "KB-1", "text": rows[0]["docs"][0]}]}]
    # a dotted name reaches into nested objects; --map also renames a known tool's column
    nested = write_jsonl(tmp_path / "nested.jsonl", [{"q": {"text": "Who?"}, "a": "The analyst [P1].",
                                                       "ctx": ["The analyst."]}])
    code, _, err = cli("import", nested, "--out", tmp_path / "n.jsonl", "--map", "question=q.text,answer=a,retrieved=ctx")
    assert code == 0 and read_out(tmp_path / "n.jsonl")[0]["question"] == "Who?"
    renamed = write_jsonl(tmp_path / "renamed.jsonl", [{k if k != "response" else "reply": v for k, v in GOOD.items()}])
    code, _, err = cli("import", renamed, "--out", tmp_path / "r.jsonl", "--from", "ragas", "--map", "answer=reply")
    assert code == 0, err


def test_map_into_a_tools_nested_fields(cli, tmp_path):
    src = ROOT_EXPORTS / "promptfoo" / "results.json"
    out = tmp_path / "cases.jsonl"
    code, _, err = cli("import", src, "--out", out, "--map", "question=vars.response,retrieved=vars.query")
    assert code == 0, err
    case = read_out(out)[0]
    assert case["question"] == case["answer"] and case["retrieved"][0]["text"].startswith("Who can release")
    code, _, err = cli("import", src, "--out", out, "--force", "--map", "question=vars.nope")
    assert code == 2 and "has no field 'vars.nope'" in err


@pytest.mark.parametrize("option,words", [
    ("answer", "must read FIELD=COLUMN"),
    ("reply=said", "names the field 'reply', which cases do not have"),
    ("answer=nowhere", "--map answer=nowhere: "),
])
def test_map_mistakes(cli, tmp_path, option, words):
    src = write_jsonl(tmp_path / "in.jsonl", [GOOD])
    code, _, err = cli("import", src, "--out", tmp_path / "cases.jsonl", "--map", option)
    assert code == 2 and words in err and err.count("\n") == 1


def test_map_does_not_apply_to_traces(cli, tmp_path):
    src = ROOT_EXPORTS / "langfuse" / "observations.jsonl"
    code, _, err = cli("import", src, "--out", tmp_path / "cases.jsonl", "--map", "answer=output")
    assert code == 2 and "--map applies to files with one row per answer" in err


@pytest.mark.parametrize("tool", ["langfuse", "deepeval", "openinference", "promptfoo", "trulens", "langsmith"])
def test_forced_format_on_the_wrong_file(cli, tmp_path, tool):
    src = write_jsonl(tmp_path / "ragas.jsonl", RAGAS_ROWS)
    code, out, err = cli("import", src, "--out", tmp_path / "cases.jsonl", "--from", tool)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "does not look like a" in err and "it looks like Ragas: try --from ragas" in err


def test_format_named_twice_or_unknown(cli, tmp_path):
    src = write_jsonl(tmp_path / "ragas.jsonl", RAGAS_ROWS)
    code, _, err = cli("import", "ragas", src, "--out", tmp_path / "c.jsonl", "--from", "log")
    assert code == 2 and "named twice" in err
    code, _, err = cli("import", "excel", src, "--out", tmp_path / "c.jsonl")
    assert code == 2 and "there is no import format 'excel'" in err
    assert cli("import", "ragas", src, "--out", tmp_path / "c.jsonl", "--from", "ragas")[0] == 0


def test_citations_naming_no_passage_are_shown(cli, tmp_path):
    rows = [dict(GOOD, response="It is the analyst [P1]. And the clerk [P4]."),
            dict(GOOD, retrieved_context_ids=["KB-1"], response="The analyst [KB-9]. The analyst [P1].")]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    code, out, err = cli("import", src, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert "citations that name no retrieved passage: 2 (r1 [P4], r2 [KB-9])" in out
    assert "citations by position: 1 (r2 [P1])" in out
    assert read_out(tmp_path / "cases.jsonl")[1]["aliases"] == {"P1": "KB-1"}


def test_log_as_csv(cli, tmp_path):
    src = write_csv(tmp_path / "log.csv", [{k: v for k, v in LOG_ROWS[0].items()}])
    code, _, err = cli("import", "log", src, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert read_out(tmp_path / "cases.jsonl")[0]["retrieved"][0]["id"] == "D01"


ROOT_EXPORTS = __import__("pathlib").Path(__file__).resolve().parent / "data" / "exports"


# ---------------------------------------------------------------- traces with records that name no trace


def _event(record_id=None, **attributes):
    attrs = {"ai.observability.span_type": "record_root", **attributes}
    if record_id is not None:
        attrs["ai.observability.record_id"] = record_id
    return {"record_attributes": attrs}


def _span(trace_id):
    return {"name": "chain", "context": {"trace_id": trace_id, "span_id": "s1"}, "parent_id": None,
            "span_kind": "CHAIN", "attributes": {"openinference.span.kind": "CHAIN", "input.value": "Who?",
                                                  "output.value": "The analyst."}}


@pytest.mark.parametrize("records, field", [
    ([{"record_attributes": {"x": 1}}], '"record_attributes.ai.observability.record_id"'),
    ([_span(None)], '"context.trace_id"'),
])
def test_trace_records_without_a_trace_id_are_refused_in_one_line(cli, tmp_path, records, field):
    src = write_jsonl(tmp_path / "tl.jsonl", records)
    out = tmp_path / "o.jsonl"
    for extra in ((), ("--skip-invalid",)):
        code, stdout, err = cli("import", src, "--out", out, *extra)
        assert code == 2 and stdout == "" and not out.exists(), err
        assert err.count("\n") == 1 and "tl.jsonl" in err and "Traceback" not in err
        assert f"line 1: the record has no {field}" in err and "nothing was written" in err


def test_trace_records_without_a_trace_id_are_skipped_and_counted(cli, tmp_path):
    events = [_event(None, **{"ai.observability.record_root.input": "Lost?"}),
              _event("rec-1", **{"ai.observability.record_root.input": "Who?",
                                 "ai.observability.record_root.output": "The analyst."}),
              _event(None)]
    src = write_jsonl(tmp_path / "events.jsonl", events)
    out = tmp_path / "cases.jsonl"
    code, stdout, err = cli("import", src, "--out", out)
    assert code == 2 and not out.exists() and err.count("\n") == 1
    assert "events.jsonl line 1: the record has no \"record_attributes.ai.observability.record_id\", so it " \
           "belongs to no record; give it the id of its record" in err and "--skip-invalid" in err
    code, stdout, err = cli("import", src, "--out", out, "--skip-invalid")
    assert code == 0, err
    assert [c["id"] for c in read_out(out)] == ["rec-1"]
    skipped = next(line for line in stdout.splitlines() if line.startswith("skipped"))
    assert skipped.startswith("skipped 2 rows that cannot be used (line 1: the record has no") and "line 3: " in skipped


def test_a_row_that_would_make_a_case_line_over_64_mb_is_refused_at_import(cli, tmp_path):
    """score reads a case line of up to 64 MB: import refuses to write a longer one (and
    --skip-invalid leaves it out), rather than a file score then refuses."""
    big = "Refunds are approved by the team lead. " * (900_000)  # 35 MB a passage, two of them
    rows = [{"user_input": "Who approves refunds?", "response": "The team lead approves them.",
             "retrieved_contexts": [big, big]},
            {"user_input": "Who approves refunds?", "response": "The team lead approves them.",
             "retrieved_contexts": ["Refunds are approved by the team lead."]}]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    out = tmp_path / "cases.jsonl"
    code, _, err = cli("import", path, "--out", out)
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1, err
    assert "export.json item 1: it makes a case line of 66 MB, more than groundlab reads as one case (64 MB" in err, err
    assert not out.exists()
    code, _, err = cli("import", path, "--out", out, "--skip-invalid")
    assert code == 0, err
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1
    assert cli("check", "--cases", out)[0] == 0


@pytest.mark.parametrize("over, size, limit", [
    (2 * 1024 * 1024, "66 MB", "64 MB"),
    (300 * 1024, "64.2 MB", "64.0 MB"),
    (5, "67,108,869 bytes", "67,108,864 bytes"),
])
def test_a_case_line_just_over_the_limit_reads_apart_from_the_limit(over, size, limit):
    from groundlab.importers import MAX_LINE_BYTES, _sizes_apart

    assert _sizes_apart(MAX_LINE_BYTES + over, MAX_LINE_BYTES) == (size, limit)


def test_a_row_just_over_the_line_limit_says_by_how_much(cli, tmp_path, monkeypatch):
    """A case line a few bytes over the limit is not called "64 MB, more than ... (64 MB"."""
    import groundlab.importers as importers

    limit = 1024 * 1024
    monkeypatch.setattr(importers, "MAX_LINE_BYTES", limit)
    row = {"user_input": "Who approves refunds?", "response": "The team lead approves them.",
           "retrieved_contexts": ["x" * limit]}
    path = tmp_path / "export.json"
    path.write_text(json.dumps([row]), encoding="utf-8")
    code, _, err = cli("import", path, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1, err
    assert "it makes a case line of 1,048,7" in err and "bytes, more than groundlab reads as one case " \
        "(1,048,576 bytes: score would refuse the file)" in err, err


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
@pytest.mark.parametrize("form", ["jsonl", "csv", "json"])
def test_a_utf16_export_is_read_as_text(cli, tmp_path, encoding, form):
    """Excel and Windows tools save UTF-16 (with a byte-order mark, or without one): it is read."""
    rows = [{"user_input": "Wer gibt die Rückzahlung frei?", "response": "Die Teamleitung gibt sie frei.",
             "retrieved_contexts": ["Rückzahlungen gibt die Teamleitung frei."]},
            {"user_input": "Who approves refunds?", "response": "The team lead approves them.",
             "retrieved_contexts": ["Refunds are approved by the team lead."]}]
    if form == "jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    elif form == "json":
        text = json.dumps(rows, ensure_ascii=False)
    else:
        text = "user_input,response,retrieved_contexts\n" + "".join(
            f'"{r["user_input"]}","{r["response"]}","{json.dumps(r["retrieved_contexts"], ensure_ascii=False).replace(chr(34), chr(34) * 2)}"\n'
            for r in rows)
    path = tmp_path / f"export.{form}"
    path.write_bytes(text.encode(encoding))
    out = tmp_path / "cases.jsonl"
    code, _, err = cli("import", path, "--out", out)
    assert code == 0, err
    cases = load_cases(out)
    assert [c.question for c in cases] == [r["user_input"] for r in rows]
    assert cases[0].retrieved[0].text == "Rückzahlungen gibt die Teamleitung frei."


def test_a_utf16_cases_file_is_named_as_such(cli, tmp_path):
    from conftest import CASES, NOTES

    path = tmp_path / "cases.jsonl"
    path.write_bytes(CASES.read_text(encoding="utf-8").encode("utf-16"))
    code, _, err = cli("score", "--cases", path, "--passages", NOTES)
    assert code == 2 and err.count("\n") == 1, err
    assert "cases.jsonl is UTF-16-LE text, not UTF-8; save it as UTF-8" in err and "groundlab import" in err, err


def test_every_json_lines_output_escapes_line_separators(cli, tmp_path):
    """U+2028, U+2029 and U+0085 may stand raw in a JSON string, but a reader of lines splits there:
    an import, the SAP dataset and an incident write them escaped, and an incident added to a file
    that holds them raw reads it line by line as JSON Lines means (at \\n)."""
    odd = "Refunds are approved\u2028by the team lead.\u2029 Never\x85in cash."
    src = write_jsonl(tmp_path / "log.jsonl", [{"id": "q1", "question": "Who approves\u2028refunds?",
                                                 "passages": [odd], "answer": "The team lead\u2028approves them [P1]."}])
    code, out, err = cli("import", "log", src, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    written = (tmp_path / "cases.jsonl").read_text(encoding="utf-8")
    assert not any(c in written for c in "\u2028\u2029\x85") and len(written.splitlines()) == 1
    assert json.loads(written)["retrieved"][0]["text"] == odd
    code, out, err = cli("sap", "dataset", "--cases", tmp_path / "cases.jsonl", "--out", tmp_path / "eval",
                         "--format", "jsonl")
    assert code == 0, err
    dataset = (tmp_path / "eval" / "testdata" / "cases.jsonl").read_text(encoding="utf-8")
    assert not any(c in dataset for c in "\u2028\u2029\x85") and len(dataset.splitlines()) == 1
    raw = tmp_path / "raw.jsonl"  # a cases file another tool wrote with the separators raw
    raw.write_text(json.dumps(json.loads(written), ensure_ascii=False) + "\n", encoding="utf-8")
    code, out, err = cli("incident", "--cases", raw, "--id", "i1", "--question", "Who pays\u2028refunds?",
                         "--answer", "Accounting pays them [P1].", "--passage", "P1=Accounting pays\u2028refunds.",
                         "--labels", "supported")
    assert code == 0, err
    lines = raw.read_text(encoding="utf-8").split("\n")
    assert lines[1].count("\u2028") == 0 and json.loads(lines[1])["question"] == "Who pays\u2028refunds?"
