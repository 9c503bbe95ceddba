"""The NLI pairs the entail model learns inference from, before it learns claims (bench/train_entail.py).

``data/nli/pairs.jsonl.gz`` holds the pairs of the sources whose licences allow commercial use of
what is trained on them (:data:`SHIPPED_SOURCES`; data/nli/README.md gives each source and licence).
A larger file of the same shape with more sources (``--nli FILE``) may be given: its other sources
are read for validation only, never trained on, so the figures on them are out of domain.

Each pair becomes an :class:`NliExample`: the premise as the judge reads evidence (the sentences
that best cover the hypothesis, within the input, :func:`groundlab.judges.entail.evidence_window`),
the hypothesis, and a target: ``e`` entailment, ``n`` neutral, ``c`` contradiction, or ``x`` not
entailment (a two-way set's label, which mixes neutral and contradiction: it is taught as "not
entailment", never as contradiction).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
NLI_FILE = ROOT / "data" / "nli" / "pairs.jsonl.gz"

#: Sources trained on: their licences allow commercial use of a model trained on them
#: (CC BY-SA 4.0 / 3.0, OANC, Apache-2.0, MIT). Every other source is validation only.
SHIPPED_SOURCES = ("snli_esnli", "mnli_taxinli", "mnli_binary", "fever_nli_binary", "fever_symmetric",
                   "cad_snli", "citint")
#: The most pairs a source gives training, so that no one source sets the model's habits (the
#: news-stance set, 90% unrelated headlines, would be a quarter of the pairs uncapped).
SOURCE_CAP = {"fnc1": 5000}
DEFAULT_CAP = 20000
#: The share of each trained source kept out of training, for validation (by a hash of the pair,
#: so the same pairs whatever else changes).
HELD_OUT_SHARE = 0.02
#: Pairs of a validation-only source read for its figures.
OUT_OF_DOMAIN_PAIRS = 600

TARGETS = {"entailment": "e", "neutral": "n", "contradiction": "c", "not_entailment": "x"}


@dataclass(frozen=True)
class NliExample:
    premise: str
    hypothesis: str
    target: str  # e, n, c or x
    source: str
    scheme: str  # 3way or 2way


def _held_out(row: dict) -> bool:
    digest = hashlib.sha256((row["premise"] + "\x00" + row["hypothesis"]).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2 ** 32 < HELD_OUT_SHARE


def read_rows(path: Path) -> List[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def split(rows: Sequence[dict], seed: int, sources: Sequence[str] = SHIPPED_SOURCES
          ) -> Tuple[List[dict], List[dict], List[dict]]:
    """(training rows, held-out rows of the trained sources, rows of the validation-only sources).

    Training rows are capped per source (:data:`SOURCE_CAP`, :data:`DEFAULT_CAP`), drawn at random
    by ``seed``; validation-only sources give :data:`OUT_OF_DOMAIN_PAIRS` each."""
    rng = random.Random(f"nli:{seed}")
    train: Dict[str, List[dict]] = {}
    held: List[dict] = []
    other: Dict[str, List[dict]] = {}
    for row in rows:
        if row["label"] not in TARGETS:
            raise SystemExit(f"NLI pair of {row.get('source')!r} has the label {row['label']!r}, "
                             f"not one of {', '.join(TARGETS)}")
        if row["source"] in sources:
            (held if _held_out(row) else train.setdefault(row["source"], [])).append(row)
        else:
            other.setdefault(row["source"], []).append(row)
    out: List[dict] = []
    for source in sorted(train):
        chosen = train[source]
        cap = SOURCE_CAP.get(source, DEFAULT_CAP)
        if len(chosen) > cap:
            chosen = rng.sample(chosen, cap)
        out += chosen
    rng.shuffle(out)
    ood: List[dict] = []
    for source in sorted(other):
        chosen = other[source]
        ood += rng.sample(chosen, min(OUT_OF_DOMAIN_PAIRS, len(chosen)))
    return out, held, ood


def examples(rows: Iterable[dict], window) -> List[NliExample]:
    """Each row as the model reads it; ``window(hypothesis, premise)`` gives the premise's window."""
    return [NliExample(window(row["hypothesis"], row["premise"]), row["hypothesis"], TARGETS[row["label"]],
                       row["source"], row["scheme"]) for row in rows]


def accuracy(rows: Sequence[NliExample], p_entail: Sequence[float], p_contra: Optional[Sequence[float]] = None
             ) -> Dict[str, dict]:
    """Per source: two-way accuracy (entailment against the rest, at 0.5) and, for three-way pairs
    with ``p_contra``, three-way accuracy (the most probable of the three)."""
    out: Dict[str, dict] = {}
    for i, ex in enumerate(rows):
        entry = out.setdefault(ex.source, {"pairs": 0, "two_way_right": 0, "three_way_pairs": 0, "three_way_right": 0})
        entry["pairs"] += 1
        entry["two_way_right"] += int((p_entail[i] >= 0.5) == (ex.target == "e"))
        if p_contra is not None and ex.target in ("e", "n", "c"):
            pe, pc = p_entail[i], p_contra[i]
            pn = 1.0 - pe - pc
            guess = max((pe, "e"), (pn, "n"), (pc, "c"))[1]
            entry["three_way_pairs"] += 1
            entry["three_way_right"] += int(guess == ex.target)
    for entry in out.values():
        entry["two_way_accuracy"] = round(entry["two_way_right"] / entry["pairs"], 4)
        if entry["three_way_pairs"]:
            entry["three_way_accuracy"] = round(entry["three_way_right"] / entry["three_way_pairs"], 4)
    return out
