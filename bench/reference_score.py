"""The reference method of SPEC §2-§5 as one plain Python script: the yardstick of bench_score.py.

It reads a cases file and a passages file, splits each answer into claims, judges every claim with
the `rules` method (numbers and codes, content-word coverage, the negation step), checks the
citations (ALCE recall and precision) and prints the measures as JSON, each rate with its Wilson
95% interval. Standard library only, written the way the method reads, with nothing cached: the
evidence of a claim is built and read afresh for every judgement, as the method describes it.

    python bench/reference_score.py CASES.jsonl PASSAGES.jsonl

On the sample set it gives the `rules` figures of SPEC §6 (tests/test_reference_script.py).
"""

from __future__ import annotations

import json
import math
import re
import sys

STOP_WORDS = set("""
a all also an and are as at be been but by can do does each every for from had has have how if in
into is it its may most no not of on once or our out so than that the their them then there these
they this those to up was we were what when which while who why will with yes you your
""".split())
NEGATIONS = {"not", "cannot", "never", "no"}
ABSTENTIONS = re.compile(r"i can't find|i cannot find|i couldn't find|i could not find|i don't know|"
                         r"not in the retrieved|no information|don't say|do not say|"
                         r"don't have enough information", re.IGNORECASE)
CITATION = re.compile(r"\[([A-Za-z0-9_.:-]+)\]")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
NUMBER = re.compile(r"^[A-Za-z]*-?\S*\d")
WORD = re.compile(r"[a-z][a-z'\-]*")
THRESHOLD = 0.75


def sentences(text):
    return [s for s in SENTENCE_END.split(text.strip()) if s]


def numbers(text):
    out = set()
    for token in text.split():
        token = token.strip("()\"'")
        if any(ch.isdigit() for ch in token) and NUMBER.match(token):
            out.add(token.rstrip(".,;:").lower())
    return out


def content_words(text):
    words = set()
    for word in WORD.findall(text.lower()):
        if word.endswith("'s"):
            word = word[:-2]
        word = word.strip("'-")
        if len(word) < 3 or word in STOP_WORDS:
            continue
        if word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.add(word)
    return words


def negated(text):
    return any(w in NEGATIONS or w.endswith("n't") for w in re.findall(r"[a-z']+", text.lower()))


def judge(claim, evidence):
    """supported / contradicted / unsupported, by SPEC §3."""
    claim_numbers, evidence_numbers = numbers(claim), numbers(evidence)
    missing = claim_numbers - evidence_numbers
    if missing:
        return "contradicted" if evidence_numbers else "unsupported"
    words = content_words(claim)
    if not words:
        return "supported"
    found = content_words(evidence)
    coverage = len(words & found) / len(words)
    if coverage < THRESHOLD:
        return "unsupported"
    question, _, passages = evidence.partition("\n")
    best, shared = None, -1
    for sentence in [question] + sentences(passages):
        n = len(words & content_words(sentence))
        if n > shared:
            best, shared = sentence, n
    if best is not None and negated(claim) != negated(best):
        return "contradicted"
    return "supported"


def evidence_of(question, passages):
    return "Question: " + question + "\n" + " ".join(p["text"] for p in passages)


def wilson(count, total, z=1.959963984540054):
    if total == 0:
        return None, None
    p = count / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


def rate(count, total):
    low, high = wilson(count, total)
    return {"count": count, "total": total, "rate": count / total if total else None, "low": low, "high": high}


def main(argv):
    cases_path, passages_path = argv[1], argv[2]
    with open(passages_path, encoding="utf-8") as fh:
        notes = {p["id"]: p for p in (json.loads(line) for line in fh if line.strip())}
    claims = supported = contradicted = unsupported = 0
    answered = hallucinated = answered_labeled = hallucinated_by_person = 0
    recall_backed = recall_supported = citations = relevant = 0
    unanswerable = abstained_unanswerable = answerable = abstained_answerable = 0
    correct = abstained = wrong = cases = 0
    with open(cases_path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            case = json.loads(line)
            cases += 1
            retrieved = [r if isinstance(r, dict) else notes[r] for r in case["retrieved"]]
            question = case["question"]
            found = []
            for sentence in sentences(case["answer"]):
                if ABSTENTIONS.search(sentence):
                    continue
                cites = list(dict.fromkeys(CITATION.findall(sentence)))
                text = re.sub(r"\s+([.!?])$", r"\1", CITATION.sub("", sentence).strip())
                text = re.sub(r"\s{2,}", " ", text)
                if text and text not in ".!?":
                    found.append((text, cites))
            verdicts = []
            for text, cites in found:
                verdict = judge(text, evidence_of(question, retrieved))
                verdicts.append(verdict)
                claims += 1
                if verdict == "supported":
                    supported += 1
                elif verdict == "contradicted":
                    contradicted += 1
                else:
                    unsupported += 1
                cited = [p for p in retrieved if p["id"] in cites]
                backed = bool(cited) and judge(text, evidence_of(question, cited)) == "supported"
                if verdict == "supported":
                    recall_supported += 1
                    recall_backed += backed
                citations += len(cites)
                if backed:
                    if len(cites) == 1:
                        relevant += 1
                    else:
                        for cite in cites:
                            alone = [p for p in retrieved if p["id"] == cite]
                            others = [p for p in cited if p["id"] != cite]
                            if (alone and judge(text, evidence_of(question, alone)) == "supported") or \
                                    judge(text, evidence_of(question, others)) != "supported":
                                relevant += 1
            flagged = any(v != "supported" for v in verdicts)
            if verdicts:
                answered += 1
                hallucinated += flagged
                labels = case.get("labels")
                if labels is not None:
                    answered_labeled += 1
                    hallucinated_by_person += any(label != "supported" for label in labels)
            no_claims = not verdicts
            if case.get("answerable") is False:
                unanswerable += 1
                abstained_unanswerable += no_claims
            elif case.get("answerable") is True:
                answerable += 1
                abstained_answerable += no_claims
            if no_claims:
                abstained += 1
            elif flagged or case.get("answerable") is False:
                wrong += 1
            else:
                correct += 1
    result = {
        "cases": cases, "claims": claims,
        "faithfulness": rate(supported, claims), "contradicted": contradicted, "unsupported": unsupported,
        "hallucination_rate": rate(hallucinated, answered),
        "hallucination_rate_by_person": rate(hallucinated_by_person, answered_labeled),
        "citation_recall": rate(recall_backed, recall_supported),
        "citation_precision": rate(relevant, citations),
        "abstention": rate(abstained_unanswerable, unanswerable),
        "false_abstention": rate(abstained_answerable, answerable),
        "outcomes": {"correct": correct, "abstained": abstained, "wrong": wrong},
        "accuracy_score": rate(correct, cases),
        "risk_weighted_score": correct - wrong,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
