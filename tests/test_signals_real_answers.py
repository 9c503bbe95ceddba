"""The signals judge on answers as real assistants write them: framing in every common wording,
ordinals, the question's premise, scoped negation, how-often and bound words, abbreviations,
answers in German, French and Spanish; each with its near misses."""

import json

import pytest

import groundlab as gl
from groundlab.judges import get_judge
from groundlab.judges.signals import frame, language
from groundlab.records import Evidence, Passage

from conftest import ROOT


def judged(claim, *passages, question=""):
    evidence = Evidence(question, tuple(Passage(f"P{k}", t) for k, t in enumerate(passages, 1)))
    return get_judge("signals").judge(claim, evidence)


# ---------------------------------------------------------------- framing


@pytest.mark.parametrize("sentence", [
    "Here's what I found.", "Here's how to reset your password.", "Here are the steps.",
    "Sure, I'd be happy to help!", "I'd be glad to help you with that.", "Happy to help!", "Sure.",
    "I hope this helps!", "I hope the above is helpful.", "If you have any other questions, let me know.",
    "Thanks for reaching out.", "Sorry to hear that!", "I'm sorry to hear about the trouble.",
    "I understand your concern.", "Short answer: generally no.", "The short answer is yes.",
    "Gerne!", "Ich hoffe, das hilft weiter.", "J'espère que cela vous aide !", "¡Espero que te sirva!",
])
def test_framing_sentences_are_set_aside_in_every_common_wording(sentence):
    assert frame(sentence).framing
    assert judged(sentence, "Refunds over 500 EUR need the finance manager's approval.").label == "supported"


@pytest.mark.parametrize("sentence", [
    "Here the buyer contacts the vendor.", "The team is happy to help with refunds over 500 EUR.",
    "Sure enough, the invoice was blocked.", "I hope to approve it tomorrow.",
])
def test_near_misses_of_framing_are_judged_as_claims(sentence):
    assert not frame(sentence).framing


def test_a_framing_lead_in_is_set_aside_and_the_rest_judged():
    verdict = judged("Here's the catch: refunds are paid in cash.", "Refunds are never paid in cash.")
    assert verdict.label == "contradicted" and "Here's the catch" in verdict.reason
    assert judged("Sure! The team lead approves refunds.", "The team lead approves refunds.").label == "supported"


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize("claim, passage", [
    ("It was founded on the 13th of May.", "It was founded on 13 May."),
    ("It is the 3rd reminder.", "It is the third reminder."),
    ("The 13th-month salary is paid in November.", "The 13th salary is paid with the November payroll."),
    ("He finished 2nd.", "He finished second."),
    ("Revoke your 2FA tokens at once.", "Revoke your MFA tokens at once."),
    ("Reminders are sent 2 times a month.", "Reminders are sent twice a month."),
])
def test_ordinals_and_names_with_digits_are_no_false_alarm(claim, passage):
    assert judged(claim, passage).label == "supported"


def test_a_wrong_ordinal_is_still_caught():
    assert judged("It is the 4th reminder.", "It is the third reminder.").label == "contradicted"


# ---------------------------------------------------------------- the question


def test_support_that_exists_only_in_the_question_is_no_support():
    question = "Why is my invoice blocked by the three-way match with the purchase order?"
    passage = "Invoices are paid on the due date when no block is set."
    verdict = judged("Your invoice is blocked by the three-way match with the purchase order.", passage,
                     question=question)
    assert verdict.label == "unsupported" and "only the question says" in verdict.reason
    # the user's own figures and names may be repeated, the passage's rule applied to them
    c03 = judged("At 1.5 percent, the credit analyst can release Orion's order.",
                 "If the overrun is below 2 percent the credit analyst releases the order.",
                 question="Customer Orion's order is 1.5 percent over the credit limit. Who can release it?")
    assert c03.label == "supported"


# ---------------------------------------------------------------- negation


@pytest.mark.parametrize("claim, passage", [
    ("The plane vanished.", "The plane vanished without trace."),
    ("The fee is charged per invoice.", "The fee is charged not per order but per invoice."),
    ("Only 44 per cent of her followers are real people.", "No more than 44 per cent of her followers are real people."),
    ("The first lady hosted an event with school children.",
     "Wednesday was no exception: the first lady hosted an event with school children."),
    ("Orders are released once they are approved.", "Orders are not released unless they are approved."),
    ("Spain's defeat brought back bitter memories.",
     "Spain's defeat brought back bitter memories, but the coach will not be worried about a third defeat."),
])
def test_a_negation_elsewhere_or_lifted_by_a_condition_decides_nothing(claim, passage):
    assert not judged(claim, passage).reason.startswith("negation flip")


@pytest.mark.parametrize("claim, passage", [
    ("Refunds can be paid in cash.", "Refunds are never paid in cash."),
    ("In urgent cases they can be paid in cash.", "Refunds are never paid in cash."),
    ("Incomplete orders can be billed once they are delivered.", "Incomplete orders cannot be delivered or billed."),
    ("The fee is charged per order.", "The fee is charged not per order but per invoice."),
])
def test_a_negation_in_the_clause_that_says_the_claim_flips_it(claim, passage):
    verdict = judged(claim, passage)
    assert verdict.label == "contradicted" and verdict.reason.startswith("negation flip")


# ---------------------------------------------------------------- how often, when, which way


@pytest.mark.parametrize("claim, passage, said, other", [
    ("Limits are reviewed monthly.", "Credit limits are reviewed every year.", "monthly", "every year"),
    ("The report runs weekly.", "The report runs every night at 2 a.m.", "weekly", "every night"),
    ("The invoice is paid before the variance is cleared.", "The invoice is paid after the variance is cleared.",
     "before", "after"),
    ("Prices decrease after approval.", "Prices increase after approval.", "decrease", "increase"),
    ("Refunds over 500 EUR are approved by the team lead.", "Refunds up to 500 EUR are approved by the team lead.",
     "over", "up to"),
    ("You may carry over up to five days.", "You may carry over at least five days.", "up to", "at least"),
    ("Multi-factor authentication is only required when you connect from abroad.",
     "Multi-factor authentication is required for every connection.", "only required when", "for every"),
    # "no later than" is a deadline, before it; "later" is after
    ("Submit the claim later than 30 days from the end of the trip.",
     "Submit the claim no later than 30 days from the end of the trip.", "later than", "no later than"),
    ("Leave starting earlier is requested seven weeks ahead.",
     "Leave starting later is requested seven weeks ahead.", "earlier", "later"),
])
def test_frequency_direction_and_bound_words_that_clash_contradict(claim, passage, said, other):
    verdict = judged(claim, passage)
    assert verdict.label == "contradicted" and f'says "{said}" where the evidence says "{other}"' in verdict.reason


@pytest.mark.parametrize("claim, passage", [
    ("Limits are reviewed every year.", "Credit limits are reviewed every year."),
    ("Limits are reviewed yearly.", "Credit limits are reviewed annually."),
    ("The order is released after the review.", "Before release the order is checked; after the review it is released."),
    ("It is over the limit.", "It is below the limit for smaller orders, and the report runs daily."),
    ("Reports are produced monthly.", "Limits are reviewed every year. Reports are produced monthly."),
    ("Employees must sign up to the training before their first day.",
     "Employees must sign up for the training at least one week before their first day."),
    # a sentence that says both sides, one in each clause, decides nothing
    ("Because the leave starts after the third birthday, request it 13 weeks in advance.",
     "Leave starting before the third birthday is requested seven weeks in advance; leave starting later 13 weeks "
     "in advance."),
])
def test_the_same_word_or_another_sentence_is_no_conflict(claim, passage):
    assert not judged(claim, passage).reason.split(":")[0] in ("how often", "when", "which way", "above or below",
                                                                "how many times")


# ---------------------------------------------------------------- abbreviations, languages


@pytest.mark.parametrize("claim, passage", [
    ("MFA is required for every connection.", "Multi-factor authentication is required for every connection."),
    ("Multi-factor authentication is required for every connection.", "MFA is required for every connection."),
    ("Goods receipts against POs are posted daily.", "Goods receipts against purchase orders are posted daily."),
])
def test_abbreviations_and_their_spelled_out_words_meet(claim, passage):
    verdict = judged(claim, passage)
    assert verdict.label == "supported", verdict.reason


def test_words_with_an_acronyms_initials_are_not_what_the_evidence_spells_it_out_as():
    passage = "A purchase order (PO) is needed above 500 EUR."
    assert judged("A payment obligation is needed above 500 EUR.", passage).label != "supported"
    assert judged("A purchase order is needed above 500 EUR.", passage).label == "supported"


@pytest.mark.parametrize("text, lang", [
    ("Der Antrag muss von der Führungskraft genehmigt werden.", "german"),
    ("Le client paie par virement et la facture est close.", "french"),
    ("El proveedor envía una nota de crédito al cliente.", "spanish"),
    ("The invoice is blocked and the buyer must act.", "english"),
    ("Die Lieferung.", "english"),  # too short to tell
])
def test_a_text_reads_as_its_language(text, lang):
    assert language(text) == lang


@pytest.mark.parametrize("claim, passage", [
    ("Einen neuen Laptop beantragen Sie im Service-Portal.", "Neue Laptops werden im Service-Portal beantragt."),
    ("Der Antrag muss von Ihrer Führungskraft genehmigt werden.",
     "Der Antrag muss von der Führungskraft genehmigt werden."),
    ("Estos días deben utilizarse antes del 31 de marzo.",
     "Los días pendientes deben utilizarse antes del 31 de marzo del año siguiente."),
])
def test_answers_in_other_languages_are_read_with_their_own_stems_and_function_words(claim, passage):
    assert judged(claim, passage).label == "supported"


# ---------------------------------------------------------------- real-looking answers


def test_help_desk_answers_the_judge_was_developed_on():
    """Twenty help-desk answers written like a real assistant's (lists, citations in several
    styles, abbreviations, German, a refusal): the cases the judge's fixes were made on, kept as a
    regression check, not as evidence of accuracy (docs/judges.md gives that, on held-out sets)."""
    cases = gl.load_cases(ROOT / "tests" / "data" / "helpdesk_cases.jsonl")
    signals = gl.evaluate(cases, "signals").claims
    rules = gl.evaluate(cases, "rules").claims

    def caught_and_alarms(c):
        flagged, hallucinated = c["verdict"] != "supported", c["label"] != "supported"
        return int((flagged & hallucinated).sum()), int((flagged & ~hallucinated).sum())

    assert int((signals["label"] != "supported").sum()) == 12 and int((signals["label"] == "supported").sum()) == 30
    caught, alarms = caught_and_alarms(signals)
    assert caught >= 11 and alarms <= 1, (caught, alarms)
    assert caught_and_alarms(rules) == (10, 8)
    abstained = gl.evaluate(cases, "signals").cases.set_index("case_id").loc["hd13"]
    assert abstained["abstained"] and abstained["answerable"]  # a false abstention


def test_agree_json_gives_each_claims_score(cli, sample_args):
    out = cli.json("agree", *sample_args)
    scores = [c["score"] for c in out["claims"]]
    assert all(s is None or 0 <= s <= 1 for s in scores) and any(0 < s < 1 for s in scores if s is not None)
    c05 = next(c for c in out["claims"] if c["case_id"] == "c05" and c["claim"] == 2)
    assert c05["verdict"] == "unsupported" and c05["score"] < get_judge("signals").threshold


def test_the_shipped_config_says_what_it_was_fitted_on_and_how_it_did_on_each_set():
    data = json.loads((ROOT / "groundlab" / "data" / "signals.json").read_text(encoding="utf-8"))
    assert data["judge_version"] == "2"
    sets = data["leave_one_set_out"]
    for name in ("Factcheck-GPT", "WiCE", "FRANK CNN/DM", "FRANK XSum", "HaluEval QA", "ExpertQA"):
        for judge in ("signals", "rules"):
            figures = sets[name][judge]
            assert figures["caught"]["total"] > 0 and figures["false_alarms"]["total"] > 0
            low, high = figures["balanced_accuracy_range"]
            assert low <= figures["balanced_accuracy"] <= high
    assert 0 < data["threshold"] < 1


# ---------------------------------------------------------------- negation after the verb (German, French)

CREDIT_DE = ("Gutschriften verfallen nach zwölf Monaten und werden dann nicht mehr ausgezahlt. Die Buchhaltung bucht "
             "sie auf das Kundenkonto.")
CREDIT_DE_KEPT = ("Eine Gutschrift verfällt nicht, sie bleibt auf dem Kundenkonto. Die Buchhaltung zahlt sie auf "
                  "Wunsch aus.")
CREDIT_FR = ("Le crédit expire après douze mois et il est alors perdu. Le service comptable le verse sur le compte du "
             "client.")
CREDIT_FR_KEPT = ("Le crédit n'expire pas et il reste sur le compte du client. Le service comptable le verse sur "
                  "demande.")


@pytest.mark.parametrize("claim, passage", [
    ("Die Gutschrift verfällt nicht.", CREDIT_DE),           # the claim negated, the evidence not
    ("Die Gutschrift verfällt.", CREDIT_DE_KEPT),            # the evidence negated, the claim not
    ("Le crédit n'expire pas.", CREDIT_FR),
    ("Le crédit expire.", CREDIT_FR_KEPT),
    ("Le client ne paie jamais en espèces.", "Le client paie en espèces à la caisse. Le service comptable vérifie "
                                             "le paiement."),
    ("Le client ne paie plus de frais de port.", "Le client paie les frais de port pour chaque commande. Le service "
                                                 "comptable les facture."),
])
def test_a_negation_after_the_verb_flips_the_claim(claim, passage):
    verdict = judged(claim, passage)
    assert verdict.label == "contradicted" and verdict.reason.startswith("negation flip"), verdict.reason


@pytest.mark.parametrize("claim, passage", [
    ("Eine Gutschrift verfällt nicht.", CREDIT_DE_KEPT),      # both negated
    ("Die Gutschrift bleibt auf dem Kundenkonto.", CREDIT_DE_KEPT),  # the negation is in another clause
    ("Le crédit n'expire pas.", CREDIT_FR_KEPT),
    ("Le crédit reste sur le compte du client.", CREDIT_FR_KEPT),
    # "ne ... que" is "only", no negation; "nicht nur ... sondern auch" is both
    ("Le remboursement n'est possible que dans les trente jours.",
     "Le remboursement est possible dans les trente jours. Le client envoie la facture au service."),
    ("Die Gutschrift gilt für Bestellungen.",
     "Die Gutschrift gilt nicht nur für Bestellungen, sondern auch für Rücksendungen. Sie wird vom Kundenservice "
     "erstellt."),
    ("Die Rechnung ist gesperrt.", "Wenn die Rechnung gesperrt ist, wird sie nicht bezahlt. Der Einkauf klärt die "
                                   "Abweichung."),
])
def test_near_misses_of_a_negation_after_the_verb_are_no_flip(claim, passage):
    verdict = judged(claim, passage)
    assert verdict.label == "supported", verdict.reason


@pytest.mark.parametrize("claim, passage, label", [
    ("Die Gutschrift verfällt nicht.", "Die Gutschrift verfällt nach zwölf Monaten.", "contradicted"),
    ("Die Gutschrift verfällt.", "Die Gutschrift verfällt nicht.", "contradicted"),
    ("Die Gutschrift verfällt nicht.", "Die Gutschrift verfällt nicht.", "supported"),
    ("Le crédit n'expire pas.", "Le crédit expire après douze mois.", "contradicted"),
    ("Le crédit expire.", "Le crédit n'expire jamais.", "contradicted"),
    ("Le crédit n'expire pas.", "Le crédit n'expire pas.", "supported"),
    ("Le remboursement n'est possible que dans les trente jours.",
     "Le remboursement est possible dans les trente jours.", "supported"),
])
def test_the_rules_judge_reads_german_and_french_negation(claim, passage, label):
    verdict = get_judge("rules").judge(claim, Evidence("", (Passage("P1", passage),)))
    assert verdict.label == label, verdict.reason
    if label == "contradicted":
        assert verdict.reason.startswith("negation flip") and set(verdict.clashed) & {
            "nicht", "n'expire pas", "n'expire jamais"}, verdict.clashed


@pytest.mark.parametrize("claim, passages, label", [
    # one short sentence tells no language ("die" alone): it is read in the claim's, which does
    ("Die Gutschrift verfällt nicht.", ["Die Gutschrift verfällt nach zwölf Monaten."], "contradicted"),
    ("Le crédit n'expire pas.", ["Le crédit expire après douze mois."], "contradicted"),
    ("Die Gutschrift verfällt nicht.", ["Die Gutschrift verfällt nach zwölf Monaten.", "Rückfragen an die Buchhaltung."],
     "contradicted"),
    ("Die Gutschrift verfällt nach zwölf Monaten.", ["Die Gutschrift verfällt nach zwölf Monaten."], "supported"),
    ("Le crédit expire après douze mois.", ["Le crédit expire après douze mois."], "supported"),
    # an English passage that tells its language stays English; an English claim changes nothing
    ("Refunds take 5 days.", ["Refunds take 5 days."], "supported"),
    ("The credit does not expire.", ["The credit expires after twelve months."], "contradicted"),
])
def test_the_signals_judge_reads_short_passages_in_the_claims_language(claim, passages, label):
    """The words the reason names as missing are there: both sides stemmed in one language."""
    verdict = judged(claim, *passages)
    assert verdict.label == label, verdict.reason
    assert "missing" not in verdict.reason, verdict.reason
    if label == "contradicted":
        assert verdict.reason.startswith("negation flip"), verdict.reason
    route, _ = get_judge("signals").measure(claim, Evidence("", tuple(Passage(f"P{k}", t) for k, t in
                                                                     enumerate(passages, 1))))
    assert route == ("negation" if label == "contradicted" else "model")


def test_no_longer_is_a_negation_whose_longer_is_no_word_the_passage_must_write():
    passage = ("Travel expense claims must be submitted within 30 days after the end of the trip. Claims submitted more "
               "than three months after the end of the trip are not reimbursed.")
    verdict = judged("After 10 August, the claim would no longer be reimbursed at all.", passage,
                     question="My trip ended on 10 May.")
    assert verdict.label == "supported" and "longer" not in verdict.reason, verdict.reason
    # the negation is still read: against a passage that reimburses, it flips
    flipped = judged("Hotel costs are no longer reimbursed.", "Hotel costs are reimbursed up to 120 EUR per night.")
    assert flipped.label == "contradicted" and flipped.reason.startswith("negation flip"), flipped.reason


@pytest.mark.parametrize("claim, passage, question, label", [
    # "nichts" negates its clause: read as the negation it is, not a word the passage must write
    ("Nach dem 28. Mai 2025 wird gar nichts mehr erstattet.",
     "Claims submitted more than three months after the end of the trip are not reimbursed.",
     "Meine Reise endete am 28. Februar 2025.", "supported"),
    ("Für Hotelkosten wird nichts erstattet.", "Hotelkosten werden bis 120 EUR pro Nacht erstattet.", "",
     "contradicted"),
])
def test_nichts_negates_its_clause(claim, passage, question, label):
    verdict = judged(claim, passage, question=question)
    assert verdict.label == label and "nichts" not in verdict.reason, verdict.reason


def test_get_is_no_fact_the_passage_must_write_as_erhalten_is_not():
    verdict = judged("You get 0.30 EUR per kilometre.",
                     "Use of a private car is reimbursed at 0.30 EUR per kilometre, up to 130 EUR per trip.")
    assert verdict.label == "supported" and "get" not in verdict.reason, verdict.reason


# ---------------------------------------------------------------- a number of a kind the passages never give

SICK_PAY = "From the first day of illness you keep your full pay for six weeks; after that, ask HR."
PRIORITY = "The service desk sets a ticket's priority from its impact and urgency within 2 hours."


@pytest.mark.parametrize("claim, passage, label, said", [
    # a percentage where the passages give none adds a fact: unsupported, and the reason says so
    ("After six weeks, the health insurer pays about 70% of your gross salary.", SICK_PAY, "unsupported",
     "which gives no percentage (it gives first, six)"),
    # where they give one, another percentage is another value for it: contradicted
    ("After six weeks, the health insurer pays about 70% of your gross salary.",
     SICK_PAY + " The insurer then pays 80% of it.", "contradicted", "which gives first, six, 80%"),
    # a code of a family the passages never write ("P2" where no priority code is written)
    ("New tickets are created with priority P2 within 2 hours.", PRIORITY, "unsupported", "which gives no P code"),
    ("New tickets are created with priority P2 within 2 hours.", PRIORITY + " Outages are P1.", "contradicted",
     "which gives 2, P1"),
    # a count, an amount or a time the passages lack stays a contradiction: answers compute them
    ("After six weeks, the health insurer pays 2,000 EUR a month.", SICK_PAY, "contradicted", "which gives first"),
])
def test_a_number_of_a_kind_the_passages_never_give_is_unsupported_not_contradicted(claim, passage, label, said):
    evidence = Evidence("", (Passage("KB-1", passage),))
    verdict = get_judge("signals").judge(claim, evidence)
    assert verdict.label == label and said in verdict.reason, verdict.reason
    # the SPEC's rules judge does not tell them apart
    assert get_judge("rules").judge(claim, evidence).label == "contradicted"


def test_a_code_of_a_passage_id_s_family_is_a_wrong_reference_not_a_new_fact():
    evidence = Evidence("", (Passage("KB-5", PRIORITY),))
    verdict = get_judge("signals").judge("Priority is set from impact and urgency (see KB-6).", evidence)
    assert verdict.label == "contradicted" and "KB-6" in verdict.reason, verdict.reason
    verdict = get_judge("signals").judge("Priority is set from impact and urgency (see HR-6).", evidence)
    assert verdict.label == "unsupported" and "which gives no HR code" in verdict.reason, verdict.reason


@pytest.mark.parametrize("claim, passage", [
    ("Carried-over days must be taken by 31 March at the latest.", "Carried-over days must be taken by 31 March."),
    ("Carried-over days must be taken no later than 31 March.", "Carried-over days must be taken by 31 March."),
    ("Übertragene Urlaubstage müssen spätestens am 31. März genommen werden.",
     "Übertragene Urlaubstage müssen bis zum 31. März genommen werden."),
    ("Les jours reportés doivent être pris au plus tard le 31 mars.", "Les jours reportés doivent être pris avant le 31 mars."),
])
def test_a_deadline_s_own_marker_is_no_fact_the_passage_must_write(claim, passage):
    verdict = judged(claim, passage)
    assert verdict.label == "supported", verdict.reason
    assert "missing" not in verdict.reason
    assert judged(claim.replace("31", "20"), passage).label == "contradicted"


# ---------------------------------------------------------------- HR-leave and travel-expense answers

_RECEIPTS = "Expense reports must be submitted within 30 days after the end of the trip. Receipts are required " \
            "for all expenses above 25 EUR. Late reports are reimbursed only with the approval of the cost " \
            "centre manager."


def test_only_for_what_the_evidence_says_all_of_is_no_clash():
    # "only required for expenses above 25 EUR" restricts to what "required for all expenses above 25
    # EUR" covers; "only for hotel expenses" is another scope
    assert judged("No, receipts are only required for expenses above 25 EUR.", _RECEIPTS).label == "supported"
    from groundlab.judges.signals.conflicts import _same_scope
    evidence = "Receipts are required for all expenses above 25 EUR."
    assert _same_scope("Receipts are only required for expenses above 25 EUR.", "only required for", evidence, "for all")
    assert not _same_scope("Receipts are only required for hotel expenses.", "only required for", evidence, "for all")
    assert not _same_scope("Receipts are only required for expenses.", "only required for", evidence, "for all")


def test_a_comparison_of_two_periods_is_checked_in_days_and_is_no_word_a_passage_must_write():
    right = judged("Your report is late, since 6 weeks is more than 30 days.", _RECEIPTS,
                   question="I forgot to submit my expenses for 6 weeks.")
    assert right.label == "supported", right.reason
    wrong = judged("Your report is in time, since 3 weeks is more than 30 days.", _RECEIPTS,
                   question="I forgot to submit my expenses for 3 weeks.")
    assert wrong.label == "contradicted" and \
        wrong.reason.startswith('comparison wrong: the claim says "3 weeks is more than 30 days"'), wrong.reason


def test_a_deduction_is_a_computation_the_claim_says():
    passage = "The meal allowance is 28 EUR for each full calendar day. Meals provided by the employer reduce " \
              "the allowance by 11.20 EUR each for lunch or dinner."
    answer = "For a full calendar day the allowance is 28 EUR. Because lunch was provided, 11.20 EUR is " \
             "deducted, so you receive 16.80 EUR."
    verdict = get_judge("signals").judge("Because lunch was provided, 11.20 EUR is deducted, so you receive 16.80 EUR.",
                                         Evidence("Full day, lunch provided?", (Passage("TR-1", passage),), answer))
    assert verdict.label == "supported" and "16.80 EUR = 28 EUR − 11.20 EUR" in verdict.reason, verdict.reason


@pytest.mark.parametrize("claim, passage", [
    ("Please submit the request in the HR portal.", "Leave requests must be submitted in the HR portal."),
    ("Frühstück: abzüglich 5,60 EUR.", "Für ein gestelltes Frühstück werden 5,60 EUR von der Pauschale gekürzt."),
])
def test_please_and_an_operator_word_are_no_content_words(claim, passage):
    verdict = judged(claim, passage)
    assert "Please" not in verdict.reason and "abzüglich" not in verdict.reason.split("numbers")[0], verdict.reason


@pytest.mark.parametrize("claim", ["Für den Anreisetag gibt es 14 EUR.", "Am Abreisetag erhalten Sie 14 EUR.",
                                   "Überstunden an Sonntagen werden im Verhältnis 1:1,5 ausgeglichen."])
def test_a_german_word_cut_short_before_und_is_read_whole(claim):
    passage = "Die Pauschale beträgt 14 EUR für An- und Abreisetage. Überstunden werden an Sonn- und Feiertagen " \
              "im Verhältnis 1:1,5 ausgeglichen."
    verdict = judged(claim, passage)
    assert verdict.label == "supported", verdict.reason


def test_the_stems_of_a_german_word_cut_short():
    from groundlab.judges.signals.words import _foreign_stem, german_ellipsis_stems
    stems = german_ellipsis_stems("Für Sonn- und Feiertage gilt 1:1,5.")
    assert _foreign_stem("sonntage", "german") in stems and german_ellipsis_stems("Sonntage gelten.") == frozenset()


_HOTELS = "Hotel costs are reimbursed up to 120 EUR per night including breakfast; in Munich, Hamburg and " \
          "Frankfurt up to 150 EUR per night."


@pytest.mark.parametrize("claim, question, label", [
    ("Hotel costs are reimbursed up to 150 EUR per night, so your 140 EUR are fully covered.",
     "My hotel in Cologne costs 140 EUR a night.", "unsupported"),
    ("Hotel costs are reimbursed up to 150 EUR per night.", "", "unsupported"),
    # the claim or the question names the case the value is given for
    ("In Munich hotel costs are reimbursed up to 150 EUR per night.", "", "supported"),
    ("Hotel costs are reimbursed up to 150 EUR per night.", "My hotel in Hamburg costs 140 EUR.", "supported"),
    # the value for every other case
    ("Hotel costs are reimbursed up to 120 EUR per night.", "", "supported"),
])
def test_a_value_the_passages_give_only_for_named_cases_needs_them(claim, question, label):
    verdict = judged(claim, _HOTELS, question=question)
    assert verdict.label == label, verdict.reason
    if label == "unsupported":
        assert verdict.reason.startswith("the passages give 150 EUR only for Munich, Hamburg and Frankfurt"), \
            verdict.reason


def test_a_number_of_another_matter_is_no_named_case():
    # "150 EUR" computed for mileage is not the hotel rate of three cities
    passage = _HOTELS + " Mileage is reimbursed at 0.30 EUR per km, up to a maximum of 130 EUR per trip."
    verdict = judged("500 km × 0.30 EUR = 150 EUR, but the maximum is 130 EUR per trip, so you receive 130 EUR.",
                     passage, question="I drove 500 km.")
    assert "only for" not in verdict.reason, verdict.reason


# ---------------------------------------------------------------- procurement, payroll and working-time answers

_DISCOUNT = "Invoices are paid within 30 days of receipt. Suppliers who accept payment within 10 days receive a " \
            "2% early-payment discount."


_PRINTING = "Print jobs are deleted from the queue after 24 hours. Colour printing is limited to 200 pages per month " \
            "per employee."


@pytest.mark.parametrize("passage, question, right, computed, wrong", [
    # an amount less a percentage of it is a product: no word of a computation needed
    (_DISCOUNT, "A supplier invoice of 2,000 EUR arrived on 3 March. When is it paid?",
     "If the supplier accepts payment within 10 days, they get a 2% discount, so they would receive 1,960 EUR.",
     "1,960 EUR = 2,000 EUR − 2%", "If the supplier accepts payment within 10 days, they would receive 1,940 EUR."),
    # what is left, counted as "N more", says a difference
    (_PRINTING, "I printed 150 colour pages this month. How many more can I print?",
     "Colour printing is limited to 200 pages per month, so you can print 50 more colour pages this month.",
     "50 = 200 − 150", "Colour printing is limited to 200 pages per month, so you can print 70 more colour pages."),
])
def test_a_computation_a_reader_accepts_without_its_usual_words(passage, question, right, computed, wrong):
    verdict = judged(right, passage, question=question)
    assert verdict.label == "supported" and computed in verdict.reason, verdict.reason
    verdict = judged(wrong, passage, question=question)
    assert verdict.label == "contradicted", verdict.reason


def test_two_like_numbers_of_the_passages_a_step_apart_are_no_computation():
    assert judged("Invoices are paid within 20 days.", _DISCOUNT).label == "contradicted"


_PENSION = "The company matches employee pension contributions up to 4% of the gross salary. Contributions above " \
           "4% are not matched."


def test_a_claim_that_gives_both_sides_of_a_rule_is_no_negation_flip():
    verdict = judged("The company matches contributions up to 4% of your gross salary; the remaining 2% are not "
                     "matched.", _PENSION, question="I contribute 6% to my pension. How much does the company add?")
    assert verdict.label == "supported", verdict.reason
    # a claim that only negates, or whose passages never negate, still flips
    assert judged("The company does not match pension contributions.", _PENSION).label == "contradicted"
    assert judged("The company matches contributions up to 4% of your gross salary; the remaining 2% are not "
                  "matched.", "The company matches employee pension contributions up to 4% of the gross salary.",
                  question="I contribute 6% to my pension.").label == "contradicted"


@pytest.mark.parametrize("claim", ["On a gross salary of 5,000 EUR, the match is 200 EUR per month.",
                                   "On a salary of 5,000 EUR the company adds 200 EUR."])
def test_on_a_salary_of_is_the_users_example(claim):
    verdict = judged(claim, _PENSION)
    assert verdict.label == "supported" and "200 EUR = 4% of 5,000 EUR" in verdict.reason, verdict.reason


def test_what_is_left_to_pay_is_a_computation_word():
    passage = "Les frais de repas sont remboursés jusqu'à 20 EUR par repas sur présentation d'un justificatif."
    verdict = judged("Vous serez donc remboursé de 20 EUR, les 8 EUR restants sont à votre charge.", passage,
                     question="J'ai dîné pour 28 EUR. Combien est remboursé ?")
    assert verdict.label == "supported", verdict.reason
    verdict = judged("So 20 EUR are reimbursed and the remaining 8 EUR are at your own expense.",
                     "A business lunch is reimbursed up to 20 EUR with a receipt.", question="My lunch was 28 EUR.")
    assert verdict.label == "supported", verdict.reason


@pytest.mark.parametrize("claim, passage", [
    ("Bitte melden Sie den Verlust spätestens innerhalb von 24 Std. dem Service Desk.",
     "Verlorene Geräte sind spätestens innerhalb von 24 Stunden dem Service Desk zu melden."),
    ("Production access is granted for max. 8 hrs per request.",
     "Access to the production system is granted for a maximum of 8 hours per request."),
])
def test_a_unit_of_time_written_short_is_its_word(claim, passage):
    verdict = judged(claim, passage)
    assert "Std" not in verdict.reason and "hrs" not in verdict.reason.split("numbers")[0], verdict.reason


def test_short_units_that_say_something_else_are_left_alone():
    from groundlab.judges.signals.words import _Words
    assert "mo" not in _Words("Der Service Desk ist Mo–Fr besetzt.", "german").stems
    assert _Words("Min. 30 days notice.", "english").stems[0] == "min"  # English "min." is minimum too


_TELEWORK = "Le télétravail est possible jusqu'à 2 jours par semaine, après accord du manager. Une indemnité de " \
            "2,50 EUR par jour de télétravail est versée."


def test_the_users_number_stated_as_the_passages_bound_is_a_contradiction():
    verdict = judged("Oui, le télétravail est possible jusqu'à 3 jours par semaine.", _TELEWORK,
                     question="Télétravail 3 jours ?")
    assert verdict.label == "contradicted" and "3 jours" in verdict.reason and "2 jours" in verdict.reason, \
        verdict.reason
    # the user's number as an example, or beside the bound the passage gives, is no such statement
    assert judged("Non, le télétravail est possible jusqu'à 2 jours par semaine, pas 3.", _TELEWORK,
                  question="Télétravail 3 jours ?").label == "supported"
    assert judged("You can carry over up to 5 days, so your 3 days can all be carried over.",
                  "Up to 5 days of unused leave can be carried over.",
                  question="Can I carry over 3 days?").label == "supported"


def test_once_per_is_a_count_that_always_contradicts():
    passage = "A broken screen is repaired free of charge once per device; further repairs cost 150 EUR."
    assert judged("Screen repairs are always free of charge.", passage).label == "contradicted"
    assert judged("A broken screen is repaired free of charge once per device.", passage).label == "supported"


_MEALS = "Salaries are paid on the last working day of the month. Employees receive a meal allowance of 6.50 EUR " \
         "per working day in the office, paid with the following month's salary."


def test_the_month_after_the_users_is_computed_where_a_passage_pays_the_following_month():
    claim = "You receive 6.50 EUR per office day, so 12 × 6.50 EUR = 78 EUR, paid with your April salary."
    judge = get_judge("signals")
    right = judge.judge_batch([(claim, Evidence("I was in the office 12 days in March.", (Passage("P1", _MEALS),)))])[0]
    assert right.label == "supported" and "April = the month after March" in right.reason, right.reason
    # the same claim and passages, another month asked about: the question decides, not a kept verdict
    wrong = judge.judge_batch([(claim, Evidence("I was in the office 12 days in January.", (Passage("P1", _MEALS),)))])[0]
    assert wrong.label == "unsupported" and "April" in wrong.reason, wrong.reason
    german = judged("Die Pauschale wird im April ausgezahlt.", "Die Pauschale wird im Folgemonat ausgezahlt.",
                    question="Ich war im März 12 Tage im Büro.")
    assert german.label == "supported", german.reason


def test_a_month_is_no_month_after_without_a_passage_that_moves_to_the_next():
    from groundlab.core.months import month_after
    assert month_after("It is paid with your April salary.", "I was in the office in March.",
                       ["Salaries are paid on the last working day of the month."]) == ()
    assert month_after("You may apply in April.", "What about March?", ["Pay follows next month."]) == \
        (("April", "April = the month after March"),)
    assert month_after("You may apply.", "What about March?", ["Pay follows next month."]) == ()


_TRAINING = "Training costs up to 2,000 EUR per year are approved by the line manager; higher amounts need HR approval."


@pytest.mark.parametrize("claim, label", [
    ("Amounts above 2,000 EUR per year need HR approval, so HR must approve your 3,000 EUR course.", "supported"),
    ("Training costs above 2,000 EUR per year are approved by the line manager.", "contradicted"),
])
def test_a_bound_whose_sentence_gives_the_other_side_too(claim, label):
    verdict = judged(claim, _TRAINING, question="A course costs 3,000 EUR. Who approves?")
    assert verdict.label == label, verdict.reason
    # a bound's own "more than" gives no other side
    assert judged("Refunds up to 500 EUR need approval.", "Refunds of more than 500 EUR need approval.").label == \
        "contradicted"


def test_a_time_written_with_pm_meets_the_passages_24_hour_clock():
    verdict = judged("Laptops are backed up every day at 10 pm.", "Laptops are backed up daily at 22:00.")
    assert verdict.label == "supported", verdict.reason
    assert judged("Laptops are backed up every day at 11 pm.", "Laptops are backed up daily at 22:00.").label == \
        "contradicted"
