"""Fit the combined judge (signals and entail weighed together) leave-one-set-out on the six public
labeled claim sets, judge it against the signals judge by the rule for a new default, and write its
weights.

    python bench/fit_combined.py                      # the table, from the probabilities in bench/results
    python bench/fit_combined.py --json out.json      # and every figure as JSON
    python bench/fit_combined.py --write              # and groundlab/data/combined.json
    python bench/fit_combined.py --explore            # and the other combinations tried
    python bench/fit_combined.py --read FILE          # bench/read_entail.py's probabilities from FILE

The signals judge is taken as it is in the tree (its rules, signals and fitting code, through
groundlab.judges.calibration); the entailment probabilities are leave-one-set-out ones, each set's
claims read by the model trained without it: ``bench/results/entail_oof.jsonl.gz`` (the word-chosen
window, as bench/train_entail.py kept them) and, when present, ``bench/results/entail_oof_read.jsonl.gz``
(bench/read_entail.py: the window again and the chunked reading, through the judge's own int8 code).

For each held-out set, fitted on the other sets and judged on it, as bench/combine_entail.py did:

- ``signals``: its weights and threshold refitted on the other sets as bench/fit_signals.py fits them
  (each set alike, ExpertQA's retrieve-then-read part; the rules decide first).
- ``entail``: the entailment probability at or above 0.5, one row a reading.
- ``combined``: the rules decide first; the others get the probability of a logistic model of the
  signals score and the entailment probability (log-odds) and the claim's and passages' facts
  (groundlab.judges.combined.FEATURES), each fitting set and within it each class weighing alike, a
  ridge penalty of 1, the two judges' weights kept positive; its threshold chosen as the refitted
  signals judge's (the best balanced accuracy averaged over the fitting sets). ``--explore``
  adds: a threshold for the cases with a question and one for those without (``per kind``), each
  chosen on its kind's claims where the fitting sets have both classes of it; the model without
  the claim's length; the two judges' figures alone; threshold 0.5; the threshold with the best
  balanced accuracy over the fitting sets' claims pooled.

HaluEval's real claims are never fitted on: the length of the answer alone separates its classes;
nor is ExpertQA's post-hoc part, whose citations carry lenient labels (both are judged). Claims are
read as groundlab reads an answer (bench/entail_data.py ``claim_texts``: no citation markers).
Its claims are judged, and so that no figure rests on length, the combination is also fitted
without the claim's length, and the table gives, for HaluEval, AUROC within bands of like length.

The rule for a new default (the test bench/combine_entail.py applied): better than ``signals``
beyond noise on at least 4 of the 6 sets and worse beyond noise on none, "beyond noise" meaning
the 95% range of the paired bootstrap of the difference in balanced accuracy (2,000 draws of whole
groups of claims sharing a passage) lies wholly above (below) zero.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Dict

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from combine_entail import balanced, bootstrap  # noqa: E402
from entail_data import NOT_TRAINED, SETS, real_pairs  # noqa: E402

OOF_WINDOW = ROOT / "bench" / "results" / "entail_oof.jsonl.gz"
OOF_READ = ROOT / "bench" / "results" / "entail_oof_read.jsonl.gz"
CONFIG = ROOT / "groundlab" / "data" / "combined.json"
ENTAIL_THRESHOLD = 0.5
TOLERANCE = 0.0
BANDS = (0, 3, 6, 10, 15, 25, 10_000)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))


def read_probabilities(cap: int, read: Path = OOF_READ) -> Dict[str, Dict[tuple, float]]:
    """The leave-one-set-out probabilities by reading: ``window (trainer)`` from the trainer's file,
    and from bench/read_entail.py's (``read``) when it holds every set ``window`` and ``chunks`` (at
    ``cap`` chunks)."""
    out: Dict[str, Dict[tuple, float]] = {}
    with gzip.open(OOF_WINDOW, "rt", encoding="utf-8") as handle:
        out["window (trainer)"] = {(r["set"], r["id"], r["number"]): r["p"] for r in map(json.loads, handle)}
    if read.is_file():
        window, chunks = {}, {}
        with gzip.open(read, "rt", encoding="utf-8") as handle:
            for r in map(json.loads, handle):
                key = (r["set"], r["id"], r["number"])
                window[key] = r["p_window"]
                chunks[key] = r["p_chunks"][str(cap)]
        if {k[0] for k in window} >= set(SETS):
            out["window"], out["chunks"] = window, chunks
        elif read != OOF_READ:
            raise SystemExit(f"{read} holds {', '.join(sorted({k[0] for k in window}))}, not every set: read the "
                             f"others with bench/read_entail.py --out {read}")
    return out


def balanced_weights(sets: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A weight per claim so that every set weighs alike and, within it, its supported and its
    hallucinated claims alike: the fit then learns what tells the two apart, not how often each
    set's answers are wrong (which the facts of a set's claims and passages would otherwise carry)."""
    keys = np.array([f"{s}:{int(v)}" for s, v in zip(sets, y)])
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    weights = 1.0 / counts[inverse]
    return weights * len(sets) / weights.sum()


def auroc(score: np.ndarray, y: np.ndarray) -> float:
    pos, neg = score[y], score[~y]
    if not len(pos) or not len(neg):
        return float("nan")
    ranks = np.argsort(np.argsort(np.concatenate([pos, neg]), kind="stable"), kind="stable") + 1.0
    # ties: average ranks
    allv = np.concatenate([pos, neg])
    for v in np.unique(allv):
        same = allv == v
        if same.sum() > 1:
            ranks[same] = ranks[same].mean()
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def banded_auroc(score: np.ndarray, y: np.ndarray, words: np.ndarray) -> float:
    """AUROC counting only pairs of claims in the same band of length (words): what length cannot give."""
    wins = total = 0.0
    for lo, hi in zip(BANDS, BANDS[1:]):
        band = (words >= lo) & (words < hi)
        pos, neg = score[band & y], score[band & ~y]
        if len(pos) and len(neg):
            diff = pos[:, None] - neg[None, :]
            wins += (diff > 0).sum() + 0.5 * (diff == 0).sum()
            total += len(pos) * len(neg)
    return wins / total if total else float("nan")


#: The combination shipped: every feature, one threshold for every kind of case, chosen as the
#: signals judge's is in the table it is compared with (bench/fit_signals.py: the best balanced
#: accuracy averaged over the fitting sets, each alike, the strictest within 0.01 of it).
SHIPPED = {"columns": None, "threshold": "sets", "per_kind": False}
#: Others measured beside it (--explore).
EXPLORE = {
    "per kind": {"columns": None, "threshold": "sets", "per_kind": True},
    "no claim length": {"columns": ("signals", "entail", "evidence_words", "question", "numbers"),
                        "threshold": "sets", "per_kind": False},
    "signals and entail only": {"columns": ("signals", "entail"), "threshold": "sets", "per_kind": False},
    "threshold 0.5": {"columns": None, "threshold": "fixed", "per_kind": False},
    "threshold pooled": {"columns": None, "threshold": "pooled", "per_kind": False},
}


class Data:
    """The labeled claims, measured once: signals, facts, and the entailment probabilities."""

    def __init__(self, cap: int, read: Path = OOF_READ):
        from groundlab.judges.calibration import LabeledClaim, measure
        from groundlab.judges.combined import facts
        from groundlab.judges.signals import _SUPPORTED_ROUTES

        started = time.perf_counter()
        pairs = [p for name in SETS for p in real_pairs(name)]
        claims = [LabeledClaim(p.case_id, p.number, p.claim, p.evidence, "supported" if p.label else "unsupported",
                               p.group, p.set) for p in pairs]
        self.measured = measure(claims)
        self.sets = np.array([p.set for p in pairs])
        self.y, self.model = self.measured.y, self.measured.model
        self.groups = self.measured.groups
        self.rule_score = np.where(np.isin(self.measured.routes, _SUPPORTED_ROUTES), 1.0, 0.0)
        self.F = np.array([facts(p.claim, p.evidence) for p in pairs])
        self.words = np.array([len(p.claim.split()) for p in pairs])
        self.qa = self.F[:, 2] > 0
        keys = [(p.set, p.case_id, p.number) for p in pairs]
        probabilities = read_probabilities(cap, read)
        self.P = {r: np.array([probabilities[r].get(k, np.nan) for k in keys]) for r in probabilities}
        # HaluEval never fitted on, nor ExpertQA's post-hoc part (lenient labels): as bench/fit_signals.py fits
        self.fitting = ~np.isin(self.sets, list(NOT_TRAINED)) & np.array([p.part != "post-hoc" for p in pairs])
        self.seconds = time.perf_counter() - started

    def signals(self, weights) -> np.ndarray:
        m = self.measured
        return np.where(self.model, sigmoid(weights[0] + m.X @ weights[1:]), self.rule_score)

    def signals_fit(self, train):
        """The signals judge refitted on ``train`` as bench/fit_signals.py fits it: its score and threshold."""
        from fit_signals import fit_on

        w, t = fit_on(self.measured, train, train, self.sets)
        return self.signals(w), t

    def combine(self, train, s, reading: str, spec: dict):
        """The combination fitted on ``train``: weights, thresholds, and the score and flags of every claim."""
        from groundlab.judges.calibration import choose_threshold, fit_weights, threshold_for_sets
        from groundlab.judges.combined import FEATURE_SIGNS, FEATURES, LOGIT_CLIP

        columns = [FEATURES.index(c) for c in (spec["columns"] or FEATURES)]
        p = self.P[reading]
        has = ~np.isnan(p)
        pe = np.where(has, p, 0.5)
        logit = lambda v: np.clip(np.log(np.clip(v, 1e-300, 1) / np.clip(1 - v, 1e-300, 1)), -LOGIT_CLIP, LOGIT_CLIP)  # noqa: E731
        X = np.column_stack([logit(s), logit(pe), self.F])[:, columns]
        y, sets = self.y, self.sets
        rows = train & self.model & has
        w = fit_weights(X[rows], y[rows], sample_weight=balanced_weights(sets[rows], y[rows]),
                        signs=[FEATURE_SIGNS[c] for c in columns])
        # a claim the model cannot read (too long) keeps the signals judge's score and verdict
        score = np.where(self.model & has, sigmoid(w[0] + X @ w[1:]), np.where(self.model, s, self.rule_score))

        def choose(mask):
            if spec["threshold"] == "fixed":
                return 0.5
            if spec["threshold"] == "sets":
                return threshold_for_sets(score[mask], y[mask], sets[mask], tolerance=TOLERANCE)
            return choose_threshold(score[mask], y[mask])

        thresholds = {"default": choose(train)}
        if spec["per_kind"]:
            for kind, mask in (("qa", self.qa), ("summary", ~self.qa)):
                if (train & mask & y).any() and (train & mask & ~y).any():
                    thresholds[kind] = choose(train & mask)
        t = np.where(self.qa, thresholds.get("qa", thresholds["default"]),
                     thresholds.get("summary", thresholds["default"]))
        # claims the signals judge decides keep its threshold's verdict
        flags = np.where(self.model & has, score < t, None)
        weights = dict(zip(["intercept"] + [FEATURES[c] for c in columns], [round(float(x), 4) for x in w]))
        return weights, thresholds, score, flags


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="also write every figure to this file")
    ap.add_argument("--cap", type=int, default=8, help="chunks a claim is read against at most (default 8)")
    ap.add_argument("--explore", action="store_true", help="also measure the other combinations tried")
    ap.add_argument("--write", action="store_true", help="also write groundlab/data/combined.json, fitted on every set")
    ap.add_argument("--read", type=Path, default=OOF_READ,
                    help="bench/read_entail.py's probabilities (default bench/results/entail_oof_read.jsonl.gz)")
    args = ap.parse_args(argv)

    data = Data(args.cap, args.read)
    readings = list(data.P)
    shipped_reading = "chunks" if "chunks" in readings else "window (trainer)"
    print(f"{len(data.y)} labeled claims in {len(SETS)} sets; signals measured in {data.seconds:.0f} s; "
          f"{int((~data.model).sum())} decided by a rule of the signals judge; entailment read: {', '.join(readings)}")
    variants = {f"combined, {shipped_reading}": (shipped_reading, SHIPPED)}
    if args.explore:
        for r in readings:
            variants[f"combined, {r}"] = (r, SHIPPED)
            for name, spec in EXPLORE.items():
                variants[f"combined, {r}, {name}"] = (r, spec)

    report: Dict[str, Dict] = {}
    y = data.y
    for held in SETS:
        test = data.sets == held
        train = ~test & data.fitting
        s, t = data.signals_fit(train)
        flags = {"signals": s < t}
        scores = {"signals": s}
        for r in readings:
            p = data.P[r]
            # a claim the model cannot read gets an error verdict from the entail judge: counted as flagged
            flags[f"entail, {r}"] = np.where(np.isnan(p), True, p < ENTAIL_THRESHOLD)
            scores[f"entail, {r}"] = np.where(np.isnan(p), 0.0, p)
        fitted = {}
        for name, (r, spec) in variants.items():
            weights, thresholds, score, f = data.combine(train, s, r, spec)
            flags[name] = np.where(f == None, s < t, f).astype(bool)  # noqa: E711
            scores[name] = score
            fitted[name] = {"weights": weights, "thresholds": {k: round(v, 4) for k, v in thresholds.items()}}
        yt, gt = y[test], data.groups[test]
        tflags = {k: v[test] for k, v in flags.items()}
        ranges, _ = bootstrap(tflags, yt, gt, "signals")
        entry = {"claims": int(test.sum()), "hallucinated": int((~yt).sum()), "signals_threshold": t,
                 "fitted": fitted, "judges": {}}
        for name, f in tflags.items():
            e = {"balanced_accuracy": round(balanced(f, yt), 4), "range": [round(float(x), 4) for x in ranges[name]],
                 "caught": int((f & ~yt).sum()), "false_alarms": int((f & yt).sum()),
                 "auroc": round(auroc(scores[name][test], yt), 4)}
            if held == "halueval_qa":
                e["auroc_within_length_bands"] = round(banded_auroc(scores[name][test], yt, data.words[test]), 4)
            if name != "signals":
                e["difference_range"] = [round(float(x), 4) for x in ranges[name + " - signals"]]
            entry["judges"][name] = e
        report[held] = entry

    names = list(report[SETS[0]]["judges"])
    print("\nleave-one-set-out: balanced accuracy (95% range); caught, false alarms; AUROC; the difference from "
          "signals (95% range, paired bootstrap of whole groups)")
    for held, entry in report.items():
        print(f"\n{held} ({entry['claims']} claims, {entry['hallucinated']} hallucinated)")
        for name, e in entry["judges"].items():
            line = (f"  {name:48s} {e['balanced_accuracy']:.3f} ({e['range'][0]:.3f}\u2013{e['range'][1]:.3f}); "
                    f"{e['caught']}/{entry['hallucinated']}, {e['false_alarms']}/{entry['claims'] - entry['hallucinated']}; "
                    f"AUROC {e['auroc']:.3f}")
            if "auroc_within_length_bands" in e:
                line += f" (within length bands {e['auroc_within_length_bands']:.3f})"
            if "difference_range" in e:
                d = e["difference_range"]
                line += f"; {e['balanced_accuracy'] - entry['judges']['signals']['balanced_accuracy']:+.3f} " \
                        f"({d[0]:+.3f} to {d[1]:+.3f})"
            print(line)
    mean = {n: float(np.mean([report[h]["judges"][n]["balanced_accuracy"] for h in SETS])) for n in names}
    verdicts = {}
    print("\nmean over the six sets, and the rule for a new default (better beyond noise on 4 or more, worse on none):")
    for n in names:
        better = [h for h in SETS if report[h]["judges"][n].get("difference_range", [0, 0])[0] > 0]
        worse = [h for h in SETS if report[h]["judges"][n].get("difference_range", [0, 0])[1] < 0]
        verdicts[n] = {"better": better, "worse": worse, "passes": len(better) >= 4 and not worse}
        print(f"  {n:48s} {mean[n]:.3f}" + ("" if n == "signals" else
              f"; better on {', '.join(better) or 'none'}; worse on {', '.join(worse) or 'none'}"
              f"{'; meets the rule' if verdicts[n]['passes'] else ''}"))
    if args.json:
        Path(args.json).write_text(json.dumps({"cap": args.cap, "sets": report, "mean_balanced_accuracy": mean,
                                               "rule": verdicts}, indent=1) + "\n", encoding="utf-8")
    if args.write:
        write(data, shipped_reading, args.cap, report, verdicts, f"combined, {shipped_reading}")
    return 0


def write(data: "Data", reading: str, cap: int, report: dict, verdicts: dict, name: str) -> None:
    """groundlab/data/combined.json: the shipped combination fitted on every fitting set, the signals
    score by the shipped weights, the entailment probability leave-one-set-out (as new claims meet it)."""
    from groundlab.judges.calibration import shipped_prior
    from groundlab.judges.combined import CONFIG_KIND, FEATURES, CombinedJudge
    from groundlab.judges.signals import _shipped

    s = data.signals(shipped_prior())
    weights, thresholds, _, _ = data.combine(data.fitting, s, reading, SHIPPED)
    config = {
        "kind": CONFIG_KIND, "judge": CombinedJudge.name, "judge_version": CombinedJudge.version,
        "features": list(FEATURES),
        "weights": {k: weights.get(k, 0.0) for k in ["intercept", *FEATURES]},
        "thresholds": {k: round(v, 4) for k, v in thresholds.items()},
        "reading": "window" if reading.startswith("window") else "chunks", "max_chunks": cap,
        "fitted_on": {
            "description": "the six public labeled claim sets (bench/fit_combined.py), HaluEval QA judged only; each "
                           "set and within it each class weighing alike; the entailment probabilities leave-one-set-out",
            "entailment": reading, "signals_config_sha256": _shipped().sha256,
            "claims": int((data.fitting & data.model).sum()), "date": time.strftime("%Y-%m-%d")},
        "leave_one_set_out": {h: {k: report[h]["judges"][name][k] for k in ("balanced_accuracy", "range", "caught",
                                                                           "false_alarms", "difference_range")}
                              for h in SETS},
        "rule_for_a_new_default": verdicts[name],
    }
    CONFIG.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {CONFIG}")


if __name__ == "__main__":
    raise SystemExit(main())
