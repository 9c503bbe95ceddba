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
    # across languages too: "im Jahr", the computed amount's rate, is no word the passage must carry
    ("Sie erhalten 600 EUR im Jahr (12 × 50 EUR).", "supported"),
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


OVERTIME = Passage("HR-61", "Employees who work overtime receive time off in lieu at a rate of 1:1. A maximum of 40 "
                            "overtime hours may be accumulated.")
FLIGHTS = Passage("TR-60", "Economy class is booked for flights under 6 hours; business class may be booked for "
                           "flights of 6 hours or more. Flights must be booked through the travel portal.")
LEAVE_DE = Passage("HR-60", "Mitarbeitende haben Anspruch auf 30 Urlaubstage pro Kalenderjahr bei einer 5-Tage-Woche. "
                            "Resturlaub kann bis zum 31. März des Folgejahres genommen werden; danach verfällt er. "
                            "Urlaubsanträge sind mindestens 2 Wochen vor Urlaubsbeginn im Portal zu stellen.")
MILEAGE = Passage("HR-22", "Employees who use their private car for a business trip are reimbursed 0.30 EUR per "
                           "kilometre driven. The reimbursement is capped at 130 EUR per trip; for longer distances, "
                           "a rail ticket should be used.")
TAXI = Passage("TR-9", "Private car use is reimbursed at 0.30 EUR per km. Taxi rides are reimbursed up to 50 EUR.")


@pytest.mark.parametrize("passage, question, claim, label", [
    # the user's 50 hours made the rule, a word standing between the number and its unit
    (OVERTIME, "Can I accumulate 50 overtime hours?", "Yes, up to 50 overtime hours can be accumulated.",
     "contradicted"),
    (OVERTIME, "Can I accumulate 50 overtime hours?", "No, you can accumulate at most 40 overtime hours.",
     "supported"),
    # the user's 4-hour flight against "6 hours or more", whose "or more" says no other rule
    (FLIGHTS, "My flight takes 4 hours. Can I fly business?",
     "Yes, business class is allowed for your 4-hour flight.", "contradicted"),
    (FLIGHTS, "My flight takes 7 hours. Can I fly business?",
     "Yes, business class is allowed for your 7-hour flight.", "supported"),
    # the clause before the semicolon says the claim's rule ("economy"): the one after decides nothing
    (FLIGHTS, "My flight takes 4 hours. Can I fly business?", "No, for your 4-hour flight economy class is booked.",
     "supported"),
])
def test_the_users_period_with_words_between_and_a_bound_with_or_more(passage, question, claim, label):
    verdict = get_judge("signals").judge(claim, Evidence(question, [passage]))
    assert verdict.label == label, verdict.reason
    if label == "contradicted" and passage is FLIGHTS:
        assert 'against "6 hours or more"' in verdict.reason, verdict.reason


@pytest.mark.parametrize("question, claim, label", [
    # the day of the year after the one the user names
    ("Bis wann kann ich Resturlaub aus 2026 nehmen?", "Resturlaub aus 2026 können Sie bis zum 31. März 2027 nehmen.",
     "supported"),
    ("Bis wann kann ich Resturlaub aus 2026 nehmen?", "Resturlaub können Sie bis zum 31. März 2028 nehmen.",
     "contradicted"),
    ("Bis wann kann ich Resturlaub aus 2026 nehmen?", "Resturlaub können Sie bis zum 30. April 2027 nehmen.",
     "contradicted"),
    # a date the example takes, after "ab"; the day two weeks before it
    ("Wie lange vorher muss ich Urlaub beantragen?", "Urlaubsanträge sind mind. 2 Wochen vor Urlaubsbeginn zu "
     "stellen, z. B. bis zum 18. Juli für einen Urlaub ab 1. August.", "supported"),
    ("Wie lange vorher muss ich Urlaub beantragen?", "Urlaubsanträge sind mind. 2 Wochen vor Urlaubsbeginn zu "
     "stellen, z. B. bis zum 25. Juli für einen Urlaub ab 1. August.", "contradicted"),
    # what is left, counted, across languages: "left" is the computation's word
    ("How many days of leave do I have left if I have taken 12 days?", "You have 18 days left (30 − 12).", "supported"),
    ("How many days of leave do I have left if I have taken 12 days?", "You have 20 days left.", "contradicted"),
])
def test_dates_of_the_following_year_an_examples_date_and_days_left(question, claim, label):
    verdict = get_judge("signals").judge(claim, Evidence(question, [LEAVE_DE]))
    assert verdict.label == label, verdict.reason
    if claim.startswith("Resturlaub aus 2026"):
        assert "31. März 2027 = 31. März des Folgejahres of 2026" in verdict.reason, verdict.reason


@pytest.mark.parametrize("judge", ["signals", "rules"])
def test_a_cap_in_the_next_sentence_on_the_same_matter_caps_a_computed_amount(judge):
    verdict = get_judge(judge).judge("For 450 km you receive 135 EUR.", Evidence("Mileage for 450 km?", [MILEAGE]))
    assert verdict.label == "contradicted", verdict.reason
    assert "0.30 EUR × 450 km = 135 EUR, capped at 130 EUR" in verdict.reason
    # a cap of another matter (taxi rides) caps nothing
    other = get_judge("signals").judge("For 450 km you receive 135 EUR.", Evidence("Mileage for 450 km?", [TAXI]))
    assert other.label == "supported", other.reason


SPECIAL = Passage("HR-71", "Bei Eheschließung erhalten Mitarbeitende 1 Tag Sonderurlaub, bei Geburt eines Kindes 2 Tage. "
                           "Beim Tod eines nahen Angehörigen werden 3 Tage Sonderurlaub gewährt.")
ABROAD_RATES = Passage("TR-70", "For trips abroad, the per diem is set by country: Austria 40 EUR, Switzerland 64 EUR, "
                                "France 53 EUR per full day. For days of arrival and departure, half of the rate is "
                                "paid.")
NOTICE = Passage("HR-70", "The notice period for employees is 3 months to the end of a calendar month. During the "
                          "probation period of 6 months, the notice period is 2 weeks.")
LOST = Passage("IT-70", "Lost or stolen devices must be reported to the IT service desk within 24 hours. Replacement "
                        "devices are delivered within 3 working days.")
CANCEL = Passage("TR-60", "Flights must be booked through the travel portal. Cancellations must be made at least 24 "
                          "hours before departure.")
LOCKED = Passage("IT-9", "Sick pay is paid for up to 6 weeks. Accounts are locked for 15 minutes after 5 failed "
                         "attempts. Receipts are kept for 10 years.")


@pytest.mark.parametrize("passage, question, claim, label, shown", [
    # a German passage that writes "bei", "eines", "beim" reads as German: the English claim is read across
    (SPECIAL, "How many days of special leave for the birth of my child?",
     "You get 2 days of special leave for the birth of a child.", "supported", None),
    # "leave" (the noun) says no computation: 5 days are no "2 Tage + 3 Tage"
    (SPECIAL, "How many days of special leave when a close relative dies?", "You receive 5 days of special leave.",
     "contradicted", None),
    # a value a list gives another name
    (ABROAD_RATES, "Per diem for France?", "In France the per diem is 64 EUR per full day.", "contradicted",
     "the passages give 64 EUR for Switzerland; for France they give 53 EUR"),
    (ABROAD_RATES, "Per diem for Switzerland?", "In Switzerland the per diem is 64 EUR per full day.", "supported", None),
    # the passage's "half" of a rate it lists
    (ABROAD_RATES, "And the day of arrival in Switzerland?", "For the day of arrival you get 32 EUR.", "supported",
     "32 EUR = half of 64 EUR"),
    (ABROAD_RATES, "And the day of arrival in Switzerland?", "For the day of arrival you get 30 EUR.", "contradicted",
     None),
    # and in German: "die Hälfte"
    (Passage("TR-70", "Für Auslandsreisen gilt je Land ein Tagegeld: Österreich 40 EUR, Schweiz 64 EUR, Frankreich "
                      "53 EUR pro vollem Tag. Für An- und Abreisetage wird die Hälfte des Satzes gezahlt."),
     "Und am Anreisetag in der Schweiz?", "Für den Anreisetag in der Schweiz erhalten Sie 32 EUR.", "supported",
     "32 EUR = Hälfte of 64 EUR"),
    # a period to the end of a calendar month
    (NOTICE, "I resign on 10 March (after probation). When does my employment end?",
     "Your employment ends on 30 June: 3 months to the end of a calendar month.", "supported",
     "30 June = 10 March + 3 months, to the end of the month"),
    (NOTICE, "I resign on 10 March (after probation). When does my employment end?",
     "Your employment ends on 10 June.", "contradicted", None),
    # a day of the week a whole number of days in hours from the user's, the period after it
    (LOST, "I lost my phone on Monday at 9:00. Until when must I report it?",
     "Report it by Tuesday at 9:00, within 24 hours.", "supported", "Tuesday = Monday + 24 hours"),
    (LOST, "I lost my phone on Monday at 9:00. Until when must I report it?",
     "Report it by Wednesday at 9:00, within 24 hours.", "unsupported", None),
    (CANCEL, "Until when can I cancel my flight on Friday at 10:00?",
     "Cancel by Thursday at 10:00, at least 24 hours before departure.", "supported", "Thursday = Friday − 24 hours"),
    # no count reached by chance: the whole of a share is the passages', a bare count no rounded value
    (LOCKED, "What happens then?", "Accounts are locked for 30 minutes after 3 failed attempts.", "contradicted",
     None),
])
def test_lists_by_name_halves_month_ends_and_days_in_hours(passage, question, claim, label, shown):
    verdict = get_judge("signals").judge(claim, Evidence(question, [passage]))
    assert verdict.label == label, verdict.reason
    if shown:
        assert shown in verdict.reason, verdict.reason


def test_a_list_of_values_needs_amounts_and_three_names():
    from groundlab.judges.signals.scope import named_values
    assert named_values(ABROAD_RATES.text.split(". ")[0]) == (
        ("Austria", "40 EUR"), ("Switzerland", "64 EUR"), ("France", "53 EUR"))
    assert named_values(SPECIAL.text) == ()  # German nouns beside periods are no list of values
    assert named_values("Austria 40 EUR, Switzerland 64 EUR.") == ()


VOLUNTEER = Passage("HR-80", "Employees are entitled to 2 days of paid leave per year for volunteering. Requests must be "
                             "submitted at least 10 working days in advance and approved by the line manager.")
HOURS_DE = Passage("HR-81", "Die Arbeitszeit beträgt 40 Stunden pro Woche. Gleitzeit ist zwischen 7:00 und 19:00 Uhr "
                            "möglich.")


@pytest.mark.parametrize("passage, question, claim, label, shown", [
    # five working days from a working day are a week, whatever the year
    (VOLUNTEER, "When must I request a volunteering day for Friday 20 March?",
     "At least 10 working days in advance, i.e. by Friday 6 March.", "supported", "6 March = 20 March − 10 working days"),
    # "in advance" counts back: the right date told
    (VOLUNTEER, "When must I request a volunteering day for Friday 20 March?",
     "At least 10 working days in advance, i.e. by Friday 13 March.", "contradicted",
     "where 20 March − 10 working days = 6 March"),
    # the hours of a week over the days of the user's week
    (HOURS_DE, "Wie viele Stunden arbeite ich am Tag?",
     "Die Arbeitszeit beträgt 40 Stunden pro Woche, also 8 Stunden pro Tag bei einer 5-Tage-Woche.", "supported",
     "8 Stunden = 40 Stunden ÷ 5-Tage"),
    (HOURS_DE, "Wie viele Stunden arbeite ich am Tag?",
     "Die Arbeitszeit beträgt 40 Stunden pro Woche, also 9 Stunden pro Tag bei einer 5-Tage-Woche.", "contradicted",
     None),
])
def test_working_days_in_weeks_before_a_date_and_hours_a_day(passage, question, claim, label, shown):
    verdict = get_judge("signals").judge(claim, Evidence(question, [passage]))
    assert verdict.label == label, verdict.reason
    if shown:
        assert shown in verdict.reason, verdict.reason
