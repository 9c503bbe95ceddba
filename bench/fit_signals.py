"""Fit the signals judge's weights and threshold on the public labeled claim sets and print its
cross-validated figures next to those of the rules judges, computed the same way.

    python bench/fit_signals.py                 # print the figures, write nothing
    python bench/fit_signals.py --write         # also write groundlab/data/signals.json

The sets are data/public/*.jsonl.gz (see data/public/README.md): one claim per case (the case's
answer), its evidence inline, a person's verdict. Claims are grouped for the cross-validation by
the evidence they share (claims judged against a common passage are one group), so that no
near-duplicate claim is fitted on in one fold and tested in another. Each rate is given with its
Wilson 95% range.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from groundlab.judges import get_judge  # noqa: E402
from groundlab.judges.calibration import FOLDS, Figures, LabeledClaim, fit, write_config  # noqa: E402
from groundlab.records import Evidence, Passage  # noqa: E402

PUBLIC = ROOT / "data" / "public"
SETS = {"factcheck_gpt": "Factcheck-GPT", "wice": "WiCE"}
OUT = ROOT / "groundlab" / "data" / "signals.json"


def load_public(name: str) -> List[LabeledClaim]:
    """One labeled claim per case of ``data/public/<name>.jsonl.gz``, grouped by shared evidence."""
    rows = [json.loads(line) for line in gzip.open(PUBLIC / f"{name}.jsonl.gz", "rt", encoding="utf-8")]
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: Dict[str, int] = {}
    for i, row in enumerate(rows):
        for passage in row["retrieved"]:
            j = first.setdefault(passage["text"], i)
            parent[root(i)] = root(j)
    claims = []
    for i, row in enumerate(rows):
        evidence = Evidence(row.get("question", ""), tuple(Passage(p["id"], p["text"]) for p in row["retrieved"]))
        claims.append(LabeledClaim(row["id"], 1, row["answer"], evidence, row["labels"][0],
                                   f"{name}:{root(i)}", SETS[name]))
    return claims


def bootstrap(labels, verdicts_by_judge, groups, draws: int = 2000, seed: int = 0):
    """95% ranges of balanced accuracy and kappa for each judge, and of the difference between the
    first two judges' (paired: the same resampled claims), resampling whole groups."""
    import numpy as np

    rng = np.random.default_rng(seed)
    names = list(verdicts_by_judge)
    members: Dict[str, List[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    blocks = list(members.values())
    out = {name: {"balanced_accuracy": [], "kappa": []} for name in names + ["difference"]}
    for _ in range(draws):
        idx = [i for k in rng.integers(0, len(blocks), len(blocks)) for i in blocks[k]]
        figures = {name: Figures.of([labels[i] for i in idx], [verdicts_by_judge[name][i] for i in idx])
                   for name in names}
        for name, f in figures.items():
            out[name]["balanced_accuracy"].append(f.balanced_accuracy)
            out[name]["kappa"].append(f.kappa)
        for key in ("balanced_accuracy", "kappa"):
            out["difference"][key].append(getattr(figures[names[0]], key) - getattr(figures[names[1]], key))
    return {name: {key: tuple(np.nanpercentile(values, [2.5, 97.5])) for key, values in figures.items()}
            for name, figures in out.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"write the fitted weights to {OUT.relative_to(ROOT)}")
    ap.add_argument("--max-false-alarms", type=float, default=None,
                    help="choose the threshold for this false-alarm rate instead of balanced accuracy")
    args = ap.parse_args(argv)

    claims = [c for name in SETS for c in load_public(name)]
    start = time.perf_counter()
    result = fit(claims, max_false_alarms=args.max_false_alarms)
    seconds = time.perf_counter() - start
    groups = len({c.group for c in claims})
    print(f"{len(claims)} labeled claims in {groups} groups of shared evidence, {FOLDS}-fold cross-validation "
          f"by group ({seconds:.1f} s); {result.decided_by_rules} claims decided by a rule (framing, numbers, "
          "negation, a missing clause), the rest by the model")
    names = ("intercept",) + tuple(get_judge("signals").config.data["weights"])[1:]
    print("weights   " + ", ".join(f"{n} {w:+.3f}" for n, w in zip(names, result.weights)))
    print(f"threshold {result.threshold:.4f} (" + ("balanced accuracy" if args.max_false_alarms is None
                                                   else f"false alarms at most {args.max_false_alarms:g}") + ")")
    print()
    # The rules judges have nothing to fit: their verdicts on the same claims are their figures.
    verdicts = {"signals": result.verdicts}
    for judge_name in ("rules", "lexical"):
        verdicts[judge_name] = [v.label for v in get_judge(judge_name).judge_batch([(c.text, c.evidence)
                                                                                      for c in claims])]
    print("cross-validated for signals (weights and threshold fitted on the other folds); rules and lexical have "
          "nothing to fit. Rates with their Wilson 95% ranges; balanced accuracy and kappa with 95% ranges from "
          f"{2000} bootstrap draws of whole groups; the last line is signals minus rules on the same draws.")
    for name in list(SETS.values()) + ["both"]:
        keep = [i for i, c in enumerate(claims) if name == "both" or c.source == name]
        labels = [claims[i].label for i in keep]
        groups_kept = [claims[i].group for i in keep]
        ranges = bootstrap(labels, {j: [v[i] for i in keep] for j, v in verdicts.items()}, groups_kept)
        print(f"\n{name} ({len(keep)} claims)")
        for judge_name, judged in verdicts.items():
            f = Figures.of(labels, [judged[i] for i in keep])
            r = ranges[judge_name]
            print(f"  {judge_name:8s} caught {f.caught.with_range()}, false alarms {f.false_alarms.with_range()}, "
                  f"balanced accuracy {f.balanced_accuracy:.2f} ({r['balanced_accuracy'][0]:.2f}\u2013"
                  f"{r['balanced_accuracy'][1]:.2f}), kappa {f.kappa:.2f} ({r['kappa'][0]:.2f}\u2013"
                  f"{r['kappa'][1]:.2f})")
        d = ranges["difference"]
        print(f"  signals \u2212 rules: balanced accuracy {d['balanced_accuracy'][0]:+.2f} to "
              f"{d['balanced_accuracy'][1]:+.2f}, kappa {d['kappa'][0]:+.2f} to {d['kappa'][1]:+.2f}")
    if args.write:
        sources = {SETS[name]: f"data/public/{name}.jsonl.gz" for name in SETS}
        data = result.config("Factcheck-GPT (Apache-2.0) and WiCE (ODC-BY) public labeled claim sets, one claim a "
                             "case, grouped by shared evidence (bench/fit_signals.py)", args.max_false_alarms, sources)
        write_config(OUT, data, force=True)
        print(f"\nwrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
