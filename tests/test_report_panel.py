"""The decision panel that opens the report: a tile per headline with its figure, range, target
and state, the judge's tile, B − A with a second configuration; provenance at the foot; the
glossary; links from the report's rows to the claims behind them."""

from dataclasses import replace

import pytest

from conftest import CASES, CASES_B, NOTES
from groundlab import evaluate, formatting as fmt, workbook
from groundlab.report import decision_line, decision_tiles, html_report, steering_report
from groundlab.summary import score_summary
from groundlab.targets import load_targets


def _targets(tmp_path, text):
    path = tmp_path / "targets.toml"
    path.write_text(text, encoding="utf-8")
    return load_targets(path)


def _tiles(ev, targets=None, comparison=None):
    return {t.key: t for t in decision_tiles(ev, targets, comparison)}


def test_each_headline_says_meets_misses_or_needs_more_answers(sample_cases, tmp_path):
    ev = evaluate(sample_cases, "signals")
    tiles = _tiles(ev)
    h = tiles["hallucination"]
    # by people's labels (every answer labeled), beside what the judge flags
    assert (h.figure, h.state) == ("50%", "none")  # no target: a tile decides nothing
    assert h.state_text == "no target set; not enough answers yet: you have 10; \u00b15 points needs 381"
    assert h.detail == ("by people's labels on every answer; flagged by the judge: 60% (6 of 10 answers; 95% range "
                        "31%\u201383%).")
    assert tiles["false_abstention"].figure == "11%" and tiles["citations"].figure == "63%"
    assert tiles["judge"].state_text == "checked against people on 20 labeled claims"
    assert "It caught 6 of 6 hallucinated claims, false alarms on 1 of 14 supported claims" in tiles["judge"].detail
    assert all(t.state != "unsure" for t in tiles.values() if t.key != "judge")  # no "?" without targets

    targets = _targets(tmp_path, "max_rate = 0.1\nmax_false_abstention = 0.6\nmin_citation_accuracy = 0.5\n")
    tiles = _tiles(ev, targets)
    assert (tiles["hallucination"].state, tiles["hallucination"].state_text) == ("bad", "misses the target: at most 10%")
    assert (tiles["false_abstention"].state, tiles["false_abstention"].state_text) == \
        ("good", "meets the target: at most 60%")
    assert tiles["citations"].state == "unsure"  # 41%-81% straddles 50%
    assert tiles["citations"].state_text.endswith("to show it is at least 50%")
    assert tiles["hallucination"].target == 0.1 and tiles["hallucination"].target_text == "target at most 10%"
    assert decision_line(list(tiles.values()), targets, score_summary(ev)) == \
        "**Not ready:** it misses the target for hallucination rate."


def test_the_decision_line_says_how_to_set_targets_and_then_decides(sample_cases, tmp_path):
    ev = evaluate(sample_cases, "signals")
    text = steering_report(ev)
    assert "No targets are set, so no tile can say whether the assistant is ready: write a targets file " \
           "(`groundlab targets targets.toml` writes a starter to edit)" in text.splitlines()[3]
    met = _targets(tmp_path, "max_rate = 0.9\nmax_false_abstention = 0.5\nmin_citation_accuracy = 0.3\n")
    assert "**Ready by these targets:** it meets every one (hallucination rate, false abstention and citation " \
           "accuracy)." in steering_report(ev, targets=met).splitlines()[3]
    unsure = _targets(tmp_path, "max_rate = 0.8\nmax_false_abstention = 0.2\n")
    line = steering_report(ev, targets=unsure).splitlines()[3]
    assert "**Cannot tell yet:** false abstention needs more answers to show its target." in line
    unlabeled = evaluate([replace(c, labels=None) for c in sample_cases], "signals")
    line = steering_report(unlabeled, targets=unsure).splitlines()[3]
    assert line.startswith("Is the assistant ready to go live? **Cannot tell yet:** the hallucination rate is not "
                           "measured; label all 10 answers")


def test_without_labels_the_tile_is_not_measured_yet_and_asks_for_labels(sample_cases):
    ev = evaluate([replace(c, labels=None) for c in sample_cases], "signals")
    tiles = _tiles(ev)
    h = tiles["hallucination"]
    assert (h.figure, h.value, h.low, h.high) == ("not measured yet", None, None, None)
    assert h.state_text.startswith("not measured yet: label all 10 answers (about 8 minutes)")
    assert h.detail.startswith("flagged by the judge: 60% (6 of 10 answers; 95% range 31%\u201383%): the judge's "
                               "own share")
    assert (tiles["judge"].figure, tiles["judge"].state_text) == ("not checked", "not checked against people")
    row = next(line for line in steering_report(ev).splitlines() if line.startswith("| **Hallucination rate**"))
    assert row.startswith("| **Hallucination rate** | **not measured yet** | \u2014 |") and "%" not in row.split("|")[2]
    # what the request's size and time rest on, in the tile's note: on the HTML page too
    assert "its time on about" in h.detail and "seconds a claim" in h.detail
    tile = html_report(steering_report(ev)).split('id="tile-hallucination"', 1)[1].split("</div>", 1)[0]
    assert "seconds a claim" in tile


def test_the_panel_opens_the_report_and_provenance_closes_it(sample_cases):
    ev = evaluate(sample_cases, "signals")
    text = steering_report(ev, 1.0, "cases.jsonl")
    lines = text.splitlines()
    assert lines[:2] == ["<!-- groundlab report -->", "# Groundedness report"]
    panel = lines.index("## Decision panel")
    assert panel < 6 and lines[panel + 2] == "| | figure | 95% range | target | state |"
    assert lines[panel + 4].startswith("| **Hallucination rate** | **50%** | 24%\u201376% `")
    assert lines[panel + 4].endswith("| \u2013 no target set; not enough answers yet: you have 10; \u00b15 points "
                                     "needs 381 |")
    footer = lines.index("---")
    assert footer > lines.index("## In plain words") > panel
    assert any(line.startswith("These figures come from judge signals 2") for line in lines[footer:])
    assert not any("sha256" in line for line in lines[:footer])  # provenance at the foot only
    assert "- **same verdict, kappa:** judge and person chose the same of the three verdicts" in text
    page = html_report(text)
    assert '<section class="panel" id="decision-panel"' in page and page.count('class="tile ') == 4
    assert page.index("decision-panel") < page.index("What the figures rest on") < page.index("<footer>")
    assert "<script" not in page.lower()
    # every tile links down to what it rests on, and the hallucination rate to the claims behind it
    linked = html_report(steering_report(ev, 1.0, "cases.jsonl", claims_page="01-groundedness.html"))
    assert linked.count('<a href="#rests-on">what it rests on</a>') == 4 and 'id="rests-on"' in linked
    assert '<a href="01-groundedness.html">the claims behind it</a>' in linked


def test_a_second_configuration_adds_b_minus_a(tmp_path):
    compared = workbook.compare_files(CASES, CASES_B, NOTES, "rules")
    ev = compared.evaluations[0]
    tile = _tiles(ev, comparison=compared)["compare"]
    assert tile.title == "B \u2212 A: flagged by the judge" and tile.figure == "\u221214 points"
    assert (tile.state, tile.state_text) == ("unsure", "could be noise")
    assert tile.detail.startswith("\u221214 points (\u221260 to +40), could be noise, over the 7 questions both "
                                  "answered; lower is better for B.")
    text = steering_report(ev, 1.0, comparison=compared)
    assert "| **B \u2212 A: flagged by the judge** | **\u221214 points** | \u221260 to +40 points `" in text
    assert ("- **B \u2212 A**, question by question: flagged by the judge \u221214 points \\(\u221260 to \\+40\\): could be "
            "noise \\(over 7 questions paired\\)") in text
    written = workbook.write_steering_report(ev, 1.0, tmp_path / "report.md", comparison=compared,
                                             figures=workbook.report_figures(*(_png(tmp_path, n) for n in "abc"),
                                                                             compared, tmp_path))
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert 'id="tile-compare"' in page and "B against A, question by question" in page
    assert (tmp_path / "compare.png").stat().st_size > 10_000 and len(written.paths) == 2


def _png(folder, name):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1))
    path = folder / f"{name}.png"
    fig.savefig(path)
    plt.close(fig)
    return path


def test_report_rows_link_to_the_claims_behind_them(sample_cases, tmp_path):
    hostile = "<b>c 02</b>"
    cases = [replace(c, id=hostile) if c.id == "c02" else c for c in sample_cases]
    ev = evaluate(cases, "rules")
    text = steering_report(ev, claims_page="01-groundedness.html")
    from groundlab.cards import case_anchor

    anchor = case_anchor(hostile)
    assert anchor.startswith("case-") and "<" not in anchor
    assert "| kind date | 100% | 2 of 2 claims | 34%\u2013100% | [c06](01-groundedness.html#c06), " \
           "[c10](01-groundedness.html#c10) |" in text
    assert f"[&lt;b&gt;c 02&lt;/b&gt;](01-groundedness.html#{anchor})" in text
    page = html_report(text)
    assert f'<a href="01-groundedness.html#{anchor}">&lt;b&gt;c 02&lt;/b&gt;</a>' in page
    # written beside the HTML copy of notebook 01 (as in a run), the rows link by themselves
    (tmp_path / "01-groundedness.html").write_text("<html></html>", encoding="utf-8")
    workbook.write_steering_report(ev, 1.0, tmp_path / "report.md")
    assert "(01-groundedness.html#c06)" in (tmp_path / "report.md").read_text(encoding="utf-8")
    workbook.write_steering_report(ev, 1.0, tmp_path / "alone" / "report.md")
    assert "01-groundedness.html" not in (tmp_path / "alone" / "report.md").read_text(encoding="utf-8")


def test_pass_and_fail_carry_a_symbol_beside_their_colour(sample_cases, tmp_path):
    ev = evaluate(sample_cases, "rules")
    targets = _targets(tmp_path, "max_rate = 0.9\n[kind]\ndate = 0.5\n")
    text = steering_report(ev, targets=targets)
    assert "| kind date | \u2264 50% | 100% (2 of 2) | 34%\u2013100% | \u2717 fail |" in text
    page = html_report(text)
    assert '<td class="bad">\u2717 fail</td>' in page and f"--bad: {fmt.STATE_COLOURS['bad']}" in page
    assert 'class="tile bad"' not in page or "\u2717" in page


@pytest.mark.parametrize("text, message", [("min_citation_accuracy = 2\n", "min_citation_accuracy = 2 is not a rate"),
                                           ("max_false_abstention = 'x'\n", "max_false_abstention")])
def test_headline_targets_are_checked(tmp_path, text, message):
    from groundlab.records import InputError

    with pytest.raises(InputError, match=message):
        _targets(tmp_path, text)


def test_the_trust_tile_shows_both_sides_of_the_judge(sample_cases):
    tile = _tiles(evaluate(sample_cases, "rules"))["judge"]
    # the rules judge on the sample set: caught 6 of 6, false alarms on 1 of 14 supported claims
    assert tile.figure == "caught 100% \u00b7 false alarms 7%"
