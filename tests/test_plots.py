"""Every chart draws from its tidy frame, carries a title and axis labels, and exports PNG + SVG."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from groundlab import evaluate, hallucination_rate  # noqa: E402
from groundlab import plots, workbook  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def comparison(sample_cases):
    return workbook.compare_judges(sample_cases, ["lexical", "rules"])


def _labelled(ax):
    assert ax.get_title() and ax.get_xlabel()
    return ax


def test_confusion_heatmap_is_annotated(comparison):
    ax = _labelled(plots.confusion_heatmap(workbook.confusion_frame(comparison.get("rules"))))
    numbers = sorted(int(t.get_text()) for t in ax.texts)
    assert numbers == sorted([13, 0, 1, 0, 2, 0, 0, 1, 3])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["supported", "contradicted", "unsupported"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("rules judge says", "person says")
    assert "no labeled claims" not in ax.get_title()


def test_confusion_heatmap_without_labeled_claims_says_so(sample_cases):
    from dataclasses import replace

    unlabeled = [replace(case, labels=None) for case in sample_cases]
    comparison = workbook.compare_judges(unlabeled, ["lexical", "rules"])
    ax = plots.confusion_heatmap(workbook.confusion_frame(comparison.get("rules")))
    assert ax.get_title() == "Person \u00d7 judge (rules): no labeled claims"
    axes = plots.confusion_heatmaps(workbook.confusion_frames(comparison))
    assert [ax.get_title() for ax in axes] == ["Judge lexical: no labeled claims", "Judge rules: no labeled claims"]


def test_confusion_heatmaps_side_by_side(comparison):
    axes = plots.confusion_heatmaps(workbook.confusion_frames(comparison))
    assert [ax.get_title() for ax in axes] == ["Judge lexical", "Judge rules"]
    assert axes[0].figure is axes[1].figure


def test_rate_ranges(comparison):
    ax = _labelled(plots.rate_ranges(workbook.agreement_frame(comparison)))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["agreement", "caught", "false alarms"]
    assert "6 of 6" in [t.get_text() for t in ax.texts]


def test_rate_ranges_with_nothing_to_show():
    ax = plots.rate_ranges(workbook.rates_frame({}))
    assert "nothing to show" in ax.texts[0].get_text()


def test_severity_split(sample_cases):
    ev = evaluate(sample_cases, "rules")
    ax = _labelled(plots.severity_split(workbook.verdict_frame(ev.claims, flagged_only=True)))
    assert [t.get_text() for t in ax.texts] == ["3 (43%)", "4 (57%)"]


def test_breakdown_ranges_by_kind_and_process(sample_cases):
    from groundlab.metrics import hallucination_breakdown

    ev = evaluate(sample_cases, "rules")
    ev.cases["process"] = ev.cases["case_id"].map({"c01": "p2p", "c02": "p2p", "c03": "$x$ <b>o2c</b>" + "o" * 60})
    axes = plots.breakdown_ranges(hallucination_breakdown(ev.claims, ev.cases))
    assert len(axes) == 2 and axes[0].figure is axes[1].figure
    assert [t.get_text() for t in axes[0].get_yticklabels()] == ["id", "date", "quantity", "other"]
    labels = [t.get_text() for t in axes[1].get_yticklabels()]
    assert labels[0] == "\\$x\\$ <b>o2c</b>" + "o" * 25 + "\u2026" and labels[1:] == ["p2p", "(no process)"]
    assert [t.get_text() for t in axes[0].texts] == ["1 of 2 claims", "2 of 2 claims", "2 of 6 claims", "3 of 11 claims"]
    assert axes[1].texts[0].get_text() == "0 of 1 answer"
    assert axes[0].get_title(loc="left").startswith("by kind of claim") and axes[1].get_xlabel()
    axes[0].figure.canvas.draw()  # the dollar signs are drawn as text, not read as mathematics


def test_breakdown_ranges_with_kinds_only_or_nothing(sample_cases):
    from groundlab.metrics import BREAKDOWN_COLUMNS, hallucination_breakdown

    ev = evaluate(sample_cases)
    axes = plots.breakdown_ranges(hallucination_breakdown(ev.claims, ev.cases), title="By kind")
    assert len(axes) == 1 and axes[0].figure.get_suptitle() == "By kind"
    axes = plots.breakdown_ranges(pd.DataFrame(columns=BREAKDOWN_COLUMNS))
    assert axes[0].texts[0].get_text() == "nothing to show: no judged claims"


def test_interval_width_marks_today_and_needed(sample_cases):
    rate = hallucination_rate(evaluate(sample_cases, "rules").cases)
    ax = _labelled(plots.interval_width(workbook.interval_width_frame(rate), answers=10, needed=366))
    labels = " ".join(t.get_text() for t in ax.texts)
    assert "today: 10 answers" in labels and "31%\u201383%" in labels and "366 answers" in labels


def test_penalty_curve(c06_abstains):
    from groundlab import load_cases
    from conftest import NOTES

    ev = evaluate(load_cases(c06_abstains, NOTES), "lexical")
    ax = _labelled(plots.penalty_curve(workbook.penalty_curve(ev.cases), penalty=3))
    assert {t.get_text() for t in ax.texts} == {"\u221258", "+8"}  # per 100 answers: -7 and +1 of 12
    assert ax.get_ylabel().startswith("score per 100 answers")
    assert "scored by a person's labels on 12 answers" in ax.get_title()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "as it is: answering pays while a wrong answer costs less than 1.2 right answers"
    assert legend[1] == ("withholding the answers the judge flags\n(scored by the person: 1 right answer lost to "
                         "wrong flags, 1 wrong answer the judge missed)")
    assert "the penalty of the report: 3" in legend  # the dotted line
    withheld = ax.get_lines()[1].get_ydata()
    assert withheld[0] > withheld[-1]  # the judge's miss stays wrong: the line falls


def test_penalty_curve_without_labels_says_it_is_the_judges_view(sample_cases):
    from dataclasses import replace

    ev = evaluate([replace(case, labels=None) for case in sample_cases], "rules")
    ax = plots.penalty_curve(workbook.penalty_curve(ev.cases))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "the judge's own view" in legend[1]
    assert "no person's labels" in ax.get_title()


def test_charts_show_in_a_kernel_after_the_first(tmp_path):
    """In a notebook, every chart appears in its cell: drawing must not switch matplotlib's
    interactive flag off when the kernel's first figure is made inside groundlab's style."""
    import matplotlib

    matplotlib.interactive(False)
    before = matplotlib.rcParams["font.size"]
    with plots._rc({"font.size": 30}):
        matplotlib.interactive(True)  # what the inline backend does on the first figure
    assert matplotlib.is_interactive() and matplotlib.rcParams["font.size"] == before
    matplotlib.interactive(False)


def test_save_figure_writes_png_and_svg(tmp_path, comparison):
    ax = plots.confusion_heatmap(workbook.confusion_frame(comparison.get("rules")))
    png, svg = plots.save_figure(ax, tmp_path / "figures", "confusion_matrix")
    assert (png.name, svg.name) == ("confusion_matrix.png", "confusion_matrix.svg")
    with Image.open(png) as image:
        assert min(image.info["dpi"]) >= 150
    text = svg.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml")
    assert ">rules judge says<" in text.replace("\n", "") or "rules judge says" in text  # text, not glyph paths
    assert matplotlib.rcParams["svg.fonttype"] == "path"  # the session's own setting is left as it was
    with pytest.raises(ValueError, match="150 dpi"):
        plots.save_figure(ax, tmp_path, "low", dpi=72)


# ---------------------------------------------------------------- labels clear of each other and of the data


def _box(artist, renderer):
    """The rendered box of a label: its bounding box where it has one, else its text."""
    patch = artist.get_bbox_patch() if hasattr(artist, "get_bbox_patch") else None
    return (patch if patch is not None else artist).get_window_extent(renderer)


def _apart(a, b, slack: float = 0.5) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) <= slack) or (min(a.y1, b.y1) - max(a.y0, b.y0) <= slack)


def _marker_boxes(ax, renderer):
    """A box around every marker drawn (a dot, a point of a range chart), its edge included."""
    from matplotlib.transforms import Bbox

    boxes = []
    scale = ax.figure.dpi / 72
    for line in ax.get_lines():
        if line.get_marker() in (None, "None", "", " ") or not line.get_visible():
            continue
        r = (line.get_markersize() + line.get_markeredgewidth()) / 2 * scale
        for x, y in line.get_transform().transform(line.get_xydata()):
            boxes.append(Bbox([[x - r, y - r], [x + r, y + r]]))
    return boxes


def _zero_line_boxes(ax, renderer):
    """The zero line across the plot (``axhline(0)`` or ``axvline(0)``), as wide as it is drawn."""
    boxes = []
    scale = ax.figure.dpi / 72
    for line in ax.get_lines():
        xs, ys = list(line.get_xdata()), list(line.get_ydata())
        if (ys == [0, 0] and xs == [0, 1]) or (xs == [0, 0] and ys == [0, 1]):
            boxes.append(line.get_window_extent(renderer).padded(line.get_linewidth() / 2 * scale))
    return boxes


def _check_labels_clear(fig, extra_labels=lambda ax: []):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        labels = [(t.get_text(), _box(t, renderer)) for t in ax.texts if t.get_visible() and t.get_text()]
        labels += [(t.get_text(), t.get_window_extent(renderer)) for t in extra_labels(ax) if t.get_text()]
        for k, (text, box) in enumerate(labels):
            for other, other_box in labels[k + 1:]:
                if not _apart(box, other_box):
                    found.append(f"{text!r} overlaps {other!r}")
            for marker in _marker_boxes(ax, renderer):
                if not _apart(box, marker):
                    found.append(f"{text!r} overlaps a marker")
            for zero in _zero_line_boxes(ax, renderer):
                if not _apart(box, zero):
                    found.append(f"{text!r} overlaps the zero line")
    return found


def _sample_without(cases, *ids):
    return [case for case in cases if case.id not in ids]


@pytest.mark.parametrize("judge, penalty, without", [
    ("signals", 1.0, ()),  # notebook 03 on the sample set
    ("lexical", 3.0, ()),
    ("signals", 1.0, ("c01", "c02", "c06")),  # +11 at penalty 1, where answering stops paying at 1.33
    ("signals", 1.0, ("c02",)),  # +9
    ("rules", 3.0, ("c01", "c02", "c06")),
])
def test_penalty_curve_labels_clear_each_other_the_markers_and_the_zero_line(sample_cases, judge, penalty, without):
    ev = evaluate(_sample_without(sample_cases, *without), judge)
    ax = plots.penalty_curve(workbook.penalty_curve(ev.cases, max_penalty=9.0), penalty=penalty)
    assert len(ax.texts) == 2
    assert not _check_labels_clear(ax.figure), _check_labels_clear(ax.figure)
    inside = ax.get_window_extent(ax.figure.canvas.get_renderer())
    for text in ax.texts:
        box = _box(text, ax.figure.canvas.get_renderer())
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1, text


def test_comparison_chart_notes_clear_each_other_the_markers_and_the_zero_line(sample_cases):
    from conftest import CASES_B, NOTES

    from groundlab import load_cases
    from groundlab.compare import compare
    from groundlab.compare_plots import comparison_chart

    fig = comparison_chart(compare(sample_cases, load_cases(CASES_B, NOTES), "rules"))
    right = fig.axes[1]
    assert len(right.texts) == 4
    found = _check_labels_clear(fig, extra_labels=lambda ax: ax.get_yticklabels() if ax is right else [])
    assert not found, found
