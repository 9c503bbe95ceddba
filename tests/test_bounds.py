"""An example a claim takes, held against a bound of the passages: the user's number is no number a
passage must give, and the claim is right when it says what the rule says on the example's side of
the bound ("A file from 8 months ago can still be restored" when monthly backups are kept for 12
months), wrong when it does not ("... from 15 months ago ...")."""

from __future__ import annotations

import pytest

from groundlab.core.bounds import OPPOSITE, against_bound, is_example
from groundlab.core.numbers import mentions
from groundlab.core.quantities import quantities
from groundlab.core.records import Evidence, Passage
from groundlab.judges import get_judge

BACKUP = Passage("IT-BAK-01", "Daily backups are kept for 30 days, weekly backups for 12 weeks and monthly backups "
                              "for 12 months. Backups older than that are deleted.")
BACKUP_DE = Passage("IT-BAK-01", "Tägliche Sicherungen werden 30 Tage aufbewahrt, wöchentliche 12 Wochen und "
                                 "monatliche 12 Monate.")
TRAVEL = Passage("TR-4", "Hotel costs are reimbursed up to 120 EUR per night including breakfast. Purchases above "
                         "2,500 EUR need three quotes. Trips longer than 14 days need the approval of the head of "
                         "department.")
SICK = Passage("HR-9", "Sick leave of up to 3 calendar days needs no doctor's note. Employees can work from home "
                       "up to 2 days per week.")
LEAVE_DE = Passage("PHB-2", "Für mehr als 10 zusammenhängende Arbeitstage ist die Zustimmung der Abteilungsleitung "
                            "nötig.")
TAXI = Passage("TR-9", "Taxi rides are reimbursed up to 50 EUR per ride; higher amounts need a written reason.")

JUDGED = [
    # (question, passage, claim, label the judge must give)
    ("How long are backups kept?", BACKUP, "A file from 8 months ago can still be restored from a monthly backup.",
     "supported"),
    ("How long are backups kept?", BACKUP, "A version from 10 days ago is still in the daily backups.", "supported"),
    ("How long are backups kept?", BACKUP, "A file from 15 months ago can still be restored from a monthly backup.",
     "contradicted"),
    ("Wie lange werden Backups aufbewahrt?", BACKUP_DE,
     "Eine Datei von vor 20 Monaten lässt sich noch aus einer monatlichen Sicherung wiederherstellen.", "contradicted"),
    ("Is my hotel covered?", TRAVEL, "A hotel at 150 EUR per night is reimbursed in full.", "contradicted"),
    ("Do I need quotes?", TRAVEL, "For a purchase of 1,800 EUR you do not need three quotes.", "supported"),
    ("Do I need approval?", TRAVEL, "For a trip of 10 days you do not need the head of department's approval.",
     "supported"),
    ("Do I need approval?", TRAVEL, "For a trip of 20 days you do not need the head of department's approval.",
     "contradicted"),
    ("Do I need a note?", SICK, "For 5 days of sick leave you do not need a doctor's note.", "contradicted"),
    ("Do I need a note?", SICK, "For 5 days of sick leave you need a doctor's note.", "supported"),
    ("Brauche ich eine Zustimmung?", LEAVE_DE,
     "Bei 12 Arbeitstagen am Stück brauchen Sie die Zustimmung der Abteilungsleitung.", "supported"),
    ("Brauche ich eine Zustimmung?", LEAVE_DE,
     "Bei 8 Arbeitstagen am Stück brauchen Sie die Zustimmung der Abteilungsleitung.", "contradicted"),
    # another value for the passage's own period is no example: a number the evidence does not give
    ("How long are backups kept?", BACKUP, "Monthly backups are kept for 8 months.", "contradicted"),
]


@pytest.mark.parametrize("question, passage, claim, label", JUDGED)
def test_signals_reads_an_example_against_the_bound(question, passage, claim, label):
    verdict = get_judge("signals").judge(claim, Evidence(question, [passage]))
    assert verdict.label == label, verdict.reason


def test_the_reasons_say_which_bound_and_which_side():
    judge = get_judge("signals")
    wrong = judge.judge("A file from 15 months ago can still be restored from a monthly backup.",
                        Evidence("How long are backups kept?", [BACKUP]))
    assert wrong.reason.startswith('bound passed: example 15 months against "12 months": the rule does not apply')
    right = judge.judge("For 5 days of sick leave you need a doctor's note.", Evidence("Note?", [SICK]))
    assert 'example 5 days against "up to 3 calendar days"' in right.reason and OPPOSITE in right.reason


def _first(text):
    return quantities(mentions(text), text, False)[0]


@pytest.mark.parametrize("claim, example", [
    ("A file from 8 months ago can be restored.", True),
    ("Eine Datei von vor 8 Monaten ist noch da.", True),
    ("Un fichier d'il y a 8 mois est encore là.", True),
    ("For 5 days of sick leave you need a note.", True),
    ("Bei 12 Arbeitstagen brauchen Sie eine Zustimmung.", True),
    ("If you are sick for 5 days, you need a note.", True),
    ("For a purchase of 1,800 EUR you need no quotes.", True),
    ("A hotel at 150 EUR per night is covered.", True),
    ("Monthly backups are kept for 8 months.", False),
    ("Your card has a standard limit of 2,500 EUR per month.", False),
    ("You can only take leave after a six-month waiting period.", False),
])
def test_an_example_is_marked_as_the_users_case(claim, example):
    assert is_example(claim, _first(claim)) is example


def _evidence(passage):
    return quantities(mentions(passage.text), passage.text, False)


def test_a_sentence_with_a_rule_on_each_side_decides_nothing():
    # "up to 50 EUR; higher amounts need a written reason": which rule the claim restates is not read
    claim = "A taxi ride at 70 EUR needs a written reason."
    assert is_example(claim, _first(claim))
    assert against_bound(_first(claim), claim, _evidence(TAXI)) is None


def test_a_bound_sharing_no_word_with_the_claim_backs_but_never_contradicts():
    unrelated = Passage("HR-1", "The probation period lasts up to 6 months.")
    within = "A file from 4 months ago can be restored."
    beyond = "A file from 8 months ago can be restored."
    assert against_bound(_first(within), within, _evidence(unrelated))[0] is True
    assert against_bound(_first(beyond), beyond, _evidence(unrelated)) is None


def test_a_period_converts_only_where_the_sentence_shares_the_claims_words():
    passage = Passage("IT-1", "Deleted mails stay in the recycle bin for up to 3 months.")
    claim = "A mail deleted 6 weeks ago is still in the recycle bin."
    # "6 weeks ago": within 3 months
    assert is_example(claim, _first(claim))
    held = against_bound(_first(claim), claim, _evidence(passage))
    assert held is not None and held[0] is True


LEAVE_RULES_DE = Passage("PHB-2", "Urlaubsanträge sind mindestens 2 Wochen vor Urlaubsbeginn zu stellen. Wer länger als "
                                  "3 Kalendertage krank ist, muss ab dem vierten Tag eine ärztliche Bescheinigung "
                                  "vorlegen.")


@pytest.mark.parametrize("claim, label, reason", [
    # 3 is in the passage, but as 3 calendar days: no number of weeks it gives
    ("Urlaubsanträge sind mindestens 3 Wochen vorher zu stellen.", "contradicted",
     "number 3 Wochen is not in the evidence, which gives 3 Kalendertage"),
    ("Urlaubsanträge sind mindestens 2 Wochen vorher zu stellen.", "supported", None),
    # a working day counts as a day, a round figure and the user's case are the claim's own
    ("Ab 3 Tagen Krankheit brauchen Sie ab dem vierten Tag eine ärztliche Bescheinigung.", None, None),
    ("Die Frist beträgt 2 Wochen, also ca. 14 Tage.", None, None),
])
def test_a_period_the_passages_give_only_in_another_unit_is_not_in_the_evidence(claim, label, reason):
    verdict = get_judge("signals").judge(claim, Evidence("Urlaub?", [LEAVE_RULES_DE]))
    if label is not None:
        assert verdict.label == label, verdict.reason
    else:
        assert "is not in the evidence" not in verdict.reason, verdict.reason
    if reason is not None:
        assert verdict.reason.startswith(reason), verdict.reason


_LAPTOPS = Passage("IT-3", "New laptops are delivered within 5 working days after the order is approved. Approval "
                          "takes up to 2 working days.")


_UNPAID = Passage("HR-5", "Employees may take unpaid leave of up to one month per year. New laptops are delivered "
                         "within one week after the order is approved.")


@pytest.mark.parametrize("judge", ["signals", "rules"])
@pytest.mark.parametrize("claim, passage, label, shown", [
    # five working days are a week, ten are two: no round figure needed, either way round
    ("New laptops are delivered within one week after approval.", _LAPTOPS, "supported", "one week = 5 working days"),
    ("New laptops are delivered within 1 week after approval.", _LAPTOPS, "supported", "1 week = 5 working days"),
    ("New laptops are delivered within 3 weeks after approval.", _LAPTOPS, "contradicted", None),
    ("New laptops are delivered within 5 working days after approval.", _UNPAID, "supported",
     "5 working days = one week in working days"),
    ("New laptops are delivered within 3 working days after approval.", _UNPAID, "contradicted", None),
    # a month is about 22 working days, as a round figure only
    ("You can take unpaid leave for a full month (about 22 working days) per year.", _UNPAID, "supported",
     "22 working days = one month in working days"),
    ("You can take unpaid leave for about 35 working days per year.", _UNPAID, "contradicted", None),
    ("You can take unpaid leave for 22 working days per year.", _UNPAID, "contradicted", None),
])
def test_working_days_in_weeks_and_months(judge, claim, passage, label, shown):
    verdict = get_judge(judge).judge(claim, Evidence("When?", [passage]))
    if judge == "rules" and label == "supported":
        # the rules judge counts "working days" among the words its passage must write
        assert verdict.label != "contradicted", verdict.reason
    else:
        assert verdict.label == label, verdict.reason
    if shown is not None:
        assert shown in verdict.reason, verdict.reason


@pytest.mark.parametrize("claim, label", [
    # a period written in words is read for its unit as one in digits: the passages' 2 is of working days
    ("Approval takes up to two weeks.", "contradicted"),
    ("New laptops are delivered within two weeks after approval.", "contradicted"),
    ("Approval takes up to two working days.", "supported"),
    ("Approval takes up to two days.", "supported"),
])
def test_a_period_in_words_the_passages_give_only_in_another_unit(claim, label):
    verdict = get_judge("signals").judge(claim, Evidence("When do I get my laptop?", [_LAPTOPS]))
    assert verdict.label == label, verdict.reason
    if label == "contradicted":
        assert verdict.reason.startswith("number two weeks is not in the evidence, which gives 2 working days"), \
            verdict.reason


def test_an_example_in_another_unit_than_the_passages_number_is_the_users():
    passage = Passage("HR-3", "Leave requests must be submitted at least 2 weeks ahead. Employees who are sick for "
                              "more than 3 calendar days must submit a medical certificate.")
    verdict = get_judge("signals").judge("If you are sick for 2 days, you do not need a medical certificate.",
                                         Evidence("Sick?", [passage]))
    assert "is not in the evidence" not in verdict.reason, verdict.reason


def test_a_sentence_sharing_one_word_with_the_claim_is_no_rule_it_restates():
    rail = Passage("TRV-2", "Business class is allowed for flights longer than 6 hours. Rail travel is reimbursed in "
                            "2nd class; 1st class only for trips over 4 hours.")
    claim = "For a 3-hour train ride you travel 2nd class."
    assert is_example(claim, _first(claim))
    assert against_bound(_first(claim), claim, _evidence(rail)) is None


def test_an_ordinal_day_of_the_passage_is_no_period():
    passage = Passage("HR-7", "A medical certificate is required from the first day of illness.")
    verdict = get_judge("signals").judge("Upload the certificate within 1 week.", Evidence("Sick?", [passage]))
    assert "which gives first" not in verdict.reason, verdict.reason


_SICK = Passage("HR-SK-1", "Employees must report sick before 9:00 on the first day of illness. A medical certificate is "
                           "required from the fourth calendar day of illness.")


@pytest.mark.parametrize("question, claim, label", [
    # the user's span of weekdays is their count of days, held against the passage's bound
    ("I was sick from Monday to Wednesday. Do I need a certificate?",
     "Three days of illness therefore do not require a certificate.", "supported"),
    ("I was sick from Monday to Friday. Do I need a certificate?",
     "5 days of illness do not require a certificate.", "contradicted"),
    ("Ich war von Montag bis Freitag krank.", "For 5 days of illness you need a certificate.", "supported"),
    # a count the span does not give is no number of the evidence
    ("I was sick from Monday to Friday. Do I need a certificate?",
     "Three days of illness therefore do not require a certificate.", "contradicted"),
])
def test_a_span_of_weekdays_counts_the_users_days(question, claim, label):
    verdict = get_judge("signals").judge(claim, Evidence(question, [_SICK]))
    assert verdict.label == label, verdict.reason


def test_a_span_of_weekdays_counts_nights_one_less():
    from groundlab.core.steps import _day_span
    nights = _first("3 nights")
    assert _day_span(("I stay from Monday to Thursday.",), nights).expression == "Monday to Thursday"
    assert _day_span(("Ich bleibe von Montag bis Mittwoch.",), nights) is None


_NOTICE = Passage("HR-LV-2", "Leave must be requested at least 3 calendar days in advance.")


@pytest.mark.parametrize("question, claim, label", [
    # the user's period made the rule: the question writes "3 weeks", the passage gives 3 only as days
    ("Must I request leave 3 weeks in advance?", "Leave must be requested at least 3 weeks in advance.",
     "contradicted"),
    ("When must I request leave?", "Leave must be requested at least 3 weeks in advance.", "contradicted"),
    # the user's period as their own case, beside the passage's rule
    ("Can I take 3 weeks of leave?", "Your 3 weeks of leave must be requested at least 3 calendar days in advance.",
     "supported"),
])
def test_the_users_period_stated_as_the_rule_is_the_passages_to_give(question, claim, label):
    verdict = get_judge("signals").judge(claim, Evidence(question, [_NOTICE]))
    assert verdict.label == label, verdict.reason
    if label == "contradicted":
        assert "3 weeks" in verdict.reason and "3 calendar days" in verdict.reason


_REMOTE = Passage("HR-RW-1", "Remote work is possible up to 2 days a week. Requests are answered within 3 days.")
_IT = Passage("IT-7", "Password resets are handled within 4 hours during service hours. Hardware requests are "
                      "delivered within 5 working days. Accounts are locked after 5 failed attempts for 30 minutes.")
_TIERS = Passage("KB-21", "P2 (high): response within 1 hour and resolution within 8 business hours. P3 (medium): "
                          "response within 4 business hours and resolution within 3 business days.")


@pytest.mark.parametrize("claim, passage, label", [
    # the passages write the 3 only in another role ("within 3 days"); their bound is 2
    ("Remote work is possible up to 3 days a week.", _REMOTE, "contradicted"),
    ("Remote work is possible up to 2 days a week.", _REMOTE, "supported"),
    ("Requests are answered within 3 days.", _REMOTE, "supported"),
    # a bound the passages give for one tier among others, read where its unit stands ("P3 ... 3 business days")
    ("For a P3 ticket the resolution is due within 3 business days.", _TIERS, "supported"),
    # "within 5" written by a passage, but of working days: the claim's "within 5 hours" is another bound
    ("Password resets are handled within 5 hours.", _IT, "contradicted"),
    ("Password resets are handled within 4 hours.", _IT, "supported"),
])
def test_a_bound_stated_with_a_number_the_passages_write_in_another_role(claim, passage, label):
    verdict = get_judge("signals").judge(claim, Evidence("Can I?", [passage]))
    assert verdict.label == label, verdict.reason
    if label == "contradicted" and passage is _REMOTE:
        assert verdict.reason.startswith("bound 3 days is not the passages', which is 2 days"), verdict.reason


_REMOTE_DE = Passage("HR-RW-1", "Mobiles Arbeiten ist bis zu 2 Tage pro Woche möglich. Anträge werden innerhalb von "
                                "3 Tagen beantwortet.")
_HOTEL = Passage("TR-4", "Hotel costs are reimbursed up to 120 EUR per night. Taxi rides up to 150 EUR per trip "
                         "need approval.")


@pytest.mark.parametrize("claim, passage, label, bound", [
    # a claim in another language than its passages: their sentence on the same matter is found by
    # the English its words mean ("Tage", "Woche", "arbeiten": days, week, work)
    ("Sie können bis zu 3 Tage pro Woche mobil arbeiten.", _REMOTE, "contradicted", "bound 3 Tage is not the passages', which is 2 days"),
    ("Le télétravail est possible jusqu'à 3 jours par semaine.", _REMOTE, "contradicted", "bound 3 jours is not the passages', which is 2 days"),
    ("Sie können bis zu 2 Tage pro Woche mobil arbeiten.", _REMOTE, "supported", None),
    ("Anträge werden innerhalb von 3 Tagen beantwortet.", _REMOTE, "supported", None),
    # and the other way round: an English claim against German passages
    ("You can work remotely up to 3 days a week.", _REMOTE_DE, "contradicted", "bound 3 days is not the passages', which is 2 Tage"),
    ("Requests are answered within 3 days.", _REMOTE_DE, "supported", None),
    ("Hotelkosten werden bis zu 150 EUR pro Nacht erstattet.", _HOTEL, "contradicted", "bound 150 EUR is not the passages', which is 120 EUR"),
    ("Hotelkosten werden bis zu 120 EUR pro Nacht erstattet.", _HOTEL, "supported", None),
    ("Taxifahrten bis 150 EUR pro Fahrt brauchen eine Genehmigung.", _HOTEL, "supported", None),
])
def test_a_bound_stated_in_another_language_than_the_passages(claim, passage, label, bound):
    verdict = get_judge("signals").judge(claim, Evidence("Kann ich?", [passage]))
    assert verdict.label == label, verdict.reason or verdict.error
    if bound is not None:
        assert verdict.reason.startswith(bound), verdict.reason


_LEAVE = Passage("HR-14", "Up to 5 unused days can be carried over to the next year. Leave must be requested at least "
                          "2 weeks in advance via the HR portal. Sick leave of more than 3 calendar days requires a "
                          "medical certificate.")
_SICK_DE = Passage("HR-15", "Bis zu 5 Tage können übertragen werden. Ab dem 4. Krankheitstag ist eine ärztliche "
                            "Bescheinigung vorzulegen.")


@pytest.mark.parametrize("claim, passage, label, reason", [
    # the passages' bound on the same matter in another unit of time, not about as long
    ("Leave must be requested at least 3 days in advance.", _LEAVE, "contradicted",
     "bound 3 days is not the passages', which is 2 weeks"),
    ("Urlaub muss mindestens 3 Tage im Voraus beantragt werden.", _LEAVE, "contradicted",
     "bound 3 Tage is not the passages', which is 2 weeks"),
    ("Leave must be requested at least 14 days in advance.", _LEAVE, "supported", None),
    # a rule from the Nth day on is a rule past N - 1 days
    ("From the 4th day of sick leave you need a medical certificate.", _LEAVE, "supported",
     "from the 4th day = more than 3 calendar days"),
    ("Ab dem 4. Krankheitstag brauchen Sie ein ärztliches Attest.", _LEAVE, "supported", None),
    ("À partir du 4e jour d'arrêt maladie, un certificat médical est nécessaire.", _LEAVE, "supported", None),
    ("From the 2nd day of sick leave you need a medical certificate.", _LEAVE, "contradicted", None),
    # ... whose number a passage writes in another role ("Up to 5 unused days")
    ("From the 5th day of sick leave you need a medical certificate.", _LEAVE, "contradicted",
     "the rule from the 5th day on is not the passages', which is more than 3 calendar days"),
    ("Ab dem 2. Krankheitstag brauchen Sie ein ärztliches Attest.", _LEAVE, "contradicted",
     "the rule from the 2. Krankheitstag on is not the passages', which is more than 3 calendar days"),
    ("From the 5th day of sick leave you need a medical certificate.", _SICK_DE, "contradicted",
     "the rule from the 5th day on is not the passages', which is 4. Krankheitstag"),
    ("Ab dem 5. Krankheitstag brauchen Sie eine ärztliche Bescheinigung.", _SICK_DE, "contradicted", None),
])
def test_a_rule_on_days_counted_another_way(claim, passage, label, reason):
    verdict = get_judge("signals").judge(claim, Evidence("Brauche ich eine Bescheinigung?", [passage]))
    assert verdict.label == label, verdict.reason or verdict.error
    if reason is not None:
        assert reason in verdict.reason, verdict.reason


def test_periods_of_two_matters_are_not_compared():
    # "after 11 years" and "after 120 minutes" are no bound of one rule
    from groundlab.core.bounds import _other_bound
    from groundlab.core.quantities import quantities

    years = quantities(mentions("After 11 years he won."), "After 11 years he won.", False)[0]
    minutes = quantities(mentions("It was decided after 120 minutes."), "It was decided after 120 minutes.", False)[0]
    weeks = quantities(mentions("at least 2 weeks before"), "at least 2 weeks before", False)[0]
    days = quantities(mentions("at least 3 days before"), "at least 3 days before", False)[0]
    month = quantities(mentions("within 1 month"), "within 1 month", False)[0]
    thirty = quantities(mentions("within 30 days"), "within 30 days", False)[0]
    assert not _other_bound(minutes, years)
    assert _other_bound(weeks, days)
    assert not _other_bound(month, thirty)  # about as long: one bound said otherwise
