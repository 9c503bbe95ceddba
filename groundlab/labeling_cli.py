"""The ``groundlab import`` command.

The work is done in :mod:`groundlab.importers`; this module only
reads the options and prints what was done.
"""

from __future__ import annotations

import argparse

from .cli import _emit


def add_commands(sub) -> None:
    """Add ``import`` to the ``groundlab`` subcommands."""
    from .importers import FORMATS

    p = sub.add_parser("import", help="turn Ragas-style samples or logged answers into a cases file")
    p.add_argument("format", choices=FORMATS, metavar="FORMAT",
                   help="ragas: JSONL or CSV rows with user_input, retrieved_contexts, response; "
                        "log: JSONL records with question, passages, answer (id optional)")
    p.add_argument("input", metavar="IN", help="the file to import")
    p.add_argument("--out", required=True, metavar="FILE", help="the cases file to write")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.set_defaults(func=cmd_import)


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


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
