"""`groundlab score --claims-out FILE --cases-out FILE`: the claim and case frames as CSV or
Parquet, with the rules every output follows (no overwrite without --force, never an input,
written whole or not at all)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from groundlab import evaluate, load_cases

from conftest import CASES, NOTES


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_frames_as_written_read_back(cli, sample_args, tmp_path, suffix):
    claims, cases = tmp_path / f"claims{suffix}", tmp_path / f"cases{suffix}"
    code, out, err = cli("score", *sample_args, "--claims-out", claims, "--cases-out", cases)
    assert code == 0, err
    assert out.startswith("groundlab score: judge signals")  # the default judge
    assert f"wrote the claim frame (20 rows) to {claims}" in err and f"wrote the case frame (12 rows) to {cases}" in err
    ev = evaluate(load_cases(CASES, NOTES))
    read = pd.read_csv if suffix == ".csv" else pd.read_parquet
    got_claims, got_cases = read(claims), read(cases)
    assert list(got_claims.columns) == list(ev.claims.columns) and list(got_cases.columns) == list(ev.cases.columns)
    assert got_claims["verdict"].tolist() == ev.claims["verdict"].tolist()
    cites = got_claims["cites"].map(json.loads) if suffix == ".csv" else got_claims["cites"].map(list)
    assert cites.tolist() == [list(c) for c in ev.claims["cites"]]  # ["D07", "D06"] in a CSV cell
    assert got_cases["outcome"].tolist() == ev.cases["outcome"].tolist()
    assert got_cases["hallucinated"].isna().sum() == ev.cases["hallucinated"].isna().sum()


def test_meta_columns_are_written(cli, tmp_path):
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    for k, row in enumerate(rows):
        row["meta"] = {"model": "v3", "scores": {"ragas": k / 10}} if k % 2 else {"model": ["odd", "kinds"]}
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for suffix in (".csv", ".parquet"):
        out = tmp_path / f"cases{suffix}"
        code, _, err = cli("score", "--cases", path, "--passages", NOTES, "--cases-out", out)
        assert code == 0, err
        frame = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
        assert frame["meta.scores.ragas"].dropna().tolist() == [k / 10 for k in range(1, 12, 2)]
        assert frame["meta.model"].tolist()[:2] == ['["odd", "kinds"]', "v3"]  # mixed kinds: JSON text


def test_never_overwrites_or_writes_over_an_input(cli, sample_args, tmp_path):
    mine = tmp_path / "claims.csv"
    mine.write_text("my own table\n", encoding="utf-8")
    code, out, err = cli("score", *sample_args, "--claims-out", mine)
    assert code == 2 and out == "" and "already exists; nothing was written" in err
    assert mine.read_text(encoding="utf-8") == "my own table\n"
    assert cli("score", *sample_args, "--claims-out", mine, "--force")[0] == 0
    assert pd.read_csv(mine).shape[0] == 20

    cases = tmp_path / "cases.csv"  # a cases file, whatever its name, is never replaced
    cases.write_bytes(CASES.read_bytes())
    code, _, err = cli("score", "--cases", cases, "--passages", NOTES, "--cases-out", cases, "--force")
    assert code == 2 and "is also the input" in err and cases.read_bytes() == CASES.read_bytes()


@pytest.mark.parametrize("argv,words", [
    (["--claims-out", "claims.xlsx"], "should end in .csv or .parquet"),
    (["--claims-out", "same.csv", "--cases-out", "same.csv"], "is named for two outputs"),
    (["--report", "same.parquet", "--cases-out", "same.parquet"], "is named for two outputs"),
])
def test_output_mistakes_stop_before_judging(cli, sample_args, tmp_path, argv, words):
    argv = [str(tmp_path / a) if a.endswith(("csv", "parquet", "xlsx")) else a for a in argv]
    code, out, err = cli("score", *sample_args, *argv)
    assert code == 2 and out == "" and words in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_nothing_half_written(cli, sample_args, tmp_path, monkeypatch):
    target = tmp_path / "claims.parquet"

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("pyarrow.parquet.write_table", broken)
    monkeypatch.setattr("pyarrow.parquet.ParquetWriter.write_table", broken)  # the claim frame as it streams
    code, _, err = cli("score", *sample_args, "--claims-out", target)
    assert code == 2 and "disk full" in err
    assert list(tmp_path.iterdir()) == []
    code, _, err = cli("score", *sample_args, "--cases-out", tmp_path / "cases.parquet")
    assert code == 2 and "disk full" in err
    assert list(tmp_path.iterdir()) == []


def test_formula_like_text_is_written_as_text_in_a_csv(cli, tmp_path):
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    rows[0]["id"] = "=HYPERLINK(\"http://x.example\")"
    rows[0]["meta"] = {"note": "@SUM(A1)", "-x": "+1", "score": -0.5}
    rows[0]["answer"] = "=cmd|' /C calc'!A0 [D07]. The supplier delivered 90 of 100 pieces [D07]."
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    claims, cases = tmp_path / "claims.csv", tmp_path / "cases.csv"
    code, _, err = cli("score", "--cases", path, "--passages", NOTES, "--claims-out", claims, "--cases-out", cases)
    assert code == 0, err
    got_claims, got_cases = pd.read_csv(claims), pd.read_csv(cases)
    assert got_claims["case_id"][0] == "'=HYPERLINK(\"http://x.example\")"
    assert got_claims["text"][0].startswith("'=cmd|")
    assert got_cases["meta.note"][0] == "'@SUM(A1)" and got_cases["meta.-x"][0] == "'+1"
    assert got_cases["meta.score"][0] == -0.5  # a number is a number, not text
    for text in (claims.read_text(encoding="utf-8"), cases.read_text(encoding="utf-8")):
        assert all(not cell.startswith(("=", "+", "@")) for line in text.splitlines() for cell in line.split(","))
    parquet = tmp_path / "claims.parquet"  # Parquet keeps the text as it was: no spreadsheet reads it as a formula
    assert cli("score", "--cases", path, "--passages", NOTES, "--claims-out", parquet)[0] == 0
    assert pd.read_parquet(parquet)["case_id"][0] == "=HYPERLINK(\"http://x.example\")"


def test_a_claims_csv_reads_back_as_a_baseline_with_formula_like_ids(cli, tmp_path):
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    rows[0]["id"], rows[1]["id"] = "-c01", "'-c01"
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    claims = tmp_path / "claims.csv"
    assert cli("score", "--cases", path, "--passages", NOTES, "--claims-out", claims)[0] == 0
    assert list(dict.fromkeys(pd.read_csv(claims)["case_id"]))[:2] == ["'-c01", "''-c01"]
    code, out, err = cli("agree", "--cases", path, "--passages", NOTES, "--baseline", claims, "--json")
    assert code == 0, err
    baseline = json.loads(out)["baseline"]
    assert baseline["compared"] == 20 and baseline["new"] == baseline["gone"] == baseline["verdict_changed"] == 0


def test_a_frame_to_standard_output(cli, sample_args):
    import io

    code, out, err = cli("score", *sample_args, "--claims-out", "-")
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    assert list(frame.columns) == list(evaluate(load_cases(CASES, NOTES)).claims.columns) and len(frame) == 20
    assert "groundlab score: judge signals, 12 cases, 20 claims" in err  # the score goes to stderr instead
    code, out, err = cli("score", *sample_args, "--cases-out", "-", "--claims-out", "-")
    assert code == 2 and out == "" and "both write to standard output (-); only one of them can" in err
    code, out, err = cli("score", *sample_args, "--cases-out", "-", "--json")
    assert code == 2 and out == "" and "--cases-out - and --json both write to standard output" in err
