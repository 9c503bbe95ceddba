"""Does the corrected hallucination rate keep its promise? The first run's labeling workflow,
simulated on the six public labeled claim sets and on sets whose hallucinations are rare.

    pip install -r bench/requirements-coverage.txt   # ppi-python, for PPI and PPI++ beside groundlab's
    python bench/coverage.py                   # the table (a few minutes on one core)
    python bench/coverage.py --draws 200 --json bench/results/coverage.json

For every set, each answer is judged by the signals judge fitted without that set (leave one set
out, as bench/fit_signals.py does), so the judge's errors are those it makes on answers it never
saw. Then, as ``groundlab run`` does on a log without labels:

1. the answers are split into strata by the judge's verdict (and, for the ``verdict x score``
   design, by whether the answer's weakest claim scores below the median of its stratum);
2. the label request is planned (groundlab.core.weighted.plan_labels): the smallest stratified
   sample expected to give the answer-level rate within +-5 points, its priors from the judge's
   caught and false alarms measured leave-one-set-out on the OTHER public sets (never the set
   itself), the largest plan over those sets;
3. the drawn answers are ordered as the sheet orders them (strata interleaved, so that any prefix is
   a stratified sample) and people's labels are taken for the drawn answers only;
4. the corrected rate and its 95% range are computed: groundlab's stratified estimator, and beside
   it prediction-powered inference (PPI, and its power-tuned PPI++ as ARES uses it; ppi-python) on a
   simple random sample of the same size, the judge's flag as the prediction.

Over ``--draws`` draws it reports how often the 95% range covers the set's true rate, the median
absolute error, the median width, and the median number of labeled answers; the same for a sheet
stopped at half its rows. "Rare" sets keep every supported answer of a set and only as many
hallucinated ones as make 4% of the answers (drawn once, seeded).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]
# This file's name is also the coverage package's, which numba (under ppi-python) imports: the
# package must be found first, so bench/ goes last on the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))

import numpy as np  # noqa: E402

CACHE = ROOT / "bench" / "out" / "coverage_answers.json"
RARE_RATE = 0.04
PICK = "max"
MARGIN = 0.05


# ---------------------------------------------------------------- the answers, judged leave one set out


def judged_answers() -> Dict[str, List[dict]]:
    """Per set, each answer: the judge's stratum, its weakest claim's score, and the truth."""
    if CACHE.is_file():
        return json.loads(CACHE.read_text(encoding="utf-8"))
    from fit_signals import SETS, THRESHOLD_SETS, FIT_SETS, config_of, fit_on, load_public  # noqa: F401
    from groundlab.judges.calibration import measure
    from groundlab.judges.signals import SignalsJudge

    claims = []
    for name in SETS:
        claims += load_public(name)[0]
    measured = measure(claims)
    sets = np.array([c.source for c in claims], dtype=object)
    post_hoc = np.array([getattr(c, "part", "") == "post-hoc" for c in claims])
    fit_rows = np.isin(sets, FIT_SETS) & ~post_hoc
    short_rows = np.isin(sets, THRESHOLD_SETS) & ~post_hoc
    out: Dict[str, List[dict]] = {}
    for name in SETS.values():
        held = sets == name
        weights, threshold = fit_on(measured, fit_rows & ~held, short_rows & ~held, sets)
        judge = SignalsJudge(config=config_of(weights, threshold))
        idx = np.flatnonzero(held)
        verdicts = judge.judge_batch([(claims[i].text, claims[i].evidence) for i in idx])
        answers: Dict[str, dict] = {}
        for i, v in zip(idx, verdicts):
            c = claims[i]
            a = answers.setdefault(c.case_id, {"id": c.case_id, "verdicts": [], "scores": [], "truth": False})
            a["verdicts"].append(v.label)
            a["scores"].append(float(v.score) if v.score is not None else float("nan"))
            a["truth"] = a["truth"] or c.label != "supported"
        rows = []
        for a in answers.values():
            v = a["verdicts"]
            stratum = ("contradicted" if "contradicted" in v else "unsupported" if "unsupported" in v
                       else "undecided" if None in v else "supported")
            rows.append({"id": a["id"], "stratum": stratum, "score": float(np.nanmin(a["scores"])),
                         "truth": bool(a["truth"])})
        out[name] = rows
        print(f"  {name}: {len(rows)} answers judged by the signals judge fitted without it", flush=True)
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    CACHE.write_text(json.dumps(out), encoding="utf-8")
    return out


def rare(rows: List[dict], rate: float, seed: int) -> List[dict]:
    rng = np.random.default_rng(seed)
    good = [r for r in rows if not r["truth"]]
    bad = [r for r in rows if r["truth"]]
    keep = int(round(rate * len(good) / (1 - rate)))
    if keep >= len(bad):
        return rows
    chosen = [bad[i] for i in rng.choice(len(bad), size=max(1, keep), replace=False)]
    return good + chosen


# ---------------------------------------------------------------- the workflow


def public_errors() -> Dict[str, tuple]:
    """(caught, false alarms) of the signals judge per public set, leave one set out, as shipped."""
    from groundlab.judges.signals import load_config

    sets = load_config(None).data["leave_one_set_out"]
    return {name: (f["signals"]["caught"]["rate"], f["signals"]["false_alarms"]["rate"]) for name, f in sets.items()
            if name not in ("all six", "ExpertQA retrieve-then-read", "ExpertQA post-hoc")}


def strata_of(rows: List[dict], design: str) -> np.ndarray:
    base = np.array([r["stratum"] for r in rows], dtype=object)
    if design == "verdict":
        return base
    scores = np.array([r["score"] for r in rows])
    out = base.copy()
    for h in set(base):
        members = np.flatnonzero(base == h)
        if len(members) < 40:
            continue
        cut = np.median(scores[members])
        low = members[scores[members] < cut]
        if 0 < len(low) < len(members):
            out[low] = h + ", weaker"
            out[np.setdiff1d(members, low)] = h + ", stronger"
    return out


def plan_for(strata: np.ndarray, errors: Dict[str, tuple], held: str, rule: str = "neyman", pick: str = "median"):
    from groundlab.core.weighted import plan_labels, priors_from_error

    names, counts = np.unique(strata, return_counts=True)
    sizes = dict(zip(names.tolist(), counts.tolist()))
    flag_sizes = {}
    for h, n in sizes.items():
        base = h.split(",")[0]
        flag_sizes[h] = n
        flag_sizes.setdefault(base, 0)
    plans = []
    for name, (caught, alarms) in errors.items():
        if name == held:
            continue
        coarse = {}
        for h, n in sizes.items():
            coarse[h.split(",")[0]] = coarse.get(h.split(",")[0], 0) + n
        p = priors_from_error(coarse, caught, alarms)
        priors = {h: p[h.split(",")[0]] for h in sizes}
        plans.append(plan_labels(sizes, priors, MARGIN, basis=name, rule=rule))
    plans.sort(key=lambda p: p.answers)
    return sizes, plans[-1] if pick == "max" else plans[len(plans) // 2]


def interleaved(picks: Dict[str, List[int]], rng) -> List[int]:
    """The drawn answers in sheet order: the k-th of a stratum of n at (k + u) / n, u random."""
    keyed = []
    for h, members in picks.items():
        n = len(members)
        u = rng.random()
        keyed += [((k + u) / n, rng.random(), i) for k, i in enumerate(members)]
    return [i for _, _, i in sorted(keyed)]


def stratified_estimate(rows_truth: np.ndarray, strata: np.ndarray, labeled: List[int], kish: bool = True,
                        method: str = "wilson"):
    from groundlab.core.weighted import weighted_rate_of_counts

    names, counts = np.unique(strata, return_counts=True)
    lab = np.array(labeled)
    cells = []
    for h, size in zip(names, counts):
        mine = lab[strata[lab] == h]
        if not len(mine):
            return None
        cells.append((h, int(size), len(mine), int(rows_truth[mine].sum())))
    if kish:
        e = weighted_rate_of_counts(cells)
        return e.rate, e.low, e.high
    return design_effect_interval(cells, method)


def design_effect_interval(cells, method: str = "wilson"):
    """The stratified estimate with an interval on the effective size p (1 - p) / var alone (no
    Kish bound): Wilson's, or Clopper-Pearson's as Korn and Graubard (1998) advise for small counts."""
    from groundlab.core.stats import wilson_interval

    total = sum(s for _, s, _, _ in cells)
    rate = sum(s / total * x / n for _, s, n, x in cells)
    var = sum((s / total) ** 2 * ((x + 0.5) / (n + 1)) * (1 - (x + 0.5) / (n + 1)) / n * (1 - n / s)
              for _, s, n, x in cells)
    centre = sum(s / total * (x + 0.5) / (n + 1) for _, s, n, x in cells)
    eff = min(sum(n for _, _, n, _ in cells), centre * (1 - centre) / var if var > 0 else math.inf)
    if method == "clopper-pearson":
        from scipy.stats import beta

        x = rate * eff
        lo = 0.0 if x <= 0 else float(beta.ppf(0.025, x, eff - x + 1))
        hi = 1.0 if x >= eff else float(beta.ppf(0.975, x + 1, eff - x))
        return rate, lo, hi
    lo, hi = wilson_interval(rate * eff, eff)
    return rate, lo, hi


def ppi(truth: np.ndarray, pred: np.ndarray, labeled: List[int], lam):
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    lab = np.array(labeled)
    Y, Yhat = truth[lab].astype(float), pred[lab].astype(float)
    lo, hi = ppi_mean_ci(Y, Yhat, pred.astype(float), alpha=0.05, lam=lam)
    est = ppi_mean_pointestimate(Y, Yhat, pred.astype(float), lam=lam)
    return float(np.ravel(est)[0]), max(0.0, float(np.ravel(lo)[0])), min(1.0, float(np.ravel(hi)[0]))


ESTIMATORS = ("stratified (groundlab)", "stratified, Clopper-Pearson", "stratified, Neyman allocation", "PPI++", "PPI",
              "labels alone (Wilson)", "stratified (groundlab), sheet stopped at half")


def simulate(name: str, rows: List[dict], errors, held: str, draws: int, seed: int, design: str) -> dict:
    """Every estimator on the same number of labels: the plan for the proportional design."""
    from groundlab.core.stats import wilson_interval
    from groundlab.core.weighted import allocate_labels

    truth = np.array([r["truth"] for r in rows])
    pred = np.array([r["stratum"] != "supported" for r in rows], dtype=float)
    true_rate = float(truth.mean())
    strata = strata_of(rows, design)
    sizes, plan = plan_for(strata, errors, held, "proportional", PICK)
    _, neyman_plan = plan_for(strata, errors, held, "neyman")
    n = plan.answers
    neyman = allocate_labels(sizes, neyman_plan.priors, n, rule="neyman")
    rng = np.random.default_rng(seed)
    results: Dict[str, List[tuple]] = {k: [] for k in ESTIMATORS}
    members = {h: np.flatnonzero(strata == h) for h in sizes}

    def draw(allocation):
        picks = {h: rng.choice(members[h], size=k, replace=False).tolist() for h, k in allocation.items()}
        return interleaved(picks, rng)

    for _ in range(draws):
        order = draw(plan.by_stratum)
        order_n = draw(neyman)
        for label, chosen, kish, method in (
                ("stratified (groundlab)", order, True, "wilson"),
                ("stratified, Clopper-Pearson", order, False, "clopper-pearson"),
                ("stratified, Neyman allocation", order_n, True, "wilson"),
                ("stratified (groundlab), sheet stopped at half", order[:len(order) // 2], True, "wilson")):
            est = stratified_estimate(truth, strata, chosen, kish, method)
            if est is not None:
                results[label].append(est + (len(chosen),))
        srs = rng.choice(len(rows), size=n, replace=False).tolist()
        results["PPI"].append(ppi(truth, pred, srs, 1.0) + (n,))
        results["PPI++"].append(ppi(truth, pred, srs, None) + (n,))
        k = int(truth[srs].sum())
        lo, hi = wilson_interval(k, n)
        results["labels alone (Wilson)"].append((k / n, lo, hi, n))
    out = {"set": name, "answers": len(rows), "true_rate": round(true_rate, 4), "design": design,
           "judge_flags": round(float(pred.mean()), 4), "planned": n, "planned_neyman": neyman_plan.answers,
           "planned_by_stratum": plan.by_stratum, "plan_basis": plan.basis,
           "expected_margin": round(plan.expected_margin, 4), "estimators": {}}
    for label, got in results.items():
        if not got:
            continue
        a = np.array(got)
        covered = (a[:, 1] <= true_rate) & (true_rate <= a[:, 2])
        out["estimators"][label] = {
            "draws": len(a), "coverage": round(float(covered.mean()), 4),
            "median_abs_error": round(float(np.median(np.abs(a[:, 0] - true_rate))), 4),
            "median_width": round(float(np.median(a[:, 2] - a[:, 1])), 4),
            "median_labeled": int(np.median(a[:, 3])), "undone": draws - len(a)}
    return out


def label_free(rows: List[dict], errors: Dict[str, tuple], held: str) -> dict:
    """The flagged rate corrected by the judge's error on the other public sets, with no label: the
    rate that explains the flagged share under each other set's caught and false alarms (kept
    within 0 and 1), and the range from the lowest to the highest. Does it hold the truth?"""
    truth = float(np.mean([r["truth"] for r in rows]))
    f = float(np.mean([r["stratum"] != "supported" for r in rows]))
    implied = []
    for name, (caught, alarms) in errors.items():
        if name != held and caught > alarms:
            implied.append(min(1.0, max(0.0, (f - alarms) / (caught - alarms))))
    lo, hi = min(implied), max(implied)
    mid = float(np.median(implied))
    return {"true_rate": round(truth, 4), "flagged": round(f, 4), "low": round(lo, 4), "high": round(hi, 4),
            "median": round(mid, 4), "covers": bool(lo <= truth <= hi), "width": round(hi - lo, 4)}


SET_NAMES = {"factcheck_gpt": "Factcheck-GPT", "wice": "WiCE", "frank_cnndm": "FRANK CNN/DM",
             "frank_xsum": "FRANK XSum", "halueval_qa": "HaluEval QA", "expertqa": "ExpertQA"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--design", choices=("verdict", "verdict x score"), action="append")
    ap.add_argument("--json", help="write every figure to this file")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    answers = judged_answers()
    errors = public_errors()
    report = []
    for design in args.design or ["verdict", "verdict x score"]:
        print(f"\n== strata: {design}; plan for \u00b1{MARGIN * 100:g} points; {args.draws} draws ==")
        print(f"{'set':28s} {'answers':>7s} {'true':>6s} {'flags':>6s} {'plan':>5s}  "
              f"{'estimator':34s} {'covers':>6s} {'|err|':>6s} {'width':>6s} {'labeled':>7s}")
        populations = []
        for name, rows in answers.items():
            populations.append((name, name, rows))
            if np.mean([r["truth"] for r in rows]) > 2 * RARE_RATE:
                populations.append((f"{name}, rare (4%)", name, rare(rows, RARE_RATE, args.seed)))
        for label, held, rows in populations:
            r = simulate(label, rows, errors, held, args.draws, args.seed, design)
            report.append(r)
            first = True
            for est, f in r["estimators"].items():
                head = (f"{label:28s} {r['answers']:7d} {r['true_rate']:6.1%} {r['judge_flags']:6.1%} {r['planned']:5d}"
                        if first else " " * 57)
                print(f"{head}  {est:34s} {f['coverage']:6.1%} {f['median_abs_error']:6.3f} {f['median_width']:6.3f} "
                      f"{f['median_labeled']:7d}" + (f" ({f['undone']} undone)" if f["undone"] else ""), flush=True)
                first = False
    print("\n== without labels: the flagged rate corrected by the judge's error on the other public sets ==")
    print(f"{'set':28s} {'true':>6s} {'flags':>6s} {'range':>15s} {'covers':>7s}")
    free = []
    for name, rows in answers.items():
        for label, pop in ((name, rows), (f"{name}, rare (4%)", rare(rows, RARE_RATE, args.seed))):
            if label.endswith("(4%)") and np.mean([r["truth"] for r in rows]) <= 2 * RARE_RATE:
                continue
            r = dict(label_free(pop, errors, name), set=label)
            free.append(r)
            print(f"{label:28s} {r['true_rate']:6.1%} {r['flagged']:6.1%} {r['low']:6.1%}\u2013{r['high']:6.1%} "
                  f"{'yes' if r['covers'] else 'no':>7s}")
    public = [r for r in free if not r["set"].endswith("(4%)")]
    print(f"covers the truth on {sum(r['covers'] for r in public)} of {len(public)} public sets "
          f"(median width {np.median([r['width'] for r in public]):.0%}); with the rare ones "
          f"{sum(r['covers'] for r in free)} of {len(free)}")
    report.append({"label_free": free})
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"\n({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
