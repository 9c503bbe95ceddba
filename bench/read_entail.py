"""Read each public set's claims with the entail model that never saw the set, the judge's way: the
word-chosen window alone, and the window with every chunk of the passages, at several caps on the
chunks a claim is read against. Writes the leave-one-set-out probabilities that
bench/fit_combined.py and the docs' tables use.

    python bench/export_folds.py --run RUN      # once, in the training environment (PyTorch)
    python bench/read_entail.py --run RUN       # onnxruntime only; about an hour on one busy core
    python bench/read_entail.py --unseen        # the shipped model, on the claims it never trained on

For each set, the int8 ONNX model of ``RUN/fold-<set>/model`` (trained on the NLI pairs and the
other five sets) reads the set's real claims through :func:`groundlab.judges.entail.read_claims`'s
own premises: the window, and the chunks, the ``--most`` that hold most of the claim's words. Each
(premise, claim) pair is scored once, in batches as the judge batches them; the probability at a
cap of ``c`` chunks is the best of the window and the ``c`` chunks the judge would keep at that cap,
so one pass gives every cap. Writes ``--out`` (default bench/results/entail_oof_read.jsonl.gz), one
row a claim: set, id, number, label, ``p_window``, ``p_chunks`` (a cap to the probability),
``premises`` (a cap to the premises read) and ``tokens`` (the evidence's tokens). A claim too long
to leave its evidence room is left out, as the judge gives it an error verdict.

``--unseen`` reads with the shipped model instead, on the real claims its claim stage never trained
on: the stage's batches are made again from the recipe in its model.json (bench/train_entail.py's
seeded batches, half a pass of the cpu-short recipe), and every real claim none of them held is read,
with all of HaluEval's (never trained on). Held out claim by claim, not set by set (the passages of
other claims of the same set were trained on): a like-for-like comparison of the two readings, not a
figure of the model on sets it never saw. Writes bench/results/entail_unseen_read.jsonl.gz.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from entail_data import NOT_TRAINED, SETS, real_pairs  # noqa: E402

CAPS = (1, 2, 4, 8, 16, 32)
OUT = ROOT / "bench" / "results" / "entail_oof_read.jsonl.gz"
UNSEEN = ROOT / "bench" / "results" / "entail_unseen_read.jsonl.gz"


def unseen_claims(work: Path) -> set:
    """The claims the shipped model's claim stage trained on (its examples made again under ``work``
    from the recipe in its model.json, its seeded batches taken again): what is not here it never saw."""
    from dataclasses import fields

    import train_entail as te

    from groundlab.judges.entail import shipped_model_dir

    config = json.loads((shipped_model_dir() / "model.json").read_text(encoding="utf-8"))
    known = {f.name for f in fields(te.Recipe)}
    recipe = te.Recipe(**{k: v for k, v in config["recipe"].items() if k in known})
    recipe.nli_sources = tuple(recipe.nli_sources)
    data = te.Data(work, shipped_model_dir(), recipe, Path(te.nli_data.NLI_FILE))  # its tokenizer.json is the base's
    examples = data.claims(list(SETS))
    trained = config["trained"]["final"]
    plan = te.batches(examples, recipe.batch, recipe.claims_epochs, recipe.seed)
    if len(examples) != trained["pairs"] or len(plan) != trained["steps"]:
        raise SystemExit(f"the claim stage made again has {len(examples)} pairs in {len(plan)} steps, not the "
                         f"{trained['pairs']} in {trained['steps']} the shipped model was trained on")
    return {examples[i].claim for batch in plan for i in batch}


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


def report(path: Path, cap: int = 8) -> dict:
    """Window against chunks on the claims of a read file, set by set, at the judge's threshold of
    0.5: balanced accuracy with its 95% range, caught, false alarms, AUROC, and the paired bootstrap
    range of the difference chunks - window (2,000 draws of whole groups of claims sharing a passage)."""
    import numpy as np

    from combine_entail import balanced, bootstrap
    from fit_combined import auroc

    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    groups = {(p.set, p.case_id, p.number): p.group for s in SETS for p in real_pairs(s)}
    out = {}
    print(f"{path.name}: window against chunks (at most {cap}), threshold 0.5")
    for name in SETS:
        rs = [r for r in rows if r["set"] == name]
        if not rs:
            continue
        y = np.array([r["label"] == 1 for r in rs])
        g = np.array([groups[(r["set"], r["id"], r["number"])] for r in rs])
        p = {"window": np.array([r["p_window"] for r in rs]), "chunks": np.array([r["p_chunks"][str(cap)] for r in rs])}
        flags = {k: v < 0.5 for k, v in p.items()}
        ranges, _ = bootstrap(flags, y, g, "window")
        entry = {"claims": len(rs), "hallucinated": int((~y).sum()),
                 "premises_a_claim": round(float(np.mean([r["premises"][str(cap)] for r in rs])), 2)}
        for k in p:
            entry[k] = {"balanced_accuracy": round(balanced(flags[k], y), 4), "range": [round(float(x), 4) for x in ranges[k]],
                        "caught": int((flags[k] & ~y).sum()), "false_alarms": int((flags[k] & y).sum()),
                        "auroc": round(auroc(p[k], y), 4)}
        entry["difference_range"] = [round(float(x), 4) for x in ranges["chunks - window"]]
        out[name] = entry
        w, c = entry["window"], entry["chunks"]
        bad, good = entry["hallucinated"], len(rs) - entry["hallucinated"]
        print(f"  {name:14s} {len(rs):5d} claims, {entry['premises_a_claim']:.2f} premises a claim: window "
              f"{w['balanced_accuracy']:.3f} (caught {w['caught']}/{bad}, false alarms {w['false_alarms']}/{good}; AUROC "
              f"{w['auroc']:.3f}), chunks {c['balanced_accuracy']:.3f} (caught {c['caught']}/{bad}, false alarms "
              f"{c['false_alarms']}/{good}; AUROC {c['auroc']:.3f}); chunks - window "
              f"{c['balanced_accuracy'] - w['balanced_accuracy']:+.3f} ({entry['difference_range'][0]:+.3f} to "
              f"{entry['difference_range'][1]:+.3f})")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", help="the folder bench/train_entail.py --out wrote, its folds exported")
    ap.add_argument("--unseen", action="store_true",
                    help="read with the shipped model the real claims it never trained on, instead of --run's folds")
    ap.add_argument("--out", help="where the probabilities go (default bench/results/entail_oof_read.jsonl.gz, "
                                  "with --unseen entail_unseen_read.jsonl.gz)")
    ap.add_argument("--most", type=int, default=max(CAPS), help="the largest cap read (default 32)")
    ap.add_argument("--threads", type=int, default=1, help="onnxruntime's threads (default 1)")
    ap.add_argument("--only", choices=SETS, action="append", help="these sets only")
    ap.add_argument("--report", metavar="FILE", help="only print window against chunks from a file read before")
    ap.add_argument("--json", help="with --report, also write its figures to this file")
    args = ap.parse_args(argv)
    if args.report:
        figures = report(Path(args.report))
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        return 0
    from groundlab.judges.entail import EntailmentModel

    if bool(args.run) == args.unseen:
        ap.error("give --run RUN (the fold models) or --unseen (the shipped model), one of them")
    seen: Optional[set] = None
    if args.unseen:
        import tempfile

        with tempfile.TemporaryDirectory() as work:
            seen = unseen_claims(Path(work))
    else:
        run = Path(args.run)
        missing = [s for s in (args.only or SETS) if not (run / f"fold-{s}" / "model" / "model.onnx").is_file()]
        if missing:
            raise SystemExit(f"{run} has no exported model for {', '.join(missing)}: run bench/export_folds.py --run "
                             f"{run} once the folds are trained")
    out = Path(args.out or (UNSEEN if args.unseen else OUT))
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
        if seen is None:
            model = EntailmentModel(run / f"fold-{name}" / "model", threads=args.threads)
            pairs = real_pairs(name)
        else:
            model = EntailmentModel(threads=args.threads)
            pairs = [p for p in real_pairs(name) if name in NOT_TRAINED or p.claim not in seen]
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
