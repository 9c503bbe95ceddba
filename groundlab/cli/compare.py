"""``groundlab compare A.jsonl B.jsonl``: two configurations of the assistant, judged alike and
compared question by question. The work is done in :mod:`groundlab.compare`."""

from __future__ import annotations

import argparse
import json
from typing import List

from ..core.records import GroundlabError
from ..core.stats import Rate, percent
from .common import emit, judge_summary, make_judge, splitter_from, table
from .options import claim_options, judge_options, positive_int


def add_commands(sub) -> None:
    """Add ``compare`` to the ``groundlab`` subcommands."""
    from ..judges import DEFAULT_JUDGE, describe_judges

    PAIR_BY = ("id", "question")  # groundlab.compare.PAIR_BY, named here so that building the parser loads no pandas

    p = sub.add_parser("compare", help="compare two runs of the assistant on the same questions, paired")
    p.add_argument("a", metavar="A.jsonl", help="the cases of the first configuration (the baseline)")
    p.add_argument("b", metavar="B.jsonl", help="the cases of the second configuration (the candidate)")
    g = p.add_argument_group("input")
    g.add_argument("--passages", metavar="FILE",
                   help="the passages the cases' \"retrieved\" ids refer to (both files)")
    g.add_argument("--passages-b", metavar="FILE", help="B's passages, when they are another file than A's")
    g.add_argument("--pair-by", choices=PAIR_BY, default="id",
                   help="pair the cases by id (default) or by question text (white space and case ignored)")
    g.add_argument("--judge", default=DEFAULT_JUDGE, metavar="NAME",
                   help=f"the judge for both sides (default: {DEFAULT_JUDGE}); " + "; ".join(f"{k}: {v}" for k, v in describe_judges().items()))
    g.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="processes that judge a large run with the offline judges (signals, rules, lexical) (default: one per core)")
    claim_options(g)
    judge_options(p, dry_run=False)
    p.add_argument("--json", action="store_true", help="print every figure as one JSON object")
    p.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    import os

    from ..measure.compare import compare, pair_cases
    from ..measure.evaluate import evaluate
    from ..core.io import load_cases
    from ..judges import nothing_judged

    a_cases = load_cases(args.a, args.passages)
    b_cases = load_cases(args.b, args.passages_b if args.passages_b is not None else args.passages)
    pair_cases(a_cases, b_cases, args.pair_by)  # a file that cannot be paired stops before any judging
    judge = make_judge(args)
    from ..measure.policy import policy_of

    policy = policy_of(judge)
    if policy is not None:  # both sides placed before either is judged (and paid for)
        policy.check_cases(a_cases)
        policy.check_cases(b_cases)
    splitter = splitter_from(args)
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    evaluations = []
    for name, cases in (("A", a_cases), ("B", b_cases)):
        ev = evaluate(cases, judge, splitter=splitter, workers=workers)
        stop = nothing_judged(ev.judge, ev.claims["error"].tolist())
        if stop:
            raise GroundlabError(f"{name}: {stop}")
        evaluations.append(ev)
    judge_summary(judge)
    result = compare(a_cases, b_cases, judge, pair_by=args.pair_by, evaluations=tuple(evaluations),
                     sources=(args.a, args.b))
    if args.json:
        emit(json.dumps(result.to_dict()))
    else:
        emit(comparison_text(result))
    return 0


def comparison_text(result) -> str:
    """The comparison as a terminal table followed by each measure in plain words."""
    from ..measure.paired import LABELS, NEWCOMBE, p_text, points
    from ..core.identity import identity_text

    a, b = result.names
    head = (f"groundlab compare: {a} = {result.sources[0]} ({result.cases[0]} cases), {b} = {result.sources[1]} "
            f"({result.cases[1]} cases); {len(result.pairing.pairs)} pairs by {result.pairing.by}")
    rows: List[List[str]] = [["measure", a, b, f"{b} - {a}", "95% range", "test"]]
    for name, m in result.measures.items():
        if not m.defined:
            rows.append([LABELS[name], _cell(m.a), _cell(m.b), "n/a", "", "nothing to compare"])
            continue
        test = "McNemar exact" if m.method == NEWCOMBE else "clustered t"
        rows.append([LABELS[name], _cell(m.a), _cell(m.b), points(m.difference),
                     f"{points(m.low)} to {points(m.high)}", f"{p_text(m.p_value)} ({test})"])
    lines = [head, identity_text(result.judge_identity), "", table(rows), ""]
    for sentence, notes in result.explained():
        lines.append(sentence)
        lines += [f"  {note}" for note in notes]
    one_sided = result.one_sided()
    if one_sided:
        lines += [""] + one_sided
    lines.append(result.reading())
    return "\n".join(lines)


def _cell(rate: Rate) -> str:
    if not rate.total:
        return "n/a 0/0"
    return f"{percent(rate.rate)} {rate.count}/{rate.total} ({percent(rate.low)}\u2013{percent(rate.high)})"
