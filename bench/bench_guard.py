"""Time the runtime guard with its default judge (``--judge`` names another) and print the figures.

    python bench/bench_guard.py                 # 2,000 calls a run, 5 runs, 2,000 records through the pipe
    python bench/bench_guard.py --calls 500 --runs 3 --records 500
    python bench/bench_guard.py --judge rules

1. **In process**: ``groundlab.guard()`` on a 5-sentence answer with 5 passages (hide mode), p50 and
   p99 latency per answer, best of the runs (the machine may be shared): wall time, and the CPU time
   of the calling thread, which leaves out the time spent waiting for a core on a busy machine. Every call gets an answer
   of its own (answers are never the same twice in production). Two kinds of passages:

   - *repeated*: the same 5 passages every call, as when answers come from one knowledge base and
     its passages recur; the rules judge has analysed them once and reuses the analysis;
   - *fresh*: 5 passages never seen before on every call, the worst case for that cache.

2. **Through a pipe**: ``groundlab guard`` in its own process, fed records on stdin. Records/s over
   a whole file (start-up taken off), and the round trip of one record at a time as an application
   sees it (write one, wait for its line).

The load average is printed before and after: on a shared machine figures are slower than on an
idle one, and best-of-N shows what the code itself costs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import groundlab  # noqa: E402
from groundlab.guard import judge_object  # noqa: E402
from groundlab.production.guard import GUARD_JUDGE  # noqa: E402
from groundlab.io import load_passages, sample_path  # noqa: E402

TARGET_P99_MS = 5.0
ADVERBS = ["usually", "normally", "currently", "always", "typically", "still", "often", "generally"]
QUESTION = "Why is the invoice for purchase order 4500017311 blocked, and who can release it?"


def _notes() -> List[str]:
    return [p.text for p in load_passages(sample_path("notes.jsonl")).values()]


def make_answer(passages: List[str], rng: random.Random) -> str:
    """Five sentences, one a passage, each with an adverb of its own; one in five gets a number the
    passages do not give. Answers differ from call to call as live answers do."""
    sentences = []
    for k, text in enumerate(passages[:5], 1):
        first = text.split(". ")[0].rstrip(".")
        words = first.split()
        at = rng.randrange(1, max(2, len(words)))
        words.insert(at, rng.choice(ADVERBS))
        sentence = " ".join(words)
        if rng.random() < 0.2:
            sentence += f" within {rng.randrange(2, 60)} days"
        sentences.append(f"{sentence} [{k}].")
    return " ".join(sentences)


def fresh_passages(notes: List[str], call: int) -> List[str]:
    """Five passages no call has seen before: sample notes, each with a sentence of its own."""
    return [f"{notes[(call + k) % len(notes)]} Revision {call}-{k} keeps this note current."
            for k in range(5)]


def percentile(values: List[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def time_calls(calls: int, passages_for: Callable[[int], List[str]], seed: int,
               judge_name: str) -> Tuple[List[float], List[float]]:
    """Wall seconds and CPU seconds of this thread, per call."""
    rng = random.Random(seed)
    judge = judge_object(judge_name)
    wall, cpu = [], []
    for call in range(calls):
        passages = passages_for(call)
        answer = make_answer(passages, rng)
        start, start_cpu = time.perf_counter(), time.thread_time()
        groundlab.guard(QUESTION, passages, answer, judge, "hide")
        cpu.append(time.thread_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return wall, cpu


def in_process(calls: int, runs: int, judge: str) -> None:
    notes = _notes()
    repeated = [notes[k] for k in (6, 5, 0, 9, 8)]
    offset = [0]

    def fresh(call: int) -> List[str]:
        return fresh_passages(notes, offset[0] + call)

    groundlab.guard(QUESTION, repeated, make_answer(repeated, random.Random(0)))  # imports, first analyses
    for name, passages_for in (("repeated passages", lambda call: repeated), ("fresh passages", fresh)):
        p50s, p99s, cpu50s, cpu99s = [], [], [], []
        for run in range(runs):
            wall, cpu = time_calls(calls, passages_for, seed=run, judge_name=judge)
            offset[0] += calls  # the next run's passages are new too
            p50s.append(1000 * percentile(wall, 0.50))
            p99s.append(1000 * percentile(wall, 0.99))
            cpu50s.append(1000 * percentile(cpu, 0.50))
            cpu99s.append(1000 * percentile(cpu, 0.99))
        best = min(range(runs), key=lambda k: p99s[k])
        cpu_best = min(range(runs), key=lambda k: cpu99s[k])
        print(f"in process, {name:<18} wall p50 {p50s[best]:.2f} ms, p99 {p99s[best]:.2f} ms; CPU p50 "
              f"{cpu50s[cpu_best]:.2f} ms, p99 {cpu99s[cpu_best]:.2f} ms (best runs of {runs}, {calls:,} calls each; "
              f"wall p99 median over runs {statistics.median(p99s):.2f} ms); target p99 < {TARGET_P99_MS:g} ms: "
              f"{'met' if p99s[best] < TARGET_P99_MS else 'NOT met'} on wall time, "
              f"{'met' if cpu99s[cpu_best] < TARGET_P99_MS else 'NOT met'} on CPU time")


def _records(n: int, fresh: bool) -> bytes:
    notes = _notes()
    rng = random.Random(7)
    repeated = [notes[k] for k in (6, 5, 0, 9, 8)]
    lines = []
    for call in range(n):
        passages = fresh_passages(notes, 10_000_000 + call) if fresh else repeated
        lines.append(json.dumps({"id": f"r{call}", "question": QUESTION, "retrieved": passages,
                                 "answer": make_answer(passages, rng)}))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _command(judge: str) -> List[str]:
    return [sys.executable, "-m", "groundlab", "guard", "--mode", "hide", "--judge", judge]


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _pipe_file(data: bytes, judge: str) -> Tuple[float, int]:
    with tempfile.TemporaryFile() as fh:
        fh.write(data)
        fh.seek(0)
        start = time.perf_counter()
        done = subprocess.run(_command(judge), stdin=fh, stdout=subprocess.PIPE, env=_env(), check=True)
        return time.perf_counter() - start, done.stdout.count(b"\n")


def through_pipe(records: int, runs: int, judge: str) -> None:
    startup = min(_pipe_file(b"", judge)[0] for _ in range(runs))
    print(f"pipe, start-up (no records)   {startup:.2f} s best of {runs}")
    for fresh in (False, True):
        data = _records(records, fresh)
        walls = []
        for _ in range(runs):
            wall, lines = _pipe_file(data, judge)
            assert lines == records, (lines, records)
            walls.append(wall)
        best = min(walls)
        print(f"pipe, {'fresh' if fresh else 'repeated'} passages, {records:,} records   "
              f"{records / max(best - startup, 1e-9):,.0f} records/s (best of {runs}: {best:.2f} s wall, "
              f"{startup:.2f} s of it start-up)")
    # One record at a time, as an application waiting for each answer sees it.
    lines = _records(records, fresh=False).splitlines(keepends=True)
    proc = subprocess.Popen(_command(judge), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_env())
    trips = []
    try:
        for k, line in enumerate(lines):
            start = time.perf_counter()
            proc.stdin.write(line)
            proc.stdin.flush()
            answer = proc.stdout.readline()
            if k:  # the first one waits for the start-up
                trips.append(time.perf_counter() - start)
            assert answer
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        proc.kill()
    print(f"pipe, one record at a time       round trip p50 {1000 * percentile(trips, 0.5):.2f} ms, "
          f"p99 {1000 * percentile(trips, 0.99):.2f} ms over {len(trips):,} records")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000, help="guard() calls per run (default 2000)")
    parser.add_argument("--runs", type=int, default=5, help="runs; the best is reported (default 5)")
    parser.add_argument("--records", type=int, default=2000, help="records sent through the pipe (default 2000)")
    parser.add_argument("--judge", default=GUARD_JUDGE, help=f"the guard's judge (default: {GUARD_JUDGE}, the guard's own)")
    args = parser.parse_args()
    print(f"judge {args.judge}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"Python {sys.version.split()[0]}")
    in_process(args.calls, args.runs, args.judge)
    through_pipe(args.records, args.runs, args.judge)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
