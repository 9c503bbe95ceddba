"""Charts for slides: two sizes, text that reads from the back of the room, titles that state the
finding.

Each chart is drawn at the size it is shown at: a full 16:9 slide (13.33 × 7.5 in) or half of one
(6.67 × 7.5 in), with no text under 18 pt at that size. Each is written three times: a PNG on
white, a PNG with a transparent background (for a slide of any colour) and an SVG whose text stays
text. The title says what the chart shows ("Dates are never backed: 2 of 2"); every annotation
sits inside the plot; axes stop at what is possible (0 to 100%, −100 to +100 points); a
comparison says per measure which side is better for B. Colours and symbols are those of
:mod:`groundlab.formatting`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from ..core import formatting as fmt
from ..measure.compare import BETTER, compare_rows  # noqa: F401 (named by slides' callers)
from .plots import OKABE_ITO, _rc

#: Figure sizes in inches: a full 16:9 slide, and half of one (a chart beside text).
SIZES = {"full": (13.333, 7.5), "half": (6.667, 7.5)}
#: The smallest text on a slide, in points at slide size; titles are larger.
TEXT_PT = 18
TITLE_PT = {"full": 26, "half": 22}

_SLIDE_RC = {"font.size": TEXT_PT, "axes.titlesize": TITLE_PT["full"], "axes.titleweight": "bold",
             "axes.labelsize": TEXT_PT, "xtick.labelsize": TEXT_PT, "ytick.labelsize": TEXT_PT,
             "legend.fontsize": TEXT_PT, "legend.title_fontsize": TEXT_PT, "figure.titlesize": TITLE_PT["full"],
             "axes.spines.top": False, "axes.spines.right": False, "svg.hashsalt": "groundlab",
             "axes.grid": True, "grid.color": "#dddddd", "axes.edgecolor": "#444444"}

GOOD, BAD, UNSURE, NONE = (fmt.STATE_COLOURS[k] for k in ("good", "bad", "unsure", "none"))


def _figure(size: str) -> Tuple[Figure, Axes]:
    fig, ax = plt.subplots(figsize=SIZES[size], layout="constrained")
    return fig, ax


def _title(ax: Axes, text: str, size: str) -> None:
    """The finding as the slide's title, from its left edge, wrapped to stay on the slide."""
    ax.figure.suptitle(_plain(_wrapped(text, 50 if size == "full" else 26)), x=0.02, ha="left",
                       fontsize=TITLE_PT[size], fontweight="bold")


def _label(ax: Axes, text: str, size: str) -> None:
    ax.set_xlabel(_plain(_wrapped(text, 80 if size == "full" else 36)))


def _wrapped(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_long_words=False)) or text


def _first_clause(text: str) -> str:
    """A finding up to its first "; ": what a slide has room for (the report says the rest)."""
    return text.split("; ", 1)[0]


def _plain(text: Any) -> str:
    return str(text).replace("$", r"\$")


# ---------------------------------------------------------------- ranges, one row per measure


def _ranges(ax: Axes, rows: Sequence[Dict[str, Any]], size: str, points: bool = False) -> None:
    """Rows of ``{label, value, low, high, state, note, target}`` as dots with their range, the
    state's colour and symbol, the note inside the plot; ``points``: a difference on −100..+100."""
    from matplotlib.transforms import blended_transform_factory

    lo, hi = (-1.0, 1.0) if points else (0.0, 1.0)
    pad = 0.06 * (hi - lo)
    across = blended_transform_factory(ax.transAxes, ax.transData)
    for y, row in enumerate(rows):
        colour = fmt.STATE_COLOURS.get(row.get("state", "none"), NONE)
        if row.get("low") is not None and row.get("high") is not None:
            ax.plot([row["low"], row["high"]], [y, y], color=colour, lw=8, solid_capstyle="butt", alpha=0.55)
        if row.get("value") is not None and row["value"] == row["value"]:
            ax.plot(row["value"], y, "o", ms=20, color=colour, mec="white", mew=2, zorder=4)
        if row.get("target") is not None:
            ax.plot([row["target"]] * 2, [y - 0.35, y + 0.35], color="#111111", lw=3, ls="--", zorder=5)
        note = f"{fmt.state_label(row.get('state', 'none'))} {row.get('note', '')}".strip()
        if size != "full":  # a half slide has room for a line or two above each row: the first clause
            note = _first_clause(note)
        # the note above its row, from the left edge of the plot: always inside it, on a white ground
        # over the zero line or a target line it crosses, beneath the row's dot
        ax.text(0.01, y - 0.22, _plain(_wrapped(note, 70 if size == "full" else 34)), transform=across, ha="left",
                va="bottom", fontsize=TEXT_PT, color="#111111", zorder=3.5,
                bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.9))
    ax.set_yticks(range(len(rows)), [_plain(_wrapped(r["label"], 20 if size == "full" else 12)) for r in rows])
    ax.set_ylim(len(rows) - 0.5, -0.9)
    ax.set_xlim(lo - pad, hi + pad)
    if points:
        ax.axvline(0, color="#111111", lw=1.5)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: fmt.points(x)))
        ax.set_xticks([-1, -0.5, 0, 0.5, 1])
    else:
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
    ax.grid(axis="y", visible=False)
    ax.tick_params(axis="y", length=0)


def headline_slide(tiles: Sequence[Any], size: str = "full") -> Figure:
    """The decision panel's rates (hallucination rate, false abstention, citation accuracy), each
    with its range, its target line and its state; the title says the headline's state."""
    fig, ax = _figure(size)
    rows = [{"label": t.title, "value": t.value, "low": t.low, "high": t.high, "state": t.state,
             "note": f"{t.figure}: {t.state_text}", "target": t.target}
            for t in tiles if t.scale == "rate" and t.key != "judge" and t.value is not None]
    first = tiles[0]
    # the title gives the state's first clause; the whole of it stands in the row's note
    state = _first_clause(first.state_text)
    if first.value is None:  # not measured yet: no figure to give, only what would settle it
        _title(ax, f"{first.title}: {state}", size)
    else:
        _title(ax, f"{first.title} {first.figure} ({fmt.percent_range(first.low, first.high)}): {state}", size)
    if rows:
        _ranges(ax, rows, size)
    _label(ax, "with its 95% range; dashed: the target", size)
    return fig


def breakdown_finding(frame) -> str:
    """The title of the breakdown by kind: the kind of claim least often backed, said plainly
    (``Dates are never backed: 2 of 2``)."""
    kinds = frame[frame["by"] == "kind"]
    if kinds.empty:
        return "No judged claim to break down"
    worst = kinds.sort_values(["rate", "total"], ascending=[False, False]).iloc[0]
    names = {"id": "Ids", "amount": "Amounts", "date": "Dates", "quantity": "Quantities", "other": "Other claims"}
    name = names.get(worst["group"], str(worst["group"]).capitalize())
    of = f"{worst['hallucinated']} of {worst['total']}"
    if worst["hallucinated"] == worst["total"]:
        return f"{name} are never backed: {of}"
    if not worst["hallucinated"]:
        return f"Every kind of claim is backed: none of {fmt.count(int(kinds['total'].sum()), 'claim')} fails"
    return f"{name} are the least often backed: the judge flags {of} ({fmt.percent(worst['rate'])})"


#: A target's status in the report's table, as a slide's state.
#: What a target's state says on the slide, in the words of the report's table.
_TARGET_WORDS = {"good": "met", "bad": "missed", "unsure": "not shown yet", "none": "no data"}


def breakdown_slide(frame, size: str = "full", targets=None) -> Figure:
    """Claims the judge did not find supported, by kind (and answers it flagged, by process), each
    with its range; where ``targets`` (the report's target table,
    :func:`groundlab.targets.target_table`) sets one, its line and its state as the report says it
    (met, missed or no data), else no state at all."""
    fig, ax = _figure(size)
    _title(ax, breakdown_finding(frame), size)
    states = {}
    if targets is not None:
        for t in targets.itertuples():
            if (t.kind is None) != (t.process is None):  # a target on one kind, or on one process
                states[("kind", t.kind) if t.kind is not None else ("process", t.process)] = (t.state, t.max_rate)
    rows = []
    for row in frame[frame["by"].isin(["kind", "process"])].itertuples():
        unit = row.unit if row.total != 1 else row.unit[:-1]
        state, limit = states.get((row.by, row.group), (None, None))
        note = f"{row.hallucinated} of {row.total} {unit}"
        if state is not None:  # the state the table decided (targets.target_state), as the report shows it
            note += f"; target at most {fmt.percent(limit)}: {_TARGET_WORDS.get(state, state)}"
        rows.append({"label": f"{row.by} {row.group}" if row.by == "process" else str(row.group), "value": row.rate,
                     "low": row.low, "high": row.high, "state": state or "none", "note": note, "target": limit})
    if rows:
        _ranges(ax, rows, size)
    _label(ax, "flagged by the judge, with its 95% range", size)
    return fig


def judge_slide(tiles: Sequence[Any], agree: Dict[str, Any], size: str = "full") -> Figure:
    """How far the judge can be trusted: hallucinated claims caught and false alarms, each with its
    range and the labeled claims behind it."""
    fig, ax = _figure(size)
    c, f = agree["caught"], agree["false_alarms"]
    if not agree["agreement"]["claims"]:
        _title(ax, "The judge is not checked against people yet: label a sample first", size)
        ax.text(0.5, 0.5, "no claim carries a person's label", ha="center", va="center", transform=ax.transAxes,
                fontsize=TEXT_PT)
        ax.set_axis_off()
        return fig
    _title(ax, f"The judge caught {c['caught']} of {c['hallucinated']} hallucinated claims, with false alarms on "
               f"{f['flagged']} of {f['supported']}", size)
    rows = [{"label": "caught (higher is better)", "value": c["rate"], "low": c["low"], "high": c["high"],
             "state": "none", "note": f"{c['caught']} of {fmt.count(c['hallucinated'], 'claim')}"},
            {"label": "false alarms (lower is better)", "value": f["rate"], "low": f["low"], "high": f["high"],
             "state": "none", "note": f"{f['flagged']} of {fmt.count(f['supported'], 'claim')}"}]
    _ranges(ax, [r for r in rows if r["value"] is not None], size)
    _label(ax, f"on {fmt.count(agree['agreement']['claims'], 'labeled claim')}, with the 95% range", size)
    return fig


def compare_slide(comparison: Any, size: str = "full") -> Figure:
    """B − A per measure in points with its paired range, capped at ±100 points; the title gives
    the hallucination rate's difference and what it means."""
    from .report import comparison_tile

    fig, ax = _figure(size)
    tile = comparison_tile(comparison)
    _title(ax, f"{tile.title}: {tile.figure}, {tile.state_text}", size)
    rows = compare_rows(comparison)
    if rows:
        _ranges(ax, rows, size, points=True)
    a, b = (comparison.result if hasattr(comparison, "result") else comparison).names
    _label(ax, f"{b} \u2212 {a} in points, with the paired 95% range", size)
    return fig


def answers_slide(summary: Dict[str, Any], margin: float = 0.05, size: str = "full") -> Figure:
    """How firm the hallucination rate is and what would make it firmer: by people's labels on
    every answer, the range today and at the number of answers a ±``margin`` range needs; else
    the labels that would settle it, beside what the judge flags (which is not the rate). Every
    figure from the run's ``summary`` (:func:`groundlab.summary.score_summary`)."""
    from ..core.stats import interval_bounds
    from .headline import hallucination_words, label_request_words

    fig, ax = _figure(size)
    h = summary["hallucination_rate"]
    rows = []
    if h["basis"] == "people":
        p, have, need = h["rate"], h["answered"], summary["answers_needed"]["hallucination_rate"]
        finding = (f"{fmt.count(have, 'answer')} are too few: \u00b1{100 * margin:g} points needs {fmt.number(need)}"
                   if have < need else f"{fmt.count(have, 'answer')} pin the rate to \u00b1{100 * margin:g} points")
        for label, n in (("today", have), (f"with {fmt.number(need)}", need)):
            low, high = interval_bounds(p, n)
            rows.append({"label": f"{label}: {fmt.count(n, 'answer')}", "value": p, "low": low, "high": high,
                         "state": "unsure" if n < need else "good", "note": fmt.percent_range(low, high)})
        axis = "the hallucination rate by people's labels, with its 95% range"
    else:
        words = hallucination_words(summary)
        request = label_request_words(summary)
        finding = _upper(request) if request else f"The hallucination rate is not measured: {words.how}"
        if words.measured:
            rows.append({"label": "hallucination rate", "value": words.value, "low": words.low, "high": words.high,
                         "state": "unsure", "note": f"{words.figure} {words.how}"})
        f = summary["flagged_by_judge"]
        if f["answered"]:
            rows.append({"label": "flagged by the judge", "value": f["rate"], "low": f["low"], "high": f["high"],
                         "state": "none", "note": f"{fmt.percent(f['rate'])} flagged: not the rate, which people's "
                                                  "labels give"})
        axis = "with the 95% range"
    _title(ax, finding, size)
    if rows:
        _ranges(ax, rows, size)
    _label(ax, axis, size)
    return fig


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def penalty_slide(curve, penalty: float, size: str = "full") -> Figure:
    """The risk-weighted score per 100 answers against the penalty, as it is and withholding the
    answers the judge flags; the title says what withholding changes at the report's penalty."""
    from ..core.curves import AS_IT_IS, WITHHOLDS

    fig, ax = _figure(size)
    at = {}
    for policy, colour, style in ((AS_IT_IS, BAD, "-"), (WITHHOLDS, GOOD, "--")):
        rows = curve[curve["policy"] == policy]
        ax.plot(rows["penalty"], rows["per_100"], color=colour, ls=style, lw=5,
                label="as it is" if policy == AS_IT_IS else "withholding flagged answers")
        row = rows.iloc[(rows["penalty"] - penalty).abs().argmin()]
        at[policy] = float(row["per_100"])
    ax.axhline(0, color="#111111", lw=1.5)
    ax.axvline(penalty, color="#111111", ls=":", lw=2)
    # a score per 100 answers is at most +100 (every answer right); its floor is what the data reach
    ax.set_ylim(min(-100.0, float(curve["per_100"].min()) - 10), 105)
    ax.set_xlim(float(curve["penalty"].min()), float(curve["penalty"].max()))
    before, after = at[AS_IT_IS], at[WITHHOLDS]
    moves = "lifts" if after > before else "lowers" if after < before else "leaves"
    _title(ax, f"Withholding flagged answers {moves} the score from {fmt.signed(before)} to {fmt.signed(after)} "
               f"per 100 answers at penalty {fmt.weight(penalty)}", size)
    _label(ax, "penalty: what a wrong answer costs, in right ones", size)
    ax.set_ylabel("score per 100 answers")
    ax.legend(loc="lower left", frameon=True)
    return fig


# ---------------------------------------------------------------- writing them


def save_slide(fig: Figure, directory: Path, name: str, dpi: int = 150) -> List[Path]:
    """``name.png`` on white, ``name-transparent.png`` and ``name.svg`` (text as text) in
    ``directory``; each file written whole, never through a symbolic link."""
    from ..core.outputs import replacing

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"{name}.png", directory / f"{name}-transparent.png", directory / f"{name}.svg"]
    with _rc({"svg.fonttype": "none", "svg.hashsalt": "groundlab"}):
        with replacing(paths[0]) as tmp:
            fig.savefig(tmp, format="png", dpi=dpi, facecolor="white", metadata={"Software": None})
        with replacing(paths[1]) as tmp:
            fig.savefig(tmp, format="png", dpi=dpi, transparent=True, metadata={"Software": None})
        with replacing(paths[2]) as tmp:
            fig.savefig(tmp, format="svg", facecolor="white", metadata={"Date": None})
    return paths


def slide_figures(evaluation: Any, penalty: float = 1.0, targets: Any = None, comparison: Any = None,
                  margin: float = 0.05, size: str = "full") -> Dict[str, Figure]:
    """Every slide of a run at ``size``, by name."""
    from ..core.metrics import hallucination_breakdown
    from .report import decision_tiles
    from ..measure.summary import agree_summary, score_summary
    from ..core.curves import penalty_curve

    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)}, not {size!r}")
    summary = score_summary(evaluation, penalty, margin=margin)
    tiles = decision_tiles(evaluation, targets, comparison, margin, summary=summary)
    table = None
    if targets is not None:
        from ..production.targets import target_table

        table = target_table(targets, evaluation.claims, evaluation.cases)
    out = {"decision": headline_slide(tiles, size),
           "breakdown": breakdown_slide(hallucination_breakdown(evaluation.claims, evaluation.cases), size, table),
           "answers-needed": answers_slide(summary, margin, size),
           "judge": judge_slide(tiles, agree_summary(evaluation), size),
           "penalty": penalty_slide(penalty_curve(evaluation.cases, max_penalty=max(3.0, 2 * penalty)), penalty, size)}
    if comparison is not None:
        out["compare"] = compare_slide(comparison, size)
    return out


def _quiet(measure, *args):
    import warnings

    from ..core.stats import UndefinedRateWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        return measure(*args)


def write_slides(evaluation: Any, directory: Any, penalty: float = 1.0, targets: Any = None, comparison: Any = None,
                 margin: float = 0.05):
    """Write every slide in both sizes into ``directory`` (``decision-full.png``,
    ``decision-full-transparent.png``, ``decision-full.svg``, ``decision-half.png``, ...), and say
    what was written; with an empty ``directory``, say how to ask for them."""
    from ..production.targets import read_targets
    from .tables import Sentences

    if not str(directory or "").strip():
        return Sentences([("No slides were asked for: groundlab run --slides (or the parameter slides_dir) writes "
                           "every chart at slide size.", [])])
    targets = read_targets(targets)
    written: List[Path] = []
    with _rc(_SLIDE_RC):
        for size in SIZES:
            for name, fig in slide_figures(evaluation, penalty, targets, comparison, margin, size).items():
                written += save_slide(fig, Path(directory), f"{name}-{size}")
                plt.close(fig)
    names = sorted({p.name.split("-full")[0].split("-half")[0] for p in written})
    return Sentences([(f"{fmt.count(len(written), 'slide file')} in {directory}: {fmt.joined(names)}, each as a full "
                       "and a half 16:9 slide, a PNG on white, a transparent PNG and an SVG.", [])])


__all__ = ["BETTER", "SIZES", "TEXT_PT", "breakdown_finding", "compare_rows", "save_slide", "slide_figures",
           "write_slides"]
