"""Fit the signals judge on the six public labeled claim sets and print what it does on sets it was
not fitted on, next to the rules judge, computed the same way.

    python bench/fit_signals.py                 # print the figures, write nothing
    python bench/fit_signals.py --write         # also write groundlab/data/signals.json

The sets are data/public/*.jsonl.gz (see data/public/README.md): claims people labeled against
the evidence they were written from or checked against. A case's answer is split into claims as
groundlab splits every answer (FRANK's summaries hold several, one label each); cases whose labels
do not match their claims are left out and counted.

**Leave one set out.** Every set is judged by a model fitted without it: its weights on the other
fitting sets, its threshold on the other short-passage sets. So each row below is a set the judge
never saw, and the spread between rows is how much the figures move with the kind of answers.

- Weights: a logistic regression on the signals of the claims the model decides (not those a rule
  decides), each set weighing alike. HaluEval QA is not fitted on: its gold answers are short spans
  copied from the passage and its hallucinated ones full sentences, so length alone separates them
  (it is judged and reported). ExpertQA is fitted on its retrieve-then-read part only (its post-hoc
  citations carry lenient labels); both parts are reported.
- Threshold: chosen on the fitting sets for answers written from short passages. The sets pull
  two ways: on long web evidence (Factcheck-GPT, WiCE) and abstractive summaries (XSum) supported
  claims share few words with it and the best threshold lies near 0.3 to 0.4; on answers written
  closely from their passages (FRANK CNN/DM; HaluEval QA too) near 0.9. Averaged over the fitting
  sets, each alike, balanced accuracy is nearly flat between the two; of the thresholds within
  0.01 of the best average, the highest is taken: the one that suits answers from short passages
  best among those that cost the other styles nothing beyond noise. `groundlab calibrate` moves
  it on your own labels.

Rates with Wilson 95% ranges; balanced accuracy (the mean of caught and 1 - false alarms) and
kappa with 95% ranges from 1,000 bootstrap draws of whole groups (claims that share evidence); the
difference signals - rules on the same draws. ``--json FILE`` keeps every figure.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from groundlab.claims import ClaimSplitter  # noqa: E402
from groundlab.judges import get_judge  # noqa: E402
from groundlab.judges.calibration import (Figures, LabeledClaim, fit_weights, measure, scores, set_weights,  # noqa: E402
                                          threshold_for_sets, write_config)
from groundlab.judges.signals import CONFIG_KIND, FEATURE_SIGNS, FEATURES, JudgeConfig, SignalsJudge  # noqa: E402
from groundlab.records import Evidence, Passage  # noqa: E402

from entail_data import claim_texts, evidence_groups  # noqa: E402  (bench/, beside this script)

PUBLIC = ROOT / "data" / "public"
SETS = {"factcheck_gpt": "Factcheck-GPT", "wice": "WiCE", "frank_cnndm": "FRANK CNN/DM",
        "frank_xsum": "FRANK XSum", "halueval_qa": "HaluEval QA", "expertqa": "ExpertQA"}
LICENCES = {"Factcheck-GPT": "Apache-2.0", "WiCE": "ODC-BY", "FRANK CNN/DM": "MIT", "FRANK XSum": "MIT",
            "HaluEval QA": "MIT", "ExpertQA": "MIT"}
#: Sets the weights are fitted on (HaluEval QA: judged only, see the module docstring).
FIT_SETS = ("Factcheck-GPT", "WiCE", "FRANK CNN/DM", "FRANK XSum", "ExpertQA")
#: Sets the threshold is chosen on: the fitting sets.
THRESHOLD_SETS = FIT_SETS
#: How far below the best average balanced accuracy the threshold may lie, for a stricter one.
TOLERANCE = 0.01
OUT = ROOT / "groundlab" / "data" / "signals.json"


def load_public(name: str) -> tuple:
    """The labeled claims of ``data/public/<name>.jsonl.gz``, grouped by shared evidence, and how
    many cases were left out because their labels do not match their claims."""
    rows = [json.loads(line) for line in gzip.open(PUBLIC / f"{name}.jsonl.gz", "rt", encoding="utf-8")]
    group = evidence_groups(rows)
    splitter = ClaimSplitter()
    claims, left_out = [], 0
    for i, row in enumerate(rows):
        evidence = Evidence(row.get("question", ""), tuple(Passage(p["id"], p["text"]) for p in row["retrieved"]),
                            row["answer"])
        texts = claim_texts(splitter, row)
        if texts is None:
            left_out += 1
            continue
        system = (row.get("meta") or {}).get("system", "")
        for k, (text, label) in enumerate(zip(texts, row["labels"]), 1):
            claim = LabeledClaim(row["id"], k, text, evidence, label, f"{name}:{group[i]}", SETS[name])
            claim.part = "post-hoc" if system.startswith("post_hoc") else ""
            claims.append(claim)
    return claims, left_out


def config_of(weights: np.ndarray, threshold: float) -> JudgeConfig:
    names = ("intercept",) + FEATURES
    data = {"kind": CONFIG_KIND, "judge": SignalsJudge.name, "judge_version": SignalsJudge.version,
            "weights": {n: float(w) for n, w in zip(names, weights)}, "threshold": float(threshold)}
    return JudgeConfig(data, None, "in-memory")


def fit_on(measured, rows: np.ndarray, threshold_rows: np.ndarray, sets: np.ndarray):
    """Weights fitted on ``rows`` (each set alike), threshold chosen on ``threshold_rows``."""
    model = rows & measured.model
    weights = fit_weights(measured.X[model], measured.y[model], sample_weight=set_weights(sets[model]),
                          signs=FEATURE_SIGNS)
    score = scores(weights, measured)
    threshold = threshold_for_sets(score[threshold_rows], measured.y[threshold_rows], sets[threshold_rows],
                                   tolerance=TOLERANCE)
    return weights, threshold


def bootstrap(labels, verdicts_by_judge, groups, draws: int = 1000, seed: int = 0):
    """95% ranges of balanced accuracy and kappa for each judge, and of the difference between the
    first two judges' (paired: the same resampled claims), resampling whole groups."""
    rng = np.random.default_rng(seed)
    names = list(verdicts_by_judge)
    members: Dict[str, List[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    blocks = [np.array(b) for b in members.values()]
    index = {v: k for k, v in enumerate(("supported", "contradicted", "unsupported"))}
    lab = np.array([index[x] for x in labels])
    # a claim the judge left undecided (None) flags nothing: counted as its supported ones are
    coded = {n: np.array([index[x or "supported"] for x in v]) for n, v in verdicts_by_judge.items()}
    out = {name: {"balanced_accuracy": [], "kappa": []} for name in names + ["difference"]}
    for _ in range(draws):
        idx = np.concatenate([blocks[k] for k in rng.integers(0, len(blocks), len(blocks))])
        figures = {}
        for name in names:
            matrix = np.zeros((3, 3), int)
            np.add.at(matrix, (lab[idx], coded[name][idx]), 1)
            figures[name] = _balanced_and_kappa(matrix)
        for name, (b, k) in figures.items():
            out[name]["balanced_accuracy"].append(b)
            out[name]["kappa"].append(k)
        for j, key in enumerate(("balanced_accuracy", "kappa")):
            out["difference"][key].append(figures[names[0]][j] - figures[names[1]][j])
    return {name: {key: tuple(np.nanpercentile(values, [2.5, 97.5])) for key, values in figures.items()}
            for name, figures in out.items()}


def _balanced_and_kappa(matrix: np.ndarray):
    hal = matrix[1:].sum()
    sup = matrix[0].sum()
    caught = matrix[1:, 1:].sum() / hal if hal else math.nan
    alarms = matrix[0, 1:].sum() / sup if sup else math.nan
    n = matrix.sum()
    po = np.trace(matrix) / n
    pe = (matrix.sum(0) * matrix.sum(1)).sum() / n ** 2
    kappa = (po - pe) / (1 - pe) if pe < 1 else math.nan
    return (caught + 1 - alarms) / 2, kappa


def reliability(score: np.ndarray, supported: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error: how far, on average over ten bins of the score, the share of
    claims people found supported lies from the score (weighted by claims per bin)."""
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(score, edges[1:-1]), 0, bins - 1)
    error = 0.0
    for b in range(bins):
        rows = which == b
        if rows.any():
            error += rows.sum() / len(score) * abs(supported[rows].mean() - score[rows].mean())
    return float(error)


def compare_with_entail(path: str, claims, measured, sets, fit_rows, short_rows, post_hoc, draws: int) -> None:
    """The signals model with and without the entail judge's probability as a seventh signal, each
    set judged leave-one-set-out by both (the same weights' fitting and threshold rule), and the
    paired bootstrap range of the difference in balanced accuracy."""
    import copy

    keys = {v: k for k, v in SETS.items()}
    oof = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            oof[(row["set"], row["id"], row["number"])] = row["p"]
    p = np.array([oof.get((keys[c.source], c.case_id, c.number), np.nan) for c in claims])
    found = ~np.isnan(p)
    print(f"\nwith the entail probability: {int(found.sum())} of {len(claims)} claims have one "
          "(the others get 0.5, no evidence either way)")
    with_p = copy.copy(measured)
    with_p.X = np.column_stack([measured.X, np.where(found, p, 0.5)])
    signs = FEATURE_SIGNS + (1,)

    def loso(m, sign):
        flagged = np.zeros(len(claims), bool)
        for name in SETS.values():
            held = sets == name
            model = fit_rows & ~held & m.model
            w = fit_weights(m.X[model], m.y[model], sample_weight=set_weights(sets[model]), signs=sign)
            score = scores(w, m)
            t = threshold_for_sets(score[short_rows & ~held], m.y[short_rows & ~held], sets[short_rows & ~held],
                                   tolerance=TOLERANCE)
            flagged[held] = score[held] < t
        return flagged

    base, more = loso(measured, FEATURE_SIGNS), loso(with_p, signs)
    y = measured.y
    rng = np.random.default_rng(0)
    print(f"{'set':30s} {'signals':>8s} {'+ entail':>9s}  difference (95% range)")
    for name in list(SETS.values()) + ["all six"]:
        rows = np.ones(len(claims), bool) if name == "all six" else sets == name
        idx = np.flatnonzero(rows)
        groups: Dict[str, List[int]] = {}
        for i in idx:
            groups.setdefault(claims[i].group, []).append(i)
        blocks = [np.array(b) for b in groups.values()]

        def ba(f, ii):
            h, s_ = ~y[ii], y[ii]
            return ((f[ii] & h).sum() / max(h.sum(), 1) + 1 - (f[ii] & s_).sum() / max(s_.sum(), 1)) / 2

        diffs = []
        for _ in range(draws):
            ii = np.concatenate([blocks[k] for k in rng.integers(0, len(blocks), len(blocks))])
            diffs.append(ba(more, ii) - ba(base, ii))
        lo, hi = np.percentile(diffs, [2.5, 97.5])
        print(f"{name:30s} {ba(base, idx):8.3f} {ba(more, idx):9.3f}  {ba(more, idx) - ba(base, idx):+.3f} "
              f"({lo:+.3f} to {hi:+.3f})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"write the fitted weights to {OUT.relative_to(ROOT)}")
    ap.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    ap.add_argument("--draws", type=int, default=1000, help="bootstrap draws (default 1000)")
    ap.add_argument("--entail", nargs="?", const=str(ROOT / "bench" / "results" / "entail_oof.jsonl.gz"),
                    metavar="OOF", help="also fit with the entail judge's leave-one-set-out probability as one more "
                                        "signal (bench/train_entail.py's out-of-fold file) and compare, set by set")
    args = ap.parse_args(argv)

    start = time.perf_counter()
    claims: List[LabeledClaim] = []
    left_out = {}
    for name in SETS:
        found, left = load_public(name)
        claims += found
        left_out[SETS[name]] = left
    measured = measure(claims)
    sets = np.array([c.source for c in claims], dtype=object)
    post_hoc = np.array([getattr(c, "part", "") == "post-hoc" for c in claims])
    fit_rows = np.isin(sets, FIT_SETS) & ~post_hoc
    short_rows = np.isin(sets, THRESHOLD_SETS) & ~post_hoc
    labels = [c.label for c in claims]
    pairs = [(c.text, c.evidence) for c in claims]
    print(f"{len(claims)} labeled claims in {len(SETS)} sets ({', '.join(f'{SETS[n]} {int((sets == SETS[n]).sum())}' for n in SETS)}); "
          f"cases whose labels do not match their claims, left out: "
          f"{', '.join(f'{k} {v}' for k, v in left_out.items() if v) or 'none'}")

    # Leave one set out: the held-out set judged by a model fitted without it (weights and threshold).
    signals_verdicts: List[str] = [""] * len(claims)
    oof = np.zeros(len(claims))
    per_set = {}
    for name in SETS.values():
        held = sets == name
        weights, threshold = fit_on(measured, fit_rows & ~held, short_rows & ~held, sets)
        judge = SignalsJudge(config=config_of(weights, threshold))
        idx = np.flatnonzero(held)
        for i, verdict in zip(idx, judge.judge_batch([pairs[i] for i in idx])):
            signals_verdicts[i] = verdict.label
            oof[i] = verdict.score
        per_set[name] = threshold
    rules_verdicts = [v.label for v in get_judge("rules").judge_batch(pairs)]
    y = measured.y
    print(f"leave-one-set-out ({time.perf_counter() - start:.0f} s so far); thresholds: "
          + ", ".join(f"{k} {v:.3f}" for k, v in per_set.items()))
    print(f"\n{'set':34s} {'judge':8s} {'caught':26s} {'false alarms':26s} {'balanced accuracy':20s} "
          f"{'kappa':18s}")
    report = {"claims": len(claims), "sets": {}, "thresholds": per_set}
    rows_of = [(name, sets == name) for name in SETS.values()]
    rows_of.append(("ExpertQA retrieve-then-read", (sets == "ExpertQA") & ~post_hoc))
    rows_of.append(("ExpertQA post-hoc", (sets == "ExpertQA") & post_hoc))
    rows_of.append(("all six", np.ones(len(claims), bool)))
    for name, rows in rows_of:
        idx = np.flatnonzero(rows)
        lab = [labels[i] for i in idx]
        judged = {"signals": [signals_verdicts[i] for i in idx], "rules": [rules_verdicts[i] for i in idx]}
        ranges = bootstrap(lab, judged, [claims[i].group for i in idx], draws=args.draws)
        entry = {}
        for judge_name, verdicts in judged.items():
            f = Figures.of(lab, verdicts)
            r = ranges[judge_name]
            entry[judge_name] = dict(f.to_dict(), balanced_accuracy_range=[round(x, 4) for x in r["balanced_accuracy"]],
                                     kappa_range=[round(x, 4) for x in r["kappa"]])
            print(f"{name:34s} {judge_name:8s} {f.caught.with_range():26s} {f.false_alarms.with_range():26s} "
                  f"{f.balanced_accuracy:.2f} ({r['balanced_accuracy'][0]:.2f}\u2013{r['balanced_accuracy'][1]:.2f})"
                  f"   {f.kappa:.2f} ({r['kappa'][0]:.2f}\u2013{r['kappa'][1]:.2f})")
        d = ranges["difference"]
        entry["difference"] = {"balanced_accuracy": [round(x, 4) for x in d["balanced_accuracy"]],
                               "kappa": [round(x, 4) for x in d["kappa"]]}
        entry["calibration_error"] = round(reliability(oof[idx], y[idx]), 4)
        print(f"{'':34s} signals \u2212 rules: balanced accuracy {d['balanced_accuracy'][0]:+.2f} to "
              f"{d['balanced_accuracy'][1]:+.2f}; calibration error of the score {entry['calibration_error']:.3f}")
        report["sets"][name] = entry

    if args.entail:
        compare_with_entail(args.entail, claims, measured, sets, fit_rows, short_rows, post_hoc, args.draws)

    weights, threshold = fit_on(measured, fit_rows, short_rows, sets)
    names = ("intercept",) + FEATURES
    print("\nfitted on every fitting set: " + ", ".join(f"{n} {w:+.3f}" for n, w in zip(names, weights))
          + f"; threshold {threshold:.4f}")
    report["weights"] = {n: round(float(w), 6) for n, w in zip(names, weights)}
    report["threshold"] = threshold
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if args.write:
        from datetime import datetime, timezone

        data = {
            "kind": CONFIG_KIND, "judge": SignalsJudge.name, "judge_version": SignalsJudge.version,
            "weights": report["weights"], "threshold": threshold,
            "threshold_rule": (f"the highest within {TOLERANCE} of the best balanced accuracy averaged over "
                               + ", ".join(THRESHOLD_SETS) + ", each alike"),
            "fitted_on": {
                "description": "six public labeled claim sets (bench/fit_signals.py); weights on "
                               + ", ".join(FIT_SETS) + " (ExpertQA's retrieve-then-read part), each set alike",
                "claims": int(fit_rows.sum()), "decided_by_rules": int((~measured.model & fit_rows).sum()),
                "sources": {SETS[n]: f"data/public/{n}.jsonl.gz ({LICENCES[SETS[n]]})" for n in SETS},
                "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
            },
            "leave_one_set_out": report["sets"],
        }
        write_config(OUT, data, force=True)
        print(f"wrote {OUT.relative_to(ROOT)}")
    print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
