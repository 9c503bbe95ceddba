"""The ``groundlab`` command.

Every problem a person can fix (a bad line in a file, a wrong option) is printed as one sentence
on stderr, with exit status 2 and no traceback; nothing is written in that case.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from . import __version__
from .records import GroundlabError

SAMPLE_FILES = ("notes.jsonl", "grounded_cases.jsonl")


# ---------------------------------------------------------------- options


def _common(parser: argparse.ArgumentParser) -> None:
    from .judges import DEFAULT_JUDGE, describe_judges

    g = parser.add_argument_group("input")
    g.add_argument("--cases", metavar="FILE",
                   help="cases, one JSON object a line (default: data/grounded_cases.jsonl, "
                        "else the sample set shipped with groundlab)")
    g.add_argument("--passages", metavar="FILE",
                   help="passages the cases' \"retrieved\" ids refer to (default with the default "
                        "cases: data/notes.jsonl)")
    g.add_argument("--judge", default=DEFAULT_JUDGE, metavar="NAME",
                   help="; ".join(f"{k}: {v}" for k, v in describe_judges().items()))
    g.add_argument("--citation-pattern", metavar="REGEX",
                   help=r"how citations are written, one group capturing the id(s) (default: \[D07\], \[D07, D06\])")
    g.add_argument("--abstention-phrase", metavar="REGEX", action="append", default=[],
                   help="another wording that means the assistant cannot answer (repeatable; "
                        "added to the built-in ones)")


def _nonneg_float(name: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, not {text!r}") from None
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="groundlab", description=(
        "Measure how far a RAG assistant's answers stay within the passages it was given: "
        "claims judged supported / contradicted / unsupported, citations, abstentions, and a "
        "risk-weighted score, each rate with its Wilson 95% range."))
    parser.add_argument("--version", action="version", version=f"groundlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("init", help="copy the sample set into a folder to start from")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="where to put data/ (default: here)")
    p.add_argument("--force", action="store_true", help="replace files that are already there")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("check", help="check the cases and passages and show how answers split into claims")
    _common(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("score", help="judge every claim and print the measures")
    _common(p)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--penalty", type=_nonneg_float("--penalty"), default=None, metavar="P",
                   help="what a wrong answer costs, in correct answers (default 1)")
    g.add_argument("--confidence-target", type=_nonneg_float("--confidence-target"), default=None,
                   metavar="T", help="answer only when at least this sure: penalty T/(1-T) (0.75 gives 3)")
    p.add_argument("--report", metavar="FILE.md", help="also write the one-page steering report here")
    p.add_argument("--force", action="store_true", help="with --report: replace a file groundlab did not write")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("agree", help="compare the judge with the person's labels")
    _common(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=cmd_agree)

    # Workbook commands (notebooks run with papermill, sample-size planning) are added here.

    # Import and labeling commands are added here.
    from .labeling_cli import add_commands as add_labeling_commands

    add_labeling_commands(sub)

    return parser


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake in one sentence (exit 2) instead of a usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: {message}; see '{self.prog} --help'.\n")
        raise SystemExit(2)


# ---------------------------------------------------------------- helpers


def _input_paths(args: argparse.Namespace):
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
            print("groundlab: no data/grounded_cases.jsonl here; using the sample set shipped with "
                  "groundlab ('groundlab init' copies it here).", file=sys.stderr)
    return cases, passages


def _splitter(args: argparse.Namespace):
    from .claims import DEFAULT_ABSTENTION_PHRASES, ClaimSplitter
    import re

    try:
        return ClaimSplitter(args.citation_pattern,
                             DEFAULT_ABSTENTION_PHRASES + tuple(args.abstention_phrase))
    except re.error as exc:
        raise GroundlabError(f"a --citation-pattern or --abstention-phrase is not a valid regular "
                             f"expression ({exc}); fix it and run again.") from None
    except ValueError as exc:
        raise GroundlabError(f"{exc}.") from None


def _load(args: argparse.Namespace):
    from .io import load_cases

    cases_path, passages_path = _input_paths(args)
    return cases_path, load_cases(cases_path, passages_path)


def _evaluate(args: argparse.Namespace):
    from .evaluate import evaluate
    from .judges import get_judge

    judge = get_judge(args.judge)
    source, cases = _load(args)
    ev = evaluate(cases, judge, splitter=_splitter(args), progress=sys.stderr.isatty() and len(cases) > 5000)
    return source, ev


def _pct(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.0f}%"


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

    target = Path(args.dir) / "data"
    existing = [target / name for name in SAMPLE_FILES if (target / name).exists()]
    if existing and not args.force:
        names = ", ".join(str(p) for p in existing)
        raise GroundlabError(f"{names} already exist{'s' if len(existing) == 1 else ''}; nothing was written "
                             "(pass --force to replace them with the sample set).")
    target.mkdir(parents=True, exist_ok=True)
    for name in SAMPLE_FILES:
        shutil.copyfile(sample_path(name), target / name)
    _emit(f"wrote the sample set to {target}/ ({', '.join(SAMPLE_FILES)}); "
          f"now run 'groundlab score' in {args.dir}.")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from .evaluate import split_cases

    source, cases = _load(args)
    splits = split_cases(cases, _splitter(args))
    n_claims = sum(len(s.claims) for s in splits)
    warnings: List[str] = []
    for case, split in zip(cases, splits):
        ids = {p.id for p in case.retrieved}
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
    _emit(f"{source}: {len(cases)} cases, {n_claims} claims, {abstaining} abstaining; "
          f"{labeled} labeled, {known} with answerable set. OK.")
    for line in warnings:
        _emit(f"note: {line}")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from .metrics import penalty_for_confidence
    from .report import check_report_target, steering_report, write_report
    from .summary import rates, score_summary

    if args.confidence_target is not None:
        penalty = penalty_for_confidence(args.confidence_target)
    else:
        penalty = 1.0 if args.penalty is None else args.penalty
        if penalty < 0 or math.isnan(penalty) or math.isinf(penalty):
            raise GroundlabError(f"--penalty must be 0 or more, not {args.penalty:g}; a wrong answer costs "
                                 "that many correct ones (3 matches a 75% confidence target).")
    if args.report:
        check_report_target(Path(args.report), args.force)
    source, ev = _evaluate(args)
    summary = score_summary(ev, penalty)
    if args.report:
        write_report(Path(args.report), steering_report(ev, penalty, source), force=args.force)
    if args.json:
        _emit(json.dumps(summary))
    else:
        _emit(_score_text(summary, rates(ev), source))
    if args.report:
        print(f"groundlab: wrote the steering report to {args.report}", file=sys.stderr)
    return 0


def _score_text(s: Dict, r: Dict, source: str) -> str:
    def row(name: str, key: str, noun: str, note: str = ""):
        rate = r[key]
        if not rate.total:
            return [name, "n/a", f"0 {noun}", "", note or f"no {noun}"]
        low, high = rate.interval
        return [name, _pct(rate.rate), f"{rate.count}/{rate.total} {noun}", f"{_pct(low)}\u2013{_pct(high)}", note]

    rows = [["measure", "rate", "count", "95% range", ""],
            row("hallucination rate", "hallucination rate", "answered", "answers with a claim not supported"),
            row("  by the person", "hallucination rate by the person", "labeled",
                "" if s["hallucination_rate_by_person"] else "no labeled answers: person-based line unavailable"),
            row("faithfulness", "faithfulness", "claims",
                f"contradicted {s['contradicted']}, unsupported {s['unsupported']}"),
            row("citation recall", "citation recall", "supported",
                "" if r["citation precision"].total else "no citations"),
            row("citation precision", "citation precision", "citations",
                "" if r["citation precision"].total else "no citations"),
            row("abstention", "abstention", "unanswerable", "unanswerable questions declined"),
            row("false abstention", "false abstention", "answerable", "answerable questions declined"),
            row("accuracy-only score", "accuracy-only score", "cases", "a wrong answer costs nothing")]
    o = s["outcomes"]
    head = (f"groundlab score: judge {s['judge']}, {s['cases']} cases, {s['claims']} claims ({source})")
    tail = [f"outcomes: correct {o['correct']}, abstained {o['abstained']}, wrong {o['wrong']}",
            f"risk-weighted score: {s['risk_weighted_score']:+g} "
            f"(correct - {s['penalty']:g} x wrong; an abstention scores 0)"]
    if s["errors"]:
        tail.append(f"judge errors: {s['errors']} claims could not be judged and are left out of every rate")
    return "\n".join([head, "", _table(rows), ""] + tail)


def cmd_agree(args: argparse.Namespace) -> int:
    from .metrics import disagreements
    from .summary import agree_summary

    source, ev = _evaluate(args)
    a = agree_summary(ev)
    if args.json:
        _emit(json.dumps(a))
        return 0
    n = a["agreement"]["claims"]
    head = f"groundlab agree: judge {a['judge']} against the person's labels ({source})"
    if not n:
        _emit(f"{head}\n\nno labeled cases were found ({a['unlabeled_cases']} unlabeled); add \"labels\" "
              "to some cases to check the judge.")
        return 0
    from .stats import Rate

    def line(name: str, count: int, total: int, note: str) -> List[str]:
        rate = Rate(count, total)
        if not total:
            return [name, "n/a", f"0/0", "", note]
        low, high = rate.interval
        return [name, _pct(rate.rate), f"{count}/{total}", f"{_pct(low)}\u2013{_pct(high)}", note]

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
    diff = disagreements(ev.claims)
    if len(diff):
        parts += ["", "disagreements:"]
        for d in diff.itertuples():
            parts.append(f"  {d.case_id} claim {d.claim}: person {d.person}, judge {d.judge} ({d.reason})")
    _emit("\n".join(parts))
    return 0


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
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
