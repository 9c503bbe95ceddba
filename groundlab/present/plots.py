"""Figures for notebooks and slides, drawn with seaborn.

Each function takes a tidy frame from :mod:`groundlab.workbook` (and optionally the Axes to draw
on) and returns the Axes. Colours come from the Okabe–Ito palette, which stays distinguishable
with the common colour-vision deficiencies; sizes are chosen to stay readable on a slide.
:func:`save_figure` exports a figure as PNG and SVG.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import Any, Iterator, List, Mapping, Optional, Sequence, Union

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.path import Path as MplPath
from matplotlib.ticker import FuncFormatter, PercentFormatter

from ..core.formatting import signed

#: Okabe & Ito (2008), "Color Universal Design".
OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky blue": "#56B4E9", "bluish green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish purple": "#CC79A7",
}
#: The palette seaborn cycles through: the Okabe–Ito colours, black last.
PALETTE: List[str] = [OKABE_ITO[k] for k in ("blue", "orange", "bluish green", "vermillion",
                                              "reddish purple", "sky blue", "yellow", "black")]
VERDICT_COLOURS = {"supported": OKABE_ITO["blue"], "contradicted": OKABE_ITO["vermillion"],
                   "unsupported": OKABE_ITO["orange"]}
POLICY_COLOURS = [OKABE_ITO["vermillion"], OKABE_ITO["blue"]]
#: A sequential colour map that reads the same in grey and to colour-blind eyes.
HEATMAP_CMAP = "Blues"

_RC = {"axes.titlesize": 15, "axes.titleweight": "bold", "axes.labelsize": 13,
       "xtick.labelsize": 12, "ytick.labelsize": 12, "legend.fontsize": 12,
       "legend.title_fontsize": 12, "font.size": 12, "svg.hashsalt": "groundlab",
       "axes.prop_cycle": matplotlib.cycler(color=PALETTE)}


def set_theme() -> None:
    """Use groundlab's look for every figure in this session (notebooks call it once)."""
    sns.set_theme(style="whitegrid", palette=PALETTE, rc=_RC)


@contextlib.contextmanager
def _rc(params: Mapping[str, object]) -> Iterator[None]:
    """Set ``params`` for the block, then put back those keys only.

    Not ``plt.rc_context``, which puts back every setting: when a Jupyter kernel's first figure
    is made inside it, the inline backend switches matplotlib's interactive flag on, the context
    switches it off again on exit, and no later chart of the session is shown in its cell
    (matplotlib issues 24351 and 26716).
    """
    before = {key: matplotlib.rcParams[key] for key in params}
    matplotlib.rcParams.update(params)
    try:
        yield
    finally:
        matplotlib.rcParams.update(before)


def _styled(draw):
    """Draw inside groundlab's style, whatever the session's own settings are."""
    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        with sns.axes_style("whitegrid"), _rc(_RC):
            return draw(*args, **kwargs)
    return wrapper


def _axes(ax: Optional[Axes], size=(8, 5)) -> Axes:
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _percent_axis(axis) -> None:
    axis.set_major_formatter(PercentFormatter(1.0, decimals=0))


def _range_label(ax: Axes, text: str, low: float, high: float, value: float, y: float, colour: str,
                 span: tuple = (0.0, 1.0), fontsize: float = 11) -> None:
    """A range's count beside it, on the side with room, so it stays inside the plot: right of
    the range, else left of it, else above its dot."""
    lo, hi = span
    width = hi - lo
    if high <= lo + 0.8 * width:
        ax.annotate(text, (high, y), xytext=(8, 0), textcoords="offset points", va="center", ha="left",
                    fontsize=fontsize, color=colour)
    elif low >= lo + 0.25 * width:
        ax.annotate(text, (low, y), xytext=(-8, 0), textcoords="offset points", va="center", ha="right",
                    fontsize=fontsize, color=colour)
    else:
        ax.annotate(text, (value, y), xytext=(0, 9), textcoords="offset points", va="bottom", ha="center",
                    fontsize=fontsize, color=colour)


class _PlacedLabels(matplotlib.artist.Artist):
    """Puts a chart's value labels where they can be read, when the chart is drawn (the layout is
    final then, whatever size the figure is saved at): each label at the first of its offsets
    whose box stays inside the axes and clear of the labels placed before it, of every marker and
    of the lines it must not cover (the zero line); clear of the other lines too (``rather``)
    where one of its offsets allows. Draws nothing itself."""

    def __init__(self, ax: Axes, labels: Sequence[tuple], keep_clear: Sequence[Any] = (),
                 rather: Sequence[Any] = ()) -> None:
        super().__init__()
        self.ax, self.labels, self.keep_clear, self.rather = ax, list(labels), list(keep_clear), list(rather)
        self.set_in_layout(False)
        self.set_zorder(min(label.get_zorder() for label, _ in self.labels) - 0.01)

    def get_window_extent(self, renderer=None):
        from matplotlib.transforms import Bbox

        return Bbox.null()

    @staticmethod
    def _put(label, offset) -> None:
        dx, dy = offset
        label.xyann = (dx, dy)
        label.set_horizontalalignment("left" if dx >= 0 else "right")
        label.set_verticalalignment("bottom" if dy >= 0 else "top")

    def _box(self, label, renderer):
        patch = label.get_bbox_patch()
        pad = 0.0
        if patch is not None:
            pad = getattr(patch.get_boxstyle(), "pad", 0.0) * label.get_fontsize()
        return label.get_window_extent(renderer).padded((pad + 1.5) * self.ax.figure.dpi / 72)

    def draw(self, renderer) -> None:
        from matplotlib.transforms import Bbox

        scale = self.ax.figure.dpi / 72
        inside = self.ax.get_window_extent(renderer)
        markers = []
        for line in self.ax.get_lines():
            if line.get_visible() and line.get_marker() not in (None, "None", "", " "):
                r = (line.get_markersize() + line.get_markeredgewidth()) / 2 * scale
                markers += [Bbox([[x - r, y - r], [x + r, y + r]])
                            for x, y in line.get_transform().transform(line.get_xydata())]

        def polylines(lines):
            return [(MplPath(line.get_transform().transform(line.get_xydata())), line.get_linewidth() / 2 * scale)
                    for line in lines if line.get_visible()]

        must, rather = polylines(self.keep_clear), polylines(self.rather)

        def clear(box, lines) -> bool:
            return not any(path.intersects_bbox(box.padded(width), filled=False) for path, width in lines)

        placed: List[Any] = []
        for label, offsets in self.labels:
            fits = []
            for offset in offsets:
                self._put(label, offset)
                box = self._box(label, renderer)
                if (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1
                        and not any(box.overlaps(other) for other in placed + markers) and clear(box, must)):
                    fits.append((offset, box))
                    if clear(box, rather):
                        fits = [(offset, box)]
                        break
            offset, box = fits[0] if fits else (offsets[0], None)
            self._put(label, offset)
            placed.append(box if box is not None else self._box(label, renderer))


# ---------------------------------------------------------------- agreement


@_styled
def confusion_heatmap(frame: pd.DataFrame, ax: Optional[Axes] = None, title: Optional[str] = None,
                      vmax: Optional[float] = None) -> Axes:
    """The person × judge confusion matrix as an annotated heatmap.

    ``frame``: one judge's :func:`groundlab.workbook.confusion_frame` (``person``, ``verdict``,
    ``claims``). The diagonal is where judge and person agree.
    """
    order = list(dict.fromkeys(frame["person"]))
    matrix = frame.pivot(index="person", columns="verdict", values="claims").reindex(index=order, columns=order)
    ax = _axes(ax, (6.5, 5.2))
    sns.heatmap(matrix, annot=True, fmt="d", cmap=HEATMAP_CMAP, vmin=0, vmax=vmax, cbar=False,
                linewidths=1, linecolor="white", square=True, annot_kws={"size": 18, "weight": "bold"}, ax=ax)
    for k in range(len(order)):  # outline the diagonal: agreement
        ax.add_patch(plt.Rectangle((k, k), 1, 1, fill=False, edgecolor=OKABE_ITO["black"], lw=2))
    judge = frame["judge"].iloc[0] if "judge" in frame else None
    title = title or f"Person \u00d7 judge{f' ({judge})' if judge else ''}"
    if not frame["claims"].sum():  # an all-zero matrix says nothing by itself
        title += ": no labeled claims"
    ax.set_title(title, pad=12)
    ax.set_xlabel(f"{judge} judge says" if judge else "judge says")
    ax.set_ylabel("person says")
    ax.tick_params(axis="y", rotation=0)
    ax.tick_params(axis="x", rotation=0)
    return ax


@_styled
def confusion_heatmaps(frame: pd.DataFrame, axes: Optional[Sequence[Axes]] = None) -> List[Axes]:
    """:func:`confusion_heatmap` for every judge in ``frame`` side by side, on one colour scale."""
    judges = list(dict.fromkeys(frame["judge"]))
    if axes is None:
        _, axes = plt.subplots(1, len(judges), figsize=(6 * len(judges), 5.4), layout="constrained",
                               squeeze=False)
        axes = list(axes[0])
    vmax = float(frame["claims"].max())
    out = []
    for judge, ax in zip(judges, axes):
        out.append(confusion_heatmap(frame[frame["judge"] == judge], ax=ax, vmax=vmax,
                                     title=f"Judge {judge}"))
    out[0].figure.suptitle("Person \u00d7 judge, claim by claim", fontsize=16, fontweight="bold")
    return out


@_styled
def rate_ranges(frame: pd.DataFrame, ax: Optional[Axes] = None, hue: Optional[str] = "judge",
                title: str = "The judge against a person's labels") -> Axes:
    """Rates with their Wilson 95% ranges as points and bars, one row per measure.

    ``frame``: :func:`groundlab.summary.rates_frame` rows (``measure``, ``count``, ``total``,
    ``rate``, ``low``, ``high``), several judges told apart by ``hue``.
    """
    frame = frame[frame["total"] > 0]
    measures = list(dict.fromkeys(frame["measure"]))
    groups = list(dict.fromkeys(frame[hue])) if hue and hue in frame else [None]
    ax = _axes(ax, (9, 1.6 + 1.3 * max(1, len(measures))))
    ax.set_title(title, pad=12)
    if not measures:
        ax.text(0.5, 0.5, "nothing to show: every rate here is over zero items\n(no labeled claims?)",
                ha="center", va="center", transform=ax.transAxes, fontsize=13)
        ax.set_axis_off()
        return ax
    height = 0.7 / len(groups)
    for g, (group, colour) in enumerate(zip(groups, PALETTE)):
        rows = frame if group is None else frame[frame[hue] == group]
        for _, row in rows.iterrows():
            y = measures.index(row["measure"]) - 0.35 + height * (g + 0.5)
            ax.plot([row["low"], row["high"]], [y, y], color=colour, lw=3, solid_capstyle="butt")
            ax.plot(row["rate"], y, "o", color=colour, ms=10,
                    label=str(group) if group is not None and row["measure"] == rows["measure"].iloc[0] else None)
            _range_label(ax, f"{row['count']} of {row['total']}", row["low"], row["high"], row["rate"], y, colour)
    ax.set_yticks(range(len(measures)), measures)
    ax.set_ylim(len(measures) - 0.5, -0.5)
    ax.set_xlim(-0.04, 1.04)  # a dot at 0% or 100% shows whole
    _percent_axis(ax.xaxis)
    ax.set_xlabel("rate, with its Wilson 95% range")
    ax.set_ylabel("")
    if groups != [None]:
        ax.legend(title=hue, loc="lower right", frameon=True)
    return ax


@_styled
def roc_curve(frame: pd.DataFrame, ax: Optional[Axes] = None, moves: Optional[pd.DataFrame] = None,
              title: Optional[str] = None) -> Axes:
    """The judge's ROC curve on the labeled claims: hallucinated claims caught against supported
    claims flagged (false alarms) as its score threshold moves, the judge's own point marked and
    lettered points for the threshold moved down and up, with what each move would change.

    ``frame``: :func:`groundlab.workbook.roc_frame`; ``moves``: the points to letter (default
    :func:`groundlab.workbook.threshold_points` of ``frame``).
    """
    from ..core.curves import threshold_points

    ax = _axes(ax, (7.5, 6.5))
    judge = f" ({frame['judge'].iloc[0]})" if len(frame) and "judge" in frame else ""
    ax.set_title(title or f"Caught against false alarms as the threshold moves{judge}", pad=12)
    if frame.empty or not frame["hallucinated"].iloc[0] or not frame["supported"].iloc[0]:
        why = ("no labeled claim has a score" if frame.empty else
               "the labeled claims are all of one kind: a curve needs both")
        ax.text(0.5, 0.5, f"nothing to draw: {why}", ha="center", va="center", transform=ax.transAxes, fontsize=13)
        ax.set_axis_off()
        return ax
    curve = frame[~frame["chosen"]]
    chosen = frame[frame["chosen"]].iloc[0]
    ax.plot([0, 1], [0, 1], color=OKABE_ITO["black"], ls=":", lw=1, label="flagging at random")
    ax.plot(curve["false_alarm_rate"], curve["caught_rate"], color=OKABE_ITO["blue"], lw=2.5, marker="o", ms=4,
            label="the judge's score at every threshold")
    ax.plot(chosen["false_alarm_rate"], chosen["caught_rate"], "o", color=OKABE_ITO["vermillion"], ms=14,
            label=f"its verdicts: caught {int(chosen['caught'])}/{int(chosen['hallucinated'])}, "
                  f"false alarms {int(chosen['false_alarms'])}/{int(chosen['supported'])}", zorder=5)
    moves = threshold_points(frame) if moves is None else moves
    lines = []
    for letter, r in zip("ABCDEFGH", moves[~moves["chosen"]].itertuples()):
        ax.plot(r.false_alarm_rate, r.caught_rate, "o", ms=11, mfc="white", mec=OKABE_ITO["black"], mew=1.5, zorder=6)
        ax.annotate(letter, (r.false_alarm_rate, r.caught_rate), ha="center", va="center", fontsize=8,
                    fontweight="bold", zorder=7)
        lines.append(f"{letter}  threshold {r.threshold:.2f}: {r.caught_change:+d} caught, "
                     f"{r.false_alarm_change:+d} false alarm{'s' * (abs(r.false_alarm_change) != 1)}")
    threshold = chosen["threshold"]
    if threshold == threshold:  # not NaN
        ax.annotate(f"threshold {threshold:.2f}", (chosen["false_alarm_rate"], chosen["caught_rate"]),
                    xytext=(12, -22), textcoords="offset points", fontsize=12, fontweight="bold",
                    color=OKABE_ITO["vermillion"], zorder=8,
                    bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.9))
    if lines:  # in the lower right, under the diagonal, where no threshold of a useful judge lies
        ax.text(0.98, 0.03, "moving the threshold to\n" + "\n".join(lines), transform=ax.transAxes, ha="right",
                va="bottom", multialignment="left", fontsize=10.5, family="monospace",
                bbox=dict(boxstyle="round,pad=0.4", fc="white", ec="#bbbbbb", alpha=0.95))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.04)
    _percent_axis(ax.xaxis)
    _percent_axis(ax.yaxis)
    ax.set_xlabel(f"false alarms: supported claims flagged (of {int(chosen['supported'])})")
    ax.set_ylabel(f"caught: hallucinated claims flagged (of {int(chosen['hallucinated'])})")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False, fontsize=10.5)
    return ax


@_styled
def reliability_curve(frame: pd.DataFrame, ax: Optional[Axes] = None, title: Optional[str] = None) -> Axes:
    """The judge's score against the share of claims people found supported, range by range of the
    score, each share with its Wilson 95% range and the claims behind it: on the diagonal, the score
    is a probability one can read as such.

    ``frame``: :func:`groundlab.workbook.reliability_frame`.
    """
    ax = _axes(ax, (7.5, 6.5))
    judge = f" ({frame['judge'].iloc[0]})" if len(frame) else ""
    ax.set_title(title or f"Does the score mean what it says?{judge}", pad=12)
    if frame.empty:
        ax.text(0.5, 0.5, "nothing to draw: no labeled claim has a score between 0 and 1", ha="center",
                va="center", transform=ax.transAxes, fontsize=13)
        ax.set_axis_off()
        return ax
    ax.plot([0, 1], [0, 1], color=OKABE_ITO["black"], ls=":", lw=1, label="a calibrated score")
    x = frame["mean_score"].to_numpy(dtype=float)
    y = frame["share"].to_numpy(dtype=float)
    err = [y - frame["share_low"].to_numpy(dtype=float), frame["share_high"].to_numpy(dtype=float) - y]
    ax.errorbar(x, y, yerr=err, fmt="o-", color=OKABE_ITO["blue"], ms=8, lw=2, capsize=4,
                label="claims people labeled, by score range")
    for xi, yi, n in zip(x, y, frame["claims"]):
        ax.annotate(f"{int(n)}", (xi, yi), xytext=(8, -14), textcoords="offset points", fontsize=10,
                    color=OKABE_ITO["blue"])
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.04)
    _percent_axis(ax.yaxis)
    ax.set_xlabel("the judge's score (mean in each range)")
    ax.set_ylabel("found supported by the person")
    ax.legend(loc="upper left", frameon=True, fontsize=10.5)
    return ax


# ---------------------------------------------------------------- verdicts


@_styled
def severity_split(frame: pd.DataFrame, ax: Optional[Axes] = None, title: Optional[str] = None) -> Axes:
    """Claims per verdict as horizontal bars, each with its count and share.

    ``frame``: :func:`groundlab.workbook.verdict_frame` (``verdict``, ``claims``, ``share``).
    Contradicted claims say the opposite of a passage; unsupported ones add what no passage says.
    """
    ax = _axes(ax, (8, 1.8 + 0.9 * len(frame)))
    colours = [VERDICT_COLOURS.get(v, PALETTE[0]) for v in frame["verdict"]]
    ax.barh(frame["verdict"], frame["claims"], color=colours, height=0.6)
    top = max(1, int(frame["claims"].max()))
    for y, (count, share) in enumerate(zip(frame["claims"], frame["share"])):
        label = f"{count}" if pd.isna(share) else f"{count} ({share:.0%})"
        ax.annotate(label, (count, y), xytext=(6, 0), textcoords="offset points", va="center", fontsize=13)
    ax.set_xlim(0, top * 1.25)
    ax.set_ylim(len(frame) - 0.5, -0.5)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("claims")
    ax.set_ylabel("")
    ax.grid(axis="y", visible=False)
    judge = f" ({frame['judge'].iloc[0]})" if "judge" in frame else ""
    ax.set_title(title or f"Claims by verdict{judge}", pad=12)
    return ax


@_styled
def breakdown_ranges(frame: pd.DataFrame, axes: Optional[Sequence[Axes]] = None,
                     title: Optional[str] = None) -> List[Axes]:
    """Where the problems are: the hallucinated share by kind of claim and by process, each a
    point with its Wilson 95% range and its count, one panel each (the process panel only when
    some case names its process).

    ``frame``: :func:`groundlab.metrics.hallucination_breakdown` (``by``, ``group``,
    ``hallucinated``, ``total``, ``unit``, ``rate``, ``low``, ``high``). Group names come from
    the cases and are drawn as plain text (a ``$`` is not read as mathematics); a long one is
    shortened.
    """
    panels = [(by, frame[frame["by"] == by]) for by in ("kind", "process") if (frame["by"] == by).any()]
    captions = {"kind": "by kind of claim: claims not supported (a claim counts under each kind it states)",
                "process": "by process: answers with a claim not supported"}
    if axes is None:
        rows = [max(1, len(rows)) for _, rows in panels] or [1]
        _, axes = plt.subplots(len(rows), 1, figsize=(9.5, 1.2 + 1.1 * len(rows) + 0.5 * sum(rows)),
                               layout="constrained", sharex=True, squeeze=False,
                               gridspec_kw={"height_ratios": [r + 0.8 for r in rows]})
        axes = list(axes[:, 0])
    axes = list(axes)
    axes[0].figure.suptitle(title or "Where the problems are", fontsize=15, fontweight="bold")
    if not panels:
        axes[0].text(0.5, 0.5, "nothing to show: no judged claims", ha="center", va="center",
                     transform=axes[0].transAxes, fontsize=13)
        axes[0].set_axis_off()
        return axes
    for (by, rows), ax, colour in zip(panels, axes, (OKABE_ITO["blue"], OKABE_ITO["vermillion"])):
        for y, row in enumerate(rows.itertuples()):
            ax.plot([row.low, row.high], [y, y], color=colour, lw=3, solid_capstyle="butt")
            ax.plot(row.rate, y, "o", color=colour, ms=10)
            unit = row.unit if row.total != 1 else row.unit[:-1]
            _range_label(ax, f"{row.hallucinated} of {row.total} {unit}", row.low, row.high, row.rate, y, colour)
        ax.set_yticks(range(len(rows)), [_plain(group) for group in rows["group"]])
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_xlim(-0.04, 1.04)
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
        _percent_axis(ax.xaxis)
        ax.set_title(captions[by], loc="left", fontsize=12.5, fontweight="normal", pad=8)
        ax.grid(axis="y", visible=False)
    axes[len(panels) - 1].set_xlabel("share not supported, with its Wilson 95% range")
    return axes


def _plain(text: object, limit: int = 40) -> str:
    """Outside text as matplotlib draws it literally: ``$`` escaped (else it starts mathematics),
    one line, shortened to ``limit`` characters."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[:limit - 1] + "\u2026"
    return text.replace("$", r"\$")


# ---------------------------------------------------------------- planning


@_styled
def interval_width(frame: pd.DataFrame, ax: Optional[Axes] = None, answers: Optional[int] = None,
                   needed: Optional[int] = None, margin: float = 0.05, title: Optional[str] = None,
                   plan: Optional[Mapping[str, Any]] = None) -> Axes:
    """How the Wilson 95% range around the observed rate narrows as the test set grows.

    ``frame``: :func:`groundlab.workbook.interval_width_frame` (``n``, ``rate``, ``low``, ``high``).
    ``answers`` marks today's number of answers; ``needed`` the number a ``±margin`` range needs.
    With ``plan`` (:func:`groundlab.workbook.plan_answers` of a run's summary) both come from it,
    and a label request is drawn as what it is: the corrected rate's range as people label answers.
    """
    what, unit = "hallucination rate", "test answers"
    if plan is not None:
        answers, needed, margin = plan["answers"], plan["answers_needed"], plan["margin"]
        what, unit = plan["what"], plan["unit"]
        if plan.get("request") is not None and title is None:
            title = "How sure the rate will be: the 95% range narrows as people label answers"
    ax = _axes(ax, (9, 5.2))
    rate = float(frame["rate"].iloc[0])
    ax.fill_between(frame["n"], frame["low"], frame["high"], color=OKABE_ITO["sky blue"], alpha=0.45,
                    lw=0, label="95% range")
    ax.plot(frame["n"], frame["rate"], color=OKABE_ITO["blue"], lw=2.5,
            label=f"{'expected' if unit != 'test answers' else 'observed'} rate {rate:.0%}")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
    ticks = [t for t in (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)
             if frame["n"].min() <= t <= frame["n"].max()]
    ax.set_xticks(ticks)
    ax.minorticks_off()
    request = plan is not None and plan.get("request") is not None
    for n, colour, style, text in ((answers, OKABE_ITO["black"], "--", "today"),
                                   (needed, OKABE_ITO["vermillion"], ":",
                                    "the label request" if request else f"\u00b1{100 * margin:g} points")):
        if not n:
            continue
        row = frame.iloc[(frame["n"] - n).abs().argmin()]
        ax.axvline(n, color=colour, ls=style, lw=2)
        # left of the line when it stands in the right half of the (log) axis, so the text stays inside
        right_half = np.log(n) > (np.log(frame["n"].min()) + np.log(frame["n"].max())) / 2
        ax.annotate(f"{text}: {n:,} {'labeled' if unit != 'test answers' else 'answers'}\n"
                    f"{row['low']:.0%}\u2013{row['high']:.0%}",
                    (n, 0.97 if colour == OKABE_ITO["black"] else 0.72), xycoords=("data", "axes fraction"),
                    xytext=(-6 if right_half else 6, 0), textcoords="offset points",
                    va="top", ha="right" if right_half else "left", fontsize=12, color=colour,
                    bbox=dict(boxstyle="round,pad=0.25", fc="white", ec="none", alpha=0.85))
    ax.set_ylim(0, 1)
    _percent_axis(ax.yaxis)
    ax.set_xlabel(f"{unit} (log scale)")
    ax.set_ylabel(what)
    ax.set_title(title or "How sure the rate is: the 95% range narrows with more answers", pad=12)
    ax.legend(loc="lower right", frameon=True)
    return ax


@_styled
def penalty_curve(frame: pd.DataFrame, ax: Optional[Axes] = None, penalty: Optional[float] = None,
                  title: Optional[str] = None) -> Axes:
    """The risk-weighted score per 100 answers against the penalty for a wrong answer, one line per
    policy: the assistant as it is, and the same assistant withholding every answer the judge flags.

    ``frame``: :func:`groundlab.workbook.penalty_curve` (``penalty``, ``policy``, ``per_100``,
    ``correct``, ``wrong``, ``answers``, ``by``). Scored ``by`` a person's labels, the second line
    counts what the judge gets wrong (an answer it flags wrongly is a right answer lost, one it
    misses stays wrong); scored by the judge, the chart says that it is the judge's own view.
    The top axis gives how sure an answer must be to pay at each penalty; ``penalty`` marks the
    penalty of the report.
    """
    ax = _axes(ax, (9.5, 6))
    policies = list(dict.fromkeys(frame["policy"]))
    by = str(frame["by"].iloc[0]) if "by" in frame else "judge"
    counts = {policy: (int(frame.loc[frame["policy"] == policy, "correct"].iloc[0]),
                       int(frame.loc[frame["policy"] == policy, "wrong"].iloc[0])) for policy in policies}
    labels = {policy: _policy_label(policy, *counts[policy], by=by,
                                    lost=None if k == 0 else counts[policies[0]][0] - counts[policy][0])
              for k, policy in enumerate(policies)}
    curves = []
    for policy, colour, style in zip(policies, POLICY_COLOURS, ("-", "--")):
        rows = frame[frame["policy"] == policy]
        curves += ax.plot(rows["penalty"], rows["per_100"], color=colour, ls=style, lw=3, label=labels[policy])
    zero = ax.axhline(0, color=OKABE_ITO["black"], lw=1)
    top = ax.secondary_xaxis("top", functions=(lambda p: p / (1 + np.maximum(p, 0)),
                                                lambda t: t / (1 - np.minimum(t, 0.999))))
    top.set_xticks([t for t in (0.5, 0.75, 0.8, 0.9) if t / (1 - t) <= frame["penalty"].max() + 1e-9])
    top.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    top.set_xlabel("how sure an answer must be to pay at that penalty", fontsize=12)
    first = frame[frame["policy"] == policies[0]]
    correct, wrong = first["correct"].iloc[0], first["wrong"].iloc[0]
    if wrong and correct and correct / wrong <= frame["penalty"].max():
        ax.plot(correct / wrong, 0, "o", color=POLICY_COLOURS[0], ms=9)  # where answering stops paying
    if penalty is not None:
        marked = ax.axvline(penalty, color=OKABE_ITO["black"], ls=":", lw=1.5,
                            label=f"the penalty of the report: {penalty:g}")
        at = []
        for policy, colour in zip(policies, POLICY_COLOURS):
            rows = frame[frame["policy"] == policy]
            at.append((rows.iloc[(rows["penalty"] - penalty).abs().argmin()], colour))
        # the higher value's label above its line, the lower one's below its own, moved further out
        # or to the left where that box would cover the other label, a marker or the zero line
        # (placed when drawn: _PlacedLabels)
        at.sort(key=lambda item: -item[0]["per_100"])
        placing = []
        for k, (row, colour) in enumerate(at):
            side = 1 if k == 0 else -1
            label = ax.annotate(signed(row["per_100"]), (row["penalty"], row["per_100"]), xytext=(8, 6 * side),
                                textcoords="offset points", va="bottom" if side > 0 else "top", color=colour,
                                fontsize=13, fontweight="bold", zorder=4,
                                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
            placing.append((label, [(dx, dy * s) for dy in (6, 12, 20, 30, 42, 56) for s in (side, -side)
                                   for dx in (8, -8)]))
        ax.add_artist(_PlacedLabels(ax, placing, keep_clear=[zero], rather=curves + [marked]))
    ax.set_xlim(frame["penalty"].min(), frame["penalty"].max())
    ax.margins(y=0.12)
    ax.set_xlabel("penalty: what one wrong answer costs, in right answers")
    ax.set_ylabel("score per 100 answers\n(right answers \u2212 penalty \u00d7 wrong ones)")
    answers = int(first["answers"].iloc[0])
    scored = (f"scored by a person's labels on {answers} answers" if by == "person" else
              f"scored by the judge on {answers} answers: no person's labels")
    ax.set_title(f"{title or 'What confident errors cost'}\n{scored}", pad=12)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False, fontsize=11.5)
    return ax


def _policy_label(policy: str, correct: int, wrong: int, by: str, lost: Optional[int] = None) -> str:
    """A legend entry in plain words: for the assistant as it is, where answering stops paying;
    for withholding (``lost``: the right answers it gives up), what the line counts."""
    def answers(n: int, what: str) -> str:
        return f"{n} {what} answer{'s' * (n != 1)}"

    if lost is not None:
        if by == "person":
            return (f"{policy}\n(scored by the person: {answers(lost, 'right')} lost to wrong flags, "
                    f"{answers(wrong, 'wrong')} the judge missed)")
        return (f"{policy}\n(the judge's own view: without a person's labels its wrong flags and misses "
                "cannot be counted)")
    if not wrong:
        return f"{policy}: no wrong answers, so answering pays at any penalty"
    if not correct:
        return f"{policy}: no right answers, so answering never pays"
    even = correct / wrong
    return (f"{policy}: answering pays while a wrong answer costs less than {even:.2g} "
            f"right answer{'s' * (even != 1)}")


# ---------------------------------------------------------------- export


def save_figure(fig: Union[Figure, Axes], directory: Union[str, Path], name: str, dpi: int = 200) -> List[Path]:
    """Write ``fig`` as ``directory/name.png`` (``dpi``, 150 or more) and ``directory/name.svg``.

    Accepts a Figure, one of its Axes or a list of them; returns the two paths. The SVG keeps its
    text as text (``svg.fonttype`` none), so titles and labels stay editable in slide tools; each
    file is written whole and never through a symbolic link.
    """
    from ..core.outputs import replacing

    if isinstance(fig, (list, tuple, np.ndarray)):
        fig = fig[0]
    if isinstance(fig, Axes):
        fig = fig.figure
    if dpi < 150:
        raise ValueError("figures for slides need at least 150 dpi")
    directory = Path(directory)
    paths = [directory / f"{name}.png", directory / f"{name}.svg"]
    with _rc({"svg.fonttype": "none", "svg.hashsalt": "groundlab"}):
        with replacing(paths[0]) as tmp:
            fig.savefig(tmp, format="png", dpi=dpi, bbox_inches="tight", facecolor="white",
                        metadata={"Software": None})
        with replacing(paths[1]) as tmp:
            fig.savefig(tmp, format="svg", bbox_inches="tight", facecolor="white", metadata={"Date": None})
    return paths
