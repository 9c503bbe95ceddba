"""The same figures on every run: `score`, `agree` and the labeling sheets on answers in two languages give the same bytes
whatever Python's hash seed, the number of worker processes, and the order the passages come in."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from groundlab import evaluate, load_cases
from groundlab.core.records import Case

BILINGUAL = Path(__file__).parent / "data" / "bilingual_cases.jsonl"
SEEDS = ("0", "2", "5")
DATED = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC")


def _run(args, seed, cwd):
    env = dict(os.environ, PYTHONHASHSEED=seed)
    done = subprocess.run([sys.executable, "-m", "groundlab", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def test_score_agree_and_the_sheets_are_the_same_bytes_under_every_hash_seed(tmp_path):
    outputs = {}
    for seed in SEEDS:
        folder = tmp_path / seed
        folder.mkdir()
        score = _run(["score", "--cases", str(BILINGUAL), "--json", "--claims-out", "claims.csv",
                      "--cases-out", "cases.csv"], seed, folder)
        agree = _run(["agree", "--cases", str(BILINGUAL), "--json"], seed, folder)
        _run(["score", "--cases", str(BILINGUAL), "--report", "report.md"], seed, folder)
        # the labeling sheets, blind and showing the judge
        _run(["label", "export", "--cases", str(BILINGUAL), "--out", "sheet.csv"], seed, folder)
        _run(["label", "export", "--cases", str(BILINGUAL), "--out", "judged.csv", "--show-judge"], seed, folder)
        # the steering report, but for the line that says when it was made
        report = "\n".join(line for line in (folder / "report.md").read_text(encoding="utf-8").splitlines()
                            if not DATED.search(line))
        outputs[seed] = (score, agree, (folder / "claims.csv").read_bytes(), (folder / "cases.csv").read_bytes(),
                         report, (folder / "sheet.csv").read_bytes(), (folder / "judged.csv").read_bytes())
    first = outputs[SEEDS[0]]
    for seed in SEEDS[1:]:
        assert outputs[seed] == first, f"PYTHONHASHSEED={seed} gives other output than {SEEDS[0]}"
    # and the run judged what matters here: German claims, computed values, a list closed by a citation
    claims = first[2].decode("utf-8")
    assert "Übertragener Resturlaub verfällt am 31. März des Folgejahres." in claims
    assert "computed: 150 EUR = 500 km × 0.30 EUR" in claims
    assert json.loads(first[1])["agreement"]["claims"] == 15


def test_one_worker_or_two_give_the_same_frames(monkeypatch, tmp_path):
    from groundlab.cli import main

    # a file this small is judged in one process unless the size it takes for parts is lowered
    monkeypatch.setattr(sys.modules["groundlab.measure.evaluate"], "PARALLEL_MIN_BYTES", 100)
    big = tmp_path / "cases.jsonl"
    lines = BILINGUAL.read_text(encoding="utf-8").splitlines()
    with big.open("w", encoding="utf-8") as fh:
        for k in range(20):
            for line in lines:
                case = json.loads(line)
                case["id"] = f"{case['id']}-{k}"
                fh.write(json.dumps(case, ensure_ascii=False) + "\n")
    outs = []
    for workers in ("1", "2"):
        claims = tmp_path / f"claims-{workers}.csv"
        assert main(["score", "--cases", str(big), "--workers", workers, "--claims-out", str(claims)]) in (0, 1)
        outs.append(claims.read_bytes())
    assert outs[0] == outs[1]


def test_verdicts_do_not_hang_on_the_order_of_the_passages():
    cases = load_cases(str(BILINGUAL))
    rng = random.Random(7)
    shuffled = []
    for case in cases:
        passages = list(case.retrieved)
        rng.shuffle(passages)
        shuffled.append(Case(case.id, case.question, tuple(reversed(passages)), case.answer, case.answerable,
                             case.labels, case.source, process=case.process))
    before = evaluate(cases).claims[["case_id", "claim", "verdict"]]
    after = evaluate(shuffled).claims[["case_id", "claim", "verdict"]]
    assert before.equals(after)


@pytest.mark.parametrize("seed", ["1", "4"])
def test_the_languages_of_two_passages_tie_the_same_way_under_every_seed(seed, tmp_path):
    # one English and one German passage: the claim that tells no language is read alike
    answer = {"id": "t1", "question": "Hotel?", "answer": "Hotelkosten bis 120 EUR pro Nacht werden erstattet.",
              "retrieved": [{"id": "E", "text": "Hotel costs are reimbursed up to 120 EUR per night with a receipt."},
                            {"id": "G", "text": "Hotelkosten werden bis 120 EUR pro Nacht erstattet, mit Beleg."}]}
    path = tmp_path / "tie.jsonl"
    path.write_text(json.dumps(answer, ensure_ascii=False) + "\n", encoding="utf-8")
    base = _run(["score", "--cases", str(path), "--json"], "0", tmp_path)
    assert _run(["score", "--cases", str(path), "--json"], seed, tmp_path) == base


def test_a_kept_verdict_is_no_other_questions():
    # The judge keeps a verdict for the claims of later cases; what it read of the question must be
    # in what it keeps it by. A month the claim names is computed from the question's month even where
    # a passage names it too ("reviewed every April"): asked about March or January, each case gets
    # its own verdict, whichever came first.
    from groundlab.core.records import Evidence, Passage
    from groundlab.judges import get_judge

    passages = (Passage("HR-1", "Overtime is paid with the following month's salary. "
                                "Salaries are reviewed every April."),)
    claim = "Your overtime bonus is paid with your April salary."
    questions = ["I worked overtime in March. When is it paid?", "I worked overtime in January. When is it paid?"]
    alone = {q: get_judge("signals").judge(claim, Evidence(q, passages)) for q in questions}
    assert "April = the month after March" in alone[questions[0]].reason
    for order in (questions, questions[::-1]):
        verdicts = get_judge("signals").judge_batch([(claim, Evidence(q, passages)) for q in order])
        assert dict(zip(order, verdicts)) == alone
