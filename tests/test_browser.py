"""What a reader sees, in a real browser (Debian's headless Chromium; `.ci/run` installs it):
the decision panel on the first screen, the report printed on one page (its figures on a
second), no text out of its box, and a notebook's HTML copy with tables that sort and search and
cases that unfold."""

import re
import shutil
import unicodedata

import pytest

import browser
from conftest import CASES, CASES_B, NOTES, ROOT

pytestmark = pytest.mark.skipif(not browser.available(),
                                reason="no Chromium here: apt-get install chromium (.ci/run installs it)")

#: The first screen of a laptop: what a committee member sees without scrolling.
FIRST_SCREEN = 900


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """The workbook's notebooks 01 and 03 run as `groundlab run` runs them, on the report's longest
    layout: the sample set in three processes, with its second configuration and a targets file for
    every tile and table (report.html, report.md and the HTML copy of notebook 01)."""
    import json

    from groundlab.cli import main
    from test_severity import PROCESS, TARGETS

    folder = tmp_path_factory.mktemp("browser")
    notebooks = folder / "nbs"
    notebooks.mkdir()
    for name in ("01-groundedness.ipynb", "03-risk-report.ipynb"):
        shutil.copy(ROOT / "notebooks" / name, notebooks)
    cases = folder / "cases.jsonl"
    cases.write_text("".join(json.dumps(dict(obj, **({"process": PROCESS[obj["id"]]} if obj["id"] in PROCESS else {})))
                             + "\n" for obj in map(json.loads, CASES.read_text(encoding="utf-8").splitlines())),
                     encoding="utf-8")
    targets = folder / "targets.toml"
    targets.write_text("max_false_abstention = 0.2\nmin_citation_accuracy = 0.6\n" + TARGETS, encoding="utf-8")
    code = main(["run", "--cases", str(cases), "--passages", str(NOTES), "--cases-b", str(CASES_B),
                 "--targets", str(targets), "--notebooks", str(notebooks), "--out", str(folder / "out")])
    assert code == 0
    return folder / "out"


def test_the_decision_panel_is_on_the_first_screen(run_folder, tmp_path):
    seen = browser.measure(run_folder / "report.html", tmp_path, width=1280, height=FIRST_SCREEN)
    assert seen["panel_bottom"] is not None and seen["panel_bottom"] <= FIRST_SCREEN, seen
    assert [t["id"] for t in seen["tiles"]] == ["tile-hallucination", "tile-false_abstention", "tile-citations",
                                                 "tile-judge", "tile-compare"]
    assert all(t["bottom"] <= FIRST_SCREEN for t in seen["tiles"])
    assert seen["overflow"] == [], seen["overflow"]
    narrow = browser.measure(run_folder / "report.html", tmp_path, width=1024, height=768)
    assert narrow["overflow"] == [], narrow["overflow"]


@pytest.mark.parametrize("paper, size_mm", [("A4", (210, 297)), ("letter", (216, 279))])
def test_the_report_prints_on_one_page_and_its_figures_on_a_second(run_folder, tmp_path, paper, size_mm):
    pdf = browser.print_pdf(run_folder / "report.html", tmp_path / f"report-{paper}.pdf", paper, tmp_path)
    assert browser.pdf_page_size(pdf) == size_mm
    pages = browser.pdf_pages(pdf)
    assert len(pages) == 2, [p[:200] for p in pages]
    # NFKC: the PDF's text keeps the font's ligatures ("\ufb02" for "fl")
    text, figures = (" ".join(unicodedata.normalize("NFKC", page).split()) for page in pages)
    for words in ("Groundedness report", "Hallucination rate", "B \u2212 A: flagged by the judge", "Targets",
                  "procure-to-pay /", "In plain words",
                  "These figures come from judge signals 2"):  # the panel to the footer, all on the first page
        assert words in text, words
    assert figures.lstrip().startswith("Figures") and "These figures come from" not in figures


def test_the_print_layout_keeps_every_text_in_its_box(run_folder, tmp_path):
    seen = browser.measure(run_folder / "report.html", tmp_path, width=900, height=1200, print_layout=True)
    assert seen["overflow"] == [], seen["overflow"]


def test_a_notebooks_html_copy_sorts_searches_and_unfolds(run_folder, tmp_path):
    page = run_folder / "01-groundedness.html"
    text = page.read_text(encoding="utf-8")
    seen = browser.measure(page, tmp_path, width=1280, height=FIRST_SCREEN)
    assert seen["datatables"] >= 5 and seen["sortable"] >= 20 and seen["search"] >= 1, seen  # itables, offline
    assert seen["details"] == 12 and seen["marks"] >= 10  # every case unfolds to its deciding sentences
    assert seen["overflow"] == [], seen["overflow"]
    # nothing is fetched: no script or style sheet from the web, no module imported from it
    assert not re.search(r"<script[^>]+src=", text) and not re.search(r"<link[^>]+href=[\"']?https?:", text)
    assert not re.search(r"from\s+['\"]https?://", text)
    report = (run_folder / "report.html").read_text(encoding="utf-8")
    assert "<script" not in report.lower() and 'href="01-groundedness.html#c06"' in report
    assert 'id="c06"' in text  # where the report's link lands


def test_clicking_a_heading_sorts_the_table_in_a_notebooks_html_copy(run_folder, tmp_path):
    """A person clicks the heading's text (not the small arrows beside it): the rows shown come in
    that column's order, ascending, then descending on a second click; no row is lost (a table of
    more rows than a page shows its first page of that order)."""
    tables = browser.click_headings(run_folder / "01-groundedness.html", tmp_path, width=1280, height=FIRST_SCREEN)
    assert len(tables) >= 5, tables
    for t in tables:
        assert t["hit"].startswith("SPAN.dt-column-title"), t  # the click landed on the heading's words
        assert "dt-ordering-asc" in t["once"]["classes"] and "dt-ordering-desc" in t["twice"]["classes"], t
        paged = re.search(r"to (\d+) of (\d+)", t["info"])
        if not paged or paged.group(1) == paged.group(2):  # every row on one page: the same rows, reordered
            assert sorted(t["once"]["cells"]) == sorted(t["before"]) == sorted(t["twice"]["cells"]), t
        assert t["twice"]["cells"] != t["once"]["cells"], t  # the order changed: the column differs
    cases = next(t for t in tables if t["heading"] == "case" and t["rows"] == 12)
    assert cases["once"]["cells"] == sorted(cases["before"]) and cases["twice"]["cells"] == sorted(cases["before"],
                                                                                                  reverse=True)
