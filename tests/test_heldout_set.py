"""The held-out set of enterprise-assistant answers (data/heldout) is whole and consistent: groundlab
reads it, every retrieved passage exists, and each case's labels, claims and notes line up.

These checks are about the data only. The claims in ``meta.claims`` are a person's reading of each
answer and are deliberately not compared with groundlab's splitter."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from groundlab import VERDICTS, load_cases

HELDOUT = Path(__file__).resolve().parents[1] / "data" / "heldout"
CASES = HELDOUT / "cases.jsonl"
PASSAGES = HELDOUT / "passages.jsonl"
PROCESSES = {"procurement", "facilities"}
LANGUAGES = {"en", "de", "fr"}


def _rows(path: Path) -> list:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        assert line.strip(), f"{path.name} line {number} is blank"
        rows.append(json.loads(line))
    return rows


@pytest.fixture(scope="module")
def rows() -> list:
    return _rows(CASES)


@pytest.fixture(scope="module")
def passages() -> dict:
    table = {}
    for row in _rows(PASSAGES):
        assert set(row) == {"id", "text"}, row
        assert row["id"] not in table, f"passage {row['id']} appears twice"
        assert row["text"].strip(), f"passage {row['id']} has no text"
        table[row["id"]] = row["text"]
    return table


def _words(text: str) -> list:
    return re.findall(r"\w+", text.casefold())


def test_groundlab_reads_every_case_with_its_passages_and_labels(rows, passages):
    cases = load_cases(CASES, PASSAGES)
    assert len(cases) == len(rows) >= 60
    for case, row in zip(cases, rows):
        assert case.id == row["id"]
        assert [p.id for p in case.retrieved] == row["retrieved"]
        assert [p.text for p in case.retrieved] == [passages[i] for i in row["retrieved"]]
        assert case.labels == tuple(row["labels"])
        assert case.process == row["process"] and case.answerable is row["answerable"]


def test_ids_are_unique_and_retrieved_passages_exist(rows, passages):
    ids = Counter(row["id"] for row in rows)
    assert not [i for i, n in ids.items() if n > 1]
    for row in rows:
        assert row["retrieved"], f"{row['id']} retrieved nothing"
        missing = [i for i in row["retrieved"] if i not in passages]
        assert not missing, f"{row['id']} retrieves {missing}, which passages.jsonl lacks"
    unused = set(passages) - {i for row in rows for i in row["retrieved"]}
    assert not unused, f"no case retrieves {sorted(unused)}"


def test_every_case_has_the_fields_of_the_set(rows):
    for row in rows:
        assert set(row) == {"id", "question", "retrieved", "answer", "answerable", "labels", "process", "meta"}, row["id"]
        assert set(row["meta"]) == {"language", "claims", "notes"}, row["id"]
        assert row["question"].strip() and row["answer"].strip(), row["id"]
        assert isinstance(row["answerable"], bool), row["id"]
        assert row["process"] in PROCESSES, row["id"]
        assert row["meta"]["language"] in LANGUAGES, row["id"]


def test_labels_are_verdicts_one_per_claim_with_a_note_for_each_that_is_not_supported(rows):
    for row in rows:
        labels, claims, notes = row["labels"], row["meta"]["claims"], row["meta"]["notes"]
        assert len(labels) == len(claims), f"{row['id']}: {len(labels)} labels for {len(claims)} claims"
        assert set(labels) <= set(VERDICTS), row["id"]
        assert len(notes) == sum(label != "supported" for label in labels), row["id"]
        assert all(isinstance(n, str) and n.strip() for n in notes), row["id"]
        assert all(isinstance(c, str) and c.strip() for c in claims), row["id"]


def test_each_claim_is_words_of_its_answer_in_order(rows):
    """A claim is a sentence or list item of the answer with its citations and markup taken out, so
    its words appear in the answer, in the same order."""
    for row in rows:
        answer = _words(row["answer"])
        for claim in row["meta"]["claims"]:
            rest = iter(answer)
            missing = [w for w in _words(claim) if not any(w == a for a in rest)]
            assert not missing, f"{row['id']}: claim {claim!r} has words not in its answer, in order: {missing}"


def test_claims_run_in_the_order_of_the_answer(rows):
    for row in rows:
        text = row["answer"].casefold()
        at = 0
        for claim in row["meta"]["claims"]:
            first = _words(claim)[0]
            found = re.search(rf"\b{re.escape(first)}\b", text[at:])
            assert found, f"{row['id']}: claim {claim!r} does not start after the claim before it"
            at += found.end()


def test_the_set_covers_both_processes_all_languages_and_every_verdict(rows):
    assert sum(len(row["labels"]) for row in rows) >= 180
    by_process = Counter(row["process"] for row in rows)
    assert set(by_process) == PROCESSES and min(by_process.values()) >= 0.4 * len(rows)
    languages = Counter(row["meta"]["language"] for row in rows)
    assert set(languages) == LANGUAGES and languages["de"] >= 20
    assert set(label for row in rows for label in row["labels"]) == set(VERDICTS)


def test_refusals_of_every_kind_are_present(rows):
    """Correct refusals (nothing to find, nothing claimed), false ones (the answer was there) and
    hedged ones (a refusal that still asserts something) are all in the set."""
    correct = [r["id"] for r in rows if not r["labels"] and r["answerable"] is False]
    false = [r["id"] for r in rows if not r["labels"] and r["answerable"] is True]
    hedged = [r["id"] for r in rows if r["labels"] and r["answerable"] is False]
    assert correct and false and hedged
    # a hedged refusal asserts something no passage backs
    for row in rows:
        if row["id"] in hedged:
            assert "unsupported" in row["labels"], row["id"]
