"""Time claim-kind detection (groundlab.kinds) on the claims of N synthetic cases and print the figures.

    python bench/bench_kinds.py            # the claims of 100,000 cases, best of 5
    python bench/bench_kinds.py --n 20000 --runs 3

Prints claims, the share of each kind, and the seconds (wall and CPU, best and median) that reading
every claim afresh takes in one process (the cache that serves repeated sentences is bypassed). On a
shared machine the CPU seconds are the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from make_cases import main as make_cases  # noqa: E402

from groundlab.claims import ClaimSplitter  # noqa: E402
from groundlab.kinds import claim_kinds  # noqa: E402

uncached = claim_kinds.__wrapped__  # every claim read afresh, as in a log where no sentence repeats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="time claim-kind detection on synthetic claims")
    ap.add_argument("--n", type=int, default=100_000, help="number of cases (default 100000)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    cases = HERE / "out" / f"cases_{args.n}.jsonl"
    if not cases.exists():
        make_cases([str(args.n), str(cases)])
    splitter = ClaimSplitter()
    texts = []
    with open(cases, encoding="utf-8") as fh:
        for line in fh:
            case = json.loads(line)
            texts.extend(claim.text for claim in splitter.split(case["id"], case["answer"]).claims)
    walls, cpus = [], []
    for _ in range(args.runs):
        start, cpu = time.perf_counter(), time.process_time()
        found = [uncached(text) for text in texts]
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    kinds = Counter(k[0] for k in found)
    print(f"claims           {len(texts)} ({len(set(texts))} distinct texts)")
    print("first kind       " + ", ".join(f"{k} {n / len(texts):.1%}" for k, n in kinds.most_common()))
    print(f"wall seconds     best {min(walls):.3f}, median {statistics.median(walls):.3f} over {args.runs} run(s)")
    print(f"CPU seconds      best {min(cpus):.3f}, median {statistics.median(cpus):.3f}")
    print(f"per claim        {1e6 * min(cpus) / len(texts):.2f} \u00b5s of CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
