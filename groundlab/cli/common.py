"""What the commands share once their options are read: the inputs, the splitter, the judged
evaluation, and how results are printed."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Sequence

from ..core.records import GroundlabError, visible
from ..core.stats import percent
from .options import judge_kwargs


def input_paths(args: argparse.Namespace, quiet: bool = False):
    """The cases and passages files the options name (``-``: standard input), else the defaults."""
    from ..core.io import STDIN, sample_path

    cases, passages = args.cases, args.passages
    if cases == STDIN and passages == STDIN:
        raise GroundlabError("--cases and --passages both read standard input (-); only one of them can, so "
                             "pass the other as a file.")
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


def splitter_from(args: argparse.Namespace):
    from ..core.claims import claim_splitter

    return claim_splitter(args.citation_pattern, args.abstention_phrase,
                          names=("--citation-pattern", "--abstention-phrase"),
                          default_citations=getattr(args, "default_citations", True),
                          language=getattr(args, "language", "auto") or "auto")


def load_inputs(args: argparse.Namespace):
    from ..core.io import display_name, load_cases

    cases_path, passages_path = input_paths(args)
    return display_name(cases_path), load_cases(cases_path, passages_path)


def make_judge(args: argparse.Namespace, cache: bool = True):
    """The judge the options name, behind the data policy and the masking they ask for."""
    from ..measure.policy import make_judge as made

    return made(args.judge, policy=getattr(args, "policy", None), mask=bool(getattr(args, "mask", False)),
                mask_names=list(getattr(args, "mask_name", None) or []), **judge_kwargs(args, cache=cache))


def evaluate_inputs(args: argparse.Namespace, runs: int = 1, judge=None):
    """Judge the cases ``runs`` times (with ``judge``, else the one the options name); one
    evaluation, or a list of them when ``runs`` > 1."""
    from ..measure.evaluate import evaluate, evaluate_file
    from ..judges import nothing_judged

    judge = judge or make_judge(args, cache=runs == 1)
    splitter = splitter_from(args)
    with spending(judge):
        if runs == 1:
            from ..core.io import display_name, is_regular_file

            path, passages = input_paths(args)
            source = display_name(path)
            big = is_regular_file(path) and Path(path).stat().st_size > 2_000_000
            evs = [evaluate_file(path, passages, judge, splitter=splitter,
                                 workers=args.workers if args.workers is not None else (os.cpu_count() or 1),
                                 progress=sys.stderr.isatty() and big)]
        else:
            source, cases = load_inputs(args)
            evs = [evaluate(cases, judge, splitter=splitter) for _ in range(runs)]
        for ev in evs:
            stop = nothing_judged(ev.judge, ev.claims["error"].tolist())
            if stop:
                raise GroundlabError(stop)
    return source, (evs[0] if runs == 1 else evs)


class Terminated(KeyboardInterrupt):
    """The process was asked to stop by a signal (SIGTERM, SIGHUP): ended as Ctrl-C ends it."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


@contextmanager
def stop_on_signals(ignore: bool = False) -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` (``ignore``: are ignored), so
    what a command was writing is closed and recorded instead of the process vanishing. Only in
    the main thread, where signals are handled; a signal its launcher ignores stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Terminated(signum)

    before = {}
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is None or signal.getsignal(signum) == signal.SIG_IGN:
            continue
        before[signum] = signal.signal(signum, signal.SIG_IGN if ignore else stop)
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def judge_summary(judge) -> None:
    """A model judge's model, endpoint, requests, tokens and price, on stderr."""
    if hasattr(judge, "summary"):
        print(f"groundlab: {visible(judge.summary())}", file=sys.stderr)


@contextmanager
def spending(judge) -> Iterator[None]:
    """Run the block, then print what a model judge spent: after the block, and also before a
    stop (a one-sentence error, Ctrl-C) leaves it, when anything was sent, so a run that stops
    still says what it cost."""
    try:
        yield
    except (GroundlabError, KeyboardInterrupt):
        if getattr(judge, "spent", False):
            judge_summary(judge)
        raise
    judge_summary(judge)


def dry_run(args: argparse.Namespace) -> int:
    from ..measure.evaluate import claim_pairs, split_cases
    from ..measure.policy import policy_of

    judge = make_judge(args)
    source, cases = load_inputs(args)
    policy = policy_of(judge)
    if policy is not None:
        policy.check_cases(cases)
    pairs = claim_pairs(list(zip(cases, split_cases(cases, splitter_from(args)))))
    runs = getattr(args, "repeat", 1)
    estimate = judge.estimate(pairs, runs=runs)  # repeated runs skip the cache: every run sends every request
    where = (f" {judge.place}" if isinstance(getattr(judge, "place", None), str) else
             f" at {judge.endpoint.display}" if hasattr(judge, "endpoint") else "")
    if isinstance(getattr(judge, "request_shape", None), str):
        where += f"; {judge.request_shape}"
    emit(f"groundlab dry run: judge {args.judge} ({judge.model}{where}) on {len(cases)} cases, {len(pairs)} claims "
          f"({source}): {estimate}. Nothing was sent.")
    return 0


def table(rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    widths = [max(len(str(r[k])) for r in rows) for k in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [str(c).rjust(w) if k in right else str(c).ljust(w) for k, (c, w) in enumerate(zip(row, widths))]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def warn(text: str) -> None:
    """A warning on stderr, as groundlab writes them (``groundlab: warning: ...``)."""
    print(f"groundlab: warning: {visible(text.rstrip('.'))}.", file=sys.stderr)


def emit(text: str) -> None:
    """Print a result; control characters from the data are shown as escapes (:func:`visible`)."""
    text = visible(text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def rate_row(name: str, rate, noun: str, note: str, missing: str) -> List[str]:
    """A table row: the rate, its count, its Wilson 95% range and a note (``missing`` when the
    rate is over nothing)."""
    if not rate.defined:
        return [name, "n/a", "\u2014", "", missing]
    low, high = rate.interval
    count = f"{rate.count}/{rate.total} {noun}".rstrip()
    return [name, percent(rate.rate), count, f"{percent(low)}\u2013{percent(high)}", note]


def error_lines(ev) -> str:
    """The claims the judge could not decide, each with its reason."""
    failed = ev.claims[ev.claims["error"].notna()]
    return "".join(f"\n  {row.case_id} claim {row.claim}: {row.error}" for row in failed.itertuples())
