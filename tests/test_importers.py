"""`groundlab import ragas|log`: each format, each rejection, and scoring what they produce."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from groundlab import evaluate, load_cases
from groundlab.importers import cases_from_log

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
    cases = cases_from_log(enumerate(LOG_ROWS, 1), "log.jsonl")
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
    "log as csv": ("log", "csv", _log(), "a log file must be JSONL"),
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
    assert "1/2 answered" in lines["hallucination rate"] and "%\u2013" in lines["hallucination rate"]
    assert "n/a" in lines["by the person"] and "person-based line unavailable" in lines["by the person"]
    s = cli.json("score", "--cases", cases)
    assert s["hallucination_rate"]["low"] is not None and s["hallucination_rate_by_person"] is None

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
