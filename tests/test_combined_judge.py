"""The combined judge: the signals judge's rules first, then the signals score and the entailment
probability weighed with the claim's and passages' facts by the model in groundlab/data/combined.json;
its thresholds by kind of case, its config refused in one sentence when damaged, and its identity."""

from __future__ import annotations

import json
import math

import pytest

from groundlab import GroundlabError, get_judge
from groundlab.judges.combined import FEATURES, KINDS, facts, feature_row, kind_of, load_config
from groundlab.judges.entail import read_claims
from groundlab.records import Evidence, Passage

from conftest import CASES, NOTES

POLICY = Evidence("Who releases an order 1.5 percent over its limit?",
                  (Passage("D01", "Below 2 percent the credit analyst releases the order. Above 2 percent the credit "
                                  "manager must approve it."),
                   Passage("D02", "Blocked orders are reviewed every morning by the credit team.")))


@pytest.fixture(scope="module")
def judge():
    return get_judge("combined")


def test_the_rules_of_the_signals_judge_decide_first(judge):
    signals = get_judge("signals")
    pairs = [("Above 5 percent the credit manager must approve it.", POLICY),   # a number the passages lack
             ("Here is what I found.", POLICY),                                  # framing
             ("Below 2 percent the credit analyst never releases the order.", POLICY)]  # a negation flip
    ours, theirs = judge.judge_batch(pairs), signals.judge_batch(pairs)
    assert [v.label for v in ours] == [v.label for v in theirs] == ["contradicted", "supported", "contradicted"]
    assert [v.reason for v in ours] == [v.reason for v in theirs]


def test_a_claim_judged_across_languages_keeps_the_signals_verdict(judge):
    """A German claim against English passages is decided by what carries across, a rule (score 1 or
    0): the English entailment model never weighs it."""
    evidence = Evidence("Was wird erstattet?", (Passage("TR-2", "Hotel costs are reimbursed up to 120 EUR per night, "
                                                                 "breakfast included."),))
    claim = "Hotelkosten werden bis 120 EUR pro Nacht schnell erstattet."  # 4 of its 5 words found
    (ours,), (theirs,) = judge.judge_batch([(claim, evidence)]), get_judge("signals").judge_batch([(claim, evidence)])
    assert "German claim, English passages" in theirs.reason and theirs.score in (0.0, 1.0)
    assert (ours.label, ours.reason, ours.score) == (theirs.label, theirs.reason, theirs.score)


def test_the_score_weighs_both_judges_and_the_facts(judge):
    claims = ["The credit team reviews blocked orders every morning.",
              "The credit analyst releases orders below 2 percent.",
              "Blocked orders are approved by the sales director."]
    pairs = [(c, POLICY) for c in claims]
    verdicts = judge.judge_batch(pairs)
    signals = get_judge("signals").judge_batch(pairs)
    config = judge.config
    readings = read_claims(judge._model, pairs, config.reading, config.max_chunks)
    for (claim, ev), v, s, r in zip(pairs, verdicts, signals, readings):
        assert 0 < s.score < 1  # the signals model decided: the combination weighs it
        p = config.score(feature_row(s.score, r.p, claim, ev))
        assert v.score == pytest.approx(p)
        assert v.label == ("supported" if p >= config.thresholds["qa"] else "unsupported")
        assert v.reason.startswith("combined ") and "(qa): signals " in v.reason and "entailment " in v.reason
        assert v.evidence == s.evidence  # the sentence the signals judge found is shown beside it
    # the weights move the score with what each judge says: the invented approver scores lowest
    assert verdicts[2].score < min(verdicts[0].score, verdicts[1].score)


def test_facts_and_kinds():
    qa = Evidence("Who approves?", (Passage("D1", "The manager approves orders above 2 percent."),))
    summary = Evidence("", qa.passages)
    dialogue = Evidence("Customer: my order 2408 is blocked\nAgent: since when?\nCustomer: Monday", qa.passages)
    assert [kind_of(e) for e in (qa, summary, dialogue)] == ["qa", "summary", "dialogue"]
    words, passages, question, numbers = facts("The manager approves orders above 2 percent.", qa)
    assert (words, passages) == (pytest.approx(math.log1p(7)), pytest.approx(math.log1p(7)))
    assert question == 1.0 and numbers == 1.0
    assert facts("The manager approves.", summary)[2:] == (0.0, 0.0)
    assert feature_row(1.0, 0.0, "x", summary)[:2] == (7.0, -7.0)  # log-odds clipped, never infinite


def _config(tmp_path, **change):
    data = json.loads(json.dumps(load_config().data))
    data.update(change)
    path = tmp_path / "combined.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_each_kind_of_case_has_its_threshold(tmp_path):
    path = _config(tmp_path, thresholds={"default": 0.001, "qa": 0.999})
    judge = get_judge("combined", config=str(path))
    assert judge.config.thresholds == {"qa": 0.999, "summary": 0.001, "dialogue": 0.999}
    claim = "The credit team reviews blocked orders every morning."
    asked, told = judge.judge_batch([(claim, POLICY), (claim, Evidence("", POLICY.passages))])
    assert asked.label == "unsupported" and "< 1.00 (qa)" in asked.reason
    assert told.label == "supported" and "(summary)" in told.reason
    assert set(KINDS) == set(judge.config.thresholds)


@pytest.mark.parametrize("content, message", [
    ("{", "is not JSON"),
    (json.dumps({"kind": "groundlab judge config", "judge": "signals"}), "is not a groundlab combined judge config"),
    (json.dumps({"kind": "groundlab combined judge", "weights": {"intercept": 0}, "thresholds": {"default": 0.5}}),
     "needs a number for each weight"),
    (json.dumps({"kind": "groundlab combined judge", "weights": {k: 0 for k in ("intercept",) + FEATURES},
                 "thresholds": {"default": 1.5}}), "needs thresholds between 0 and 1"),
])
def test_a_damaged_config_is_one_sentence(tmp_path, cli, content, message):
    path = tmp_path / "combined.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(GroundlabError, match=message):
        get_judge("combined", config=str(path))
    code, out, err = cli("score", "--judge", "combined", "--judge-config", path, "--cases", CASES, "--passages", NOTES)
    assert code == 2 and message.split()[0] in err and err.count("\n") == 1 and "Traceback" not in err


def test_score_runs_the_combined_judge_offline(cli):
    summary = cli.json("score", "--judge", "combined", "--cases", CASES, "--passages", NOTES)
    assert summary["judge"] == "combined" and summary["claims"] == 20 and summary["errors"] == 0


def test_a_claim_too_long_for_the_model_keeps_the_signals_verdict(judge):
    claim = " ".join(["the credit analyst releases the order below two percent"] * 40)
    (verdict,) = judge.judge_batch([(claim, POLICY)])
    (signals,) = get_judge("signals").judge_batch([(claim, POLICY)])
    assert verdict.label == signals.label and verdict.score == signals.score
    assert verdict.reason.endswith("too long for the entailment model: the signals judge decides")


def test_identity_names_every_weight_behind_the_verdicts(judge):
    import hashlib

    from groundlab.identity import judge_identity
    from groundlab.judges.entail import shipped_model_dir

    ident = judge_identity(judge)
    assert ident["name"] == "combined" and ident["config"] == "groundlab/data/combined.json"
    assert ident["weights_sha256"] == hashlib.sha256((shipped_model_dir() / "model.onnx").read_bytes()).hexdigest()
    assert ident["config_sha256"] == load_config().sha256 and ident["signals_config_sha256"]
    assert ident["reading"] in ("chunks", "window")


def test_the_shipped_config_carries_its_figures():
    data = load_config().data
    assert data["features"] == list(FEATURES)
    assert set(data["leave_one_set_out"]) == {"factcheck_gpt", "wice", "frank_cnndm", "frank_xsum", "expertqa",
                                             "halueval_qa"}
    assert len(data["fitted_on"]["signals_config_sha256"]) == 64
