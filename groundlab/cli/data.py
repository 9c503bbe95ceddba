"""The ``groundlab import`` and ``groundlab label export|import`` commands.

The work is done in :mod:`groundlab.importers` and :mod:`groundlab.labeling`; this module only
reads the options and prints what was done.
"""

from __future__ import annotations

import argparse

from ..records import GroundlabError
from .common import emit, input_paths, spending, splitter_from
from .options import Parser, claim_options, common_options, judge_kwargs, judge_options, model_options_given


def add_commands(sub) -> None:
    """Add ``import`` and ``label`` to the ``groundlab`` subcommands."""
    from ..importers import FORMATS

    p = sub.add_parser("import", help="turn Ragas-style samples or logged answers into a cases file")
    p.add_argument("format", choices=FORMATS, metavar="FORMAT",
                   help="ragas: JSONL or CSV rows with user_input, retrieved_contexts, response; "
                        "log: JSONL records with question, passages, answer (id optional)")
    p.add_argument("input", metavar="IN", help="the file to import")
    p.add_argument("--out", required=True, metavar="FILE", help="the cases file to write")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.set_defaults(func=cmd_import)

    label = sub.add_parser("label", help="a labeling sheet for people: export it, fill it, import it")
    steps = label.add_subparsers(dest="step", metavar="STEP", parser_class=Parser, required=True)

    p = steps.add_parser("export", help="write a CSV sheet with one row per claim and an empty label column")
    common_options(p)
    p.add_argument("--out", required=True, metavar="SHEET.csv", help="the sheet to write")
    p.add_argument("--blind", action="store_true",
                   help="leave the judge's verdict and reason out, so labels are not anchored on them "
                        "(use it when the labels will check the judge)")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    judge_options(p, dry_run=False)
    p.set_defaults(func=cmd_label_export)

    p = steps.add_parser("import", help="write the sheet's labels and answerable into a new cases file")
    p.add_argument("sheet", metavar="SHEET.csv", help="the filled sheet")
    p.add_argument("--cases", required=True, metavar="FILE", help="the cases file the sheet was exported from")
    p.add_argument("--out", required=True, metavar="FILE", help="the cases file to write")
    p.add_argument("--partial", action="store_true",
                   help="accept empty labels and missing rows; only fully labeled cases get labels")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    claim_options(p.add_argument_group("claims (as given to 'label export')"))
    p.set_defaults(func=cmd_label_import)


def cmd_import(args: argparse.Namespace) -> int:
    from ..importers import import_cases

    emit(str(import_cases(args.format, args.input, args.out, force=args.force)))
    return 0


def cmd_label_export(args: argparse.Namespace) -> int:
    from ..labeling import export_sheet

    from ..judges import get_judge

    cases, passages = input_paths(args)
    judge = None
    if args.blind:
        given = model_options_given(args)
        if given:
            raise GroundlabError(f"{', '.join(given)} do{'es' * (len(given) == 1)} not apply with --blind, which asks "
                                 f"no judge; drop {'it' if len(given) == 1 else 'them'} or drop --blind.")
    else:
        # The options of `score`, so replies a `score --judge llm` run cached are found again.
        judge = get_judge(args.judge, **judge_kwargs(args))
    with spending(judge):
        report = export_sheet(cases, args.out, passages=passages, judge=judge, splitter=splitter_from(args),
                              force=args.force)
    emit(f"{report}\nFill the label column, then run 'groundlab label import {report.out} --cases {cases} "
          "--out LABELED.jsonl'.")
    return 0


def cmd_label_import(args: argparse.Namespace) -> int:
    from ..labeling import import_labels

    emit(str(import_labels(args.sheet, args.cases, args.out, partial=args.partial, force=args.force,
                            splitter=splitter_from(args))))
    return 0
