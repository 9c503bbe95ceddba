"""Evaluation frames, inline passages, unlabeled logs, citations and the parallel path."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from groundlab import (
    Case,
    Evidence,
    Passage,
    agreement,
    citation_precision,
    citation_recall,
    GroundlabError,
    InputError,
    evaluate,
    get_judge,
    hallucination_rate,
    judge_names,
    load_cases,
    load_passages,
)
from groundlab.evaluate import evaluate_file
from groundlab.summary import score_summary

from conftest import CASES, NOTES, ROOT

EVALUATE = sys.modules["groundlab.evaluate"]


def test_frames_have_the_documented_columns(sample_cases):
    ev = evaluate(sample_cases)
    assert list(ev.claims.columns) == ["case_id", "claim", "text", "cites", "verdict", "reason", "score",
                                       "error", "label", "citation_ok", "citations", "relevant_citations",
                                       "kind", "kinds", "evidence", "evidence_matched", "evidence_clashed"]
    for column in ("case_id", "process", "answerable", "abstained", "claims", "outcome", "hallucinated",
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
    s = cli.json("score", "--cases", log, "--passages", NOTES, "--judge", "rules")
    assert s["flagged_by_judge"]["flagged"] == 6 and s["flagged_by_judge"]["low"] > 0
    assert s["hallucination_rate"]["rate"] is None and s["hallucination_rate_by_person"] is None
    assert s["abstention"] == {"abstained": 0, "unanswerable": 0, "rate": None, "low": None, "high": None}
    code, out, _ = cli("score", "--cases", log, "--passages", NOTES)
    assert "not measured yet" in out and "no unanswerable" not in out and "no answerable" not in out
    # answered, not unanswerable: the abstention rows say that no case says, and what the answers did
    assert out.count('no case says whether it could be answered (10 answered, 2 abstained): set "answerable"') == 2
    a = cli.json("agree", "--cases", log, "--passages", NOTES)
    assert a["unlabeled_cases"] == 12 and a["agreement"]["claims"] == 0 and a["kappa"] is None
    code, out, _ = cli("agree", "--cases", log, "--passages", NOTES)
    assert code == 0 and "no labeled cases were found (12 unlabeled)" in out


def test_cases_without_passages_are_warned_about(tmp_path, cli):
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    for row in rows[:7]:
        row["retrieved"] = []
    rows[5]["answer"] = "I can't find that in the retrieved notes."  # abstains: nothing to warn about
    rows[5].pop("labels")
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = cli("score", "--cases", cases, "--passages", NOTES)
    assert code == 0
    assert ("groundlab: warning: 5 answered cases have no retrieved passages (c01, c02, c03, c05, c07), so their "
            "claims are all unsupported; give each case the passages") in err
    assert evaluate(load_cases(cases, NOTES)).cases["passages"].tolist() == [0] * 7 + [1, 2, 1, 2, 2]
    code, out, err = cli("check", "--cases", cases, "--passages", NOTES)
    assert code == 0 and out.count("has no retrieved passages, so its claims will all be unsupported") == 5
    code, out, err = cli("score", "--cases", CASES, "--passages", NOTES)
    assert "warning" not in err


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
    ev = evaluate([Case("x", "Who reviews?", (a, b, c), answer)], "rules")  # B backs what A lacks
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
    assert hallucination_rate(two.cases).count == 6 * 40  # the default judge, signals, flags 6 of 10


def test_judge_registry():
    assert judge_names()[:3] == ["lexical", "rules", "signals"]
    assert get_judge().name == "signals"
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
    assert "50% by people's labels on every answer (95% range 24%\u201376%)" in text
    assert "flagged by the judge: 50% (5 of 10 answers; 95% range 24%\u201376%)" in text
    assert "2 contradicted and 4 unsupported" in text
    assert "caught 83% (5 of 6 hallucinated claims; 95% range 44%\u201397%)" in text
    assert "false alarms on 7% (1 of 14 supported claims; 95% range 1%\u201331%)" in text
    assert ("risk-weighted score at penalty 3: \u221210 over 12 answers (\u221283 per 100 answers) by the judge's "
            "verdicts; by people's labels \u221210 (\u221283 per 100 answers)") in text
    # flagged answers withheld, scored by the person: the false alarm (c05) costs a correct answer and
    # the miss (c08) still goes out
    assert ("would be +8 per 100 answers instead of \u221283 per 100 answers, by the person's labels on 12 answers: "
            "the judge's wrong flags would cost 1 correct answer, and 1 wrong answer it missed would still go out.") \
        in text


def test_report_without_labels_says_the_control_is_the_judges_view(cli, tmp_path):
    objs = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    cases = _write(tmp_path / "log.jsonl", [{k: v for k, v in o.items() if k != "labels"} for o in objs])
    report = tmp_path / "report.md"
    assert cli("score", "--cases", cases, "--passages", NOTES, "--judge", "lexical", "--penalty", "3",
               "--report", report)[0] == 0
    text = report.read_text(encoding="utf-8")
    assert ("would be +42 per 100 answers instead of \u221283 per 100 answers as the judge sees it; without a "
            "person's labels") in text


def _write(path, objs):
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


@pytest.fixture
def big_file(monkeypatch, tmp_path):
    """The sample cases 40 times over (unique ids), read in several processes."""
    monkeypatch.setattr(EVALUATE, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(EVALUATE, "CHUNK", 25)
    objs = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    many = [dict(o, id=f"{o['id']}-{k}") for k in range(40) for o in objs]
    return many, _write(tmp_path / "many.jsonl", many)


def test_file_in_workers_gives_the_same_frames(big_file):
    many, path = big_file
    one = evaluate(load_cases(path, NOTES))
    for workers in (2, 3):
        waited = []
        parts = evaluate_file(path, NOTES, workers=workers, while_waiting=lambda: waited.append(1))
        assert parts.claims.equals(one.claims) and parts.cases.equals(one.cases)
        assert waited == [1]


@pytest.mark.parametrize("damage,expected", [
    # a label error early and a reading error late: reading errors come first, as in one process
    (lambda m: (m[5].update(labels=["supported"]), m.__setitem__(400, "not json")), "line 401 is not valid JSON"),
    # the same id in two parts of the file: named at its second line
    (lambda m: m[450].update(id="c01-0"), "line 451 (case c01-0): case id 'c01-0' is already used on line 1"),
    # two label errors: the first in the file
    (lambda m: (m[300].update(labels=[]), m[20].update(labels=[])), "line 21 (case c09-1)"),
])
def test_file_in_workers_reports_the_first_error(big_file, tmp_path, damage, expected):
    many, _ = big_file
    damage(many)
    path = tmp_path / "damaged.jsonl"
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in many), encoding="utf-8")
    with pytest.raises(InputError) as one:
        evaluate(load_cases(path, NOTES))
    with pytest.raises(GroundlabError) as parts:
        evaluate_file(path, NOTES, workers=3)
    assert str(parts.value) == str(one.value)
    assert expected in str(parts.value)


@pytest.mark.parametrize("text", ["", "a\n", "a\nbb\nccc\n", "a\nbb\nccc", "x" * 50 + "\n" + "y\n" * 7])
@pytest.mark.parametrize("parts", [1, 2, 3, 8])
def test_split_file_covers_every_line_once(tmp_path, text, parts):
    from groundlab.io import split_file

    path = tmp_path / "f.txt"
    path.write_bytes(text.encode())
    spans = split_file(path, parts)
    assert len(spans) <= parts
    seen = b""
    for start, stop, first in spans:
        assert first == text[:start].count("\n") + 1
        seen += text.encode()[start:stop]
    assert seen == text.encode()
