"""Judges on hand-labeled sets of enterprise answers, claim by claim: caught (hallucinated claims the
judge flags), false alarms (supported claims it flags), undecided, and the same verdict as the
person, overall and by language.

    python bench/labeled_sets.py                         # data/enterprise and data/heldout
    python bench/labeled_sets.py --judges signals rules --sets data/enterprise --json out.json

Each case's ``meta.claims`` holds the claims as the person split the answer, one label each: the
judges are given those claims (so a judge is measured apart from how an answer is split) with the
case's question and retrieved passages. ``groundlab agree --cases data/enterprise/cases.jsonl
--passages data/enterprise/passages.jsonl`` measures the whole way, splitting included.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from groundlab.core.records import Evidence, Passage  # noqa: E402
from groundlab.core.stats import wilson_interval  # noqa: E402
from groundlab.judges import get_judge  # noqa: E402


def load(folder: Path):
    passages = {}
    for line in (folder / "passages.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            p = json.loads(line)
            passages[p["id"]] = Passage(p["id"], p["text"])
    rows = []
    for line in (folder / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        # the answer goes with its claims, as in a run: a total may add up the answer's own list
        evidence = Evidence(case["question"], tuple(passages[i] if isinstance(i, str) else Passage(i["id"], i["text"])
                                                    for i in case["retrieved"]), case["answer"])
        for text, label in zip(case["meta"]["claims"], case["labels"]):
            rows.append((case["id"], case["meta"].get("language", "?"), text, label, evidence))
    return rows


def measure(rows, verdicts):
    out = Counter()
    for (_, lang, _, label, _), v in zip(rows, verdicts):
        for key in ("all", lang):
            out[key, "claims"] += 1
            if v.label is None:
                out[key, "undecided"] += 1
            if v.label == label:
                out[key, "same"] += 1
            if label == "supported":
                out[key, "supported"] += 1
                out[key, "alarms"] += v.label in ("contradicted", "unsupported")
            else:
                out[key, "hallucinated"] += 1
                out[key, "caught"] += v.label in ("contradicted", "unsupported")
    return out


def rate(k, n):
    if not n:
        return "-"
    lo, hi = wilson_interval(k, n)
    return f"{k}/{n} = {100 * k / n:.0f}% ({100 * lo:.0f}-{100 * hi:.0f}%)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judges", nargs="+", default=["signals", "rules", "entail"])
    ap.add_argument("--sets", nargs="+", default=["data/enterprise", "data/heldout"])
    ap.add_argument("--json", help="write every figure to this file")
    args = ap.parse_args(argv)
    figures = {}
    for folder in args.sets:
        rows = load(ROOT / folder)
        print(f"\n{folder}: {len(rows)} labeled claims")
        for name in args.judges:
            judge = get_judge(name)
            verdicts = judge.judge_batch([(text, ev) for _, _, text, _, ev in rows])
            m = measure(rows, verdicts)
            figures[f"{folder}:{name}"] = {f"{k}:{what}": n for (k, what), n in m.items()}
            for key in ["all"] + sorted({r[1] for r in rows}):
                print(f"  {name:8} {key:4} caught {rate(m[key, 'caught'], m[key, 'hallucinated']):22} "
                      f"false alarms {rate(m[key, 'alarms'], m[key, 'supported']):22} "
                      f"same verdict {rate(m[key, 'same'], m[key, 'claims']):22} undecided {m[key, 'undecided']}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
