"""The one-page report for a steering committee, in Markdown."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Sequence

from .evaluate import Evaluation
from .io import PathLike, check_output, write_atomic
from .records import GroundlabError
from .metrics import citations_undecided, risk_weighted_score
from .stats import Rate, percent
from .summary import agree_summary, rates, score_summary

#: First line of every report groundlab writes; a file that starts otherwise is not replaced
#: without ``--force``, since it may be a person's own document.
MARKER = "<!-- groundlab report -->"



def rate_line(rate: Rate, noun: str) -> str:
    """``60% (6 of 10 answered; 95% range 31%–83%)``, or why the rate is not available."""
    if not rate.total:
        return f"n/a (no {noun})"
    low, high = rate.interval
    return f"{percent(rate.rate)} ({rate.count} of {rate.total} {noun}; 95% range {percent(low)}\u2013{percent(high)})"


def steering_report(evaluation: Evaluation, penalty: float = 1.0, source: str = "") -> str:
    """The one-page steering report as Markdown text."""
    s = score_summary(evaluation, penalty)
    undecided = citations_undecided(evaluation.claims)
    a = agree_summary(evaluation)
    r = rates(evaluation)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    flagged = s["contradicted"] + s["unsupported"]
    severity = (f"{s['contradicted']} contradicted and {s['unsupported']} unsupported of {s['claims']} claims "
                f"({percent(s['contradicted'] / flagged) if flagged else 'n/a'} of the problems are contradictions, "
                "usually the worse kind: the answer says the opposite of a passage).")
    lines = [
        MARKER,
        "# Groundedness report",
        "",
        f"Judge `{s['judge']}` on {s['cases']} cases{f' from `{source}`' if source else ''}, {stamp}.",
        "",
        f"1. **Hallucination rate per answer:** {rate_line(r['hallucination rate'], 'answered cases')}."
        + (f" By the person's labels: {rate_line(r['hallucination rate by the person'], 'labeled answers')}."
           if s["hallucination_rate_by_person"] else " No answer carries a person's labels to compare with."),
        f"2. **Severity:** {severity}",
        f"3. **Abstention:** on unanswerable questions {rate_line(r['abstention'], 'unanswerable cases')}; "
        f"false abstention on answerable ones {rate_line(r['false abstention'], 'answerable cases')}.",
    ]
    if a["agreement"]["claims"]:
        caught = Rate(a["caught"]["caught"], a["caught"]["hallucinated"])
        alarms = Rate(a["false_alarms"]["flagged"], a["false_alarms"]["supported"])
        lines.append(
            f"4. **How the judge was checked:** against a person's labels on {a['agreement']['claims']} claims "
            f"it caught {rate_line(caught, 'hallucinated claims')} and raised false alarms on "
            f"{rate_line(alarms, 'supported claims')} (agreement {a['agreement']['agree']}/"
            f"{a['agreement']['claims']}" + (f", Cohen's kappa {a['kappa']:.2f}" if a["kappa"] is not None else "")
            + "). Hallucinated claims the judge misses are missing from the rate above too.")
    else:
        lines.append("4. **How the judge was checked:** not yet: no case carries a person's labels. "
                     "Label a sample before trusting these rates (see `groundlab agree`).")
    if s["errors"]:
        lines.append(f"   The judge could not decide {s['errors']} claims; they are left out of every rate.")
    o = s["outcomes"]
    lines += [
        f"5. **The control:** {flagged} claims in {r['hallucination rate'].count} answers could not be backed "
        "by the passages. Decide what the product does with such a claim: hide it, flag it to the user, or "
        "route the answer to a person. Had the assistant declined every answer the judge flags, its "
        f"risk-weighted score at penalty {s['penalty']:g} would be "
        f"{risk_weighted_score(evaluation.cases, s['penalty'], withhold_flagged=True):+g} instead of "
        f"{s['risk_weighted_score']:+g}.",
        "",
        f"Outcomes: {o['correct']} correct, {o['abstained']} abstained, {o['wrong']} wrong. "
        f"Risk-weighted score {s['risk_weighted_score']:+g} with penalty {s['penalty']:g} "
        "(correct \u2212 penalty \u00d7 wrong; an abstention scores 0).",
        (f"Citations: recall {rate_line(r['citation recall'], 'supported claims')}, "
         f"precision {rate_line(r['citation precision'], 'citations')}." if r["citation precision"].total
         else "Citations: every citation check was left undecided." if undecided
         else "Citations: the answers cite no passage, so citation recall and precision do not apply.")
        + (f" {undecided} cited claims are left out: the judge found them supported without "
           "naming a passage behind them, or could not judge their cited passages."
           if undecided else ""),
        "",
    ]
    return "\n".join(lines)


def check_report_target(path: Path, force: bool = False, inputs: Sequence[Optional[PathLike]] = ()) -> None:
    """Refuse to write a report over a file groundlab did not write (it may be a person's own),
    unless ``force``; over one of the run's ``inputs``, or a folder, even with ``force``."""
    path = Path(path)
    check_output(path, force=True, inputs=[i for i in inputs if i])
    if path.exists() and not force:
        with open(path, encoding="utf-8", errors="replace") as fh:
            first = fh.readline().strip()
        if first != MARKER:
            raise GroundlabError(f"{path} exists and is not a groundlab report; nothing was written "
                                 "(choose another file or pass --force to replace it).")


def write_report(path: Path, text: str, force: bool = False,
                 inputs: Sequence[Optional[PathLike]] = ()) -> Path:
    """Write a report atomically (temporary file, then rename), after :func:`check_report_target`."""
    check_report_target(path, force, inputs)
    return write_atomic(path, text)
