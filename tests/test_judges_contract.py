"""Every registered judge keeps the order and length of its input and answers with one of the
three verdicts, or with no label and an error. The model judges run offline: the llm judge
against the stub Messages API, the nli judge on a tiny model built here, the entail judge on the
model shipped with groundlab."""

from __future__ import annotations

import pytest

from groundlab import VERDICTS, Verdict, judge_names
from groundlab.judges import get_judge
from groundlab.records import Evidence, Passage

from messages_stub import messages_stub  # noqa: F401
from tiny_models import tiny_nli  # noqa: F401

SHARED = Evidence("Who releases an order 1.5 percent over its limit?",
                  (Passage("D01", "Below 2 percent the credit analyst releases the order."),
                   Passage("D02", "Above 2 percent the credit manager must approve it.")))
OTHER = Evidence("When is the invoice paid?", (Passage("D10", "Invoices are paid within 30 days."),))

PAIRS = [
    ("The credit analyst releases the order.", SHARED),
    ("The credit manager must approve every order.", SHARED),
    ("Invoices are paid within 60 days.", OTHER),
    # Equal to SHARED but another object, after other evidence: still in place.
    ("The credit analyst releases the order.", Evidence(SHARED.question, SHARED.passages)),
    ("", OTHER),
    # Equal to OTHER, another object, right after it: the llm judge asks about both at once.
    ("Invoices are paid within 30 days.", Evidence(OTHER.question, OTHER.passages)),
]


@pytest.fixture
def build(request, tmp_path):
    def make(name):
        if name == "llm":
            request.getfixturevalue("messages_stub")
            return get_judge("llm", cache=tmp_path / "cache", backoff=0, progress=False)
        if name == "cascade":  # rules on every claim, the llm judge (on the stub) on what it flags and an audit
            request.getfixturevalue("messages_stub")
            return get_judge("cascade", first="rules", then="llm", audit=1.0,
                             then_options={"cache": tmp_path / "cache", "backoff": 0, "progress": False})
        if name == "nli":  # a tiny ONNX model on onnxruntime
            return get_judge("nli", model=str(request.getfixturevalue("tiny_nli")), batch_size=2)
        return get_judge(name)
    return make


@pytest.mark.parametrize("name", judge_names())
def test_judge_contract(name, build):
    judge = build(name)
    assert judge.name == name and isinstance(judge.version, str)
    verdicts = judge.judge_batch(PAIRS)
    assert len(verdicts) == len(PAIRS)
    for verdict in verdicts:
        assert isinstance(verdict, Verdict)
        assert verdict.label in VERDICTS or (verdict.label is None and verdict.error)
    assert judge.judge_batch([]) == []
    # Order is kept: judging the pairs backwards gives the verdicts backwards.
    backwards = judge.judge_batch(PAIRS[::-1])
    assert [v.label for v in backwards[::-1]] == [v.label for v in verdicts]
    assert judge.judge_batch(PAIRS[2:3])[0].label == verdicts[2].label


#: Claims with nothing to be judged against: no passage, an empty one, passages of white space only;
#: the question holds every word of the last claim, and asserts nothing.
BARE = [
    ("Refunds can be paid in cash.", Evidence("How are refunds paid?", ())),
    ("Refunds can be paid in cash.", Evidence("How are refunds paid?", (Passage("D1", ""),))),
    ("The credit analyst releases the order.", Evidence("Does the credit analyst release the order?",
                                                        (Passage("D1", "  \n\t"), Passage("D2", "")))),
    ("Refunds are paid.", Evidence("Are refunds paid?", ())),
    ("Refunds are paid.", Evidence("Are refunds paid?", (Passage("D1", ". \u200b \u2014 ..."),))),
]


@pytest.mark.parametrize("name", judge_names())
def test_a_claim_with_no_passage_text_is_unsupported(name, build, request):
    """A short claim was 'supported' on no evidence ('entailment 0.59 on 0 words'); a claim whose
    words the question holds was supported by the question. Mixed among other pairs, in order."""
    judge = build(name)
    mixed = [PAIRS[0]] + BARE[:2] + [PAIRS[2]] + BARE[2:]
    verdicts = judge.judge_batch(mixed)
    assert len(verdicts) == len(mixed)
    for k in (1, 2, 4, 5):
        assert verdicts[k].label == "unsupported", (name, mixed[k], verdicts[k])
    assert verdicts[0].label == judge.judge_batch(PAIRS[:1])[0].label  # the others judged as alone
    assert [v.label for v in judge.judge_batch(BARE)] == ["unsupported"] * len(BARE)
    if name in ("llm", "cascade"):  # nothing to send for a claim with nothing to read
        stub = request.getfixturevalue("messages_stub")
        before = len(stub.requests)
        judge.judge_batch(BARE)
        assert len(stub.requests) == before
