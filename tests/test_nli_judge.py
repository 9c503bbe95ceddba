"""The NLI judge with a tiny model built in the test: loading, labels, windows, batches, order.

The tiny models are ONNX graphs run by onnxruntime (no PyTorch needed); the tests of the PyTorch
path (a transformers model, HHEM's own code) run where torch and transformers are installed."""

from __future__ import annotations

import json
import sys

import pytest

from groundlab import GroundlabError, get_judge, load_cases
from groundlab.records import Evidence, Passage

from conftest import CASES, NOTES
from tiny_models import build_tiny_nli, needs_torch, tiny_nli  # noqa: F401


def long_evidence() -> Evidence:
    notes = [c.retrieved for c in load_cases(CASES, NOTES)]
    passages = tuple({p.id: p for group in notes for p in group}.values())
    return Evidence("Why is the invoice blocked?", passages)


def test_sample_score_runs_offline(tiny_nli, cli):
    summary = cli.json("score", "--judge", "nli", "--model", tiny_nli, "--cases", CASES, "--passages", NOTES)
    assert summary["judge"] == "nli" and summary["claims"] == 20 and summary["errors"] == 0


@pytest.mark.parametrize("id2label, force, expected", [
    ({0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}, "CONTRADICTION", "contradicted"),
    ({0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}, "ENTAILMENT", "supported"),
    ({0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}, "NEUTRAL", "unsupported"),
    ({0: "entailment", 1: "not_entailment"}, "not_entailment", "unsupported"),
    ({0: "entailment", 1: "not_entailment"}, "entailment", "supported"),
])
def test_labels_map_to_verdicts_whatever_their_order(tmp_path, id2label, force, expected):
    path = build_tiny_nli(tmp_path / "m", id2label=id2label, force=force)
    judge = get_judge("nli", model=str(path))
    verdicts = judge.judge_batch([("The supplier delivered 90 pieces.", long_evidence())] * 2)
    assert [v.label for v in verdicts] == [expected, expected]


def test_labels_that_are_not_nli_are_refused(tmp_path):
    path = build_tiny_nli(tmp_path / "m", id2label={0: "positive", 1: "negative"})
    with pytest.raises(GroundlabError, match="not entailment / neutral / contradiction"):
        get_judge("nli", model=str(path))


def test_long_evidence_is_split_into_overlapping_windows_that_fit(tiny_nli):
    judge = get_judge("nli", model=str(tiny_nli))
    claim = "The invoice is blocked for payment."
    evidence = long_evidence()
    windows = judge.windows(claim, evidence)
    assert len(windows) > 3
    tok = judge._tokenizer
    for window in windows:
        assert len(tok(window, claim)["input_ids"]) <= judge.max_length
    joined = " ".join(windows)
    from groundlab.claims import split_sentences
    for p in evidence.passages:
        for sentence in split_sentences(p.text):
            assert sentence in joined or all(w in joined for w in sentence.split())
    # Overlap: each window starts with the last sentence of the one before (when it had several).
    for before, after in zip(windows, windows[1:]):
        last = split_sentences(before)[-1]
        if len(split_sentences(before)) > 1:
            assert after.startswith(last)


def test_short_evidence_is_one_window_and_a_long_sentence_is_chunked(tiny_nli):
    judge = get_judge("nli", model=str(tiny_nli))
    short = Evidence("Who?", (Passage("D1", "The credit analyst releases it."),))
    assert judge.windows("The analyst releases it.", short) == [short.text]
    run_on = " ".join(["the invoice is blocked"] * 60)
    windows = judge.windows("It is blocked.", Evidence("Why?", (Passage("D1", run_on),)))
    assert len(windows) > 1
    for window in windows:
        assert len(judge._tokenizer(window, "It is blocked.")["input_ids"]) <= judge.max_length


def test_batches_keep_order_and_do_not_change_scores(tiny_nli):
    cases = load_cases(CASES, NOTES)[:6]
    pairs = [(sentence, Evidence(c.question, c.retrieved)) for c in cases
             for sentence in c.answer.split(". ")[:2]]
    one = get_judge("nli", model=str(tiny_nli), batch_size=1).judge_batch(pairs)
    many = get_judge("nli", model=str(tiny_nli), batch_size=7).judge_batch(pairs)
    backwards = get_judge("nli", model=str(tiny_nli), batch_size=7).judge_batch(pairs[::-1])
    assert len(one) == len(many) == len(pairs)
    assert [v.label for v in one] == [v.label for v in many] == [v.label for v in backwards[::-1]]
    for a, b, c in zip(one, many, backwards[::-1]):
        assert a.score == pytest.approx(b.score, abs=1e-5) == pytest.approx(c.score, abs=1e-5)


def test_best_window_decides(tiny_nli):
    judge = get_judge("nli", model=str(tiny_nli))  # entailment, neutral, contradiction
    assert judge._decide([[0.1, 0.8, 0.1], [0.7, 0.2, 0.1]]).label == "supported"
    assert judge._decide([[0.1, 0.8, 0.1], [0.7, 0.2, 0.1]]).score == pytest.approx(0.7)
    assert "window 2 of 2" in judge._decide([[0.1, 0.8, 0.1], [0.7, 0.2, 0.1]]).reason
    assert judge._decide([[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]]).label == "contradicted"
    assert judge._decide([[0.3, 0.6, 0.1], [0.2, 0.7, 0.1]]).label == "unsupported"
    # Entailment anywhere wins over a contradiction elsewhere: the supporting passage decides.
    assert judge._decide([[0.1, 0.1, 0.8], [0.6, 0.3, 0.1]]).label == "supported"


def test_missing_model_folder_is_one_sentence_naming_it(tmp_path, cli):
    code, out, err = cli("score", "--judge", "nli", "--model", tmp_path / "none")
    assert code == 2 and "no NLI model in" in err and err.count("\n") == 1


def test_missing_hub_model_is_one_sentence_naming_it():
    needs_torch()
    with pytest.raises(GroundlabError, match="'some-org/not-here' is not on this machine.*hf download"):
        get_judge("nli", model="some-org/not-here")


def test_an_onnx_folder_without_its_tokenizer_is_one_sentence(tiny_nli, tmp_path):
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(tiny_nli, broken)
    (broken / "tokenizer.json").unlink()
    with pytest.raises(GroundlabError, match="no tokenizer.json beside model.onnx"):
        get_judge("nli", model=str(broken))
    (broken / "tokenizer.json").write_text("{}", encoding="utf-8")
    (broken / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(GroundlabError, match="could not be loaded"):
        get_judge("nli", model=str(broken))


def test_the_onnx_path_needs_no_torch(tiny_nli, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "transformers", None)
    judge = get_judge("nli", model=str(tiny_nli))
    verdicts = judge.judge_batch([("The supplier delivered 90 pieces.", long_evidence())])
    assert verdicts[0].label in ("supported", "contradicted", "unsupported") and 0 <= verdicts[0].score <= 1


def test_the_torch_path_gives_the_same_verdicts_as_before(tmp_path):
    needs_torch()
    path = build_tiny_nli(tmp_path / "m", force="contradiction", backend="torch")
    judge = get_judge("nli", model=str(path))
    assert judge._torch is not None
    verdicts = judge.judge_batch([("The supplier delivered 90 pieces.", long_evidence()), ("It is blocked.",
                                  Evidence("Why?", (Passage("D1", "The invoice is blocked."),)))])
    assert [v.label for v in verdicts] == ["contradicted", "contradicted"]


def test_without_torch_the_judge_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(GroundlabError, match=r"pip install 'groundlab\[nli\]'"):
        get_judge("nli", model="anything")


class _FakeHHEM:
    """Stands in for HHEM-2.1-Open's remote code: ``predict(pairs)`` and a tokenizer."""

    prompt = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"

    def __init__(self, tokenizer):
        self.tokenzier = tokenizer  # sic: the name HHEM's code uses
        self.seen = []

    def predict(self, pairs):
        self.seen.extend(pairs)
        return [0.9 if "90 of 100" in premise else 0.1 for premise, _ in pairs]


def test_hhem_scores_decide_at_one_half(tiny_nli):
    judge = get_judge("nli", model=str(tiny_nli))
    fake = _FakeHHEM(judge._tokenizer)
    judge._net, judge.kind, judge._prompt, judge.max_length = fake, "hhem", fake.prompt, 64
    evidence = long_evidence()
    verdicts = judge.judge_batch([("The supplier delivered 90 pieces.", evidence),
                                  ("Nothing here.", Evidence("Q?", (Passage("D1", "Other text."),)))])
    assert [v.label for v in verdicts] == ["supported", "unsupported"]
    assert verdicts[0].score == pytest.approx(0.9) and "HHEM consistency 0.90" in verdicts[0].reason
    assert len(fake.seen) > 2  # the long evidence went in several windows


def test_hhem_loads_offline_through_its_own_code(tmp_path):
    needs_torch()
    from tiny_models import build_tiny_hhem

    judge = get_judge("nli", model=str(build_tiny_hhem(tmp_path)), max_length=48)
    assert judge.kind == "hhem" and judge.labels == {}
    short = Evidence("Q?", (Passage("D1", "The supplier delivered 90 of 100 pieces."),))
    pairs = [("The supplier delivered 90 pieces.", short), ("The invoice is blocked.", long_evidence())]
    verdicts = judge.judge_batch(pairs)
    assert [v.label in ("supported", "unsupported") for v in verdicts] == [True, True]
    assert all(0 <= v.score <= 1 and v.reason.startswith("HHEM consistency") for v in verdicts)
    assert len(judge.windows(*pairs[1])) > 1


LONG_CLAIM = " ".join(["the supplier delivered 90 of 100 pieces"] * 12)  # longer than the tiny model's input


def test_a_claim_longer_than_the_input_is_an_error_verdict_not_a_crash(tiny_nli):
    judge = get_judge("nli", model=str(tiny_nli), batch_size=2)
    short = Evidence("Why?", (Passage("D1", "The supplier delivered 90 of 100 pieces."),))
    verdicts = judge.judge_batch([("The supplier delivered 90 pieces.", short), (LONG_CLAIM, short),
                                  ("The invoice is blocked.", long_evidence())])
    assert verdicts[0].label is not None and verdicts[2].label is not None
    assert verdicts[1].label is None and "tokens long" in verdicts[1].error and "64-token input" in verdicts[1].error
    assert judge.windows(LONG_CLAIM, short) == []


def test_a_pair_the_model_refuses_fails_only_its_claim(tiny_nli, monkeypatch):
    judge = get_judge("nli", model=str(tiny_nli), batch_size=4)
    run = judge._run

    def picky(batch):
        if any(claim == "Refused." for _, claim in batch):
            raise RuntimeError("Truncation error: Sequence to truncate too short")
        return run(batch)
    monkeypatch.setattr(judge, "_run", picky)
    short = Evidence("Why?", (Passage("D1", "The supplier delivered 90 of 100 pieces."),))
    verdicts = judge.judge_batch([("The supplier delivered 90 pieces.", short), ("Refused.", short),
                                  ("It is blocked.", short)])
    assert [v.label is None for v in verdicts] == [False, True, False]
    assert "could not take this claim" in verdicts[1].error and "Truncation error" in verdicts[1].error


def test_score_lists_a_too_long_claim_as_a_judge_error(tiny_nli, cli, tmp_path):
    cases = tmp_path / "cases.jsonl"
    passages = [{"id": "P1", "text": "The supplier delivered 90 of 100 pieces."}]
    cases.write_text("".join(json.dumps({"id": cid, "question": "What was delivered?", "retrieved": passages,
                                         "answer": answer}) + "\n"
                             for cid, answer in (("a", "The supplier delivered 90 pieces [P1]."),
                                                 ("b", LONG_CLAIM + " [P1]."))), encoding="utf-8")
    code, out, err = cli("score", "--judge", "nli", "--model", tiny_nli, "--cases", cases)
    assert code == 0, err
    assert "Traceback" not in err and "judge errors: 1 claims" in out and "b claim 1: the claim is" in out
