"""The cascade judge end to end against the stub Messages API: which answers reach the llm judge,
the requests it costs against judging every claim, and the rate corrected by the audit."""

from __future__ import annotations

import html
import json
import re

import pandas as pd
import pytest

from groundlab import GroundlabError, evaluate, get_judge, load_cases
from groundlab.judges.cascade import CascadeJudge
from groundlab.sampling import weighted_rate

from conftest import CASES, NOTES
from messages_stub import messages_stub, parse_request, rules_verdicts, tool_reply  # noqa: F401

# The rules judge flags c02 c05 c06 c08 c10 c11 and passes c01 c03 c07 c09 (answered cases, in order
# c01 c02 c03 c05 c06 c07 c08 c09 c10 c11). With --audit 0.5 --seed 1 the draws audit c01 and c07.
FLAGGED = {"c02", "c05", "c06", "c08", "c10", "c11"}
AUDITED = {"c01", "c07"}


def cascade(tmp_path, **options) -> CascadeJudge:
    options.setdefault("then_options", {"cache": tmp_path / "cache", "backoff": 0, "progress": False})
    return get_judge("cascade", **options)


def asked_about(stub, cases) -> dict:
    """The case of each request the stub got (found by its answer) and the number of its claims."""
    by_answer = {html.escape(c.answer, quote=False): c.id for c in cases}
    out = {}
    for body in stub.requests:
        answer = re.search(r"<answer>(.*?)</answer>", body["messages"][0]["content"], re.S).group(1)
        out[by_answer[answer]] = len(parse_request(body)["claims"])
    return out


def misses_delivery_blocks(body: dict) -> dict:
    """The llm judge's reply: the rules judge's verdicts, except that it finds the claim about the
    delivery block (c07, passed by the rules judge) contradicted."""
    request = parse_request(body)
    verdicts = rules_verdicts(request)
    for verdict, (_, claim) in zip(verdicts, request["claims"]):
        if "delivery block" in claim:
            verdict.update(verdict="contradicted", supported_by=[], reason="D02 says sales may, not must.")
    return tool_reply(verdicts, body)


def test_the_llm_judge_gets_the_flagged_answers_and_the_audit_only(messages_stub, tmp_path):
    cases = load_cases(CASES, NOTES)
    judge = cascade(tmp_path, audit=0.5, seed=1)
    ev = evaluate(cases, judge)
    asked = asked_about(messages_stub, cases)
    # One request per answer sent on, and none for citation checks (those go to the rules judge);
    # every claim of an answer goes with it.
    assert len(messages_stub.requests) == len(asked) == 8
    assert asked == {"c02": 2, "c05": 2, "c06": 1, "c08": 1, "c10": 2, "c11": 2, "c01": 3, "c07": 3}
    route = judge.routes(ev.claims).groupby(ev.claims["case_id"]).first().to_dict()
    assert {c for c, r in route.items() if r == "flagged"} == FLAGGED
    assert {c for c, r in route.items() if r == "audited"} == AUDITED
    reasons = ev.claims.set_index("case_id")["reason"]
    assert reasons["c02"].str.startswith("llm (flagged by rules): ").all()
    assert reasons["c01"].str.startswith("llm (audit): ").all()
    assert reasons["c03"].str.startswith("rules: ").all()


def test_score_states_requests_against_judging_every_claim(messages_stub, cli, tmp_path):
    args = ("score", "--cases", CASES, "--passages", NOTES, "--judge", "cascade", "--first", "rules",
            "--then", "llm", "--audit", "0.5", "--seed", "1", "--cache", tmp_path / "c")
    s = cli.json(*args)
    assert len(messages_stub.requests) == 8
    c = s["cascade"]
    assert (c["answers"], c["flagged"], c["passed"], c["audited"]) == (10, 6, 4, 2)
    assert c["requests"] == {"sent": 8, "cached": 0, "for_all": 10, "for_all_uncached": 10,
                             "for_all_input_tokens": c["requests"]["for_all_input_tokens"]}
    assert c["requests"]["for_all_input_tokens"] > 0
    assert s["judge"] == "cascade" and s["claims"] == 20 and s["errors"] == 0
    # The same run again: the llm judge's cache answers every request.
    code, out, err = cli(*args)
    assert code == 0 and len(messages_stub.requests) == 8
    assert ("cost: 0 requests sent to llm, 8 answered from its cache (8 of 10 answers); judging every claim "
            "with llm would have taken 10 requests (2 not in the cache") in out
    assert "cascade: rules judged 20 claims, llm 16 of them" in err
    assert "8 answered from the cache" in err and "judging every claim with llm would have taken 10 requests" in err


def test_the_audit_finds_a_miss_and_corrects_the_rate(messages_stub, cli, tmp_path):
    messages_stub.default = misses_delivery_blocks
    judge = cascade(tmp_path, audit=0.5, seed=1)
    ev = evaluate(load_cases(CASES, NOTES), judge)
    report = judge.report(ev)
    assert (report.flagged, report.passed, report.audited, report.misses, report.overturned) == (6, 4, 2, 1, 0)
    assert (report.first_rate.count, report.first_rate.total) == (6, 10)  # the rules judge alone
    assert (report.final_rate.count, report.final_rate.total) == (7, 10)  # c07 caught; c03, c09 unchecked
    # Flagged: 6 of 6 hallucinated, each standing for itself. Passed: 1 of the 2 audited, each
    # standing for 4 / 2 = 2 answers. Corrected: 6/10 * 1 + 4/10 * 1/2 = 0.8.
    assert report.corrected.rate == pytest.approx(0.8)
    same = weighted_rate(pd.Series([True] * 6 + [False, True]), pd.Series(["flagged"] * 6 + ["passed"] * 2),
                         {"flagged": 6, "passed": 4})
    assert (report.corrected.low, report.corrected.high) == pytest.approx((same.low, same.high))
    assert report.corrected.low < 0.8 < report.corrected.high and (report.corrected.labeled,
                                                                    report.corrected.population) == (8, 10)
    assert ev.claims.set_index("case_id").loc["c07", "verdict"].tolist()[0] == "contradicted"

    messages_stub.requests.clear()
    s = cli.json("score", "--cases", CASES, "--passages", NOTES, "--judge", "cascade", "--audit", "50%",
                 "--seed", "1", "--no-cache")
    c = s["cascade"]
    assert c["misses"] == 1 and c["corrected_rate"]["rate"] == pytest.approx(0.8)
    assert s["flagged_by_judge"]["flagged"] == 7 and len(messages_stub.requests) == 8
    assert s["hallucination_rate"]["basis"] == "people"  # the sample set's labels: the rate is people's
    code, out, _ = cli("score", "--cases", CASES, "--passages", NOTES, "--judge", "cascade", "--audit", "0.5",
                       "--seed", "1", "--no-cache")
    assert "found 1 of the 2 audited answers hallucinated" in out
    assert "flagged by the judges, corrected by the audit: 80% (95% range" in out


def test_without_an_audit_nothing_corrects_the_rate_and_the_report_says_why(messages_stub, tmp_path):
    judge = cascade(tmp_path, audit=0)
    ev = evaluate(load_cases(CASES, NOTES), judge)
    report = judge.report(ev)
    assert len(messages_stub.requests) == 6 and report.audited == 0
    assert report.corrected is None and "the audit drew none of the 4 answers rules passed" in report.corrected_note
    assert report.requests == 6 and report.requests_for_all == 10


def test_everything_audited_is_a_census(messages_stub, tmp_path):
    messages_stub.default = misses_delivery_blocks
    judge = cascade(tmp_path, audit=1.0)
    report = judge.report(evaluate(load_cases(CASES, NOTES), judge))
    assert len(messages_stub.requests) == 10 and report.audited == 4
    assert report.corrected.rate == pytest.approx(report.final_rate.rate) == pytest.approx(0.7)


def test_the_same_seed_draws_the_same_answers(tmp_path):
    cases = load_cases(CASES, NOTES)

    def audited(seed):
        judge = get_judge("cascade", first="lexical", then="rules", audit=0.5, seed=seed)
        ev = evaluate(cases, judge)
        return set(ev.claims.loc[judge.routes(ev.claims) == "audited", "case_id"])

    assert audited(3) == audited(3)
    assert len({frozenset(audited(seed)) for seed in range(6)}) > 1


def test_a_cascade_of_two_offline_judges_catches_what_the_first_misses():
    # lexical misses c08's negation; rules (on everything, audit 1) catches it.
    judge = get_judge("cascade", first="lexical", then="rules", audit=1.0)
    ev = evaluate(load_cases(CASES, NOTES), judge)
    report = judge.report(ev)
    assert report.misses == 1 and report.requests is None and report.claims_second == 20
    assert "rules judged 20 of 20 claims" in report.cost()
    assert ev.claims.set_index("case_id").loc["c08", "verdict"] == "contradicted"


def test_a_report_on_other_claims_is_refused(tmp_path):
    judge = get_judge("cascade", first="lexical", then="rules")
    cases = load_cases(CASES, NOTES)
    ev = evaluate(cases, judge)
    evaluate(cases[:3], judge)
    with pytest.raises(GroundlabError, match="build a new cascade judge"):
        judge.report(ev)
    judge.reset()
    again = evaluate(cases, judge)
    assert judge.report(again).answers == 10


@pytest.mark.parametrize("argv, words", [
    (["--judge", "rules", "--first", "lexical"], "--first applies to --judge cascade only"),
    (["--judge", "rules", "--audit", "0.2"], "--audit applies to --judge cascade only"),
    (["--judge", "cascade", "--audit", "1.5"], "--audit must be a share between 0 and 1"),
    (["--judge", "cascade", "--first", "cascade"], "--first cannot be the cascade itself"),
    (["--judge", "cascade", "--first", "rules", "--then", "rules"], "both name the rules judge"),
    (["--judge", "cascade", "--then", "oracle"], "there is no judge called 'oracle'"),
    (["--judge", "cascade", "--first", "lexical", "--then", "rules", "--model", "x"],
     "--model does not apply to the rules judge"),
    (["--judge", "cascade", "--dry-run"], "--dry-run does not apply to the cascade judge"),
    (["--judge", "cascade", "--seed", "x"], "--seed"),
])
def test_cascade_options_are_checked(cli, sample_args, argv, words):
    code, out, err = cli("score", *sample_args, *argv)
    assert code == 2 and out == "" and words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_the_options_reach_the_llm_judge(messages_stub, cli, tmp_path):
    code, _, err = cli("score", "--cases", CASES, "--passages", NOTES, "--judge", "cascade", "--audit", "0",
                       "--model", "claude-test", "--cache", tmp_path / "c")
    assert code == 0, err
    assert {body["model"] for body in messages_stub.requests} == {"claude-test"}
    assert list((tmp_path / "c").rglob("*.json"))  # replies went to the cache named
    assert json.loads(next((tmp_path / "c").rglob("*.json")).read_text())["model"] == "claude-test"


def test_answer_by_answer_without_a_record(messages_stub, tmp_path):
    # As a guard on live answers would use it: one answer at a time, nothing kept.
    cases = load_cases(CASES, NOTES)
    judge = cascade(tmp_path, audit=0.0, track=False)
    from groundlab.evaluate import claim_pairs, split_cases

    for case in cases:
        pairs = claim_pairs([(case, split_cases([case])[0])])
        verdicts = judge.judge_batch(pairs)
        assert len(verdicts) == len(pairs)
    assert len(messages_stub.requests) == 6  # the flagged answers only
    assert "rules judged 20 claims, llm 10 of them" in judge.summary()
    with pytest.raises(GroundlabError, match="track=False"):
        judge.routes(evaluate(cases[:1], get_judge("rules")).claims)
