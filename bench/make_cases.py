"""Generate N synthetic cases over the sample passages, deterministically (same N and seed, same file).

Each case retrieves 1-3 sample passages by id and answers with 1-4 sentences drawn from them,
some altered the way assistants go wrong: a changed number, a dropped or added negation, a
sentence no passage says, a citation of the wrong passage, or an abstention. About 2.2 claims a
case, like production answers.

    python bench/make_cases.py 100000 bench/out/cases_100000.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTES = ROOT / "data" / "notes.jsonl"

INVENTED = [
    "Most companies review this every quarter.",
    "The plant manager has to sign a waiver first.",
    "A reminder is sent to the customer after three days.",
    "This usually takes two working days.",
    "The supplier offers the lowest price for this item.",
]
ABSTAIN = [
    "I can't find that in the retrieved notes.",
    "I couldn't find the answer in the documents.",
    "The documents don't say.",
]


def sentences(text: str):
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]


def make(n: int, seed: int = 7):
    rng = random.Random(seed)
    notes = [json.loads(line) for line in NOTES.read_text(encoding="utf-8").splitlines() if line.strip()]
    split = {p["id"]: sentences(p["text"]) for p in notes}
    ids = [p["id"] for p in notes]
    for k in range(n):
        retrieved = rng.sample(ids, rng.choice((1, 2, 2, 3)))
        question = rng.choice(split[retrieved[0]]).rstrip(".") + "?"
        answerable = rng.random() > 0.15
        if rng.random() < 0.07:
            answer = rng.choice(ABSTAIN)
        else:
            parts = []
            for _ in range(rng.choice((1, 2, 2, 2, 3, 3, 4))):
                pid = rng.choice(retrieved)
                sentence = rng.choice(split[pid]).rstrip(".")
                roll = rng.random()
                if roll < 0.08:
                    sentence = re.sub(r"\d+", lambda m: str(int(m.group()) + 3), sentence, count=1)
                elif roll < 0.14:
                    sentence = sentence.replace(" is ", " is not ", 1)
                elif roll < 0.20:
                    parts.append(rng.choice(INVENTED))
                    continue
                elif roll < 0.25:
                    pid = rng.choice(ids)
                parts.append(f"{sentence} [{pid}].")
            answer = " ".join(parts)
        yield {"id": f"s{k:07d}", "question": question, "retrieved": retrieved,
               "answerable": answerable, "answer": answer}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        for case in make(args.n, args.seed):
            fh.write(json.dumps(case) + "\n")
    print(f"wrote {args.n} cases to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
