"""A day of the week a claim computes from the user's day and the period it states is backed, and one
computed wrong is contradicted with the right day; a day no stated period reaches is not searched."""

from __future__ import annotations

import pytest

from groundlab.core.records import Evidence, Passage
from groundlab.core.weekdays import weekdays
from groundlab.judges import get_judge

SICK_NOTE = ("From the third calendar day of illness, a medical certificate (doctor's note) is required. The company "
             "pays the full salary for up to six weeks.")
TICKETS = ("P3 (medium): response within 4 business hours and resolution within 3 business days. Business hours are "
           "Monday to Friday, 08:00 to 18:00.")


@pytest.mark.parametrize("claim, said, derived", [
    ("A certificate is required from the third calendar day of illness, so if you fell ill on Monday you need one "
     "from Wednesday.", (), "Wednesday = third calendar day of illness counted from Monday"),
    ("The resolution is due within 3 business days, i.e. by Thursday.", ("Monday",),
     "Thursday = Monday + 3 business days"),
    # working days skip the weekend
    ("The resolution is due within 3 business days, i.e. by Wednesday.", ("Friday",),
     "Wednesday = Friday + 3 business days"),
    ("Ab dem 3. Kalendertag brauchen Sie eine AU, bei Krankheit seit Montag also ab Mittwoch.", (),
     "Mittwoch = 3. Kalendertag counted from Montag"),
    ("Ab dem dritten Krankheitstag brauchen Sie eine AU, wenn Sie am Freitag krank werden, also ab Sonntag.", (),
     "Sonntag = dritten Krankheitstag counted from Freitag"),
    ("Le ticket est résolu en 3 jours ouvrés, donc jeudi.", ("lundi",), "jeudi = lundi + 3 jours ouvrés"),
])
def test_a_day_counted_from_the_users_day_by_the_claims_period_is_backed(claim, said, derived):
    found = weekdays(claim, said)
    assert found.derived == (derived,) and found.wrong is None, found


@pytest.mark.parametrize("claim, said, wrong", [
    ("A certificate is required from the third calendar day of illness, so if you fell ill on Monday you need one "
     "from Thursday.", (), ("Thursday", "third calendar day of illness counted from Monday = Wednesday")),
    ("The resolution is due within 3 business days, i.e. by Tuesday.", ("Friday",),
     ("Tuesday", "Friday + 3 business days = Wednesday")),
    ("Ab dem dritten Krankheitstag brauchen Sie eine AU, wenn Sie am Freitag krank werden, also ab Montag.", (),
     ("Montag", "dritten Krankheitstag counted from Freitag = Sonntag")),
    ("Le ticket est résolu en 3 jours ouvrés, donc mercredi.", ("lundi",), ("mercredi", "lundi + 3 jours ouvrés = jeudi")),
])
def test_a_day_computed_wrong_is_told_the_right_one(claim, said, wrong):
    assert weekdays(claim, said).wrong == wrong


@pytest.mark.parametrize("claim, said, written", [
    # no period the claim states: a day of seven is not searched for among the passages' periods
    ("So you need a certificate from Wednesday.", ("Monday",), ()),
    # no day of the user's to count from
    ("The resolution is due within 3 business days, i.e. by Thursday.", (), ()),
    # a day the passages write is found, not computed
    ("Business hours run to Friday, within 3 business days.", ("Monday",), ("Friday",)),
    # a day after the period without words of a computation is not told wrong
    ("Tickets are resolved within 3 business days and the desk is closed on Sunday.", ("Monday",), ()),
    # working days counted from a weekend: whether Monday counts is the policy's to say
    ("The resolution is due within 3 business days, i.e. by Wednesday.", ("Saturday",), ()),
])
def test_a_day_no_stated_period_reaches_is_neither_backed_nor_wrong(claim, said, written):
    assert weekdays(claim, said, written) == ((), (), None)


def _evidence(question: str, passage: str) -> Evidence:
    return Evidence(question, (Passage("P-1", passage),))


@pytest.mark.parametrize("judge", ["signals", "rules"])
def test_the_judges_back_a_day_computed_right_and_contradict_one_computed_wrong(judge):
    j = get_judge(judge)
    right = j.judge("The resolution is due within 3 business days, i.e. by Thursday.",
                    _evidence("I opened a P3 ticket on Monday at 09:00.", TICKETS))
    assert "computed: Thursday = Monday + 3 business days" in right.reason, right.reason
    if judge == "signals":  # the day is the computation's, no name the passage must write
        assert right.label == "supported" and "names not in the evidence" not in right.reason, right.reason
    wrong = j.judge("The resolution is due within 3 business days, i.e. by Wednesday.",
                    _evidence("I opened a P3 ticket on Monday at 09:00.", TICKETS))
    assert wrong.label == "contradicted" and wrong.reason.startswith(
        "computed wrong: the claim says Wednesday where Monday + 3 business days = Thursday"), wrong.reason


def test_the_same_claim_under_questions_naming_other_days_is_judged_on_each():
    claim = "The resolution is due within 3 business days, i.e. by Thursday."
    verdicts = get_judge("signals").judge_batch([
        (claim, _evidence("I opened a P3 ticket on Monday at 09:00.", TICKETS)),
        (claim, _evidence("I opened a P3 ticket on Tuesday at 09:00.", TICKETS)),
        (claim, _evidence("I opened a P3 ticket on Monday at 09:00.", TICKETS)),
    ])
    assert [v.label for v in verdicts] == ["supported", "contradicted", "supported"], [v.reason for v in verdicts]


def test_a_sick_note_day_counted_in_the_claim_is_supported():
    verdict = get_judge("signals").judge(
        "A medical certificate is required from the third calendar day of illness, so if you fell ill on Monday you "
        "need one from Wednesday.", _evidence("I've been sick since Monday. When do I need a doctor's note?", SICK_NOTE))
    assert verdict.label == "supported" and "counted from Monday" in verdict.reason, verdict.reason
