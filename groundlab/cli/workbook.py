"""``groundlab init`` and ``groundlab run``: the workbook's commands."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Dict

from ..records import GroundlabError
from .common import emit, input_paths
from .options import claim_options, input_options, number


def add_commands(sub) -> None:
    """Add ``init`` and ``run`` to the ``groundlab`` subcommands."""
    p = sub.add_parser("init", help="copy the sample set and the notebooks into a folder to start from")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="where to put data/ and notebooks/ (default: here)")
    p.add_argument("--force", action="store_true", help="replace files that are already there")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("run", help="run the notebooks (papermill) into a new report folder: notebooks, HTML, "
                                   "figures, report.md and report.html")
    claim_options(input_options(p))
    p.add_argument("--judge", metavar="NAME", help="the judge the notebooks use (default: each notebook's own, signals)")
    p.add_argument("--judge-config", metavar="JUDGE.json",
                   help="the signals judge's weights and threshold, as 'groundlab calibrate' wrote them "
                        "(default: the ones shipped with groundlab)")
    p.add_argument("--penalty", type=number, metavar="P",
                   help="what a wrong answer costs, in correct answers (default: the notebooks' own, 1)")
    p.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="any other notebook parameter (repeatable); VALUE is read as JSON when it can "
                        "be (3, true, [\"lexical\", \"rules\"]), a list may also be written a,b")
    p.add_argument("--out", metavar="DIR", help="where to write: a new or empty folder (default: a new "
                                                "reports/<date>_<time>/)")
    p.add_argument("--notebooks", metavar="DIR",
                   help="the notebooks to run (default: notebooks/ here if it holds NN-topic.ipynb files, "
                        "else the ones shipped with groundlab)")
    p.add_argument("--force", action="store_true",
                   help="replace the groundlab run in --out: clears the files its run.json lists, nothing else")
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
RUN_OPTIONS = {"cases": "--cases", "passages": "--passages", "judge": "--judge", "penalty": "--penalty",
               "judge_config": "--judge-config"}


def cmd_run(args: argparse.Namespace) -> int:
    from ..io import load_cases, plural
    from ..notebooks import (
        check_parameter_names,
        check_values,
        declared_default,
        find_notebooks,
        judges_to_run,
        parse_value,
        plan_parameters,
        relative,
        run_notebooks,
        NotebookFailed,
    )
    from ..outputs import FAILED_FILE, RUN_FILE, Claim, claim_folder, new_run_folder
    from ..evaluate import split_cases
    from ..workbook import check_judge_config, claim_splitter, compare_judges, judged_inputs, save_judged

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
        if name in ("cases", "passages", "judge", "judge_config"):  # -p cases X is --cases X
            setattr(args, name, value)
        else:
            parameters[name] = parse_value(value)
    for name, option in (("citation_pattern", "--citation-pattern"), ("abstention_phrases", "--abstention-phrase")):
        if name in parameters and getattr(args, name.replace("phrases", "phrase")):
            raise GroundlabError(f"{option} and -p {name} both set {name}; give it once.")
    if args.citation_pattern is not None:
        parameters["citation_pattern"] = args.citation_pattern
    if args.abstention_phrase:
        parameters["abstention_phrases"] = list(args.abstention_phrase)
    cases, passages = input_paths(args)
    parameters["cases"] = cases
    parameters["passages"] = passages
    if args.judge is not None:
        parameters["judge"] = args.judge
    if args.penalty is not None:
        parameters["penalty"] = args.penalty
    if args.judge_config is not None:
        parameters["judge_config"] = args.judge_config
    check_values({k: v for k, v in parameters.items() if k == "judge" or k in options}, options)
    notebooks = find_notebooks(Path(args.notebooks) if args.notebooks else None)
    check_parameter_names(notebooks, [name for name, _ in args.parameter])
    abstention = parameters.get("abstention_phrases") or []
    splitter = claim_splitter(parameters.get("citation_pattern") or "",
                              abstention if isinstance(abstention, list) else [str(abstention)],
                              names=("--citation-pattern" if args.citation_pattern is not None else
                                     "-p citation_pattern",
                                     "--abstention-phrase" if args.abstention_phrase else "-p abstention_phrases"))
    loaded = load_cases(cases, passages)  # as `groundlab check` reads them: every field, every passage id
    split_cases(loaded, splitter)  # and one label per claim
    filled = parameters.get("filled_sheet")
    if filled and str(filled).strip() and not Path(str(filled)).is_file():
        raise GroundlabError(f"-p filled_sheet {filled} does not exist; give the labeling sheet as people "
                             "filled it, or leave filled_sheet out.")
    inputs = [cases, passages, filled, parameters.get("judge_config")] + [str(nb) for nb in notebooks]
    claim = None
    if args.out:
        out = Path(args.out)
        if out.exists() and out.resolve() == notebooks[0].parent.resolve():
            raise GroundlabError(f"--out {out} is the folder of the notebooks being run, and the executed copies "
                                 "would replace them; nothing was written (choose another --out).")
        for folder in list(out.parents):
            if folder.exists() and not folder.is_dir():
                raise GroundlabError(f"--out {out} is inside {folder}, which is a file, not a folder; nothing was "
                                     "written (give --out a new or empty folder).")
            if folder.exists():
                break
        reserved = ([nb.name for nb in notebooks] + [nb.with_suffix(".html").name for nb in notebooks]
                    + ["report.md", "report.html", "figures", "labeling", JUDGED_FILE, RUN_FILE, FAILED_FILE])
        claim = claim_folder(out, args.force, reserved, inputs)
    defaults = {name: declared_default(nb, name) for nb in notebooks for name in ("judge",)
                if declared_default(nb, name) is not None}
    probe = plan_parameters(notebooks, parameters, Path("reports") / "new")  # values as the notebooks get them
    check_values({name: value for plan in probe.values() for name, value in plan.items() if name != "judge"},
                 options)

    # One judged result for every notebook of the run: each judge judges the cases once, here.
    judges = judges_to_run(notebooks, parameters)
    main = str(parameters.get("judge", defaults.get("judge", "")))
    judge_config = parameters.get("judge_config")
    check_judge_config(judge_config, judges, "--judge-config" if args.judge_config is not None else "-p judge_config")
    if judges:
        print(f"groundlab run: judging {plural(len(loaded), 'case', 'cases')} with {', '.join(judges)}",
              file=sys.stderr)
        comparison = compare_judges(loaded, judges, splitter, judge_config)
        if main in comparison.unavailable:  # the judge every notebook reports on judged nothing
            raise GroundlabError(comparison.unavailable[main].rstrip(".") + ".")

    folder = (claim or Claim(new_run_folder("reports"), [])).take(
        {"cases": relative(cases), "passages": relative(passages) if passages else "",
         "parameters": {k: v for k, v in args.parameter}})
    out = folder.path
    if judges:
        judged = out / JUDGED_FILE
        save_judged(judged, comparison, judged_inputs(cases, passages, parameters.get("citation_pattern") or "",
                                                      parameters.get("abstention_phrases") or []))
        parameters["judged_file"] = judged
    plans = plan_parameters(notebooks, parameters, out)
    shown = args.out or relative(out)
    print(f"groundlab run: {plural(len(notebooks), 'notebook', 'notebooks')} from {notebooks[0].parent} "
          f"into {shown}", file=sys.stderr)
    try:
        result = run_notebooks(notebooks, out, plans, shown=shown,
                               progress=lambda line: print(line, file=sys.stderr))
    except NotebookFailed as exc:
        folder.finish("failed", {"notebook": exc.notebook, "cell": exc.cell, "message": str(exc)},
                      message=f"This run failed: {exc}")
        raise
    except BaseException as exc:
        what = "was interrupted" if isinstance(exc, KeyboardInterrupt) else f"stopped ({type(exc).__name__})"
        folder.finish("failed", {"notebook": None, "cell": None, "message": what},
                      message=f"This run {what} before every notebook had run; what it wrote is incomplete.")
        raise
    folder.finish("succeeded")
    parts = [plural(len(result.notebooks), "executed notebook", "executed notebooks"),
             plural(len(result.html), "HTML copy", "HTML copies"),
             f"{plural(len(result.figures), 'figure', 'figures')} (PNG and SVG)"]
    if result.report:
        parts.append("report.md")
    if (out / "report.html").exists():
        parts.append("report.html")
    emit(f"wrote {shown.rstrip('/')}/: " + ", ".join(parts) + ".")
    return 0


#: The run's judged result, shared by its notebooks (``judged_file``).
JUDGED_FILE = "judged.pkl"
