"""``groundlab calibrate``: fit the signals judge's weights and threshold on a person's labels.

The work is done in :mod:`groundlab.judges.calibration`; this module reads the options, prints
the cross-validated figures next to those of the shipped weights and of the rules judge on the
same labels, and writes the judge config that ``--judge-config`` then uses.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..core.records import GroundlabError
from .common import emit, input_paths, splitter_from
from .options import claim_options, fraction, input_options


def add_commands(sub) -> None:
    """Add ``calibrate`` to the ``groundlab`` subcommands."""
    p = sub.add_parser("calibrate", help="fit the signals judge's weights and threshold on your labeled cases "
                                         "(cross-validated), for --judge-config")
    claim_options(input_options(p))
    p.add_argument("--also", action="append", default=[], metavar="CASES",
                   help="more labeled cases from another task (repeatable; passages inline, or ids in --passages): "
                        "the sets pool, each weighing alike, and the figures are given per set")
    p.add_argument("--out", required=True, metavar="JUDGE.json", help="the judge config to write")
    p.add_argument("--max-false-alarms", type=fraction, default=None, metavar="R",
                   help="choose the threshold that catches most while flagging at most this share of supported "
                        "claims, as 0.1 or 10%% (default: the best balanced accuracy)")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.add_argument("--json", action="store_true", help="print the judge config written, as JSON")
    p.set_defaults(func=cmd_calibrate)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from ..measure.evaluate import split_cases
    from ..core.io import check_output, is_stdin, load_cases, plural
    from ..measure.policy import make_judge
    from ..judges.calibration import (MIN_PER_CLASS, MODES, Figures, LabeledClaim, check_enough, fit, measure,
                                       shipped_prior, write_config)
    from ..core.records import Evidence

    if args.max_false_alarms is not None and not 0 < args.max_false_alarms < 1:
        raise GroundlabError(f"--max-false-alarms must be more than 0 and less than 1 (100%), not "
                             f"{args.max_false_alarms:g}; e.g. 0.1 or 10%.")
    out = Path(args.out)
    source, passages = input_paths(args)
    # never an input, even with --force
    check_output(out, True, [p for p in (source, passages, *args.also) if p and not is_stdin(p)])
    if out.exists() and not args.force:  # before the fitting, which takes a while
        raise GroundlabError(f"{out} already exists; nothing was written (choose another --out, or pass --force "
                             "to replace it).")
    splitter = splitter_from(args)
    claims = []
    labeled_cases = 0
    files = [source] + list(args.also)
    for path in files:
        cases = load_cases(path, passages if path == source or passages else None)
        with_labels = [case for case in cases if case.labels is not None]
        splits = split_cases(with_labels, splitter)
        name = str(path) if len(files) > 1 else ""
        for case, split in zip(with_labels, splits):
            evidence = Evidence(case.question, case.retrieved, case.answer)
            labeled_cases += bool(split.claims)
            for claim, label in zip(split.claims, case.labels or ()):
                claims.append(LabeledClaim(case.id, claim.number, claim.text, evidence, label,
                                           f"{path}:{case.id}", name))
    if not claims:
        raise GroundlabError(f"{' and '.join(map(str, files))} {'holds' if len(files) == 1 else 'hold'} no labeled "
                             "claims (no case with \"labels\"); "
                             "calibrating needs claims a person labeled, supported and contradicted or unsupported "
                             "('groundlab label export' makes a sheet to label).")
    measured = measure(claims)
    check_enough(measured, max_false_alarms=args.max_false_alarms)  # one sentence, before anything else is said
    print(f"groundlab calibrate: {plural(len(claims), 'labeled claim', 'labeled claims')} in "
          f"{plural(labeled_cases, 'case', 'cases')}; fitting and cross-validating", file=sys.stderr)
    result = fit(claims, max_false_alarms=args.max_false_alarms, prior=shipped_prior(), measured=measured)
    labels = [c.label for c in claims]
    pairs = [(c.text, c.evidence) for c in claims]
    shipped_judge = make_judge("signals")
    shipped = Figures.of(labels, [v.label for v in shipped_judge.judge_batch(pairs)])
    rules = Figures.of(labels, [v.label for v in make_judge("rules").judge_batch(pairs)])
    shown_source = " and ".join(map(str, files))
    data = result.config(f"{len(claims)} labeled claims of {shown_source}", args.max_false_alarms,
                         {"cases": [str(f) for f in files] if len(files) > 1 else str(source)})
    write_config(out, data, force=args.force)
    if args.json:
        emit(json.dumps(data))
        return 0
    rule = ("the best balanced accuracy" if args.max_false_alarms is None
            else f"false alarms at most {args.max_false_alarms:.0%}")
    if len(files) > 1:
        rule += ", averaged over the sets"
    names = ("intercept",) + tuple(data["weights"])[1:]
    model = measured.model
    n_sup, n_not = int((measured.y & model).sum()), int((~measured.y & model).sum())
    low, high = result.threshold_range
    sure = (f"95% range over cases {low:.2f}\u2013{high:.2f}" if low == low else "no range: too few cases")
    lines = [
        f"groundlab calibrate: {plural(len(claims), 'labeled claim', 'labeled claims')} in "
        f"{plural(labeled_cases, 'case', 'cases')} ({shown_source}); {result.decided_by_rules} decided by a rule "
        f"(framing, numbers, negation, a conflicting how-often or bound word), {n_sup} supported and {n_not} "
        "contradicted or unsupported by the model",
        f"fitted: {MODES[result.mode]}",
        "",
        "weights:   " + ", ".join(f"{n} {data['weights'][n]:+.3f}" for n in names),
        f"threshold: {result.threshold:.4f} ({rule}; shipped {shipped_judge.threshold:.4f}; {sure})",
        "",
    ]
    if result.cross_validated is not None:
        lines += [f"cross-validated ({result.folds} folds of whole cases; each fold judged with weights and threshold "
                  "fitted on the others):",
                  f"  calibrated         {result.cross_validated.line()}"]
        for name, figures in result.by_source.items():
            lines.append(f"    {name}: {figures.line()}")
    else:
        lines.append("not cross-validated: the labels come from one case, so none is left to test on; "
                     "treat the threshold as a first guess.")
    lines += [
        "on the same labels, without calibration:",
        f"  shipped weights    {shipped.line()}",
        f"  rules judge        {rules.line()}",
        "",
    ]
    if result.mode != "full":
        need = max(0, MIN_PER_CLASS - min(n_sup, n_not))
        lines.append(f"with {need} more labeled claims of the rarer kind the weights would be fitted freely; the "
                     "ranges above say how far these labels can be trusted.")
    lines.append(f"wrote {out}; use it with --judge signals --judge-config {out} (score, agree, compare, label "
                 "export, run).")
    emit("\n".join(lines))
    return 0
