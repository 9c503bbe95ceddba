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


def test_a_rule_that_parts_values_at_a_bound_is_restated_from_its_other_side():
    rule = "Licences costing more than 500 EUR per year need the approval of the IT cost centre owner."
    # the values the claim names lie on the side the rule leaves out: what it says of them is the rule's
    assert restated_limit("Since 240 EUR is below the 500 EUR limit, no approval is needed.", rule)
    assert restated_limit("Licences under 500 EUR need no approval of the cost centre owner.", rule)
    assert restated_limit("Items beyond 5 cannot be returned.", "Fewer than 5 items can be returned.")
    # ... and not where they reach into the rule's own side, or the number differs
    assert not restated_limit("Licences of at least 500 EUR need no approval.", rule)
    assert not restated_limit("Licences over 500 EUR need no approval.", rule)
    assert not restated_limit("Licences below 400 EUR need no approval.", rule)
    assert not restated_limit("Items of at most 5 cannot be returned.", "Fewer than 5 items can be returned.")
    passage = Passage("IT-SW-02", "Every request needs the line manager's approval; licences costing more than "
                                  "500 EUR per year also need the approval of the IT cost centre owner.")
    judge = get_judge("signals")
    evidence = Evidence("It costs 240 EUR per year. Who approves it?", (passage,))
    verdict = judge.judge("Since 240 EUR per year is below the 500 EUR limit, no approval from the IT cost centre "
                          "owner is needed.", evidence)
    assert verdict.label == "supported", verdict.reason
    verdict = judge.judge("Licences costing more than 500 EUR per year need no approval of the IT cost centre "
                          "owner.", evidence)
    assert verdict.label == "contradicted", verdict.reason


def test_a_german_claim_reads_a_german_passage_that_tells_no_language_beside_english_ones():
    verdict = get_judge("signals").judge("Bis zu 5 Tage können übertragen werden.",
                                         Evidence("Wie viel Urlaub kann ich übertragen?", PASSAGES))
    assert verdict.label == "supported" and "content words in the evidence" in verdict.reason
