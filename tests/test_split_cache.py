"""An answer met again is split once: every case still gets its own claims."""

from __future__ import annotations

from dataclasses import replace

from conftest import CASES, NOTES

from groundlab import load_cases
from groundlab.core.claims import ClaimSplitter
from groundlab.measure.evaluate import SplitCache, split_cases
from groundlab.core.records import Passage


def test_answers_split_once_give_every_case_its_own_claims():
    splitter = ClaimSplitter()
    cases = load_cases(CASES, NOTES)
    twice = cases + [replace(c, id=c.id + "-again") for c in cases]
    cache = SplitCache(size=4)  # smaller than the run: answers leave it and come back
    assert split_cases(twice, splitter, cache) == split_cases(twice, splitter)
    again = split_cases(twice, splitter, cache)[len(cases):]
    assert all(claim.case_id.endswith("-again") for split in again for claim in split.claims)


def test_an_answer_naming_its_passages_is_split_with_their_ids():
    splitter = ClaimSplitter()
    answer = "Tokens last 8 hours (SEC-2). Reset them yearly (KB-9)."
    split_a = SplitCache().split(splitter, _case("a", answer, ["SEC-2"]), ["SEC-2"])
    split_b = SplitCache().split(splitter, _case("b", answer, ["SEC-2", "KB-9"]), ["SEC-2", "KB-9"])
    assert split_a == splitter.split("a", answer, ["SEC-2"])
    assert split_b == splitter.split("b", answer, ["SEC-2", "KB-9"]) != split_a


def _case(cid, answer, ids):
    from groundlab.core.records import Case

    return Case(cid, "Q?", tuple(Passage(i, "Text of " + i) for i in ids), answer)


def test_a_bare_yes_or_no_is_split_with_its_own_question():
    """A bare "No." asserts the negation of its question's premise: the same answer to another
    question is another claim, so such an answer is split again with each question."""
    splitter = ClaimSplitter()
    cache = SplitCache()
    first = replace(_case("a", "No.", []), question="Can I return it after 30 days?")
    second = replace(_case("b", "No.", []), question="Is the invoice blocked?")
    got = [cache.split(splitter, case, []).claims[0].text for case in (first, second)]
    assert got == [splitter.split("a", "No.", (), question=first.question).claims[0].text,
                   splitter.split("b", "No.", (), question=second.question).claims[0].text]
    assert got[0] != got[1]
    # an answer without yes or no does not depend on its question: one split for both
    plain = [replace(_case(k, "Tokens last 8 hours.", []), question=q) for k, q in (("c", "Q1?"), ("d", "Q2?"))]
    cache.split(splitter, plain[0], []), cache.split(splitter, plain[1], [])
    assert cache._split.cache_info().misses == 2  # "No." once, the plain answer once


def test_a_sentence_read_before_reads_the_same_in_another_answer():
    """The splitter keeps what each sentence is; a sentence met again in another answer, beside an
    abstention or not, with other passage ids, gives what a fresh splitter gives."""
    answers = [
        ("Please contact your manager.", ()),
        ("I can't find that in the passages. Please contact your manager.", ()),
        ("Please contact your manager. Refunds take 5 days [D1].", ()),
        ("Tokens last 8 hours (SEC-2). Yes.", ("SEC-2",)),
        ("Tokens last 8 hours (SEC-2). Yes.", ("KB-9",)),
        ("Yes. Tokens last 8 hours (SEC-2).", ("SEC-2", "KB-9")),
        ("Sources: [1][2]", ()),
        ("Refunds take 5 days.\nSources: [1][2]", ()),
        ("No. Returns are accepted within 30 days [D2].", ()),
        ("[^1]: Refund policy, KB-3", ()),
    ]
    shared = ClaimSplitter()
    for _ in range(2):
        for answer, ids in answers:
            fresh = ClaimSplitter()
            assert shared.split("c", answer, ids, question="Is it paid?") == fresh.split("c", answer, ids,
                                                                                         question="Is it paid?")
            assert shared.explain(answer, ids) == fresh.explain(answer, ids)
            alone = shared.split_alone(answer, ids)
            assert alone is None or alone == fresh.split("", answer, ids)
