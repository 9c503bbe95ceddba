"""``groundlab score`` and ``merge``: judge every claim of the cases (or keep counts only, streaming
the input, here or on a Dask cluster) and print the figures, the gate's outcome and the severity
by kind and process; add up the counts of parts scored apart. Their options are read in
:mod:`.measure`, which adds the measuring commands."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Dict, List

from ..core.records import GroundlabError, visible
from ..core.stats import check_cost, percent
from .common import dry_run, emit, error_lines, evaluate_inputs, input_paths, make_judge, rate_row, splitter_from, table


def cmd_score(args: argparse.Namespace) -> int:
    """``groundlab score``; a SIGTERM or SIGHUP ends it as Ctrl-C does: its workers with it, and
    nothing half written left behind."""
    from .common import stop_on_signals

    with stop_on_signals():
        return _score(args)


def _score(args: argparse.Namespace) -> int:
    from ..core.io import plural

    penalty = _penalty(args)
    from ..production.gate import check_names
    from ..measure.summary import SCORE_FIGURES

    conditions = check_names(args.fail_if, SCORE_FIGURES)  # a mistake in a gate costs no judging
    if args.dry_run:
        return dry_run(args)
    # every file the command reads, which no output may replace, even with --force
    inputs = tuple(input_paths(args, quiet=True)) + tuple(
        getattr(args, name, None) for name in ("targets", "judge_config", "price_table", "model_table"))
    if args.report:
        from ..present.report import check_report_target

        check_report_target(Path(args.report), args.force, inputs=inputs)
    frames = _frame_outputs(args, inputs)
    targets = None
    if args.targets:
        from ..production.targets import load_targets

        targets = load_targets(args.targets)
        check_cost(penalty, targets.weights)  # before anything is judged

    if args.counts_out:
        from ..core.io import check_output

        check_output(args.counts_out, args.force, [i for i in inputs if i])
        if any(args.counts_out == path for _, path in frames) or args.counts_out == args.report:
            raise GroundlabError(f"{args.counts_out} is named for two outputs; give --counts-out its own file.")
    if args.scheduler and args.engine != "dask":
        raise GroundlabError("--scheduler names a Dask cluster, which only --engine dask uses; add --engine dask.")
    if args.engine == "dask":
        from ..engines import ONE_MACHINE

        if args.judge in ONE_MACHINE:
            raise GroundlabError(f"--judge {args.judge} cannot run on a cluster: {ONE_MACHINE[args.judge]}.")
    judge = make_judge(args)
    if _counts_only(args, targets, judge):
        return _score_counts(args, judge, penalty, conditions, frames, inputs)
    if args.engine == "dask":
        raise GroundlabError("--engine dask keeps counts only, so it does not write --report or --cases-out, nor "
                             "check --targets or run the cascade judge; drop those, or run without --engine dask.")
    from ..core.metrics import citations_undecided
    from ..present.report import steering_report, write_report
    from ..measure.summary import rates, score_summary

    source, ev = evaluate_inputs(args, judge=judge)
    if args.counts_out:
        from ..measure.counts import counts_of, write_counts

        write_counts(counts_of(ev), args.counts_out, force=args.force, inputs=inputs)
    positional = int(ev.cases["cites_by_position"].sum()) if "cites_by_position" in ev.cases else 0
    if positional:
        print(f"groundlab: note: {plural(positional, 'case cites', 'cases cite')} passages by number ([1], [^2]) "
              "while the passages carry other ids; each number is read as the passage at that position "
              "('groundlab check' lists them).", file=sys.stderr)
    _warn_without_passages(ev)
    summary = score_summary(ev, penalty)
    failed, undecided = _gate(conditions, summary)
    breakdown = not args.json or args.breakdown or targets is not None
    severity = _severity(ev, penalty, targets, judge, breakdown, summary)
    if args.report:
        write_report(Path(args.report), steering_report(ev, penalty, source, targets), force=args.force)
    if frames:
        from ..core.frames import write_frame, write_frame_csv

        for name, path in frames:
            if path == "-":
                write_frame_csv(getattr(ev, name), sys.stdout)
                continue
            write_frame(getattr(ev, name), path, force=args.force, inputs=inputs)
            print(f"groundlab: wrote the {name[:-1]} frame ({len(getattr(ev, name))} rows) to {path}", file=sys.stderr)
    if args.json:
        # New keys only when asked for (the cascade's with that judge): a plain run's keys stay as they were.
        keys = ["by_kind", "by_process", "targets", "weighted_risk_score", "cascade"]
        emit(json.dumps(dict(summary, **{k: severity[k] for k in keys if severity[k] is not None})))
    else:
        from ..present.report import apart_lines

        text = (_score_text(summary, rates(ev), source, citations_undecided(ev.claims),
                            answerable_unknown=bool(len(ev.cases)) and bool(ev.cases["answerable"].isna().all()))
                + error_lines(ev) + "".join("\n" + line for line in apart_lines(summary, markdown=False))
                + _severity_text(severity, ev, penalty, args.targets))
        if any(path == "-" for _, path in frames):  # stdout carries the frame
            print(visible(text), file=sys.stderr)
        else:
            emit(text)
    if args.report:
        print(f"groundlab: wrote the steering report to {args.report}", file=sys.stderr)
    if undecided is not None:  # the figures are written; the gate itself cannot decide
        raise undecided
    status = _gate_outcome(conditions, failed)
    if targets is not None and not severity["targets"]["met"]:
        t = severity["targets"]
        if t["failed"]:
            print(f"groundlab: {t['failed']} of {t['count']} targets in {args.targets} not met.", file=sys.stderr)
            status = 1
        else:  # nothing missed, but a target rests on a figure not measured yet: the decision waits for labels
            raise GroundlabError(
                f"{t['not_measured']} of {t['count']} targets in {args.targets} cannot be decided yet: the hallucination "
                "rate is people's, and no answer carries their labels; label the answers the report asks for "
                "(groundlab run writes the sheet, docs/labeling.md), then score again.")
    return status


def _penalty(args: argparse.Namespace) -> float:
    """The penalty --penalty or --confidence-target sets (default 1)."""
    if args.confidence_target is not None:
        from ..core.metrics import penalty_for_confidence

        return penalty_for_confidence(args.confidence_target)
    penalty = 1.0 if args.penalty is None else args.penalty
    if penalty < 0 or math.isnan(penalty) or math.isinf(penalty):
        raise GroundlabError(f"--penalty must be 0 or more, not {args.penalty:g}; a wrong answer costs "
                             "that many correct ones (3 matches a 75% confidence target).")
    check_cost(penalty)
    return penalty


def cmd_merge(args: argparse.Namespace) -> int:
    from ..measure.counts import merge_counts, read_counts, write_counts
    from ..production.gate import check_names
    from ..measure.summary import SCORE_FIGURES

    penalty = _penalty(args)
    conditions = check_names(args.fail_if, SCORE_FIGURES)
    if args.out:
        from ..core.io import check_output

        check_output(args.out, args.force, args.counts)
    parts = [read_counts(path) for path in args.counts]
    merged = merge_counts(parts, [str(p) for p in args.counts])
    if args.out:
        write_counts(merged, args.out, force=args.force, inputs=args.counts)
        print(visible(f"groundlab: wrote the merged counts to {args.out}"), file=sys.stderr)
    from ..core.io import plural

    print(visible(f"groundlab: merged {plural(merged.shards, 'part', 'parts')} from {plural(len(parts), 'file', 'files')}: "
                  f"{merged.count('cases'):,} cases, {merged.count('claims'):,} claims, judge {merged.judge}."),
          file=sys.stderr)
    source = f"{plural(merged.shards, 'part', 'parts')} merged"
    return print_counts(merged, source, penalty, conditions, args.json, args.breakdown)


def _counts_only(args: argparse.Namespace, targets, judge) -> bool:
    """Whether ``score`` can keep counts only, streaming its input: nothing asks for the frames
    (--report, --cases-out, --claims-out -, --targets, the cascade's report of its flagged answers)."""
    return (not args.report and not args.cases_out and args.claims_out != "-" and targets is None
            and not hasattr(judge, "report"))


def _score_counts(args: argparse.Namespace, judge, penalty: float, conditions, frames, inputs) -> int:
    """``score`` keeping counts only (:func:`groundlab.evaluate.count_file`, or a Dask cluster)."""
    from ..core.io import display_name, is_regular_file
    from ..judges import nothing_judged
    from .common import spending

    path, passages = input_paths(args)
    source = display_name(path)
    claims_out = args.claims_out
    with spending(judge):
        if args.engine == "dask":
            from ..engines.dask import score_file_on_cluster
            from .options import judge_kwargs

            guarded = bool(getattr(args, "policy", None) or getattr(args, "mask", False)
                           or getattr(args, "mask_name", None))
            counts = score_file_on_cluster(path, passages, args.judge, args.scheduler, splitter=splitter_from(args),
                                           options=judge_kwargs(args), claims_out=claims_out, guarded=guarded)
        else:
            import os

            from ..core._gc import pause_for_good
            from ..measure.evaluate import count_file

            pause_for_good()  # this process ends once the counts are printed
            big = is_regular_file(path) and Path(path).stat().st_size > 2_000_000
            counts = count_file(path, passages, judge, splitter=splitter_from(args),
                                workers=args.workers if args.workers is not None else (os.cpu_count() or 1),
                                progress=sys.stderr.isatty() and big, claims_out=claims_out,
                                force=True)  # checked with --force above, with the other outputs
        n_claims, failed_claims = counts.count("claims"), counts.count("judge_errors")
        if n_claims and failed_claims == n_claims:
            stop = nothing_judged(counts.judge, [e for _, _, e in counts.errors] or ["no reason given"])
            if stop:
                raise GroundlabError(stop)
    if claims_out:
        print(f"groundlab: wrote the claim frame ({counts.count('claims')} rows) to {claims_out}", file=sys.stderr)
    if args.counts_out:
        from ..measure.counts import write_counts

        counts.sources = [source]
        write_counts(counts, args.counts_out, force=args.force, inputs=inputs)
        print(f"groundlab: wrote the counts ({counts.count('cases')} cases) to {args.counts_out}", file=sys.stderr)
    return print_counts(counts, source, penalty, conditions, args.json, args.breakdown)


def print_counts(counts, source: str, penalty: float, conditions, as_json: bool, breakdown: bool) -> int:
    """Print the figures of some counts as ``score`` does (``--json``: one JSON object) and say how
    the ``--fail-if`` conditions came out; the exit status."""
    from ..core.io import plural

    positional = counts.count("cites_by_position")
    if positional:
        print(f"groundlab: note: {plural(positional, 'case cites', 'cases cite')} passages by number ([1], [^2]) "
              "while the passages carry other ids; each number is read as the passage at that position "
              "('groundlab check' lists them).", file=sys.stderr)
    bare = counts.count("without_passages")
    if bare:
        shown = ", ".join(map(str, counts.without_passages)) + (", ..." if bare > len(counts.without_passages) else "")
        print(visible(f"groundlab: warning: {plural(bare, 'answered case has', 'answered cases have')} no retrieved "
                      f"passages ({shown}), so {'its' if bare == 1 else 'their'} claims are all unsupported; "
                      "give each case the passages the assistant was given (\"retrieved\"), or 'groundlab import' "
                      "the log that holds them."), file=sys.stderr)
    summary = counts.summary(penalty)
    failed, undecided = _gate(conditions, summary)
    show_breakdown = not as_json or breakdown
    severity = dict(counts.breakdown() if show_breakdown else {"by_kind": None, "by_process": None},
                    targets=None, weighted_risk_score=None, cascade=None, cascade_lines=None)
    if as_json:
        keys = ["by_kind", "by_process"]
        emit(json.dumps(dict(summary, **{k: severity[k] for k in keys if severity[k] is not None})))
    else:
        errors = "".join(f"\n  {case_id} claim {number}: {error}" for case_id, number, error in counts.errors)
        apart_lines = lambda summary, markdown: []  # noqa: E731 - nothing counted apart
        if "held_back" in summary or "incidents" in summary:
            from ..present.report import apart_lines
        text = (_score_text(summary, counts.rates(), source, counts.count("citations_undecided"),
                            answerable_unknown=bool(counts.count("cases")) and not counts.count("answerable_known"))
                + errors + "".join("\n" + line for line in apart_lines(summary, markdown=False))
                + _severity_text(severity, None, penalty, None))
        emit(text)
    if undecided is not None:  # the figures are written; the gate itself cannot decide
        raise undecided
    return _gate_outcome(conditions, failed)


def _gate(conditions, summary) -> tuple:
    """The ``--fail-if`` conditions that hold on ``summary``, and the error of one that cannot be
    decided (an undefined figure), raised once the figures are written: a CI step keeps its JSON
    and the sentence saying why the gate cannot decide."""
    from ..production.gate import failing

    try:
        return failing(conditions, summary), None
    except GroundlabError as exc:
        return [], exc


def _gate_outcome(conditions, failed) -> int:
    """Say on stderr how the ``--fail-if`` conditions came out; 1 when any held."""
    if not conditions:
        return 0
    if failed:
        print(f"groundlab: gate failed: {len(failed)} of {len(conditions)} condition"
              f"{'s' * (len(conditions) != 1)} held:" + "".join(f"\n  {f}" for f in failed), file=sys.stderr)
        return 1
    print(f"groundlab: gate passed: none of {len(conditions)} condition{'s' * (len(conditions) != 1)} held "
          f"({'; '.join(map(str, conditions))}).", file=sys.stderr)
    return 0


def _json_number(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _severity(ev, penalty: float, targets, judge, breakdown: bool = True, summary=None) -> Dict:
    """The severity figures of a run: the breakdown by kind and process, the targets table (every
    target of the file, on the figures of ``summary``, the run's) and the weighted risk score (with
    ``targets``), and the cascade's report (with that judge)."""
    from ..core.metrics import hallucination_breakdown, weighted_risk_score

    frame = hallucination_breakdown(ev.claims, ev.cases) if breakdown else None
    rows = [] if frame is None else [{k: _json_number(v) for k, v in row.items()}
                                     for row in frame.to_dict("records")]
    out: Dict = {
        "by_kind": [{"kind": r["kind"], "hallucinated": r["hallucinated"], "claims": r["total"], "rate": r["rate"],
                     "low": r["low"], "high": r["high"]} for r in rows if r["by"] == "kind"],
        "by_process": [{"process": r["process"], "hallucinated": r["hallucinated"], "answered": r["total"],
                        "rate": r["rate"], "low": r["low"], "high": r["high"]} for r in rows if r["by"] == "process"],
        "targets": None, "weighted_risk_score": None, "cascade": None}
    if frame is None:
        out["by_kind"] = out["by_process"] = None
    if targets is not None:
        from ..production.targets import target_summary, target_table

        table = target_table(targets, ev.claims, ev.cases, summary)
        counted = target_summary(table)
        out["targets"] = {"file": targets.source, "met": counted["met"] == counted["count"], "count": counted["count"],
                          "failed": counted["failed"], "not_measured": counted["not_measured"],
                          "rows": [{k: _json_number(v) for k, v in row.items()} for row in table.to_dict("records")]}
        out["weighted_risk_score"] = {"score": weighted_risk_score(ev.claims, ev.cases, targets.weights, penalty),
                                      "penalty": penalty, "weights": targets.weights}
    out["cascade_lines"] = None
    if hasattr(judge, "report"):
        report = judge.report(ev)
        out["cascade"], out["cascade_lines"] = report.as_dict(), report.lines()
    return out


def _severity_text(severity: Dict, ev, penalty: float, targets_path) -> str:
    from ..core.stats import Rate
    from ..production.targets import limit_text

    parts = ["", "", "flagged by the judge, by kind of claim (a claim counts under every kind it states) and by "
             "process:"]
    rows = [["", "flagged", "count", "95% range"]]
    for r in severity["by_kind"]:
        rows.append(rate_row(f"kind {r['kind']}", Rate(r["hallucinated"], r["claims"]), "claims", "", ""))
    for r in severity["by_process"]:
        name = r["process"] if r["process"] is not None else "(no process)"
        rows.append(rate_row(f"process {name}", Rate(r["hallucinated"], r["answered"]), "answers", "", ""))
    parts.append(table(rows) if len(rows) > 1 else "no judged claims")
    t = severity.get("targets")
    if t is not None:
        parts += ["", f"targets ({targets_path}): met when the whole 95% range is on the right side of the limit"]
        rows = [["target", "limit", "rate", "count", "95% range", "status", ""]]
        for r in t["rows"]:
            if r["count"] is not None:
                cells = rate_row(r["target"], Rate(r["count"], r["total"]), r["unit"], r["note"], r["note"])
            elif r["rate"] is None or r["rate"] != r["rate"]:  # not measured yet: no figure to show
                cells = [r["target"], "n/a", "\u2014", "", r["note"]]
            else:  # people's rate weighed back from a labeled sample: a figure and its range, no count
                cells = [r["target"], percent(r["rate"]), f"{r['total']} {r['unit']}",
                         f"{percent(r['low'])}\u2013{percent(r['high'])}", r["note"]]
            rows.append([cells[0], limit_text(r)] + cells[1:4] + [r["status"], cells[4]])
        parts.append(table(rows, right=(1, 2)))
        met = t["count"] - t["failed"] - t["not_measured"]
        parts.append(f"targets met: {met} of {t['count']}"
                     + (f" ({t['not_measured']} not measured yet)" if t["not_measured"] else ""))
        w = severity["weighted_risk_score"]
        named = ", ".join(f"{k} {v:g}" for k, v in w["weights"].items())
        parts.append(f"weighted risk score, by the judge's verdicts: {w['score']:+g} (correct - {penalty:g} x each wrong answer's weight, the "
                     f"heaviest kind it got wrong; weights {named or 'all 1'}{', others 1' if named else ''})")
    lines = severity["cascade_lines"]
    if lines:
        parts += [""] + lines
    return "\n".join(parts)


def _frame_outputs(args: argparse.Namespace, inputs) -> List:
    """``[("claims", path), ("cases", path)]`` for the frames to write, each target checked first."""
    from ..core.frames import check_frame_target

    frames = [(name, path) for name, path in (("claims", args.claims_out), ("cases", args.cases_out)) if path]
    streamed = [f"--{name}-out" for name, path in frames if path == "-"]
    if len(streamed) > 1:
        raise GroundlabError("--claims-out and --cases-out both write to standard output (-); only one of them can, "
                             "so give the other a file name.")
    if streamed and args.json:
        raise GroundlabError(f"{streamed[0]} - and --json both write to standard output; give {streamed[0]} a file "
                             "name, or drop --json.")
    frames_to_files = [(name, path) for name, path in frames if path != "-"]
    targets = [path for _, path in frames_to_files] + ([args.report] if args.report else [])
    for k, path in enumerate(targets):
        if any(Path(path).resolve() == Path(other).resolve() for other in targets[:k]):
            raise GroundlabError(f"{path} is named for two outputs; give each of --report, --claims-out and "
                                 "--cases-out its own file.")
    for _, path in frames_to_files:
        check_frame_target(path, args.force, inputs)
    return frames


def _warn_without_passages(ev) -> None:
    """Say on stderr which answered cases were given no passages: every claim of theirs is
    unsupported, which is a gap in the data more often than in the answers."""
    from ..core.io import plural

    bare = ev.cases[(ev.cases["passages"] == 0) & (ev.cases["claims"] > 0)]
    if bare.empty:
        return
    shown = ", ".join(map(str, bare["case_id"].head(5))) + (", ..." if len(bare) > 5 else "")
    print(visible(f"groundlab: warning: {plural(len(bare), 'answered case has', 'answered cases have')} no retrieved "
                  f"passages ({shown}), so {'its' if len(bare) == 1 else 'their'} claims are all unsupported; "
                  "give each case the passages the assistant was given (\"retrieved\"), or 'groundlab import' "
                  "the log that holds them."), file=sys.stderr)


def _score_text(s: Dict, r: Dict, source: str, undecided_checks: int = 0, answerable_unknown: bool = False) -> str:
    from ..present.headline import flagged_words, hallucination_words, label_request_basis, risk_words

    def row(name: str, key: str, noun: str, note: str, missing: str):
        return rate_row(name, r[key], noun, note, missing)

    o = s["outcomes"]
    unknown = (f"no case says whether it could be answered ({o['correct'] + o['wrong']} answered, "
               f"{o['abstained']} abstained): set \"answerable\"") if answerable_unknown else ""

    undecided = "every citation check undecided (see below)" if undecided_checks else ""
    words = hallucination_words(s)
    h = s["hallucination_rate"]
    if words.measured:
        counted = (f"{h['hallucinated']}/{h['answered']} labeled" if h["basis"] == "people" else
                   f"{h['labeled']}/{h['answered']} labeled")
        headline = ["hallucination rate", words.figure, counted, words.range, words.how]
    else:
        headline = ["hallucination rate", "not measured yet", "", "", words.how]
    rows = [["measure", "rate", "count", "95% range", ""], headline,
            row("  flagged by the judge", "flagged by the judge", "answered",
                "answers with a claim the judge did not find supported", "no answered cases"),
            row("faithfulness", "faithfulness", "claims",
                f"contradicted {s['contradicted']}, unsupported {s['unsupported']}", "no claims"),
            row("citation recall", "citation recall", "supported", "",
                "no supported claims" if r["citation precision"].total else undecided or "no citations"),
            row("citation precision", "citation precision", "citations", "", undecided or "no citations"),
            row("abstention", "abstention", "unanswerable", "unanswerable questions declined",
                unknown or "no unanswerable cases (set \"answerable\": false)"),
            row("false abstention", "false abstention", "answerable", "answerable questions declined",
                unknown or "no answerable cases (set \"answerable\": true)"),
            row("accuracy-only score", "accuracy-only score", "cases", "a wrong answer costs nothing", "no cases")]
    head = (f"groundlab score: judge {s['judge']}, {s['cases']} cases, {s['claims']} claims ({source})")
    tail = [f"outcomes by the judge's verdicts: correct {o['correct']}, abstained {o['abstained']}, wrong {o['wrong']}",
            f"risk-weighted score: {risk_words(s)} (correct - {s['penalty']:g} x wrong; an abstention scores 0)"]
    if not words.measured and h["answered"]:
        tail.append("the hallucination rate is people's, and no answer carries their labels yet; the judge's own "
                    f"share ({flagged_words(s)}) can be several times theirs at a low base rate. "
                    + label_request_basis(s))
    if s["errors"]:
        tail.append(f"judge errors: {s['errors']} claims could not be judged and are left out of every rate")
    if undecided_checks:
        tail.append(f"citation checks undecided: {undecided_checks} cited claims (found supported with no "
                    "retrieved passage named behind them, their cited passages could not be judged, or they need "
                    "too many of them together to tell which) are left out of citation recall and precision")
    return "\n".join([head, "", table(rows), ""] + tail)
