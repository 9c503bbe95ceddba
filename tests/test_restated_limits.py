"""A limit restated the other way round is the same statement; one negated the wrong way is not."""

from __future__ import annotations

import pytest

from groundlab.core.records import Evidence, Passage
from groundlab.judges import get_judge
from groundlab.judges.signals.conflicts import restated_limit

PASSAGES = (Passage("HR-14", "Up to 5 days of unused annual leave can be carried over to the following year."),
            Passage("IT-2", "Each employee may book at most 2 desks a week."),
            Passage("PHB-5", "Bis zu 5 Tage können übertragen werden."))


@pytest.mark.parametrize("claim, label", [
    ("Unused days beyond 5 cannot be carried over.", "supported"),
    ("You cannot carry over more than 5 days.", "supported"),
    ("You cannot book more than 2 desks a week.", "supported"),
    ("Mehr als 5 Tage können nicht übertragen werden.", "supported"),
    ("Up to 5 days cannot be carried over.", "contradicted"),
    ("More than 5 days can be carried over.", "contradicted"),
    ("You can book more than 2 desks a week.", "contradicted"),
    ("Unused days beyond 3 cannot be carried over.", "contradicted"),
])
def test_a_limit_restated_the_other_way_round(claim, label):
    verdict = get_judge("signals").judge(claim, Evidence("Can I carry over leave?", PASSAGES))
    assert verdict.label == label, verdict.reason
    if label == "supported" and ("beyond" in claim or "more than" in claim or "Mehr als" in claim):
        assert "restates the limit the other way round" in verdict.reason


def test_restated_limit_needs_the_same_number_and_one_side_negated():
    assert restated_limit("Days beyond 5 cannot be carried over.", "Up to 5 days can be carried over.")
    assert restated_limit("Fewer than 3 quotes are not accepted.", "At least 3 quotes are needed.")
    assert not restated_limit("Days beyond 6 cannot be carried over.", "Up to 5 days can be carried over.")
    assert not restated_limit("Days beyond 5 can be carried over.", "Up to 5 days can be carried over.")
    assert not restated_limit("Up to 5 days cannot be carried over.", "Up to 5 days can be carried over.")


def test_a_german_claim_reads_a_german_passage_that_tells_no_language_beside_english_ones():
    verdict = get_judge("signals").judge("Bis zu 5 Tage können übertragen werden.",
                                         Evidence("Wie viel Urlaub kann ich übertragen?", PASSAGES))
    assert verdict.label == "supported" and "content words in the evidence" in verdict.reason
