"""Splitting answers into claims, citations and abstentions."""

from __future__ import annotations

import pytest

from groundlab import ClaimSplitter
from groundlab.claims import DEFAULT_ABSTENTION_PHRASES


def texts(answer, **kw):
    return [(c.text, c.cites) for c in ClaimSplitter(**kw).split("c", answer).claims]


def test_sentences_citations_and_final_space():
    assert texts("The supplier delivered 90 of 100 pieces but invoiced all 100 [D07]. "
                 "A quantity variance blocks the invoice [D06]!") == [
        ("The supplier delivered 90 of 100 pieces but invoiced all 100.", ("D07",)),
        ("A quantity variance blocks the invoice!", ("D06",)),
    ]


def test_several_citations_in_one_bracket_and_repeats():
    assert texts("Pay when due [D10, D09] and not blocked [D10].") == [
        ("Pay when due and not blocked.", ("D10", "D09"))]


def test_claim_without_citation_and_numbering():
    split = ClaimSplitter().split("c10", "Safety stock is a buffer [D15]. Most companies set it to two weeks.")
    assert [(c.case_id, c.number, c.cites) for c in split.claims] == [("c10", 1, ("D15",)), ("c10", 2, ())]
    assert not split.abstains


def test_decimal_point_does_not_split():
    assert len(texts("At 1.5 percent the analyst releases it [D01].")) == 1


@pytest.mark.parametrize("sentence", [
    "I can't find the credit limit of customer 10023 in the retrieved notes.",
    "I cannot find that.",
    "I don't know.",
    "That is not in the retrieved notes.",
    "There is no information about PRC-112.",
    "I couldn't find the answer in the documents.",
    "I could not find when it arrives.",
    "I couldn\u2019t find it.",
    "The documents don't say when the memo arrives.",
    "The passages do not mention a price.",
    "I don't have enough information to answer.",
    "I do not have sufficient information.",
    "I'm unable to find the delivery date.",
    "I was not able to find that in the notes.",
    "That is not mentioned in the documents.",
    "There is not enough information to say.",
    "The documentation doesn't say.",
    "The context does not provide this.",
    "The sources provided do not include this.",
    "That is not covered in the provided notes.",
    "I'm not sure.",
])
def test_abstention_wordings(sentence):
    split = ClaimSplitter().split("c", sentence)
    assert split.abstains and split.claims == ()


@pytest.mark.parametrize("sentence", [
    "Incomplete orders cannot be delivered or billed [D05].",
    "The payment run pays every invoice that is due and not blocked [D10].",
    "No approval is needed below 2 percent [D01].",
    # factual statements that share words with abstentions
    "Credit notes do not include freight costs.",
    "Delivery notes don't contain prices.",
    "The planner was unable to find a second supplier.",
    "The system is unable to determine the baseline date without payment terms.",
    # a sentence that cites a passage asserts something, whatever its words
    "Customers with no information on file are blocked [D01].",
    "The notes do not include freight costs [D08].",
])
def test_negated_claims_are_not_abstentions(sentence):
    split = ClaimSplitter().split("c", sentence)
    assert not split.abstains and len(split.claims) == 1


def test_abstention_next_to_a_claim():
    split = ClaimSplitter().split("c", "Error PRC-112 means a price condition is missing [D04]. "
                                       "I couldn't find who maintains it.")
    assert split.abstains and [c.text for c in split.claims] == ["Error PRC-112 means a price condition is missing."]


def test_configurable_abstention_and_citations():
    custom = ClaimSplitter(citation_pattern=r"\(source: (\w+)\)",
                           abstention_phrases=DEFAULT_ABSTENTION_PHRASES + (r"\bbeyond my notes\b",))
    split = custom.split("c", "Release the block (source: D02). That is beyond my notes.")
    assert split.abstains
    assert [(c.text, c.cites) for c in split.claims] == [("Release the block.", ("D02",))]
    only = ClaimSplitter(abstention_phrases=[r"\bno idea\b"])
    assert only.split("c", "No idea.").abstains
    assert not only.split("c", "I can't find it.").abstains


def test_citation_pattern_needs_one_group():
    with pytest.raises(ValueError, match="one group"):
        ClaimSplitter(citation_pattern=r"\[\w+\]")


@pytest.mark.parametrize("answer", ["[D07].", "[D07] [D06]", " . "])
def test_a_lone_citation_is_not_a_claim(answer):
    split = ClaimSplitter().split("c", answer)
    assert split.claims == () and not split.abstains


# ---------------------------------------------------------------- answers as a reader splits them

from groundlab.claims import (ABSTENTION_PHRASES, ClaimSplitter as _Splitter, looks_like_refusal,  # noqa: E402
                              sentences, split_sentences)
from split_table import TRICKY  # noqa: E402


def test_the_table_is_large_enough():
    assert len(TRICKY) >= 40 and len({name for name, _, _ in TRICKY}) == len(TRICKY)


@pytest.mark.parametrize("answer, expected", [(a, e) for _, a, e in TRICKY], ids=[n for n, _, _ in TRICKY])
def test_tricky_answers_split_as_a_reader_splits_them(answer, expected):
    assert texts(answer) == expected


@pytest.mark.parametrize("answer, expected", [(a, e) for _, a, e in TRICKY], ids=[n for n, _, _ in TRICKY])
def test_each_claim_knows_where_its_sentence_sits(answer, expected):
    claims = _Splitter().split("c", answer).claims
    for claim in claims:
        start, end = claim.span
        sentence = answer[start:end]
        assert sentence == sentence.strip() and sentence
        # the sentence as written holds the claim's words and its citations (or, for a claim that
        # cites nothing itself, a closing list of the answer's sources does)
        for cite in claim.cites:
            assert cite in sentence or cite in answer[answer.index("Sources"):]
        visible = "".join(ch for ch in sentence if ch not in "\u200b\u200e\u200f\ufeff")
        first_word = claim.text.split()[0].strip("\u201c\"\u00bf")[:4]
        assert first_word in visible
    spans = [c.span for c in claims]
    assert spans == sorted(spans) and all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def test_spans_let_an_answer_be_rewritten_sentence_by_sentence():
    answer = "Dr. Smith approved the refund [D1]. It was paid in May.\n- Pay within 30 days."
    claims = _Splitter().split("c", answer).claims
    assert [answer[slice(*c.span)] for c in claims] == [
        "Dr. Smith approved the refund [D1].", "It was paid in May.", "Pay within 30 days."]
    rewritten = answer
    for claim in reversed(claims):
        start, end = claim.span
        rewritten = rewritten[:start] + "[removed]" + rewritten[end:]
    assert rewritten == "[removed] [removed]\n- [removed]"


def test_a_claim_made_elsewhere_has_no_span():
    from groundlab.records import Claim

    assert Claim("c", 1, "text").span is None


def test_passages_split_with_the_same_segmenter():
    assert split_sentences("A tolerance, e.g. 5 percent, applies. Dr. Smith approves it.") == (
        "A tolerance, e.g. 5 percent, applies.", "Dr. Smith approves it.")
    assert split_sentences("\u53d1\u7968\u88ab\u51bb\u7ed3\u3002\u4e70\u65b9\u5fc5\u987b\u5904\u7406\u3002") == (
        "\u53d1\u7968\u88ab\u51bb\u7ed3\u3002", "\u4e70\u65b9\u5fc5\u987b\u5904\u7406\u3002")


def test_a_heading_is_no_claim_but_shows_in_the_explanation():
    splitter = _Splitter()
    assert splitter.explain("## Summary\nReasons:\n- Price variance [D8]\n- [D7]") == [
        ("heading", "Summary"), ("heading", "Reasons:"), ("claim", "Price variance [D8]\n- [D7]")]


def test_a_citation_line_joins_the_claim_before_it():
    assert texts("- Price variance [D8]\n[D7]") == [("Price variance", ("D8", "D7"))]


def test_a_citation_opening_a_list_item_stays_with_it():
    assert texts("- [D7] The invoice is blocked.\n- [D6] The buyer must act.") == [
        ("The invoice is blocked.", ("D7",)), ("The buyer must act.", ("D6",))]


def test_citations_after_the_stop_with_another_pattern():
    custom = _Splitter(citation_pattern=r"\(source: (\w+)\)")
    assert [(c.text, c.cites) for c in custom.split("c", "It is blocked. (source: D7) Pay later.").claims] == [
        ("It is blocked.", ("D7",)), ("Pay later.", ())]


def test_sentences_gives_offsets_and_headings():
    found = sentences("Steps:\n1. Open it.\u200b Then close it.")
    assert [(s.text, s.heading) for s in found] == [("Steps:", True), ("Open it.", False), ("Then close it.", False)]
    assert [(s.start, s.end) for s in found] == [(0, 6), (10, 18), (20, 34)]


ODD = {
    "empty": "",
    "white space": " \t \n  \n",
    "zero-width only": "\u200b\u200c\u200d\ufeff\u200e",
    "punctuation only": "... !!! ??? ;;; ---",
    "control characters": "\x00\x01\x02\x07\x1b[0m\x7f",
    "control characters in text": "The invoice\x00 is blocked.\x07 Pay it.",
    "huge line without stops": "the invoice is blocked and " * 20_000,
    "huge line of stops": ". " * 50_000,
    "replacement characters and separators": "\ufffd\ufffd \u2028\u2029\x85",
    "unbalanced brackets": "[[[ ]]] ((( ))) [D7 [D6",
    "only list markers": "-\n*\n1.\n2)\n#",
    "only citations": "[D7] [D6]. [D1]",
}


@pytest.mark.parametrize("answer", list(ODD.values()), ids=list(ODD))
def test_odd_text_never_raises(answer):
    split = _Splitter().split("c", answer)
    for claim in split.claims:
        assert claim.text.strip() and claim.span[0] < claim.span[1] <= len(answer)
    _Splitter().explain(answer)
    split_sentences(answer)


def test_odd_text_splits_as_expected():
    assert texts(ODD["control characters in text"]) == [("The invoice is blocked.", ()), ("Pay it.", ())]
    assert len(texts(ODD["huge line without stops"])) == 1
    for name in ("empty", "white space", "zero-width only", "punctuation only", "only list markers",
                 "only citations"):
        assert texts(ODD[name]) == [], name


def test_a_segmenter_failure_falls_back_to_stops(monkeypatch):
    import groundlab.core.sentences as sentences  # where the segmenter is called

    def broken(language, text):
        raise RuntimeError("segmenter crashed")

    monkeypatch.setattr(sentences, "_sentencex_segment", broken)
    assert texts("The invoice is blocked [D7]. The buyer must act.") == [
        ("The invoice is blocked.", ("D7",)), ("The buyer must act.", ())]

    monkeypatch.setattr(sentences, "_sentencex_segment", lambda language, text: ["lost"])
    assert texts("The invoice is blocked. The buyer must act.") == [
        ("The invoice is blocked.", ()), ("The buyer must act.", ())]


# ---------------------------------------------------------------- the abstention patterns (data file)

EXAMPLES = [(k, ex) for k, p in enumerate(ABSTENTION_PHRASES) for ex in p.examples]
NEAR_MISSES = [(k, ex) for k, p in enumerate(ABSTENTION_PHRASES) for ex in p.near_misses]


def test_every_pattern_has_an_example_and_a_near_miss():
    assert len(ABSTENTION_PHRASES) >= 15
    for phrase in ABSTENTION_PHRASES:
        assert phrase.examples and phrase.near_misses, phrase.pattern


@pytest.mark.parametrize("k, sentence", EXAMPLES, ids=[s[:40] for _, s in EXAMPLES])
def test_every_pattern_catches_its_examples(k, sentence):
    import re

    assert re.search(ABSTENTION_PHRASES[k].pattern, sentence.replace("\u2019", "'"), re.IGNORECASE), sentence
    split = ClaimSplitter().split("c", sentence)
    assert split.abstains and split.claims == (), sentence


@pytest.mark.parametrize("k, sentence", NEAR_MISSES, ids=[s[:40] for _, s in NEAR_MISSES])
def test_no_pattern_takes_a_near_miss_for_an_abstention(k, sentence):
    assert "[" not in sentence  # a citation would make it a claim whatever the patterns say
    split = ClaimSplitter().split("c", sentence)
    assert not split.abstains and len(split.claims) == 1, sentence


@pytest.mark.parametrize("sentence", [
    "Sorry, that isn't covered in the material I have.",
    "Unfortunately I don't have that information.",
    "Sorry, I can't help with that.",
    "I'm sorry, but I can't answer that from these documents.",
    "That is outside the scope of the documents.",
    "The delivery date is not specified in the context.",
])
def test_common_refusals_are_abstentions(sentence):
    split = ClaimSplitter().split("c", sentence)
    assert split.abstains and split.claims == ()


def test_a_cited_refusal_wording_is_still_a_claim():
    split = ClaimSplitter().split("c", "Unfortunately I don't have that information [D3].")
    assert not split.abstains and len(split.claims) == 1


@pytest.mark.parametrize("sentence, expected", [
    ("Sorry, the refund was rejected.", True),
    ("Unfortunately, the invoice stays blocked.", True),
    ("I\u2019m afraid the supplier is late.", True),
    ("\u201cSorry\u201d is what the buyer said.", True),
    ("The refund was rejected.", False),
    ("Sorrento is the plant's town.", False),
])
def test_looks_like_refusal(sentence, expected):
    assert looks_like_refusal(sentence) is expected


def test_extra_phrases_add_to_the_built_in_ones():
    splitter = ClaimSplitter(extra_abstention_phrases=[r"\bbeyond my notes\b"])
    assert splitter.split("c", "That is beyond my notes.").abstains
    assert splitter.split("c", "I can't find it.").abstains


def test_a_bad_phrase_is_named():
    from groundlab.records import GroundlabError

    with pytest.raises(GroundlabError, match=r"abstention phrase '\(unclosed' is not a valid regular expression"):
        ClaimSplitter(extra_abstention_phrases=["(unclosed"])
    with pytest.raises(GroundlabError, match="citation pattern"):
        ClaimSplitter(citation_pattern="[")


# ---------------------------------------------------------------- closings of an answer that declines

from groundlab.claims import CLOSING_PHRASES, is_closing  # noqa: E402

CLOSINGS = [ex for p in CLOSING_PHRASES for ex in p.examples]
CLOSING_MISSES = [ex for p in CLOSING_PHRASES for ex in p.near_misses]


def test_every_closing_pattern_has_an_example_and_a_near_miss():
    assert len(CLOSING_PHRASES) >= 5
    for phrase in CLOSING_PHRASES:
        assert phrase.examples and phrase.near_misses, phrase.pattern


@pytest.mark.parametrize("closing", CLOSINGS)
@pytest.mark.parametrize("refusal", ["I can't find that in the documents.", "Dazu habe ich nichts gefunden.",
                                     "Je ne trouve pas cette information.", "No dispongo de esa información."])
def test_an_abstention_with_whom_to_ask_or_a_courtesy_still_abstains(refusal, closing):
    for answer in (f"{refusal} {closing}", f"{closing}\n{refusal}"):
        split = ClaimSplitter().split("c", answer)
        assert split.abstains and split.claims == (), answer
    roles = ClaimSplitter().explain(f"{refusal} {closing}")
    assert [r for r, _ in roles] == ["abstention", "closing"]


@pytest.mark.parametrize("closing", CLOSINGS)
def test_a_closing_in_an_answer_that_does_not_abstain_stays_a_claim(closing):
    assert is_closing(closing)
    split = ClaimSplitter().split("c", f"Refunds over 500 EUR need the finance manager's approval [KB-3]. {closing}")
    assert not split.abstains and len(split.claims) == 2


@pytest.mark.parametrize("sentence", CLOSING_MISSES)
def test_a_sentence_that_says_more_than_whom_to_ask_is_a_claim_beside_an_abstention(sentence):
    assert not is_closing(sentence)
    split = ClaimSplitter().split("c", f"I can't find the deadline. {sentence}")
    assert split.abstains and [c.text for c in split.claims] == [sentence]
    assert split.claims[0].number == 1


def test_a_cited_closing_is_a_claim_and_claims_are_numbered_after_a_closing_is_left_out():
    split = ClaimSplitter().split("c", "I can't find the deadline. Please contact the help desk [KB-9].")
    assert len(split.claims) == 1 and split.claims[0].cites == ("KB-9",)
    split = ClaimSplitter().split("c", "Thanks for asking. I can't find the deadline. The block is set by PRC-112 "
                                       "[D04]. Please contact your manager.")
    assert split.abstains and [(c.number, c.text) for c in split.claims] == [(1, "The block is set by PRC-112.")]


def test_a_refusal_with_a_redirect_counts_as_an_abstention_not_a_hallucination():
    import groundlab as gl
    from groundlab.records import Case, Passage

    case = Case("c", "When does the credit memo arrive?", (Passage("D1", "Credit memos are posted by accounts "
                                                                   "payable."),),
                "I can't find that in the retrieved notes. Please contact your manager.", answerable=False)
    row = gl.evaluate([case], "rules").cases.iloc[0]
    import pandas as pd

    assert row["abstained"] and row["outcome"] == "abstained" and pd.isna(row["hallucinated"])


@pytest.mark.parametrize("answer", [
    "I could not find that in the documents. Please contact your manager or the service desk.",
    "I could not find that in the documents. Please contact the service desk at extension 4711.",
    "I could not find that in the documents. Please contact your manager, HR or the service desk by phone at "
    "+49 30 1234-567.",
    "Dazu habe ich nichts gefunden. Bitte wenden Sie sich an Ihre Führungskraft oder den Service-Desk unter der "
    "Durchwahl 4711.",
])
def test_a_refusal_with_several_people_to_ask_or_how_to_reach_them_abstains(answer):
    split = ClaimSplitter().split("c", answer)
    assert split.abstains and split.claims == (), answer
    assert [role for role, _ in ClaimSplitter().explain(answer)] == ["abstention", "closing"]


@pytest.mark.parametrize("closing", [
    "Please contact your manager to approve refunds over 500 EUR.",
    "Please contact your manager or the service desk within three days.",
    "Please contact the service desk at extension 4711 to reset the password.",
])
def test_whom_to_ask_with_a_rule_beside_it_stays_a_claim_beside_a_refusal(closing):
    split = ClaimSplitter().split("c", f"I could not find that in the documents. {closing}")
    assert split.abstains and [c.text for c in split.claims] == [closing]


@pytest.mark.parametrize("answer", [
    "Dazu habe ich in den Unterlagen nichts gefunden.",
    "Leider habe ich dazu in den Dokumenten nichts gefunden.",
    "Das geht aus den Unterlagen nicht hervor.",
    "Dazu liegen mir keine Informationen vor.",
    "Das kann ich anhand der Unterlagen nicht beantworten.",
    "Dazu kann ich keine Angaben machen.",
    "Dazu kann ich keine Auskunft geben.",
    "Je n'ai trouvé aucune information à ce sujet dans les documents.",
    "Cette information ne figure pas dans les documents fournis.",
    "No he encontrado información al respecto.",
    "No se menciona en los documentos.",
])
def test_refusals_in_german_french_and_spanish_are_abstentions(answer):
    split = ClaimSplitter().split("c", answer)
    assert split.abstains and split.claims == (), answer


@pytest.mark.parametrize("answer", [
    "Im Lager wurde nichts gefunden, daher ist die Lieferung unvollständig.",
    "Die Gutschrift geht nicht aus dem Lager hervor, sondern aus der Buchhaltung.",
    "Dazu kann der Kunde keine Angaben machen.",
    "Ohne Bestellnummer kann die Buchhaltung keine Auskunft geben.",
    "Je n'ai pas le droit de valider cette facture.",
    "Ce n'est possible que dans les trente jours.",
    "No hay información de envío en la factura.",
])
def test_sentences_that_state_a_fact_with_those_words_stay_claims(answer):
    split = ClaimSplitter().split("c", answer)
    assert not split.abstains and len(split.claims) == 1, answer


# ---------------------------------------------------------------- a refusal, then a claim (hedges)

from groundlab.claims import HEDGES  # noqa: E402


def test_the_data_file_holds_hedges_in_several_languages():
    assert len(HEDGES.examples) >= 10 and len(HEDGES.near_misses) >= 5
    sentences = " ".join(e[0] for e in HEDGES.examples)
    for word in ("but", "however", "aber", "mais", "pero", "但是", "Although"):
        assert word in sentences, word


@pytest.mark.parametrize("example", HEDGES.examples, ids=[e[0][:40] for e in HEDGES.examples])
def test_what_follows_the_turn_of_a_hedged_refusal_is_a_claim(example):
    sentence, *claims = example
    split = ClaimSplitter().split("c", sentence)
    assert split.abstains and [c.text for c in split.claims] == claims, sentence
    for claim in split.claims:  # each claim knows where it is in the answer, as the guard needs
        assert sentence[claim.span[0]:claim.span[1]].replace(" [D1]", "") == claim.text
    assert "abstention" in [role for role, _ in ClaimSplitter().explain(sentence)]


def test_every_turn_needs_one_of_its_triggers():
    """may_turn looks for a turn only in a sentence holding one of the triggers: a turn none of
    them covers would leave a cited hedge uncut."""
    import re

    from groundlab.core.abstentions import may_turn

    for sentence, *_ in HEDGES.examples:
        turns = [t for t in HEDGES.turns if re.search(t, sentence, re.IGNORECASE)]
        assert turns and may_turn(sentence), sentence
    words = ["but", "however", "though", "although", "nevertheless", "nonetheless", "that said", "having said that",
             "still,", "aber", "jedoch", "allerdings", "dennoch", "trotzdem", ", doch", "mais", "cependant",
             "toutefois", "pourtant", "néanmoins", "pero", "sin embargo", "no obstante", "aunque", ";", "\uff1b",
             "但是", "不过", "可是", "然而", "，但"]
    for word in words:
        assert may_turn(f"I can't find that x {word} y z."), word
    assert len(HEDGES.turns) == len(words)  # a word for every turn


@pytest.mark.parametrize("sentence", HEDGES.near_misses)
def test_a_turn_inside_a_refusal_or_before_nothing_stays_an_abstention(sentence):
    split = ClaimSplitter().split("c", sentence)
    assert split.abstains and split.claims == (), sentence


def test_a_cited_hedge_keeps_its_citation_and_a_cited_refusal_stays_a_claim():
    split = ClaimSplitter().split("c", "I can't find the deadline, but refunds are paid in cash [D1].")
    assert split.abstains and [(c.text, c.cites) for c in split.claims] == [("refunds are paid in cash.", ("D1",))]
    split = ClaimSplitter().split("c", "I can't find that [D1], but refunds are paid in cash.")
    assert not split.abstains and [c.cites for c in split.claims] == [("D1",)]


@pytest.mark.parametrize("answer", ["I can't find that in the notes.", "I'm not sure.",
                                    "Dazu kann ich keine Angaben machen."])
def test_a_pure_refusal_stays_an_abstention(answer):
    split = ClaimSplitter().split("c", answer)
    assert split.abstains and split.claims == ()


def test_a_hedged_answer_is_answered_judged_counted_guarded_and_labeled():
    """It was read as declined: no claim, never in the hallucination rate, passed untouched by the
    guard, '(no claim to label)' on the sheet."""
    import pandas as pd

    import groundlab as gl
    from groundlab.labeling import sheet_frame
    from groundlab.records import Case, Passage

    notes = (Passage("D1", "Refunds are paid by bank transfer within 5 days."),)
    hedged = "I can't find that in the notes, but refunds can be paid in cash."
    cases = [Case("h", "How are refunds paid?", notes, hedged, answerable=True, labels=("unsupported",)),
             Case("r", "How are refunds paid?", notes, "I can't find that in the notes.", answerable=True)]
    ev = gl.evaluate(cases, "rules")
    rows = ev.cases.set_index("case_id")
    assert rows.loc["h", "outcome"] == "wrong" and rows.loc["h", "claims"] == 1 and bool(rows.loc["h", "hallucinated"])
    assert rows.loc["r", "outcome"] == "abstained" and pd.isna(rows.loc["r", "hallucinated"])
    assert ev.claims["text"].tolist() == ["refunds can be paid in cash."]
    from groundlab.summary import score_summary

    assert score_summary(ev)["hallucination_rate"]["hallucinated"] == 1
    result = gl.guard("How are refunds paid?", [{"id": "D1", "text": notes[0].text}], hedged, "rules", "hide")
    assert "cash" not in result.text and result.text.startswith("I can't find that in the notes")
    sheet = sheet_frame(cases, judge=None)
    assert sheet["claim"].tolist()[0] == "refunds can be paid in cash."


# ---------------------------------------------------------------- a bare yes or no

RETURNS = "Returns are accepted within 30 days of delivery. After 30 days a laptop cannot be returned."
RETURNS_DE = ("Rücksendungen sind innerhalb von 30 Tagen nach Lieferung möglich. Nach 30 Tagen kann ein Laptop nicht "
              "mehr zurückgegeben werden.")


@pytest.mark.parametrize("question, answer, claim", [
    ("Can I return my laptop after 30 days?", "No.", "I cannot return my laptop after 30 days."),
    ("Can I return my laptop after 30 days?", "Yes!", "I can return my laptop after 30 days."),
    ("Hi, is there a fee for returns?", "No, there isn't.", "There is no fee for returns."),
    ("Is the invoice for PO 4711 blocked?", "Yes.", "The invoice for PO 4711 is blocked."),
    ("Does the refund include shipping costs?", "No.", "The refund does not include shipping costs."),
    ("Kann ich den Laptop nach 30 Tagen zurückgeben?", "Nein.", "Ich kann den Laptop nach 30 Tagen nicht zurückgeben."),
    ("Ist die Rechnung gesperrt?", "Ja.", "Die Rechnung ist gesperrt."),
    ("Gibt es eine Frist für Rücksendungen?", "Nein.", "Es gibt keine Frist für Rücksendungen."),
    ("Est-ce que je peux retourner l'article après 30 jours ?", "Non.", "Je ne peux pas retourner l'article après 30 jours."),
    ("Puis-je payer en espèces ?", "Oui.", "Je peux payer en espèces."),
    ("¿Puedo devolverlo después de 30 días?", "Sí.", "Puedo devolverlo después de 30 días."),
    ("¿Puedo devolverlo después de 30 días?", "No.", "No puedo devolverlo después de 30 días."),
])
def test_a_bare_yes_or_no_alone_claims_the_questions_premise(question, answer, claim):
    split = ClaimSplitter().split("c", answer, question=question)
    assert [(c.number, c.text, c.span) for c in split.claims] == [(1, claim, (0, len(answer)))]
    assert ClaimSplitter().explain(answer, question=question) == [("claim", answer)]


def test_a_bare_yes_or_no_goes_with_the_claim_after_it_or_before_it():
    answer = "Yes. You can return it within 60 days [KB-7]."
    split = ClaimSplitter().split("c", answer, ["KB-7"], question="Can I return my laptop after 30 days?")
    assert [(c.text, c.cites, answer[c.span[0]:c.span[1]]) for c in split.claims] == [
        ("You can return it within 60 days.", ("KB-7",), answer)]  # withholding the claim withholds the yes
    assert [r for r, _ in ClaimSplitter().explain(answer)] == ["yes/no", "claim"]
    answer = "Returns are accepted within 30 days [KB-7]. So no."
    split = ClaimSplitter().split("c", answer, ["KB-7"], question="Can I return my laptop after 30 days?")
    assert [(c.text, answer[c.span[0]:c.span[1]]) for c in split.claims] == [
        ("Returns are accepted within 30 days.", answer)]
    # the segmenter reads "No." before a capital as an abbreviation: the claim is what follows it
    split = ClaimSplitter().split("c", "No. Returns are accepted within 30 days of delivery [KB-7].")
    assert [c.text for c in split.claims] == ["Returns are accepted within 30 days of delivery."]


@pytest.mark.parametrize("answer", ["No refunds are paid in cash.", "Yes, refunds are paid within five days.",
                                    "No, incomplete orders cannot be delivered.", "No. 256 is the order number.",
                                    "Nobody approves it.", "Oui, le remboursement est versé en cinq jours."])
def test_a_sentence_that_says_more_than_yes_or_no_is_a_claim_as_written(answer):
    split = ClaimSplitter().split("c", answer, question="Can I return my laptop after 30 days?")
    assert [c.text for c in split.claims] == [answer]


def test_a_bare_answer_without_a_question_or_beside_a_refusal():
    assert [c.text for c in ClaimSplitter().split("c", "Yes.").claims] == ["Yes."]  # nothing to read it against
    split = ClaimSplitter().split("c", "No. I can't find that in the documents.", question="Is it blocked?")
    assert split.abstains and split.claims == ()
    # a question it cannot turn into a statement is judged in its own words, the negation put in
    split = ClaimSplitter().split("c", "No.", question="Why is the invoice blocked?")
    assert [c.text for c in split.claims] == ["Not why is the invoice blocked."]


@pytest.mark.parametrize("judge", ["rules", "signals"])
@pytest.mark.parametrize("question, passage, answer, verdict", [
    ("Can I return my laptop after 30 days?", RETURNS, "No.", "supported"),
    ("Can I return my laptop after 30 days?", RETURNS, "Yes.", "contradicted"),
    ("Kann ich den Laptop nach 30 Tagen zurückgeben?", RETURNS_DE, "Ja.", "contradicted"),
])
def test_a_bare_answer_is_judged_as_the_premise_it_affirms_or_negates(judge, question, passage, answer, verdict):
    import groundlab as gl
    from groundlab.records import Case, Passage

    ev = gl.evaluate([Case("c", question, (Passage("KB-7", passage),), answer)], judge)
    assert list(ev.claims["verdict"]) == [verdict], list(ev.claims["reason"])


@pytest.mark.parametrize("answer, claim", [
    ("Not yet. You can request reduced hours only after six months of employment.",
     "You can request reduced hours only after six months of employment."),
    ("Noch nicht. Eine Reduzierung ist erst nach sechs Monaten möglich.",
     "Eine Reduzierung ist erst nach sechs Monaten möglich."),
    ("Pas encore. La demande est possible après six mois.", "La demande est possible après six mois."),
])
def test_not_yet_answers_as_a_no_does(answer, claim):
    split = ClaimSplitter().split("c", answer, question="Can I reduce my hours?")
    assert [c.text for c in split.claims] == [claim]


def test_not_yet_with_more_words_is_a_claim():
    split = ClaimSplitter().split("c", "Not yet approved by your manager.", question="Is my request approved?")
    assert [c.text for c in split.claims] == ["Not yet approved by your manager."]


def test_each_built_in_abstention_wording_compiles_alone():
    # the splitter reads the built-in wordings as one pattern and compiles only one's own alone
    import re
    for phrase in DEFAULT_ABSTENTION_PHRASES:
        re.compile(phrase)
    from groundlab.records import GroundlabError
    with pytest.raises(GroundlabError, match="abstention phrase"):
        ClaimSplitter(abstention_phrases=DEFAULT_ABSTENTION_PHRASES + (r"(unclosed",))


def test_a_lazy_pattern_reads_as_the_compiled_one():
    import re
    from groundlab.core.sentences import LazyPattern
    lazy, compiled = LazyPattern(r"(\d+)\s*(?P<unit>days?)", re.I), re.compile(r"(\d+)\s*(?P<unit>days?)", re.I)
    text = "3 Days, then 10 days"
    assert lazy.pattern == compiled.pattern
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.sub("N", text) == compiled.sub("N", text) and lazy.findall(text) == compiled.findall(text)
    assert (lazy.flags, lazy.groups, lazy.groupindex) == (compiled.flags, compiled.groups, compiled.groupindex)
    with pytest.raises(AttributeError):
        lazy.scanner_of_nothing
