"""A run that only counts asks the signals judge for labels alone: the same label and score as
the verdict with its reason, for every claim of the labeled sets, and the same figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundlab import get_judge, load_cases
from groundlab.evaluate import count_file, split_cases
from groundlab.judges.signals import UNEXPLAINED
from groundlab.measure.judging import claim_pairs, judge_pairs
from groundlab.policy import apply_policy

from conftest import CASES, NOTES

DATA = Path(__file__).resolve().parents[1] / "data"
SETS = [(CASES, NOTES), (DATA / "heldout" / "cases.jsonl", DATA / "heldout" / "passages.jsonl"),
        (DATA / "enterprise" / "cases.jsonl", DATA / "enterprise" / "passages.jsonl")]


def _pairs(cases_path, passages_path):
    cases = load_cases(cases_path, passages_path)
    return claim_pairs(list(zip(cases, split_cases(cases))))


@pytest.mark.parametrize("cases_path, passages_path", SETS, ids=["sample", "heldout", "enterprise"])
def test_labels_alone_are_the_labels_and_scores_of_the_explained_verdicts(cases_path, passages_path):
    pairs = _pairs(cases_path, passages_path)
    assert len(pairs) >= 20
    explained = judge_pairs(get_judge("signals"), pairs)
    judge = get_judge("signals")
    terse = judge_pairs(judge, pairs, explain=False)
    assert [(v.label, v.score, v.error) for v in terse] == [(v.label, v.score, v.error) for v in explained]
    assert len({v.label for v in explained}) >= 2
    # a claim in another language than its passages keeps its reason (the report counts them)
    assert all(t.reason in (UNEXPLAINED, e.reason) for t, e in zip(terse, explained))
    assert sum(t.reason == UNEXPLAINED for t in terse) > len(terse) * 0.8
    assert all(v.evidence is None and v.matched == () for v in terse)
    # the judge keeps the two apart: explained verdicts asked after label-only ones carry reasons
    again = judge_pairs(judge, pairs)
    assert [v.reason for v in again] == [v.reason for v in explained]


def test_a_judge_behind_a_data_policy_is_asked_for_reasons_as_before(tmp_path):
    gate = apply_policy(get_judge("signals"), mask=True, names=["Jana Novak"])
    assert gate.explains_on_request is False  # its judge_batch takes no explain
    pairs = _pairs(CASES, NOTES)
    assert [v.label for v in judge_pairs(gate, pairs, explain=False)] == \
        [v.label for v in judge_pairs(get_judge("signals"), pairs)]


def test_counting_a_file_gives_the_figures_of_explained_verdicts(monkeypatch):
    import groundlab.measure.judging as judging

    counted = count_file(DATA / "heldout" / "cases.jsonl", DATA / "heldout" / "passages.jsonl", "signals").summary()
    real = judging.judge_pairs
    monkeypatch.setattr(judging, "judge_pairs", lambda judge, pairs, explain=True: real(judge, pairs))
    assert count_file(DATA / "heldout" / "cases.jsonl", DATA / "heldout" / "passages.jsonl",
                      "signals").summary() == counted
