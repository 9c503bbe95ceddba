"""``groundlab init`` and ``groundlab run``: the workbook's commands."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Dict

from ..records import GroundlabError
from .common import emit, input_paths
from .options import input_options, number


def add_commands(sub) -> None:
    """Add ``init`` and ``run`` to the ``groundlab`` subcommands."""
    p = sub.add_parser("init", help="copy the sample set and the notebooks into a folder to start from")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="where to put data/ and notebooks/ (default: here)")
    p.add_argument("--force", action="store_true", help="replace files that are already there")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("run", help="run the notebooks (papermill) into a report folder: notebooks, HTML, figures, report.md")
    input_options(p)
    p.add_argument("--judge", metavar="NAME", help="the judge the notebooks use (default: each notebook's own, rules)")
    p.add_argument("--penalty", type=number, metavar="P",
                   help="what a wrong answer costs, in correct answers (default: the notebooks' own, 1)")
    p.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="any other notebook parameter (repeatable); VALUE is read as JSON when it can "
                        "be (3, true, [\"lexical\", \"rules\"]), a list may also be written a,b")
    p.add_argument("--out", metavar="DIR", help="where to write (default: reports/<date>_<time>/)")
    p.add_argument("--notebooks", metavar="DIR",
                   help="the notebooks to run (default: notebooks/ here if it holds NN-topic.ipynb files, "
                        "else the ones shipped with groundlab)")
    p.add_argument("--force", action="store_true", help="write into --out even if it is not empty")
    p.set_defaults(func=cmd_run)


SAMPLE_FILES = ("notes.jsonl", "grounded_cases.jsonl")


def cmd_init(args: argparse.Namespace) -> int:
    from ..io import sample_path
    from ..notebooks import find_notebooks, packaged_notebooks

    target = Path(args.dir) / "data"
    notebooks = find_notebooks(packaged_notebooks())
    copies = [(sample_path(name), target / name) for name in SAMPLE_FILES]
    copies += [(nb, Path(args.dir) / "notebooks" / nb.name) for nb in notebooks]
    for folder in (Path(args.dir), target, Path(args.dir) / "notebooks"):
        if folder.exists() and not folder.is_dir():
            raise GroundlabError(f"{folder} is a file, not a folder; nothing was written "
                                 "(give 'groundlab init' a folder).")
    blocked = [dst for _, dst in copies if dst.is_dir()]
    if blocked:
        raise GroundlabError(f"{blocked[0]} is a folder where groundlab would write a file; nothing was "
                             "written (move it away first).")
    existing = [dst for _, dst in copies if dst.exists()]
    if existing and not args.force:
        names = ", ".join(str(p) for p in existing)
        raise GroundlabError(f"{names} already exist{'s' if len(existing) == 1 else ''}; nothing was written "
                             "(pass --force to replace them with the sample set and notebooks).")
    for src, dst in copies:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    emit(f"wrote the sample set to {target}/ ({', '.join(SAMPLE_FILES)}) and the notebooks to "
          f"{Path(args.dir) / 'notebooks'}/; now run 'groundlab run' or 'groundlab score' in {args.dir}.")
    return 0


#: ``groundlab run`` options that set a notebook parameter, which ``-p NAME VALUE`` may set instead.
RUN_OPTIONS = {"cases": "--cases", "passages": "--passages", "judge": "--judge", "penalty": "--penalty"}


def cmd_run(args: argparse.Namespace) -> int:
    from ..io import load_cases, plural
    from ..notebooks import (
        check_parameter_names,
        check_values,
        default_out_dir,
        find_notebooks,
        parse_value,
        plan_parameters,
        run_notebooks,
    )

    # Check everything that can be checked before anything runs or is written, so a mistake is
    # one sentence, not a failed notebook.
    options = {name: option for name, option in RUN_OPTIONS.items() if getattr(args, name) is not None}
    parameters: Dict[str, object] = {}
    seen = set()
    for name, value in args.parameter:
        if name in seen:
            raise GroundlabError(f"-p {name} is given twice; give it once.")
        seen.add(name)
        if name in options:
            raise GroundlabError(f"{options[name]} and -p {name} both set {name}; give it once.")
        if name in ("cases", "passages", "judge"):  # -p cases X is --cases X
            setattr(args, name, value)
        else:
            parameters[name] = parse_value(value)
    cases, passages = input_paths(args)
    parameters["cases"] = cases
    parameters["passages"] = passages
    if args.judge is not None:
        parameters["judge"] = args.judge
    if args.penalty is not None:
        parameters["penalty"] = args.penalty
    check_values({k: v for k, v in parameters.items() if k == "judge" or k in options}, options)
    load_cases(cases, passages)
    notebooks = find_notebooks(Path(args.notebooks) if args.notebooks else None)
    check_parameter_names(notebooks, [name for name, _ in args.parameter])
    out = Path(args.out) if args.out else default_out_dir()
    _check_run_out(out, notebooks[0].parent, args.force)
    plans = plan_parameters(notebooks, parameters, out.resolve())
    check_values({name: value for plan in plans.values() for name, value in plan.items() if name != "judge"},
                 options)

    print(f"groundlab run: {plural(len(notebooks), 'notebook', 'notebooks')} from {notebooks[0].parent} "
          f"into {out}", file=sys.stderr)
    result = run_notebooks(notebooks, out, parameters, progress=lambda line: print(line, file=sys.stderr))
    parts = [plural(len(result.notebooks), "executed notebook", "executed notebooks"),
             plural(len(result.html), "HTML copy", "HTML copies"),
             f"{plural(len(result.figures), 'figure', 'figures')} (PNG and SVG)"]
    if result.report:
        parts.append("report.md")
    emit(f"wrote {out}/: " + ", ".join(parts) + ".")
    return 0


def _check_run_out(out: Path, notebooks: Path, force: bool) -> None:
    """Refuse an output folder ``groundlab run`` must not write into, before anything runs."""
    for folder in [out] + list(out.parents):
        if folder.exists() and not folder.is_dir():
            where = "is a file" if folder == out else f"is inside {folder}, which is a file"
            raise GroundlabError(f"--out {out} {where}, not a folder; nothing was written (give --out a new "
                                 "or empty folder).")
        if folder.exists():
            break
    if out.exists() and out.resolve() == notebooks.resolve():
        raise GroundlabError(f"--out {out} is the folder of the notebooks being run, and the executed copies "
                             "would replace them; nothing was written (choose another --out).")
    if out.exists() and any(out.iterdir()) and not force:
        raise GroundlabError(f"{out} already exists and is not empty; nothing was written "
                             "(choose another --out or pass --force to write into it).")
