"""Time, CPU seconds and peak memory of scoring N synthetic cases with each engine, in fresh processes.

    python bench/bench_scale.py --n 100000 1000000 10000000 --engines plain dask spark
    python bench/bench_scale.py --n 100000 --engines plain --reference   # the ratio to the reference script
    python bench/bench_scale.py --reference --workloads helpdesk         # on the help-desk cases alone

Workloads (``--workloads``, both by default):
  synthetic  bench/make_cases.py: questions that are passage sentences (they repeat), no labels
  helpdesk   bench/make_helpdesk.py: a question of its own for every case (its order, invoice or
             customer), about three claims an answer, people's labels on every case
  helpdesk-general  the same with answers in the passages' general words only (--restate 0): the
             questions are new, the claims repeat (not run by default)

Engines (2 worker processes each, this machine's cores):
  plain  groundlab score --json (counts only, its input streamed, --workers 2)
  dask   groundlab score --json --engine dask --scheduler ADDRESS, on a Dask scheduler and 2 workers
         of 1 thread started here as their own processes (the workers read byte ranges of the file)
  spark  judge_spark() on spark.read.json(FILE) in a Spark session on local[2]
  reference  bench/reference_score.py, the method as a plain script (one process)

For each run: wall seconds; CPU seconds (user + system) of every process involved (the command, its
workers, the scheduler, the JVM), read from /proc; the peak of their proportional set sizes summed
(PSS: shared pages counted once), sampled every 0.2 s; and the peak resident size of the main process.
Every engine's figures are checked against the first engine's. Prints one line a run, then the table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from make_cases import main as make_cases  # noqa: E402
from make_helpdesk import main as make_helpdesk  # noqa: E402

#: Each workload: the file name it is written to, and its generator.
WORKLOADS = {"synthetic": ("cases_{n}.jsonl", make_cases), "helpdesk": ("helpdesk_{n}.jsonl", make_helpdesk),
             "helpdesk-general": ("helpdesk_general_{n}.jsonl", lambda argv: make_helpdesk(argv + ["--restate", "0"]))}

NOTES = ROOT / "data" / "notes.jsonl"
TICK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _children(pid: int) -> list:
    """The children of every thread of ``pid`` (a Dask nanny or the JVM starts its workers from a
    thread other than the main one)."""
    kids = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return kids
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                kids += [int(x) for x in fh.read().split()]
        except OSError:
            pass
    return kids


def _tree(roots) -> list:
    pids, frontier = list(roots), list(roots)
    while frontier:
        kids = _children(frontier.pop())
        pids += kids
        frontier += kids
    return pids


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_s(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    except (OSError, IndexError, ValueError):
        return 0.0


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Watch:
    """Samples the process trees under ``roots`` until stopped: peak summed PSS, last CPU per pid."""

    def __init__(self, roots):
        self.roots, self.peak_pss, self.cpu, self.hwm, self._stop = list(roots), 0, {}, 0, False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def add(self, pid: int) -> None:
        self.roots.append(pid)

    def _run(self) -> None:
        while not self._stop:
            pids = _tree(self.roots)
            self.peak_pss = max(self.peak_pss, sum(_pss_kb(p) for p in pids))
            for p in pids:
                self.cpu[p] = max(self.cpu.get(p, 0.0), _cpu_s(p))
            if self.roots:
                self.hwm = max(self.hwm, _rss_kb(self.roots[-1]))
            time.sleep(0.2)

    def stop(self) -> None:
        self._stop = True
        self.thread.join()


def _run(cmd, watch: Watch, env=None):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    watch.add(proc.pid)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:4]} failed:\n{err.decode()[-3000:]}")
    return wall, out


def run_engine(engine: str, cases: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    helpers = []
    watch = Watch([])
    try:
        if engine == "plain":
            cmd = [sys.executable, "-m", "groundlab", "score", "--json", "--workers", "2", "--cases", str(cases),
                   "--passages", str(NOTES)]
        elif engine == "reference":
            cmd = [sys.executable, str(HERE / "reference_score.py"), str(cases), str(NOTES)]
        elif engine == "dask":
            port = 8790 + os.getpid() % 100
            address = f"tcp://127.0.0.1:{port}"
            helpers.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                                             "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT))
            time.sleep(3)
            helpers.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                                             "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
                                             "--memory-limit", "0"],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT))
            time.sleep(6)
            for h in helpers:
                watch.add(h.pid)
            cmd = [sys.executable, "-m", "groundlab", "score", "--json", "--engine", "dask", "--scheduler", address,
                   "--cases", str(cases), "--passages", str(NOTES)]
        elif engine == "spark":
            cmd = [sys.executable, str(HERE / "scale_spark.py"), str(cases), str(NOTES)]
        else:
            raise SystemExit(f"unknown engine {engine}")
        wall, out = _run(cmd, watch, env)
    finally:
        watch.stop()
        for h in helpers:
            h.terminate()
            h.wait(timeout=30)
    figures = json.loads(out)
    return {"engine": engine, "wall": wall, "cpu": sum(watch.cpu.values()), "pss_mb": watch.peak_pss / 1024,
            "main_rss_mb": watch.hwm / 1024, "figures": figures}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[100_000])
    ap.add_argument("--engines", nargs="+", default=["plain"])
    ap.add_argument("--reference", action="store_true", help="also time the reference script, just before")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--workloads", nargs="+", choices=sorted(WORKLOADS), default=["synthetic", "helpdesk"])
    args = ap.parse_args(argv)
    rows = []
    for n, workload in ((n, w) for n in args.n for w in args.workloads):
        name, make = WORKLOADS[workload]
        cases = HERE / "out" / name.format(n=n)
        if not cases.exists():
            make([str(n), str(cases)])
        engines = (["reference"] if args.reference else []) + args.engines
        first = None
        for run in range(args.runs):
            for engine in engines:
                load = os.getloadavg()[0]
                r = run_engine(engine, cases)
                r["n"], r["workload"], r["run"] = n, workload, run
                r["load"] = (load, os.getloadavg()[0])
                if engine != "reference":
                    summary = {k: r["figures"][k] for k in ("cases", "claims", "hallucination_rate", "faithfulness",
                                                            "citation_precision", "outcomes")}
                    if first is None:
                        first = summary
                    r["same_figures"] = summary == first
                    # every figure, to compare engines measured in other runs
                    r["figures_sha256"] = hashlib.sha256(json.dumps(r["figures"], sort_keys=True).encode()).hexdigest()
                rows.append(r)
                print(f"{n:>10,} {workload:<9} {engine:<9} wall {r['wall']:8.1f} s  cpu {r['cpu']:8.1f} s  peak PSS "
                      f"{r['pss_mb']:7.0f} MB  main max RSS {r['main_rss_mb']:6.0f} MB  "
                      f"load {r['load'][0]:.1f} to {r['load'][1]:.1f}"
                      + ("" if engine == "reference" else f"  same figures: {r['same_figures']}  "
                                                          f"sha256 {r['figures_sha256'][:12]}"), flush=True)
    refs = {(r["n"], r["workload"], r["run"]): r for r in rows if r["engine"] == "reference"}  # each run its own
    for r in rows:
        ref = refs.get((r["n"], r["workload"], r["run"]))
        if ref is not None and r["engine"] != "reference":
            print(f"ratio to the reference at {r['n']:,} {r['workload']} cases (run {r['run'] + 1}): {r['engine']} "
                  f"wall {ref['wall'] / r['wall']:.1f}x, CPU {ref['cpu'] / r['cpu']:.1f}x, peak PSS "
                  f"{r['pss_mb']:.0f} MB against {ref['pss_mb']:.0f} MB; load {r['load'][0]:.1f} to "
                  f"{r['load'][1]:.1f} on {os.cpu_count()} cores")
    out = HERE / "out" / "scale.json"
    previous = json.loads(out.read_text()) if out.exists() else []
    out.write_text(json.dumps(previous + [{k: v for k, v in r.items() if k != "figures"} for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
