"""`groundlab import` on real exports of Ragas, DeepEval, Phoenix, LangSmith, Langfuse, promptfoo
and TruLens (tests/data/exports, written by each tool's own API; README.md there says how), checked
against what expected.json says a correct import gives: the cases in file order, their ids, the
passage ids and texts in retrieval order, the answer as the file holds it, which passage each
citation points to, and, after scoring with the rules judge, whether the cited passages back
each claim."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from groundlab import evaluate, load_cases
from groundlab.summary import score_summary

EXPORTS = Path(__file__).resolve().parent / "data" / "exports"
EXPECTED = json.loads((EXPORTS / "expected.json").read_text(encoding="utf-8"))
FILES = sorted(EXPECTED["files"])
TEXTS = EXPECTED["texts"]

#: The tool each folder's files come from, as `--from` names it.
TOOL = {"ragas": "ragas", "deepeval": "deepeval", "phoenix": "openinference", "langsmith": "langsmith",
        "langfuse": "langfuse", "promptfoo": "promptfoo", "trulens": "trulens"}

_CITATION = re.compile(r"\s*\[[^\]]*\]")


def _answered(expected: dict) -> list:
    return [k for k in sorted(expected["answers"], key=int) if expected["answers"][k] is not None]


def _import(cli, rel: str, out: Path):
    """Import one export as a person would; a file holding rows without an answer is refused
    first (naming the row), then imported with --skip-invalid, which says what it left out."""
    expected = EXPECTED["files"][rel]
    answered = _answered(expected)
    code, stdout, err = cli("import", EXPORTS / rel, "--out", out)
    if len(answered) < expected["cases"]:
        missing = min(int(k) for k, a in expected["answers"].items() if a is None)
        assert code == 2 and stdout == "" and not out.exists(), err
        assert err.count("\n") == 1 and "--skip-invalid" in err
        unit = "row" if rel.endswith(".csv") else "line"
        assert f"{unit} {missing + (2 if unit == 'row' else 1)}: " in err, err  # the first row without an answer
        code, stdout, err = cli("import", EXPORTS / rel, "--out", out, "--skip-invalid")
        assert code == 0, err
        skipped = expected["cases"] - len(answered)
        assert f"skipped {skipped} row" in stdout, stdout
    assert code == 0, err
    return stdout, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_every_export_has_its_expectations():
    on_disk = {p.relative_to(EXPORTS).as_posix() for p in EXPORTS.rglob("*")
               if p.is_file() and p.name not in ("README.md", "expected.json")
               and p.relative_to(EXPORTS).parts[0] != "sap"}  # with expectations of its own (test_sap_import)
    assert on_disk == set(FILES)


@pytest.mark.parametrize("rel", [f for f in FILES if _answered(EXPECTED["files"][f])])
def test_import_gives_what_the_file_holds(cli, tmp_path, rel):
    expected = EXPECTED["files"][rel]
    out = tmp_path / "cases.jsonl"
    stdout, cases = _import(cli, rel, out)
    tool = TOOL[rel.split("/")[0]]
    assert f"(--from {tool})" in stdout.splitlines()[0]  # says which format it recognised

    answered = _answered(expected)
    assert len(cases) == len(answered)
    ids = expected.get("case_ids_in_file") or {}
    for case, k in zip(cases, answered):
        assert [p["id"] for p in case["retrieved"]] == expected["passages"][k], (k, case["retrieved"])
        assert [p["text"] for p in case["retrieved"]] == [TEXTS[t] for t in expected["passage_texts"][k]]
        assert case["answer"] == expected["answers"][k]
        if ids:
            assert case["id"] == ids[k]
        own = {p["id"] for p in case["retrieved"]}
        for marker, passage in expected["citations"][k].items():
            cite = marker[1:-1]
            tied = cite if cite in own else case.get("aliases", {}).get(cite)
            assert tied == passage, (k, marker, tied)
    if expected["passage_ids_in_file"]:
        assert "passage ids: as the file gives them" in stdout
    elif any(expected["passages"].values()):
        assert "named P1..Pn by position" in stdout
    unmatched = sum(1 for k in answered for p in expected["citations"][k].values() if p is None)
    if unmatched:
        assert f"citations that name no retrieved passage: {unmatched} " in stdout

    # Scored with the rules judge: each claim cites the passages expected.json names, and where the
    # judge reads the claim as the person did, its citation check agrees with the person's.
    ev = evaluate(load_cases(out), "rules")
    for case, k in zip(cases, answered):
        own = {p["id"] for p in case["retrieved"]}
        sample = EXPECTED["samples"][expected["sample"][k]]
        sentences = [_CITATION.sub("", s) for s, _ in sample["claims"]]
        rows = ev.claims[ev.claims["case_id"] == case["id"]]
        by_sentence = {i: [] for i in range(len(sentences))}
        for row in rows.itertuples():
            found = [i for i, s in enumerate(sentences) if row.text.rstrip(".!?") in s]
            assert found, (k, row.text)
            by_sentence[found[0]].append(row)
        for i, ((_, verdict), backed) in enumerate(zip(sample["claims"], expected["citations_backed"][k])):
            claims = by_sentence[i]
            if verdict == "abstention":
                assert not claims
                continue
            cites = [c if c in own else None for row in claims for c in row.cites]
            if backed["backed"] is None:  # the file does not let one tell: cited passages are not there
                assert cites and all(c is None for c in cites)
                continue
            assert cites == backed["cites"], (k, i, cites)
            if len(claims) == 1 and claims[0].verdict == verdict:
                assert bool(claims[0].citation_ok) == backed["backed"], (k, i, claims[0])


@pytest.mark.parametrize("rel", [f for f in FILES if not _answered(EXPECTED["files"][f])])
def test_passages_without_answers_are_refused(cli, tmp_path, rel):
    out = tmp_path / "cases.jsonl"
    code, stdout, err = cli("import", EXPORTS / rel, "--out", out)
    assert code == 2 and stdout == "" and not out.exists()
    assert err.count("\n") == 1 and "holds retrieved passages but no answers" in err
    assert "get_spans_dataframe()" in err  # what to export instead


def _summary(cli, rel, out):
    _import(cli, rel, out)
    s = score_summary(evaluate(load_cases(out), "rules"))
    s.pop("source", None)
    return s


def test_every_format_of_the_same_answers_scores_the_same(cli, tmp_path):
    """The five sample answers, whichever tool and format carried them (and in whatever order):
    the same figures, citation ones included. A lost passage (numpy's list form read as one
    string), an ignored id or a citation by position left untied would change them."""
    same = [f for f in FILES if set(EXPECTED["files"][f]["sample"].values()) == {f"SAMPLES/{k}" for k in range(5)}
            and all(EXPECTED["files"][f]["passages"].values()) and len(_answered(EXPECTED["files"][f])) == 5]
    assert len(same) > 40
    reference = _summary(cli, "ragas/evalds.jsonl", tmp_path / "reference.jsonl")
    # The claims a reader sees in the five answers (abstentions left out): 2 + 2 + 1 + 1.
    read = sum(verdict != "abstention" for k in range(5) for _, verdict in EXPECTED["samples"][f"SAMPLES/{k}"]["claims"])
    assert reference["citation_recall"]["backed"] > 0 and reference["claims"] == read == 6
    for rel in same:
        assert _summary(cli, rel, tmp_path / (rel.replace("/", "_") + ".jsonl")) == reference, rel


def test_the_figures_that_used_to_be_wrong(cli, tmp_path):
    # retrieved_context_ids kept: [KB-101] ties to its passage (citation recall was 0/3)
    s = cli.json("score", "--cases", _cases(cli, "ragas/cites_ids.jsonl", tmp_path))
    assert s["citation_recall"]["backed"] == 2 and s["citation_precision"]["relevant"] == 2
    # [1], [2] tie to passages 1 and 2 (recall was 0): every cited claim is backed
    path = _cases(cli, "ragas/numeric_cites.jsonl", tmp_path)
    ev = evaluate(load_cases(path), "rules")
    cited = ev.claims[ev.claims["citations"] > 0]
    assert len(cited) == 3 and cited["citation_ok"].all()
    assert [list(c) for c in cited["cites"]] == [["P1"], ["P2"], ["P1"]]
    # numpy's list form: 9 passages, not 5, and the figures of the same answers saved as JSON Lines
    hf = _cases(cli, "ragas/evalds_hf.csv", tmp_path)
    assert sum(len(c.retrieved) for c in load_cases(hf)) == 9
    assert cli.json("score", "--cases", hf)["faithfulness"] == \
        cli.json("score", "--cases", _cases(cli, "ragas/evalds.jsonl", tmp_path))["faithfulness"]


def _cases(cli, rel, tmp_path):
    out = tmp_path / (rel.replace("/", "_") + ".jsonl")
    if not out.exists():
        _import(cli, rel, out)
    return out


def test_index_names_passages_one_to_n(cli, tmp_path):
    out = tmp_path / "cases.jsonl"
    code, stdout, _ = cli("import", EXPORTS / "ragas/numeric_cites.csv", "--out", out, "--passage-ids", "index")
    assert code == 0 and "named 1..n by position" in stdout and "citations by position" not in stdout
    cases = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [[p["id"] for p in c["retrieved"]] for c in cases] == [["1", "2"], ["1"]]
    assert all("aliases" not in c for c in cases)  # [1] names passage "1" itself
    ev = evaluate(load_cases(out), "rules")
    assert ev.claims.loc[ev.claims["citations"] > 0, "citation_ok"].all()


def test_meta_keeps_what_the_tool_adds(cli, tmp_path):
    _, cases = _import(cli, "deepeval/testcases.json", tmp_path / "d.jsonl")
    assert all(c["meta"]["model"] == "assistant-v3" for c in cases)
    _, cases = _import(cli, "ragas/result.jsonl", tmp_path / "r.jsonl")
    assert cases[0]["meta"] == {"reference": "The credit analyst.", "exact_match": 0.0, "string_present": 0.0}
    _, cases = _import(cli, "langfuse/observations.jsonl", tmp_path / "l.jsonl")
    assert {c["meta"]["model"] for c in cases} == {"assistant-v3"}
    ev = evaluate(load_cases(tmp_path / "d.jsonl"), "rules")
    assert set(ev.cases["meta.model"]) == {"assistant-v3"}
