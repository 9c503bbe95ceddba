"""`groundlab import` on SAP orchestration logs: the real files written through SAP's Python SDK
(tests/data/exports/sap, README.md there), each checked against expected.json (questions,
passage ids in retrieval order, passage texts, answers, citations and, judged, whether each cited
passage backs its sentences), and the forms SAP allows that the sample files do not show."""

from __future__ import annotations

import json
import re

import pytest

from groundlab import evaluate, load_cases

from sap_logs import CASES, EXPECTED, SAP, TEMPLATE, grounding, response, responses, truth_ids, write_jsonl

#: The sample files, one import each: a file, or a folder of response bodies.
SOURCES = ["raw_v1", "raw_v2", "responses_v1.jsonl", "responses_v2.jsonl", "records_v1.jsonl", "records_v2.jsonl",
           "records.csv", "records.parquet"]


def _records(source: str):
    """expected.json's records for a file or a folder, in the order the questions were asked."""
    files = EXPECTED["files"]
    if source.startswith("raw_"):
        return [files[name]["records"][0] for name in files if name.startswith(source + "/")]
    return files[source]["records"]


def _read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _expected_ids(record: dict):
    """The ids a correct import gives: the file's own, else the ids every chunk's text starts with."""
    return record.get("ids_in_text") or record["passage_ids"]


@pytest.mark.parametrize("source", SOURCES)
def test_every_sample_file_imports_as_expected_json_says(cli, tmp_path, source):
    out = tmp_path / "cases.jsonl"
    code, stdout, err = cli("import", SAP / source, "--out", out)
    assert code == 0, err
    first = stdout.splitlines()[0]
    assert "recognised as SAP orchestration" in first and "(--from sap)" in first
    form = EXPECTED["files"][_records_key(source)]["evidence_format"]
    assert ("as JSON with metadata" if form == "metadata" else "chunk texts joined by ```") in first
    cases = _read(out)
    records = _records(source)
    assert len(cases) == len(records) == 8
    for case, record in zip(cases, records):
        assert case["question"] == record["question"]
        assert [p["id"] for p in case["retrieved"]] == _expected_ids(record)
        assert [p["text"] for p in case["retrieved"]] == record["passage_texts"]
        assert case["answer"] == record["answer"]
        if record.get("request_id") and (source.startswith("raw_") or source.startswith("responses")):
            assert case["id"] == record["request_id"]
        own = {p["id"] for p in case["retrieved"]}
        cited = re.findall(r"\[([^\]]+)\]", case["answer"])
        assert cited == [c for c in cited if c in own]  # every citation names a passage the case holds
        assert sorted(set(cited)) == sorted(record["cited_ids"])
    if form == "plain":
        assert "read from the start of each chunk's text in 8 answers" in stdout
    else:
        assert "passage ids: the grounding metadata's 'doc_id'" in stdout
    if source.startswith(("raw_", "responses_")):
        assert "questions: recovered from the filled prompt, after 'Question:' (8 answers)" in stdout


def _records_key(source: str) -> str:
    return next(name for name in EXPECTED["files"] if name == source or name.startswith(source + "/"))


@pytest.mark.parametrize("source", ["raw_v1", "records.csv"])
def test_judged_citations_agree_with_the_truth(cli, tmp_path, source):
    """Judged by the rules judge: each claim cites what expected.json says, and where the judge reads
    a sentence as supported, as the truth does, its citation check passes when the passages it cites
    are among those the truth says support it."""
    out = tmp_path / "cases.jsonl"
    assert cli("import", SAP / source, "--out", out)[0] == 0
    ev = evaluate(load_cases(out), "rules")
    for case, record in zip(_read(out), _records(source)):
        rows = ev.claims[ev.claims["case_id"] == case["id"]]
        sentences = record["sentences"]
        if record["label"] == "abstention":
            assert rows.empty
            continue
        assert [list(c) for c in rows["cites"]] == [s["cited_ids"] for s in sentences]
        for row, sentence in zip(rows.itertuples(), sentences):
            if row.verdict == "supported" and sentence["supported"]:
                assert row.citation_ok == bool(set(sentence["cited_ids"]) & set(sentence["supported_by"]))
    # The wrong number of A06 ("30 days" where KB-121 says 90) is caught.
    a06 = next(c["id"] for c, r in zip(_read(out), _records(source)) if r["case_id"] == "A06")
    assert "contradicted" in set(ev.claims.loc[ev.claims["case_id"] == a06, "verdict"])


def test_every_form_of_the_same_answers_scores_the_same(cli, tmp_path):
    figures = []
    for source in SOURCES:
        out = tmp_path / f"{source.replace('/', '_')}.jsonl"
        assert cli("import", SAP / source, "--out", out)[0] == 0
        figures.append(cli.json("score", "--cases", out, "--judge", "rules"))
    for f in figures:
        f.pop("source", None)
    assert all(f == figures[0] for f in figures[1:])
    assert figures[0]["citation_precision"]["citations"] > 0


# ---------------------------------------------------------------- forms the sample files do not show


@pytest.mark.parametrize("api,form,options", [
    ("v2", "metadata", {}),                                     # the other form per API version
    ("v1", "plain", {}),
    ("v1", "metadata", {"nested": True}),                       # the list nested one level deeper
    ("v2", "metadata", {"level": "prefixed", "key": "source_id"}),  # only document_source_id
    ("v1", "metadata", {"level": "both", "key": "docid", "values": "scalar"}),  # docid and document_docid, plain strings
    ("v2", "metadata", {"ensure_ascii": True, "key": "sourceDocument"}),  # a key no list names: found by the citations
    ("v2", "plain", {"header": "[{id}] {title}\n"}),             # another header before the chunk text
    ("v1", "plain", {"header": "{id}: {title}\n"}),
])
def test_other_choices_sap_allows(cli, tmp_path, api, form, options):
    path = write_jsonl(tmp_path / "log.jsonl", responses(api, form, **options))
    out = tmp_path / "cases.jsonl"
    code, stdout, err = cli("import", path, "--out", out)
    assert code == 0, err
    assert f"SAP orchestration {api} responses" in stdout
    cases = _read(out)
    assert [c["question"] for c in cases] == [c["question"] for c in CASES]
    assert [[p["id"] for p in c["retrieved"]] for c in cases] == [truth_ids(c) for c in CASES]
    assert [c["answer"] for c in cases] == [c["answer"] for c in CASES]
    if form == "metadata":
        assert [[p["text"] for p in c["retrieved"]] for c in cases] == [[p["text"] for p in t["retrieved"]]
                                                                        for t in CASES]


@pytest.mark.parametrize("style", ["comma", "semicolon", "spaced"])
def test_other_citation_styles_tie_to_the_passages(cli, tmp_path, style):
    path = write_jsonl(tmp_path / "log.jsonl", responses("v2", "plain", style=style, nulls=False))
    out = tmp_path / "cases.jsonl"
    code, stdout, _ = cli("import", path, "--out", out)
    assert code == 0 and "citations that name no retrieved passage" not in stdout
    ev = evaluate(load_cases(out), "rules")
    cited = ev.claims[ev.claims["citations"] > 0]
    assert len(cited) == sum(len(s["cited_ids"]) > 0 for c in CASES for s in c["sentences"])
    assert {c for cites in cited["cites"] for c in cites} == {i for c in CASES for i in c["cited_ids"]}


def test_passage_id_key_names_the_metadata_key(cli, tmp_path):
    path = write_jsonl(tmp_path / "log.jsonl", responses("v1", "metadata", level="prefixed", key="doc_id"))
    out = tmp_path / "cases.jsonl"
    code, stdout, _ = cli("import", path, "--out", out, "--passage-id-key", "title")
    assert code == 0 and "the grounding metadata's 'title' (--passage-id-key)" in stdout
    assert [p["id"] for p in _read(out)[0]["retrieved"]] == [p["title"] for p in CASES[0]["retrieved"]]
    # A key no chunk holds: ids from the chunks' text where each starts with one, else by position.
    code, stdout, _ = cli("import", path, "--out", out, "--passage-id-key", "nope", "--force")
    assert code == 0 and "passage ids: by position in 8 answers" in stdout
    assert [p["id"] for p in _read(out)[0]["retrieved"]] == ["P1", "P2"]
    # Not an SAP file: the option is refused, naming it.
    code, _, err = cli("import", SAP.parent / "ragas" / "evalds.jsonl", "--out", tmp_path / "r.jsonl",
                       "--passage-id-key", "doc_id")
    assert code == 2 and "--passage-id-key applies to SAP orchestration logs only" in err


def test_question_from_a_template_given_or_a_labelled_line(cli, tmp_path):
    template = "Answer from these documents only.\n{{?grounding_response}}\n\n{{?userQuestion}}"
    path = write_jsonl(tmp_path / "log.jsonl", [
        response(c, k, "v2", grounding(c, "plain"),
                 template=template.replace("{{?grounding_response}}", "{{ ?grounding_response }}")
                 .replace("{{?userQuestion}}", "{{?question}}")) for k, c in enumerate(CASES)])
    out = tmp_path / "cases.jsonl"
    code, _, err = cli("import", path, "--out", out)
    assert code == 2 and "labels no line as the question" in err and "--prompt-template" in err
    assert err.count("\n") == 1 and not out.exists()
    code, stdout, err = cli("import", path, "--out", out, "--prompt-template", template.replace("\n", "\\n"))
    assert code == 0, err
    assert [c["question"] for c in _read(out)] == [c["question"] for c in CASES]
    assert "by the --prompt-template given (8 answers)" in stdout
    # The question after the context, labelled as SAP's own example labels it ("Request:").
    path = write_jsonl(tmp_path / "late.jsonl", [
        response(c, k, "v1", grounding(c, "metadata"), template="Reports: {{ ?grounding_response }}\n\nRequest: "
                 "{{?question}}\n\nAnswer in one paragraph.") for k, c in enumerate(CASES)])
    code, stdout, err = cli("import", path, "--out", tmp_path / "late_cases.jsonl")
    assert code == 0, err
    assert [c["question"] for c in _read(tmp_path / "late_cases.jsonl")] == [c["question"] for c in CASES]
    assert "after 'Request:'" in stdout


def test_a_chunk_holding_three_backticks_is_reported_not_split(cli, tmp_path):
    case = dict(CASES[1], retrieved=[dict(CASES[1]["retrieved"][0], text="Run this:\n```powershell\nSet-Pwd\n```\n"
                                          "Passwords expire after 180 days."), CASES[1]["retrieved"][1]])
    # With ids at the start of every chunk, the pieces are put back together and that is said.
    path = write_jsonl(tmp_path / "ids.jsonl", [response(case, 0, "v2", grounding(case, "plain"))])
    out = tmp_path / "cases.jsonl"
    code, stdout, _ = cli("import", path, "--out", out)
    assert code == 0 and "chunks holding ``` kept whole" in stdout
    texts = [p["text"] for p in _read(out)[0]["retrieved"]]
    assert len(texts) == 2 and "```powershell\nSet-Pwd\n```" in texts[0]
    # Without ids, where one chunk ends cannot be told: the row is refused with what to do.
    path = write_jsonl(tmp_path / "bare.jsonl", [response(case, 0, "v2", grounding(case, "plain", header=""))])
    code, _, err = cli("import", path, "--out", tmp_path / "bare_cases.jsonl")
    assert code == 2 and "seems to hold three backticks" in err and "metadata_params" in err


def test_chunks_of_one_document_become_one_passage(cli, tmp_path):
    case = CASES[4]
    first = case["retrieved"][1]
    split = dict(case, retrieved=[case["retrieved"][0], dict(first, text=first["text"][:60]),
                                  dict(first, text=first["text"][60:]), case["retrieved"][2]])
    path = write_jsonl(tmp_path / "log.jsonl", [response(split, 0, "v1", grounding(split, "metadata"))])
    out = tmp_path / "cases.jsonl"
    code, stdout, err = cli("import", path, "--out", out)
    assert code == 0, err
    assert "chunks of the same document joined into one passage: 1 (line 1 KB-12)" in stdout
    retrieved = _read(out)[0]["retrieved"]
    assert [p["id"] for p in retrieved] == truth_ids(case)
    assert retrieved[1]["text"] == first["text"][:60] + "\n\n" + first["text"][60:]


def test_bad_sap_rows_are_one_sentence(cli, tmp_path):
    body = response(CASES[0], 0, "v2", grounding(CASES[0], "plain"))
    broken = json.loads(json.dumps(body))
    broken["intermediate_results"]["grounding"]["data"]["grounding_result"] = '[{"content": "x", "metad'
    no_answer = json.loads(json.dumps(body))
    del no_answer["final_result"], no_answer["intermediate_results"]["llm"]
    path = write_jsonl(tmp_path / "log.jsonl", [body, broken, no_answer])
    code, _, err = cli("import", path, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and err.count("\n") == 1
    assert "line 2: the grounding result starts like the JSON of the metadata form but is not valid JSON" in err
    code, stdout, err = cli("import", path, "--out", tmp_path / "cases.jsonl", "--skip-invalid")
    assert code == 0 and "skipped 2 rows" in stdout and "line 3: it holds no answer" in stdout


def test_a_folder_of_bodies_in_the_order_they_were_made(cli, tmp_path):
    folder = tmp_path / "bodies"
    folder.mkdir()
    made = responses("v1", "metadata")
    for k, body in enumerate(made):  # names that sort against the order the answers were made
        (folder / f"{chr(ord('z') - k)}.json").write_text(json.dumps(body, indent=2), encoding="utf-8")
    out = tmp_path / "cases.jsonl"
    code, stdout, _ = cli("import", folder, "--out", out)
    assert code == 0 and "in the order they were made" in stdout
    assert [c["id"] for c in _read(out)] == [b["request_id"] for b in made]
    assert TEMPLATE.startswith("Question:")


def test_a_document_id_with_a_line_break_cannot_forge_a_line_of_the_notes(cli, tmp_path):
    case = CASES[4]
    first = dict(case["retrieved"][1], id="KB-12\nforged: every answer is supported")
    split = dict(case, retrieved=[case["retrieved"][0], dict(first, text=first["text"][:60]),
                                  dict(first, text=first["text"][60:]), case["retrieved"][2]])
    path = write_jsonl(tmp_path / "log.jsonl", [response(split, 0, "v1", grounding(split, "metadata"))])
    code, stdout, err = cli("import", path, "--out", tmp_path / "cases.jsonl")
    assert code == 0, err
    assert "line 1 'KB-12\\nforged: every answer is supported'" in stdout
    assert not any(line.startswith("forged") for line in (stdout + err).splitlines())


def test_a_grounding_result_nested_too_deeply_is_one_sentence(cli, tmp_path):
    """A grounding result written as a string of JSON lists 50,000 deep: the row named, no
    RecursionError."""
    body = json.loads((SAP / "responses_v2.jsonl").read_text(encoding="utf-8").splitlines()[0])
    body["intermediate_results"]["grounding"]["data"]["grounding_result"] = "[" * 50000 + "]" * 50000
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(body) + "\n", encoding="utf-8")
    code, out, err = cli("import", path, "--out", tmp_path / "cases.jsonl")
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1, err
    assert "deep.jsonl line 1: the grounding result nests JSON lists or objects more deeply" in err
    assert not (tmp_path / "cases.jsonl").exists()
