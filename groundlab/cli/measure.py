"""``groundlab check``, ``score``, ``merge``, ``agree`` and ``plan``: the measuring commands. Their
options are read here, with ``check`` and ``plan``; ``score`` and ``merge`` run in :mod:`.score`,
``agree`` in :mod:`.agree` (one family over three modules, which no other family imports)."""

from __future__ import annotations

import argparse
from typing import List

from ..core.records import GroundlabError, visible  # noqa: F401
from ..core.stats import percent  # noqa: F401
from .agree import cmd_agree
from .common import (dry_run, emit, error_lines, evaluate_inputs, input_paths, load_inputs, make_judge,  # noqa: F401
                     rate_row, splitter_from, table)
from .options import common_options, fraction, judge_options, number, positive_int
from .score import _severity, cmd_merge, cmd_score, print_counts  # noqa: F401


def add_commands(sub) -> None:
    """Add ``check``, ``score``, ``agree`` and ``plan`` to the ``groundlab`` subcommands."""
    p = sub.add_parser("check", help="check the cases and passages and show how answers split into claims")
    common_options(p)
    p.add_argument("--show-claims", action="store_true", help="list every case's claims and citations")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("score", help="judge every claim and print the measures")
    common_options(p)
    judge_options(p)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--penalty", type=number, default=None, metavar="P",
                   help="what a wrong answer costs, in correct answers (default 1)")
    g.add_argument("--confidence-target", type=number, default=None,
                   metavar="T", help="answer only when at least this sure: penalty T/(1-T) (0.75 gives 3)")
    p.add_argument("--report", metavar="FILE.md", help="also write the one-page steering report here")
    p.add_argument("--claims-out", metavar="FILE", help="also write the claim frame (one row per claim) here, "
                                                         "as .csv or .parquet by its name; - writes CSV to stdout "
                                                         "(the score then goes to stderr)")
    p.add_argument("--cases-out", metavar="FILE", help="also write the case frame (one row per case, with its "
                                                        "meta.* columns) here, as .csv or .parquet by its name; - "
                                                        "writes CSV to stdout (the score then goes to stderr)")
    p.add_argument("--counts-out", metavar="FILE.json",
                   help="also write the run's counts (the tidy counts table, the judge's identity and a fingerprint "
                        "of each case id) here, for 'groundlab merge' to add up with other parts' (docs/scale.md)")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="local (default): this machine's processes (--workers); dask: the Dask cluster at "
                        "--scheduler, the cases judged a partition per task (docs/scale.md)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: the scheduler of an existing Dask cluster, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--force", action="store_true",
                   help="replace a file --report, --claims-out, --cases-out or --counts-out names (never an input)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.add_argument("--fail-if", action="append", default=[], metavar="CONDITION",
                   help="exit 1 when the condition holds, e.g. \"hallucination_rate.high > 0.10\" or "
                        "\"false_abstention.rate > 20%%\": a figure of score --json, < <= > >= == !=, a number "
                        "or percentage (repeatable; any one that holds fails; an undefined figure is exit 2)")
    p.add_argument("--targets", metavar="FILE.toml",
                   help="maximum hallucination rates per process and kind of claim (and weights per kind): adds a "
                        "pass/fail table and the weighted risk score; exit 1 when a target is not met "
                        "(see docs/severity.md)")
    p.add_argument("--breakdown", action="store_true",
                   help="with --json: add the hallucinated share by kind of claim and by process (the table "
                        "always shows it)")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("merge", help="add up the counts of parts scored apart: the figures of scoring them at once")
    p.add_argument("counts", nargs="+", metavar="COUNTS.json",
                   help="counts files written by 'score --counts-out' (or 'merge --out'), one per part")
    p.add_argument("--out", metavar="FILE.json", help="also write the merged counts here (to merge again later)")
    p.add_argument("--force", action="store_true", help="replace the file --out names (never an input)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--penalty", type=number, default=None, metavar="P",
                   help="what a wrong answer costs, in correct answers (default 1)")
    g.add_argument("--confidence-target", type=number, default=None,
                   metavar="T", help="answer only when at least this sure: penalty T/(1-T) (0.75 gives 3)")
    p.add_argument("--json", action="store_true", help="print one JSON object (as 'score --json') instead of tables")
    p.add_argument("--breakdown", action="store_true", help="with --json: add the hallucinated share by kind of claim "
                                                           "and by process")
    p.add_argument("--fail-if", action="append", default=[], metavar="CONDITION",
                   help="exit 1 when the condition holds, as with 'score --fail-if'")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("agree", help="compare the judge with the person's labels")
    common_options(p)
    judge_options(p)
    p.add_argument("--repeat", type=positive_int, default=1, metavar="N",
                   help="judge N times (the llm judge without its cache) and report the flip rate: "
                        "claims whose verdict changed between runs")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object instead of tables (with every claim's verdict and label, "
                        "so a later run can use it as --baseline)")
    p.add_argument("--baseline", metavar="OLD.json",
                   help="a previous 'agree --json' (or a claims file, .csv or .parquet, with case_id, claim, text, "
                        "verdict, label): show claim by claim where the verdicts changed and how agreement moved")
    p.add_argument("--against", metavar="sap:METRIC",
                   help="set a platform's whole-answer rating beside people's labels and the judge, answer by answer "
                        "and claim by claim: sap:\"Pointwise RAG Groundedness\" (any metric the cases' ratings hold, "
                        "from 'groundlab import results.db'; docs/sap.md)")
    p.add_argument("--grounded-at", type=number, default=None, metavar="R",
                   help="with --against: the lowest rating that counts as grounded (default: the top of the "
                        "metric's scale)")
    p.set_defaults(func=cmd_agree)

    p = sub.add_parser("plan", help="how many test answers give a 95%% range of \u00b1M around a rate R")
    p.add_argument("--rate", required=True, type=fraction, metavar="R",
                   help="the rate you expect, as 0.6 or 60%%")
    p.add_argument("--margin", required=True, type=fraction, metavar="M",
                   help="half the width of the range you want, as 0.05 or 5%% (\u00b15 points)")
    p.set_defaults(func=cmd_plan)


def cmd_check(args: argparse.Namespace) -> int:
    from ..core.claims import looks_like_refusal, shorten
    from ..measure.evaluate import split_cases
    from ..core.io import plural

    source, cases = load_inputs(args)
    splitter = splitter_from(args)
    splits = split_cases(cases, splitter)
    n_claims = sum(len(s.claims) for s in splits)
    warnings: List[str] = []
    refusals: List[str] = []
    positional: List[str] = []
    for case, split in zip(cases, splits):
        ids = {p.id for p in case.retrieved}
        if len(ids) < len(case.retrieved):
            twice = sorted({p.id for p in case.retrieved if [q.id for q in case.retrieved].count(p.id) > 1})
            warnings.append(f"{case.where}: passage {', '.join(twice)} is retrieved more than once; a "
                            "citation of it stands for the last one.")
        if split.by_position:
            shown = ", ".join(f"[{cite}] as {pid}" for cite, pid in split.by_position[:4])
            more = ", \u2026" if len(split.by_position) > 4 else ""
            positional.append(f"{case.where}: citations read by position, since no retrieved passage has "
                              f"such an id ({shown}{more}).")
        for claim in split.claims:
            stray = [c for c in claim.cites if c not in ids]
            if stray:
                numbered = all(c.isdigit() for c in stray)
                fix = (" A number is read as a passage's position only while it is at most the number of "
                       f"passages retrieved ({len(case.retrieved)}) and the passages' own ids are not numbers; "
                       "give the passages the ids the answers cite." if numbered else
                       " Check the passage ids, or the citation style (--citation-pattern).")
                warnings.append(f"{case.where}: claim {claim.number} cites {', '.join(stray)}, which "
                                f"was not retrieved; that citation cannot back it.{fix}")
            if not claim.cites and looks_like_refusal(claim.text):
                refusals.append(f"{case.where}: claim {claim.number} \"{shorten(claim.text)}\" reads like a "
                                "refusal but counts as a claim; if the assistant declines to answer there, add "
                                "--abstention-phrase REGEX matching it (see docs/claims.md).")
        if split.claims and not case.retrieved:
            warnings.append(f"{case.where}: the case has no retrieved passages, so its claims will all be "
                            "unsupported; give it the passages the assistant was given (\"retrieved\").")
        if not split.claims and not split.abstains:
            warnings.append(f"{case.where}: the answer holds no claim and no abstention; it counts as abstained.")
    labeled = sum(c.labels is not None for c in cases)
    known = sum(c.answerable is not None for c in cases)
    abstaining = sum(not s.claims for s in splits)
    emit(f"{source}: {plural(len(cases), 'case', 'cases')}, {plural(n_claims, 'claim', 'claims')}, "
          f"{abstaining} abstaining; {labeled} labeled, {known} with answerable set. OK.")
    for line in warnings + refusals:
        emit(f"note: {line}")
    if positional:
        emit(f"note: {plural(len(positional), 'case cites', 'cases cite')} passages by number ([1], [^2]) while "
             "the passages carry other ids: each number is read as the passage at that position.")
        for line in positional[:5]:
            emit(f"note: {line}")
        if len(positional) > 5:
            emit(f"note: and {len(positional) - 5} more.")
    if args.show_claims:
        for case, split in zip(cases, splits):
            emit(f"\n{case.id}: {len(split.claims)} claim(s){', abstains' if split.abstains else ''}")
            claims = iter(split.claims)
            # Every sentence in answer order: the claims numbered, the others with what they count as.
            for role, sentence in splitter.explain(case.answer, [p.id for p in case.retrieved], question=case.question):
                if role == "claim":
                    claim = next(claims)
                    cites = f" [{', '.join(claim.cites)}]" if claim.cites else ""
                    emit(f"  {claim.number}. {claim.text}{cites}")
                else:
                    emit(f"  ({role}) {shorten(sentence)}")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from ..core.io import plural
    from ..core.stats import answers_needed, interval_bounds

    rate, margin = args.rate, args.margin
    if not 0 <= rate <= 1:
        raise GroundlabError(f"--rate must be between 0 and 1 (or 0% and 100%), not {rate:g}; "
                             "e.g. --rate 0.6 or --rate 60%.")
    if not 0 < margin < 0.5:
        raise GroundlabError(f"--margin must be more than 0 and less than 0.5 (50%), not {margin:g}; "
                             "e.g. --margin 0.05 or --margin 5% for \u00b15 points.")
    n = answers_needed(rate, margin)
    low, high = interval_bounds(rate, n)
    emit(f"{plural(n, 'test answer gives', 'test answers give')} a Wilson 95% range of "
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
