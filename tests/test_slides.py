"""Charts for slides: two sizes, no text under 18 pt at slide size, every text on the slide, a
transparent PNG beside the white one, titles that state the finding, axes capped, better for B."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from conftest import CASES, CASES_B, NOTES  # noqa: E402
from groundlab import evaluate, slides, workbook  # noqa: E402
from groundlab.metrics import hallucination_breakdown  # noqa: E402
from groundlab.summary import score_summary  # noqa: E402
from dataclasses import replace  # noqa: E402


@pytest.fixture(scope="module")
def compared():
    return workbook.compare_files(CASES, CASES_B, NOTES, "rules")


def _texts(fig):
    fig.canvas.draw()
    out = [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
    return out


@pytest.mark.parametrize("size", ["full", "half"])
def test_every_slide_reads_at_slide_size(compared, size):
    ev = compared.evaluations[0]
    with slides._rc(slides._SLIDE_RC):
        figures = slides.slide_figures(ev, 1.0, None, compared, size=size)
    assert set(figures) == {"decision", "breakdown", "answers-needed", "judge", "penalty", "compare"}
    for name, fig in figures.items():
        width, height = fig.get_size_inches()
        assert (width, height) == pytest.approx(slides.SIZES[size], abs=0.01)
        renderer = fig.canvas.get_renderer()
        frame = fig.bbox
        for text in _texts(fig):
            assert text.get_fontsize() >= slides.TEXT_PT, (name, text.get_text(), text.get_fontsize())
            box = text.get_window_extent(renderer)
            assert box.x0 >= frame.x0 - 1 and box.x1 <= frame.x1 + 1 and box.y0 >= frame.y0 - 1 and \
                box.y1 <= frame.y1 + 1, (name, size, text.get_text())
        plt.close(fig)


def test_titles_state_the_finding_and_axes_stop_at_what_is_possible(compared, sample_cases):
    ev = evaluate(sample_cases, "rules")
    assert slides.breakdown_finding(hallucination_breakdown(ev.claims, ev.cases)) == "Dates are never backed: 2 of 2"
    with slides._rc(slides._SLIDE_RC):
        fig = slides.compare_slide(compared)
        assert fig.get_suptitle().replace("\n", " ") == "B \u2212 A: flagged by the judge: \u221214 points, could be noise"
        ax = fig.axes[0]
        low, high = ax.get_xlim()
        assert -1.2 <= low <= -1 and 1 <= high <= 1.2  # ±100 points and a margin, never +175
        labels = [t.get_text().replace("\n", " ") for t in ax.get_yticklabels()]
        assert labels == ["flagged by the judge (lower is better)", "faithfulness (higher is better)",
                          "abstention (higher is better)", "false abstention (lower is better)"]
        plt.close(fig)
        # the hallucination rate is people's (50% on the labeled sample set), not the judge's 60%
        fig = slides.answers_slide(score_summary(ev))
        assert fig.get_suptitle().replace("\n", " ") == "10 answers are too few: \u00b15 points needs 381"
        plt.close(fig)
        fig = slides.answers_slide(score_summary(evaluate([replace(c, labels=None) for c in sample_cases], "rules")))
        assert fig.get_suptitle().replace("\n", " ").startswith("Label all 10 answers (about 8 minutes)")
        plt.close(fig)


def test_write_slides_gives_white_transparent_and_svg(tmp_path, compared):
    from PIL import Image

    ev = compared.evaluations[0]
    said = slides.write_slides(ev, tmp_path / "slides", 3.0, None, compared)
    files = sorted(p.name for p in (tmp_path / "slides").iterdir())
    assert len(files) == 6 * 2 * 3 and "36 slide files" in repr(said)
    for name in ("decision", "compare"):
        for size in ("full", "half"):
            white = Image.open(tmp_path / "slides" / f"{name}-{size}.png")
            clear = Image.open(tmp_path / "slides" / f"{name}-{size}-transparent.png")
            assert white.size == clear.size and abs(white.size[0] - 150 * slides.SIZES[size][0]) < 2
            assert clear.mode == "RGBA" and clear.getpixel((2, 2))[3] == 0 and white.convert("RGBA").getpixel((2, 2))[3] == 255
            assert "<text" in (tmp_path / "slides" / f"{name}-{size}.svg").read_text(encoding="utf-8")
    assert "No slides were asked for" in repr(slides.write_slides(ev, "", 1.0))


def test_run_slides_writes_them_beside_the_report(cli, tmp_path, monkeypatch):
    import shutil

    from conftest import ROOT

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "nbs"
    folder.mkdir()
    shutil.copy(ROOT / "notebooks" / "03-risk-report.ipynb", folder)
    code, out, err = cli("run", "--cases", CASES, "--passages", NOTES, "--notebooks", folder, "--out", "out",
                         "--slides", "--judge", "rules")
    assert code == 0, err
    wrote, headline = out.splitlines()
    assert wrote.endswith("report.md, report.html, 10 slides (PNG, transparent PNG and SVG) in slides/."), out
    assert headline.startswith("hallucination rate: 50% (by people's labels on every answer"), out
    written = sorted(p.name for p in (tmp_path / "out" / "slides").iterdir())
    assert len(written) == 5 * 2 * 3 and "breakdown-half-transparent.png" in written
    code, out, err = cli("run", "--cases", CASES, "--passages", NOTES, "--notebooks", folder, "--out", "again",
                         "--slides", "-p", "slides_dir", "x")
    assert code == 2 and "--slides and -p slides_dir both set slides_dir" in err


@pytest.mark.parametrize("size", ["full", "half"])
def test_a_long_state_leaves_the_decision_slide_readable(size):
    """With labels on some answers the headline's state is long (what to label, how far it would
    narrow the range): the title gives its first clause, a half slide's notes theirs, and no two
    texts of the slide overlap."""
    from groundlab import load_cases

    cases = [c if c.id in {"c01", "c02", "c03", "c05", "c06", "c08", "c10", "c11"} else replace(c, labels=None)
             for c in load_cases(CASES, NOTES)]
    with slides._rc(slides._SLIDE_RC):
        fig = slides.slide_figures(evaluate(cases), size=size)["decision"]
    title = fig.get_suptitle().replace("\n", " ")
    assert title.startswith("Hallucination rate 50% (17%\u201383%)") and ";" not in title
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in _texts(fig) if t is not fig._suptitle]
    title_box = fig._suptitle.get_window_extent(renderer)
    assert title_box.height < 0.3 * fig.bbox.height
    for k, box in enumerate(boxes):
        assert not box.overlaps(title_box)
        assert not any(box.overlaps(other) for other in boxes[k + 1:])
    plt.close(fig)


def test_the_breakdown_slide_reads_the_targets_as_the_report_does(sample_cases, tmp_path):
    from groundlab.targets import load_targets, target_table

    path = tmp_path / "targets.toml"
    path.write_text("[kind]\nquantity = 0.05\n", encoding="utf-8")
    targets = load_targets(path)
    ev = evaluate(sample_cases, "rules")
    table = target_table(targets, ev.claims, ev.cases)
    status = table.set_index("target").loc["kind quantity", "status"]
    fig = slides.breakdown_slide(hallucination_breakdown(ev.claims, ev.cases), "full", table)
    texts = [t.get_text() for t in fig.axes[0].texts]
    plt.close(fig)
    line = next(t for t in texts if "target at most 5%" in t)
    assert status == "fail" and line.startswith("\u2717") and "missed" in line, texts
    # a kind without a target has no state of its own: no "?" where the report says nothing
    assert not any(t.startswith("?") for t in texts), texts


def test_a_target_within_its_limit_whose_range_reaches_across_is_unsure_on_the_slide_as_in_the_report(sample_cases,
                                                                                                        tmp_path):
    from groundlab.targets import load_targets, target_table

    ev = evaluate(sample_cases, "rules")
    frame = hallucination_breakdown(ev.claims, ev.cases)
    quantity = frame[(frame["by"] == "kind") & (frame["group"] == "quantity")].iloc[0]
    limit = round((quantity["rate"] + quantity["high"]) / 2, 2)  # above the rate, below the range's top
    path = tmp_path / "targets.toml"
    path.write_text(f"[kind]\nquantity = {limit}\n", encoding="utf-8")
    table = target_table(load_targets(path), ev.claims, ev.cases).set_index("target")
    assert table.loc["kind quantity", "state"] == "unsure"
    fig = slides.breakdown_slide(frame, "full", table.reset_index())
    texts = [t.get_text() for t in fig.axes[0].texts]
    plt.close(fig)
    line = next(t for t in texts if "target at most" in t)
    assert line.startswith("?") and "not shown yet" in line and "missed" not in line, texts
