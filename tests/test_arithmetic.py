"""Computed values judged as a reader judges them: a number that follows from the passages' and the
question's numbers by accepted arithmetic is backed, a computation done wrong is contradicted with
the right value, and a number that only happens to be reachable is not backed."""

from __future__ import annotations

import pytest

from groundlab.core import arithmetic
from groundlab.core.arithmetic import compute
from groundlab.core.numbers import mentions
from groundlab.core.quantities import Quantity
from groundlab.core.records import Evidence, Passage
from groundlab.judges import get_judge

POLICY = (
    "Mileage is paid at 0.30 EUR per km, capped at 130 EUR per trip.",
    "Claims must be filed within 30 days of the end of the trip.",
    "Full-time employees (5 days a week) get 30 days of annual leave; part-time employees get leave pro rata.",
    "The daily allowance is 28 EUR. If breakfast is provided, 40% of the allowance is deducted.",
    "Hotel costs are paid up to 120 EUR per night.",
)

BACKED = [
    ("500 km × 0.30 EUR = 150 EUR, capped at 130 EUR.", ["150 EUR"], "I drove 500 km.", "150 EUR = 500 km × 0.30 EUR"),
    ("For 400 km you get 120 EUR.", ["120 EUR"], "I drove 400 km.", "120 EUR = 0.30 EUR × 400 km"),
    ("Your claim is due 30 days after 10 May, i.e. by 9 June.", ["9 June"], "My trip ended on 10 May.",
     "9 June = 10 May + 30 days"),
    ("File it by 9 June.", ["9 June"], "My trip ended on 10 May.", "9 June = 10 May + 30 days"),
    ("3 days a week gives 18 days a year.", ["18"], "I work 3 days a week.", "18 days = 30 days × 3 days ÷ 5 days"),
    ("With 4 days a week you get 24 days.", ["24"], "I work 4 days a week.", "24 days = 30 days × 4 days ÷ 5 days"),
    ("28 EUR minus 11.20 EUR leaves 16.80 EUR.", ["11.20 EUR", "16.80 EUR"], "",
     "16.80 EUR = 28 EUR − 11.20 EUR"),
    ("Three nights cost at most 360 EUR.", ["360 EUR"], "I stay three nights.", "360 EUR = 120 EUR × three nights"),
    ("Bei 3 Tagen pro Woche sind das 18 Urlaubstage.", ["18"], "Ich arbeite 3 Tage pro Woche.",
     "18 Urlaubstage = 30 days × 3 Tage ÷ 5 days"),
    # the claim's own example ("with 3 days a week") is backed by what follows from it
    ("With 3 days a week you get 18 days.", ["3", "18"], "", "18 days = 30 days × 3 days ÷ 5 days"),
    ("For 600 km you get 130 EUR.", ["600"], "", "180 EUR, capped at 130 EUR"),
    # a number computed is an operand of the next one
    ("18 days still give you six full weeks off.", ["18", "six"], "I work 3 days a week.", "six full weeks = 18 days ÷ 3 days"),
    # a count the claim applies a rate to is its example, backed by the result that follows from it
    ("3 nights at 120 EUR a night come to 360 EUR.", ["3", "360 EUR"], "", "360 EUR = 3 nights × 120 EUR"),
    ("Three nights at 120 EUR a night come to 360 EUR.", ["Three", "360 EUR"], "", "360 EUR = Three nights × 120 EUR"),
    ("3 Nächte zu je 120 EUR ergeben 360 EUR.", ["3", "360 EUR"], "", "360 EUR = 3 Nächte × 120 EUR"),
    ("400 km at 0.30 EUR per km come to 120 EUR.", ["400", "120 EUR"], "", "120 EUR = 400 km × 0.30 EUR"),
]

#: An IT and working-time policy: periods said in other units, a month of a year, a rate per working day.
IT_POLICY = (
    "Monthly backups are kept for 12 months.",
    "Passwords expire after 180 days.",
    "P4 requests are resolved within 10 business days.",
    "Standard laptops are replaced every 4 years after delivery.",
    "The standard working week is 40 hours, that is 8 hours per working day.",
    "Full-time employees get 30 working days of leave per year.",
    "Admin rights can be requested at most 3 times per calendar month.",
    "Admin-Rechte können höchstens 3-mal pro Kalendermonat beantragt werden.",
    "Each employee may book up to 24 hours per year for training.",
)

CONVERTED = [
    # the same period in another unit needs no words of a computation
    ("So you can go back up to one year.", ["one"], "", "one year = 12 months in years"),
    ("Monthly backups are kept for one year.", ["one"], "", "one year = 12 months in years"),  # no example of the user's
    # a round conversion for a round figure ("ca. alle sechs Monate", "approx. two calendar weeks")
    ("Passwörter laufen nach 180 Tagen ab, d. h. ca. alle sechs Monate.", ["sechs"], "", "sechs Monate = 180 Tagen"),
    ("They are resolved within 10 business days, approx. two calendar weeks.", ["two"], "",
     "two calendar weeks = 10 business days"),
    # a month of a year shifted by years
    ("Yours is due for replacement in March 2026.", ["March 2026"], "My laptop was delivered in March 2022.",
     "March 2026 = March 2022 + 4 years"),
    # a rate per working day: hours into days, days into hours
    ("Your account can hold up to 60 hours, which is 7.5 days.", ["7.5"], "", "7.5 days = 60 hours ÷ 8 hours"),
    ("Your leave, at 8 hours per working day, is 240 hours.", ["240"], "", "240 hours = 8 hours × 30 working days"),
    # a rate per month is twelve times as much per year, and a year's a twelfth per month
    ("That is at most 36 times a year.", ["36"], "", "36 times = 3 times × 12 months"),
    ("Das ist höchstens 3-mal pro Kalendermonat möglich, also max. 36-mal im Jahr.", ["36"], "",
     "36-mal = 3"),
    ("You may book 2 hours a month for training.", ["2"], "", "2 hours = 24 hours ÷ 12 months"),
]


@pytest.mark.parametrize("claim, missing, question, shown", CONVERTED, ids=[c[0][:40] for c in CONVERTED])
def test_a_period_said_in_other_units_is_backed(claim, missing, question, shown):
    found = compute(claim, missing, IT_POLICY, question)
    assert sorted(found.backed) == sorted(missing) and found.wrong is None, found
    assert any(shown in d for d in found.derived), found.derived


@pytest.mark.parametrize("claim, missing, question", [
    ("So you can go back up to two years.", ["two"], ""),  # 12 months are one year
    ("Passwords expire about every four months.", ["four"], ""),  # 180 days are six months
    ("Passwords expire every six months.", ["six"], ""),  # near six months only as a round figure
    ("Yours is due for replacement in March 2027.", ["March 2027"], "My laptop was delivered in March 2022."),
    ("That is at most 48 times a year.", ["48"], ""),  # 3 a month are 36 a year
    ("Admin rights are possible at most 36 times a week.", ["36"], ""),  # a month is no whole number of weeks
])
def test_another_period_is_not_backed(claim, missing, question):
    assert compute(claim, missing, IT_POLICY, question).backed == ()


@pytest.mark.parametrize("claim, missing, question, shown", BACKED, ids=[b[0][:40] for b in BACKED])
def test_a_right_computation_backs_its_number(claim, missing, question, shown):
    found = compute(claim, missing, POLICY, question)
    assert sorted(found.backed) == sorted(missing) and found.wrong is None
    assert any(shown in d for d in found.derived), found.derived


WRONG = [
    ("500 km × 0.30 EUR = 160 EUR.", ["160 EUR"], "", "500 km × 0.30 EUR = 150 EUR"),
    ("Your claim is due 30 days after 10 May, i.e. by 10 June.", ["10 June"], "My trip ended on 10 May.",
     "10 May + 30 days = 9 June"),
    ("That is 30 × 4 ÷ 5 = 26 days.", ["26"], "I work 4 days a week.", "30 × 4 ÷ 5 = 24"),
    ("28 EUR minus 11.20 EUR leaves 16.20 EUR.", ["11.20 EUR", "16.20 EUR"], "", "28 EUR − 11.20 EUR = 16.80 EUR"),
    # right arithmetic past the passage's cap: the amount the claim gives does not hold
    ("You get 500 km × 0.30 EUR = 150 EUR.", ["150 EUR"], "I drove 500 km.", "capped at 130 EUR"),
    ("3 nights at 120 EUR a night come to 400 EUR.", ["3", "400 EUR"], "", "3 nights × 120 EUR = 360 EUR"),
    ("400 km at 0.30 EUR per km come to 150 EUR.", ["400", "150 EUR"], "", "400 km × 0.30 EUR = 120 EUR"),
]


@pytest.mark.parametrize("claim, missing, question, right", WRONG, ids=[w[0][:40] for w in WRONG])
def test_a_wrong_computation_is_told_the_right_value(claim, missing, question, right):
    found = compute(claim, missing, POLICY, question)
    assert found.wrong is not None and right in found.wrong[1], found


NOT_BACKED = [
    # a number a step reaches by chance, from numbers the claim only restates, with no computation said
    ("The supplier delivered 90 of 100 pieces but invoiced all 110.", ["110"],
     "Why is the invoice blocked?", ("The supplier delivered 90 of 100 pieces; 10 pieces are missing.",)),
    # unlike quantities: 30 days less 4 days a week is no computation
    ("With 4 days a week you get 26 days.", ["26"], "I work 4 days a week.", POLICY),
    ("With 3 days a week you get 20 days.", ["3", "20"], "", POLICY),
    ("With breakfast you get 17.80 EUR.", ["17.80 EUR"], "", POLICY),
    ("You get 20 days of leave.", ["20"], "I work 3 days a week.", POLICY),
    # a percentage of days: percentages apply to amounts of money
    ("3 days a week gives 18 days.", ["18"], "", ("Full-time staff get 30 days; 40% may be carried over.",)),
    # a count before a rate backs nothing that does not follow from it
    ("4 nights at 120 EUR a night come to 360 EUR.", ["4", "360 EUR"], "", POLICY),
    ("The team of 4 people at 120 EUR each is booked.", ["4"], "", POLICY),
]


@pytest.mark.parametrize("claim, missing, question, passages", NOT_BACKED, ids=[n[0][:40] for n in NOT_BACKED])
def test_a_number_reached_by_chance_is_not_backed(claim, missing, question, passages):
    found = compute(claim, missing, passages, question)
    assert len(found.backed) < len(missing)


def test_the_rules_and_signals_judges_compute_and_lexical_does_not():
    evidence = Evidence("I drove 500 km. What do I get?", (Passage("TR-3", POLICY[0]),))
    for name in ("rules", "signals"):
        judge = get_judge(name)
        right = judge.judge("500 km × 0.30 EUR = 150 EUR, capped at 130 EUR.", evidence)
        assert right.label == "supported" and "computed: 150 EUR = 500 km × 0.30 EUR" in right.reason
        wrong = judge.judge("500 km × 0.30 EUR = 160 EUR.", evidence)
        assert wrong.label == "contradicted"
        assert wrong.reason.startswith("computed wrong: the claim says 160 EUR where 500 km × 0.30 EUR = 150 EUR")
    assert get_judge("lexical").judge("500 km × 0.30 EUR = 150 EUR, capped at 130 EUR.", evidence).label == \
        "contradicted"


def test_a_claim_with_many_numbers_reads_a_bounded_number_of_them(monkeypatch):
    calls = []
    real = arithmetic._one_steps
    monkeypatch.setattr(arithmetic, "_one_steps", lambda a, b: calls.append(1) or real(a, b))
    claim = "Totals: " + ", ".join(f"{k} EUR" for k in range(101, 161)) + " and 9999 EUR in all."
    passage = " ".join(f"Item {k} costs {k + 0.5} EUR." for k in range(300))
    found = compute(claim, ["9999 EUR"], (passage,), "")
    assert found.backed == ()
    # one target: every ordered pair of at most MAX_OPERANDS operands, searched once and once again
    # with only the operations the claim names
    assert 0 < len(calls) <= 2 * arithmetic.MAX_OPERANDS ** 2


def test_dates_without_a_year_are_dates():
    found = [(m.value, m.kind) for m in mentions("Due by 9 June, am 31. März, le 1er mars, on May 10th.")]
    assert found == [("--06-09", "date"), ("--03-31", "date"), ("--03-01", "date"), ("--05-10", "date")]
    # "may" is a month only as "May"; an impossible day is no date
    assert [m.kind for m in mentions("Up to 5 may be carried over; am 30. Februar.")] == ["number", "number"]
    # a date of a full year gives its day and month to a claim that names no year
    judge = get_judge("rules")
    evidence = Evidence("When?", (Passage("P", "Unused leave lapses on 31 March 2027."),))
    assert judge.judge("Unused leave lapses on 31 March.", evidence).label == "supported"


_ALLOWANCE = Passage("HR-7", "The daily allowance is 28 EUR. Lunch provided reduces it by 11.20 EUR.")
_PAUSCHALE = Passage("HR-7", "Die Tagespauschale beträgt 28 EUR. Ein gestelltes Mittagessen kürzt sie um 11,20 EUR.")


@pytest.mark.parametrize("claim, passage, signals", [
    ("The allowance of 28 EUR less 11.20 EUR makes 16.80 EUR.", _ALLOWANCE, "supported"),
    ("The allowance of 28 EUR less 11.20 EUR is 16.80 EUR.", _ALLOWANCE, "supported"),
    # "Pauschale" is the last part of the passage's "Tagespauschale"
    ("Die Pauschale von 28 EUR abzüglich 11,20 EUR macht 16,80 EUR.", _PAUSCHALE, "supported"),
    # "Zuschuss" is not the passage's word: unsupported, but never contradicted
    ("Der Zuschuss von 28 EUR abzüglich 11,20 EUR macht 16,80 EUR.", _PAUSCHALE, "unsupported"),
])
def test_a_computation_written_with_less_or_makes_is_no_contradiction(claim, passage, signals):
    evidence = Evidence("How much is left?", (passage,))
    assert get_judge("signals").judge(claim, evidence).label == signals
    verdict = get_judge("rules").judge(claim, evidence)
    assert verdict.label != "contradicted" and "computed: 16" in verdict.reason, verdict.reason


def test_the_right_value_is_written_with_the_claims_decimal_comma():
    evidence = Evidence("Wie viel?", (_PAUSCHALE,))
    verdict = get_judge("rules").judge("Die Tagespauschale von 28 EUR abzüglich 11,20 EUR ergibt 16,20 EUR.", evidence)
    assert verdict.label == "contradicted" and verdict.reason.endswith("= 16,80 EUR"), verdict.reason


def test_a_claim_whose_period_is_converted_is_judged_on_its_other_words():
    """The unit and the round figure's words of a converted period are the number's, not words the
    passage must write ("one year" for "12 months", "approx. two calendar weeks")."""
    evidence = Evidence("How far back can I restore a file?", (Passage("IT-9", IT_POLICY[0]),))
    judge = get_judge("signals")
    kept = judge.judge("Monthly backups are kept for one year.", evidence)
    assert kept.label == "supported" and "computed: one year = 12 months in years" in kept.reason, kept.reason
    assert judge.judge("Monthly backups are kept for two years.", evidence).label == "contradicted"


@pytest.mark.parametrize("name", ["signals", "rules"])
def test_the_computation_a_claim_writes_out_decides_not_a_step_of_fewer_of_its_numbers(name):
    passage = Passage("PHB-4.1", "Vollzeitbeschäftigte haben Anspruch auf 30 Arbeitstage Urlaub. Teilzeitbeschäftigte "
                                 "erhalten den Urlaub anteilig (30 × Arbeitstage pro Woche ÷ 5).")
    evidence = Evidence("Wie viele Urlaubstage habe ich bei einer 2-Tage-Woche?", (passage,))
    wrong = get_judge(name).judge("Ihr Anspruch beträgt 30 × 2 ÷ 5 = 10 Tage.", evidence)  # not 2 × 5
    assert wrong.label == "contradicted" and wrong.reason.endswith("30 × 2 ÷ 5 = 12"), wrong.reason
    right = get_judge(name).judge("Ihr Anspruch beträgt 30 × 2 ÷ 5 = 12 Tage.", evidence)
    assert right.label != "contradicted" and "computed: 12 Tage = 30 × 2" in right.reason, right.reason


_SERVICE_HOURS = ("The resolution target of a P2 ticket is 8 business hours; the first response to a P3 ticket is due "
                  "within 4 business hours. Business hours are Monday to Friday, 08:00 to 18:00.")


@pytest.mark.parametrize("claim, question, label, computed", [
    # hours counted within the service hours, past their close to the next opening
    ("So the resolution target is Monday 14:00.", "I opened a P2 ticket on Friday at 16:00.", "supported",
     "14:00 = 16:00 + 8 business hours within 08:00–18:00"),
    ("The first response is due by Monday 11:00.", "I opened a P3 ticket on Friday at 17:00.", "supported",
     "11:00 = 17:00 + 4 business hours within 08:00–18:00"),
    ("The first response is due by 13:00 on Monday.", "I opened a P3 ticket on Monday at 09:00.", "supported",
     "13:00 = 09:00 + 4 business hours"),
    ("The first response is due within 4 business hours, i.e. by Monday 11:00.", "I opened a P3 ticket on Friday "
     "at 17:00.", "supported", "11:00 = 17:00 + 4 business hours within 08:00–18:00"),
    # a time the hours do not reach, or counted through the night
    ("So the resolution target is Monday 15:00.", "I opened a P2 ticket on Friday at 16:00.", "contradicted", None),
    ("So the resolution target is Saturday 00:00.", "I opened a P2 ticket on Friday at 16:00.", "contradicted", None),
])
def test_a_deadline_in_service_hours_runs_on_at_the_next_opening(claim, question, label, computed):
    verdict = get_judge("signals").judge(claim, Evidence(question, (Passage("IT-SLA", _SERVICE_HOURS),)))
    assert verdict.label == label, verdict.reason
    assert computed is None or f"computed: {computed}" in verdict.reason, verdict.reason


@pytest.mark.parametrize("claim, passage", [
    ("On Friday, 16:00 to 18:00 counts as 2 business hours.",
     "P2 tickets are resolved within 8 business hours. Business hours are Monday to Friday, 08:00 to 18:00."),
    ("Am Freitag zählen 16:00 bis 18:00 als 2 Servicestunden.",
     "P2-Tickets werden innerhalb von 8 Servicestunden gelöst. Servicestunden sind Montag bis Freitag "
     "08:00 bis 18:00."),
])
def test_what_of_a_span_is_counted_is_the_computation_not_a_word_the_passage_must_write(claim, passage):
    verdict = get_judge("signals").judge(claim, Evidence("Friday 16:00?", (Passage("IT-SLA", passage),)))
    assert verdict.label == "supported" and "computed: 2" in verdict.reason, verdict.reason
    assert "count" not in verdict.reason.split("computed")[0] and "zähl" not in verdict.reason, verdict.reason


_ALLOWANCES = Passage("HR-21", "Employees receive a meal allowance of 28 EUR for each full day away from home. "
                               "Arrival and departure days are paid at 14 EUR.")


@pytest.mark.parametrize("name", ["signals", "rules"])
def test_a_total_adds_up_the_list_its_answer_writes(name):
    items = "For a trip from Monday to Wednesday:\n1. Monday (arrival day): 14 EUR\n2. Tuesday (full day): 28 EUR\n" \
            "3. Wednesday (departure day): 14 EUR\n\n"
    judge = get_judge(name)
    right = judge.judge("In total you receive 56 EUR.", Evidence("How much?", (_ALLOWANCES,), items + "In total you receive 56 EUR."))
    assert right.label != "contradicted" and "computed: 56 EUR = 14 EUR + 28 EUR + 14 EUR" in right.reason, right.reason
    wrong = judge.judge("In total you receive 60 EUR.", Evidence("How much?", (_ALLOWANCES,), items + "In total you receive 60 EUR."))
    assert wrong.label == "contradicted" and wrong.reason.startswith(
        "computed wrong: the claim says 60 EUR where 14 EUR + 28 EUR + 14 EUR = 56 EUR"), wrong.reason
    # without the answer's list, nothing adds up to the total
    alone = judge.judge("In total you receive 56 EUR.", Evidence("How much?", (_ALLOWANCES,)))
    assert alone.label == "contradicted" and "computed" not in alone.reason
    # a German list, with a subtotal as its item's last amount
    german = "- Dienstag (Anreisetag): 14 EUR\n- Mittwoch und Donnerstag: je 28 EUR, zusammen 56 EUR\n" \
             "- Freitag (Abreisetag): 14 EUR\n\nInsgesamt erhalten Sie 84 EUR."
    assert "84 EUR = 14 EUR + 56 EUR + 14 EUR" in judge.judge("Insgesamt erhalten Sie 84 EUR.",
                                                             Evidence("Wie viel?", (_ALLOWANCES,), german)).reason


_MEALS = Passage("TR-4", "The meal allowance is 28 EUR for each full day away. Meals provided by the employer "
                         "reduce it: 5.60 EUR for a breakfast and 11.20 EUR each for lunch or dinner.")


@pytest.mark.parametrize("name", ["signals", "rules"])
@pytest.mark.parametrize("items, claim, expression", [
    ("- Full day: 28 EUR\n- Lunch provided: minus 11.20 EUR\n", "So you receive 16.80 EUR.", "28 EUR − 11.20 EUR"),
    ("- Full day: 28 EUR\n- Lunch: 11.20 EUR deducted\n", "So you receive 16.80 EUR.", "28 EUR − 11.20 EUR"),
    ("- Full day: 28 EUR\n- Lunch: -11.20 EUR\n", "So you receive 16.80 EUR.", "28 EUR − 11.20 EUR"),
    # a deduction inside an item counts against that item's amount, not the list's
    ("- Monday (arrival): 14 EUR\n- Tuesday: 28 EUR, minus 11.20 EUR for lunch\n- Wednesday (departure): 14 EUR\n",
     "So you receive 44.80 EUR in total.", "14 EUR + 28 EUR − 11.20 EUR + 14 EUR"),
    ("- Full day: 28 EUR\n- Lunch: −11.20 EUR\n- Breakfast: −5.60 EUR\n", "In total you receive 11.20 EUR.", None),
    ("- Voller Tag: 28 EUR\n- Mittagessen gestellt: abzüglich 11,20 EUR\n", "Sie erhalten also 16,80 EUR.",
     "28 EUR − 11,20 EUR"),
    ("- Arrival day: 14 EUR\n- Full day: 28 EUR\n- Departure day: 14 EUR\n", "So you receive 56 EUR.",
     "14 EUR + 28 EUR + 14 EUR"),
])
def test_a_total_or_a_consequence_under_a_list_takes_off_what_its_items_deduct(name, items, claim, expression):
    verdict = get_judge(name).judge(claim, Evidence("How much do I get?", (_MEALS,), "Your allowance:\n" + items + claim))
    assert verdict.label != "contradicted", verdict.reason
    if expression is not None:
        assert f"= {expression}" in verdict.reason, verdict.reason
        if name == "signals":  # "receive", "erhalten": what the user gets of the amount, no word a passage must write
            assert verdict.label == "supported", verdict.reason


@pytest.mark.parametrize("name", ["signals", "rules"])
def test_a_total_under_a_list_with_deductions_computed_wrong_is_told_the_right_sum(name):
    items = "Your allowance:\n- Full day: 28 EUR\n- Lunch: −11.20 EUR\n- Breakfast: −5.60 EUR\n"
    wrong = get_judge(name).judge("In total you receive 12.20 EUR.",
                                  Evidence("How much?", (_MEALS,), items + "In total you receive 12.20 EUR."))
    assert wrong.label == "contradicted" and wrong.reason.startswith(
        "computed wrong: the claim says 12.20 EUR where 28 EUR − 11.20 EUR − 5.60 EUR = 11.20 EUR"), wrong.reason
    # a consequence that the list does not lead to is no number of the evidence, not told a sum: it may
    # state another figure than the list's total
    other = get_judge(name).judge("So you receive 17.80 EUR.",
                                  Evidence("How much?", (_MEALS,), items + "So you receive 17.80 EUR."))
    assert other.label == "contradicted" and "computed wrong" not in other.reason, other.reason


def test_a_german_count_reads_its_noun_past_its_attributes():
    passages = ("Bis zu fünf nicht genommene Urlaubstage können in das Folgejahr übertragen werden.",)
    found = compute("Die übrigen 2 Tage verfallen am 31. Dezember.", ["2"], passages, "Ich habe noch 7 Tage Resturlaub.")
    assert found.backed == ("2",) and found.derived == ("2 Tage = 7 Tage − fünf Urlaubstage",), found
    # a capitalised word after lower-case ones is a German noun only if it counts time
    assert compute("Die übrigen 2 Tage verfallen.", ["2"], ("Bis zu fünf nicht genommene Anträge sind offen.",),
                   "Ich habe noch 7 Tage Resturlaub.").backed == ()


@pytest.mark.parametrize("claim, missing, backed", [
    ("Mittwoch und Donnerstag (volle Tage): je 28 EUR, zusammen 56 EUR", ["56 EUR"], True),
    ("Monday, Tuesday and Wednesday: 28 EUR each, 84 EUR in total.", ["84 EUR"], True),
    ("Mittwoch und Donnerstag: je 28 EUR, zusammen 84 EUR", ["84 EUR"], False),  # two days, not three
    ("Monday and Tuesday: 28 EUR, 56 EUR in total.", ["56 EUR"], False),  # no rate for each
])
def test_things_named_one_by_one_count_for_a_rate_for_each(claim, missing, backed):
    passages = ("The daily allowance is 28 EUR for full days and 14 EUR for the days of arrival and departure.",)
    found = compute(claim, missing, passages)
    assert bool(found.backed) is backed, found
    if backed:
        assert "28 EUR × " in found.derived[0] and "und" in found.derived[0] or "and" in found.derived[0], found.derived


def test_the_days_a_count_is_made_of_are_no_words_the_passage_must_write():
    evidence = Evidence("Ich reise von Dienstag bis Freitag. Was bekomme ich?",
                        (Passage("PHB-7.2", "Die Verpflegungspauschale beträgt 28 EUR für volle Tage."),))
    verdict = get_judge("signals").judge("Mittwoch und Donnerstag (volle Tage): je 28 EUR, zusammen 56 EUR", evidence)
    assert verdict.label == "supported" and "56 EUR = 28 EUR × 2 (Mittwoch und Donnerstag)" in verdict.reason, \
        verdict.reason


LAPTOPS = ("Standard-Notebooks werden alle vier Jahre ausgetauscht, Entwickler-Notebooks nach drei Jahren.",)
DELIVERED = "Mein Entwickler-Notebook wurde am 15. Januar 2024 geliefert. Wann wird es ausgetauscht?"


def test_a_date_moves_by_the_period_the_claim_states_not_another_of_the_passages():
    right = compute("Entwickler-Notebooks werden nach drei Jahren ausgetauscht, Ihr Gerät also am 15. Januar 2027.",
                    ["15. Januar 2027"], LAPTOPS, DELIVERED)
    assert right.derived == ("15. Januar 2027 = 15. Januar 2024 + drei Jahren",) and right.wrong is None
    # four years (the passages' other period) reach 2028, but the claim says three
    wrong = compute("Entwickler-Notebooks werden nach drei Jahren ausgetauscht, Ihr Gerät also am 15. Januar 2028.",
                    ["15. Januar 2028"], LAPTOPS, DELIVERED)
    assert wrong.backed == () and wrong.wrong == ("15. Januar 2028", "15. Januar 2024 + drei Jahren = 15 January 2027")
    # words of a computation ("d. h.") do not let the claim's own date be moved too
    said = compute("Entwickler-Notebooks werden nach drei Jahren ausgetauscht, d. h. Ihr Gerät am 15. Januar 2028.",
                   ["15. Januar 2028"], LAPTOPS, DELIVERED)
    assert said.wrong == ("15. Januar 2028", "15. Januar 2024 + drei Jahren = 15 January 2027"), said
    verdict = get_judge("signals").judge(
        "Entwickler-Notebooks werden nach drei Jahren ausgetauscht, Ihr Gerät also am 15. Januar 2028.",
        Evidence(DELIVERED, (Passage("IT-HW-07-DE", LAPTOPS[0]),)))
    assert verdict.label == "contradicted" and "computed wrong" in verdict.reason, verdict.reason


CARRY_OVER = ("Carried-over days must be taken by 31 March of the following year; any days not taken by then are "
              "forfeited.",)


@pytest.mark.parametrize("claim, date, backed", [
    ("Any carried-over days still open on 1 April are forfeited.", "1 April", "1 April = the day after 31 March"),
    ("From 1 April they are forfeited.", "1 April", "1 April = the day after 31 March"),
    ("Ab dem 1. April verfallen sie.", "1. April", "1. April = the day after 31 March"),
    ("Take them before 1 April.", "1 April", "1 April = the day after 31 March"),
    # the boundary drawn one day off is no restatement
    ("Carried-over days must be taken by 1 April.", "1 April", None),
    ("After 1 April they are forfeited.", "1 April", None),
    ("From 2 April they are forfeited.", "2 April", None),
])
def test_a_date_on_the_other_side_of_a_passages_deadline_draws_the_same_boundary(claim, date, backed):
    found = compute(claim, [date], CARRY_OVER)
    assert found.derived == ((backed,) if backed else ()), found


def test_a_passages_date_that_a_thing_happens_on_is_no_boundary():
    # "lapse on 31 December" may mean at its start or its end: no day before or after is read from it
    assert compute("They can be used until 30 December.", ["30 December"],
                   ("Unused days lapse on 31 December.",)).derived == ()
    assert compute("They can be used until 30 December.", ["30 December"],
                   ("Unused days can be used until 31 December.",)).derived == ()
    # the same day, written with its year in the claim, is no day after it
    assert compute("It aired on March 4, 2019.", ["March 4, 2019"], ("It airs from March 4th.",)).derived == ()
    verdict = get_judge("signals").judge("Any carried-over days still open on 1 April are forfeited.",
                                         Evidence("", (Passage("HR-12", CARRY_OVER[0]),)))
    assert verdict.label == "supported" and "computed: 1 April = the day after 31 March" in verdict.reason, \
        verdict.reason


_DE_SERVICE = "P2-Tickets werden innerhalb von 8 Servicestunden gelöst. Servicestunden sind werktags 08:00 bis 18:00 Uhr."


def test_a_claim_of_a_computation_and_the_users_own_day_has_nothing_else_to_check():
    judge = get_judge("signals")
    claim = "Am Montag zählen noch 2,5 Stunden bis 18:00 Uhr."
    own = judge.judge(claim, Evidence("Ich habe am Montag um 15:30 Uhr ein P2-Ticket eröffnet.",
                                      (Passage("KB-1", _DE_SERVICE),)))
    assert own.label == "supported" and "computed: 2,5 Stunden = 18:00 Uhr − 15:30 Uhr" in own.reason, own.reason
    assert own.reason.startswith("no content words to check"), own.reason
    # a day the user did not name is a word the passages must back
    other = judge.judge("Am Sonntag zählen noch 2,5 Stunden bis 18:00 Uhr.",
                        Evidence("Ich habe am Montag um 15:30 Uhr ein P2-Ticket eröffnet.",
                                 (Passage("KB-1", _DE_SERVICE),)))
    assert not other.reason.startswith("no content words to check"), other.reason


PRO_RATA = ("Full-time employees are entitled to 30 working days of paid annual leave per calendar year. Employees who "
            "join during the year receive one twelfth of the annual entitlement for each full month of employment.",)


def test_a_span_of_months_counts_both_ends_and_an_expression_written_out_is_read_as_written():
    right = compute("Von April bis Dezember sind das 9 Monate, also 9/12 × 30 = 22,5 Tage.", ["9", "22,5"], PRO_RATA,
                    "Ich habe am 1. April angefangen.")
    assert right.wrong is None and "9 Monate = April bis Dezember" in right.derived, right
    assert set(right.backed) == {"9", "22,5"} and "April bis Dezember" in right.written, right
    assert compute("D'avril à décembre, cela fait 9 mois.", ["9"], PRO_RATA).derived == ("9 mois = avril à décembre",)
    assert compute("From April to December is 9 months.", ["9"], PRO_RATA).derived == ("9 months = April to December",)
    # a span counted wrong is not backed by it, and is told the right count
    wrong = compute("From April to December is 8 months.", ["8"], PRO_RATA)
    assert wrong.backed == () and wrong.wrong == ("8 months", "April to December = 9"), wrong
    assert compute("Von April bis Dezember sind das 8 Monate.", ["8"], PRO_RATA).wrong == (
        "8 Monate", "April bis Dezember = 9")
    # a number that counts no months is no count of the span ("9/12" is a share)
    assert compute("Von April bis Dezember, also 9/12 × 30 = 22,5 Tage.", ["9", "22,5"], PRO_RATA).wrong is None
    # the expression as written: 9 ÷ 12 × 30 is 22.5, told where the claim's result differs
    wrong = compute("From April to December is 9 months, so 9/12 × 30 = 24 days.", ["9", "24"], PRO_RATA)
    assert wrong.wrong == ("24 days", "9/12 × 30 = 22.50"), wrong
    # × and ÷ before + and −
    assert compute("So 2 + 3 × 4 = 14 days.", ["2", "14"], PRO_RATA, "I have 2 days and 3 weeks of 4 days.").wrong is None


def test_an_expression_whose_first_number_is_not_read_gives_no_value():
    # the rules judge reads a number said twice once: "9/12 × 30" would be "12 × 30" without it
    from groundlab.core.arithmetic import _expression
    from groundlab.core.numbers import mentions
    from groundlab.core.quantities import quantities
    text = "Von April bis Dezember sind das 9 Monate, also 9/12 × 30 = 22,5 Tage."
    found = quantities(mentions(text), text, False)
    target = found[-1]
    assert _expression(text, target, found[:-1]) is not None
    assert _expression(text, target, [q for q in found[:-1] if q.start != 47]) is None
    verdict = get_judge("rules").judge(text, Evidence("Ich habe am 1. April angefangen.",
                                                      (Passage("HR-11", PRO_RATA[0]),)))
    assert "360" not in verdict.reason, verdict.reason


@pytest.mark.parametrize("text", ["Das entspricht 80 % Ihrer Arbeitszeit.", "That corresponds to 80 % of your hours.",
                                  "Cela équivaut à 80 % de votre temps."])
def test_words_that_say_a_result_equals_another_are_the_computations(text):
    from groundlab.core.arithmetic import without_computation
    left = without_computation(text, ["80 %"]).lower()
    assert not any(w in left for w in ("entspricht", "corresponds", "équivaut")), left


def test_a_difference_of_the_users_number_and_the_claims_own_result_needs_no_words_of_a_computation():
    claim = "For 3 nights you'd be reimbursed up to 360 EUR, so 90 EUR of the 450 EUR bill would not be covered."
    found = compute(claim, ["360 EUR", "90 EUR"], POLICY, "My hotel bill for 3 nights is 450 EUR.")
    assert "90 EUR = 450 EUR − 360 EUR" in found.derived and found.wrong is None, found
    # a passage's number is no user's: its difference with the claim's result is still no computation
    chance = compute("For 3 nights you'd be reimbursed up to 360 EUR, and 240 EUR more for the hotel.",
                     ["360 EUR", "240 EUR"], POLICY, "I stay 3 nights.")
    assert not any(d.startswith("240 EUR") for d in chance.derived), chance


_PART_TIME_ANSWER = """Ihr Urlaub wird anteilig berechnet [PHB-4.1].

1. Formel: 30 × Arbeitstage pro Woche ÷ 5
2. Bei 4 Tagen: 30 × 4 ÷ 5 = 24 Tage
3. Das sind 80 % des Vollzeitanspruchs"""
_FULL_TIME = "Vollzeitbeschäftigte mit einer Fünftagewoche haben Anspruch auf 30 Arbeitstage Urlaub je Kalenderjahr."


@pytest.mark.parametrize("judge", ["signals", "rules"])
def test_a_claim_that_states_what_the_sentence_before_gives_computes_from_its_numbers(judge):
    evidence = Evidence("Wie viele Urlaubstage habe ich bei 4 Arbeitstagen pro Woche?",
                        (Passage("PHB-4.1", _FULL_TIME),), _PART_TIME_ANSWER)
    right = get_judge(judge).judge("Das sind 80 % des Vollzeitanspruchs", evidence)
    assert "computed: 80 % = 24 Tage ÷ 30 Arbeitstage" in right.reason, right.reason
    # the sentence before is read only for a claim that says it states what it gives
    other = get_judge(judge).judge("Teilzeitkräfte erhalten 80 % des Vollzeitanspruchs", evidence)
    assert "computed" not in other.reason, other.reason


@pytest.mark.parametrize("answer", [
    "Bei 4 Tagen pro Woche: 30 × 4 ÷ 5 = 24 Tage [PHB-4.1]. **Das sind 80 %** des Vollzeitanspruchs.",
    "- Bei 4 Tagen: 30 × 4 ÷ 5 = 24 Tage (Quelle: PHB-4.1)\n- Das sind 80 % des Vollzeitanspruchs.",
    "Ihr Anspruch: 30 × 4 ÷ 5 = 24 Tage.[1] Das sind 80 % des Vollzeitanspruchs.[1]",
])
def test_the_sentence_before_is_found_however_the_answer_marks_it_up(answer):
    evidence = Evidence("Wie viele Urlaubstage habe ich bei 4 Arbeitstagen pro Woche?",
                        (Passage("PHB-4.1", _FULL_TIME),), answer)
    verdict = get_judge("signals").judge("Das sind 80 % des Vollzeitanspruchs.", evidence)
    assert "computed: 80 % = 24 Tage ÷ 30 Arbeitstage" in verdict.reason, verdict.reason


def test_a_date_given_as_an_example_is_told_no_right_date_from_a_period_the_claim_does_not_state():
    # "up to 5 days" of leave moves no date: "31 March + 5 days = 5 April" is no right value of "30 March"
    carry = ("Up to 5 days of unused annual leave can be carried over into the next calendar year. Carried-over days "
             "must be taken by 31 March of the following year.",)
    example = compute("They must be taken no later than 31 March of the following year, e.g. on 30 March.",
                      ["30 March"], carry)
    assert example.wrong is None, example
    # the claim's own period still tells the date it should give
    own = compute("Nach drei Jahren, also am 15. Januar 2028, wird das Gerät ersetzt.", ["15. Januar 2028"],
                  ("Geräte werden vier Jahre nach der Lieferung ersetzt.",), "Mein Gerät kam am 15. Januar 2024.")
    assert own.wrong is not None and "15. Januar 2024 + drei Jahren" in own.wrong[1], own


_HOTEL_BILL = "For 3 nights you'd be paid up to 360 EUR, so 90 EUR of the 450 EUR bill would not be covered."


def test_a_computed_claim_is_supported_on_half_its_other_words_and_no_missing_name():
    evidence = Evidence("My hotel bill for 3 nights is 450 EUR.", tuple(Passage(f"P{i}", t) for i, t in enumerate(POLICY)))
    verdict = get_judge("signals").judge(_HOTEL_BILL, evidence)
    assert verdict.label == "supported" and verdict.score == 1.0, verdict.reason
    assert verdict.reason.startswith("the numbers follow from the passages' and 2/4 content words are in the evidence")
    assert "computed: 360 EUR = 120 EUR × 3 nights; 90 EUR = 450 EUR − 360 EUR" in verdict.reason
    # the explained and the unexplained verdicts agree
    assert get_judge("signals").judge_batch([(_HOTEL_BILL, evidence)], explain=False)[0].label == "supported"
    # a computation backs its numbers, not a step the passages never name, nor a name they lack
    for claim in ("30 days after 10 May is 9 June, so your manager must countersign the form by then.",
                  "For 400 km you get 120 EUR from the Frankfurt office via SAP Concur."):
        other = get_judge("signals").judge(claim, Evidence("My trip ended on 10 May. I drove 400 km.", evidence.passages))
        assert other.label == "unsupported", other.reason


def test_calibration_reads_a_computed_claim_as_a_rule_decides_it():
    from groundlab.judges.calibration import LabeledClaim, measure, scores
    from groundlab.judges.signals import _shipped

    evidence = Evidence("My hotel bill for 3 nights is 450 EUR.", tuple(Passage(f"P{i}", t) for i, t in enumerate(POLICY)))
    measured = measure([LabeledClaim("c1", 0, _HOTEL_BILL, evidence, "supported", "c1")])
    assert list(measured.routes) == ["computed"]
    config = _shipped()
    import numpy as np
    assert scores(np.array([config.intercept, *config.weights]), measured).tolist() == [1.0]


_LEAVE_DE = ("Vollzeitbeschäftigte mit einer Fünftagewoche haben Anspruch auf 30 Urlaubstage im Kalenderjahr. Bis zu 5 nicht "
             "genommene Urlaubstage können ins Folgejahr übertragen werden.")


@pytest.mark.parametrize("judge", ["signals", "rules"])
def test_an_expression_that_writes_a_number_twice_is_read_whole(judge):
    # "4" stands twice ("Bei 4 Tagen", "30 × 4 ÷ 5"): the expression is read with both
    evidence = Evidence("Ich arbeite 4 Tage pro Woche. Wie viel Urlaub habe ich?", (Passage("PHB-4", _LEAVE_DE),))
    verdict = get_judge(judge).judge("Bei 4 Tagen pro Woche haben Sie 30 × 4 ÷ 5 = 24 Urlaubstage.", evidence)
    assert "computed: 24 Urlaubstage = 30 × 4 ÷ 5" in verdict.reason, verdict.reason
    if judge == "signals":  # the example's days are the user's: no word the passage must write
        assert verdict.label == "supported", verdict.reason
    wrong = get_judge(judge).judge("Bei 4 Tagen pro Woche haben Sie 30 × 4 ÷ 5 = 26 Urlaubstage.", evidence)
    assert wrong.label == "contradicted" and "30 × 4 ÷ 5 = 24" in wrong.reason, wrong.reason


def test_a_period_not_marked_round_converts_exactly():
    passages = ("Full-time employees get 30 days of annual leave. Leave requests must be submitted at least 2 weeks "
                "in advance.",)
    assert not compute("You must request leave at least 4 weeks in advance.", ["4"], passages).backed
    assert compute("You must request leave about 4 weeks in advance.", ["4"], passages).backed == ("4",)
    assert compute("You must request leave at least 14 days in advance.", ["14"], passages).backed == ("14",)


def test_a_time_of_day_a_day_or_more_later_is_no_computation():
    from groundlab.core.steps import _one_steps

    ten = Quantity(600.0, "time", "", "10:00", "10:00", False)
    assert not _one_steps(ten, Quantity(48.0, "hour", "", "48", "48 hours", False))
    assert [s.value for s in _one_steps(ten, Quantity(4.0, "hour", "", "4", "4 hours", False))] == [840.0, 360.0]


_MEALS = Passage("TR-4", "Meal allowance is 28 EUR for each full calendar day away. Meals provided by the employer reduce "
                         "the allowance: 5.60 EUR for a breakfast and 11.20 EUR each for lunch or dinner.")
_MEALS_DE = Passage("PHB-7", "Die Verpflegungspauschale beträgt 28 EUR für jeden vollen Kalendertag. Gestellte Mahlzeiten "
                             "kürzen die Pauschale um 5,60 EUR für ein Frühstück und um je 11,20 EUR für ein Abendessen.")


@pytest.mark.parametrize("judge", ["signals", "rules"])
@pytest.mark.parametrize("passage, answer, claim, right", [
    (_MEALS, "Lunch was provided, so 11.20 EUR is deducted from the 28 EUR. So you receive 16.80 EUR for that day.",
     "So you receive 16.80 EUR for that day.", True),
    (_MEALS, "Lunch was provided, so 11.20 EUR is deducted from the 28 EUR. So you receive 17.80 EUR for that day.",
     "So you receive 17.80 EUR for that day.", False),
    (_MEALS_DE, "Für zwei volle Tage erhalten Sie 56 EUR; für das Abendessen werden 11,20 EUR abgezogen. Sie erhalten "
                "also 44,80 EUR.", "Sie erhalten also 44,80 EUR.", True),
    (_MEALS, "Lunch was provided, so 11.20 EUR is deducted from the 28 EUR. You therefore get 16.80 EUR.",
     "You therefore get 16.80 EUR.", True),
])
def test_a_claim_that_draws_a_consequence_computes_from_the_sentence_before(judge, passage, answer, claim, right):
    verdict = get_judge(judge).judge(claim, Evidence("What do I get for a full day with lunch?", (passage,), answer))
    if right:
        assert verdict.label != "contradicted" and "computed: " in verdict.reason, verdict.reason
    else:
        assert verdict.label == "contradicted", verdict.reason


@pytest.mark.parametrize("text, says", [
    ("So you receive 16.80 EUR.", True), ("You therefore get 16.80 EUR.", True), ("Sie erhalten also 44,80 EUR.", True),
    ("Vous recevez donc 44,80 EUR.", True), ("So that you receive 16.80 EUR, file by Friday.", False),
    ("You receive 16.80 EUR.", False), ("Lunch reduces it by 11.20 EUR, and so on for 3 days.", False),
])
def test_what_opens_a_consequence(text, says):
    assert arithmetic.says_earlier(text) is says


_LAPTOPS = ("Standard laptops are replaced every 4 years after delivery; developer laptops every 3 years.",)


@pytest.mark.parametrize("judge", ["signals", "rules"])
def test_a_consequence_moves_a_date_by_the_period_the_sentence_before_states(judge):
    # the answer says 3 years (a developer's laptop): 4 years, the passage's period for other laptops, backs nothing
    answer = "Developer laptops are replaced every 3 years. So your replacement is due in June 2027."
    evidence = Evidence("I'm a developer and my laptop is from June 2023. When do I get a new one?",
                        (Passage("IT-HW-7", _LAPTOPS[0]),), answer)
    wrong = get_judge(judge).judge("So your replacement is due in June 2027.", evidence)
    assert wrong.label == "contradicted" and "June 2023 + 3 years = June 2026" in wrong.reason, wrong.reason
    right = get_judge(judge).judge("So your replacement is due in June 2026.", Evidence(
        evidence.question, evidence.passages, answer.replace("2027", "2026")))
    assert right.label != "contradicted" and "computed: June 2026 = June 2023 + 3 years" in right.reason, right.reason


@pytest.mark.parametrize("claim, passage, label", [
    ("For a departure on 20 May, leave must therefore be requested by 5 May.",
     "Leave must be requested at least 15 days in advance in the HR portal.", "supported"),
    ("Pour un départ le 20 mai, il faut donc faire la demande avant le 5 mai.",
     "Les congés doivent être demandés au moins 15 jours à l'avance dans le portail RH.", "supported"),
    ("For a departure on 20 May, leave must therefore be requested by 10 May.",
     "Leave must be requested at least 15 days in advance in the HR portal.", "contradicted"),
])
def test_a_date_the_users_case_falls_on_is_an_example_the_claim_computes_from(claim, passage, label):
    verdict = get_judge("signals").judge(claim, Evidence("When must I apply?", (Passage("HR-1", passage),)))
    assert verdict.label == label, verdict.reason


def test_a_date_is_no_repeat_of_an_example_date():
    # every date reads as the value 0: the example "20 May" is no number the claim writes twice as "5 May"
    found = compute("For a departure on 20 May, you must apply on 5 May.", ["20 May", "5 May"],
                    ["Leave must be requested at least 15 days in advance."])
    assert found.derived == ("5 May = 20 May − 15 days",), found


def test_a_computed_claims_words_the_question_says_are_the_users_case():
    passage = "The mileage allowance is 0.30 EUR per km. Passengers who are also employees on the same trip add " \
              "0.02 EUR per km each."
    claim = "You get 0.30 EUR per km plus 0.02 EUR per km for your colleague, so 0.32 EUR × 200 km = 64 EUR."
    verdict = get_judge("signals").judge(claim, Evidence("I drive 200 km with a colleague.",
                                                         (Passage("TR-MI-1", passage),)))
    assert verdict.label == "supported" and "64 EUR = 0.32 EUR × 200 km" in verdict.reason, verdict.reason
    # a word neither the passages nor the question say still counts against it
    other = get_judge("signals").judge(claim.replace("colleague", "dog"), Evidence("I drive 200 km.",
                                                                                  (Passage("TR-MI-1", passage),)))
    assert other.label != "supported", other.reason


_PRO_RATA = Passage("HR-LV-1", "Full-time employees are entitled to 30 days of paid annual leave per calendar year. "
                               "Part-time employees receive leave pro rata to their working days per week.")


@pytest.mark.parametrize("name", ["signals", "rules"])
def test_a_full_time_week_is_five_days_a_reader_knows(name):
    judge = get_judge(name)
    right = judge.judge("With 4 working days a week that is 30 × 4 / 5 = 24 days per year.",
                        Evidence("I work 4 days a week.", (_PRO_RATA,)))
    assert right.label != "contradicted" and "5 days a week = a full-time week" in right.reason, right.reason
    wrong = judge.judge("With 4 working days a week that is 30 × 4 / 5 = 26 days per year.",
                        Evidence("I work 4 days a week.", (_PRO_RATA,)))
    assert wrong.label == "contradicted" and "30 × 4 / 5 = 24" in wrong.reason, wrong.reason
    # without full-time work in the passages a 5 is a number they do not give
    other = judge.judge("With 4 working days a week that is 30 × 4 / 5 = 24 days per year.",
                        Evidence("I work 4 days a week.", (Passage("HR-2", "Employees get 30 days of leave."),)))
    assert other.label == "contradicted" and "full-time" not in other.reason, other.reason


def test_the_rate_a_computed_number_is_counted_per_is_no_word_a_passage_must_write():
    verdict = get_judge("signals").judge("With 4 working days a week that is 30 × 4 / 5 = 24 days per year.",
                                         Evidence("I work 4 days a week.", (_PRO_RATA,)))
    assert verdict.label == "supported", verdict.reason


_HOTEL = "Hotel costs are reimbursed up to 120 EUR per night in Germany and up to 180 EUR per night in London. " \
         "Breakfast included in the room rate is deducted at 5.60 EUR per day."


@pytest.mark.parametrize("claim, shown", [
    ("In total you receive 3 × (170 − 5.60) = 493.20 EUR.", "493.20 EUR = 3 × (170 − 5.60)"),
    ("In total you receive (170 − 5.60) × 3 = 493.20 EUR.", "493.20 EUR = (170 − 5.60) × 3"),
    ("That is (3 × 170) − 5.60 = 504.40 EUR.", "504.40 EUR = (3 × 170) − 5.60"),
])
def test_an_expression_with_brackets_is_reckoned_as_written(claim, shown):
    found = compute(claim, [m.surface for m in mentions(claim) if m.surface.endswith("EUR")], [_HOTEL],
                    "3 nights in London, 170 EUR per night, breakfast included.")
    assert shown in found.derived and found.wrong is None, found


def test_a_wrong_expression_with_brackets_is_told_its_value_and_unpaired_brackets_no_step():
    question = "3 nights in London, 170 EUR per night, breakfast included."
    wrong = compute("In total you receive 3 × (170 − 5.60) = 510 EUR.", ["510 EUR"], [_HOTEL], question).wrong
    assert wrong == ("510 EUR", "3 × (170 − 5.60) = 493.20 EUR")
    # a bracket opened where the claim's expression does not close it: read by its operator words,
    # never told wrong by a step of fewer of its numbers
    assert compute("In total you receive 3 × (170 − 5.60 = 493.20 EUR.", ["493.20 EUR"], [_HOTEL], question).wrong is None


@pytest.mark.parametrize("claim, question, shown", [
    ("In Germany, hotel costs are reimbursed up to 120 EUR per night, so 20 EUR per night are not covered.",
     "Hotel in Munich at 140 EUR per night?", "20 EUR = 140 EUR − 120 EUR"),
    ("Abzüglich 5,60 EUR Frühstück erhalten Sie 2 × 114,40 EUR = 228,80 EUR.",
     "2 Nächte in Köln für je 130 EUR inkl. Frühstück.", "114,40 EUR = 120 EUR − 5,60 EUR"),
])
def test_what_a_cap_leaves_uncovered_and_a_nights_rate_less_a_days_breakfast(claim, question, shown):
    passage = _HOTEL if "Germany" in claim else "Für Hotelübernachtungen im Inland werden bis zu 120 EUR pro Nacht " \
        "erstattet. Das Frühstück wird mit 5,60 EUR pro Tag abgezogen, wenn es im Zimmerpreis enthalten ist."
    verdict = get_judge("signals").judge(claim, Evidence(question, (Passage("P1", passage),)))
    assert verdict.label == "supported" and shown in verdict.reason, verdict.reason


_MILEAGE = Passage("TR-2", "Travel by private car is reimbursed at 0.30 EUR per km, at most 130 EUR per trip. Hotel costs "
                           "are reimbursed up to 120 EUR per night.")


@pytest.mark.parametrize("claim, label", [
    # the example's number written again in the expression the claim shows: the example computes
    ("For 300 km by private car you get 90 EUR (300 × 0.30 EUR).", "supported"),
    ("Bei 300 km mit dem Privatwagen erhalten Sie 90 EUR (300 × 0,30 EUR).", "supported"),
    ("Für 300 km erhalten Sie 300 × 0,30 EUR = 90 EUR.", "supported"),
    ("For 300 km by private car you get 80 EUR (300 × 0.30 EUR).", "contradicted"),
    ("For 300 km you get 90 EUR (400 × 0.30 EUR).", "contradicted"),
    ("For 500 km you get 150 EUR (500 × 0.30 EUR).", "contradicted"),
])
def test_an_example_written_again_in_the_claims_expression_is_the_example(claim, label):
    verdict = get_judge("signals").judge(claim, Evidence("Q?", [_MILEAGE]))
    assert verdict.label == label, verdict.reason or verdict.error
    # the rules judge takes the same numbers step (its words step reads English words alone)
    rules = get_judge("rules").judge(claim, Evidence("Q?", [_MILEAGE]))
    assert (rules.label == "contradicted") == (label == "contradicted"), rules.reason


_PARENTAL = Passage("HR-40", "Parental leave must be announced at least 7 weeks before it starts.")


@pytest.mark.parametrize("claim, label, right", [
    # a date moved back by the claim's own period ("7 weeks before 1 September"): the right date is 14 July
    ("You must announce it by 14 July (7 weeks before 1 September).", "supported", None),
    ("You must announce it by 21 July (7 weeks before 1 September).", "contradicted", "1 September − 7 weeks = 14 July"),
    ("Sie müssen die Elternzeit spätestens am 21. Juli anmelden (7 Wochen vor dem 1. September).", "contradicted",
     "− 7 Wochen = 14 July"),
    # "from" elsewhere in the claim moves nothing on: the period is written with "before"
    ("For leave from 1 September, announce it 7 weeks before, by 21 July.", "contradicted",
     "1 September − 7 weeks = 14 July"),
])
def test_a_date_moved_back_is_told_the_date_before(claim, label, right):
    verdict = get_judge("signals").judge(claim, Evidence("When must I announce parental leave if it starts on "
                                                         "1 September?", [_PARENTAL]))
    assert verdict.label == label, verdict.reason or verdict.error
    if right is not None:
        assert right in verdict.reason, verdict.reason


_PER_DIEM = Passage("TR-2", "Hotel costs are reimbursed up to 120 EUR per night. Travel by private car is reimbursed at "
                            "0.30 EUR per km, at most 130 EUR per trip. The per diem for a full day is 28 EUR; if "
                            "breakfast is provided, 5.60 EUR is deducted.")


_PER_DIEM_DE = Passage("RK-2", "Das Tagegeld für einen vollen Tag beträgt 28 EUR; wird Frühstück gestellt, werden 5,60 EUR "
                               "abgezogen.")
_BOTH = ("signals", "rules")


@pytest.mark.parametrize("claim, passage, label, judges", [
    # an amount the passage says is deducted, taken off the amount its sentence gives: no word of a
    # computation needed
    ("With breakfast you get 22.40 EUR per day.", _PER_DIEM, "supported", ("signals",)),
    ("Mit Frühstück erhalten Sie 22,40 EUR pro Tag.", _PER_DIEM, "supported", ("signals",)),
    ("With breakfast you get 23.40 EUR per day.", _PER_DIEM, "contradicted", ("signals",)),
    # ... and off no other amount: 130 − 5.60 is no figure of the passages
    ("The mileage cap is 124.40 EUR.", _PER_DIEM, "contradicted", ("signals",)),
    ("The hotel limit is 114.40 EUR if breakfast is provided.", _PER_DIEM, "contradicted", ("signals",)),
    # the claim writes the amount the deduction is taken off itself: the passage's 28 EUR still is
    # what 5.60 EUR is deducted from
    ("The per diem is 28 EUR, or 22.40 EUR with breakfast.", _PER_DIEM, "supported", _BOTH),
    ("The per diem is 28 EUR; with breakfast, 22.40 EUR.", _PER_DIEM, "supported", _BOTH),
    # "with breakfast 22.40 EUR": a noun between "with" and the amount makes it a value, not an example
    # the claim takes ("with 3 days a week", "for a 600 km trip")
    ("The per diem is 28 EUR, with breakfast 22.40 EUR.", _PER_DIEM, "supported", _BOTH),
    ("The per diem is 28 EUR, or 23.40 EUR with breakfast.", _PER_DIEM, "contradicted", _BOTH),
    ("The per diem is 28 EUR, with breakfast 23.40 EUR.", _PER_DIEM, "contradicted", _BOTH),
    # the cap the claim writes is no amount the passage deducts from
    ("The mileage cap is 130 EUR, or 124.40 EUR with breakfast.", _PER_DIEM, "contradicted", _BOTH),
    ("The hotel limit is 120 EUR, or 114.40 EUR with breakfast.", _PER_DIEM, "contradicted", _BOTH),
    ("Das Tagegeld beträgt 28 EUR, mit Frühstück 22,40 EUR.", _PER_DIEM, "supported", ("signals",)),
    ("Das Tagegeld beträgt 28 EUR, mit Frühstück 23,40 EUR.", _PER_DIEM, "contradicted", ("signals",)),
    ("Das Tagegeld beträgt 28 EUR, mit Frühstück 22,40 EUR.", _PER_DIEM_DE, "supported", ("signals",)),
    ("Das Tagegeld beträgt 28 EUR, mit Frühstück 23,40 EUR.", _PER_DIEM_DE, "contradicted", ("signals",)),
])
def test_an_amount_the_passage_deducts_is_taken_off_its_own_sentences_amount(claim, passage, label, judges):
    for judge in judges:
        verdict = get_judge(judge).judge(claim, Evidence("What do I get?", [passage]))
        assert verdict.label == label, (judge, verdict.reason or verdict.error)
        if label == "supported":
            shown = "22,40 EUR = 28 EUR − 5" if "22,40" in claim else "22.40 EUR = 28 EUR − 5.60 EUR"
            assert shown in verdict.reason, verdict.reason
