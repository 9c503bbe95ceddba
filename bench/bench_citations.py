"""Time `groundlab score` on one answer citing each of its N passages, and print time and peak memory.

    python bench/bench_citations.py                               # N = 300, 1,000, 3,000, this checkout
    python bench/bench_citations.py --baseline /path/to/checkout  # and an older checkout beside it, with ratios
    python bench/bench_citations.py --n 300 1000 --judge rules

One case: N passages (one invoice each) and an answer of one claim citing every one of them
("Invoices are paid after the goods receipt [P0][P1]...[PN-1]."), each passage backing the claim
alone, so its citation checks (ALCE recall and precision) run over all N citations. Each run is a
fresh `groundlab score --json` process: wall seconds and its peak resident memory (ru_maxrss), and
`groundlab guard` on the same answer beside it (it checks no citation). With ``--baseline`` the same
runs on another checkout (its package first on PYTHONPATH), and the ratio baseline / this checkout;
a baseline run past ``--timeout`` seconds is stopped and shown as more than that.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent


def write_case(n: int, folder: Path) -> Path:
    passages = [{"id": f"P{k}", "text": f"Invoice {k} of supplier S{k % 97} is paid within {k % 60 + 1} days after "
                                        f"the goods receipt of order {4500000000 + k}."} for k in range(n)]
    answer = "Invoices are paid after the goods receipt " + "".join(f"[P{k}]" for k in range(n)) + "."
    path = folder / f"cites-{n}.jsonl"
    path.write_text(json.dumps({"id": "big", "question": "When are invoices paid?", "retrieved": passages,
                                "answer": answer}) + "\n", encoding="utf-8")
    return path


def run(root: Path, argv: list, stdin: Optional[Path], timeout: float) -> Tuple[Optional[float], float, str]:
    """Wall seconds (None past ``timeout``), peak RSS in MB and stdout of ``python -m groundlab argv``
    run on the package of ``root``."""
    env = dict(os.environ, PYTHONPATH=str(root))
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, (open(stdin, "rb") if stdin else open(os.devnull, "rb")) as feed:
        proc = subprocess.Popen([sys.executable, "-m", "groundlab", *argv], stdin=feed, stdout=out,
                                stderr=subprocess.DEVNULL, env=env, cwd=root)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                return None, usage.ru_maxrss / 1024, ""
            time.sleep(0.01)
        seconds = time.perf_counter() - start
        out.seek(0)
        return seconds, usage.ru_maxrss / 1024, out.read().decode("utf-8", "replace")


def figures(root: Path, case: Path, judge: str, timeout: float) -> dict:
    seconds, mb, out = run(root, ["score", "--judge", judge, "--json", "--cases", str(case)], None, timeout)
    precision = None
    if out:
        p = json.loads(out)["citation_precision"]
        precision = f"{p['relevant']}/{p['citations']}"
    guard_s, guard_mb, _ = run(root, ["guard", "--judge", judge], case, timeout)
    return {"seconds": seconds, "mb": mb, "precision": precision, "guard_s": guard_s}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[300, 1000, 3000], help="passages cited (default 300 1000 3000)")
    parser.add_argument("--judge", default="signals", help="the judge (default: score's, signals)")
    parser.add_argument("--baseline", type=Path, help="another checkout to time beside this one")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a run is stopped (default 600)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for n in args.n:
            case = write_case(n, Path(tmp))
            now = figures(ROOT, case, args.judge, args.timeout)
            before = figures(args.baseline.resolve(), case, args.judge, args.timeout) if args.baseline else None
            rows.append((n, now, before))
    shown = lambda s, limit: f"{s:8.2f} s" if s is not None else f"> {limit:.0f} s"  # noqa: E731
    print(f"one answer citing each of its N passages, groundlab score --judge {args.judge} (guard beside it); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    head = f"{'N':>6}  {'score':>10}  {'peak':>9}  {'precision':>11}  {'guard':>9}"
    if args.baseline:
        head += f"  | {'before':>10}  {'peak':>9}  {'time ratio':>10}  {'memory ratio':>12}"
    print(head)
    for n, now, before in rows:
        line = (f"{n:>6,}  {shown(now['seconds'], args.timeout):>10}  {now['mb']:>6.0f} MB  {now['precision'] or '-':>11}"
                f"  {shown(now['guard_s'], args.timeout):>9}")
        if before is not None:
            ratio = (f"{before['seconds'] / now['seconds']:.1f}x" if before["seconds"] is not None and now["seconds"]
                     else f"> {args.timeout / now['seconds']:.0f}x" if now["seconds"] else "-")
            stopped = before["seconds"] is None  # its peak so far, when it was stopped
            peak = f"{'>' if stopped else ''}{before['mb']:.0f} MB"
            memory = f"{'> ' if stopped else ''}{before['mb'] / now['mb']:.1f}x"
            line += f"  | {shown(before['seconds'], args.timeout):>10}  {peak:>9}  {ratio:>10}  {memory:>12}"
            if before["precision"] and before["precision"] != now["precision"]:
                line += f"  (precision before: {before['precision']})"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
