"""The runtime guard: each mode on answers as assistants write them, the route rule, the spans, and
what each mode would have done on the labeled sample set."""

from __future__ import annotations

import sys

import pytest

import groundlab
from groundlab import GroundlabError, Passage, evaluate, guard, guard_outcomes, load_cases
from groundlab import workbook
from groundlab.claims import ClaimSplitter
from groundlab.guard import DEFAULT_NOTICE, as_passages, judge_object
from groundlab.numbers import mentions
from groundlab.records import Verdict

from conftest import CASES, NOTES

INVOICE = "Why is the invoice for purchase order 4500017311 blocked?"
NOTES_INVOICE = [
    {"id": "D07", "text": "The supplier delivered 90 of 100 pieces but invoiced all 100. Accounts payable asked the "
                          "supplier for a credit memo for the 10 missing pieces."},
    {"id": "D06", "text": "A quantity variance above the tolerance, e.g. 5 percent, blocks the invoice for payment. "
                          "The invoice cannot be paid until the variance is cleared."},
]
LIST_ANSWER = """## Why the invoice is blocked

The invoice is blocked for these reasons:
1. The supplier delivered 90 of 100 pieces, i.e. 10 fewer than invoiced. [D07]
2. The plant manager must sign a waiver first. [D06]
3. The invoice can be paid before the variance is cleared. [D06]
4. A quantity variance above the tolerance, e.g. 5 percent, blocks the invoice. [D06]

I can't find when the credit memo will arrive."""

REFUND = [{"id": "KB-7", "text": "Refunds over 500 EUR are approved by the team lead. Refunds are never paid in cash."}]


def _spans_map(result, answer):
    for claim in result.claims:
        assert answer[claim.span[0]:claim.span[1]] == claim.sentence
    for flag in result.flagged:
        assert answer[flag.span[0]:flag.span[1]] == flag.sentence


# ---------------------------------------------------------------- flag


def test_flag_marks_each_sentence_not_backed_after_its_citation_and_keeps_the_rest():
    result = guard(INVOICE, NOTES_INVOICE, LIST_ANSWER)
    assert [(c.number, c.verdict) for c in result.claims] == [
        (1, "supported"), (2, "unsupported"), (3, "contradicted"), (4, "supported")]
    assert result.text == LIST_ANSWER.replace("waiver first. [D06]", "waiver first. [D06] \u26a0").replace(
        "is cleared. [D06]", "is cleared. [D06] \u26a0")
    assert [f.claim for f in result.flagged] == [2, 3]
    assert result.flagged[1].reason.startswith("negation flip")
    assert "plant, manager" in result.flagged[0].reason
    for flag in result.flagged:  # `at` is the sentence in the returned text, the marker right after it
        assert result.text[flag.at[0]:flag.at[1]] == flag.sentence
        assert result.text[flag.at[1]:flag.at[1] + 2] == " \u26a0"
    _spans_map(result, LIST_ANSWER)
    assert result.route_to_person and result.routed_because == "claim 3 is contradicted by the passages"
    assert result.mode == "flag" and result.changed and result.answer == LIST_ANSWER


def test_flag_with_a_marker_of_ones_own_and_abbreviations_inside_sentences():
    answer = "Refunds over 500 EUR, i.e. large refunds, are approved by the team lead [KB-7]. It was paid in cash on Jan. 3."
    result = guard("Who approved the refund?", REFUND, answer, marker="[unverified]")
    assert [c.sentence for c in result.claims] == [
        "Refunds over 500 EUR, i.e. large refunds, are approved by the team lead [KB-7].",
        "It was paid in cash on Jan. 3."]
    assert [c.verdict for c in result.claims] == ["supported", "contradicted"]
    assert result.text == answer + " [unverified]"
    _spans_map(result, answer)


def test_a_refusal_and_a_heading_are_never_touched():
    answer = ("Refunds over 500 EUR are approved by the team lead [KB-7]. I couldn't find who approves smaller "
              "refunds. Refunds are paid within 3 days [KB-7].")
    for mode in ("flag", "hide"):
        result = guard("Who approves refunds?", REFUND, answer, mode=mode)
        assert [c.number for c in result.claims] == [1, 2]  # the refusal is no claim
        assert "I couldn't find who approves smaller refunds." in result.text
    assert guard("Who approves refunds?", REFUND, answer, mode="hide").text == (
        "Refunds over 500 EUR are approved by the team lead [KB-7]. I couldn't find who approves smaller "
        f"refunds. {DEFAULT_NOTICE}")
    hidden = guard(INVOICE, NOTES_INVOICE, LIST_ANSWER, mode="hide").text
    assert hidden.startswith("## Why the invoice is blocked\n\nThe invoice is blocked for these reasons:\n")
    assert hidden.endswith("\n\nI can't find when the credit memo will arrive.")


def test_cjk_marker_follows_the_full_width_stop_without_a_space():
    passages = ["订单 4500017311 因数量差异被冻结。"]
    answer = "订单 4500017312 被冻结 [1]。订单因数量差异被冻结。"
    result = guard("订单为什么被冻结？", passages, answer)
    assert result.text == "订单 4500017312 被冻结 [1]。\u26a0订单因数量差异被冻结。"
    assert result.flagged[0].verdict == "contradicted" and "4500017312" in result.flagged[0].reason
    _spans_map(result, answer)
    assert guard("订单为什么被冻结？", passages, answer, mode="hide").text == DEFAULT_NOTICE + "订单因数量差异被冻结。"
    # a sentence the passage does not hold is flagged too: read as pairs of characters, not passed unread
    other = guard("订单为什么被冻结？", passages, "订单因数量差异被冻结。请联系采购员。")
    assert other.text == "订单因数量差异被冻结。请联系采购员。\u26a0" and other.flagged[0].verdict == "unsupported"


# ---------------------------------------------------------------- hide


def test_hide_collapses_neighbouring_list_items_into_one_notice_and_keeps_the_other_items():
    result = guard(INVOICE, NOTES_INVOICE, LIST_ANSWER, mode="hide")
    assert result.text == LIST_ANSWER.replace(
        "2. The plant manager must sign a waiver first. [D06]\n3. The invoice can be paid before the variance is "
        "cleared. [D06]", f"2. {DEFAULT_NOTICE}")
    start = result.text.index(DEFAULT_NOTICE)
    assert [f.at for f in result.flagged] == [(start, start + len(DEFAULT_NOTICE))] * 2


def test_hide_gives_separate_notices_when_a_kept_sentence_or_refusal_stands_between():
    answer = ("Refunds are paid within 3 days [KB-7]. Refunds over 500 EUR are approved by the team lead [KB-7]. "
              "The finance team audits them monthly. I don't know who audits them. Cash refunds are common.")
    result = guard("How are refunds handled?", REFUND, answer, mode="hide", notice="[removed]")
    assert result.text == ("[removed] Refunds over 500 EUR are approved by the team lead [KB-7]. [removed] "
                           "I don't know who audits them. [removed]")
    assert [f.claim for f in result.flagged] == [1, 3, 4]
    assert [result.text[f.at[0]:f.at[1]] for f in result.flagged] == ["[removed]"] * 3


def test_hide_never_pulls_a_kept_sentence_onto_another_line():
    answer = ("Refunds over 500 EUR are approved by the team lead [KB-7]. Refunds are paid within 3 days.\n\n"
              "The finance team audits them monthly. Refunds are never paid in cash [KB-7].")
    result = guard("How are refunds handled?", REFUND, answer, mode="hide")
    assert result.text == (f"Refunds over 500 EUR are approved by the team lead [KB-7]. {DEFAULT_NOTICE}\n\n"
                           f"{DEFAULT_NOTICE} Refunds are never paid in cash [KB-7].")
    # when the hidden sentences run to the end of their lines, one notice stands for all of them
    bullets = "- Refunds are paid within 3 days.\n- The finance team audits them monthly.\n- Refunds are never paid in cash."
    assert guard("How are refunds handled?", REFUND, bullets, mode="hide").text == (
        f"- {DEFAULT_NOTICE}\n- Refunds are never paid in cash.")


def test_hide_everything_leaves_one_notice():
    answer = "Refunds are paid within 3 days. The finance team audits them monthly."
    result = guard("How are refunds handled?", REFUND, answer, mode="hide")
    assert result.text == DEFAULT_NOTICE and len(result.flagged) == 2


# ---------------------------------------------------------------- route


def test_route_leaves_the_text_and_marks_the_answer_for_a_person():
    result = guard(INVOICE, NOTES_INVOICE, LIST_ANSWER, mode="route")
    assert result.text == LIST_ANSWER and not result.changed
    assert result.route_to_person and result.routed_because == "claims 2 and 3 are not backed by the passages"
    assert [f.at for f in result.flagged] == [f.span for f in result.flagged]
    backed = "Refunds over 500 EUR are approved by the team lead [KB-7]."
    result = guard("Who approves refunds?", REFUND, backed, mode="route")
    assert not result.route_to_person and result.routed_because == "" and not result.flagged


def test_route_rules_named_and_a_function_of_the_verdicts():
    answer = "Refunds over 500 EUR are approved by the team lead [KB-7]. The finance team audits them monthly."
    plain = guard("Who approves refunds?", REFUND, answer)  # unsupported, nothing contradicted
    assert plain.flagged and not plain.route_to_person
    assert guard("Who approves refunds?", REFUND, answer, route_when="flagged").route_to_person
    assert not guard(INVOICE, NOTES_INVOICE, LIST_ANSWER, route_when="never").route_to_person
    assert not guard(INVOICE, NOTES_INVOICE, LIST_ANSWER, mode="route", route_when="never").route_to_person

    def money_not_backed(claims):  # route when a claim about an amount of money is not backed
        return any(c.flagged and any(m.kind == "money" for m in mentions(c.text)) for c in claims)

    money = "Refunds over 500 EUR are approved by the team lead [KB-7]. Refunds over 50 EUR need two approvals."
    routed = guard("Who approves refunds?", REFUND, money, mode="hide", route_when=money_not_backed)
    assert routed.route_to_person and routed.routed_because == "the route rule"
    assert not guard("Who approves refunds?", REFUND, answer, route_when=money_not_backed).route_to_person
    seen = []
    guard("Who approves refunds?", REFUND, answer, route_when=lambda claims: seen.extend(claims) or False)
    assert [(c.number, c.verdict, c.flagged) for c in seen] == [(1, "supported", False), (2, "unsupported", True)]


# ---------------------------------------------------------------- spans, inputs, judges


def test_spans_map_exactly_on_every_sample_answer_in_every_mode(sample_cases):
    for case in sample_cases:
        for mode in ("flag", "hide", "route"):
            result = guard(case.question, case.retrieved, case.answer, mode=mode)
            _spans_map(result, case.answer)
            if mode == "flag":
                assert all(result.text[f.at[0]:f.at[1]] == f.sentence for f in result.flagged)
                assert result.text.replace(" \u26a0", "") == case.answer
            elif mode == "hide":
                assert all(result.text[f.at[0]:f.at[1]] == DEFAULT_NOTICE for f in result.flagged)


def test_an_answer_without_claims_comes_back_unchanged_and_no_judge_is_asked():
    class Refuses:
        name, version = "refuses", "1"

        def judge_batch(self, pairs):
            raise AssertionError("no claim, no judgement")

    for answer in ("", "   \n", "I can't find that in the retrieved notes.", "## Steps:\n", "[D07]"):
        for mode in ("flag", "hide", "route"):
            result = guard("q?", [], answer, Refuses(), mode)
            assert result.text == answer and not result.flagged and not result.claims
            assert not result.route_to_person


def test_a_claim_the_judge_cannot_decide_is_flagged():
    class Fails:
        name, version = "fails", "1"

        def judge_batch(self, pairs):
            return [Verdict(None, "", error="the request timed out") for _ in pairs]

    result = guard("Who approves refunds?", REFUND, "The team lead approves refunds [KB-7].", Fails(), "hide",
                   route_when="flagged")
    assert result.text == DEFAULT_NOTICE and result.route_to_person
    (flag,) = result.flagged
    assert flag.verdict is None and flag.reason == "the judge could not decide: the request timed out"


def test_retrieved_as_dicts_passages_or_strings_named_by_position():
    assert as_passages(["a", Passage("D7", "b"), {"text": "c"}, {"id": 12, "text": "d"}]) == (
        Passage("1", "a"), Passage("D7", "b"), Passage("3", "c"), Passage("12", "d"))
    result = guard("Who approves refunds?", ["Refunds are approved by the team lead."],
                   "The team lead approves refunds [1].")
    assert result.claims[0].cites == ("1",) and not result.flagged
    for bad, says in (("Refunds are approved.", "must be a list"), ({"id": "D1", "text": "x"}, "must be a list"),
                      ([3], "passage 1 is a number"), ([{"id": "D1"}], "passage 1 needs a string \"text\""),
                      (["x", {"id": True, "text": "y"}], "passage 2 has the id True"), (None, "not null")):
        with pytest.raises(GroundlabError, match=says):
            guard("q?", bad, "An answer.")


def test_bad_options_are_one_sentence():
    for options, says in (({"mode": "block"}, "no guard mode 'block'; use one of: flag, hide, route"),
                          ({"marker": " "}, "marker must be some visible text"),
                          ({"notice": ""}, "notice must be some visible text"),
                          ({"route_when": "always"}, "no route rule 'always'")):
        with pytest.raises(GroundlabError, match=says):
            guard("q?", [], "An answer.", **options)
    with pytest.raises(GroundlabError, match="no judge called 'oracle'"):
        guard("q?", [], "An answer.", "oracle")
    with pytest.raises(GroundlabError, match="answer must be a string"):
        guard("q?", [], None)


def test_a_judge_name_is_made_once_and_a_judge_object_is_used_as_given(monkeypatch):
    module = sys.modules["groundlab.guard"]  # the attribute groundlab.guard is the function
    made = []
    original = module.make_judge
    monkeypatch.setattr(module, "_JUDGES", {})
    monkeypatch.setattr(module, "make_judge", lambda name, **kw: made.append(name) or original(name, **kw))
    for _ in range(3):
        guard("Who approves refunds?", REFUND, "The team lead approves refunds [KB-7].", "lexical")
    assert made == ["lexical"]
    mine = original("rules")
    assert judge_object(mine) is mine


def test_a_splitter_of_ones_own_decides_what_is_a_claim():
    splitter = ClaimSplitter(citation_pattern=r"\u3010(\d+)\u3011", extra_abstention_phrases=[r"ask your manager"])
    answer = "Refunds over 500 EUR are approved by the team lead\u30101\u3011. Please ask your manager about cash."
    result = guard("Who approves refunds?", REFUND, answer, splitter=splitter)
    assert [c.cites for c in result.claims] == [("1",)] and result.text == answer


def test_the_package_exports_the_guard():
    assert groundlab.guard is guard and "guard" in groundlab.__all__
    assert "guard_outcomes" in groundlab.__all__ and "GuardResult" in groundlab.__all__


# ---------------------------------------------------------------- what each mode would have done


def _counts(frame, mode):
    rows = frame[frame["mode"] == mode].set_index("measure")
    return {m: (int(r["count"]), int(r["total"])) for m, r in rows.iterrows()}


def test_guard_outcomes_on_the_sample_set_rules_judge(sample_cases):
    frame = guard_outcomes(evaluate(sample_cases, "rules"))
    assert list(frame.columns) == ["mode", "measure", "over", "count", "total", "rate", "low", "high"]
    # 10 answers with claims. The rules judge flags c02, c05, c06, c08, c10, c11 (6 answers) and finds a
    # contradiction in c02 ("80"), c06 ("5") and c08 (negation): 3 answers. A person found 6 claims not
    # supported (c02 x2, c06, c08, c10, c11), all flagged, and 14 supported, one flagged (c05's paraphrase).
    # The 5 answers a person found right are c01, c03, c05, c07, c09; route sends c05 to a person.
    flag = {"answers touched": (6, 10), "answers routed to a person": (3, 10), "hallucinated claims caught": (6, 6),
            "correct claims hit by mistake": (1, 14), "correct answers routed by mistake": (0, 5)}
    assert _counts(frame, "flag") == _counts(frame, "hide") == flag
    assert _counts(frame, "route") == {
        "answers touched": (0, 10), "answers routed to a person": (6, 10), "hallucinated claims caught": (6, 6),
        "correct claims hit by mistake": (0, 14), "correct answers routed by mistake": (1, 5)}
    caught = frame[(frame["mode"] == "flag") & (frame["measure"] == "hallucinated claims caught")].iloc[0]
    assert (round(caught["low"], 2), caught["high"]) == (0.61, 1.0)


def test_guard_outcomes_lexical_misses_the_negation_and_a_rule_of_ones_own(sample_cases):
    ev = evaluate(sample_cases, "lexical")
    frame = guard_outcomes(ev)
    # Without the negation step c08 passes: 5 answers flagged, 5 of 6 hallucinated claims caught;
    # contradicted only in c02 and c06.
    assert _counts(frame, "hide")["hallucinated claims caught"] == (5, 6)
    assert _counts(frame, "hide")["answers routed to a person"] == (2, 10)
    assert _counts(frame, "route")["answers routed to a person"] == (5, 10)
    never = guard_outcomes(ev, modes=("flag",), route_when="never")
    assert list(never["mode"].unique()) == ["flag"]
    assert _counts(never, "flag")["answers routed to a person"] == (0, 10)


def test_guard_outcomes_count_what_guard_does_case_by_case(sample_cases):
    frame = guard_outcomes(evaluate(sample_cases, "rules"))
    for mode in ("flag", "hide", "route"):
        results = [guard(c.question, c.retrieved, c.answer, "rules", mode) for c in sample_cases]
        answered = [r for r in results if r.claims]
        counts = _counts(frame, mode)
        assert counts["answers touched"] == (sum(r.changed for r in answered), len(answered))
        assert counts["answers routed to a person"] == (sum(r.route_to_person for r in answered), len(answered))


def test_guard_outcomes_over_unlabeled_answers_leave_the_labeled_measures_undefined(c06_abstains):
    frame = guard_outcomes(evaluate(load_cases(c06_abstains, NOTES), "rules"))
    # c06 now abstains and is unlabeled: 9 answers with claims, 5 hallucinated claims a person labeled
    assert _counts(frame, "flag")["answers touched"] == (5, 9)
    assert _counts(frame, "flag")["hallucinated claims caught"] == (5, 5)
    unlabeled = load_cases(CASES, NOTES)
    stripped = [type(c)(c.id, c.question, c.retrieved, c.answer, c.answerable, None, c.source) for c in unlabeled]
    frame = guard_outcomes(evaluate(stripped, "rules"))
    assert (frame.loc[frame["over"].str.contains("person"), "total"] == 0).all()
    assert frame.loc[frame["total"] == 0, "rate"].isna().all()


def test_guard_tables_for_the_notebook_escape_what_they_show(sample_cases, tmp_path):
    table = workbook.guard_outcome_table(guard_outcomes(evaluate(sample_cases, "rules")))
    assert list(table.columns) == ["measure", "counted over", "flag", "hide", "route"]
    assert table.loc[3, "flag"] == "1/14 = 7% (1%\u201331%)" and table.loc[4, "route"] == "1/5 = 20% (4%\u201362%)"
    examples = workbook.guard_examples(sample_cases)
    assert list(examples["case"]) == ["c02", "c05", "c06", "c08", "c10", "c11"]
    c05 = examples.set_index("case").loc["c05"]
    assert c05["person"] == "every claim supported" and c05["sent to a person"] == "route"
    assert examples.set_index("case").loc["c02", "sent to a person"] == "flag, hide, route"
    hostile = [type(c)(c.id, c.question, c.retrieved, c.answer + " <img src=x onerror=alert(1)>", c.answerable,
                       None, c.source) for c in sample_cases[:1]]
    html = workbook.table(workbook.guard_examples(hostile, every=True)).to_html()
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_rewrite_shows_judged_claims_in_another_mode_without_judging_again():
    from groundlab.guard import rewrite

    flagged = guard(INVOICE, NOTES_INVOICE, LIST_ANSWER, mode="flag")
    assert rewrite(LIST_ANSWER, flagged.claims, "hide") == guard(INVOICE, NOTES_INVOICE, LIST_ANSWER, mode="hide")
    with pytest.raises(GroundlabError, match="claim 1 does not say where it is in this answer"):
        rewrite("Another answer entirely, with other sentences.", flagged.claims, "hide")


def test_hiding_a_claim_hides_the_bare_yes_that_goes_with_it():
    """A yes before a claim the passages contradict is withheld with it: the reader is never left
    with a lone "Yes." that the withheld sentence explained."""
    from groundlab import guard

    passages = [{"id": "KB-7", "text": "Returns are accepted within 30 days of delivery. After 30 days a laptop "
                                       "cannot be returned."}]
    result = guard("Can I return my laptop after 30 days?", passages, "Yes. You can return it within 60 days [KB-7].",
                   "rules", "hide")
    assert "Yes" not in result.text and result.text.startswith("(Removed"), result.text
    alone = guard("Can I return my laptop after 30 days?", passages, "Yes.", "rules", "hide")
    assert alone.claims[0].text == "I can return my laptop after 30 days." and alone.claims[0].verdict == "contradicted"
    assert "Yes" not in alone.text
