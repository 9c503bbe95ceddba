"""The user's case against the passages' rules, on answers of the kind HR and travel assistants write:
the user's period applied to a rule's bound, a bound given per city in an elliptical clause, a
period the question gives restated in another unit as the rule, a rate per month counted by the
year, and the words that read as bounds but are not ("carry over 5 days")."""

from __future__ import annotations

import pytest

from groundlab.core.bounds import word_keys
from groundlab.core.numbers import mentions
from groundlab.core.quantities import quantities
from groundlab.core.records import Evidence, Passage
from groundlab.judges import get_judge
from groundlab.judges.signals.across import place_forms
from groundlab.judges.signals.conflicts import _terms, comparisons
from groundlab.judges.signals.scope import only_for

CARRY = Passage("HR-50", "Annual leave is 30 working days for a five-day week. Up to 5 unused days may be carried "
                         "over to the next year. Carried-over days expire on 31 March.")
HOTEL_DE = Passage("TR-21", "Hotelkosten werden bis 120 EUR pro Nacht erstattet, in München und Frankfurt bis "
                            "150 EUR. Reisekostenabrechnungen sind innerhalb von 3 Monaten einzureichen.")
HOTEL = Passage("TR-22", "Hotel costs are reimbursed up to 120 EUR per night, in Munich and Frankfurt up to 150 EUR.")
ABROAD = Passage("HR-52", "Employees may work remotely on up to 2 days per week after the probation period of "
                          "6 months. Remote work abroad is limited to 20 working days per calendar year and "
                          "requires HR approval.")
COMMUTE = Passage("HR-53", "The company pays a commuting allowance of 50 EUR per month for public transport "
                           "tickets. The allowance is paid with the salary and is taxable.")
SICK_PAY = Passage("HR-51", "Bei Krankheit ist der Vorgesetzte am ersten Tag vor 9:00 Uhr zu informieren. Die "
                            "Entgeltfortzahlung erfolgt für bis zu 6 Wochen.")


@pytest.mark.parametrize("question, claim, label", [
    # the user's period, which only the question writes, applied to the rule past its bound
    ("Can I carry over 8 days?", "Yes, you can carry over all 8 days.", "contradicted"),
    ("Can I carry over 8 days?", "Yes, 8 days can be carried over.", "contradicted"),
    # on the rule's side of it, or the rule's negation said past it
    ("Can I carry over 4 days?", "Yes, you can carry over your 4 days.", "supported"),
    ("Can I carry over 8 days?", "No, you cannot carry over 8 days.", "supported"),
    ("Can I carry over 4 days?", "No, you cannot carry over 4 days.", "contradicted"),
    # a claim that writes the rule's number beside the user's states the rule
    ("Can I carry over 8 days?", "No, only 5 of your 8 days can be carried over.", "supported"),
    # "carry over" is a verb, not "over 5 days"
    ("Can I carry over 8 days?", "You can carry over 5 days.", "supported"),
    ("Can I carry over 8 days?", "You can carry over more than 5 days.", "contradicted"),
])
def test_the_users_period_against_the_rules_bound(question, claim, label):
    verdict = get_judge("signals").judge(claim, Evidence(question, [CARRY]))
    assert verdict.label == label, verdict.reason
    if label == "contradicted" and "8" in claim:
        assert 'example 8 days against "Up to 5 unused days"' in verdict.reason, verdict.reason


def test_a_bound_the_claim_states_past_the_users_period_in_another_unit():
    # asked about 6 weeks, the claim makes their 30 working days the rule; the passage's is 20
    verdict = get_judge("signals").judge("Yes, up to 30 working days abroad per year are allowed.",
                                         Evidence("Can I work abroad for 6 weeks?", [ABROAD]))
    assert verdict.label == "contradicted", verdict.reason
    assert "30 working days is the question's, not the passages' bound, which is 20 working days" in verdict.reason
    right = get_judge("signals").judge("Remote work abroad is limited to 20 working days per year.",
                                       Evidence("Can I work abroad for 6 weeks?", [ABROAD]))
    assert right.label == "supported", right.reason


@pytest.mark.parametrize("passage, question, claim, label", [
    # the city's bound, whose clause leaves "per night" to the sentence's first amount
    (HOTEL, "How much may a hotel cost in Munich?", "In Munich, hotel costs are reimbursed up to 150 EUR per night.",
     "supported"),
    (HOTEL, "How much may a hotel cost?", "In Frankfurt, up to 150 EUR per night is reimbursed.", "supported"),
    (HOTEL_DE, "Wie teuer darf ein Hotel in München sein?",
     "In München werden Hotelkosten bis 150 EUR pro Nacht erstattet.", "supported"),
    # in another language: the passage's "München" is the claim's "Munich"
    (HOTEL_DE, "How much may a hotel cost in Munich?",
     "In Munich, hotel costs are reimbursed up to 150 EUR per night.", "supported"),
    # a city the clause does not name, or none, gets the city's bound wrong or leaves out where it holds
    (HOTEL_DE, "How much may a hotel cost in Hamburg?",
     "In Hamburg, hotel costs are reimbursed up to 150 EUR per night.", "unsupported"),
    (HOTEL, "How much may a hotel cost?", "Hotel costs are reimbursed up to 150 EUR per night.", "unsupported"),
    (HOTEL, "How much may a hotel cost in Munich?", "In Munich, hotel costs are reimbursed up to 180 EUR per night.",
     "contradicted"),
])
def test_a_bound_given_per_city_in_a_clause_of_its_own(passage, question, claim, label):
    verdict = get_judge("signals").judge(claim, Evidence(question, [passage]))
    assert verdict.label == label, verdict.reason
    if label == "unsupported":
        assert "only for" in verdict.reason, verdict.reason


def test_only_for_reads_a_sentence_in_another_language_and_names_places_in_either():
    sentence = HOTEL_DE.text.split(". ")[0] + "."
    english = "Hotel costs are reimbursed up to 150 EUR per night."
    from groundlab.judges.signals import _keys_for
    keys = _keys_for("english", frozenset({"german"}))
    assert only_for(english, "150 EUR", [sentence], "", keys) == "München und Frankfurt"
    assert only_for(english, "150 EUR", [sentence], "") is None  # its words alone meet no German sentence
    assert only_for("In Munich, " + english, "150 EUR", [sentence], "", keys) is None
    assert {"münchen", "munich"} <= place_forms("münchen") and "münchen" in place_forms("munich")
    assert place_forms("hamburg") == frozenset({"hamburg"})


@pytest.mark.parametrize("claim, label", [
    ("You receive 600 EUR per year (12 × 50 EUR).", "supported"),
    ("That is 50 EUR × 12 = 600 EUR a year.", "supported"),
    # across languages the numbers are backed; "im Jahr" is a word the English passage does not carry
    ("Sie erhalten 600 EUR im Jahr (12 × 50 EUR).", None),
    ("You receive 500 EUR per year (12 × 50 EUR).", "contradicted"),
    # twelve without a year is no factor a reader knows
    ("You receive 12 × 50 EUR.", "contradicted"),
])
def test_a_rate_per_month_counted_by_the_year(claim, label):
    verdict = get_judge("signals").judge(claim, Evidence("How much commuting allowance?", [COMMUTE]))
    assert verdict.label == label, verdict.reason
    if label != "contradicted":
        assert "12 months = a year" in verdict.reason, verdict.reason


def test_the_rules_judge_knows_the_months_of_a_year_too():
    verdict = get_judge("rules").judge("You receive 600 EUR per year (12 × 50 EUR).",
                                       Evidence("How much per year?", [COMMUTE]))
    assert "number 12 is not in the evidence" not in verdict.reason, verdict.reason


def test_a_comparison_past_a_computed_period_is_no_bound_and_per_calendar_year_is_per_year():
    assert comparisons("6 weeks are 30 working days, more than the 20 allowed per year.")[0][2:] == (
        True, "30 working days, more than the 20")
    assert comparisons("6 weeks are 30 working days, more than the 40 allowed per year.")[0][2] is False
    assert _terms("limited to 20 working days per calendar year") == {"how often": {"yearly": "per calendar year"}}
    verdict = get_judge("signals").judge("Yes: 6 weeks are 30 working days, less than the 20 allowed per year.",
                                         Evidence("Can I work abroad for 6 weeks?", [ABROAD]))
    assert verdict.label == "contradicted" and "comparison wrong" in verdict.reason, verdict.reason


def test_sick_pay_in_german_is_entgeltfortzahlung():
    verdict = get_judge("signals").judge("Sick pay continues for up to 6 weeks.",
                                         Evidence("How long is sick pay paid?", [SICK_PAY]))
    assert verdict.label == "supported", verdict.reason
    wrong = get_judge("signals").judge("Sick pay is paid for up to 3 months.",
                                       Evidence("How long is sick pay paid?", [SICK_PAY]))
    assert wrong.label == "contradicted", wrong.reason


def test_words_between_a_number_and_its_unit_of_time_and_the_keys_of_a_verbs_forms():
    text = "Up to 5 unused days may be carried over; 3 consecutive working days; 5 extra EUR."
    assert [(q.value, q.unit) for q in quantities(mentions(text), text, False)] == [
        (5.0, "day"), (3.0, "workday"), (5.0, "")]
    assert word_keys("carried carries carry") == word_keys("carry") == frozenset({"carry"})
    assert word_keys("policies") == word_keys("policy")
