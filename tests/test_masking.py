"""Masking personal data: every way a value is written is found (any letter case, any kind of
space, dashes, dots, decomposed accents, any script), every text that leaves is masked (passage
ids too), alike in the claim and the passage, with placeholders the texts cannot hold, and each
case's texts are read once, not once per claim."""

from __future__ import annotations

from typing import List

import pytest

from groundlab.masking import Masker
from groundlab.policy import apply_policy
from groundlab.records import Evidence, Passage, Verdict

IBAN = "DE89 3704 0044 0532 0130 00"
CARD = "4111 1111 1111 1111"


def masked(text: str, masker: Masker = Masker()) -> str:
    return masker.mask(text, masker.table([text]))


@pytest.mark.parametrize("text", [
    "Pay to de89 3704 0044 0532 0130 00 today.",
    "Pay to DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000 today.",
    "Pay to DE89\u202f3704\u202f0044\u202f0532\u202f0130\u202f00 today.",
    "Pay to DE89-3704-0044-0532-0130-00 today.",
    "Pay to DE89\u20133704\u20130044\u20130532\u20130130\u201300 today.",
    "Pay to DE89  3704  0044  0532  0130  00 today.",
    "Pay to DE89370400440532013000.",
])
def test_an_iban_is_masked_however_it_is_written(text):
    out = masked(text)
    assert "MASKED_IBAN_1" in out and "3704" not in out and "0130" not in out, out
    assert out.startswith("Pay to ") and out.endswith((" today.", "."))


@pytest.mark.parametrize("address", ["jürgen.müller@example.de", "anna@müller.de", "иван.петров@пример.рф",
                                     "o'neil@example.com", "Anna.Weber+tickets@Example.COM"])
def test_an_email_address_in_any_script_is_masked(address):
    out = masked(f"Write to {address}, please.")
    assert out == "Write to MASKED_EMAIL_1, please.", out


@pytest.mark.parametrize("text", [
    f"Card {CARD.replace(' ', chr(0xa0))} was charged.",
    f"Card {CARD.replace(' ', '  ')} was charged.",
    f"Card {CARD.replace(' ', '.')} was charged.",
    f"Card {CARD}- was charged.",
    f"Card ref-{CARD.replace(' ', '')} was charged.",
    f"Card ref-{CARD} was charged.",
    f"Card 12 {CARD} was charged.",
    "Card \uff14\uff11\uff11\uff11 1111 1111 1111 was charged.",
])
def test_a_card_number_is_masked_however_it_is_grouped(text):
    out = masked(text)
    assert "MASKED_CARD_1" in out and "1111" not in out, out


def test_numbers_that_are_not_cards_or_ibans_stay():
    text = "PO 4500017311 on 01.05.2024 for 12 pieces at 4.50 EUR, tolerance 5%."
    assert masked(text) == text


@pytest.mark.parametrize("written", ["Anna\u00a0Weber", "Anna  Weber", "Anna\nWeber", "ANNA WEBER", "anna weber"])
def test_a_name_is_masked_however_it_is_spaced_or_cased(written):
    m = Masker(names=["Anna Weber"])
    assert masked(f"Ask {written} first.", m) == "Ask MASKED_NAME_1 first."


def test_a_name_with_accents_or_an_apostrophe_is_masked_either_way():
    m = Masker(names=["José Müller", "Dana O'Neil", "Jo\u0308rg Stra\u00dfer"])
    text = "Jose\u0301 Mu\u0308ller and José Müller, Dana O\u2019Neil and Jörg Straßer."
    out = masked(text, m)
    assert out == "MASKED_NAME_1 and MASKED_NAME_1, MASKED_NAME_2 and MASKED_NAME_3.", out


class Remote:
    """A judge that sends what it judges away (so it is masked for): it records what it got and
    echoes the claim in its reason, backed by every passage."""

    name = "remote"
    version = "1"

    def __init__(self) -> None:
        self.got: List = []

    def judge_batch(self, pairs):
        self.got.extend(pairs)
        return [Verdict("supported", f"the claim says: {claim}", supported_by=tuple(p.id for p in ev.passages),
                        evidence=ev.passages[0].text) for claim, ev in pairs]


def test_passage_ids_are_masked_and_the_verdict_names_them_as_written():
    judge = Remote()
    gate = apply_policy(judge, mask=True, names=["Anna Weber"])
    evidence = Evidence("Who answers?", (Passage("notes/anna.weber@example.com", "Anna Weber answers tickets."),
                                         Passage("Anna Weber CV", "She leads the team.")), "Anna Weber does.")
    claim = "Anna Weber answers tickets [notes/anna.weber@example.com]."
    verdict = gate.judge_batch([(claim, evidence)])[0]
    sent_claim, sent = judge.got[0]
    ids = [p.id for p in sent.passages]
    assert ids == ["notes/MASKED_EMAIL_1", "MASKED_NAME_1 CV"], ids
    assert sent_claim == "MASKED_NAME_1 answers tickets [notes/MASKED_EMAIL_1]."
    assert verdict.supported_by == ("notes/anna.weber@example.com", "Anna Weber CV")
    assert verdict.reason == f"the claim says: {claim}" and verdict.evidence == "Anna Weber answers tickets."


def test_a_value_spaced_otherwise_in_the_passage_gets_the_same_placeholder():
    judge = Remote()
    gate = apply_policy(judge, mask=True)
    evidence = Evidence("Where do refunds go?", (Passage("D1", "Refunds go to IBAN DE89  3704  0044  0532  0130  00."),),
                        f"Refunds go to IBAN {IBAN} [D1].")
    gate.judge_batch([(f"Refunds go to IBAN {IBAN} [D1].", evidence)])
    claim, sent = judge.got[0]
    assert claim == "Refunds go to IBAN MASKED_IBAN_1 [D1]."
    assert sent.passages[0].text == "Refunds go to IBAN MASKED_IBAN_1."


def test_the_verdict_of_a_value_spaced_otherwise_does_not_move():
    """The rules judge as a remote one: masked, the claim and the passage still say the same."""
    from groundlab.judges.rules import RulesJudge

    class RemoteRules(RulesJudge):
        name = "remote"

    from groundlab import Case, evaluate

    cases = [Case("c1", "Where do refunds go?", (Passage("D1", "Refunds go to IBAN DE89  3704  0044  0532  0130  00."),),
                  f"Refunds go to IBAN {IBAN} [D1]."),
             Case("c2", "Where do refunds go?", (Passage("D1", "Refunds go to IBAN DE89  3704  0044  0532  0130  00."),),
                  "Refunds go to IBAN GB82 WEST 1234 5698 7654 32 [D1].")]
    gate = apply_policy(RemoteRules(), mask=True)
    plain, gated = evaluate(cases, RemoteRules()), evaluate(cases, gate)
    assert gate.masked_cases == 2
    assert list(gated.claims["verdict"]) == list(plain.claims["verdict"])
    assert list(plain.claims["verdict"]) == ["supported", "contradicted"]


def test_a_placeholder_already_in_the_text_is_not_taken_for_a_real_value():
    judge = Remote()
    gate = apply_policy(judge, mask=True)
    evidence = Evidence("Which address?", (Passage("D1", "The template says MASKED_EMAIL_1 where an address goes; "
                                                         "write to anna@example.com."),), "x")
    claim = "Write to anna@example.com, not MASKED_EMAIL_1."
    verdict = gate.judge_batch([(claim, evidence)])[0]
    sent_claim, sent = judge.got[0]
    assert "anna@example.com" not in sent_claim + sent.passages[0].text
    assert "MASKED_EMAIL_1" in sent_claim  # the text's own, left as it is
    assert verdict.reason == f"the claim says: {claim}", verdict.reason


def test_a_case_is_masked_once_not_once_per_claim(monkeypatch):
    """Each text of a case (question, passage ids and texts, answer, claims) is read once,
    whatever the number of claims."""
    reads: List[str] = []
    original = Masker._find

    def counting(self, text):
        reads.append(text)
        return original(self, text)

    monkeypatch.setattr(Masker, "_find", counting)
    passages = tuple(Passage(f"D{k}", f"Call +49 30 1234567{k} about order 45000{k}.") for k in range(3))
    claims = [f"Call +49 30 1234567{k % 3} about order 45000{k % 3} [D{k % 3}]. ({k})" for k in range(8)]
    evidence = Evidence("Whom do I call?", passages, " ".join(claims))
    apply_policy(Remote(), mask=True).judge_batch([(c, evidence) for c in claims])
    texts = {evidence.question, evidence.answer, *claims, *(p.text for p in passages), *(p.id for p in passages)}
    assert len(reads) == len(texts) == 16, len(reads)
