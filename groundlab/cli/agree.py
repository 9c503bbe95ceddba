"""``groundlab agree``: the judge against the person's labels (the confusion matrix, agreement,
caught, false alarms, Cohen's kappa, the flip rate of repeated runs), against a previous judge's
verdicts claim by claim (``--baseline``), or a platform's rating beside both (``--against``). Its
options are read in :mod:`.measure`, which adds the measuring commands."""

from __future__ import annotations

import argparse
import json
from typing import List

from ..core.records import GroundlabError
from ..core.stats import percent
from .common import dry_run, emit, error_lines, evaluate_inputs, rate_row, table


def cmd_agree(args: argparse.Namespace) -> int:
    from ..core.metrics import disagreements, flip_rate
    from ..measure.summary import agree_summary

    from ..measure.judge_diff import claim_verdicts, judge_diff, read_baseline

    if args.dry_run:
        return dry_run(args)
    if args.against or args.grounded_at is not None:
        return _agree_against(args)
    baseline = read_baseline(args.baseline) if args.baseline else None  # before any judging
    source, ev = evaluate_inputs(args, runs=args.repeat)
    flips = None
    if args.repeat > 1:
        flips = flip_rate([run.claims for run in ev])
        ev = ev[0]
    a = agree_summary(ev)
    baseline_diff = judge_diff(ev.claims, baseline) if baseline is not None else None
    if args.json:
        if flips is not None:
            r = flips.rate
            a["repeat"] = {"runs": args.repeat, "flipped": r.count, "claims": r.total,
                           "rate": r.rate if r.total else None, "errors": flips.errors}
        a["claims"] = claim_verdicts(ev.claims)
        if baseline_diff is not None:
            a["baseline"] = baseline_diff.to_dict()
        emit(json.dumps(a))
        return 0
    if flips is not None:
        r = flips.rate
        emit(f"groundlab agree: judge {a['judge']} run {args.repeat} times (no cache): {r.count} of {r.total} "
              f"claims changed verdict between runs, flip rate {percent(r.rate) if r.total else 'n/a'}"
              + (f" (95% range {percent(r.low)}\u2013{percent(r.high)})" if r.total else "")
              + (f"; {flips.errors} claims could not be judged in every run" if flips.errors else "")
              + "".join(f"\n  {f.case_id} claim {f.claim}: {' / '.join(map(str, f.verdicts))}"
                        for f in flips.flipped.itertuples()) + "\n")
    n = a["agreement"]["claims"]
    head = f"groundlab agree: judge {a['judge']} against the person's labels ({source})"
    if not n:
        emit(f"{head}\n\nno labeled cases were found ({a['unlabeled_cases']} unlabeled); add \"labels\" "
              "to some cases to check the judge." + (f"\n\n{_baseline_text(baseline_diff)}"
                                                     if baseline_diff is not None else ""))
        return 0
    from ..core.stats import Rate

    def line(name: str, count: int, total: int, note: str) -> List[str]:
        return rate_row(name, Rate(count, total), "", note, note)

    matrix = [["person \\ judge"] + a["order"]] + [[v] + [str(x) for x in row] for v, row in zip(a["order"], a["confusion"])]
    stats = [["measure", "rate", "count", "95% range", ""],
             line("agreement", a["agreement"]["agree"], n, "same verdict as the person"),
             line("caught", a["caught"]["caught"], a["caught"]["hallucinated"],
                  "hallucinated claims the judge also flagged"),
             line("false alarms", a["false_alarms"]["flagged"], a["false_alarms"]["supported"],
                  "supported claims the judge flagged")]
    kappa = "n/a" if a["kappa"] is None else f"{a['kappa']:.2f}"
    parts = [head, "", table(matrix, right=(1, 2, 3)), "", table(stats), "", f"Cohen's kappa: {kappa}"]
    if a["unlabeled_cases"]:
        parts.append(f"unlabeled cases skipped: {a['unlabeled_cases']}")
    errors = error_lines(ev)
    if errors:
        parts.append(f"judge errors, left out of the agreement:{errors}")
    disagree = disagreements(ev.claims)
    if len(disagree):
        parts += ["", "disagreements:"]
        for d in disagree.itertuples():
            parts.append(f"  {d.case_id} claim {d.claim}: person {d.person}, judge {d.judge} ({d.reason})")
    if baseline_diff is not None:
        parts += ["", _baseline_text(baseline_diff)]
    emit("\n".join(parts))
    return 0


def _agree_against(args: argparse.Namespace) -> int:
    """``agree --against sap:METRIC``: the platform's rating beside people's labels and the judge."""
    from ..core.platform import parse_against
    from ..present.platform import comparison_of, comparison_text

    if not args.against:
        raise GroundlabError("--grounded-at applies with --against sap:METRIC; add --against.")
    given = [o for o, v in (("--repeat", args.repeat > 1), ("--baseline", args.baseline)) if v]
    if given:
        raise GroundlabError(f"{given[0]} does not apply with --against; run them apart.")
    source_name, metric = parse_against(args.against)
    source, ev = evaluate_inputs(args)
    c = comparison_of(ev, metric, source=source_name, grounded_at=args.grounded_at)
    emit(json.dumps(c.to_dict()) if args.json else comparison_text(c, source))
    return 0


def _baseline_text(diff) -> str:
    """The baseline section of ``agree``: what moved, claim by claim."""
    from ..measure.compare import SHOWN_IDS
    from ..measure.paired import p_text, points
    from ..core.identity import identity_text

    b = diff.baseline
    c = diff.counts()
    who = identity_text(b.identity) if b.identity else (f"judge {b.judge}" if b.judge else "judge not recorded")
    lines = [f"against the baseline {b.source} ({who}):",
             f"  {c['compared']} claims compared, verdict changed on {c['verdict_changed']}"
             + "".join(f"; {c[k]} {words}" for k, words in (("text_changed", "whose text changed (not compared)"),
                                                            ("new", "new"), ("gone", "gone")) if c[k])]
    m = diff.agreement
    if m.units:
        before, now = m.a, m.b
        same = before.count == now.count and (c["now_agree"] or c["no_longer_agree"])
        lines.append(
            f"  agreement with the person: {before.count}/{before.total} ({percent(before.rate)}) before, "
            f"{now.count}/{now.total} ({percent(now.rate)}) now; {c['now_agree']} now agree, "
            f"{c['no_longer_agree']} no longer agree" + (": the same totals on different claims" if same else ""))
        lines.append(f"  difference {points(m.difference)} points, 95% range {points(m.low)} to "
                     f"{points(m.high)} (Newcombe, paired); McNemar exact {p_text(m.p_value)}: {m.verdict}")
    else:
        lines.append("  no labeled claim was compared, so agreement with the person cannot move")
    if c["label_changed"]:
        lines.append(f"  {c['label_changed']} claims carry another label than in the baseline; the current one is used")
    changed = diff.changed()
    if len(changed):
        lines.append("  changed verdicts:")
        for r in changed.itertuples():
            person = f"person {r.label}: {r.move}" if r.label is not None else "unlabeled"
            lines.append(f"    {r.case_id} claim {r.claim}: {r.before or 'error'} -> {r.after or 'error'} ({person})")
    unpaired = diff.claims[diff.claims["status"] != "compared"]
    for status, rows in unpaired.groupby("status", sort=False):
        shown = rows.head(SHOWN_IDS * 2)
        lines.append(f"  {status}: {len(rows)} claim{'s' * (len(rows) != 1)}")
        for r in shown.itertuples():
            if status == "text changed":
                lines.append(f"    {r.case_id} claim {r.claim}: was {r.baseline_text!r}, now {r.text!r}")
            else:
                lines.append(f"    {r.case_id} claim {r.claim}: {r.text if status == 'new' else r.baseline_text!r}")
        if len(rows) > len(shown):
            lines.append(f"    \u2026 and {len(rows) - len(shown)} more (see --json)")
    return "\n".join(lines)
