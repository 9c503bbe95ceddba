"""The ``groundlab import`` and ``groundlab label export|import`` commands.

The work is done in :mod:`groundlab.importers` and :mod:`groundlab.labeling`; this module only
reads the options and prints what was done.
"""

from __future__ import annotations

import argparse

from .cli import _Parser, _common, _emit, _input_paths, _splitter


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
    g = p.add_argument_group("claims (as given to 'label export')")
    g.add_argument("--citation-pattern", metavar="REGEX", help="how citations are written")
    g.add_argument("--abstention-phrase", metavar="REGEX", action="append", default=[],
                   help="another wording that means the assistant cannot answer (repeatable)")
    p.set_defaults(func=cmd_label_import)


def cmd_import(args: argparse.Namespace) -> int:
    from .importers import import_cases

    r = import_cases(args.format, args.input, args.out, force=args.force)
    if r.answered and r.without_citations == r.answered:
        note = "; no answer cites a passage, so the citation measures will say \"no citations\""
    elif r.without_citations:
        note = (f"; {r.without_citations} of {r.answered} answers cite no passage, so their claims count as "
                "not backed by a citation")
    else:
        note = ""
    _emit(f"read {r.rows} rows from {args.input}; wrote {r.cases} cases with {r.passages} passages inline "
          f"to {r.out}{note}.")
    return 0


def cmd_label_export(args: argparse.Namespace) -> int:
    from .labeling import export_sheet

    cases, passages = _input_paths(args)
    r = export_sheet(cases, args.out, passages=passages, judge=None if args.blind else args.judge,
                     splitter=_splitter(args), force=args.force)
    suggestion = "no judge suggestions (blind)" if r.judge is None else f"judge {r.judge} suggestions"
    lines = [f"wrote {r.rows} rows to {r.out}: {r.claims} claims of {r.cases} cases, plus "
             f"{r.cases_without_claims} row{'s' if r.cases_without_claims != 1 else ''} for answers without "
             f"claims (set answerable there); {suggestion}. Fill the label column, then run "
             f"'groundlab label import {r.out} --cases {cases} --out LABELED.jsonl'."]
    if r.cut_cells:
        lines.append(f"note: {r.cut_cells} cells were longer than a spreadsheet cell holds and were cut, "
                     "marked \"cut here\".")
    _emit("\n".join(lines))
    return 0


def cmd_label_import(args: argparse.Namespace) -> int:
    from .labeling import import_labels

    r = import_labels(args.sheet, args.cases, args.out, partial=args.partial, force=args.force,
                      splitter=_splitter(args))
    lines = [f"read {r.rows} rows from {args.sheet}; wrote {r.out} with labels for {r.labeled_claims} claims "
             f"of {r.labeled_cases} cases and answerable set on {r.answerable_set}."]
    if r.unlabeled_claims:
        lines.append(f"{_count(r.unlabeled_claims, 'claim', 'claims')} in {_count(r.unlabeled_cases, 'case', 'cases')} "
                     f"{'remains' if r.unlabeled_claims == 1 else 'remain'} unlabeled.")
    partly = r.partly_labeled_cases
    if partly:
        shown = ", ".join(partly[:10]) + (", ..." if len(partly) > 10 else "")
        lines.append(f"{_count(len(partly), 'case is', 'cases are')} only partly labeled in the sheet and kept "
                     f"the labels they had (none for a fresh log): {shown}.")
    if r.cases_not_in_sheet:
        lines.append(f"{_count(r.cases_not_in_sheet, 'case', 'cases')} of {args.cases} not in the sheet: "
                     "kept unchanged.")
    _emit("\n".join(lines))
    return 0


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
