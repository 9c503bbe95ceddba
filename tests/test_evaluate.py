"""Evaluation frames, inline passages, unlabeled logs, citations and the parallel path."""

from __future__ import annotations

import json
import subprocess
import sys

from groundlab import (
    Case,
    Evidence,
    Passage,
    agreement,
    citation_precision,
    citation_recall,
    evaluate,
    get_judge,
    hallucination_rate,
    judge_names,
    load_cases,
    load_passages,
)
from groundlab.summary import score_summary

from conftest import CASES, NOTES, ROOT

EVALUATE = sys.modules["groundlab.evaluate"]


def test_frames_have_the_documented_columns(sample_cases):
    ev = evaluate(sample_cases)
    assert list(ev.claims.columns) == ["case_id", "claim", "text", "cites", "verdict", "reason", "score",
                                       "error", "label", "citation_ok", "citations", "relevant_citations"]
    for column in ("case_id", "answerable", "abstained", "claims", "outcome", "hallucinated",
                   "hallucinated_by_person"):
        assert column in ev.cases.columns
    assert len(ev.claims) == 20 and len(ev.cases) == 12
    assert ev.claims["reason"].str.len().min() > 10  # every verdict says why


def test_inline_passages_score_like_ids(tmp_path):
    notes = load_passages(NOTES)
    inline = tmp_path / "inline.jsonl"
    with open(inline, "w", encoding="utf-8") as fh:
        for line in CASES.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            obj["retrieved"] = [{"id": pid, "text": notes[pid].text} for pid in obj["retrieved"]]
            fh.write(json.dumps(obj) + "\n")
    by_id = score_summary(evaluate(load_cases(CASES, NOTES)))
    by_text = score_summary(evaluate(load_cases(inline)))
    assert by_text == by_id


def test_unlabeled_log_scores_and_agreement_skips(tmp_path, cli):
    log = tmp_path / "log.jsonl"
    with open(log, "w", encoding="utf-8") as fh:
        for line in CASES.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            obj.pop("labels"), obj.pop("answerable")
            fh.write(json.dumps(obj) + "\n")
    s = cli.json("score", "--cases", log, "--passages", NOTES)
    assert s["hallucination_rate"]["hallucinated"] == 6 and s["hallucination_rate"]["low"] > 0
    assert s["hallucination_rate_by_person"] is None
    assert s["abstention"] == {"abstained": 0, "unanswerable": 0}
    code, out, _ = cli("score", "--cases", log, "--passages", NOTES)
    assert "no labeled answers" in out and "no unanswerable" in out
    a = cli.json("agree", "--cases", log, "--passages", NOTES)
    assert a["unlabeled_cases"] == 12 and a["agreement"] == {"agree": 0, "claims": 0} and a["kappa"] is None
    code, out, _ = cli("agree", "--cases", log, "--passages", NOTES)
    assert code == 0 and "no labeled cases were found (12 unlabeled)" in out


def test_partly_labeled_counts_unlabeled_cases(tmp_path, sample_cases):
    cases = [c if c.id != "c01" else Case(c.id, c.question, c.retrieved, c.answer, c.answerable)
             for c in sample_cases]
    ev = evaluate(cases)
    a = agreement(ev.claims, ev.cases)
    assert a.unlabeled_cases == 1 and a.agreement.total == 17


def test_citation_of_a_passage_not_retrieved_backs_nothing():
    d07 = Passage("D07", "The supplier delivered 90 of 100 pieces but invoiced all 100.")
    case = Case("x", "Why blocked?", (d07,), "The supplier delivered 90 of 100 pieces [D99].")
    ev = evaluate([case])
    row = ev.claims.iloc[0]
    assert row.verdict == "supported" and not row.citation_ok and row.relevant_citations == 0
    assert citation_recall(ev.claims).count == 0 and citation_precision(ev.claims).total == 1


def test_alce_precision_with_two_citations():
    a = Passage("A", "The credit analyst reviews the open items.")
    b = Passage("B", "Planners review the exceptions every morning.")
    c = Passage("C", "The weather was sunny.")
    answer = ("The credit analyst reviews the open items [A, B]. "
              "The credit analyst reviews the open items and planners review exceptions [A, B, C].")
    ev = evaluate([Case("x", "Who reviews?", (a, b, c), answer)])
    first, second = ev.claims.itertuples()
    assert first.citation_ok and first.citations == 2 and first.relevant_citations == 1  # B is padding
    assert second.citation_ok and second.citations == 3 and second.relevant_citations == 2  # C is padding


def test_parallel_gives_the_same_frames(monkeypatch, sample_cases):
    many = [Case(f"{c.id}-{k}", c.question, c.retrieved, c.answer, c.answerable, c.labels)
            for k in range(40) for c in sample_cases]
    monkeypatch.setattr(EVALUATE, "PARALLEL_MIN", 100)
    monkeypatch.setattr(EVALUATE, "CHUNK", 50)
    one = evaluate(many, workers=1)
    two = evaluate(many, workers=2)
    assert one.claims.equals(two.claims) and one.cases.equals(two.cases)
    assert hallucination_rate(two.cases).count == 6 * 40


def test_judge_registry():
    assert judge_names()[:2] == ["lexical", "rules"]
    assert get_judge().name == "rules"
    verdicts = get_judge("lexical").judge_batch([
        ("Incomplete orders can be billed.", Evidence("Q?", (Passage("D05", "Incomplete orders cannot be billed."),))),
        ("It costs 12 euros.", Evidence("Q?", (Passage("P", "It costs 10 euros."),))),
        ("It costs 12 euros.", Evidence("Q?", (Passage("P", "It costs a lot."),))),
    ])
    assert [v.label for v in verdicts] == ["supported", "contradicted", "unsupported"]
    assert "12" in verdicts[1].reason and "10" in verdicts[1].reason


def test_init_works_from_any_folder(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "groundlab", "init", "work"], cwd=tmp_path,
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "work" / "data" / "notes.jsonl").read_bytes() == NOTES.read_bytes()
    proc = subprocess.run([sys.executable, "-m", "groundlab", "score", "--json"], cwd=tmp_path / "work",
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert proc.returncode == 0 and json.loads(proc.stdout)["claims"] == 20
    assert proc.stderr == ""  # it found data/ and said nothing about the fallback


def test_packaged_sample_is_the_sample():
    from groundlab import sample_path

    for name in ("notes.jsonl", "grounded_cases.jsonl"):
        assert sample_path(name).read_bytes() == (ROOT / "data" / name).read_bytes()


def test_check_reports_counts_and_stray_citations(cli, tmp_path):
    code, out, _ = cli("check", "--cases", CASES, "--passages", NOTES)
    assert code == 0 and "12 cases, 20 claims, 2 abstaining; 12 labeled" in out
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"id": "x", "question": "Q?", "retrieved": ["D07"],
                               "answer": "Pieces were missing [D06]."}) + "\n", encoding="utf-8")
    code, out, _ = cli("check", "--cases", odd, "--passages", NOTES, "--show-claims")
    assert code == 0 and "claim 1 cites D06, which was not retrieved" in out
    assert "x: 1 claim(s)\n  1. Pieces were missing. [D06]" in out


def test_report_holds_the_steering_figures(cli, sample_args, tmp_path):
    report = tmp_path / "report.md"
    assert cli("score", *sample_args, "--judge", "lexical", "--penalty", "3", "--report", report)[0] == 0
    text = report.read_text(encoding="utf-8")
    assert "50% (5 of 10 answered cases; 95% range 24%\u201376%)" in text
    assert "2 contradicted and 4 unsupported" in text
    assert "caught 5 of 6" in text and "1 false alarms on 14" in text
    assert "Risk-weighted score -10 with penalty 3" in text
