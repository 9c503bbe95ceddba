"""Counts as the currency: the counts of parts add up to the figures of scoring everything at once,
score streams its input keeping counts only, and merge refuses what cannot be added."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from groundlab import citation_recall, evaluate, get_judge, load_cases
from groundlab.counts import counts_of, merge_counts, read_counts
from groundlab.evaluate import count_file, evaluate_file
from groundlab.records import GroundlabError, InputError, Verdict
from groundlab.summary import score_summary
from groundlab.cli.measure import _severity

from conftest import CASES, NOTES

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from make_cases import make  # noqa: E402


class Flaky:
    """The rules judge, except that it cannot decide a claim about a supplier, and a data policy
    holds back (to the rules judge) claims about invoices: errors and held-back cases to count."""

    name, version, cpu_bound = "flaky", "1", True

    def __init__(self):
        self.rules = get_judge("rules")

    def judge_batch(self, pairs):
        out = []
        for (text, evidence), verdict in zip(pairs, self.rules.judge_batch(pairs)):
            if "supplier" in text.lower():
                verdict = Verdict(None, "", error="the endpoint timed out")
            elif "invoice" in text.lower():
                verdict = Verdict(verdict.label, verdict.reason, held_back="llm")
            out.append(verdict)
        return out


def _rich_cases(tmp_path: Path, n: int = 1200) -> Path:
    """Synthetic cases with every kind of thing a figure counts: processes (and none), labels on
    some answers, incidents, answerable unknown on some, and cases without citations."""
    rows = []
    for k, case in enumerate(make(n, seed=3)):
        case = dict(case)
        if k % 3:
            case["process"] = ("procure-to-pay", "order-to-cash")[k % 2]
        if k % 7 == 0:
            case.pop("answerable", None)
        if k % 11 == 0:
            case["origin"] = "incident" if k % 22 == 0 else "log"
        if k % 13 == 0:  # an answer without citations
            case["answer"] = case["answer"].replace("[", "").replace("]", "")
        rows.append(case)
    cases = load_cases(rows, NOTES)
    from groundlab.evaluate import split_cases

    for row, split in zip(rows, split_cases(cases)):  # a person's labels on a fifth of the answers
        if split.claims and int(row["id"][1:]) % 5 == 0:
            row["labels"] = ["supported" if i % 2 else "unsupported" for i in range(len(split.claims))]
    path = tmp_path / "rich.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("judge", ["rules", "signals", "flaky"])
def test_the_counts_give_every_figure_of_the_frames_and_add_up_over_parts(tmp_path, judge):
    path = _rich_cases(tmp_path)
    cases = load_cases(path, NOTES)
    judge = Flaky() if judge == "flaky" else judge
    whole = evaluate(cases, judge)
    counts = counts_of(whole)
    summary = score_summary(whole, 3)
    assert counts.summary(3) == summary
    for key in ("hallucination_rate_corrected", "incidents", "hallucination_rate_by_person"):
        assert summary.get(key), key  # the rich set exercises them
    if isinstance(judge, Flaky):
        assert summary["errors"] > 0 and summary["held_back"]["cases"] > 0
    severity = _severity(whole, 3, None, None)
    assert counts.breakdown() == {"by_kind": severity["by_kind"], "by_process": severity["by_process"]}
    # Parts of uneven size, one of them with no citation at all, merged in another order.
    no_citations = [c for c in cases if "[" not in c.answer]
    rest = [c for c in cases if "[" in c.answer]
    parts = [no_citations, rest[:100], rest[100:700], rest[700:]]
    merged = merge_counts([counts_of(evaluate(p, judge)) for p in reversed(parts)])
    assert merged.shards == 4
    assert merged.summary(3) == summary and merged.breakdown() == counts.breakdown()
    table = merged.table()
    assert list(table.columns) == ["measure", "group", "count", "total"]
    assert table.groupby(["measure", "group"]).size().max() == 1


def test_citation_recall_of_a_part_without_citations_adds_up(sample_cases):
    import dataclasses
    import re

    without = [dataclasses.replace(c, answer=re.sub(r"\s*\[[^\]]*\]", "", c.answer)) for c in sample_cases]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = citation_recall(evaluate(without, "rules").claims)
        b = citation_recall(evaluate(sample_cases, "rules").claims)
    assert not a.applies and a.count == 0 and a.total > 0  # 0 of its supported claims, rate n/a
    assert str(a).endswith("(n/a)")
    both = a + b
    assert (both.count, both.total) == (b.count, a.total + b.total) and both.defined


def _figures(path, passages=NOTES, judge="rules", **kwargs):
    return count_file(path, passages, judge, **kwargs).summary()


def test_score_streams_keeping_counts_with_the_figures_of_the_frames(tmp_path, monkeypatch):
    path = _rich_cases(tmp_path, 3000)
    expected = score_summary(evaluate_file(path, NOTES, "signals"))
    assert _figures(path, judge="signals") == expected
    monkeypatch.setattr(sys.modules["groundlab.evaluate"], "PARALLEL_MIN_BYTES", 1000)
    assert _figures(path, judge="signals", workers=2) == expected
    assert _figures(path, judge="signals", workers=3) == expected


def test_a_repeated_id_or_a_bad_line_is_the_same_sentence_as_reading_everything(tmp_path, monkeypatch):
    lines = CASES.read_text(encoding="utf-8").splitlines()
    repeated = tmp_path / "repeated.jsonl"
    repeated.write_text("\n".join(lines + [lines[2]]) + "\n", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines[:5] + ["{oops"] + lines[5:] + [lines[2]]) + "\n", encoding="utf-8")
    for path in (repeated, bad):
        with pytest.raises(InputError) as frames:
            evaluate_file(path, NOTES, "rules")
        with pytest.raises(InputError) as counted:
            count_file(path, NOTES, "rules")
        assert str(counted.value) == str(frames.value)
        monkeypatch.setattr(sys.modules["groundlab.evaluate"], "PARALLEL_MIN_BYTES", 100)
        with pytest.raises(InputError) as counted:
            count_file(path, NOTES, "rules", workers=2)
        assert str(counted.value) == str(frames.value)
        monkeypatch.undo()
    assert "line 13 (case c03)" in str(frames.value) or "line 6" in str(frames.value)


def _run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "groundlab", *map(str, args)], capture_output=True, text=True,
                          input=stdin, cwd=ROOT)


def test_score_from_standard_input_streams_and_refuses_a_repeated_id(tmp_path):
    text = CASES.read_text(encoding="utf-8")
    run = _run("score", "--judge", "rules", "--json", "--cases", "-", "--passages", NOTES, stdin=text)
    assert run.returncode == 0, run.stderr
    expected = score_summary(evaluate(load_cases(CASES, NOTES), "rules"))
    assert json.loads(run.stdout) == json.loads(json.dumps(expected))
    first = text.splitlines()[0]
    run = _run("score", "--judge", "rules", "--cases", "-", "--passages", NOTES, stdin=text + first + "\n")
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert "stdin: 1 case id is used by more than one case; give each case its own id" in run.stderr


def test_streamed_claims_are_the_claim_frame_with_a_declared_schema(tmp_path, monkeypatch, cli):
    import pyarrow.parquet as pq

    from groundlab.frames import claim_schema, frame_of_table

    path = _rich_cases(tmp_path, 600)
    ev = evaluate_file(path, NOTES, "signals")
    monkeypatch.setattr(sys.modules["groundlab.evaluate"], "PARALLEL_MIN_BYTES", 1000)
    for workers in (1, 2):
        out = tmp_path / f"claims{workers}.parquet"
        count_file(path, NOTES, "signals", workers=workers, claims_out=out)
        table = pq.read_table(out)
        assert table.schema.equals(claim_schema(), check_metadata=False)
        frame = frame_of_table(table)
        assert frame.attrs["judge"] == ev.claims.attrs["judge"]
        pd.testing.assert_frame_equal(frame, ev.claims, check_dtype=False)
        csv = tmp_path / f"claims{workers}.csv"
        count_file(path, NOTES, "signals", workers=workers, claims_out=csv)
        # a file of the person's own is neither replaced without force nor taken for a frame
        mine = tmp_path / "mine.txt"
        mine.write_text("precious", encoding="utf-8")
        for target, force, message in ((mine, True, "should end in .csv or .parquet"), (csv, False, "exists")):
            with pytest.raises(GroundlabError, match=message):
                count_file(path, NOTES, "signals", workers=workers, claims_out=target, force=force)
        assert mine.read_text(encoding="utf-8") == "precious"
        code, _, err = cli("score", "--cases", path, "--passages", NOTES, "--claims-out", tmp_path / "f.csv",
                           "--cases-out", tmp_path / f"cases{workers}.csv", "--force")  # the frames' way
        assert code == 0, err
        assert csv.read_bytes() == (tmp_path / "f.csv").read_bytes()


def test_merge_gives_the_figures_of_one_run_and_refuses_what_does_not_add_up(cli, tmp_path):
    path = _rich_cases(tmp_path, 900)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    parts = []
    for k, (a, b) in enumerate(((0, 250), (250, 251), (251, 900))):
        part = tmp_path / f"part{k}.jsonl"
        part.write_text("".join(lines[a:b]), encoding="utf-8")
        counts = tmp_path / f"part{k}.counts.json"
        code, _, err = cli("score", "--cases", part, "--passages", NOTES, "--counts-out", counts, "--json")
        assert code == 0, err
        parts.append(counts)
    whole = cli.json("score", "--cases", path, "--passages", NOTES, "--breakdown")
    code, out, err = cli("merge", *parts, "--json", "--breakdown", "--out", tmp_path / "all.json")
    assert code == 0 and "merged 3 parts from 3 files: 900 cases" in err
    assert json.loads(out) == whole
    again = cli.json("merge", tmp_path / "all.json", "--breakdown")  # merged counts merge again
    assert again == whole and read_counts(tmp_path / "all.json").shards == 3
    code, out, _ = cli("merge", *parts)
    assert code == 0 and "3 parts merged" in out and "hallucination rate" in out
    code, _, err = cli("merge", parts[0], parts[2], parts[0])
    assert code == 2 and "part0.counts.json holds 250 case ids that an earlier part holds" in err
    other = tmp_path / "other.counts.json"
    cli("score", "--judge", "rules", "--cases", tmp_path / "part1.jsonl", "--passages", NOTES, "--counts-out", other)
    code, _, err = cli("merge", parts[0], other)
    assert code == 2 and "judged otherwise" in err and "judge signals against judge rules" in err
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(whole), encoding="utf-8")
    code, _, err = cli("merge", parts[0], plain)
    assert code == 2 and "cannot be added up" in err and "--counts-out" in err and err.count("\n") == 1
    code, _, err = cli("merge", parts[0], "--out", parts[0], "--force")
    assert code == 2 and "is also the input" in err


def test_the_table_of_score_is_the_same_either_way(cli, tmp_path, monkeypatch):
    import groundlab.judges

    monkeypatch.setitem(groundlab.judges._REGISTRY, "flaky", (__name__, "Flaky", "a judge for these tests"))
    path = _rich_cases(tmp_path, 300)
    for judge in ("signals", "flaky"):
        code, counted, _ = cli("score", "--judge", judge, "--cases", path, "--passages", NOTES)
        assert code == 0 and "hallucination rate" in counted
        code, framed, _ = cli("score", "--judge", judge, "--cases", path, "--passages", NOTES, "--cases-out",
                              tmp_path / f"{judge}.csv")
        assert code == 0 and framed == counted
    assert "the endpoint timed out" in counted and "From incidents:" in counted


def test_a_claims_parquet_has_the_declared_schema_and_the_judge_either_way(cli, tmp_path):
    import pyarrow.parquet as pq

    from groundlab.frames import claim_schema, judge_of_schema

    streamed, framed = tmp_path / "streamed.parquet", tmp_path / "framed.parquet"
    cli("score", "--cases", CASES, "--passages", NOTES, "--claims-out", streamed)
    cli("score", "--cases", CASES, "--passages", NOTES, "--claims-out", framed, "--cases-out", tmp_path / "c.csv")
    a, b = pq.read_table(streamed), pq.read_table(framed)
    assert a.schema.equals(claim_schema(), check_metadata=False) and b.schema.equals(a.schema, check_metadata=False)
    assert str(b.schema.field("error").type) == "string"  # no claim failed: still a string column
    assert judge_of_schema(a.schema) == judge_of_schema(b.schema) and judge_of_schema(a.schema)["name"] == "signals"
    assert a.equals(b)


def _row(data, measure, group=""):
    return next(r for r in data["counts"] if r["measure"] == measure and r["group"] == group)


def _drop(data, measure, group=None):
    data["counts"] = [r for r in data["counts"] if r["measure"] != measure or group is not None and r["group"] != group]


EDITS = {
    "a missing cell": (lambda d: _drop(d, "faithfulness"), "the counts lack faithfulness"),
    "a negative total": (lambda d: _row(d, "faithfulness").update(total=-10), "counts[1] (faithfulness).total is -10"),
    "a count that is true": (lambda d: _row(d, "cases").update(count=True), "(cases).count is true, not a whole"),
    "a negative count": (lambda d: _row(d, "faithfulness").update(count=-3), "(faithfulness).count is -3, outside 0"),
    "a count above its total": (lambda d: _row(d, "faithfulness").update(count=_row(d, "faithfulness")["total"] + 1),
                                "is more than its total"),
    "a huge count": (lambda d: _row(d, "claims").update(count=10 ** 300), "(claims).count is a number of 301 digits"),
    "a float count": (lambda d: _row(d, "claims").update(count=20.0), "(claims).count is 20.0, not a whole number"),
    "fingerprints short of the cases": (lambda d: d["case_ids"].update(cases=d["case_ids"]["cases"] + 1),
                                        "case_ids.sorted holds 12 fingerprints of 8 bytes, and case_ids.cases says 13"),
    "negative parts": (lambda d: d.update(shards=-4), "shards is -4, outside 1"),
    "an unknown measure": (lambda d: d["counts"].append({"measure": "speed", "group": "", "count": 1, "total": None}),
                           "(speed) is a measure no counts file holds"),
    "a total on a plain count": (lambda d: _row(d, "claims").update(total=30), "(claims).total is 30, and claims is a plain"),
    "a row counted twice": (lambda d: d["counts"].append(dict(_row(d, "claims"))), "counts claims '' a second time"),
    "cells that do not fit": (lambda d: _row(d, "faithfulness").update(count=_row(d, "faithfulness")["count"] - 1),
                              "add up to 19, not to the 20 judged"),
    "a missing field": (lambda d: d.pop("errors"), "lacks 'errors', which a counts file holds"),
    "a field it does not hold": (lambda d: d.update(note="edited"), "has 'note', which a counts file does not hold"),
    "an error of the wrong kind": (lambda d: d["errors"].append(["c01", "one", "x"]), "errors[0] claim is \"one\""),
    # a row taken out that no other row names: what every case adds is read back
    "no wrong outcomes": (lambda d: _drop(d, "outcomes", "wrong"), "the outcomes count 6 cases of 12"),
    "no flagged rate": (lambda d: _drop(d, "hallucination_rate"), "hallucination_rate is over 0 answered cases"),
    "no abstention": (lambda d: _drop(d, "abstention"), "abstention and false_abstention are over 9 cases, where 12"),
    "no false abstention": (lambda d: _drop(d, "false_abstention"), "are over 3 cases, where 12"),
    "no person's rate": (lambda d: _drop(d, "hallucination_rate_by_person"),
                         "hallucination_rate_by_person is over 0 cases, where 12 cases carry labels"),
    "no abstained outcome": (lambda d: _drop(d, "outcomes", "abstained"), "the outcomes count 10 cases of 12"),
    "abstained moved to wrong": (lambda d: (_row(d, "outcomes", "wrong").update(count=_row(d, "outcomes", "wrong")["count"] + 2), _drop(d, "outcomes", "abstained")), "the outcomes count 0 abstained cases"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_merge_refuses_a_hand_edited_counts_file_in_one_sentence(cli, tmp_path, edit):
    """A counts file changed by hand gives no figure: one sentence naming the file and the field."""
    good = tmp_path / "good.counts.json"
    assert cli("score", *("--cases", CASES, "--passages", NOTES), "--counts-out", good)[0] == 0
    data = json.loads(good.read_text(encoding="utf-8"))
    change, says = EDITS[edit]
    change(data)
    edited = tmp_path / "edited.counts.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = cli("merge", edited)
    assert code == 2 and out == "" and "Traceback" not in err and err.count("\n") == 1, err
    assert "edited.counts.json" in err and says in err, err
    assert cli("merge", good)[0] == 0  # the file as groundlab wrote it merges


def test_the_checks_of_a_counts_file_allow_what_judge_errors_leave_undecided():
    """A judge that fails on some claims leaves answers out of the flagged rate and without an
    outcome: the checks that read back what every case adds allow exactly that."""
    from groundlab import evaluate, load_cases
    from groundlab.core.records import Verdict
    from groundlab.judges.rules import RulesJudge
    from groundlab.measure.counts import Counts, counts_of

    class Flaky:
        name, version = "flaky", "1"

        def __init__(self):
            self.inner, self.seen = RulesJudge(), 0

        def judge_batch(self, pairs):
            out = []
            for verdict in self.inner.judge_batch(pairs):
                self.seen += 1
                out.append(Verdict(None, "failed", None, error="timed out") if self.seen % 3 == 0 else verdict)
            return out

    counts = counts_of(evaluate(load_cases(CASES, NOTES), Flaky()))
    assert counts.count("judge_errors") > 0 and counts.get("hallucination_rate")[1] < counts.count("answered_cases")
    again = Counts.from_json(json.loads(json.dumps(counts.to_json())), "flaky.counts.json")
    assert again.get("hallucination_rate") == counts.get("hallucination_rate")


def test_identities_that_differ_by_a_null_key_are_refused_naming_the_key(cli, tmp_path):
    """Counts whose judge identities differ only by a key one holds as null: the sentence names the
    key (and within nested settings, its dotted path), never "with other )"."""
    lines = CASES.read_text(encoding="utf-8").splitlines()
    parts = []
    for k, chunk in enumerate((lines[:6], lines[6:])):
        cases, counts = tmp_path / f"p{k}.jsonl", tmp_path / f"p{k}.counts.json"
        cases.write_text("\n".join(chunk) + "\n", encoding="utf-8")
        code, _, err = cli("score", "--cases", cases, "--passages", NOTES, "--counts-out", counts)
        assert code == 0, err
        parts.append(counts)
    for change, named in ((lambda i: i.update(model=None), "model (null in one, not given in the other)"),
                          (lambda i: i["splitting"].update(extra=None), "splitting.extra (null in one, not given in "
                                                                          "the other)"),
                          (lambda i: i["settings"].update(threshold=0.6), "settings.threshold")):
        doc = json.loads(parts[1].read_text(encoding="utf-8"))
        change(doc["judge_identity"])
        other = tmp_path / "other.counts.json"
        other.write_text(json.dumps(doc), encoding="utf-8")
        code, _, err = cli("merge", parts[0], other)
        assert code == 2 and err.count("\n") == 1
        assert f"(the same judge (signals) with other {named}); counts of different judges do not add up" in err, err
