"""The ``groundlab`` command.

Every problem a person can fix (a bad line in a file, a wrong option) is printed as one sentence
on stderr, with exit status 2 and no traceback; nothing is written in that case. Each family of
commands is a module that adds its subcommands (``add_commands``; the measuring family runs its
commands in two modules beside it, :mod:`.score` and :mod:`.agree`); the options and output helpers
they share live in :mod:`.options` and :mod:`.common`, and no family imports another's modules.

The top layer: it may import every package below it, and it is the only one that sees the
parsed options (``args``); it turns them into plain values once and passes those down.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from typing import List, Optional, Sequence

from ..core import __version__
from ..core.records import GroundlabError, visible
from .options import Parser


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="groundlab", description=(
        "Measure how far a RAG assistant's answers stay within the passages it was given: "
        "claims judged supported / contradicted / unsupported, citations, abstentions, and a "
        "risk-weighted score, each rate with its Wilson 95% range."))
    parser.add_argument("--version", action="version", version=f"groundlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    from . import calibrate, compare, data, guard, measure, sap, workbook

    for family in (workbook, measure, compare, data, guard, calibrate, sap):
        family.add_commands(sub)
    return parser


#: The options that name files a command reads: what it writes is no more readable than they are.
INPUT_OPTIONS = ("cases", "cases_b", "passages", "passages_b", "input", "sheet", "sheets", "a", "b", "examples")


def input_files(args: argparse.Namespace) -> List[str]:
    """The files the command reads (``-`` for standard input), as its options name them."""
    found: List[str] = []
    if hasattr(args, "cases") and hasattr(args, "passages") and args.cases is None:
        from .common import input_paths

        found.extend(p for p in input_paths(args, quiet=True) if p)  # the default cases and passages
    for name in INPUT_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, (list, tuple)):
            found.extend(str(v) for v in value)
        elif value is not None:
            found.append(str(value))
    return found


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        from ..core.io import outputs_like

        with outputs_like(*input_files(args)):
            return args.func(args)
    except GroundlabError as exc:
        print(f"groundlab: {visible(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        from .common import Terminated

        if isinstance(exc, Terminated):
            print(f"groundlab: stopped by {exc}; nothing more was written.", file=sys.stderr)
            return 128 + exc.signum
        print("groundlab: interrupted; nothing more was written.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`groundlab score | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a path the file system refuses: name it, no traceback
        where = f" {exc.filename}" if exc.filename else ""
        if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            print(visible(f"groundlab: cannot write{where}: {exc.strerror}; free some space (or write elsewhere) "
                          "and run again."), file=sys.stderr)
            return 2
        print(visible(f"groundlab: cannot use{where}: {exc.strerror or exc}; check the path and run again."),
              file=sys.stderr)
        return 2


def entry() -> int:
    """The ``groundlab`` program: :func:`main` in a process that ends with the command, which may
    then leave the garbage collector off to its end (:func:`groundlab.core._gc.pause_for_good`),
    and whose memos are emptied when it is done (:func:`groundlab.core._gc.drop_caches`). A caller
    of :func:`main` in its own process keeps its collector and memos as they were."""
    from ..core._gc import drop_caches, process_ends

    process_ends()
    try:
        return main()
    finally:
        drop_caches()  # what the run kept, freed before Python's last collection walks it


if __name__ == "__main__":
    raise SystemExit(entry())
