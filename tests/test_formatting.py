"""One formatting layer: the same quantity reads the same everywhere, plurals are right, empty
tables are a sentence, column names are words."""

import math

import pandas as pd
import pytest

from groundlab import evaluate, formatting as fmt, workbook
from groundlab.stats import percent


@pytest.mark.parametrize("n, noun, expected", [(1, "case", "1 case"), (0, "case", "0 cases"), (2, "case", "2 cases"),
                                               (1021, "answer", "1,021 answers"), (3, "copy", "3 copies"),
                                               (1, "labeled claim", "1 labeled claim")])
def test_counts_take_the_right_plural(n, noun, expected):
    assert fmt.count(n, noun) == expected


def test_one_form_for_each_quantity():
    assert percent(0.6) == fmt.percent(0.6) == "60%" and percent(math.nan) == "n/a"
    assert fmt.points(-0.1429) == "\u221214" and fmt.points(0.0) == "+0" and fmt.points(-0.0001) == "+0"
    assert fmt.per_100(5, 12) == "+42 per 100 answers" and fmt.per_100(-10, 12) == "\u221283 per 100 answers"
    assert fmt.weight(1.5) == "1.5" and fmt.weight(3.0) == "3" and fmt.number(5.0) == "5" and fmt.number(0.0) == "0"
    assert fmt.yes_no(True) == "yes" and fmt.yes_no(pd.NA) == "n/a"
    assert fmt.column_name("judge_verdict") == "judge's verdict" and fmt.column_name("claim_no") == "claim"
    assert fmt.column_name("case_id") == "case" and fmt.column_name("95% range") == "95% range"


def test_a_table_for_reading_has_no_index_row_no_booleans_and_no_decimal_counts():
    frame = pd.DataFrame({"case_id": ["c1", "c2"], "answerable": [True, False], "claims": [2.0, 0.0],
                          "kinds": [("id", "date"), ()]}).set_index("case_id")
    shown = workbook.table(frame)
    html = shown.to_html()
    assert "<th" in html and "index_name" not in html  # the index is a column, not a second header row
    assert shown.frame.columns.tolist() == ["case", "answerable?", "claims", "kinds"]
    assert shown.frame["answerable?"].tolist() == ["yes", "no"]
    assert shown.frame["claims"].tolist() == [2, 0] and "2.00" not in html and "0.00" not in html
    assert shown.frame["kinds"].tolist() == ["id, date", ""]
    assert "True" not in html and "False" not in html


def test_an_empty_table_is_a_sentence(sample_cases):
    ev = evaluate(sample_cases, "rules")
    shown = workbook.table(workbook.abstentions(ev.cases).iloc[0:0], empty="No answer abstained")
    assert shown._repr_markdown_() == "- No answer abstained."
    assert "no rows" in workbook.table(pd.DataFrame(columns=["a"]))._repr_markdown_()


def test_the_report_notebooks_and_charts_give_the_risk_score_alike(sample_cases):
    """The risk-weighted score is per 100 answers in the report, notebook 03's table and the penalty
    chart: the same number for the same run."""
    from groundlab import plots
    from groundlab.report import steering_report

    ev = evaluate(sample_cases, "lexical")
    text = steering_report(ev, 3)
    assert "risk-weighted score at penalty 3: \u221210 over 12 answers (\u221283 per 100 answers)" in text
    table = workbook.score_table(ev.cases, 3).set_index(["policy", "scored by"])
    assert table.loc[(workbook.AS_IT_IS, "the judge"), "score per 100 answers at penalty 3"] == -83
    curve = workbook.penalty_curve(ev.cases, max_penalty=3)
    ax = plots.penalty_curve(curve, penalty=3)
    assert "\u221283" in [t.get_text() for t in ax.texts]
