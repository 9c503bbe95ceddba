"""The signals judge: what the rules judges flag wrongly on real answers is now supported, what
they catch is still caught, and every verdict says why."""

from __future__ import annotations

import json

import pytest

from groundlab import evaluate, load_cases
from groundlab.identity import judge_identity
from groundlab.judges import DEFAULT_JUDGE, get_judge
from groundlab.judges.signals import FEATURES, clean_text, frame, load_config
from groundlab.records import Evidence, GroundlabError, Passage

from conftest import CASES, NOTES


def ev(*texts: str, question: str = "What happens?") -> Evidence:
    return Evidence(question, tuple(Passage(f"P{k}", t) for k, t in enumerate(texts, 1)))


def judged(claim: str, *texts: str, judge: str = "signals", question: str = "What happens?"):
    return get_judge(judge).judge(claim, ev(*texts, question=question))


def test_signals_is_the_default_judge():
    assert DEFAULT_JUDGE == "signals" and get_judge().name == "signals"


# ---------------------------------------------------------------- false alarms of the rules judges


@pytest.mark.parametrize("claim, passage", [
    # word forms
    ("The settlers colonized the coast.", "The colonization of the coast by settlers began early."),
    ("He was cold.", "The officer was described as cold-hearted."),
    ("Approvals are released by the analyst.", "The analyst releases the approval."),
    # HTML entities in the answer
    ("Open&nbsp;iTunes and click &ldquo;Store&rdquo;.", "Open iTunes and click \u201cStore\u201d."),
])
def test_word_forms_and_entities_are_supported(claim, passage):
    assert judged(claim, passage, judge="rules").label != "supported"  # what the rules judge says
    verdict = judged(claim, passage)
    assert verdict.label == "supported", verdict.reason
    assert 0 <= verdict.score <= 1 and verdict.reason.startswith("score ")


def test_no_before_a_number_negates_nothing():
    """"No. 256" numbers an issue (the rules judges already read it so, through groundlab.numbers)."""
    passage = "Psylocke's new body first appeared in Uncanny X-Men No. 256 in 1989."
    for judge in ("rules", "signals"):
        verdict = judged("Psylocke first appeared in Uncanny X-Men No. 256.", passage, judge=judge)
        assert verdict.label == "supported", (judge, verdict.reason)
    assert judged("Psylocke did not appear in Uncanny X-Men No. 256.", passage).label == "contradicted"


_CARRY_OVER = ("Up to 5 days of unused annual leave can be carried over into the next calendar year. Carried-over "
               "days must be taken by 31 March; any carried-over days not taken by then are forfeited. Unused days "
               "beyond the 5-day limit lapse on 31 December.")


@pytest.mark.parametrize("claim, label", [
    # the sentence holding most of the claim's words ("unused", "days") is not the one that says "forfeited"
    ("Unused days are not forfeited.", "contradicted"),
    ("Carried-over days are not forfeited.", "contradicted"),
    # a limit restated the other way round is no flip, in whichever sentence it stands
    ("Unused days beyond 5 cannot be carried over and lapse on 31 December.", "supported"),
    ("Carried-over days not taken by 31 March are forfeited.", "supported"),
])
def test_a_negation_flip_is_looked_for_in_the_sentence_that_holds_the_negated_words(claim, label):
    verdict = judged(claim, _CARRY_OVER)
    assert verdict.label == label, verdict.reason
    if label == "contradicted":
        assert "any carried-over days not taken by then are" in verdict.reason


def test_a_claim_negating_what_another_sentence_negates_too_is_no_flip():
    passage = "Laptops are replaced every 4 years. Unused laptops are not replaced early and are not sold to staff."
    assert judged("Laptops are not sold to staff.", passage).label == "supported"


@pytest.mark.parametrize("claim", [
    "Based on the provided passages, here is the answer.",
    "Here is a summary in 84 words or less.",
    "(Passage 3).",
    "I hope this helps!",
])
def test_framing_sentences_are_no_facts(claim):
    passage = "The buyer contacts the vendor when the price variance is above tolerance."
    assert judged(claim, passage, judge="rules").label != "supported"
    verdict = judged(claim, passage)
    assert verdict.label == "supported" and verdict.score == 1.0
    assert verdict.reason.startswith("framing sentence, not a fact")


@pytest.mark.parametrize("claim, set_aside", [
    ("Passage 2 states that the buyer contacts the vendor.", "Passage 2 states that"),
    ("The buyer contacts the vendor (Passage 3).", "(Passage 3)"),
    ("Overall, the author believes the buyer contacts the vendor.", "the author believes"),
    ("According to the documents, the buyer contacts the vendor.", "According to the documents"),
])
def test_passage_references_and_lead_ins_are_set_aside_and_the_rest_is_judged(claim, set_aside):
    passage = "If the price variance is above tolerance, the buyer contacts the vendor."
    assert judged(claim, passage, judge="rules").label != "supported"
    verdict = judged(claim, passage)
    assert verdict.label == "supported", verdict.reason
    assert f"set aside: " in verdict.reason and set_aside in verdict.reason
    # what is left is still a fact: an invented one is flagged
    invented = claim.replace("buyer contacts the vendor", "plant manager signs a waiver")
    assert judged(invented, passage).label == "unsupported"


def test_a_negation_elsewhere_in_the_evidence_sentence_decides_nothing():
    passage = ("The credit analyst releases the order within the day, but no approval is needed when the "
               "amount is small.")
    claim = "The credit analyst releases the order within the day."
    assert judged(claim, passage, judge="rules").label == "contradicted"  # the rules judge's false alarm
    verdict = judged(claim, passage)
    assert verdict.label == "supported", verdict.reason


def test_a_negation_said_in_other_words_is_no_flip():
    verdict = judged("The plant does not meet the emission standard.",
                     "The plant falls far short of the emission standard.")
    assert verdict.label != "contradicted" and "negation" not in verdict.reason


# ---------------------------------------------------------------- still caught


@pytest.mark.parametrize("claim, passage, shown", [
    ("The supplier delivered 80 of 100 pieces.", "The supplier delivered 90 of 100 pieces.", "number 80"),
    ("Refunds over 700 EUR need the team lead.", "Refunds over 500 EUR need the team lead.", "number 700 EUR"),
    ("The error code is PRC-113.", "Error PRC-112 means a price condition is missing.", "number PRC-113"),
])
def test_invented_numbers_are_contradicted(claim, passage, shown):
    verdict = judged(claim, passage)
    assert verdict.label == "contradicted" and verdict.score == 0.0
    assert verdict.reason.startswith(shown)


@pytest.mark.parametrize("claim, passage, side", [
    ("Yes, incomplete orders can be billed once they are delivered.",
     "Incomplete orders cannot be delivered or billed.", "the evidence negates"),
    ("The analyst does not release the order.", "Below 2 percent the analyst releases the order.",
     "the claim negates"),
    ("The payment run never pays blocked invoices.", "The payment run pays blocked invoices once a day.",
     "the claim negates"),
    # the claim's words spread over two clauses of the evidence sentence
    ("The invoice can be paid before the variance is cleared.",
     "The invoice cannot be paid until the variance is cleared.", "the evidence negates"),
    # the negation reaches across "or"
    ("Incomplete orders can be billed.", "Incomplete orders cannot be delivered or billed.", "the evidence negates"),
])
def test_negation_flips_are_contradicted(claim, passage, side):
    verdict = judged(claim, passage)
    assert verdict.label == "contradicted", verdict.reason
    assert verdict.reason.startswith(f"negation flip: {side}") and verdict.score == 0.0


def test_invented_details_are_unsupported_and_the_reason_names_the_signals():
    verdict = judged("The plant manager signs a waiver for the invoice.",
                     "A quantity variance above the tolerance blocks the invoice for payment until someone "
                     "resolves it.")
    assert verdict.label == "unsupported" and verdict.score < get_judge("signals").threshold
    for words in ("score", "content words in the evidence", "missing: plant, manager, signs, waiver", "word pairs",
                  "best sentence holds"):
        assert words in verdict.reason


def test_a_clause_the_evidence_lacks_is_weighed_by_the_model_and_named_in_the_reason():
    """A clause mostly missing from the evidence is a signal the model weighs, no verdict on its own
    (as a rule it raised most of the false alarms on real answers): the claim scores lower than
    with the clause backed, and the reason names the clause."""
    lacking = ev("The credit analyst reviews the open items.", "The weather was sunny.")
    claim = "The credit analyst reviews the open items and planners review exceptions."
    judge = get_judge("signals")
    route, signals = judge.measure(claim, lacking)
    assert route == "model" and dict(zip(FEATURES, signals.values))["clause"] == 1.0
    verdict = judge.judge(claim, lacking)
    assert 'the clause "planners review exceptions" has 1/3 in the evidence' in verdict.reason
    both = ev("The credit analyst reviews the open items.", "Planners review the exceptions every morning.")
    backed = judge.judge(claim, both)
    assert backed.label == "supported" and backed.score > verdict.score and "the clause" not in backed.reason


def test_swapped_roles_break_word_pairs():
    """Every word of the claim is in the evidence; its pairs are not: what the pairs signal sees."""
    judge = get_judge("signals")
    evidence = ev("The commissioner apologised to the mayor after the council meeting.")
    route, swapped = judge.measure("The mayor apologised to the commissioner.", evidence)
    _, kept = judge.measure("The commissioner apologised to the mayor.", evidence)
    assert route == "model"
    values = dict(zip(FEATURES, swapped.values))
    assert values["coverage"] == 1.0 and values["pairs"] < dict(zip(FEATURES, kept.values))["pairs"] == 1.0


def test_sample_set_catches_every_hallucination_and_scores_are_probabilities():
    ev_signals = evaluate(load_cases(CASES, NOTES), "signals")
    claims = ev_signals.claims
    assert claims["score"].between(0, 1).all()
    assert claims["verdict"].value_counts().to_dict() == {"supported": 13, "contradicted": 3, "unsupported": 4}
    flagged = claims["verdict"] != "supported"
    assert (flagged & (claims["label"] != "supported")).sum() == 6  # of 6
    # c05's "an amended bill or a credit note" for "a corrected invoice or a credit memo": words no
    # word-overlap judge can match (the rules judges' false alarm on the sample set, SPEC 6, too)
    c05 = claims[(claims["case_id"] == "c05") & (claims["claim"] == 2)].iloc[0]
    assert c05["label"] == "supported" and c05["verdict"] == "unsupported"
    assert "missing: requests, amended, note" in c05["reason"]
    assert (flagged & (claims["label"] == "supported")).sum() == 1
    threshold = get_judge("signals").threshold
    model = claims[claims["reason"].str.startswith("score ")]
    assert ((model["score"] >= threshold) == (model["verdict"] == "supported")).all()


# ---------------------------------------------------------------- the text


def test_clean_text_decodes_entities_and_drops_tags():
    assert clean_text("a&amp;b <em>c</em>&#39;s") == "a&b  c 's"


def test_frame_keeps_a_fact_that_opens_like_a_lead_in():
    assert not frame("Here the buyer contacts the vendor.").framing
    here = frame("Here is the answer: the buyer contacts the vendor.")
    assert not here.framing and here.text == "the buyer contacts the vendor."
    assert frame("The passage states nothing about refunds.").text == "nothing about refunds."


# ---------------------------------------------------------------- the config and identity


def test_identity_pins_the_weights(tmp_path):
    shipped = judge_identity(get_judge("signals"))
    assert shipped["config"] == "groundlab/data/signals.json" and len(shipped["config_sha256"]) == 64
    assert shipped["settings"]["threshold"] == load_config().threshold
    data = json.loads(json.dumps(load_config().data))
    data["threshold"] = 0.6
    mine = tmp_path / "judge.json"
    mine.write_text(json.dumps(data), encoding="utf-8")
    own = judge_identity(get_judge("signals", config=mine))
    assert own["config"] == str(mine) and own["config_sha256"] != shipped["config_sha256"]
    assert own["settings"]["threshold"] == 0.6


@pytest.mark.parametrize("content, words", [
    ("not json {", "is not JSON"),
    ('{"weights": {}}', "is not a groundlab judge config"),
    ('{"kind": "groundlab judge config", "judge": "nli", "weights": {}, "threshold": 0.5}', "is for the 'nli' judge"),
    ('{"kind": "groundlab judge config", "judge": "signals", "weights": {"intercept": 1}, "threshold": 0.5}',
     "lacks a number for the weight 'coverage'"),
])
def test_a_bad_judge_config_is_one_sentence(cli, sample_args, tmp_path, content, words):
    path = tmp_path / "judge.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(GroundlabError, match=words):
        get_judge("signals", config=path)
    code, out, err = cli("score", *sample_args, "--judge-config", path)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert words in err and str(path) in err


def test_a_judge_config_needs_the_signals_judge(cli, sample_args, tmp_path):
    code, _, err = cli("agree", *sample_args, "--judge", "rules", "--judge-config", tmp_path / "judge.json")
    assert code == 2 and "--judge-config does not apply to the rules judge; drop it or use --judge signals" in err


def test_the_question_is_no_statement_to_contradict_or_to_back():
    """The user's question shares the claim's words but asserts nothing: a negated answer is read
    against the passage, and a yes that only restates the question is not backed by it."""
    question = "Can an incomplete order be billed?"
    judge = get_judge("signals")
    said = judge.judge("No, incomplete orders cannot be billed.",
                       Evidence(question, (Passage("P", "Incomplete orders cannot be delivered or billed."),)))
    assert said.label == "supported", said.reason
    restated = judge.judge("Yes, incomplete orders can be billed.",
                           Evidence(question, (Passage("P", "Billing runs every night."),)))
    assert restated.label == "unsupported", restated.reason


# ---------------------------------------------------------------- answers as assistants write them


def test_a_passage_named_in_the_text_is_a_reference_not_a_number():
    evidence = Evidence("When was the policy updated?",
                        (Passage("KB-5", "The travel policy was last updated on 3 March 2025 by the HR department."),))
    verdict = get_judge("signals").judge("The travel policy was last updated on March 3, 2025 (see KB-5).", evidence)
    assert verdict.label == "supported", verdict.reason
    assert "numbers \"March 3, 2025\" found" in verdict.reason and "KB-5" not in verdict.reason
    # a code that is no passage's id is still a number the evidence must give
    verdict = get_judge("signals").judge("The travel policy was last updated on March 3, 2025 (see KB-6).", evidence)
    assert verdict.label == "contradicted" and "KB-6" in verdict.reason


@pytest.mark.parametrize("claim, passage, label", [
    ("审批通常需要3个工作日。", "审批通常需要三个工作日。紧急申请可在一个工作日内完成。", "supported"),
    ("紧急申请可在一个工作日内完成。", "审批通常需要三个工作日。紧急申请可在一个工作日内完成。", "supported"),
    ("退款由财务部门处理。", "审批通常需要三个工作日。紧急申请可在一个工作日内完成。", "unsupported"),
    ("审批通常需要五个工作日。", "审批通常需要三个工作日。", "contradicted"),
])
def test_chinese_is_read_in_pairs_of_characters_with_its_numbers(claim, passage, label):
    verdict = judged(claim, passage)
    assert verdict.label == label, verdict.reason


def test_short_scales_and_dotted_thousands_match_the_evidence():
    assert judged("Team leads can approve purchases up to $5k.",
                  "Team leads may approve purchases up to 5,000 USD.").label == "supported"
    assert judged("Refunds above EUR 1,000 need the finance manager's approval.",
                  "Refunds above 1.000 EUR need approval from the finance manager.").label == "supported"


@pytest.mark.parametrize("claim, passage, label", [
    ("Erstattungen über 1.000 EUR benötigen keine Freigabe.",
     "Erstattungen über 1.000 EUR benötigen die Freigabe durch den Finanzleiter.", "contradicted"),
    ("Erstattungen über 1.000 EUR benötigen die Freigabe des Finanzleiters.",
     "Erstattungen über 1.000 EUR benötigen die Freigabe durch den Finanzleiter.", "supported"),
    ("Les remboursements ne sont pas validés par le responsable financier.",
     "Les remboursements sont toujours validés par le responsable financier.", "contradicted"),
    ("Los reembolsos nunca requieren aprobación del gerente.",
     "Los reembolsos requieren aprobación del gerente financiero.", "contradicted"),
])
def test_negation_in_german_french_and_spanish(claim, passage, label):
    verdict = judged(claim, passage)
    assert verdict.label == label, verdict.reason


def test_a_function_word_with_its_auxiliary_is_no_content_word():
    from groundlab.judges.signals.words import _read_words

    assert _read_words("you'll be disconnected", "english").stems == ("disconnect",)
    assert _read_words("They\u2019re kept and we'd know", "english").stems == ("kept", "know")
    assert "shed'll" in _read_words("the shed'll stay", "english").stems  # a content word is kept


TRIP = (Passage("HR-20", "Expense claims must be submitted within 30 days after the end of the trip."),)
ENDED = "My trip ended on 10 May. When must I submit the claim?"


@pytest.mark.parametrize("claim, label", [
    ("Your expense claim is due by 9 June at the latest.", "supported"),  # "at the latest" words the limit
    ("You'll have to submit the expense claim by 9 June.", "supported"),
    ("Your expense claim is due by 12 June at the latest.", "contradicted"),  # 10 May + 30 days is 9 June
    ("Your expense claim is due by 9 June at the latest, and the manager signs it.", "unsupported"),
])
def test_a_computed_deadline_is_judged_on_what_it_says_besides_its_limit(claim, label):
    verdict = get_judge("signals").judge(claim, Evidence(ENDED, TRIP))
    assert verdict.label == label, verdict.reason


@pytest.mark.parametrize("passage, claim, label", [
    # a negation inside a noun phrase negates no clause: no negation flip
    ("Leave days not taken by 31 March are forfeited.", "Leave days are forfeited after 31 March.", "supported"),
    ("Orders not released within 3 days are cancelled automatically.",
     "Orders are cancelled automatically after 3 days.", "supported"),
    ("Bis zu fünf nicht genommene Urlaubstage können in das Folgejahr übertragen werden.",
     "Sie können 5 Urlaubstage in das Folgejahr übertragen.", "supported"),
    ("Nicht genommener Resturlaub verfällt am 31. März des Folgejahres.",
     "Resturlaub verfällt am 31. März des Folgejahres.", "supported"),
    # a negation of the clause still flips, after an auxiliary, an adverb or a quantifier
    ("Receipts not submitted within 30 days are not reimbursed.", "Receipts are reimbursed.", "contradicted"),
    ("Leave requests are usually not approved in December.", "Leave requests are usually approved in December.",
     "contradicted"),
    ("Es können nicht alle Tage übertragen werden.", "Es können alle Tage übertragen werden.", "contradicted"),
    ("Der Antrag wird nicht genehmigt.", "Der Antrag wird genehmigt.", "contradicted"),
    # a negation inside a relative clause ends with it, where the sentence's own verb follows
    ("Software that is not in the catalogue is requested with the 'Software request' form.",
     "Request it with the 'Software request' form.", "supported"),
    ("Requests which are not signed are returned to the sender.", "Requests are returned to the sender.",
     "supported"),
    ("Requests that are signed are not returned to the sender.", "Requests are returned to the sender.",
     "contradicted"),
    ("Items that are damaged cannot be returned to the shop.", "Items can be returned to the shop.",
     "contradicted"),
    ("The policy says that leave is not paid out.", "Leave is paid out.", "contradicted"),
])
def test_a_negation_inside_a_noun_phrase_is_no_negation_flip(passage, claim, label):
    verdict = get_judge("signals").judge(claim, Evidence("?", (Passage("P", passage),)))
    assert verdict.label == label, verdict.reason


@pytest.mark.parametrize("claim, label", [
    # a participle that opens the sentence, "ausgeschlossen" negating its clause, "während des" no clause
    ("Ausgezahlt wird Resturlaub nicht, solange das Arbeitsverhältnis besteht.", "supported"),
    ("Eine Auszahlung von Resturlaub ist während des Arbeitsverhältnisses möglich.", "contradicted"),
])
def test_a_payout_ruled_out_is_a_payout_not_made(claim, label):
    passage = Passage("PHB-4.2", "Übertragener Resturlaub verfällt am 31. März des Folgejahres. Eine Auszahlung von "
                                 "Resturlaub ist während des bestehenden Arbeitsverhältnisses ausgeschlossen.")
    verdict = get_judge("signals").judge(claim, Evidence("Kann ich mir Resturlaub auszahlen lassen?", (passage,)))
    assert verdict.label == label, verdict.reason


def test_a_german_participle_meets_its_verb_and_a_noun_keeps_its_ge():
    from groundlab.judges.signals.words import _foreign_stem

    def german(word):
        return _foreign_stem(word.lower(), "german", word[0].islower())

    assert german("gekürzt") == german("kürzt") == german("kürzen")
    assert german("ausgezahlt") == german("auszahlen") == german("Auszahlung")
    assert german("Gehalt") != german("gehalten")  # a noun: salary, not held
    passage = "Wird ein Mittagessen gestellt, wird die Pauschale um 11,20 EUR gekürzt."
    verdict = get_judge("signals").judge("Das gestellte Mittagessen kürzt die Pauschale um 11,20 EUR.",
                                         Evidence("?", (Passage("PHB-7.2", passage),)))
    assert verdict.label == "supported", verdict.reason


def test_a_question_that_tells_no_language_is_read_in_its_passages():
    # "Ich reise Dienstag bis Freitag." holds no German function word the language test knows: beside
    # German passages it is German, so the days it names are the user's, found in the question
    passage = Passage("PHB-7.2", "Die Verpflegungspauschale beträgt 28 EUR für volle Tage und 14 EUR für An- und "
                                 "Abreisetage.")
    evidence = Evidence("Ich reise Dienstag bis Freitag. Was bekomme ich?", (passage,))
    verdict = get_judge("signals").judge("Freitag (Abreise): 14 EUR", evidence)
    assert verdict.label == "supported" and "Freitag" not in verdict.reason, verdict.reason
    # a question that tells its own language keeps it
    english = get_judge("signals").judge("Freitag (Abreise): 14 EUR",
                                         Evidence("I travel from Tuesday to Friday; what do I get?", (passage,)))
    assert "Freitag" in english.reason


_PARENTAL = ("Elternzeit kann bis zum achten Lebensjahr genommen werden. Während der Elternzeit ist eine "
             "Teilzeittätigkeit von bis zu 32 Wochenstunden zulässig.")


def test_a_german_word_is_found_as_a_part_of_a_compound_of_the_evidence():
    # "Stunden" is the last part of "Wochenstunden", "Teilzeit" the first of "Teilzeittätigkeit"
    verdict = judged("Während der Elternzeit sind bis zu 32 Stunden Teilzeit zulässig.", _PARENTAL)
    assert verdict.label == "supported" and "4/4 content words in the evidence" in verdict.reason, verdict.reason
    # a word no compound holds is still missing, and an English claim reads no compounds
    other = judged("Während der Elternzeit sind bis zu 32 Stunden Nebentätigkeit beim Wettbewerber zulässig.", _PARENTAL)
    assert "missing: Nebentätigkeit, Wettbewerber" in other.reason, other.reason
    english = judged("The password must have 12 characters and a word.", "Every password needs 12 characters.")
    assert "missing: word" in english.reason, english.reason


@pytest.mark.parametrize("passage, claim, label", [
    ("Split tunnelling is disabled: all traffic goes through the corporate network.", "Split tunnelling is enabled.",
     "contradicted"),
    ("Split tunnelling is disabled: all traffic goes through the corporate network.", "Split tunnelling is not enabled.",
     "supported"),
    # the opposite's word for what the evidence negates is the same statement, no negation flip
    ("Split tunnelling is not enabled on company laptops.", "Split tunnelling is disabled on company laptops.",
     "supported"),
    ("Private use of company phones is not allowed.", "Private use of company phones is prohibited.", "supported"),
    ("Die private Nutzung von Firmenhandys ist nicht erlaubt.", "Die private Nutzung von Firmenhandys ist verboten.",
     "supported"),
    ("The security training is mandatory for all new employees.", "The security training is optional for new employees.",
     "contradicted"),
    ("Unpaid leave of up to 3 months can be requested.", "Paid leave of up to 3 months can be requested.", "contradicted"),
    ("MFA is required for every VPN connection.", "MFA is optional for VPN connections.", "contradicted"),
    ("Breakfast is included in the hotel rate.", "Breakfast is excluded from the hotel rate.", "contradicted"),
])
def test_a_state_and_its_opposite_clash_each_read_with_its_negation(passage, claim, label):
    verdict = judged(claim, passage)
    assert verdict.label == label, verdict.reason


_QUOTES = ("Purchases up to 2,500 EUR need one quote. Purchases between 2,500 EUR and 10,000 EUR need three written "
           "quotes.")


@pytest.mark.parametrize("amount, claim, label", [
    # a comparison of the user's amount with the passage's is arithmetic, not a bound against "up to 2,500 EUR"
    ("3,200", "Since 3,200 EUR is above 2,500 EUR, you need three quotes.", "supported"),
    ("3,200", "Da 3.200 EUR über 2.500 EUR liegen, brauchen Sie drei Angebote.", None),
    ("2,000", "Since 2,000 EUR is above 2,500 EUR, you need three quotes.", "contradicted"),
    ("2,000", "As 2,000 EUR is less than 2,500 EUR, one quote is enough.", "supported"),
])
def test_a_comparison_of_two_amounts_is_checked_not_read_as_a_bound(amount, claim, label):
    question = f"I need a laptop for {amount} EUR. What do I need?"
    verdict = get_judge("signals").judge(claim, Evidence(question, (Passage("P", _QUOTES),)))
    if label is None:  # German claim, English passage: whatever it decides, no clash of bounds
        assert "above or below" not in verdict.reason, verdict.reason
    else:
        assert verdict.label == label, verdict.reason
    if label == "contradicted":
        assert verdict.reason.startswith('comparison wrong: the claim says "2,000 EUR is above 2,500 EUR"')
