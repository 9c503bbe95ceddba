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
