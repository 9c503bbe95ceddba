"""A claim in another language than its passages is judged on what carries across, or left
undecided with the reason, and counted: never read as unsupported because its words are foreign."""

from __future__ import annotations

import json

import pytest

from groundlab.core.records import Evidence, Passage
from groundlab.judges import get_judge
from groundlab.judges.signals.across import glossary, glossary_language

HOTEL_EN = (Passage("TR-1", "Hotel costs are reimbursed up to 120 EUR per night with a receipt."),)
HOTEL_DE = (Passage("TR-2", "Hotelkosten werden bis 120 EUR pro Nacht erstattet, mit Beleg."),)


def _judge(claim, passages, question="Hotel?"):
    return get_judge("signals").judge(claim, Evidence(question, passages))


def test_a_german_claim_against_an_english_passage_is_read_across():
    verdict = _judge("Hotelkosten bis 120 EUR pro Nacht werden erstattet.", HOTEL_EN)
    assert verdict.label == "supported", verdict.reason
    assert verdict.reason.startswith("German claim, English passages: 4/4 content words carry across, 4 found")
    assert "Hotelkosten = hotel costs" in verdict.reason
    # its numbers still decide first
    assert _judge("Hotelkosten bis 150 EUR pro Nacht werden erstattet.", HOTEL_EN).label == "contradicted"


def test_an_english_claim_against_a_german_passage_is_read_across():
    verdict = _judge("Hotel costs are reimbursed up to 120 EUR per night.", HOTEL_DE)
    assert verdict.label == "supported" and verdict.reason.startswith("English claim, German passages")


def test_the_month_of_a_date_the_numbers_step_checked_is_not_a_word_to_find_across():
    passages = (Passage("TR-3", "Submit the expense report within 30 days after the end of the trip."),)
    question = "My trip ended on 28 February 2025. By when must I submit the expense report?"
    verdict = _judge("Reichen Sie die Abrechnung innerhalb von 30 Tagen nach Reiseende ein, also bis zum "
                     "30. März 2025.", passages, question)
    assert verdict.label == "supported", verdict.reason
    assert "März" not in verdict.reason.split("found")[1].split(";")[0]  # not among the words missing
    assert "computed: 30. März 2025 = 28 February 2025 + 30 Tagen" in verdict.reason
    # a date computed wrong still decides first
    wrong = _judge("Reichen Sie die Abrechnung innerhalb von 30 Tagen nach Reiseende ein, also bis zum "
                   "31. März 2025.", passages, question)
    assert wrong.label == "contradicted", wrong.reason


def test_a_word_joined_by_hyphens_the_glossary_lacks_is_read_as_its_words():
    passages = (Passage("IT-7", "Standard-Notebooks werden vier Jahre nach Auslieferung ausgetauscht, Entwickler- und "
                                "Engineering-Notebooks nach drei Jahren. Den Code erhalten Sie an Ihre hinterlegte "
                                "Mobilnummer."),)
    verdict = _judge("Engineering laptops are replaced after three years.", passages)
    assert verdict.label == "supported", verdict.reason
    verdict = _judge("The code goes to your registered mobile number.", passages)
    assert verdict.label == "supported" and "(missing: goes)" in verdict.reason, verdict.reason
    # a word the glossary has with its hyphen is read whole
    from groundlab.judges.signals.across import _read

    assert [(w, bool(m)) for w, m, _ in _read("Die VPN-Verbindung und Standard-Notebooks", "german")] == [
        ("VPN-Verbindung", True), ("Standard", False), ("Notebooks", True)]


def test_a_bound_s_marker_is_read_as_at_most_and_at_least_are_in_english():
    passages = (Passage("IT-SW-04", "Local administrator rights are granted for 24 hours at a time through the 'Admin on "
                                "Demand' tool, at most 3 times per calendar month."),)
    verdict = _judge("Lokale Administratorrechte gibt es höchstens 3-mal pro Kalendermonat.", passages)
    assert verdict.label == "supported", verdict.reason
    assert "höchstens" not in verdict.reason and "mal = times" in verdict.reason
    # a code of letters alone stays one word
    verdict = _judge("Gem. Richtlinie IT-SW-04 erhalten Sie lokale Administratorrechte für jeweils 24 Stunden.", passages)
    assert "IT-SW)" in verdict.reason and "lokale = local" in verdict.reason, verdict.reason


def test_a_negation_inside_a_noun_phrase_negates_no_clause_across_languages_either():
    passages = (Passage("HR-3", "Carried-over days must be taken by 31 March of the following year; any carried-over "
                                "days not taken by then are forfeited."),)
    verdict = _judge("Ces jours doivent être pris au plus tard le 31 mars de l'année suivante, faute de quoi ils "
                     "sont perdus.", passages)
    assert verdict.label == "supported", verdict.reason
    # a negated clause still stands on one side only
    verdict = _judge("Ces jours ne doivent pas être pris avant le 31 mars de l'année suivante.", passages)
    assert verdict.label is None and "a negation stands on one side only" in verdict.reason, verdict.reason


def test_too_little_carries_across_and_the_claim_is_undecided_with_its_reason():
    verdict = _judge("Ohne Beleg gibt es leider gar nichts zurück.", HOTEL_EN)
    assert verdict.label is None and verdict.error == verdict.reason
    assert "decide across languages" in verdict.reason
    # a negation on one side only is not decided either
    verdict = _judge("Hotel costs are reimbursed without a receipt.", HOTEL_DE)
    assert verdict.label is None and "a negation stands on one side only" in verdict.reason


def test_an_english_claim_with_foreign_looking_words_is_judged_as_english():
    # "la" and "del" made the function-word count say French or Spanish
    passages = (Passage("A1", "La La Land won the Golden Lion at the Venice Film Festival this year."),)
    verdict = _judge("La la land has won the top prize at the venice film festival.", passages)
    assert verdict.label is not None and "claim," not in verdict.reason.split(";")[0]
    assert glossary_language("La la land has won the top prize at the venice film festival.") == "english"


def test_the_glossary_reads_and_maps_to_english():
    table = glossary()
    assert {"german", "french"} <= set(table) and len(table["german"]) > 1000 and len(table["french"]) > 1000
    assert any(m == "hotel costs" for m, _ in table["german"]["hotelkosten"])


def test_score_counts_the_claims_left_undecided_across_languages(cli, tmp_path):
    cases = [{"id": "x1", "question": "Hotel?", "answer": "Ohne Beleg gibt es leider gar nichts zurück.",
              "retrieved": [{"id": "TR-1", "text": HOTEL_EN[0].text}]},
             {"id": "x2", "question": "Hotel?", "answer": "Hotel costs are reimbursed up to 120 EUR per night.",
              "retrieved": [{"id": "TR-1", "text": HOTEL_EN[0].text}]}]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    s = cli.json("score", "--cases", path)
    assert s["errors"] == 1 and s["errors_across_languages"] == 1
    code, out, _ = cli("score", "--cases", path, "--report", tmp_path / "report.md")
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "The judge could not decide 1 claim (1 of them in another language than their passages" in report


_CARRY = Passage("HR-14", "Full-time employees receive 30 days of annual leave per calendar year. Up to 5 unused days "
                          "can be carried over to the next year. Leave must be requested at least 2 weeks in advance "
                          "via the HR portal.")
_ROOMS = Passage("FAC-02", "Meeting rooms for up to 8 people can be booked by any employee in Outlook. Rooms for more "
                           "than 8 people are booked through the facilities service desk.")


@pytest.mark.parametrize("claim, passage, label, reason", [
    # a limit said the other way round says the same, in any language
    ("Mehr als 5 Tage können nicht übertragen werden.", _CARRY, "supported", "restates the limit the other way round"),
    ("Plus de 5 jours ne peuvent pas être reportés.", _CARRY, "supported", "restates the limit the other way round"),
    # a bound on the other side of the passage's, which no word of theirs matches
    ("Mehr als 5 Tage können übertragen werden.", _CARRY, "contradicted",
     'above or below: the claim says "Mehr als 5 Tage" where the evidence says "Up to 5 unused days"'),
    ("Mindestens 5 Tage können übertragen werden.", _CARRY, "contradicted", "above or below"),
    ("Plus de 5 jours peuvent être reportés.", _CARRY, "contradicted", "above or below"),
    ("Urlaub muss höchstens 2 Wochen im Voraus beantragt werden.", _CARRY, "contradicted",
     'above or below: the claim says "höchstens 2 Wochen" where the evidence says "at least 2 weeks"'),
    ("Höchstens 5 Tage können übertragen werden.", _CARRY, "supported", None),
    ("Urlaub muss mindestens 2 Wochen im Voraus beantragt werden.", _CARRY, "supported", None),
    # a passage giving the number on both sides gives the claim's side too
    ("Besprechungsräume für bis zu 8 Personen können alle Mitarbeitenden selbst in Outlook buchen.", _ROOMS,
     "supported", None),
    # the glossary's words of HR rules
    ("Vollzeitkräfte haben 30 Urlaubstage im Jahr.", _CARRY, "supported", "Vollzeitkräfte = full-time employees"),
])
def test_a_bound_across_languages_is_read_with_its_side(claim, passage, label, reason):
    verdict = get_judge("signals").judge(claim, Evidence("Wie viele Tage?", [passage]))
    assert verdict.label == label, verdict.reason or verdict.error
    if reason is not None:
        assert reason in verdict.reason, verdict.reason


_REMOTE = Passage("HR-22", "Remote work is possible on up to 2 days per week with the approval of the line manager. "
                           "Requests are answered within 3 working days.")
_DESK = Passage("HR-50", "The service desk is open Monday to Friday from 8:00 to 18:00.")
_DESK_DE = Passage("DE-HR-51", "Der Service-Desk ist montags bis freitags von 8 bis 18 Uhr erreichbar.")
_REPORTS = Passage("TR-2", "Expense reports must be submitted within 3 months after the trip; later reports are not "
                           "reimbursed. Up to 5 unused days can be carried over to the next year.")


@pytest.mark.parametrize("claim, passage, label", [
    # "an bis zu 3 Tagen": a bound, not an example the claim takes ("ein Hotel zu 150 EUR")
    ("Ja, mobiles Arbeiten ist an bis zu 3 Tagen pro Woche möglich.", _REMOTE, "contradicted"),
    ("Mobiles Arbeiten ist an bis zu 2 Tagen pro Woche möglich.", _REMOTE, "supported"),
    # a clause after a semicolon negates by itself
    ("Die Abrechnung muss innerhalb von 3 Monaten nach der Reise eingereicht werden.", _REPORTS, "supported"),
    ("Spätere Abrechnungen werden nicht erstattet.", _REPORTS, "supported"),
    # a meaning written with a hyphen ("carry-over") is met written apart ("carried over")
    ("Übertrag: bis zu 5 Tage", _REPORTS, "supported"),
    # hours written "8 bis 18 Uhr" and "8:00 to 18:00" are the same hours; "Uhr" is no word to find
    ("Der Service-Desk ist montags bis freitags von 8 bis 18 Uhr erreichbar.", _DESK, "supported"),
    ("Der Service-Desk ist montags bis freitags von 8 bis 20 Uhr erreichbar.", _DESK, "contradicted"),
    ("The service desk is open Monday to Friday from 8:00 to 18:00.", _DESK_DE, "supported"),
    ("The service desk is open Monday to Friday from 9:00 to 18:00.", _DESK_DE, "contradicted"),
])
def test_bounds_clauses_hyphens_and_hours_across_languages(claim, passage, label):
    verdict = get_judge("signals").judge(claim, Evidence("Frage?", [passage]))
    assert verdict.label == label, verdict.reason or verdict.error


_CARRIED = Passage("HR-2", "Up to 5 unused days of annual leave can be carried over to the next year. Carried-over "
                          "days expire on 31 March.")


@pytest.mark.parametrize("claim, passage, reason", [
    # "z. B." is a function phrase, no content word to find; a compound of the glossary's words is read
    ("Sie erhalten z. B. einen Zuschuss von 20 % Ihres Bruttogehalts für bis zu 12 Monate.",
     Passage("HR-40", "Employees on parental leave receive a top-up of 20% of their gross salary for up to 12 months."),
     "3/3 content words carry across, 3 found"),
    # "anmelden" is announcing leave as well as logging in
    ("Die Elternzeit muss mindestens 7 Wochen vorher angemeldet werden.",
     Passage("HR-40", "Parental leave must be announced at least 7 weeks before it starts."), "angemeldet = announced"),
    ("Bei Fahrten über 4 Stunden ist die 1. Klasse erlaubt.",
     Passage("TR-5", "Train travel is reimbursed in 2nd class; 1st class is allowed for trips longer than 4 hours."),
     "Klasse = class"),
    # carried-over days and their expiry: the adjective's forms, and a noun whose stem meets the verb's
    ("Übertragene Tage verfallen am 31. März.", _CARRIED, "Übertragene = carried-over"),
    ("Verfall: 31. März.", _CARRIED, "Verfall = expiration"),
])
def test_the_glossary_reads_the_words_of_hr_and_travel_rules(claim, passage, reason):
    verdict = get_judge("signals").judge(claim, Evidence("Frage?", [passage]))
    assert verdict.label == "supported", verdict.reason or verdict.error
    assert reason in verdict.reason, verdict.reason
