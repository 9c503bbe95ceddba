"""The ``groundlab import`` and ``groundlab label export|import`` commands.

The work is done in :mod:`groundlab.importers` and :mod:`groundlab.labeling`; this module only
reads the options and prints what was done.
"""

from __future__ import annotations

import argparse

from .cli import _Parser, _common, _emit, _input_paths, _splitter, claim_options


def add_commands(sub) -> None:
    """Add ``import`` and ``label`` to the ``groundlab`` subcommands."""
    from .importers import FORMATS

    p = sub.add_parser("import", help="turn Ragas-style samples or logged answers into a cases file")
    p.add_argument("format", choices=FORMATS, metavar="FORMAT",
                   help="ragas: JSONL or CSV rows with user_input, retrieved_contexts, response; "
                        "log: JSONL records with question, passages, answer (id optional)")
    p.add_argument("input", metavar="IN", help="the file to import")
    p.add_argument("--out", required=True, metavar="FILE", help="the cases file to write")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.set_defaults(func=cmd_import)

    label = sub.add_parser("label", help="a labeling sheet for people: export it, fill it, import it")
    steps = label.add_subparsers(dest="step", metavar="STEP", parser_class=_Parser, required=True)

    p = steps.add_parser("export", help="write a CSV sheet with one row per claim and an empty label column")
    _common(p)
    p.add_argument("--out", required=True, metavar="SHEET.csv", help="the sheet to write")
    p.add_argument("--blind", action="store_true",
                   help="leave the judge's verdict and reason out, so labels are not anchored on them "
                        "(use it when the labels will check the judge)")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
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
    from .importers import import_cases

    _emit(str(import_cases(args.format, args.input, args.out, force=args.force)))
    return 0


def cmd_label_export(args: argparse.Namespace) -> int:
    from .labeling import export_sheet

    cases, passages = _input_paths(args)
    report = export_sheet(cases, args.out, passages=passages, judge=None if args.blind else args.judge,
                          splitter=_splitter(args), force=args.force)
    _emit(f"{report}\nFill the label column, then run 'groundlab label import {report.out} --cases {cases} "
          "--out LABELED.jsonl'.")
    return 0


def cmd_label_import(args: argparse.Namespace) -> int:
    from .labeling import import_labels

    _emit(str(import_labels(args.sheet, args.cases, args.out, partial=args.partial, force=args.force,
                            splitter=_splitter(args))))
    return 0
