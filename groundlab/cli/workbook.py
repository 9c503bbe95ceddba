"""``groundlab init`` and ``groundlab run``: the workbook's commands."""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..core.records import GroundlabError
from .common import Terminated, emit, input_paths, stop_on_signals
from .options import claim_options, input_options, number, policy_options


def add_commands(sub) -> None:
    """Add ``init`` and ``run`` to the ``groundlab`` subcommands."""
    p = sub.add_parser("init", help="copy the sample set and the notebooks into a folder to start from")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="where to put data/ and notebooks/ (default: here)")
    p.add_argument("--force", action="store_true", help="replace files that are already there")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("targets", help="write a starter targets file (TOML) for the decision panel, to edit")
    p.add_argument("out", metavar="FILE.toml", help="the file to write (never replaced)")
    p.set_defaults(func=cmd_targets)

    p = sub.add_parser("run", help="run the notebooks (papermill) into a new report folder: notebooks, HTML, "
                                   "figures, report.md and report.html")
    claim_options(input_options(p))
    g = p.add_argument_group("a second configuration, to compare with the first (notebook 05)")
    g.add_argument("--cases-b", metavar="FILE",
                   help="the answers of a second configuration (another prompt, model or retriever) to the same "
                        "questions; notebook 05 compares them with --cases (without it, notebook 05 is skipped)")
    g.add_argument("--passages-b", metavar="FILE", help="B's passages, when they are another file than --passages")
    p.add_argument("--judge", metavar="NAME", help="the judge the notebooks use (default: each notebook's own, signals)")
    p.add_argument("--judge-config", metavar="JUDGE.json",
                   help="the signals judge's weights and threshold, as 'groundlab calibrate' wrote them "
                        "(default: the ones shipped with groundlab)")
    p.add_argument("--provider", metavar="NAME",
                   help="where the llm judge's requests go: anthropic or sap-ai-core (the orchestration service of "
                        "an SAP AI Core tenant, docs/sap.md) (default: $LLM_PROVIDER, else anthropic)")
    p.add_argument("--penalty", type=number, metavar="P",
                   help="what a wrong answer costs, in correct answers (default: the notebooks' own, 1)")
    p.add_argument("--targets", metavar="FILE.toml",
                   help="targets per process and kind of claim (docs/severity.md): notebook 03 and the report add "
                        "the pass/fail table and the weighted risk score")
    policy_options(p)
    p.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="any other notebook parameter (repeatable); VALUE is read as JSON when it can "
                        "be (3, true, [\"lexical\", \"rules\"]), a list may also be written a,b")
    p.add_argument("--label-budget", type=int, metavar="N",
                   help="how many answers the labeling sheet asks people to label (default: as many as a range of "
                        "\u00b15 points on the hallucination rate needs, -p margin for another precision)")
    p.add_argument("--show-judge", action="store_true",
                   help="show the judge's verdict and reason in the labeling sheet (labels then lean towards it, and "
                        "the report says they were made seeing it); without it the sheet is blind")
    p.add_argument("--slides", action="store_true",
                   help="also write every chart of the report at slide size into slides/ (16:9 full and half "
                        "slide, PNG on white, transparent PNG and SVG)")
    p.add_argument("--out", metavar="DIR", help="where to write: a new or empty folder (default: a new "
                                                "reports/<date>_<time>/)")
    p.add_argument("--notebooks", metavar="DIR",
                   help="the notebooks to run (default: notebooks/ here if it holds NN-topic.ipynb files, "
                        "else the ones shipped with groundlab)")
    p.add_argument("--force", action="store_true",
                   help="replace the groundlab run in --out: clears the files its run.json lists, nothing else")
    p.set_defaults(func=cmd_run)


SAMPLE_FILES = ("notes.jsonl", "grounded_cases.jsonl", "grounded_cases_b.jsonl")


def cmd_targets(args: argparse.Namespace) -> int:
    """``groundlab targets FILE.toml``: a starter targets file, every line commented (docs/severity.md)."""
    from ..core.io import check_output, write_atomic
    from ..production.targets import STARTER, load_targets

    path = Path(args.out)
    if path.suffix.lower() != ".toml":
        raise GroundlabError(f"{path} does not end in .toml; a targets file is TOML (e.g. targets.toml).")
    if path.exists() or path.is_symlink():
        raise GroundlabError(f"{path} already exists; nothing was written (a targets file is yours to edit: give "
                             "another file name for a fresh starter).")
    check_output(path, False, [])
    write_atomic(path, STARTER)
    load_targets(path)  # what it wrote reads back
    emit(f"wrote {path}: edit its limits, then run 'groundlab run --targets {path}' (or score --targets {path}).")
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    from ..core.io import sample_path
    from ..present.notebooks import find_notebooks, packaged_notebooks

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
               "cases_b": "--cases-b", "passages_b": "--passages-b", "judge_config": "--judge-config",
               "targets": "--targets", "policy": "--policy", "provider": "--provider"}
#: The inputs a run reads, by parameter, in the order they are read; one that is standard input or a
#: pipe is read once and kept in the run folder as ``inputs/<parameter>.jsonl``.
STREAMED = ("cases", "passages", "cases_b", "passages_b")


def cmd_run(args: argparse.Namespace) -> int:
    """``groundlab run``; a SIGTERM or SIGHUP (a closed terminal, a job killed) ends it as Ctrl-C
    does, so the run folder says it failed and ``--force`` can take it again."""
    with stop_on_signals():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from ..core.io import display_name, is_stdin, plural, read_cases_once
    from ..present.notebooks import (
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
    from ..core.outputs import FAILED_FILE, INPUTS_DIR, RUN_FILE, Claim, claim_folder, new_run_folder
    from ..measure.evaluate import split_cases
    from ..core.identity import identity_text
    from ..core.claims import AUTO_LANGUAGE, check_language
    from ..present.workbook import check_judge_config, claim_splitter, compare_judges, judged_inputs, save_judged

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
        if name in ("cases", "passages", "judge", "cases_b", "passages_b", "judge_config",
                    "targets", "policy", "provider"):  # -p cases X is --cases X
            setattr(args, name, value)
        else:
            parameters[name] = parse_value(value)
    for name, option in (("citation_pattern", "--citation-pattern"), ("abstention_phrases", "--abstention-phrase")):
        if name in parameters and getattr(args, name.replace("phrases", "phrase")):
            raise GroundlabError(f"{option} and -p {name} both set {name}; give it once.")
    if args.citation_pattern is not None:
        parameters["citation_pattern"] = args.citation_pattern
    if not args.default_citations:
        if "default_citations" in parameters:
            raise GroundlabError("--no-default-citations and -p default_citations both set default_citations; "
                                 "give it once.")
        parameters["default_citations"] = False
    if args.abstention_phrase:
        parameters["abstention_phrases"] = list(args.abstention_phrase)
    if args.language != AUTO_LANGUAGE:
        if "language" in parameters:
            raise GroundlabError("--language and -p language both set language; give it once.")
        parameters["language"] = check_language(args.language)
    cases, passages = input_paths(args)
    stdin = [RUN_OPTIONS[name] for name, path in zip(STREAMED, (cases, passages, args.cases_b, args.passages_b))
             if is_stdin(path)]
    if len(stdin) > 1:
        raise GroundlabError(f"{stdin[0]} and {stdin[1]} both read standard input (-); only one of them can, so "
                             "pass the other as a file.")
    parameters["cases"] = cases
    parameters["passages"] = passages
    if args.judge is not None:
        parameters["judge"] = args.judge
    if args.penalty is not None:
        parameters["penalty"] = args.penalty
    if args.judge_config is not None:
        parameters["judge_config"] = args.judge_config
    if args.provider is not None:
        from ..judges.llm import PROVIDERS

        if args.provider.strip().lower() not in PROVIDERS and args.provider.strip():
            raise GroundlabError(f"--provider {args.provider!r} is not a provider of the llm judge; use "
                                 f"{' or '.join(PROVIDERS)}.")
        parameters["provider"] = args.provider.strip().lower()
    for name, option in (("mask", "--mask"), ("mask_names", "--mask-name")):
        if name in parameters and (args.mask or args.mask_name):
            raise GroundlabError(f"{option} and -p {name} both set {name}; give it once.")
    if args.mask_name:
        parameters["mask_names"] = list(args.mask_name)
    if args.mask or args.mask_name:
        parameters["mask"] = True
    if args.policy is not None:
        parameters["policy"] = args.policy
    if args.label_budget is not None:
        for name in ("n_sample", "label_budget"):
            if name in parameters:
                raise GroundlabError(f"--label-budget and -p {name} both set how many answers to label; give it once.")
        if args.label_budget < 1:
            raise GroundlabError(f"--label-budget must be a whole number of 1 or more, not {args.label_budget}; it is "
                                 "how many answers the labeling sheet asks for (leave it out to size it for "
                                 "\u00b15 points).")
        parameters["n_sample"] = parameters["label_budget"] = args.label_budget
    parameters.setdefault("label_sheet", "labeling/sheet.csv")
    if args.show_judge:
        if "show_judge" in parameters:
            raise GroundlabError("--show-judge and -p show_judge both set show_judge; give it once.")
        parameters["show_judge"] = True
    check_values({k: v for k, v in parameters.items() if k == "judge" or k in options}, options)
    notebooks = find_notebooks(Path(args.notebooks) if args.notebooks else None)
    check_parameter_names(notebooks, [name for name, _ in args.parameter])
    if args.slides:
        from ..present.notebooks import notebook_parameters as declared_by

        if "slides_dir" in parameters:
            raise GroundlabError("--slides and -p slides_dir both set slides_dir; give it once.")
        if not any("slides_dir" in declared_by(nb) for nb in notebooks):
            raise GroundlabError(f"--slides asks notebook 03 for the slides, and no notebook in {notebooks[0].parent} "
                                 "writes them; drop --slides, or run the workbook's notebooks.")
    targets = _check_targets(args.targets, notebooks)
    if targets:
        parameters["targets"] = targets
    cases_b, passages_b = _second_configuration(args, passages)
    notebooks, skipped = _without_second_configuration(notebooks, cases_b, [name for name, _ in args.parameter])
    if cases_b:
        parameters["cases_b"] = cases_b
        if args.passages_b is not None:
            parameters["passages_b"] = passages_b
    abstention = parameters.get("abstention_phrases") or []
    splitter = claim_splitter(parameters.get("citation_pattern") or "",
                              abstention if isinstance(abstention, list) else [str(abstention)],
                              names=("--citation-pattern" if args.citation_pattern is not None else
                                     "-p citation_pattern",
                                     "--abstention-phrase" if args.abstention_phrase else "-p abstention_phrases"),
                              default_citations=parameters.get("default_citations", True) is not False,
                              language=str(parameters.get("language", AUTO_LANGUAGE)))
    # As `groundlab check` reads them: every field, every passage id. Standard input or a pipe is
    # read once, here, and kept in the run folder for the notebooks.
    streamed: Dict[str, bytes] = {}
    loaded = read_cases_once(cases, passages, streamed)
    split_cases(loaded, splitter)  # and one label per claim
    loaded_b = None
    if cases_b:  # the second configuration is read, checked and paired as strictly
        loaded_b = read_cases_once(cases_b, passages_b, streamed)
        split_cases(loaded_b, splitter)
    kept: Dict[str, str] = {}  # an input read from a stream -> its copy in the run folder
    for name, path in zip(STREAMED, (cases, passages, cases_b, passages_b)):
        if path and str(path) in streamed:
            kept.setdefault(str(path), f"{INPUTS_DIR}/{name}.jsonl")
    _check_figures_dir(parameters.get("figures_dir"), args.force)
    filled = parameters.get("filled_sheet")
    if filled and str(filled).strip() and not Path(str(filled)).is_file():
        raise GroundlabError(f"-p filled_sheet {filled} does not exist; give the labeling sheet as people "
                             "filled it, or leave filled_sheet out.")
    policy = parameters.get("policy")
    if policy is not None and str(policy).strip():
        from ..measure.policy import load_policy

        option = "--policy" if args.policy is not None else "-p policy"
        _refuse_stream(option, policy, "the data policy")
        load_policy(policy)  # a policy that cannot be read is one sentence before anything runs
    guarded = {"policy": policy, "mask": bool(parameters.get("mask")), "mask_names": _names(parameters)}
    inputs = ([cases, passages, filled, cases_b, passages_b, targets, parameters.get("judge_config"), policy]
              + [str(nb) for nb in notebooks])
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
                    + ["report.md", "report.html", "figures", SLIDES_DIR, "labeling", INPUTS_DIR, JUDGED_FILE, JUDGED_FILE_B,
                       RUN_FILE, FAILED_FILE])
        claim = claim_folder(out, args.force, reserved, inputs)
    defaults = {name: declared_default(nb, name) for nb in notebooks for name in ("judge",)
                if declared_default(nb, name) is not None}
    probe = plan_parameters(notebooks, parameters, Path("reports") / "new")  # values as the notebooks get them
    check_values({name: value for plan in probe.values() for name, value in plan.items() if name != "judge"},
                 options)
    if loaded_b is not None:
        from ..measure.compare import pair_cases

        pairing = {name: value for plan in probe.values() for name, value in plan.items()
                   if name in ("pair_by", "names")}
        pair_cases(loaded, loaded_b, str(pairing.get("pair_by", "id")),
                   tuple(pairing.get("names") or ("A", "B")))  # type: ignore[arg-type]

    # One judged result for every notebook of the run: each judge judges the cases once, here.
    # The second configuration's cases likewise, for the notebook that compares.
    main = str(parameters.get("judge", defaults.get("judge", "")))
    judge_config = parameters.get("judge_config")
    config_option = "--judge-config" if args.judge_config is not None else "-p judge_config"
    if judge_config and str(judge_config).strip():
        _refuse_stream(config_option, judge_config, "the judge config")
    check_judge_config(judge_config, judges_to_run(notebooks, parameters, "judged_file"), config_option)
    judged_here = {}
    for label, these, shared in (("", loaded, "judged_file"), ("B: ", loaded_b, "judged_file_b")):
        judges = judges_to_run(notebooks, parameters, shared) if these is not None else []
        if not judges:
            continue
        which = f" of {_shown(cases_b, kept)}" if label else ""
        print(f"groundlab run: judging {plural(len(these), 'case', 'cases')}{which} with {', '.join(judges)}",
              file=sys.stderr)
        comparison = compare_judges(these, judges, splitter, judge_config, provider=parameters.get("provider", ""),
                                    **guarded)
        if main in comparison.unavailable:  # the judge every notebook reports on judged nothing
            raise GroundlabError(label + comparison.unavailable[main].rstrip(".") + ".")
        judged_here[shared] = comparison
    summary = _run_summary(judged_here.get("judged_file"), main, parameters)

    command = {"cases": _shown(cases, kept), "passages": _shown(passages, kept) if passages else "",
               "parameters": {k: v for k, v in args.parameter}}
    if cases_b:
        command.update(cases_b=_shown(cases_b, kept), passages_b=_shown(passages_b, kept) if passages_b else "")
    if targets:
        command["targets"] = relative(targets)
    if kept:  # what came from standard input or a pipe, and where the run keeps it
        command["kept_inputs"] = {display_name(path): copy for path, copy in kept.items()}
    folder = (claim or Claim(new_run_folder("reports"), [])).take(command)
    out = folder.path
    if kept:
        for path, copy in kept.items():
            folder.keep_input(copy, streamed[path])
        cases, passages, cases_b, passages_b = (out / kept[str(p)] if p and str(p) in kept else p
                                                for p in (cases, passages, cases_b, passages_b))
        parameters.update(cases=cases, passages=passages)
        if cases_b:
            parameters["cases_b"] = cases_b
            if args.passages_b is not None:
                parameters["passages_b"] = passages_b
    claim_settings = (parameters.get("citation_pattern") or "", parameters.get("abstention_phrases") or [],
                      parameters.get("default_citations", True) is not False, splitter.language)
    for shared, comparison in judged_here.items():
        b_side = shared == "judged_file_b"
        judged = out / (JUDGED_FILE_B if b_side else JUDGED_FILE)
        save_judged(judged, comparison, judged_inputs(cases_b if b_side else cases, passages_b if b_side else passages,
                                                      *claim_settings, **guarded))
        parameters[shared] = judged
    if args.slides:
        parameters["slides_dir"] = out / SLIDES_DIR
    plans = plan_parameters(notebooks, parameters, out)
    identities = judge_identities(judged_here.values())
    if identities:
        folder.write_record(judge_identity=identities.get(main), judge_line=identity_text(identities.get(main)),
                            judge_identities=identities)
    if skipped:
        folder.write_record(skipped=skipped)
    shown = args.out or relative(out)
    for name, why in skipped.items():
        print(f"groundlab run: {name} skipped: {why}", file=sys.stderr)
    print(f"groundlab run: {plural(len(notebooks), 'notebook', 'notebooks')} from {notebooks[0].parent} "
          f"into {shown}", file=sys.stderr)
    try:
        result = run_notebooks(notebooks, out, plans, shown=shown,
                               progress=lambda line: print(line, file=sys.stderr),
                               metadata=notebook_identities(notebooks, plans, identities))
    except NotebookFailed as exc:
        with contextlib.suppress(OSError):  # on a full disk, the failure itself is what to report
            folder.finish("failed", {"notebook": exc.notebook, "cell": exc.cell, "message": str(exc)},
                          message=f"This run failed: {exc}")
        raise
    except BaseException as exc:
        what = (f"was stopped ({exc})" if isinstance(exc, Terminated) else "was interrupted"
                if isinstance(exc, KeyboardInterrupt) else f"stopped: {exc.filename} could not be written "
                f"({exc.strerror})" if isinstance(exc, OSError) and exc.filename else
                f"stopped ({type(exc).__name__})")
        with stop_on_signals(ignore=True), contextlib.suppress(OSError):  # a second signal, a full disk
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
    slides = [p for p in (out / SLIDES_DIR).glob("*.png") if not p.stem.endswith("-transparent")] if args.slides else []
    if slides:
        parts.append(f"{plural(len(slides), 'slide', 'slides')} (PNG, transparent PNG and SVG) in {SLIDES_DIR}/")
    emit(f"wrote {shown.rstrip('/')}/: " + ", ".join(parts) + "."
         + "".join(f" {name} was skipped ({why})." for name, why in skipped.items()))
    headline = _headline_line(summary)
    if headline:
        emit(headline)
    request = _label_request_line(summary, out, shown, command["cases"], command["passages"])
    if request:
        emit(request)
    decided = _targets_line(judged_here.get("judged_file"), main, targets, summary)
    if decided:
        emit(decided)
    return 0


def _headline_line(s: Optional[Dict[str, Any]]) -> str:
    """The report's headline in a line, for the terminal a run ends on: people's hallucination rate
    with its range (or that it is not measured yet), and what the judge flags beside it."""
    from ..present.headline import flagged_words, hallucination_words

    if s is None:
        return ""
    words = hallucination_words(s)
    if not words.measured:  # the line after says what to label
        return f"hallucination rate: not measured yet (people's, by their labels); {flagged_words(s)}"
    return f"hallucination rate: {words.figure} ({words.how}; 95% range {words.range}); {flagged_words(s)}"


def _targets_line(comparison, main: str, targets: str, summary: Optional[Dict[str, Any]]) -> str:
    """How the run came out against its targets, in a line: the rows of the report's table
    (:func:`groundlab.targets.target_table`, every key of the file), as ``score --targets`` counts
    them."""
    from ..core.records import visible
    from ..production.targets import HEADLINE_ROWS, load_targets, target_summary, target_table

    evaluation = getattr(comparison, "evaluations", {}).get(main) if comparison is not None else None
    if not targets or evaluation is None or summary is None:
        return ""
    table = target_table(load_targets(targets), evaluation.claims, evaluation.cases, summary)
    counted = target_summary(table)
    rows = table.to_dict("records")

    def names(state: str) -> str:
        return ", ".join(HEADLINE_ROWS.get(r["target"], r["target"]) for r in rows if r["state"] == state)

    line = f"targets ({targets}): {counted['met']} of {counted['count']} met"
    missed, unsure, empty = names("bad"), names("unsure"), names("none")
    if missed:
        line += f"; missed: {missed}"
    if unsure:
        line += f"; not shown yet: {unsure}"
    if empty:
        line += f"; nothing to measure: {empty}"
    return visible(line + " (report.md shows each).")


def _run_summary(comparison, main: str, parameters: Dict[str, object]) -> Optional[Dict[str, Any]]:
    """The figures of the cases judged for the notebooks, with the run's margin and label budget:
    what the line after the run asks people to label. Computed once the cases are judged, before
    any notebook runs, so that a label budget too small to give every stratum of the judge's
    verdicts its labels is refused then (notebook 03 would stop on it, after the ones before)."""
    from ..measure.summary import score_summary

    evaluation = getattr(comparison, "evaluations", {}).get(main) if comparison is not None else None
    if evaluation is None:
        return None
    budget = parameters.get("label_budget")
    margin = parameters.get("margin", 0.05)
    try:
        return score_summary(evaluation, margin=float(margin) if isinstance(margin, (int, float)) else 0.05,
                             label_budget=budget if isinstance(budget, int) and not isinstance(budget, bool)
                             and budget else None)
    except GroundlabError as error:
        raise GroundlabError(f"{str(error).rstrip('.')}; nothing was run.") from None


def _label_request_line(s: Optional[Dict[str, Any]], out: Path, shown: str, log: str, passages: str = "") -> str:
    """What the run asks people to label, in a line, when the hallucination rate needs labels
    (``s``: :func:`_run_summary`), and where to read the labels back: into the sample drawn (its
    weights give the log's rate so far) on a first round; into the log itself (``log``, as the run
    names it) once it holds labels, since this round's sample holds only the answers drawn now and
    the rate rests on all of them. A second person's sheet, when the round set one aside, is named
    with its answers and read back beside the first; the passages file goes with the import, so that
    each row's passages are checked by content. Paths are quoted as a shell needs them."""
    from shlex import quote

    from ..present.headline import label_request_words

    if s is None or not (out / "labeling" / "sheet.csv").is_file():
        return ""
    if not s.get("label_request") or not s["label_request"]["more"]:
        return ""
    where = f"{shown.rstrip('/')}/labeling"
    words = label_request_words(s, f"{where}/sheet.csv")
    sheet = quote(f"{where}/sheet.csv")
    second = out / "labeling" / "second-person.csv"
    if second.is_file():
        from ..labeling.sheet import read_sheet

        answers = len(set(read_sheet(second)["case_id"]))
        words += (f"; a second person labels the {answers} answers of {where}/second-person.csv as well, for how far "
                  f"two people agree (both by {where}/GUIDELINES.md)")
        sheet += " " + quote(f"{where}/second-person.csv")
    given = f" --passages {quote(passages)}" if passages else ""
    if s["hallucination_rate"]["basis"] is None:
        return (f"the hallucination rate is not measured yet: {words}; then: groundlab label import "
                f"{sheet} --cases {quote(f'{where}/sample.jsonl')}{given} --out labeled.jsonl --partial")
    return (f"the hallucination rate is corrected by the labels so far: {words}; then: groundlab label import "
            f"{sheet} --cases {quote(log)}{given} --out labeled.jsonl --partial (the labels join those {log} holds), "
            "and run again with --cases labeled.jsonl")


def _names(parameters: Dict[str, object]) -> List[str]:
    names = parameters.get("mask_names") or []
    return [str(n) for n in names] if isinstance(names, list) else [str(names)]


def _check_figures_dir(folder: object, force: bool) -> None:
    """``-p figures_dir DIR`` outside the run folder: the charts replace files of their names there,
    so DIR must be new or empty, or ``--force`` given."""
    if folder is None or not str(folder).strip():
        return
    path = Path(str(folder))
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise GroundlabError(f"-p figures_dir {path} is {'a symbolic link' if path.is_symlink() else 'a file'}, not a "
                             "folder; nothing was written (give a new or empty folder).")
    if path.is_dir() and any(path.iterdir()) and not force:
        raise GroundlabError(f"-p figures_dir {path} already holds files, which charts of the same names would "
                             "replace; nothing was written (give a new or empty folder, or pass --force to replace "
                             "the charts there).")


def _shown(path, kept: Dict[str, str]) -> str:
    """An input as the run's record names it: as given for standard input or a pipe (``stdin``),
    else relative to the current folder."""
    from ..core.io import display_name
    from ..present.notebooks import relative

    return display_name(path) if str(path) in kept else relative(path)


def _check_targets(path: Optional[str], notebooks: Sequence[Path]) -> str:
    """The targets file of ``--targets`` (or ``-p targets``), read and checked as ``score --targets``
    reads it, before anything runs; "" without one."""
    from ..present.notebooks import notebook_parameters
    from ..production.targets import load_targets

    if path is None or not str(path).strip():
        return ""
    if not any("targets" in notebook_parameters(nb) for nb in notebooks):
        raise GroundlabError(f"--targets sets the targets of notebook 03, and no notebook in {notebooks[0].parent} "
                             "takes them; drop --targets, or run the workbook's notebooks.")
    _refuse_stream("--targets", path, "the targets")
    load_targets(path)
    return str(path)


def _refuse_stream(option: str, path: str, what: str) -> None:
    """A file every notebook reads again cannot be standard input or a pipe: one sentence."""
    from ..core.io import is_regular_file

    if str(path) == "-" or (Path(path).exists() and not Path(path).is_dir() and not is_regular_file(path)):
        raise GroundlabError(f"{option} {path} is standard input or a pipe, which the "
                             f"notebooks cannot read again; save {what} to a file and pass its path.")


def _second_configuration(args: argparse.Namespace, passages: Optional[str]) -> Tuple[str, Optional[str]]:
    """The second configuration's cases and passages (``--cases-b``, ``--passages-b``); ``""`` and
    ``None`` without one. B's passages default to A's."""
    if args.passages_b is not None and not args.cases_b:
        raise GroundlabError("--passages-b names B's passages, but no --cases-b gives B's cases; add --cases-b FILE "
                             "or drop --passages-b.")
    if not args.cases_b:
        return "", None
    return str(args.cases_b), (str(args.passages_b) if args.passages_b else passages)


def _without_second_configuration(notebooks: List[Path], cases_b: str,
                                  given: Sequence[str]) -> Tuple[List[Path], Dict[str, str]]:
    """The notebooks to run: without a second cases file, the ones that compare two configurations
    are skipped (each named with why). A ``-p`` parameter only they take is refused, since it would
    do nothing."""
    from ..present.notebooks import COMPARISON_PARAMETERS, SECOND_CASES, compares_two, notebook_parameters

    comparing = [nb for nb in notebooks if compares_two(nb)]
    if cases_b:
        if not any(SECOND_CASES in notebook_parameters(nb) for nb in notebooks):
            raise GroundlabError(f"--cases-b gives a second configuration, but no notebook in {notebooks[0].parent} "
                                 "compares two or reports on them (05-compare and 03-risk-report do); drop --cases-b, or run the "
                                 "workbook's notebooks.")
        return notebooks, {}
    for name in given:
        if name in COMPARISON_PARAMETERS:
            raise GroundlabError(f"-p {name} says how two configurations are compared, and there is no second one; "
                                 f"add --cases-b FILE, or drop -p {name}.")
    kept = [nb for nb in notebooks if nb not in comparing]
    if not comparing:
        return notebooks, {}
    names = ", ".join(nb.name for nb in comparing)
    if not kept:
        raise GroundlabError(f"{names} compare{'s' * (len(comparing) == 1)} two configurations and there is no other "
                             "notebook to run; give the second one's cases with --cases-b FILE.")
    for name in given:
        if not any(name in notebook_parameters(nb) for nb in kept):
            raise GroundlabError(f"-p {name} is a parameter of {names} only, which the run skips without a second "
                                 "configuration; add --cases-b FILE, or drop -p " + name + ".")
    return kept, {nb.name: "it compares two configurations; give the second one's cases with --cases-b FILE"
                  for nb in comparing}


def judge_identities(comparisons) -> Dict[str, Dict]:
    """The identity of every judge the run judged with, by name."""
    out: Dict[str, Dict] = {}
    for comparison in comparisons:
        for name, ev in comparison.evaluations.items():
            identity = ev.claims.attrs.get("judge")
            if identity is not None:
                out.setdefault(name, identity)
    return out


def notebook_identities(notebooks: Sequence[Path], plans: Dict, identities: Dict[str, Dict]) -> Dict[Path, Dict]:
    """Per notebook, what its metadata records: the identity of the judge it reports on."""
    from ..core.identity import identity_text
    from ..present.notebooks import declared_default

    out = {}
    for nb in notebooks:
        name = plans[nb].get("judge", declared_default(nb, "judge"))
        if name in identities:
            out[nb] = {"judge_identity": identities[name], "judge_line": identity_text(identities[name])}
    return out


#: Where ``--slides`` puts the charts at slide size.
SLIDES_DIR = "slides"
#: The run's judged result, shared by its notebooks (``judged_file``).
JUDGED_FILE = "judged.pkl"
#: The second configuration's judged result, for the notebook that compares (``judged_file_b``).
JUDGED_FILE_B = "judged_b.pkl"
