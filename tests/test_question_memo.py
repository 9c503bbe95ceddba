"""A claim judged with another case's question is judged as with its own: the question adds its
numbers and the words only it says, and a verdict is shared only between questions that add the
same to the claim (the signals judge's memo)."""

from __future__ import annotations

import json

from conftest import NOTES

from groundlab.core.records import Evidence, Passage
from groundlab.judges import signals
from groundlab.judges.signals import SignalsJudge

NOTES_TEXT = {json.loads(line)["id"]: json.loads(line)["text"] for line in NOTES.read_text().splitlines()}


def _passages(*ids: str):
    return tuple(Passage(i, NOTES_TEXT[i]) for i in ids)


def test_a_claim_the_passages_back_in_full_is_judged_once_whatever_the_question(monkeypatch):
    judge = SignalsJudge()
    calls = []
    judged = judge._judge
    monkeypatch.setattr(judge, "_judge", lambda *a: calls.append(a) or judged(*a))
    read = []
    question = getattr(signals, "_question", None)
    monkeypatch.setattr(signals, "_question", lambda q: read.append(q) or question(q), raising=False)
    claim = "The delivery is created in the next delivery run."
    pairs = [(claim, Evidence(f"Why was no delivery created for order {1000 + k}?", _passages("D02", "D05")))
             for k in range(40)]
    verdicts = judge.judge_batch(pairs)
    assert len({v for v in verdicts}) == 1 and verdicts[0].label == "supported"
    assert len(calls) == 1  # not once a question
    assert read == []  # no word or number of the claim needs the question


#: Claims whose verdict the question changes: a number only the question gives, in another writing
#: than the passages', a number neither gives (the reason lists the evidence's numbers, the
#: question's among them), words only the question says, names.
QUESTION_CASES = [
    ("At 1.5 percent, the credit analyst can release the order.", ["D01"],
     ["Order 2408 is 1.5 percent over the credit limit. Who can release it?",
      "Order 2408 is 1.5% over the credit limit. Who can release it?",
      "Who can release order 2408?", "Order 77 is 3 percent over. Who releases it?"]),
    ("Sales order 2408 is blocked because the customer's credit exposure is above the credit limit.", ["D01"],
     ["Why is sales order 2408 blocked?", "Why is sales order 2409 blocked?", "Why is order 2,408 blocked?",
      "Why is it blocked?"]),
    ("The exposure of Orion includes open orders, deliveries and unpaid invoices.", ["D01", "D17"],
     ["Why is the order of Orion blocked?", "Why is the order of Vega blocked?", "Is Orion on hold?"]),
    ("Planners review the exceptions of plant 1100 every morning.", ["D12", "D13"],
     ["Who reviews the exceptions in plant 1100?", "Who reviews the exceptions in plant 2000?",
      "Who reviews the exceptions of the planning run in week 38?"]),
    ("The supplier delivered 90 of 100 pieces but invoiced all 110.", ["D07", "D06"],
     ["Why is invoice 5100000001 blocked?", "Why is invoice 5100000002 blocked?", "Why is it blocked?"]),
    ("Orion must pay the invoice within 30 days of the third reminder.", ["D10"],
     ["Orion got a third reminder for invoice 42. When must it pay?", "When must Orion pay invoice 42?",
      "Orion must pay within 30 days?"]),
    ("Error PRC-112 on order 84924 means a mandatory price condition is missing.", ["D04", "D03"],
     ["What does error PRC-112 on order 84924 mean?", "What does error PRC-112 mean?",
      "What does PRC-112 on item 10 of order 84924 mean?"]),
]


def test_a_verdict_judged_with_another_case_s_question_is_the_one_judged_alone():
    shared = SignalsJudge()
    pairs = [(claim, Evidence(q, _passages(*ids))) for claim, ids, questions in QUESTION_CASES for q in questions]
    together = shared.judge_batch(pairs + pairs[::-1])
    alone = [SignalsJudge().judge(claim, evidence) for claim, evidence in pairs]
    assert together[:len(pairs)] == alone
    assert together[len(pairs):] == alone[::-1]
    # and the question changed something for these claims
    by_claim = {}
    for (claim, _), verdict in zip(pairs, alone):
        by_claim.setdefault(claim, set()).add((verdict.label, verdict.reason, verdict.matched, verdict.clashed))
    assert all(len(v) > 1 for claim, v in by_claim.items()), by_claim


def test_the_evidence_of_a_question_put_together_is_the_evidence_read_whole():
    for claim, ids, questions in QUESTION_CASES:
        for q in questions:
            texts = tuple(NOTES_TEXT[i] for i in ids)
            apart = signals._with_question(signals._passages_context(texts), signals._question(q))
            whole = signals._Context(signals._question(q), [signals._passage_piece(t) for t in texts])
            for name in signals._Context.__slots__:
                a, b = getattr(apart, name), getattr(whole, name)
                if name == "numbers":
                    a, b = (a.values, a.amounts, a.bare, list(a.shown.items())), \
                           (b.values, b.amounts, b.bare, list(b.shown.items()))
                if name == "question":  # what the evidence reads of it beyond numbers and stems: its days
                    a, b = (a.days if a is not None else ()), (b.days if b is not None else ())
                assert a == b, (q, name)
