"""Every reference figure of the sample set, for both rules judges, through the API and the command line."""

from __future__ import annotations

import pytest

from groundlab import (
    abstention_rate,
    agreement,
    citation_precision,
    citation_recall,
    evaluate,
    faithfulness,
    false_abstention_rate,
    hallucination_rate,
    load_cases,
    outcomes,
    risk_weighted_score,
    accuracy_score,
    verdict_counts,
)

from conftest import NOTES

EXPECTED = {
    "lexical": dict(
        confusion=[[13, 0, 1], [1, 1, 0], [0, 1, 3]], agree=17, caught=5, false_alarms=1,
        supported=14, contradicted=2, unsupported=4, hallucinated=5, low=0.24, high=0.76,
        backed=13, recall_supported=14, relevant=13, outcomes=(5, 2, 5), rw1=0, rw3=-10,
    ),
    "rules": dict(
        confusion=[[13, 0, 1], [0, 2, 0], [0, 1, 3]], agree=18, caught=6, false_alarms=1,
        supported=13, contradicted=3, unsupported=4, hallucinated=6, low=0.31, high=0.83,
        backed=12, recall_supported=13, relevant=12, outcomes=(4, 2, 6), rw1=-2, rw3=-14,
    ),
}


@pytest.mark.parametrize("judge", ["lexical", "rules"])
def test_sample_figures(sample_cases, judge):
    e = EXPECTED[judge]
    ev = evaluate(sample_cases, judge)
    claims, cases = ev.claims, ev.cases

    a = agreement(claims, cases)
    assert a.confusion == e["confusion"]
    assert (a.agreement.count, a.agreement.total) == (e["agree"], 20)
    assert (a.caught.count, a.caught.total) == (e["caught"], 6)
    assert (a.false_alarms.count, a.false_alarms.total) == (e["false_alarms"], 14)
    assert a.unlabeled_cases == 0

    counts = verdict_counts(claims)
    assert counts == {"supported": e["supported"], "contradicted": e["contradicted"],
                      "unsupported": e["unsupported"], "errors": 0}
    f = faithfulness(claims)
    assert (f.count, f.total) == (e["supported"], 20)

    h = hallucination_rate(cases)
    assert (h.count, h.total) == (e["hallucinated"], 10)
    assert (round(h.low, 2), round(h.high, 2)) == (e["low"], e["high"])
    p = hallucination_rate(cases, by="person")
    assert (p.count, p.total) == (5, 10)

    r = citation_recall(claims)
    assert (r.count, r.total) == (e["backed"], e["recall_supported"])
    pr = citation_precision(claims)
    assert (pr.count, pr.total) == (e["relevant"], 19)

    ab, fa = abstention_rate(cases), false_abstention_rate(cases)
    assert (ab.count, ab.total, fa.count, fa.total) == (1, 3, 1, 9)
    assert tuple(outcomes(cases).values()) == e["outcomes"]
    assert risk_weighted_score(cases, 1) == e["rw1"]
    assert risk_weighted_score(cases, 3) == e["rw3"]


def test_lexical_accuracy_and_rounded_rates(sample_cases):
    ev = evaluate(sample_cases, "lexical")
    acc = accuracy_score(ev.cases)
    assert (acc.count, acc.total) == (5, 12)
    assert round(100 * citation_recall(ev.claims).rate) == 93
    assert round(100 * citation_precision(ev.claims).rate) == 68
    rules = evaluate(sample_cases, "rules")
    assert round(100 * citation_recall(rules.claims).rate) == 92
    assert round(100 * citation_precision(rules.claims).rate) == 63


def test_named_cases(sample_cases):
    """The named misses: c08 negation, c05 paraphrase, c06's 5, c09's citation, c12."""
    lex = evaluate(sample_cases, "lexical").claims.set_index(["case_id", "claim"])
    rules = evaluate(sample_cases, "rules")
    rc = rules.claims.set_index(["case_id", "claim"])
    assert lex.loc[("c08", 1), "verdict"] == "supported"
    assert rc.loc[("c08", 1), "verdict"] == "contradicted"
    assert "negation" in rc.loc[("c08", 1), "reason"]
    assert rc.loc[("c05", 2), "verdict"] == "unsupported"
    assert lex.loc[("c06", 1), "verdict"] == "contradicted"
    assert "5" in lex.loc[("c06", 1), "reason"]
    assert rc.loc[("c09", 2), "verdict"] == "supported"
    assert not rc.loc[("c09", 2), "citation_ok"]
    c12 = rules.cases.set_index("case_id").loc["c12"]
    assert c12["answerable"] and c12["outcome"] == "abstained"


def test_c06_abstains_variant(c06_abstains):
    ev = evaluate(load_cases(c06_abstains, NOTES), "lexical")
    assert tuple(outcomes(ev.cases).values()) == (5, 3, 4)
    ab = abstention_rate(ev.cases)
    assert (ab.count, ab.total) == (2, 3)
    assert risk_weighted_score(ev.cases, 3) == -7


def _only(figures: dict, *keys: str) -> dict:
    """The counts of a rate in score --json, without the range added to every rate."""
    return {k: figures[k] for k in keys}


@pytest.mark.parametrize("judge", ["lexical", "rules"])
def test_score_json_keys_and_figures(cli, sample_args, judge):
    s = cli.json("score", *sample_args, "--judge", judge, "--penalty", "3")
    # Every key of earlier versions, in order, then the ones added since.
    assert list(s) == ["judge", "cases", "claims", "penalty", "risk_weighted_score", "faithfulness",
                       "contradicted", "unsupported", "errors", "hallucination_rate",
                       "hallucination_rate_by_person", "citation_recall", "citation_precision",
                       "abstention", "false_abstention", "outcomes", "accuracy_score", "judge_identity",
                       "hallucination_rate_corrected", "flagged_by_judge", "risk_weighted", "margin",
                       "answers_needed", "errors_across_languages"]
    e = EXPECTED[judge]
    assert s["judge"] == judge and s["cases"] == 12 and s["claims"] == 20 and s["penalty"] == 3
    assert s["risk_weighted_score"] == e["rw3"]
    assert _only(s["faithfulness"], "supported", "claims", "rate") == \
        {"supported": e["supported"], "claims": 20, "rate": e["supported"] / 20}
    assert (s["contradicted"], s["unsupported"], s["errors"]) == (e["contradicted"], e["unsupported"], 0)
    # The SPEC's "hallucination rate" of a judge is what it flags: so named; the hallucination rate
    # is people's, by their labels on every answer of the sample set.
    f = s["flagged_by_judge"]
    assert (f["flagged"], f["answered"], round(f["low"], 2), round(f["high"], 2)) == \
        (e["hallucinated"], 10, e["low"], e["high"])
    h = s["hallucination_rate"]
    assert (h["basis"], h["hallucinated"], h["answered"], round(h["low"], 2), round(h["high"], 2)) == \
        ("people", 5, 10, 0.24, 0.76)
    assert s["risk_weighted"]["per_100"] == pytest.approx(100 * e["rw3"] / 12)
    assert _only(s["hallucination_rate_by_person"], "hallucinated", "answered") == {"hallucinated": 5, "answered": 10}
    assert s["citation_recall"]["backed"] == e["backed"]
    assert s["citation_precision"]["relevant"] == e["relevant"]
    assert _only(s["abstention"], "abstained", "unanswerable") == {"abstained": 1, "unanswerable": 3}
    assert _only(s["false_abstention"], "abstained", "answerable") == {"abstained": 1, "answerable": 9}
    assert s["outcomes"] == dict(zip(("correct", "abstained", "wrong"), e["outcomes"]))


def test_confidence_target_gives_penalty(cli, sample_args):
    s = cli.json("score", *sample_args, "--judge", "lexical", "--confidence-target", "0.75")
    assert s["penalty"] == 3 and s["risk_weighted_score"] == -10


def test_c06_abstains_cli(cli, c06_abstains):
    s = cli.json("score", "--cases", c06_abstains, "--passages", NOTES, "--judge", "lexical", "--penalty", "3")
    assert s["outcomes"] == {"correct": 5, "abstained": 3, "wrong": 4}
    assert _only(s["abstention"], "abstained", "unanswerable") == {"abstained": 2, "unanswerable": 3}
    assert s["risk_weighted_score"] == -7


@pytest.mark.parametrize("judge", ["lexical", "rules"])
def test_agree_json(cli, sample_args, judge):
    a = cli.json("agree", *sample_args, "--judge", judge)
    assert list(a)[:8] == ["judge", "order", "confusion", "agreement", "caught", "false_alarms", "kappa",
                           "unlabeled_cases"]
    e = EXPECTED[judge]
    assert a["order"] == ["supported", "contradicted", "unsupported"]
    assert a["confusion"] == e["confusion"]
    assert _only(a["agreement"], "agree", "claims") == {"agree": e["agree"], "claims": 20}
    assert _only(a["caught"], "caught", "hallucinated") == {"caught": e["caught"], "hallucinated": 6}
    assert _only(a["false_alarms"], "flagged", "supported") == {"flagged": e["false_alarms"], "supported": 14}
    assert a["unlabeled_cases"] == 0
    assert 0 < a["kappa"] < 1
