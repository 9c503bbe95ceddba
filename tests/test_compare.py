"""Comparing two configurations of the assistant: pairing, the paired interval and test, the
clustered range for faithfulness, one-sided cases, bad input, and the chart."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import List, Optional

import numpy as np
import pytest

from groundlab.formatting import points

from groundlab import evaluate, load_cases
from groundlab.compare import compare, mcnemar_exact, paired_difference

from conftest import CASES, NOTES

PASSAGE = "Invoices are paid within 30 days."
GOOD = "Invoices are paid within 30 days [P1]."
BAD = "Invoices are paid within 45 days [P1]."  # 45 is not in the passage: contradicted
DECLINE = "I can't find that in the notes."
TEAMS = ["".join(p) for p in itertools.product("abcdefgh", repeat=2)]


def case(k: int, answer: str, answerable: Optional[bool] = True, cid: Optional[str] = None,
         passage: str = PASSAGE) -> dict:
    obj = {"id": cid or f"q{k:03d}", "question": f"When are invoices paid for team {TEAMS[k]}?",
           "retrieved": [{"id": "P1", "text": passage}], "answer": answer}
    if answerable is not None:
        obj["answerable"] = answerable
    return obj


def write(path: Path, rows: List[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def two_runs(tmp_path: Path, both: int, a_only: int, b_only: int, neither: int):
    """A and B over the same questions, hallucinating on exactly these paired counts."""
    a, b = [], []
    pattern = [(BAD, BAD)] * both + [(BAD, GOOD)] * a_only + [(GOOD, BAD)] * b_only + [(GOOD, GOOD)] * neither
    for k, (x, y) in enumerate(pattern):
        a.append(case(k, x))
        b.append(case(k, y))
    return write(tmp_path / "a.jsonl", a), write(tmp_path / "b.jsonl", b)


# ---------------------------------------------------------------- the paired interval


def wilson_by_hand(x: int, n: int, z: float = 1.959963984540054):
    p = x / n
    centre = (2 * n * p + z * z) / (2 * (n + z * z))
    half = z * math.sqrt(z * z + 4 * n * p * (1 - p)) / (2 * (n + z * z))
    return centre - half, centre + half


def test_newcombe_paired_interval_on_newcombes_example_by_hand():
    # Newcombe (1998), paired data 36 / 12 / 2 / 0: e both, f first only, g second only, h neither.
    e, f, g, h = 36, 12, 2, 0
    n = e + f + g + h
    p1, p2 = (e + f) / n, (e + g) / n            # 0.96 and 0.76
    l1, u1 = wilson_by_hand(e + f, n)
    l2, u2 = wilson_by_hand(e + g, n)
    # phi: e*h - f*g = -24 is negative, so it is used uncorrected; here (f+h) ... all margins > 0
    phi = (e * h - f * g) / math.sqrt((e + f) * (g + h) * (e + g) * (f + h))
    delta = math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    epsilon = math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    by_hand = (p1 - p2, p1 - p2 - delta, p1 - p2 + epsilon)
    assert [round(x, 4) for x in by_hand] == [0.2, 0.0569, 0.3404]
    # Our sides: B is Newcombe's first proportion, A the second; "a_only" is the second alone.
    assert paired_difference(both=e, a_only=g, b_only=f, neither=h) == pytest.approx(by_hand, abs=1e-12)


def test_newcombe_corrects_a_positive_phi_and_zeroes_a_small_one():
    # e*h - f*g = 14*22 - 5*0 = 308 > n/2: phi is reduced by n/2 (Newcombe's continuity correction).
    e, f, g, h = 14, 5, 0, 22
    n = e + f + g + h
    l1, u1 = wilson_by_hand(e + f, n)
    l2, u2 = wilson_by_hand(e + g, n)
    p1, p2 = (e + f) / n, (e + g) / n
    phi = (e * h - f * g - n / 2) / math.sqrt((e + f) * (g + h) * (e + g) * (f + h))
    low = p1 - p2 - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    high = p1 - p2 + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    assert paired_difference(e, g, f, h) == pytest.approx((p1 - p2, low, high), abs=1e-12)
    # 0 <= e*h - f*g <= n/2: phi is 0, the intervals combine as if independent.
    e, f, g, h = 2, 3, 2, 3
    n = 10
    l1, u1 = wilson_by_hand(e + f, n)
    l2, u2 = wilson_by_hand(e + g, n)
    p1, p2 = 0.5, 0.4
    expect = (0.1, 0.1 - math.hypot(p1 - l1, u2 - p2), 0.1 + math.hypot(u1 - p1, p2 - l2))
    assert paired_difference(e, g, f, h) == pytest.approx(expect, abs=1e-12)


def test_paired_interval_turns_round_with_the_sides_and_is_nan_over_nothing():
    d, low, high = paired_difference(5, 9, 2, 14)
    assert paired_difference(5, 2, 9, 14) == pytest.approx((-d, -high, -low))
    assert low < d < high and d == pytest.approx((2 - 9) / 30)
    assert all(math.isnan(x) for x in paired_difference(0, 0, 0, 0))


def test_mcnemar_is_statsmodels_exact_test_on_the_discordant_pairs():
    from scipy.stats import binomtest
    from statsmodels.stats.contingency_tables import mcnemar

    assert mcnemar_exact(9, 2) == pytest.approx(mcnemar([[5, 9], [2, 14]], exact=True).pvalue)
    assert mcnemar_exact(9, 2) == pytest.approx(binomtest(2, 11, 0.5).pvalue)
    assert mcnemar_exact(0, 0) == 1.0


# ---------------------------------------------------------------- the command


def test_compare_pairs_by_id_and_matches_statsmodels_on_a_constructed_pair(tmp_path, cli):
    a, b = two_runs(tmp_path, both=5, a_only=10, b_only=1, neither=14)
    out = cli.json("compare", a, b)
    h = out["hallucination_rate"]
    assert h["table"] == {"both": 5, "a_only": 10, "b_only": 1, "neither": 14}
    assert (h["a"]["count"], h["a"]["total"], h["b"]["count"], h["b"]["total"]) == (15, 30, 6, 30)
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.proportion import proportion_confint

    assert h["test"]["p_value"] == pytest.approx(mcnemar([[5, 10], [1, 14]], exact=True).pvalue)
    assert (h["a"]["low"], h["a"]["high"]) == pytest.approx(proportion_confint(15, 30, method="wilson"))
    d = h["difference"]
    assert (d["estimate"], d["low"], d["high"]) == pytest.approx(paired_difference(5, 10, 1, 14))
    assert d["high"] < 0 and h["verdict"] == "unlikely to be noise"
    assert out["pairs"] == 30 and out["only_in_a"]["count"] == 0
    code, text, _ = cli("compare", a, b)
    assert code == 0
    assert (f"B is flagged by the judge on 9 fewer of 30 answers given by both (A alone on 10, B alone on 1); the difference "
            f"is \u221230 points, 95% range {points(d['low'])} to {points(d['high'])}: unlikely to be noise, "
            f"p = {h['test']['p_value']:.2g}.") in text


def test_range_and_test_that_disagree_are_borderline(tmp_path, cli):
    # 9 against 2 discordant pairs: the paired range just clears zero, the exact test (p = 0.065) does not.
    a, b = two_runs(tmp_path, both=5, a_only=9, b_only=2, neither=14)
    h = cli.json("compare", a, b)["hallucination_rate"]
    assert h["difference"]["high"] < 0 and h["test"]["p_value"] > 0.05 and h["verdict"] == "borderline"


def test_a_difference_that_could_be_noise_says_so(tmp_path, cli):
    a, b = two_runs(tmp_path, both=3, a_only=3, b_only=2, neither=12)
    h = cli.json("compare", a, b)["hallucination_rate"]
    assert h["difference"]["low"] < 0 < h["difference"]["high"] and h["verdict"] == "could be noise"
    assert "B is flagged by the judge on 1 fewer of 20 answers" in h["summary"] and "could be noise" in h["summary"]


def test_pairing_by_question_ignores_ids_order_space_and_case(tmp_path, cli):
    a, _ = two_runs(tmp_path, both=2, a_only=3, b_only=0, neither=5)
    rows = [json.loads(line) for line in a.read_text(encoding="utf-8").splitlines()]
    b_rows = []
    for k, row in reversed(list(enumerate(rows))):
        row = dict(row, id=f"new-{k}", question="  " + row["question"].upper().replace(" ", "   "), answer=GOOD)
        b_rows.append(row)
    b = write(tmp_path / "b2.jsonl", b_rows)
    code, _, err = cli("compare", a, b)
    assert code == 2 and "no case of A has a matching id in B" in err and "--pair-by question" in err
    out = cli.json("compare", a, b, "--pair-by", "question")
    assert out["pairs"] == 10 and out["pair_by"] == "question"
    assert out["hallucination_rate"]["table"] == {"both": 0, "a_only": 5, "b_only": 0, "neither": 5}


def test_one_sided_cases_are_counted_named_and_left_out(tmp_path, cli):
    a, b = two_runs(tmp_path, both=1, a_only=2, b_only=1, neither=4)
    extra_a = [case(20 + k, BAD, cid=f"onlyA{k}") for k in range(7)]
    write(a, [json.loads(x) for x in a.read_text().splitlines()] + extra_a)
    write(b, [json.loads(x) for x in b.read_text().splitlines()] + [case(40, GOOD, cid="onlyB")])
    out = cli.json("compare", a, b)
    assert out["pairs"] == 8
    assert out["only_in_a"] == {"count": 7, "first": ["onlyA0", "onlyA1", "onlyA2", "onlyA3", "onlyA4"]}
    assert out["only_in_b"] == {"count": 1, "first": ["onlyB"]}
    assert out["hallucination_rate"]["a"]["total"] == 8  # the one-sided cases count nowhere
    _, text, _ = cli("compare", a, b)
    assert "only in A: 7 cases (onlyA0, onlyA1, onlyA2, onlyA3, onlyA4, \u2026), left out" in text
    assert "only in B: 1 case (onlyB), left out" in text


def test_hallucination_pairs_only_questions_answered_on_both_sides(tmp_path, cli):
    a = write(tmp_path / "a.jsonl", [case(0, BAD), case(1, BAD), case(2, GOOD), case(3, DECLINE), case(4, DECLINE)])
    b = write(tmp_path / "b.jsonl", [case(0, GOOD), case(1, DECLINE), case(2, GOOD), case(3, GOOD), case(4, DECLINE)])
    h = cli.json("compare", a, b)["hallucination_rate"]
    assert h["units"] == 2 and h["table"] == {"both": 0, "a_only": 1, "b_only": 0, "neither": 1}
    assert h["left_out"] == {"answered by A only": 1, "answered by B only": 1, "answered by neither": 1}


def test_abstention_pairs_by_the_answerable_flag(tmp_path, cli):
    other = "Invoices are paid within 60 days."
    a = write(tmp_path / "a.jsonl", [
        case(0, DECLINE, answerable=False), case(1, GOOD, answerable=False),      # unanswerable on both
        case(2, DECLINE, answerable=True), case(3, GOOD, answerable=True),        # answerable on both
        case(4, DECLINE, answerable=True),                                        # differs: left out
        case(5, DECLINE, answerable=False),                                       # B unknown, same passage
        case(6, DECLINE, answerable=False),                                       # B unknown, other passage
        case(7, DECLINE, answerable=None)])                                       # unknown on both
    b = write(tmp_path / "b.jsonl", [
        case(0, DECLINE, answerable=False), case(1, DECLINE, answerable=False),
        case(2, GOOD, answerable=True), case(3, GOOD, answerable=True),
        case(4, DECLINE, answerable=False),
        case(5, GOOD, answerable=None),
        case(6, GOOD, answerable=None, passage=other),
        case(7, GOOD, answerable=None)])
    out = cli.json("compare", a, b)
    ab, fa = out["abstention"], out["false_abstention"]
    assert ab["table"] == {"both": 1, "a_only": 1, "b_only": 1, "neither": 0}   # c0 both, c5 A only, c1 B only
    assert fa["table"] == {"both": 0, "a_only": 1, "b_only": 0, "neither": 1}
    assert ab["left_out"] == {"answerable differs between the sides": 1, "answerable unknown": 1,
                              "answerable set on one side only, passages differ": 1}
    assert "B declines as many of 3 unanswerable questions as A" in ab["summary"]


def test_faithfulness_range_is_the_cluster_robust_one_computed_by_hand(tmp_path):
    b_path = tmp_path / "b.jsonl"
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["id"] in ("c02", "c06"):
            row["answer"], row["labels"] = "The supplier delivered 90 of 100 pieces [D07].", ["supported"]
    write(b_path, rows)
    result = compare(CASES, b_path, passages=NOTES)
    m = result.measures["faithfulness"]
    ev_a = evaluate(load_cases(CASES, NOTES))
    ev_b = evaluate(load_cases(b_path, NOTES))
    # By hand: y = supported (0/1) on each claim of both sides, x = [1, side B], clusters = questions.
    y, side, cluster = [], [], []
    for s, ev in enumerate((ev_a, ev_b)):
        for cid, verdict in zip(ev.claims["case_id"], ev.claims["verdict"]):
            y.append(float(verdict == "supported"))
            side.append(float(s))
            cluster.append(cid)
    y, x = np.array(y), np.column_stack([np.ones(len(side)), side])
    beta = np.linalg.solve(x.T @ x, x.T @ y)
    resid = y - x @ beta
    bread = np.linalg.inv(x.T @ x)
    meat = np.zeros((2, 2))
    for g in set(cluster):
        rows_g = [k for k, c in enumerate(cluster) if c == g]
        score = x[rows_g].T @ resid[rows_g]
        meat += np.outer(score, score)
    groups, n = len(set(cluster)), len(y)
    cov = groups / (groups - 1) * (n - 1) / (n - 2) * bread @ meat @ bread
    se = math.sqrt(cov[1, 1])
    from scipy.stats import t

    q = t.ppf(0.975, groups - 1)
    assert m.difference == pytest.approx(beta[1]) == pytest.approx(m.b.rate - m.a.rate)
    assert (m.low, m.high) == pytest.approx((beta[1] - q * se, beta[1] + q * se))
    assert m.p_value == pytest.approx(2 * t.sf(abs(beta[1] / se), groups - 1))
    assert m.details == {"claims": {"a": 20, "b": 19}, "clusters": 10}
    assert m.to_dict()["test"]["name"].startswith("Wald") and m.table is None


@pytest.mark.parametrize("pattern, why", [
    # two questions, all of A's claims supported and all of B's contradicted: the cluster-robust
    # standard error is zero, which once gave the range -100.0 to -100.0 and p < 0.001
    (dict(both=0, a_only=0, b_only=2, neither=0), "do not vary from question to question over these 2 questions"),
    (dict(both=0, a_only=0, b_only=0, neither=6), "do not vary from question to question over these 6 questions"),
    (dict(both=0, a_only=0, b_only=1, neither=0), "needs the claims of at least 2 questions, and there is 1"),
])
def test_faithfulness_without_spread_between_questions_is_not_measured(tmp_path, cli, pattern, why):
    import matplotlib
    matplotlib.use("Agg")

    from groundlab.compare_plots import comparison_chart, comparison_frame
    from groundlab.workbook import ConfigurationComparison, comparison_table

    a, b = two_runs(tmp_path, **pattern)
    f = cli.json("compare", a, b, "--judge", "rules")["faithfulness"]
    n = sum(pattern.values())
    assert f["difference"]["estimate"] == (-1.0 if pattern["b_only"] else 0.0)
    assert (f["difference"]["low"], f["difference"]["high"], f["test"]["p_value"]) == (None, None, None)
    assert f["verdict"] == "not measured" and f["clusters"] == n
    assert why in f["summary"] and "no 95% range can be measured" in f["summary"]
    code, text, _ = cli("compare", a, b, "--judge", "rules")
    assert code == 0
    line = next(x for x in text.splitlines() if x.startswith("faithfulness:"))
    assert line.endswith(f"{why}): not measured, no test.") and "p <" not in line
    row = next(x for x in text.splitlines() if x.startswith("faithfulness "))
    assert row.split()[-4:] == ["n/a", "nothing", "to", "compare"]
    result = compare(a, b, "rules")
    m = result.measures["faithfulness"]
    assert not m.defined and m.p_value is None and math.isnan(m.low) and math.isnan(m.high)
    table = comparison_table(ConfigurationComparison(result, (None, None), ""))
    assert table.loc[table.measure == "faithfulness", ["95% range", "verdict"]].values.tolist() == \
        [["n/a", "not measured"]]
    assert "faithfulness" not in set(comparison_frame(result)["measure"])
    import matplotlib.pyplot as plt
    plt.close(comparison_chart(result))


def test_compare_records_the_judge_and_says_how_faithfulness_was_compared(tmp_path, cli):
    a, b = two_runs(tmp_path, both=1, a_only=1, b_only=1, neither=1)
    out = cli.json("compare", a, b, "--judge", "lexical", "--abstention-phrase", "no idea")
    ident = out["judge_identity"]
    assert ident["name"] == "lexical" and ident["splitting"]["extra_abstention_phrases"] == ["no idea"]
    _, text, _ = cli("compare", a, b)
    assert "judge signals 2" in text.splitlines()[1]  # the default judge
    assert "claims do not pair across the two sides" in text


@pytest.mark.parametrize("problem, expect", [
    ("missing", "does not exist"),
    ("duplicate id", "is already used"),
    ("repeated question", "asks the question"),
    ("no pairs", "no case of A has a matching question in B"),
])
def test_bad_input_is_one_sentence_and_exit_2(tmp_path, cli, problem, expect):
    a, b = two_runs(tmp_path, both=1, a_only=1, b_only=0, neither=1)
    args = [a, b, "--pair-by", "question"]
    if problem == "missing":
        args[1] = tmp_path / "nope.jsonl"
    elif problem == "duplicate id":
        write(b, [case(0, GOOD), case(1, GOOD, cid="q000")])
    elif problem == "repeated question":
        write(b, [case(0, GOOD), case(0, BAD, cid="again")])
    else:
        write(b, [case(30, GOOD)])
    code, out, err = cli("compare", *args)
    assert code == 2 and out == "" and expect in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_chart_shows_both_rates_and_the_difference(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from groundlab.compare_plots import comparison_chart, comparison_frame

    a, b = two_runs(tmp_path, both=5, a_only=10, b_only=1, neither=14)
    result = compare(a, b)
    fig = comparison_chart(result)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    left, right = fig.axes
    frame = comparison_frame(result)
    measures = list(dict.fromkeys(frame["measure"]))
    # each measure says which way is better for B
    assert [t.get_text() for t in right.get_yticklabels()] == [
        f"{m} ({'higher' if m == 'faithfulness' else 'lower'} is better)" for m in measures]
    assert "flagged by the judge" in measures and "abstention" not in measures  # no unanswerable case: not drawn
    labels = [t.get_text() for t in right.texts]
    assert "\u2713 \u221230 points (\u221247 to \u22129): better for B" in labels, labels
    assert right.get_xlim() == (-105, 105)  # a difference of two rates lies within ±100 points
    assert {t.get_text() for t in left.texts} >= {"15 of 30", "6 of 30"}
    import matplotlib.pyplot as plt
    plt.close(fig)


def test_evaluations_by_different_judges_are_refused(sample_cases):
    from groundlab import GroundlabError

    with pytest.raises(GroundlabError, match="judged by different judges"):
        compare(sample_cases, sample_cases, evaluations=(evaluate(sample_cases, "rules"),
                                                        evaluate(sample_cases, "lexical")))


def test_the_documented_comparison_is_what_the_command_prints(cli, monkeypatch):
    """docs/compare-and-gate.md shows `groundlab compare` on the sample set and its second
    configuration; those figures are the command's (the judge's identity line aside, which moves
    with groundlab's version and abstention phrases)."""
    import re

    from conftest import ROOT

    doc = (ROOT / "docs" / "compare-and-gate.md").read_text(encoding="utf-8")
    block = re.search(r"```\n\$ (groundlab compare [^\n]*)\n(.*?)```", doc, re.S)
    command, shown = block.group(1).split(), block.group(2)
    monkeypatch.chdir(ROOT)
    code, out, err = cli(*command[1:])
    assert code == 0, err

    def figures(text):
        return [line for line in text.splitlines() if not line.startswith("judge ")]

    assert figures(out) == figures(shown)
