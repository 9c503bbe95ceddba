"""The platform's rating beside people's labels and groundlab's judge, as a person reads it: the
terminal text of ``groundlab agree --against``, the notebook's table, and the steering report's
section (Markdown, which the report's page turns into HTML; :func:`comparison_html` for a page of
one's own). The figures are :mod:`groundlab.core.platform`'s; every text that comes from a case,
a metric name or a platform's explanation is escaped for Markdown and HTML.
"""

from __future__ import annotations

import html
from dataclasses import replace
from typing import TYPE_CHECKING, List, Optional, Sequence

import pandas as pd

from ..core import formatting as fmt
from ..core.platform import FLAGS, PlatformComparison, compare_platform, groundedness_metrics
from ..core.records import GroundlabError, one_line, visible
from ..core.stats import Rate

if TYPE_CHECKING:  # pragma: no cover
    from ..measure.evaluate import Evaluation


def comparison_of(evaluation: "Evaluation", metric: str, *, source: Optional[str] = None,
                  grounded_at: Optional[float] = None) -> PlatformComparison:
    """:func:`groundlab.core.platform.compare_platform` on a judged run."""
    return compare_platform(evaluation.claims, evaluation.cases, metric, source=source, grounded_at=grounded_at,
                            judge=evaluation.judge)


def _rate(rate: Rate) -> str:
    return f"{rate.count}/{rate.total} = {fmt.percent(rate.rate)}" if rate.total else "n/a (none)"


def _range(rate: Rate) -> str:
    return fmt.percent_range(*rate.interval) if rate.total else ""


def _rows(c: PlatformComparison) -> List[tuple]:
    """``(rater, unit, caught, false alarms)`` of the three raters, on the same labeled answers."""
    judge = f"groundlab {c.judge} judge".replace("  ", " ")
    return [(c.metric, "answers", c.platform.caught, c.platform.false_alarms),
            (judge, "answers", c.judge_answers.caught, c.judge_answers.false_alarms),
            (judge, "claims", c.judge_claims.caught, c.judge_claims.false_alarms)]


def scale_sentence(c: PlatformComparison) -> str:
    scale = f" on its scale of {c.scale[0]:g} to {c.scale[1]:g}" if c.scale else ""
    return (f"not grounded: {c.metric} rating below {c.grounded_at:g}{scale}; groundlab: an answer with a claim "
            "contradicted or unsupported; people: an answer with a claim they labeled so")


def left_out_sentence(c: PlatformComparison) -> str:
    """What the comparison leaves out, in one sentence ("" when nothing)."""
    parts = []
    if c.platform_errors:
        shown = "; ".join(f"{one_line(cid)}: {one_line(str(why).strip())}" for cid, why in c.platform_errors[:3])
        parts.append(f"{fmt.count(len(c.platform_errors), 'answer')} the platform's judge could not rate ({shown})")
    if c.unrated:
        parts.append(f"{fmt.count(c.unrated, 'case')} without a {c.metric} rating")
    if c.abstained:
        parts.append(f"{fmt.count(c.abstained, 'answer')} that abstained (no claim to compare)")
    if c.judge_errors:
        parts.append(f"{fmt.count(c.judge_errors, 'answer')} with a claim groundlab's judge could not decide")
    if c.platform is not None and c.unlabeled:
        parts.append(f"{fmt.count(c.unlabeled, 'answer')} without people's labels")
    return ("left out: " + "; ".join(parts) + ".") if parts else ""


def _flag(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value) or value is pd.NA:
        return "unlabeled"
    return FLAGS[int(bool(value))]


def disagreement_lines(c: PlatformComparison) -> List[str]:
    """One line per answer the platform and groundlab rate differently, with the claim that decides."""
    lines = []
    for r in c.disagreements().itertuples():
        # every value from the cases or the platform is escaped on its own (:func:`~groundlab.core.records.one_line`): a line
        # break inside a case id or an explanation must not start a line of the output
        platform = f"{one_line(c.metric)} {r.rating:g} ({FLAGS[int(r.platform)]})"
        if r.groundlab:
            decides = f"claim {int(r.claim)} {one_line(r.claim_text, quoted=True)} {r.verdict}" + (f" ({one_line(r.reason)})" if r.reason else "")
        else:
            decides = "every claim supported" + (f"; the platform says: {one_line(str(r.explanation).strip())}"
                                                 if r.explanation else "")
        person = "" if c.platform is None else f"; people: {_flag(r.person)}"
        lines.append(f"{one_line(r.case_id)}: {platform}, groundlab {FLAGS[int(r.groundlab)]}: {decides}{person}")
    return lines


def _text_table(rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    widths = [max(len(str(r[k])) for r in rows) for k in range(len(rows[0]))]
    return "\n".join("  ".join(str(c).rjust(w) if k in right else str(c).ljust(w)
                               for k, (c, w) in enumerate(zip(row, widths))).rstrip() for row in rows)


def comparison_text(c: PlatformComparison, source: str = "") -> str:
    """The terminal text of ``groundlab agree --against``: each name and text from outside (the
    metric, the file, a case id, an explanation) escaped on its own, so none can forge a line."""
    c = replace(c, metric=one_line(c.metric), source=one_line(c.source), judge=one_line(c.judge))
    source = one_line(source) if source else source
    against = "people's labels and " if c.platform is not None else ""
    head = (f"groundlab agree: {c.metric} ({c.source}) against {against}groundlab's {c.judge} judge"
            + (f" ({source}; {fmt.count(len(c.answers), 'answer')} rated and judged)" if source else ""))
    parts = [head, scale_sentence(c)]
    if c.platform is not None:
        m = c.platform.confusion
        parts += ["", _text_table([[f"people \\ {c.metric}", *FLAGS], [FLAGS[0], str(m[0][0]), str(m[0][1])],
                                   [FLAGS[1], str(m[1][0]), str(m[1][1])]], right=(1, 2))]
        rows = [["rater", "unit", "caught", "95% range", "false alarms", "95% range"]]
        rows += [[name, unit, _rate(caught), _range(caught), _rate(alarms), _range(alarms)]
                 for name, unit, caught, alarms in _rows(c)]
        parts += ["", _text_table(rows), "", c.headline() + "."]
    else:
        parts += ["", c.headline() + "; label the answers ('groundlab label export') to calibrate the platform's "
                                     "rating."]
    left = left_out_sentence(c)
    if left:
        parts.append(left)
    lines = disagreement_lines(c)
    parts += ["", f"where {c.metric} and groundlab differ ({len(lines)}):" if lines else
              f"{c.metric} and groundlab rate every answer alike."]
    parts += [f"  {line}" for line in lines]
    return visible("\n".join(parts))


def side_by_side(evaluation: Optional["Evaluation"], metric: str, *, grounded_at: Optional[float] = None,
                 source: Optional[str] = None) -> pd.DataFrame:
    """The three raters on the same labeled answers, one row each (notebook 02): ``rater``,
    ``unit``, ``caught``, ``hallucinated``, ``caught_rate`` with its range, ``false_alarms``,
    ``grounded``, ``false_alarm_rate`` with its range. Empty without a ``metric`` or labels."""
    columns = ["rater", "unit", "caught", "hallucinated", "caught_rate", "caught_low", "caught_high",
               "false_alarms", "grounded", "false_alarm_rate", "false_alarm_low", "false_alarm_high"]
    if evaluation is None or not metric:
        return pd.DataFrame(columns=columns)
    c = comparison_of(evaluation, metric, source=source, grounded_at=grounded_at)
    if c.platform is None:
        return pd.DataFrame(columns=columns)
    rows = []
    for name, unit, caught, alarms in _rows(c):
        rows.append([name, unit, caught.count, caught.total, caught.rate, *caught.interval, alarms.count,
                     alarms.total, alarms.rate, *alarms.interval])
    return pd.DataFrame(rows, columns=columns)


def disagreement_frame(evaluation: Optional["Evaluation"], metric: str, *, grounded_at: Optional[float] = None,
                       source: Optional[str] = None) -> pd.DataFrame:
    """The answers the platform and groundlab rate differently (notebook 02), with the claim that decides."""
    columns = ["case_id", "rating", "platform", "groundlab", "person", "claim", "claim_text", "verdict", "reason",
               "explanation"]
    if evaluation is None or not metric:
        return pd.DataFrame(columns=columns)
    frame = comparison_of(evaluation, metric, source=source, grounded_at=grounded_at).disagreements()
    for name in ("platform", "groundlab"):
        frame[name] = [FLAGS[int(v)] for v in frame[name]]
    frame["person"] = [_flag(v) for v in frame["person"]]
    return frame[columns]


def comparison_markdown(c: PlatformComparison) -> List[str]:
    """The comparison as Markdown lines: the sentence, the three raters, what was left out, and the
    answers where the platform and groundlab differ (every outside text escaped)."""
    esc = fmt.markdown_text
    lines = [f"- **{esc(c.metric)}** ({esc(c.source)}): {esc(c.headline())}.", f"  {esc(scale_sentence(c))}."]
    if c.platform is not None:
        lines += ["", "| rater | unit | caught | 95% range | false alarms | 95% range |",
                  "| --- | --- | --- | --- | --- | --- |"]
        lines += [f"| {esc(name)} | {unit} | {_rate(caught)} | {_range(caught)} | {_rate(alarms)} | {_range(alarms)} |"
                  for name, unit, caught, alarms in _rows(c)]
        lines.append("")
    left = left_out_sentence(c)
    if left:
        lines.append(f"- {esc(left)}")
    differ = disagreement_lines(c)
    if differ:
        lines.append(f"- Where {esc(c.metric)} and groundlab differ:")
        lines += [f"  - {esc(line)}" for line in differ[:10]]
        if len(differ) > 10:
            lines.append(f"  - and {len(differ) - 10} more ('groundlab agree --against' lists them all)")
    return lines + [""]


def comparison_html(c: PlatformComparison) -> str:
    """The comparison as an HTML fragment (every outside text escaped)."""
    esc = html.escape
    out = [f"<p><strong>{esc(c.metric)}</strong> ({esc(c.source)}): {esc(c.headline())}.</p>"]
    if c.platform is not None:
        out.append("<table><thead><tr><th>rater</th><th>unit</th><th>caught</th><th>95% range</th>"
                   "<th>false alarms</th><th>95% range</th></tr></thead><tbody>")
        for name, unit, caught, alarms in _rows(c):
            out.append(f"<tr><td>{esc(name)}</td><td>{unit}</td><td>{esc(_rate(caught))}</td>"
                       f"<td>{esc(_range(caught))}</td><td>{esc(_rate(alarms))}</td><td>{esc(_range(alarms))}</td></tr>")
        out.append("</tbody></table>")
    left = left_out_sentence(c)
    if left:
        out.append(f"<p>{esc(left)}</p>")
    differ = disagreement_lines(c)
    if differ:
        out.append("<ul>" + "".join(f"<li>{esc(line)}</li>" for line in differ) + "</ul>")
    return "\n".join(out)


def report_lines(evaluation: "Evaluation") -> List[str]:
    """The steering report's section on the platform's metric: for each rated metric that speaks of
    groundedness (:func:`groundlab.core.platform.groundedness_metrics`), the platform's rating beside
    people's labels and groundlab's judge on the same answers. ``[]`` when the cases carry no such
    rating, so a report of cases from elsewhere is unchanged."""
    metrics = groundedness_metrics(evaluation.cases)
    if not metrics:
        return []
    lines = ["### The platform's metric beside people and groundlab", "",
             "The platform rates each answer as a whole; groundlab checks each claim. Both are read as one flag per "
             "answer and counted against people's labels on the same answers.", ""]
    for metric in metrics:
        try:
            lines += comparison_markdown(comparison_of(evaluation, metric))
        except GroundlabError as exc:  # a metric whose scale is unknown is named, not a failed report
            lines += [f"- **{fmt.markdown_text(metric)}**: {fmt.markdown_text(str(exc))}", ""]
    return lines


__all__ = ["comparison_html", "comparison_markdown", "comparison_of", "comparison_text", "disagreement_frame",
           "disagreement_lines", "left_out_sentence", "report_lines", "scale_sentence", "side_by_side"]
