"""How many claims a second the entail judge decides on one core, and what a cascade with the signals
judge would cost on 100,000 cases.

    python bench/bench_entail.py                  # 2,000 distinct public claims, one thread, both readings
    python bench/bench_entail.py --claims 5000 --batch 16 --batch 64
    python bench/bench_entail.py --cases 100000   # and the cascade's cost on bench/make_cases.py cases

The claims are real ones (the six public sets, data/public), drawn evenly, every one distinct, so
no figure is helped by the judge's cache. Timed apart, best of ``--runs``:

- for each reading (``chunks``: the word-chosen window and every chunk of the passages, at most 8;
  ``window``: the window alone): choosing each claim's premises (passages analysed afresh), the
  entailment step (the model on every (premise, claim) pair, in batches, onnxruntime on one thread,
  ``--threads``), and the entail judge, both and the verdicts from a cold cache;
- the default judge (and the combined judge, when registered) on the same claims, one cold run.

With ``--cases N`` it also times the signals judge on N synthetic cases (all their claims) and
adds what the entailment model would take to read a share of those claims, at the rate just
measured: the cost of a cascade in which it reads only the claims whose signals score is
uncertain. Prints the machine's load, which moves these figures, and the rate per CPU second of
the process (on one thread: what an otherwise idle core would give).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))


def public_claims(n: int, seed: int = 0):
    from entail_data import SETS, real_pairs

    rng = random.Random(seed)
    per = -(-n // len(SETS))
    out, seen = [], set()
    for name in SETS:
        pairs = real_pairs(name)
        rng.shuffle(pairs)
        for p in pairs:
            if p.claim not in seen:
                seen.add(p.claim)
                out.append((p.claim, p.evidence))
            if len(out) >= per * (SETS.index(name) + 1):
                break
    return out[:n]


CPU = []


def best_of(runs: int, fn):
    """The best wall time of ``runs`` calls, and all of them; the CPU seconds of the best run go to
    ``CPU`` (on one thread, what an otherwise idle core would take)."""
    times, cpu = [], []
    for _ in range(runs):
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    CPU.append(cpu[times.index(min(times))])
    return min(times), times


def per_cpu(n: int) -> str:
    return f"{n / CPU[-1]:,.0f} per CPU second"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, action="append", help="batch sizes to time (default 32)")
    ap.add_argument("--reading", choices=("chunks", "window"), action="append",
                    help="how the judge reads the evidence (default: both, timed apart)")
    ap.add_argument("--cases", type=int, default=0, help="also time a cascade's cost on this many synthetic cases")
    args = ap.parse_args(argv)

    from groundlab.judges import entail
    from groundlab.judges.entail import EntailJudge, EntailmentModel

    pairs = public_claims(args.claims)
    print(f"{len(pairs):,} distinct public claims; onnxruntime on {args.threads} thread(s); load average before: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    model = EntailmentModel(threads=args.threads)

    def clear():
        entail._sentences.cache_clear()
        entail._words.cache_clear()
        entail._chunked.cache_clear()
        model.encoder._lengths.clear()

    rate = None
    for reading in args.reading or list(entail.READINGS):
        def premises():
            clear()
            return [(premise, claim) for claim, ev in pairs for premise, _ in model.readings(claim, ev, reading)]

        seconds, times = best_of(args.runs, premises)
        jobs = premises()
        tokens = sum(min(model.max_length, model.count(a) + model.count(b) + 3) for a, b in jobs) / len(jobs)
        print(f"\n{reading}: {len(jobs) / len(pairs):.2f} premises a claim, {tokens:.0f} tokens a pair on average "
              f"(at most {model.max_length})")
        print(f"  choosing them   {len(pairs) / seconds:10,.1f} claims/s  ({seconds:.2f} s; runs "
              f"{', '.join(f'{t:.2f}' for t in times)} s; {per_cpu(len(pairs))})")
        for batch in args.batch or [32]:
            model.batch_size = batch

            def step():
                model._cache.clear()
                model.probabilities(jobs)

            seconds, times = best_of(args.runs, step)
            if reading == "chunks" or rate is None:
                rate = len(pairs) / seconds
            print(f"  entailment step {len(pairs) / seconds:10,.1f} claims/s  (batch {batch}; {len(jobs) / seconds:,.1f} "
                  f"pairs/s; {seconds:.2f} s; runs {', '.join(f'{t:.2f}' for t in times)} s; {per_cpu(len(pairs))})")
        judge = EntailJudge(threads=args.threads, batch_size=(args.batch or [32])[0], reading=reading)

        def whole():
            clear()
            judge._model._cache.clear()
            judge.judge_batch(pairs)

        seconds, times = best_of(args.runs, whole)
        print(f"  entail judge    {len(pairs) / seconds:10,.1f} claims/s  ({seconds:.2f} s; runs "
              f"{', '.join(f'{t:.2f}' for t in times)} s; {per_cpu(len(pairs))})")
    from groundlab.judges import DEFAULT_JUDGE, describe_judges, get_judge

    shown = [DEFAULT_JUDGE] + (["combined"] if "combined" in describe_judges() else [])
    print()
    for name in shown:
        def default():
            # a judge of its own each run, its memo empty; the passages' analyses are cached by the module
            clear()
            model._cache.clear()
            get_judge(name).judge_batch(pairs)

        seconds, times = best_of(1, default)
        print(f"{name + ' judge':17s} {len(pairs) / seconds:10,.1f} claims/s  (one cold run, {seconds:.2f} s; "
              f"{per_cpu(len(pairs))}){' (the default)' if name == DEFAULT_JUDGE else ''}")
    if args.cases:
        from make_cases import main as make_cases

        from groundlab import load_cases
        from groundlab.evaluate import claim_pairs, split_cases

        cases_file = HERE / "out" / f"cases_{args.cases}.jsonl"
        if not cases_file.exists():
            make_cases([str(args.cases), str(cases_file)])
        cases = load_cases(cases_file, ROOT / "data" / "notes.jsonl")
        claims = claim_pairs(list(zip(cases, split_cases(cases))))
        signals = get_judge("signals")
        start = time.perf_counter()
        signals.judge_batch(claims)
        t_signals = time.perf_counter() - start
        # The synthetic answers repeat their sentences: both judges answer a repeat from a cache.
        distinct = len({(text, tuple(p.text for p in ev.passages)) for text, ev in claims})
        print(f"\nsignals on {len(cases):,} cases ({len(claims):,} claims, {distinct:,} distinct claim and evidence "
              f"pairs): {t_signals:.1f} s")
        for share in (0.10, 0.25, 0.50, 1.0):
            extra = share * distinct / rate
            print(f"  + the entailment model on {share:.0%} of the distinct claims: {extra:,.0f} s more, "
                  f"{(t_signals + extra) / t_signals:.1f} times signals alone; were every claim new, "
                  f"{share * len(claims) / rate:,.0f} s more")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
