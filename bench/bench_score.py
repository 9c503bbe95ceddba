"""Time `groundlab score` end to end on N synthetic cases and print the figures.

    python bench/bench_score.py                    # 100,000 cases, 3 runs, the default judge
    python bench/bench_score.py --judge rules      # another judge
    python bench/bench_score.py --n 20000 --runs 1
    python bench/bench_score.py --workload helpdesk  # the help-desk cases (bench/make_helpdesk.py)

Prints cases, claims, wall seconds per run (best and median), peak memory of the command (max
RSS), and the ratio to the targets (5 s, 430 MB for 100,000 cases on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from make_cases import main as make_cases  # noqa: E402
from make_helpdesk import main as make_helpdesk  # noqa: E402

TARGET_SECONDS = 5.0
TARGET_MB = 430.0


def _tree(pid: int) -> list:
    """pid and all its descendants (read from /proc)."""
    pids, frontier = [pid], [pid]
    while frontier:
        parent = frontier.pop()
        try:
            with open(f"/proc/{parent}/task/{parent}/children") as fh:
                kids = [int(x) for x in fh.read().split()]
        except OSError:
            kids = []
        pids += kids
        frontier += kids
    return pids


def _kib(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_once(cases: Path, workers: str, watch_memory: bool, judge: str) -> tuple:
    """One run in a fresh process: wall seconds, peak RSS of the main process, peak of the
    proportional set size (PSS) summed over the command and its workers (shared pages counted
    once), both in MB, and the parsed JSON. Reading PSS costs CPU, so timed runs don't watch."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "groundlab", "score", "--judge", judge, "--json", "--workers", workers,
           "--cases", str(cases), "--passages", str(ROOT / "data" / "notes.jsonl")]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    peak_pss = 0
    if watch_memory:
        chunks = []
        reader = threading.Thread(target=lambda: chunks.append(proc.communicate()))
        reader.start()
        while reader.is_alive():
            peak_pss = max(peak_pss, sum(_kib(p, "Pss") for p in _tree(proc.pid)))
            time.sleep(0.02)
        reader.join()
        out, err = chunks[0]
    else:
        out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"groundlab score failed: {err.decode()}")
    peak_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, peak_rss, peak_pss / 1024, json.loads(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="time groundlab score on synthetic cases")
    ap.add_argument("--n", type=int, default=100_000, help="number of cases (default 100000)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", default="2", help="groundlab --workers (default 2: this machine's cores)")
    ap.add_argument("--judge", default=None, help="the judge (default: groundlab's default judge)")
    ap.add_argument("--workload", choices=("synthetic", "helpdesk"), default="synthetic",
                    help="synthetic: bench/make_cases.py (questions repeat, no labels; the default); helpdesk: "
                         "bench/make_helpdesk.py (a question of its own each, labels on every case)")
    args = ap.parse_args(argv)
    if args.judge is None:
        from groundlab.judges import DEFAULT_JUDGE

        args.judge = DEFAULT_JUDGE
    name, make = (("cases", make_cases) if args.workload == "synthetic" else ("helpdesk", make_helpdesk))
    cases = HERE / "out" / f"{name}_{args.n}.jsonl"
    if not cases.exists():
        make([str(args.n), str(cases)])
    load_before = os.getloadavg()
    runs = [run_once(cases, args.workers, watch_memory=False, judge=args.judge) for _ in range(args.runs)]
    _, rss, pss, result = run_once(cases, args.workers, watch_memory=True, judge=args.judge)
    walls = [r[0] for r in runs]
    scale = args.n / 100_000
    best, median = min(walls), statistics.median(walls)
    print(f"judge            {args.judge}")
    print(f"workload         {args.workload}")
    print(f"cases            {result['cases']}")
    print(f"claims           {result['claims']}")
    print(f"workers          {args.workers}")
    print(f"wall seconds     best {best:.2f}, median {median:.2f} over {args.runs} run(s)")
    print(f"claims per s     {result['claims'] / best:,.0f} end to end on {args.workers} worker(s), "
          f"{result['claims'] / best / int(args.workers):,.0f} per worker")
    print(f"load average     {', '.join(f'{x:.2f}' for x in load_before)} before, "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} after, on {os.cpu_count()} cores")
    print(f"peak memory MB   {rss:.0f} max RSS of the main process; "
          f"{pss:.0f} PSS summed over all its processes")
    print(f"target           {TARGET_SECONDS * scale:.2f} s, {TARGET_MB:.0f} MB (5 s per 100,000 cases)")
    print(f"ratio to target  time {best / (TARGET_SECONDS * scale):.2f} (median {median / (TARGET_SECONDS * scale):.2f}), "
          f"memory {rss / TARGET_MB:.2f} (summed {pss / TARGET_MB:.2f})")
    print(f"hallucination    {result['hallucination_rate']['hallucinated']}/"
          f"{result['hallucination_rate']['answered']} answered cases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
