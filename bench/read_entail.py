"""Read each public set's claims with the entail model that never saw the set, the judge's way: the
word-chosen window alone, and the window with every chunk of the passages, at several caps on the
chunks a claim is read against. Writes the leave-one-set-out probabilities that
bench/fit_combined.py and the docs' tables use.

    python bench/export_folds.py --run RUN      # once, in the training environment (PyTorch)
    python bench/read_entail.py --run RUN       # onnxruntime only; about an hour on one busy core

For each set, the int8 ONNX model of ``RUN/fold-<set>/model`` (trained on the NLI pairs and the
other five sets) reads the set's real claims through :func:`groundlab.judges.entail.read_claims`'s
own premises: the window, and the chunks, the ``--most`` that hold most of the claim's words. Each
(premise, claim) pair is scored once, in batches as the judge batches them; the probability at a
cap of ``c`` chunks is the best of the window and the ``c`` chunks the judge would keep at that cap,
so one pass gives every cap. Writes ``--out`` (default bench/results/entail_oof_read.jsonl.gz), one
row a claim: set, id, number, label, ``p_window``, ``p_chunks`` (a cap to the probability),
``premises`` (a cap to the premises read) and ``tokens`` (the evidence's tokens). A claim too long
to leave its evidence room is left out, as the judge gives it an error verdict.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from entail_data import SETS, real_pairs  # noqa: E402

CAPS = (1, 2, 4, 8, 16, 32)
OUT = ROOT / "bench" / "results" / "entail_oof_read.jsonl.gz"


def read_set(model, pairs, most: int, caps=CAPS):
    """Every claim of ``pairs`` read at every cap: a row a claim (``None`` for one too long)."""
    from groundlab.judges.entail import MIN_PREMISE

    caps = tuple(c for c in caps if c <= most)
    jobs, plans = [], []
    for pair in pairs:
        if model.budget(pair.claim) < MIN_PREMISE:
            plans.append(None)
            continue
        by_cap = {c: [premise for premise, _ in model.readings(pair.claim, pair.evidence, "chunks", c)] for c in caps}
        window = model.window(pair.claim, pair.evidence)[0]
        for premise in dict.fromkeys([window] + by_cap[caps[-1]]):
            jobs.append((premise, pair.claim))
        plans.append((window, by_cap))
    scored = dict(zip(jobs, model.probabilities(jobs)))
    rows = []
    for pair, plan in zip(pairs, plans):
        if plan is None:
            rows.append(None)
            continue
        window, by_cap = plan
        p_window = scored[(window, pair.claim)]
        rows.append({"set": pair.set, "id": pair.case_id, "number": pair.number, "label": pair.label,
                     "p_window": round(p_window, 6),
                     "p_chunks": {str(c): round(max(scored[(p, pair.claim)] for p in premises), 6)
                                  for c, premises in by_cap.items()},
                     "premises": {str(c): len(premises) for c, premises in by_cap.items()},
                     "tokens": sum(model.count(p.text) for p in pair.evidence.passages)})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True, help="the folder bench/train_entail.py --out wrote, its folds exported")
    ap.add_argument("--out", default=str(OUT), help="where the probabilities go")
    ap.add_argument("--most", type=int, default=max(CAPS), help="the largest cap read (default 32)")
    ap.add_argument("--threads", type=int, default=1, help="onnxruntime's threads (default 1)")
    ap.add_argument("--only", choices=SETS, action="append", help="these sets only")
    args = ap.parse_args(argv)
    from groundlab.judges.entail import EntailmentModel

    run = Path(args.run)
    missing = [s for s in (args.only or SETS) if not (run / f"fold-{s}" / "model" / "model.onnx").is_file()]
    if missing:
        raise SystemExit(f"{run} has no exported model for {', '.join(missing)}: run bench/export_folds.py --run {run} "
                         "once the folds are trained")
    out = Path(args.out)
    done = {}
    if out.is_file():  # a set already read is kept: the script goes on where it stopped
        with gzip.open(out, "rt", encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                done.setdefault(row["set"], []).append(row)
    for name in args.only or SETS:
        if name in done:
            print(f"{name}: read already ({len(done[name])} claims)")
            continue
        started = time.perf_counter()
        cpu = time.process_time()
        model = EntailmentModel(run / f"fold-{name}" / "model", threads=args.threads)
        pairs = real_pairs(name)
        rows = [r for r in read_set(model, pairs, args.most) if r is not None]
        done[name] = rows
        read = sum(r["premises"][str(max(c for c in CAPS if c <= args.most))] for r in rows)
        print(f"{name}: {len(rows)} claims ({len(pairs) - len(rows)} too long), {read} premises, "
              f"{time.perf_counter() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU", flush=True)
        tmp = out.with_name(out.name + ".tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as handle:
            for s in SETS:
                for row in done.get(s, []):
                    handle.write(json.dumps(row) + "\n")
        tmp.replace(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
