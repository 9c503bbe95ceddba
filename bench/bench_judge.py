"""How many claims a second one judge decides on one core: the judging step alone, in this
process, on the claims of N synthetic cases (bench/make_cases.py), best of several runs.

    python bench/bench_judge.py                       # signals, rules and lexical, 100,000 cases
    python bench/bench_judge.py --judge signals --runs 5

Each run starts with the judge's caches cold (passages, claims and verdicts analysed afresh), so
a run pays for analysing every passage once, as a real run does. The synthetic answers repeat
their sentences, so the signals judge meets the same claim against the same evidence often and
answers it from its verdict cache; the line "every claim new" times it with that cache off, which
(with the claim's own analysis, its framing and its numbers done afresh each time, too) is what
answers that never repeat cost. Prints the machine's load, which moves these figures.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from make_cases import main as make_cases  # noqa: E402


def _cold(name: str):
    """A new judge with every analysis cache of its module emptied."""
    import importlib

    from groundlab.judges import get_judge
    from groundlab.numbers import mentions

    from groundlab.core import numbers

    module = importlib.import_module(f"groundlab.judges.{'signals' if name == 'signals' else 'rules'}")
    # the judge's module and, for signals, the rooms of its package
    rooms = [sys.modules[m] for m in sorted(sys.modules) if m.startswith(module.__name__ + ".")]
    for owner in (module, *rooms, numbers):  # every analysis kept per text, passage, question or shape
        for cached in list(vars(owner).values()):
            if hasattr(cached, "cache_clear"):
                cached.cache_clear()
    mentions.cache_clear()
    return get_judge(name)


@contextlib.contextmanager
def _every_claim_new(judge):
    """Judge with no verdict kept and every claim analysed afresh (only passages are reused)."""
    from groundlab.core import numbers
    from groundlab.judges import signals
    from groundlab.judges.signals import claim, evidence

    # Each function replaced where it is looked up: the judge reads its claims through
    # signals._claim; a claim's framing, numbers, words and language are read in signals.claim,
    # a question's numbers and words in signals.evidence.
    where = [(signals, "_claim"), (claim, "frame"), (claim, "mentions"), (evidence, "mentions"),
             (claim, "_claim_words"), (claim, "_read_words"), (evidence, "_read_words"), (claim, "_claim_language")]
    saved = [(module, name, getattr(module, name)) for module, name in where]
    spans = numbers._spans
    judge._memo = _NoMemo()
    signals._claim = signals._Claim
    for module, name, value in saved[1:]:  # the claim's framing, numbers, words and language, each read afresh
        setattr(module, name, value.__wrapped__)
    numbers._spans = spans.__wrapped__
    try:
        # passages keep their analysis: a passage is met by many claims in any run
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
        numbers._spans = spans


class _NoMemo(dict):
    """A verdict cache that keeps nothing."""

    def get(self, key, default=None):
        return default

    def __setitem__(self, key, value):
        pass


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="number of cases (default 100000)")
    ap.add_argument("--runs", type=int, default=3, help="runs per judge; the best counts (default 3)")
    ap.add_argument("--judge", action="append", help="a judge to time (repeatable; default signals, rules, lexical)")
    ap.add_argument("--evidence-cost", action="store_true",
                    help="time the signals judge with every claim new, with and without finding the evidence "
                         "sentence and its words, runs alternating in this process, in CPU seconds")
    args = ap.parse_args(argv)
    cases_file = HERE / "out" / f"cases_{args.n}.jsonl"
    if not cases_file.exists():
        make_cases([str(args.n), str(cases_file)])

    from groundlab import load_cases
    from groundlab.evaluate import claim_pairs, split_cases

    cases = load_cases(cases_file, ROOT / "data" / "notes.jsonl")
    pairs = claim_pairs(list(zip(cases, split_cases(cases))))
    print(f"{len(cases):,} cases, {len(pairs):,} claims; load average before: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    if args.evidence_cost:
        return _evidence_cost(pairs, args.runs)
    for name in args.judge or ["signals", "rules", "lexical"]:
        variants = [("", False)] + ([("every claim new", True)] if name == "signals" else [])
        for label, no_memo in variants:
            times = []
            for _ in range(args.runs):
                judge = _cold(name)
                gc.collect()
                gc.disable()
                with (_every_claim_new(judge) if no_memo else contextlib.nullcontext()):
                    start = time.perf_counter()
                    judge.judge_batch(pairs)
                    times.append(time.perf_counter() - start)
                gc.enable()
            best = min(times)
            shown = f"{name} ({label})" if label else name
            print(f"{shown:26s} best {len(pairs) / best:10,.0f} claims/s  ({best:.2f} s; runs "
                  f"{', '.join(f'{t:.2f}' for t in times)} s)")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def _evidence_cost(pairs, runs: int) -> int:
    """What finding each verdict's evidence sentence and words costs the signals judge: the same
    claims judged with every claim new, alternately with the step and with it left out, in CPU
    time of this process (the machine's load moves wall time, not this)."""
    from groundlab.judges import signals  # the judge looks _evidence up in its own module

    real = signals._evidence

    def without(*args, **kwargs):
        return None, (), ()

    cpu = {"with the evidence": [], "without it": []}
    for _ in range(runs):
        for label, step in (("without it", without), ("with the evidence", real)):
            judge = _cold("signals")
            signals._evidence = step
            gc.collect()
            gc.disable()
            try:
                with _every_claim_new(judge):
                    start = time.process_time()
                    judge.judge_batch(pairs)
                    cpu[label].append(time.process_time() - start)
            finally:
                gc.enable()
                signals._evidence = real
    for label, times in cpu.items():
        best = min(times)
        print(f"signals, every claim new, {label:18s} best {len(pairs) / best:10,.0f} claims/s of CPU "
              f"({best:.2f} s; runs {', '.join(f'{t:.2f}' for t in times)} s)")
    extra = min(cpu["with the evidence"]) / min(cpu["without it"]) - 1
    print(f"the evidence step costs {100 * extra:+.1f}% CPU time")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
