"""An answer citing each of its thousands of passages: the citation checks (ALCE recall and
precision) grow with the citations, not with their square. Counted, not timed: the passages every
judge call reads, summed over the run (bench/bench_citations.py times it)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from groundlab import evaluate
from groundlab.judges import get_judge
from groundlab.measure import judging
from groundlab.records import Case, Passage


class Counting:
    """The rules judge, counting the claims it is asked about and the passages their evidence holds."""

    name, version = "rules", "counting"

    def __init__(self) -> None:
        self.inner = get_judge("rules")
        self.pairs = self.passages = 0

    def judge_batch(self, pairs):
        self.pairs += len(pairs)
        self.passages += sum(len(evidence.passages) for _, evidence in pairs)
        return self.inner.judge_batch(pairs)


FILLER = "Canteen note: soup and bread for lunch in the east building."


def _each_backs_alone(n: int) -> Case:
    """One claim citing every passage, each of which backs it alone."""
    passages = tuple(Passage(f"P{k}", f"Invoices of supplier S{k} are paid after the goods receipt.")
                     for k in range(n))
    answer = "Invoices are paid after the goods receipt " + "".join(f"[P{k}]" for k in range(n)) + "."
    return Case("one", "When are invoices paid?", passages, answer)


def _backed_together(n: int) -> Case:
    """One claim citing every passage, backed only by two of them together (each lacks a number)."""
    passages = (Passage("A", "Order 4500000001 belongs to supplier Zeta."),
                Passage("B", "Invoices of this supplier are paid within 30 days.")) + tuple(
        Passage(f"F{k}", FILLER) for k in range(n - 2))
    cites = "".join(f"[{p.id}]" for p in passages)
    answer = f"Supplier Zeta invoices for order 4500000001 are paid within 30 days {cites}."
    return Case("two", "When is this order paid?", passages, answer)


def _every_one_needed(n: int) -> Case:
    """One claim stating a number of each of its passages: every citation is needed, none backs it alone."""
    passages = tuple(Passage(f"P{k}", f"Order {1000 + k} is paid.") for k in range(n))
    answer = ("Orders " + ", ".join(str(1000 + k) for k in range(n)) + " are paid "
              + "".join(f"[P{k}]" for k in range(n)) + ".")
    return Case("all", "Which orders are paid?", passages, answer)


def _work(make, n: int):
    judge = Counting()
    ev = evaluate([make(n)], judge)
    row = ev.claims.iloc[0]
    ok = None if pd.isna(row["citation_ok"]) else bool(row["citation_ok"])
    return judge, int(row["relevant_citations"]), int(row["citations"]), ok


@pytest.mark.parametrize("make, relevant", [(_each_backs_alone, "all"), (_backed_together, 2),
                                            (_every_one_needed, "undecided")])
def test_the_citation_checks_of_one_answer_grow_near_linearly(make, relevant):
    small, large = 100, 1000
    judged = {}
    for n in (small, large):
        judge, found, citations, ok = _work(make, n)
        assert citations == n
        if relevant == "undecided":  # too many needed together for bounded work to tell which: undecided
            assert ok is None and found == 0
        else:
            assert ok and found == (n if relevant == "all" else relevant)
        judged[n] = judge.passages
        # every call reads at most a few times the passages, times their logarithm: the square
        # (n checks of the n - 1 other passages) was n * n
        assert judge.passages <= (judging.HALVING_BUDGET + 6) * n * math.log2(n), (n, judge.passages)
    # ten times the passages: about ten times the work (with its logarithm), never a hundred
    assert judged[large] <= 20 * judged[small], judged


def test_a_few_citations_are_still_checked_one_by_one(monkeypatch):
    """At or below the limit each citation is checked alone and the others without it, as ALCE
    has it: the same relevant citations as checking every one, on a claim of few citations."""
    case = _backed_together(judging.EXACT_PRECISION)
    judge = Counting()
    ev = evaluate([case], judge)
    assert int(ev.claims.iloc[0]["relevant_citations"]) == 2
    n = judging.EXACT_PRECISION
    assert judge.pairs == 1 + 2 * n and judge.passages == n + n + n * (n - 1)
    # above it, the halves give the same answer
    monkeypatch.setattr(judging, "EXACT_PRECISION", 2)
    judge = Counting()
    assert int(evaluate([case], judge).claims.iloc[0]["relevant_citations"]) == 2
    assert judge.pairs < 1 + 2 * n
