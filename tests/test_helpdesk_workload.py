"""bench/make_helpdesk.py writes cases groundlab reads, seeded, with a new question for most cases,
about three claims an answer and a label for every claim."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import NOTES

from groundlab import load_cases
from groundlab.measure.evaluate import split_cases

ROOT = Path(__file__).resolve().parents[1]


def test_the_help_desk_workload_is_cases_groundlab_reads_with_a_label_for_every_claim(tmp_path):
    out = tmp_path / "helpdesk.jsonl"
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_helpdesk.py"), "400", str(out)], check=True,
                   capture_output=True)
    again = tmp_path / "again.jsonl"
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_helpdesk.py"), "400", str(again)], check=True,
                   capture_output=True)
    assert out.read_bytes() == again.read_bytes()  # seeded
    cases = load_cases(out, NOTES)
    splits = split_cases(cases)  # raises if a case's labels do not fit its claims
    assert len({c.question for c in cases}) > 300
    claims = [len(s.claims) for s in splits if s.claims]
    assert 2.6 <= sum(claims) / len(claims) <= 3.3
    assert all(c.labels is not None for c in cases)
