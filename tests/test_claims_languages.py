"""Answers split as a reader of their language splits them: German and French dates, ordinals and
abbreviations kept whole, each answer in its own language, Markdown emphasis left out, and a
citation closing a list backing each of its items."""

from __future__ import annotations

import pytest

from groundlab import ClaimSplitter
from groundlab.core.claims import check_language, strip_emphasis
from groundlab.core.languages import language
from groundlab.core.records import GroundlabError
from groundlab.core.sentences import list_closings, split_sentences


def texts(answer, **kw):
    return [c.text for c in ClaimSplitter(**kw).split("c", answer).claims]


@pytest.mark.parametrize("answer, expected", [
    ("Übertragener Resturlaub verfällt am 31. März des Folgejahres.",
     ["Übertragener Resturlaub verfällt am 31. März des Folgejahres."]),
    ("Ab dem 3. Krankheitstag ist ein Attest nötig. Es geht an HR.",
     ["Ab dem 3. Krankheitstag ist ein Attest nötig.", "Es geht an HR."]),
    ("Bitte reichen Sie die Belege bis zum 15. Januar ein.", ["Bitte reichen Sie die Belege bis zum 15. Januar ein."]),
    ("Die Pauschale beträgt z. B. 28 EUR bzw. 14 EUR am Anreisetag.",
     ["Die Pauschale beträgt z. B. 28 EUR bzw. 14 EUR am Anreisetag."]),
    ("Erstattet werden die Kosten inkl. Frühstück. Gem. Richtlinie gilt das auch im Ausland.",
     ["Erstattet werden die Kosten inkl. Frühstück.", "Gem. Richtlinie gilt das auch im Ausland."]),
    ("Nach der 2. Mahnung wird der Zugang gesperrt.", ["Nach der 2. Mahnung wird der Zugang gesperrt."]),
    # a day without its month ends the sentence when a word that opens one follows
    ("Die Frist endet am 31. Danach verfällt der Anspruch.", ["Die Frist endet am 31.", "Danach verfällt der Anspruch."]),
    ("Die Zahlung erfolgt am 15. Die Abrechnung folgt später.",
     ["Die Zahlung erfolgt am 15.", "Die Abrechnung folgt später."]),
    ("Am 3. Tag endet die Frist.", ["Am 3. Tag endet die Frist."]),
    ("M. Dupont approuve la remise. Elle est payée le 1er mars.",
     ["M. Dupont approuve la remise.", "Elle est payée le 1er mars."]),
    ("Le remboursement est de 0,30 EUR par km, p. ex. pour 100 km env. 30 EUR.",
     ["Le remboursement est de 0,30 EUR par km, p. ex. pour 100 km env. 30 EUR."]),
    # English is split as before: a step number and a stop before a capital still ends a sentence
    ("Open the form in step 3. Then submit it.", ["Open the form in step 3.", "Then submit it."]),
    ("Refunds go out on 31 March. The team checks them first.",
     ["Refunds go out on 31 March.", "The team checks them first."]),
])
def test_dates_ordinals_and_abbreviations_stay_whole(answer, expected):
    assert texts(answer) == expected


def test_each_answer_is_split_in_its_own_language():
    splitter = ClaimSplitter()
    assert splitter.language == "auto"
    assert splitter.language_of("Der Antrag muss von der Führungskraft genehmigt werden.") == "de"
    assert splitter.language_of("Le remboursement est payé par le service dans les trente jours.") == "fr"
    assert splitter.language_of("The order is blocked.") == "en"
    # a language asked for is used for every answer
    assert ClaimSplitter(language="de").language_of("The order is blocked.") == "de"


def test_a_language_groundlab_does_not_read_is_refused_in_one_sentence():
    assert check_language("German") == "de" and check_language("FR") == "fr" and check_language("auto") == "auto"
    with pytest.raises(GroundlabError, match="not one groundlab splits answers in; give auto"):
        ClaimSplitter(language="klingon")


def test_passages_are_split_in_their_language():
    assert split_sentences("Übertragener Resturlaub verfällt am 31. März des Folgejahres. Bis zu 5 Tage "
                           "können übertragen werden.") == (
        "Übertragener Resturlaub verfällt am 31. März des Folgejahres.", "Bis zu 5 Tage können übertragen werden.")
    assert language("Übertragener Resturlaub verfällt am 31. März, der Antrag ist nicht nötig.") == "german"


@pytest.mark.parametrize("text, expected", [
    ("**Receipts:** keep them for 10 years.", "Receipts: keep them for 10 years."),
    ("Keep them for *ten* years, __not__ five.", "Keep them for ten years, not five."),
    ("The file_name and 5 * 3 stay as written.", "The file_name and 5 * 3 stay as written."),
])
def test_emphasis_marks_are_left_out_of_claims(text, expected):
    assert strip_emphasis(text) == expected
    assert texts(text) == [expected]


def test_a_citation_closing_a_list_backs_each_item():
    answer = ("You can claim:\n- **Hotel:** up to 120 EUR per night\n- **Meals:** 28 EUR per day\n"
              "- Mileage at 0.30 EUR per km [HR-15]\n\n(Source: HR-14)")
    split = ClaimSplitter().split("c", answer, ["HR-14", "HR-15"])
    assert [(c.text, c.cites) for c in split.claims] == [
        ("Hotel: up to 120 EUR per night", ("HR-14",)),
        ("Meals: 28 EUR per day", ("HR-14",)),
        # an item that cites its own passage keeps it; the closing citation follows it as before
        ("Mileage at 0.30 EUR per km", ("HR-15", "HR-14"))]
    numbered = ClaimSplitter().split("c", "Steps:\n1. Reset the password\n2. Unlock the account\n[IT-3]", ["IT-3"])
    assert [c.cites for c in numbered.claims] == [("IT-3",), ("IT-3",)]


def test_a_citation_after_a_paragraph_still_goes_with_its_last_sentence():
    split = ClaimSplitter().split("c", "Hotels are paid. Meals are paid too.\n(Source: HR-14)", ["HR-14"])
    assert [c.cites for c in split.claims] == [(), ("HR-14",)]
    assert list_closings("Hotels are paid.\n(Source: HR-14)") == []


def test_a_german_sources_line_after_a_list_is_no_claim():
    answer = "So gehen Sie vor:\n1. Client neu starten.\n2. Ein Ticket eröffnen.\n\nQuelle: [1]"
    split = ClaimSplitter().split("c", answer, ["1"])
    assert [(c.text, c.cites) for c in split.claims] == [("Client neu starten.", ("1",)),
                                                         ("Ein Ticket eröffnen.", ("1",))]


@pytest.mark.parametrize("answer", [
    "I couldn't find anything about sabbaticals in the available HR documents. Please contact your HR business partner.",
    "Das geht aus den Unterlagen leider nicht hervor. Bitte wenden Sie sich an die Reisekostenstelle.",
    "I can't find the rate in the documents. Please contact the travel office for the exact rate.",
])
def test_whom_to_ask_beside_a_refusal_is_no_claim(answer):
    split = ClaimSplitter().split("c", answer)
    assert split.abstains and split.claims == ()


def test_german_and_french_references_in_brackets_are_citations():
    split = ClaimSplitter().split("c", "Bestellen Sie über den Katalog (siehe KB0020452). Commandez au catalogue "
                                       "(voir KB0020453).")
    assert [(c.text, c.cites) for c in split.claims] == [("Bestellen Sie über den Katalog.", ("KB0020452",)),
                                                         ("Commandez au catalogue.", ("KB0020453",))]


def test_a_german_answer_in_plain_ascii_without_an_article_is_read_as_german():
    answer = "Bitte reichen Sie den Antrag bis zum 31. Maerz ein."
    splitter = ClaimSplitter()
    assert splitter.language_of(answer) == "de"
    assert [c.text for c in splitter.split("c", answer).claims] == [answer]


@pytest.mark.parametrize("answer", [
    "Das kann ich anhand der Unterlagen leider nicht beantworten. Bitte wenden Sie sich an die Stammdatenpflege.",
    "Die Dokumente enthalten dazu keine Angaben. Bitte wenden Sie sich an die Kreditorenbuchhaltung.",
    "I'm not able to find any rules about that in the documents. Please contact Security.",
    "I cannot find that in the documents. Please contact the master data team.",
])
def test_a_refusal_that_points_to_a_team_of_any_name_has_no_claim(answer):
    split = ClaimSplitter().split("c", answer)
    assert split.abstains and split.claims == ()
