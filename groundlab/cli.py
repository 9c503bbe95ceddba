"""The ``groundlab`` command.

Every problem a person can fix (a bad line in a file, a wrong option) is printed as one sentence
on stderr, with exit status 2 and no traceback; nothing is written in that case.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import __version__
from .records import GroundlabError
from .stats import percent

SAMPLE_FILES = ("notes.jsonl", "grounded_cases.jsonl")


# ---------------------------------------------------------------- options


def _common_inputs(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    g = parser.add_argument_group("input")
    g.add_argument("--cases", metavar="FILE",
                   help="cases, one JSON object a line (default: data/grounded_cases.jsonl, "
                        "else the sample set shipped with groundlab)")
    g.add_argument("--passages", metavar="FILE",
                   help="passages the cases' \"retrieved\" ids refer to (default with the default "
                        "cases: data/notes.jsonl)")
    return g


def _common(parser: argparse.ArgumentParser) -> None:
    from .judges import DEFAULT_JUDGE, describe_judges

    g = _common_inputs(parser)
    g.add_argument("--judge", default=DEFAULT_JUDGE, metavar="NAME",
                   help="; ".join(f"{k}: {v}" for k, v in describe_judges().items()))
    g.add_argument("--workers", type=_positive_int, default=None, metavar="N",
                   help="processes that read and judge a large cases file (5 MB or more) with the "
                        "rules judges (default: one per core)")
    claim_options(g)


def claim_options(group: argparse._ArgumentGroup) -> None:
    """How answers are split into claims: the citation pattern and extra abstention wordings."""
    group.add_argument("--citation-pattern", metavar="REGEX",
                       help=r"how citations are written, one group capturing the id(s) "
                            r"(default: \[D07\], \[D07, D06\])")
    group.add_argument("--abstention-phrase", metavar="REGEX", action="append", default=[],
                       help="another wording that means the assistant cannot answer (repeatable; "
                            "added to the built-in ones)")


def _judge_options(parser: argparse.ArgumentParser, dry_run: bool = True) -> None:
    g = parser.add_argument_group("model judges (llm, nli)")
    g.add_argument("--model", metavar="NAME",
                   help="llm: the model (default: $LLM_MODEL, else claude-opus-5-5); nli: a local model "
                        "folder or a name in the local Hugging Face cache")
    g.add_argument("--cache", metavar="DIR", help="llm: where replies are kept (default: .groundlab/cache)")
    g.add_argument("--no-cache", action="store_true", help="llm: neither read nor write the cache")
    g.add_argument("--concurrency", type=_positive_int, metavar="N",
                   help="llm: requests in flight at once (default 4)")
    if dry_run:
        g.add_argument("--dry-run", action="store_true",
                       help="llm: print the requests and input tokens a run would cost, and send nothing")


def _judge_kwargs(args: argparse.Namespace, cache: bool = True) -> Dict:
    """The options of ``--judge``; one given to a judge that has no use for it is a mistake."""
    dry_run = getattr(args, "dry_run", False)
    given = {"--model": args.model, "--cache": args.cache, "--no-cache": args.no_cache,
             "--concurrency": args.concurrency, "--dry-run": dry_run}
    allowed = {"llm": set(given), "nli": {"--model"}}.get(args.judge, set())
    extra = [k for k, v in given.items() if v not in (None, False) and k not in allowed]
    if extra:
        raise GroundlabError(f"{extra[0]} does not apply to the {args.judge} judge; "
                             f"drop it{' or use --judge llm' if args.judge != 'llm' else ''}.")
    kwargs: Dict = {"model": args.model} if args.model else {}
    if args.judge == "llm":
        if args.no_cache or not cache:
            kwargs["cache"] = None
        elif args.cache:
            kwargs["cache"] = args.cache
        if args.concurrency:
            kwargs["concurrency"] = args.concurrency
        kwargs["dry_run"] = dry_run
    return kwargs


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None


def _fraction(text: str) -> float:
    """A rate or margin written 0.6 or 60%."""
    body = text.strip()
    scale = 100.0 if body.endswith("%") else 1.0
    try:
        value = float(body.rstrip("%")) / scale
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"must be a number like 0.6 or 60%, not {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="groundlab", description=(
        "Measure how far a RAG assistant's answers stay within the passages it was given: "
        "claims judged supported / contradicted / unsupported, citations, abstentions, and a "
        "risk-weighted score, each rate with its Wilson 95% range."))
    parser.add_argument("--version", action="version", version=f"groundlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("init", help="copy the sample set and the notebooks into a folder to start from")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="where to put data/ and notebooks/ (default: here)")
    p.add_argument("--force", action="store_true", help="replace files that are already there")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("check", help="check the cases and passages and show how answers split into claims")
    _common(p)
    p.add_argument("--show-claims", action="store_true", help="list every case's claims and citations")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("score", help="judge every claim and print the measures")
    _common(p)
    _judge_options(p)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--penalty", type=_number, default=None, metavar="P",
                   help="what a wrong answer costs, in correct answers (default 1)")
    g.add_argument("--confidence-target", type=_number, default=None,
                   metavar="T", help="answer only when at least this sure: penalty T/(1-T) (0.75 gives 3)")
    p.add_argument("--report", metavar="FILE.md", help="also write the one-page steering report here")
    p.add_argument("--force", action="store_true", help="with --report: replace a file groundlab did not write")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("agree", help="compare the judge with the person's labels")
    _common(p)
    _judge_options(p)
    p.add_argument("--repeat", type=_positive_int, default=1, metavar="N",
                   help="judge N times (the llm judge without its cache) and report the flip rate: "
                        "claims whose verdict changed between runs")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=cmd_agree)

    # Workbook commands (notebooks run with papermill, sample-size planning) are added here.
    p = sub.add_parser("run", help="run the notebooks (papermill) into a report folder: notebooks, HTML, figures, report.md")
    _common_inputs(p)
    p.add_argument("--judge", metavar="NAME", help="the judge the notebooks use (default: each notebook's own, rules)")
    p.add_argument("--penalty", type=_number, metavar="P",
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

    p = sub.add_parser("plan", help="how many test answers give a 95%% range of \u00b1M around a rate R")
    p.add_argument("--rate", required=True, type=_fraction, metavar="R",
                   help="the rate you expect, as 0.6 or 60%%")
    p.add_argument("--margin", required=True, type=_fraction, metavar="M",
                   help="half the width of the range you want, as 0.05 or 5%% (\u00b15 points)")
    p.set_defaults(func=cmd_plan)


    # Import and labeling commands are added here.
    from .labeling_cli import add_commands as add_labeling_commands

    add_labeling_commands(sub)

    return parser


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake in one sentence (exit 2) instead of a usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        match = re.match(r"argument (\S+): (.*)", message)
        if match:  # "argument --penalty: must be a number" -> "--penalty must be a number"
            option, rest = match.groups()
            message = rest if rest.startswith("invalid choice") else f"{option.split('/')[0]} {rest}"
        sys.stderr.write(f"groundlab: {message} (see '{self.prog} --help').\n")
        raise SystemExit(2)


# ---------------------------------------------------------------- helpers


def _input_paths(args: argparse.Namespace, quiet: bool = False):
    from .io import sample_path

    cases, passages = args.cases, args.passages
    if cases is None:
        local = Path("data") / "grounded_cases.jsonl"
        if local.exists():
            cases = str(local)
            if passages is None and (Path("data") / "notes.jsonl").exists():
                passages = str(Path("data") / "notes.jsonl")
        else:
            cases = str(sample_path("grounded_cases.jsonl"))
            if passages is None:
                passages = str(sample_path("notes.jsonl"))
            if not quiet:
                print("groundlab: no data/grounded_cases.jsonl here; using the sample set shipped with "
                      "groundlab ('groundlab init' copies it here).", file=sys.stderr)
    return cases, passages


def _splitter(args: argparse.Namespace):
    from .claims import DEFAULT_ABSTENTION_PHRASES, ClaimSplitter

    for option, patterns in (("--citation-pattern", [args.citation_pattern or ""]),
                             ("--abstention-phrase", args.abstention_phrase)):
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise GroundlabError(f"{option} {pattern!r} is not a valid regular expression ({exc}); "
                                     "fix it and run again.") from None
    try:
        return ClaimSplitter(args.citation_pattern,
                             DEFAULT_ABSTENTION_PHRASES + tuple(args.abstention_phrase))
    except ValueError as exc:
        raise GroundlabError(f"{exc}.") from None


def _load(args: argparse.Namespace):
    from .io import load_cases

    cases_path, passages_path = _input_paths(args)
    return cases_path, load_cases(cases_path, passages_path)


def _evaluate(args: argparse.Namespace, runs: int = 1):
    """Judge the cases ``runs`` times; one evaluation, or a list of them when ``runs`` > 1."""
    from .evaluate import evaluate, evaluate_file
    from .judges import get_judge, nothing_judged
    from .stats import import_statsmodels

    judge = get_judge(args.judge, **_judge_kwargs(args, cache=runs == 1))
    splitter = _splitter(args)
    if runs == 1:
        source, passages = _input_paths(args)
        big = Path(source).is_file() and Path(source).stat().st_size > 2_000_000
        evs = [evaluate_file(source, passages, judge, splitter=splitter,
                             workers=args.workers if args.workers is not None else (os.cpu_count() or 1),
                             progress=sys.stderr.isatty() and big, while_waiting=import_statsmodels)]
    else:
        source, cases = _load(args)
        evs = [evaluate(cases, judge, splitter=splitter) for _ in range(runs)]
    for ev in evs:
        stop = nothing_judged(ev.judge, ev.claims["error"].tolist())
        if stop:
            raise GroundlabError(stop)
    _judge_summary(judge)
    return source, (evs[0] if runs == 1 else evs)


def _judge_summary(judge) -> None:
    """A model judge's requests and tokens, on stderr."""
    if hasattr(judge, "summary"):
        print(f"groundlab: {judge.summary()}", file=sys.stderr)


def _dry_run(args: argparse.Namespace) -> int:
    from .evaluate import claim_pairs, split_cases
    from .judges import get_judge

    judge = get_judge(args.judge, **_judge_kwargs(args))
    source, cases = _load(args)
    pairs = claim_pairs(list(zip(cases, split_cases(cases, _splitter(args)))))
    runs = getattr(args, "repeat", 1)
    estimate = judge.estimate(pairs)
    if runs > 1:  # repeated runs skip the cache: every run sends every request
        estimate = type(estimate)(runs * (estimate.requests + estimate.cached), 0,
                                  runs * sum(r.estimated_tokens() for _, r in judge.requests_for(pairs)))
    _emit(f"groundlab dry run: judge {args.judge} ({judge.model}) on {len(cases)} cases, {len(pairs)} claims "
          f"({source}): {estimate}. Nothing was sent.")
    return 0



def _table(rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    widths = [max(len(str(r[k])) for r in rows) for k in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [str(c).rjust(w) if k in right else str(c).ljust(w) for k, (c, w) in enumerate(zip(row, widths))]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def _emit(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


# ---------------------------------------------------------------- commands


def cmd_init(args: argparse.Namespace) -> int:
    from .io import sample_path
    from .notebooks import find_notebooks, packaged_notebooks

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
    _emit(f"wrote the sample set to {target}/ ({', '.join(SAMPLE_FILES)}) and the notebooks to "
          f"{Path(args.dir) / 'notebooks'}/; now run 'groundlab run' or 'groundlab score' in {args.dir}.")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from .evaluate import split_cases
    from .io import plural

    source, cases = _load(args)
    splits = split_cases(cases, _splitter(args))
    n_claims = sum(len(s.claims) for s in splits)
    warnings: List[str] = []
    for case, split in zip(cases, splits):
        ids = {p.id for p in case.retrieved}
        if len(ids) < len(case.retrieved):
            twice = sorted({p.id for p in case.retrieved if [q.id for q in case.retrieved].count(p.id) > 1})
            warnings.append(f"{case.where}: passage {', '.join(twice)} is retrieved more than once; a "
                            "citation of it stands for the last one.")
        for claim in split.claims:
            stray = [c for c in claim.cites if c not in ids]
            if stray:
                warnings.append(f"{case.where}: claim {claim.number} cites {', '.join(stray)}, which "
                                "was not retrieved; that citation cannot back it.")
        if not split.claims and not split.abstains:
            warnings.append(f"{case.where}: the answer holds no claim and no abstention; it counts as abstained.")
    labeled = sum(c.labels is not None for c in cases)
    known = sum(c.answerable is not None for c in cases)
    abstaining = sum(not s.claims for s in splits)
    _emit(f"{source}: {plural(len(cases), 'case', 'cases')}, {plural(n_claims, 'claim', 'claims')}, "
          f"{abstaining} abstaining; {labeled} labeled, {known} with answerable set. OK.")
    for line in warnings:
        _emit(f"note: {line}")
    if args.show_claims:
        for case, split in zip(cases, splits):
            _emit(f"\n{case.id}: {len(split.claims)} claim(s){', abstains' if split.abstains else ''}")
            for claim in split.claims:
                cites = f" [{', '.join(claim.cites)}]" if claim.cites else ""
                _emit(f"  {claim.number}. {claim.text}{cites}")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from .metrics import citations_undecided, penalty_for_confidence
    from .report import check_report_target, steering_report, write_report
    from .summary import rates, score_summary

    if args.confidence_target is not None:
        penalty = penalty_for_confidence(args.confidence_target)
    else:
        penalty = 1.0 if args.penalty is None else args.penalty
        if penalty < 0 or math.isnan(penalty) or math.isinf(penalty):
            raise GroundlabError(f"--penalty must be 0 or more, not {args.penalty:g}; a wrong answer costs "
                                 "that many correct ones (3 matches a 75% confidence target).")
    if args.dry_run:
        return _dry_run(args)
    if args.report:
        check_report_target(Path(args.report), args.force, inputs=_input_paths(args, quiet=True))
    source, ev = _evaluate(args)
    summary = score_summary(ev, penalty)
    if args.report:
        write_report(Path(args.report), steering_report(ev, penalty, source), force=args.force)
    if args.json:
        _emit(json.dumps(summary))
    else:
        _emit(_score_text(summary, rates(ev), source, citations_undecided(ev.claims)) + _error_lines(ev))
    if args.report:
        print(f"groundlab: wrote the steering report to {args.report}", file=sys.stderr)
    return 0


def _rate_row(name: str, rate, noun: str, note: str, missing: str) -> List[str]:
    """A table row: the rate, its count, its Wilson 95% range and a note (``missing`` when the
    rate is over nothing)."""
    if not rate.total:
        return [name, "n/a", "\u2014", "", missing]
    low, high = rate.interval
    count = f"{rate.count}/{rate.total} {noun}".rstrip()
    return [name, percent(rate.rate), count, f"{percent(low)}\u2013{percent(high)}", note]


def _score_text(s: Dict, r: Dict, source: str, undecided_checks: int = 0) -> str:
    def row(name: str, key: str, noun: str, note: str, missing: str):
        return _rate_row(name, r[key], noun, note, missing)

    undecided = "every citation check undecided (see below)" if undecided_checks else ""
    rows = [["measure", "rate", "count", "95% range", ""],
            row("hallucination rate", "hallucination rate", "answered", "answers with a claim not supported",
                "no answered cases"),
            row("  by the person", "hallucination rate by the person", "labeled", "",
                "no labeled answers: person-based line unavailable"),
            row("faithfulness", "faithfulness", "claims",
                f"contradicted {s['contradicted']}, unsupported {s['unsupported']}", "no claims"),
            row("citation recall", "citation recall", "supported", "",
                "no supported claims" if r["citation precision"].total else undecided or "no citations"),
            row("citation precision", "citation precision", "citations", "", undecided or "no citations"),
            row("abstention", "abstention", "unanswerable", "unanswerable questions declined",
                "no unanswerable cases (set \"answerable\": false)"),
            row("false abstention", "false abstention", "answerable", "answerable questions declined",
                "no answerable cases (set \"answerable\": true)"),
            row("accuracy-only score", "accuracy-only score", "cases", "a wrong answer costs nothing", "no cases")]
    o = s["outcomes"]
    head = (f"groundlab score: judge {s['judge']}, {s['cases']} cases, {s['claims']} claims ({source})")
    tail = [f"outcomes: correct {o['correct']}, abstained {o['abstained']}, wrong {o['wrong']}",
            f"risk-weighted score: {s['risk_weighted_score']:+g} "
            f"(correct - {s['penalty']:g} x wrong; an abstention scores 0)"]
    if s["errors"]:
        tail.append(f"judge errors: {s['errors']} claims could not be judged and are left out of every rate")
    if undecided_checks:
        tail.append(f"citation checks undecided: {undecided_checks} cited claims (found supported with no "
                    "retrieved passage named behind them, or their cited passages could not be judged) are left "
                    "out of citation recall and precision")
    return "\n".join([head, "", _table(rows), ""] + tail)


def _error_lines(ev) -> str:
    """The claims the judge could not decide, each with its reason."""
    failed = ev.claims[ev.claims["error"].notna()]
    return "".join(f"\n  {row.case_id} claim {row.claim}: {row.error}" for row in failed.itertuples())


def cmd_agree(args: argparse.Namespace) -> int:
    from .metrics import disagreements, flip_rate
    from .summary import agree_summary

    if args.dry_run:
        return _dry_run(args)
    source, ev = _evaluate(args, runs=args.repeat)
    flips = None
    if args.repeat > 1:
        flips = flip_rate([run.claims for run in ev])
        ev = ev[0]
    a = agree_summary(ev)
    if args.json:
        if flips is not None:
            r = flips.rate
            a["repeat"] = {"runs": args.repeat, "flipped": r.count, "claims": r.total,
                           "rate": r.rate if r.total else None, "errors": flips.errors}
        _emit(json.dumps(a))
        return 0
    if flips is not None:
        r = flips.rate
        _emit(f"groundlab agree: judge {a['judge']} run {args.repeat} times (no cache): {r.count} of {r.total} "
              f"claims changed verdict between runs, flip rate {percent(r.rate) if r.total else 'n/a'}"
              + (f" (95% range {percent(r.low)}\u2013{percent(r.high)})" if r.total else "")
              + (f"; {flips.errors} claims could not be judged in every run" if flips.errors else "")
              + "".join(f"\n  {f.case_id} claim {f.claim}: {' / '.join(map(str, f.verdicts))}"
                        for f in flips.flipped.itertuples()) + "\n")
    n = a["agreement"]["claims"]
    head = f"groundlab agree: judge {a['judge']} against the person's labels ({source})"
    if not n:
        _emit(f"{head}\n\nno labeled cases were found ({a['unlabeled_cases']} unlabeled); add \"labels\" "
              "to some cases to check the judge.")
        return 0
    from .stats import Rate

    def line(name: str, count: int, total: int, note: str) -> List[str]:
        return _rate_row(name, Rate(count, total), "", note, note)

    matrix = [["person \\ judge"] + a["order"]] + [[v] + [str(x) for x in row] for v, row in zip(a["order"], a["confusion"])]
    stats = [["measure", "rate", "count", "95% range", ""],
             line("agreement", a["agreement"]["agree"], n, "same verdict as the person"),
             line("caught", a["caught"]["caught"], a["caught"]["hallucinated"],
                  "hallucinated claims the judge also flagged"),
             line("false alarms", a["false_alarms"]["flagged"], a["false_alarms"]["supported"],
                  "supported claims the judge flagged")]
    kappa = "n/a" if a["kappa"] is None else f"{a['kappa']:.2f}"
    parts = [head, "", _table(matrix, right=(1, 2, 3)), "", _table(stats), "", f"Cohen's kappa: {kappa}"]
    if a["unlabeled_cases"]:
        parts.append(f"unlabeled cases skipped: {a['unlabeled_cases']}")
    errors = _error_lines(ev)
    if errors:
        parts.append(f"judge errors, left out of the agreement:{errors}")
    diff = disagreements(ev.claims)
    if len(diff):
        parts += ["", "disagreements:"]
        for d in diff.itertuples():
            parts.append(f"  {d.case_id} claim {d.claim}: person {d.person}, judge {d.judge} ({d.reason})")
    _emit("\n".join(parts))
    return 0


#: ``groundlab run`` options that set a notebook parameter, which ``-p NAME VALUE`` may set instead.
RUN_OPTIONS = {"cases": "--cases", "passages": "--passages", "judge": "--judge", "penalty": "--penalty"}


def cmd_run(args: argparse.Namespace) -> int:
    from .io import load_cases, plural
    from .notebooks import (
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
    cases, passages = _input_paths(args)
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
    _emit(f"wrote {out}/: " + ", ".join(parts) + ".")
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


def cmd_plan(args: argparse.Namespace) -> int:
    from .io import plural
    from .stats import answers_needed, interval_bounds

    rate, margin = args.rate, args.margin
    if not 0 <= rate <= 1:
        raise GroundlabError(f"--rate must be between 0 and 1 (or 0% and 100%), not {rate:g}; "
                             "e.g. --rate 0.6 or --rate 60%.")
    if not 0 < margin < 0.5:
        raise GroundlabError(f"--margin must be more than 0 and less than 0.5 (50%), not {margin:g}; "
                             "e.g. --margin 0.05 or --margin 5% for \u00b15 points.")
    n = answers_needed(rate, margin)
    low, high = interval_bounds(rate, n)
    _emit(f"{plural(n, 'test answer gives', 'test answers give')} a Wilson 95% range of "
          f"\u00b1{_points(margin)} around {_pct_exact(rate)} ({_pct_exact(low)} to {_pct_exact(high)}).")
    return 0


def _points(margin: float) -> str:
    points = f"{100 * margin:.3g}"
    return f"{points} point{'' if points == '1' else 's'}"


def _pct_exact(x: float) -> str:
    """A percentage to 3 significant digits; what rounding leaves a hair away from 0% or 100% is shown as such."""
    x = min(1.0, max(0.0, x))
    if x < 5e-6 or x > 1 - 5e-6:
        x = round(x)
    return f"{100 * x:.3g}%"


# ---------------------------------------------------------------- entry point


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except GroundlabError as exc:
        print(f"groundlab: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("groundlab: interrupted; nothing more was written.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`groundlab score | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a path the file system refuses: name it, no traceback
        where = f" {exc.filename}" if exc.filename else ""
        print(f"groundlab: cannot use{where}: {exc.strerror or exc}; check the path and run again.",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
