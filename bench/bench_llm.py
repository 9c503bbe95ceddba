"""Time `groundlab score --judge llm` on N synthetic cases against the stub Messages API on
127.0.0.1, which waits DELAY seconds before each answer, as a model would; then the same run with
`--batch` through the stub's Message Batches API. The stub answers as the default model does (a
JSON answer after a thinking block of 300 tokens). Nothing leaves this machine.

    python bench/bench_llm.py                  # 200 cases, 0.5 s a reply, best of 3
    python bench/bench_llm.py --n 50 --runs 1
    python bench/bench_llm.py --n 5000 --modes batch --runs 1 --code OTHER_TREE   # another groundlab

Prints, for each mode: wall seconds of the whole command in a fresh process (best and median),
the HTTP calls the stub received, the model requests they carried, and the tokens and price the
command reported.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from make_cases import main as make_cases  # noqa: E402
from messages_stub import KEY, MessagesStub  # noqa: E402


def run_once(stub: MessagesStub, cases: Path, extra: list, code: Path = ROOT) -> dict:
    stub.requests.clear()
    stub.batch_requests.clear()
    stub.calls.clear()
    stub.batches.clear()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LLM_", "GROUNDLAB_"))}
    env.update(ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=stub.url, PYTHONPATH=str(code))
    with tempfile.TemporaryDirectory() as work:
        argv = [sys.executable, "-m", "groundlab", "score", "--judge", "llm", "--cases", str(cases),
                "--passages", str(ROOT / "data" / "notes.jsonl"), "--cache", str(Path(work) / "cache"), "--json", *extra]
        began = time.perf_counter()
        done = subprocess.run(argv, env=env, cwd=work, capture_output=True, text=True)
        wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"the run failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    summary = next((line for line in done.stderr.splitlines() if " sent, " in line and "llm judge (" in line), "")
    return {"wall": wall, "calls": len(stub.calls), "requests": len(stub.requests) + len(stub.batch_requests),
            "batches": len(stub.batches), "summary": summary}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200, help="cases (default 200)")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds before each stub answer (default 0.5)")
    parser.add_argument("--runs", type=int, default=3, help="runs per mode; the best is reported (default 3)")
    parser.add_argument("--modes", default="default,batch", help="which of default,batch to run (default both)")
    parser.add_argument("--model", help="the model to judge with (default: the tree's default)")
    parser.add_argument("--stub-as", metavar="MODEL", help="the model whose refusals and thinking the stub plays "
                                                           "(default: this tree's default model)")
    parser.add_argument("--code", type=Path, default=ROOT,
                        help="the groundlab tree to run (default this one), to compare with another version")
    args = parser.parse_args(argv)

    out = HERE / "out"
    out.mkdir(exist_ok=True)
    cases = out / f"llm_cases_{args.n}.jsonl"
    if not cases.exists():
        make_cases([str(args.n), str(cases)])
    from groundlab.judges.llm import DEFAULT_MODEL

    # As the default model answers: no forced tool or temperature taken, a thinking block first.
    stub = MessagesStub().start().behave_like(args.stub_as or DEFAULT_MODEL)
    stub.delay = args.delay
    try:
        print(f"cases            {args.n} ({cases.relative_to(ROOT)})")
        print(f"stub delay       {args.delay:g} s a reply; load {os.getloadavg()[0]:.2f} "
              f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} on {os.cpu_count()} cores")
        print(f"groundlab tree   {args.code}; the stub plays {args.stub_as or DEFAULT_MODEL}")
        modes = {"default": ("default (concurrency 4)", []), "batch": ("--batch", ["--batch"])}
        model = ["--model", args.model] if args.model else []
        for label, extra in (modes[m.strip()] for m in args.modes.split(",")):
            results = [run_once(stub, cases, extra + model, args.code) for _ in range(args.runs)]
            walls = [r["wall"] for r in results]
            last = results[-1]
            print(f"\n{label}")
            print(f"  wall seconds   best {min(walls):.2f}, median {statistics.median(walls):.2f} over {len(walls)} run(s)")
            print(f"  HTTP calls     {last['calls']} ({_calls(stub)})")
            print(f"  model requests {last['requests']}" + (f" in {last['batches']} batch(es)" if last["batches"] else ""))
            print(f"  summary        {re.sub(r'^groundlab: ', '', last['summary'])}")
    finally:
        stub.stop()
    return 0


def _calls(stub: MessagesStub) -> str:
    kinds = {}
    for call in stub.calls:
        kind = re.sub(r"msgbatch_\w+", "{id}", call)
        kinds[kind] = kinds.get(kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in kinds.items())


if __name__ == "__main__":
    raise SystemExit(main())
