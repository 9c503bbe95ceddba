"""The hand-labeled enterprise set (data/enterprise/): HR and IT service-desk answers in English,
German and French. These tests check the set's own integrity (every retrieved passage exists, one
label a claim, each claim is text of its answer, every verdict other than supported says why) and
that the counts its README gives are the counts of the data; and that groundlab's splitter reads
each answer as the person split it. No test reads a judge's verdicts on it: the labels are a
person's, and bench/labeled_sets.py measures the judges."""
import collections
import json
import re
from pathlib import Path

import pytest

import groundlab

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "enterprise"
CASES, PASSAGES = DATA / "cases.jsonl", DATA / "passages.jsonl"
VERDICTS = ("supported", "contradicted", "unsupported")
KINDS = {None, "computed", "limit", "outside-knowledge", "wrong-citation", "courtesy"}
# citations as the answers write them: [HR-14], [HR-14, HR-15], [^1], Sources: [1][2], 【1】,
# (Source: HR-12), (Quelle: PHB-7.2), (see KB0012345)
CITATION = re.compile(r"\s*(\[[^\]]*\]|【\d+】|\((?:Source|Quelle|see)\b[^)]*\))")


def _lines(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="module")
def records():
    return _lines(CASES)


@pytest.fixture(scope="module")
def passages():
    return _lines(PASSAGES)


def test_loads_as_cases_with_every_retrieved_passage(records, passages):
    cases = groundlab.load_cases(str(CASES), str(PASSAGES))
    assert [c.id for c in cases] == [r["id"] for r in records]
    ids = [p["id"] for p in passages]
    assert len(ids) == len(set(ids))
    assert all(p["text"].strip() for p in passages)
    for case in cases:
        assert case.retrieved, case.id
        assert {p.id for p in case.retrieved} <= set(ids), case.id
    assert {p.id for c in cases for p in c.retrieved} == set(ids), "every passage is retrieved by some case"


def test_ids_labels_and_claims_agree(records):
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids))
    assert len(records) >= 60
    for r in records:
        meta = r["meta"]
        assert len(r["labels"]) == len(meta["claims"]) == len(meta["kinds"]), r["id"]
        assert all(label in VERDICTS for label in r["labels"]), r["id"]
        assert set(meta["kinds"]) <= KINDS, r["id"]
        assert isinstance(r["answerable"], bool), r["id"]
        assert meta["language"] in ("en", "de", "fr"), r["id"]
        assert r["process"] in ("hr", "it-service-desk"), r["id"]
    assert {r["meta"]["language"] for r in records} == {"en", "de", "fr"}
    assert {r["process"] for r in records} == {"hr", "it-service-desk"}


def test_each_claim_is_text_of_its_answer(records):
    for r in records:
        text = CITATION.sub("", r["answer"]).replace("**", "")
        at = 0
        for claim in r["meta"]["claims"]:
            found = text.find(claim.rstrip(".!"), at)
            assert found >= 0, f"{r['id']}: claim not in the answer (or out of order): {claim!r}"
            at = found


def test_every_verdict_but_supported_gives_its_reason(records):
    for r in records:
        notes = r["meta"].get("notes", [])
        for i, label in enumerate(r["labels"], 1):
            if label != "supported":
                assert any(n.startswith(f"claim {i}: ") for n in notes), f"{r['id']} claim {i}"


def test_refusals_have_no_claims_unless_hedged(records):
    for r in records:
        kind = r["meta"].get("refusal")
        assert kind in (None, "correct", "false", "hedged"), r["id"]
        if kind in ("correct", "false"):
            assert r["labels"] == [], r["id"]
            assert r["answerable"] is (kind == "false"), r["id"]
        if kind == "hedged":
            assert r["labels"] and not r["answerable"], r["id"]


def count_rows(records):
    """The README's table of counts, one row a language, a process and the whole set."""
    groups = collections.OrderedDict(
        [("English", lambda r: r["meta"]["language"] == "en"), ("German", lambda r: r["meta"]["language"] == "de"),
         ("French", lambda r: r["meta"]["language"] == "fr"), ("HR", lambda r: r["process"] == "hr"),
         ("IT service desk", lambda r: r["process"] == "it-service-desk"), ("all", lambda r: True)])
    rows = []
    for name, keep in groups.items():
        chosen = [r for r in records if keep(r)]
        labels = collections.Counter(label for r in chosen for label in r["labels"])
        claims = sum(labels.values())
        share = round(100 * (claims - labels["supported"]) / claims)
        rows.append(f"| {name} | {len(chosen)} | {claims} | {labels['supported']} | {labels['contradicted']} | "
                    f"{labels['unsupported']} | {share}% |")
    return rows


def kind_rows(records):
    """The README's table of claim kinds (meta.kinds) by verdict, and of refusals (meta.refusal)."""
    kinds = collections.Counter((k, label) for r in records for k, label in zip(r["meta"]["kinds"], r["labels"]) if k)
    rows = [f"| {k} | {sum(n for (kk, _), n in kinds.items() if kk == k)} | " + " | ".join(
        str(kinds[(k, v)]) for v in VERDICTS) + " |" for k in sorted(KINDS - {None})]
    refusals = collections.Counter(r["meta"].get("refusal") for r in records)
    rows.append(f"refusals: {refusals['correct']} correct, {refusals['false']} false, {refusals['hedged']} hedged")
    return rows


def test_readme_counts_are_the_data(records):
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for row in count_rows(records) + kind_rows(records):
        assert row in readme, f"data/enterprise/README.md lacks the measured line {row!r}"


def test_every_answer_splits_into_the_claims_the_person_labeled():
    """German dates and ordinals, abbreviations, lists closed by a citation, Markdown emphasis and
    whom to ask beside a refusal: the splitter reads each answer of the set as its labeler did."""
    from groundlab import ClaimSplitter

    splitter = ClaimSplitter()
    differ = []
    for case in groundlab.load_cases(str(CASES), str(PASSAGES)):
        got = [c.text for c in splitter.split(case.id, case.answer, [p.id for p in case.retrieved],
                                              question=case.question).claims]
        want = case.meta["claims"]
        norm = lambda xs: [" ".join(x.split()).rstrip(".") for x in xs]  # noqa: E731
        if norm(got) != norm(want):
            differ.append(case.id)
    assert differ == []
