"""The chart of a comparison of two configurations (:func:`groundlab.compare.compare`), for slides:
each measure's rate on both sides with its Wilson 95% range, and beside it the difference B − A
with its paired 95% range and the zero line it must clear to be more than noise."""

from __future__ import annotations

from typing import Optional, Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory, offset_copy

from ..measure.compare import Comparison
from ..measure.paired import LABELS, points
from .plots import OKABE_ITO, PALETTE, _styled, rate_ranges


def comparison_frame(comparison: Comparison) -> pd.DataFrame:
    """One row per measure and side (``measure``, ``side``, ``count``, ``total``, ``rate``,
    ``low``, ``high``) and the difference (``difference``, ``diff_low``, ``diff_high``,
    ``verdict``) on every row of its measure; measures with nothing to compare are left out."""
    rows = []
    for name, m in comparison.measures.items():
        if not m.defined:
            continue
        for side, rate in zip(comparison.names, (m.a, m.b)):
            rows.append({"measure": LABELS[name], "side": side, "count": rate.count, "total": rate.total,
                         "rate": rate.rate, "low": rate.low, "high": rate.high, "difference": m.difference,
                         "diff_low": m.low, "diff_high": m.high, "verdict": m.verdict})
    return pd.DataFrame(rows, columns=["measure", "side", "count", "total", "rate", "low", "high", "difference",
                                       "diff_low", "diff_high", "verdict"])


@_styled
def comparison_chart(comparison: Comparison, axes: Optional[Sequence[Axes]] = None,
                     title: Optional[str] = None) -> Figure:
    """Both sides' rates with their ranges (left) and the difference with its range (right); returns
    the Figure. A difference whose range clears zero is drawn solid, one that could be noise hollow."""
    frame = comparison_frame(comparison)
    measures = list(dict.fromkeys(frame["measure"]))
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(14, 1.8 + 1.3 * max(1, len(measures))), layout="constrained",
                                 gridspec_kw={"width_ratios": [3, 2]}, sharey=False)
    left, right = axes[0], axes[1]
    fig = left.figure
    a, b = comparison.names
    rate_ranges(frame, ax=left, hue="side", title=f"{a} and {b}, each rate with its 95% range")
    right.set_title(f"{b} \u2212 {a}, with its paired 95% range", pad=12)
    if not measures:
        right.set_axis_off()
        return fig
    right.axvline(0, color=OKABE_ITO["black"], lw=1.2, ls="--")
    from ..core.formatting import STATE_COLOURS, state_label
    from ..measure.compare import compare_rows

    diffs = frame.drop_duplicates("measure")
    by_label = {row["label"].split(" (")[0]: row for row in compare_rows(comparison)}
    right.set_yticks(range(len(measures)), [by_label.get(m, {}).get("label", m) for m in measures])
    # each note goes under its measure's name, beside the plot: right-aligned where the tick labels
    # end (the tick's length and pad left of the axes), half a name's height and a gap below its middle
    tick = right.yaxis.get_major_ticks()[0]
    under_name = offset_copy(blended_transform_factory(right.transAxes, right.transData), fig=fig,
                             x=-(tick.get_pad() + tick.get_tick_padding()), y=-(tick.label1.get_fontsize() / 2 + 4),
                             units="points")
    for y, row in enumerate(diffs.itertuples()):
        said = by_label.get(row.measure, {})
        colour = STATE_COLOURS.get(said.get("state", "unsure"), PALETTE[2])
        right.plot([100 * row.diff_low, 100 * row.diff_high], [y, y], color=colour, lw=3, solid_capstyle="butt")
        solid = row.verdict == "unlikely to be noise"
        right.plot(100 * row.difference, y, "o", ms=11, color=colour, markerfacecolor=colour if solid else "white",
                   markeredgewidth=2)
        # the words under the measure's name, beside the plot: clear of the ranges, their dots and the
        # zero line whatever the difference
        note = said.get("note", f"{points(row.difference)} points ({row.verdict})")
        right.text(0, y, f"{state_label(said.get('state', 'unsure'))} {note}", transform=under_name,
                   va="top", ha="right", fontsize=11, color=OKABE_ITO["black"])
    right.set_ylim(len(measures) - 0.5, -0.8)
    right.set_xlim(-105, 105)  # a difference of two rates lies within ±100 points
    right.set_xticks([-100, -50, 0, 50, 100])
    right.set_xlabel(f"{b} \u2212 {a} in points; which way is better for {b} is in each label")
    if title:
        fig.suptitle(title, fontsize=16, fontweight="bold")
    return fig


__all__ = ["comparison_chart", "comparison_frame"]
