"""The claims to explore (notebook 06): filtered by verdict, kind, process and judge, with menus in
JupyterLab and a static table to search where widgets cannot show."""

import pytest

from conftest import CASES, NOTES
from groundlab import workbook
from groundlab.records import GroundlabError


@pytest.fixture(scope="module")
def explorer():
    return workbook.claim_explorer(workbook.judged_cases(CASES, NOTES, ["signals", "rules"]))


def test_the_filters_pick_the_claims(explorer):
    assert len(explorer.frame) == 40 and set(explorer.frame["judge"]) == {"signals", "rules"}
    assert len(explorer.filtered(verdict="contradicted", judge="signals")) == 3
    assert len(explorer.filtered(kind="date", verdict="all")) == 4
    rules = explorer.filtered(judge="rules", verdict="contradicted")
    assert rules["evidence"].tolist()[-1] == "Incomplete orders cannot be delivered or billed."
    with pytest.raises(GroundlabError, match="can be filtered by verdict, kind, process, judge"):
        explorer.filtered(colour="red")


def test_menus_filter_the_table_and_a_static_copy_stands_in(explorer):
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # JupyterLab shows the menus
    assert "search box" in bundle["text/html"]  # an HTML copy shows the table to search instead
    box = explorer.widget()
    menus, count, shown = box.children[0].children, box.children[1], box.children[2]
    assert [m.description for m in menus] == ["verdict", "kind", "process", "judge"]
    menus[0].value, menus[3].value = "contradicted", "rules"
    assert count.value == "<b>3 claims</b> of 40" and shown.value.count("<tr>") == 1 + 3
    assert "<script" not in shown.value
    menus[1].value = "id"  # no contradicted id claim: a sentence, not an empty table
    assert "No claim has all the values chosen" in shown.value
