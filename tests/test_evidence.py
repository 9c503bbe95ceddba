"""Evidence one click away: the sentence that decided each verdict, with the words that matched
or clashed, in the claims frame; each case unfolded in a card that needs no script."""

from dataclasses import replace

import pytest

from groundlab import evaluate
from groundlab.cards import case_anchor, case_cards, marked
from groundlab.records import Evidence, Passage


def _row(ev, case, claim):
    claims = ev.claims
    return claims[(claims["case_id"] == case) & (claims["claim"] == claim)].iloc[0]


def test_the_signals_judge_names_the_sentence_and_the_words(sample_cases):
    ev = evaluate(sample_cases, "signals")
    negated = _row(ev, "c08", 1)
    assert negated["verdict"] == "contradicted"
    assert negated["evidence"] == "Incomplete orders cannot be delivered or billed."
    assert negated["evidence_clashed"] == ("cannot",) and "billed" in negated["evidence_matched"]
    number = _row(ev, "c02", 1)  # "80 pieces" against a passage that says 90 of 100
    assert number["evidence"] == "The supplier delivered 90 of 100 pieces but invoiced all 100."
    assert number["evidence_clashed"] == ("80", "90") and "100" in number["evidence_matched"]
    backed = _row(ev, "c01", 1)
    assert backed["verdict"] == "supported" and backed["evidence_clashed"] == ()
    assert set(backed["evidence_matched"]) >= {"supplier", "delivered", "90", "100"}
    unbacked = _row(ev, "c02", 2)  # the words no passage has are what parts it from the evidence
    assert unbacked["verdict"] == "unsupported" and {"plant", "manager", "waiver"} <= set(unbacked["evidence_clashed"])
    # every claim the judge compared with a sentence carries it, and the sentence is in its case's passages
    passages = {c.id: " ".join(p.text for p in c.retrieved) for c in sample_cases}
    for row in ev.claims.itertuples():
        if row.evidence is not None:
            assert row.evidence in passages[row.case_id], row


def test_a_conflict_names_both_words():
    from groundlab.judges import get_judge

    evidence = Evidence("How often are limits reviewed?", (Passage("P1", "Credit limits are reviewed every year."),))
    verdict = get_judge("signals").judge("Credit limits are reviewed monthly.", evidence)
    assert verdict.label == "contradicted" and verdict.evidence == "Credit limits are reviewed every year."
    assert verdict.clashed == ("monthly", "every year")


def test_the_rules_judge_gives_the_sentence_it_compared_with_and_lexical_none(sample_cases):
    rules = evaluate(sample_cases, "rules")
    row = _row(rules, "c08", 1)
    assert row["evidence"] == "Incomplete orders cannot be delivered or billed." and row["evidence_clashed"] == ("cannot",)
    assert _row(rules, "c02", 1)["evidence"] is None  # decided by its number, before any sentence is compared
    lexical = evaluate(sample_cases, "lexical")
    assert lexical.claims["evidence"].isna().all() and (lexical.claims["evidence_matched"] == ()).all()


def test_the_evidence_leaves_the_sample_sets_figures_alone(sample_cases):
    """Verdicts, scores and reasons are what they were: the figures of SPEC §6 hold (tests/test_figures.py)."""
    ev = evaluate(sample_cases, "rules")
    assert ev.claims["verdict"].value_counts().to_dict() == {"supported": 13, "unsupported": 4, "contradicted": 3}


def test_marked_escapes_and_highlights():
    text = 'Refunds over <b>500</b> EUR are "never" paid in cash. Other text.'
    html = marked(text, [('Refunds over <b>500</b> EUR are "never" paid in cash.', ("Refunds", "cash"), ("never",))])
    assert html.startswith('<mark><b class="gl-match">Refunds</b> over &lt;b&gt;500&lt;/b&gt; EUR are &quot;'
                           '<b class="gl-clash">never</b>&quot; paid in <b class="gl-match">cash</b>.</mark>')
    assert html.endswith(" Other text.") and "<b>500" not in html
    assert marked("<i>x</i>", [("not there", ("x",), ())]) == "&lt;i&gt;x&lt;/i&gt;"


def test_each_case_unfolds_with_its_anchor(sample_cases):
    hostile = '<img src=x onerror=alert(1)> "q"'
    cases = [replace(c, id=hostile, question="<script>alert(2)</script>?") if c.id == "c02" else c
             for c in sample_cases]
    ev = evaluate(cases, "signals")
    cards = case_cards(cases, ev.claims, ev.cases)
    assert len(cards) == 12 and cards.ids[1] == hostile
    page = cards._repr_html_()
    assert page.count('<details class="gl-case"') == 12 and "<script>alert" not in page and "<img src=x" not in page
    assert f'id="{case_anchor(hostile)}"' in page and '<details class="gl-case" id="c08">' in page
    c08 = page[page.index('id="c08"'):page.index('id="c09"')]
    assert '<span class="gl-claim gl-contradicted"' in c08
    assert ('<mark><b class="gl-match">Incomplete</b> <b class="gl-match">orders</b> <b class="gl-clash">cannot</b> '
            'be <b class="gl-match">delivered</b> or <b class="gl-match">billed</b>.</mark>') in c08
    assert "\u2717 contradicted" in c08  # the verdict's symbol beside its colour
    assert "No passage was retrieved" not in page


@pytest.mark.parametrize("case_id", ["c02", "a.b-c_1", "with space", "\u00e9t\u00e9", ""])
def test_anchors_are_valid_and_distinct(case_id):
    import re

    anchor = case_anchor(case_id)
    assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_.\-]*", anchor)
    assert anchor != case_anchor(case_id + "x")
