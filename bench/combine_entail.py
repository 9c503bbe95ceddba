"""The entail judge against the signals judge, and two ways to combine them, leave-one-set-out on the
six public labeled claim sets, with bootstrap ranges of each difference in balanced accuracy.

    python bench/combine_entail.py                 # the table (about a minute on one core)
    python bench/combine_entail.py --json out.json # and the figures as JSON

It takes the signals judge as it is in the tree (its signals, rules and fitting code in
groundlab.judges.calibration), so it can be run again whenever that judge changes; the entailment
probabilities are the leave-one-set-out ones ``bench/train_entail.py`` kept
(``bench/results/entail_oof.jsonl.gz``: each set's claims as judged by the model trained on the
other five), so no model is trained or run here.

For each held-out set, everything is fitted on the other sets and judged on it:

- ``signals``: its weights and threshold refitted on the other sets as bench/fit_signals.py fits
  them (each set alike, ExpertQA's retrieve-then-read part; the rules, framing, numbers, negation
  and a missing clause, decide first, as in the judge).
- ``entail``: the entailment probability at or above 0.5.
- ``(a) feature``: the entailment probability as one more feature of the signals' logistic model,
  refitted, with its threshold chosen on the other sets as the signals' is.
- ``(b) cascade``: the signals judge decides, except for the claims whose signals score lies
  nearest its threshold, which the entailment model decides; the band is the one holding the
  given share of the other sets' model-decided claims (10%, 25%, 50%), so the cost is that share
  of the claims read by the model.

HaluEval's real claims are never fitted on (answer length alone separates them), nor ExpertQA's
post-hoc part (lenient labels): they are only judged. Claims are read as groundlab reads an
answer (bench/entail_data.py ``claim_texts``: no citation markers). Balanced accuracy is the mean of caught and 1 - false alarms, a claim counting as flagged
unless it is found supported. Ranges: 95%, from 2,000 bootstrap draws of whole groups (claims
sharing a passage), paired (the same draws for every judge).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Dict, List

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from entail_data import NOT_TRAINED, SETS, real_pairs  # noqa: E402

OOF = ROOT / "bench" / "results" / "entail_oof.jsonl.gz"
CASCADE_SHARES = (0.10, 0.25, 0.50)
DRAWS = 2000
ENTAIL_THRESHOLD = 0.5


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def balanced(flagged: np.ndarray, y: np.ndarray) -> float:
    bad, good = ~y, y
    caught = (flagged & bad).sum() / max(bad.sum(), 1)
    alarms = (flagged & good).sum() / max(good.sum(), 1)
    return float((caught + 1 - alarms) / 2)


def bootstrap(flags: Dict[str, np.ndarray], y: np.ndarray, groups: np.ndarray, base: str, seed: int = 0):
    """95% ranges of each judge's balanced accuracy and of its difference from ``base``, resampling
    whole groups (the same draws for every judge)."""
    rng = np.random.default_rng(seed)
    names = list(flags)
    _, gidx = np.unique(groups, return_inverse=True)
    G = gidx.max() + 1
    # per group: hallucinated, supported, and for each judge caught and false alarms
    stats = np.zeros((G, 2 + 2 * len(names)))
    np.add.at(stats[:, 0], gidx, ~y)
    np.add.at(stats[:, 1], gidx, y)
    for j, name in enumerate(names):
        np.add.at(stats[:, 2 + 2 * j], gidx, flags[name] & ~y)
        np.add.at(stats[:, 3 + 2 * j], gidx, flags[name] & y)
    counts = np.zeros((DRAWS, G))
    draws = rng.integers(0, G, (DRAWS, G))
    np.add.at(counts, (np.arange(DRAWS)[:, None], draws), 1)
    sums = counts @ stats
    bad, good = np.maximum(sums[:, 0], 1), np.maximum(sums[:, 1], 1)
    ba = {name: (sums[:, 2 + 2 * j] / bad + 1 - sums[:, 3 + 2 * j] / good) / 2 for j, name in enumerate(names)}
    out = {}
    for name in names:
        out[name] = tuple(np.percentile(ba[name], [2.5, 97.5]))
        if name != base:
            out[name + " - " + base] = tuple(np.percentile(ba[name] - ba[base], [2.5, 97.5]))
    return out, ba


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--oof", default=str(OOF), help="the leave-one-set-out entailment probabilities")
    args = ap.parse_args(argv)
    from groundlab.judges.calibration import LabeledClaim, fit_weights, measure, set_weights, threshold_for_sets
    from groundlab.judges.signals import _SUPPORTED_ROUTES, FEATURE_SIGNS

    from fit_signals import TOLERANCE, fit_on

    started = time.perf_counter()
    oof = {}
    with gzip.open(args.oof, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            oof[(row["set"], row["id"], row["number"])] = row["p"]
    pairs = [p for name in SETS for p in real_pairs(name)]
    missing = [p for p in pairs if (p.set, p.case_id, p.number) not in oof]
    if missing:
        # A claim too long for the model's input has no probability: the entail judge gives it an
        # error verdict, and here the signals judge keeps it.
        print(f"{len(missing)} claims have no entailment probability (too long for the model): signals decides them")
    claims = [LabeledClaim(p.case_id, p.number, p.claim, p.evidence, "supported" if p.label else "unsupported",
                           p.group, p.set) for p in pairs]
    measured = measure(claims)
    sets = np.array([p.set for p in pairs])
    # HaluEval never fitted on, nor ExpertQA's post-hoc part: as bench/fit_signals.py fits
    fitting = ~np.isin(sets, list(NOT_TRAINED)) & np.array([p.part != "post-hoc" for p in pairs])
    y = measured.y
    model = measured.model
    rule_score = np.where(np.isin(measured.routes, _SUPPORTED_ROUTES), 1.0, 0.0)
    has_p = np.array([(p.set, p.case_id, p.number) in oof for p in pairs])
    p_entail = np.array([oof.get((p.set, p.case_id, p.number), np.nan) for p in pairs])
    print(f"{len(pairs)} labeled claims in {len(SETS)} sets; signals measured in {time.perf_counter() - started:.0f} s; "
          f"{int((~model).sum())} decided by a rule of the signals judge")

    report: Dict[str, Dict] = {}
    all_flags: Dict[str, List[np.ndarray]] = {}
    for held in SETS:
        test = sets == held
        train = ~test & fitting
        # signals, refitted on the other sets as bench/fit_signals.py fits it
        w, t = fit_on(measured, train, train, sets)
        s_all = np.where(model, 1 / (1 + np.exp(-np.clip(w[0] + measured.X @ w[1:], -700, 700))), rule_score)
        flags = {"signals": s_all < t}
        # entail alone (a claim it cannot read counts as flagged: the judge gives it an error)
        pe = np.where(has_p, p_entail, 0.0)
        flags["entail"] = pe < ENTAIL_THRESHOLD
        # (a) the probability as a feature
        Xa = np.column_stack([measured.X, logit(np.where(has_p, p_entail, 0.5))])
        wa = fit_weights(Xa[train & model], y[train & model], sample_weight=set_weights(sets[train & model]),
                         signs=tuple(FEATURE_SIGNS) + (1,))
        sa = np.where(model, 1 / (1 + np.exp(-np.clip(wa[0] + Xa @ wa[1:], -700, 700))), rule_score)
        ta = threshold_for_sets(sa[train], y[train], sets[train], tolerance=TOLERANCE)
        flags["(a) feature"] = sa < ta
        # (b) cascade: the band around the threshold holding a share of the other sets' model claims
        read = {}
        for share in CASCADE_SHARES:
            distance = np.abs(s_all - t)
            width = np.quantile(distance[train & model], share)
            uncertain = model & (distance <= width) & has_p
            name = f"(b) cascade {share:.0%}"
            flags[name] = np.where(uncertain, pe < ENTAIL_THRESHOLD, s_all < t)
            read[name] = float(uncertain[test].mean())
        yt, gt = y[test], measured.groups[test]
        tflags = {k: v[test] for k, v in flags.items()}
        ranges, _ = bootstrap(tflags, yt, gt, "signals")
        entry = {"claims": int(test.sum()), "hallucinated": int((~yt).sum()), "weights_a": [round(float(x), 3) for x in wa],
                 "judges": {}}
        for name, f in tflags.items():
            e = {"balanced_accuracy": round(balanced(f, yt), 4), "range": [round(float(x), 4) for x in ranges[name]],
                 "caught": int((f & ~yt).sum()), "false_alarms": int((f & yt).sum())}
            if name != "signals":
                e["difference_range"] = [round(float(x), 4) for x in ranges[name + " - signals"]]
            if name in read:
                e["share_read_by_entail"] = round(read[name], 4)
            entry["judges"][name] = e
        report[held] = entry
        for k, v in tflags.items():
            all_flags.setdefault(k, []).append(v)

    print("\nleave-one-set-out: balanced accuracy (95% range), and the difference from signals (95% range, paired "
          "bootstrap of whole groups)")
    for held, entry in report.items():
        print(f"\n{held} ({entry['claims']} claims, {entry['hallucinated']} hallucinated)")
        for name, e in entry["judges"].items():
            line = (f"  {name:18s} {e['balanced_accuracy']:.3f} ({e['range'][0]:.3f}\u2013{e['range'][1]:.3f}); "
                    f"caught {e['caught']}/{entry['hallucinated']}, false alarms {e['false_alarms']}/"
                    f"{entry['claims'] - entry['hallucinated']}")
            if "difference_range" in e:
                d = e["difference_range"]
                line += f"; \u2212 signals {e['balanced_accuracy'] - entry['judges']['signals']['balanced_accuracy']:+.3f} " \
                        f"({d[0]:+.3f} to {d[1]:+.3f})"
            if "share_read_by_entail" in e:
                line += f"; entail reads {e['share_read_by_entail']:.0%}"
            print(line)
    # on balance: the mean over the six sets of each judge's balanced accuracy, and of its difference
    names = list(all_flags)
    mean = {n: float(np.mean([report[h]["judges"][n]["balanced_accuracy"] for h in SETS])) for n in names}
    print("\nmean over the six sets: " + "; ".join(f"{n} {mean[n]:.3f}" for n in names))
    worse = {n: [h for h in SETS if report[h]["judges"][n].get("difference_range", [0, 0])[1] < 0] for n in names}
    better = {n: [h for h in SETS if report[h]["judges"][n].get("difference_range", [0, 0])[0] > 0] for n in names}
    for n in names[1:]:
        print(f"  {n}: better beyond noise on {', '.join(better[n]) or 'none'}; worse beyond noise on "
              f"{', '.join(worse[n]) or 'none'}")
    print(f"\n{time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"sets": report, "mean_balanced_accuracy": mean}, indent=1) + "\n",
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
