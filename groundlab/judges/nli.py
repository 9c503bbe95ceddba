"""The NLI judge: a local natural-language-inference model on CPU, weights never downloaded.

Two kinds of model work:

- **Three-way NLI** (any sequence-classification model whose ``id2label`` names entailment,
  neutral and contradiction, e.g. ``cross-encoder/nli-deberta-v3-base``, the default):
  the evidence is the premise, the claim the hypothesis; entailment → ``supported``,
  contradiction → ``contradicted``, neutral → ``unsupported``. A two-way model
  (entailment / not entailment) gives ``supported`` / ``unsupported``.
- **Vectara HHEM-2.1-Open** (``vectara/hallucination_evaluation_model``): one consistency score
  in [0, 1] per (premise, hypothesis); 0.5 or more → ``supported``, else ``unsupported`` (it has
  no notion of contradiction). Its modelling code ships with the weights, so it loads with
  ``trust_remote_code=True``, and builds its tokenizer from ``google/flan-t5-base``, which must be
  in the local cache as well. Loading follows the model card (``predict(pairs)``), offline.

Steps:

1. **Windows.** The evidence (the question line, then the passages) is kept whole when
   it fits the model's input beside the claim. When it does not, it is split into sentences and
   packed into windows that fit, each overlapping the previous by ``overlap`` sentences, so no
   part of a long passage is silently cut off. A sentence longer than a window is cut into
   word chunks. A claim so long that it leaves the evidence less than ``MIN_PREMISE`` tokens
   of the input is not judged: its verdict is an error saying so (cutting the claim would judge
   another claim). So is a claim the model refuses with one of its windows. The other claims
   are judged as usual.
2. **Batches.** Every (window, claim) pair of the batch is scored once, in batches of
   ``batch_size``, on CPU.
3. **Best window decides.** A claim is ``supported`` when some window entails it (the highest
   entailment wins), else ``contradicted`` when some window contradicts it, else ``unsupported``;
   for HHEM the highest score decides. The verdict's ``score`` is that best entailment
   probability (or consistency score).

Models are loaded with ``local_files_only=True``: one that is not on disk raises a
:class:`~groundlab.records.GroundlabError` naming it and saying how to make it available.

**Without PyTorch.** A folder that holds ``model.onnx`` (inputs ``input_ids``, ``attention_mask``
and, if it takes them, ``token_type_ids``; output the logits), ``tokenizer.json`` and the model's
``config.json`` (its ``id2label``) runs on onnxruntime and the ``tokenizers`` package, with no
PyTorch or transformers: what ``optimum-cli export onnx --model NAME --task text-classification
DIR`` writes. Windows, batches and verdicts are the same.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..core.claims import split_sentences
from ..core.records import Evidence, GroundlabError, Verdict, without_passage_text

DEFAULT_MODEL = "cross-encoder/nli-deberta-v3-base"
#: A claim that leaves its evidence fewer tokens than this of the model's input is not judged: the
#: verdict is an error (cutting the claim would judge another claim).
MIN_PREMISE = 8
HHEM_MODEL = "vectara/hallucination_evaluation_model"
#: HHEM-2.1-Open has no fixed input length (T5); windows this long keep CPU memory modest.
HHEM_MAX_LENGTH = 2048


@dataclass(frozen=True)
class _Failed:
    """A (premise, claim) pair the model could not score, and why."""

    problem: str


def label_map(id2label: Dict[Any, str]) -> Dict[int, str]:
    """Model output index → verdict, from a config's ``id2label``.

    >>> label_map({0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"})
    {0: 'contradicted', 1: 'supported', 2: 'unsupported'}
    """
    out: Dict[int, str] = {}
    for index, name in id2label.items():
        lowered = str(name).lower().replace("-", "_").replace(" ", "_")
        if lowered.startswith(("not_", "non_")):  # "not_entailment" is no entailment
            verdict = "unsupported" if "entail" in lowered else None
        else:
            verdict = next((v for prefix, v in (("entail", "supported"), ("contradict", "contradicted"),
                                                 ("neutral", "unsupported")) if lowered.startswith(prefix)), None)
        if verdict is not None:
            out[int(index)] = verdict
    if "supported" not in out.values() or len(out) != len(id2label):
        raise GroundlabError(f"the model's labels {dict(id2label)} are not entailment / neutral / contradiction; "
                             "pass --model with an NLI model, or Vectara's HHEM.")
    return out


class NLIJudge:
    """A local NLI (or HHEM) model as a judge (see the module docstring)."""

    name = "nli"
    version = "1"

    def __init__(
        self,
        model: Optional[str] = None,
        *,
        batch_size: int = 16,
        max_length: Optional[int] = None,
        overlap: int = 1,
        threshold: float = 0.5,
    ) -> None:
        self.model = model or os.environ.get("NLI_MODEL") or DEFAULT_MODEL
        self.batch_size = max(1, int(batch_size))
        self.overlap = max(0, int(overlap))
        self.threshold = threshold
        self._torch, self._net, self._tokenizer, self.kind = _load(self.model)
        if self.kind == "hhem":
            self.labels: Dict[int, str] = {}
            self.max_length = max_length or HHEM_MAX_LENGTH
            self._prompt = getattr(self._net, "prompt", None) or getattr(self._net.config, "prompt")
        else:
            self.labels = label_map(self._net.config.id2label)
            limit = getattr(self._tokenizer, "model_max_length", None)
            if not limit or limit > 100_000:  # tokenizers without a limit report a huge number
                limit = getattr(self._net.config, "max_position_embeddings", 512)
            self.max_length = max_length or int(limit)
        self._lengths: Dict[str, int] = {}

    # ------------------------------------------------------------ windows

    def _length(self, text: str) -> int:
        n = self._lengths.get(text)
        if n is None:
            n = len(self._tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])
            if len(self._lengths) < 200_000:
                self._lengths[text] = n
        return n

    def _budget(self, claim: str) -> int:
        """Tokens left for the premise beside ``claim`` (and the special tokens or the prompt)."""
        if self.kind == "hhem":
            used = self._length(self._prompt.format(text1="", text2=claim)) + 1
        else:
            used = self._length(claim) + self._tokenizer.num_special_tokens_to_add(pair=True)
        return self.max_length - used

    def windows(self, claim: str, evidence: Evidence) -> List[str]:
        """The evidence as premises that each fit beside ``claim``: itself when it fits; none when
        the claim leaves the evidence less than :data:`MIN_PREMISE` tokens of the model's input."""
        budget = self._budget(claim)
        if budget < MIN_PREMISE:
            return []
        whole = evidence.text
        if self._length(whole) <= budget:
            return [whole]
        units: List[str] = []
        for sentence in ["Question: " + evidence.question] + [
                s for p in evidence.passages for s in split_sentences(p.text)]:
            if self._length(sentence) <= budget:
                units.append(sentence)
            else:
                units.extend(self._chunks(sentence, budget))
        out: List[str] = []
        start = 0
        while start < len(units):
            end, used = start, 0
            while end < len(units) and (end == start or used + self._length(units[end]) + 1 <= budget):
                used += self._length(units[end]) + 1
                end += 1
            out.append(" ".join(units[start:end]))
            if end >= len(units):
                break
            start = max(start + 1, end - self.overlap)
        return out

    def _chunks(self, sentence: str, budget: int) -> List[str]:
        words, chunks, current = sentence.split(), [], []
        for word in words:
            if current and self._length(" ".join(current + [word])) > budget:
                chunks.append(" ".join(current))
                current = current[-self.overlap * 8:] if self.overlap else []
                while current and self._length(" ".join(current + [word])) > budget:
                    current = current[1:]
            current.append(word)
        if current:
            chunks.append(" ".join(current))
        return chunks

    # ------------------------------------------------------------ judging

    def judge_batch(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Verdict]:
        bare = without_passage_text(pairs, self.judge_batch)  # the model's guess on no words backs nothing
        if bare is not None:
            return bare
        plans: List[List[int]] = []
        index: Dict[Tuple[str, str], int] = {}
        jobs: List[Tuple[str, str]] = []
        for claim, evidence in pairs:
            ids = []
            for premise in self.windows(claim, evidence):
                key = (premise, claim)
                if key not in index:
                    index[key] = len(jobs)
                    jobs.append(key)
                ids.append(index[key])
            plans.append(ids)
        scores = self._score(jobs)
        out = []
        for (claim, _), ids in zip(pairs, plans):
            if not ids:
                out.append(self._too_long(claim))
                continue
            failed = next((scores[i] for i in ids if isinstance(scores[i], _Failed)), None)
            out.append(self._decide([scores[i] for i in ids]) if failed is None else
                       Verdict(None, failed.problem, error=failed.problem))
        return out

    def _too_long(self, claim: str) -> Verdict:
        problem = (f"the claim is {self._length(claim):,} tokens long and leaves the evidence less than "
                   f"{MIN_PREMISE} of the model's {self.max_length:,}-token input, so this model cannot judge "
                   "it; split the claim, or use a judge that reads longer texts")
        return Verdict(None, problem, error=problem)

    def _score(self, jobs: List[Tuple[str, str]]) -> List[Any]:
        """Per (premise, hypothesis): class probabilities (NLI) or a consistency score (HHEM); a
        pair the model cannot take gets a :class:`_Failed` instead, and the others still count."""
        torch = self._torch
        out: List[Any] = [None] * len(jobs)
        # Similar lengths together: less padding, same results.
        order = sorted(range(len(jobs)), key=lambda i: len(jobs[i][0]) + len(jobs[i][1]))
        with torch.inference_mode() if torch is not None else contextlib.nullcontext():
            for start in range(0, len(order), self.batch_size):
                batch = order[start:start + self.batch_size]
                try:
                    values = self._run([jobs[i] for i in batch])
                except Exception:  # noqa: BLE001 (find the pair at fault, one by one)
                    values = []
                    for i in batch:
                        try:
                            values.extend(self._run([jobs[i]]))
                        except Exception as exc:  # noqa: BLE001 (a tokenizer or model refusal)
                            detail = " ".join(str(exc).split())[:160]
                            values.append(_Failed(f"the model could not take this claim with its evidence "
                                                  f"({type(exc).__name__}: {detail})"))
                for i, value in zip(batch, values):
                    out[i] = value
        return out

    def _run(self, batch: List[Tuple[str, str]]) -> List[Any]:
        if self.kind == "hhem":
            return [float(v) for v in self._net.predict(batch)]
        if self._torch is None:
            return self._net.probabilities(self._tokenizer, batch, self.max_length)
        enc = self._tokenizer([premise for premise, _ in batch], [claim for _, claim in batch],
                              padding=True, truncation="only_first", max_length=self.max_length,
                              return_tensors="pt")
        return self._torch.softmax(self._net(**enc).logits.float(), dim=-1).tolist()

    def _decide(self, windows: List[Any]) -> Verdict:
        n = len(windows)
        where = (lambda k: f"window {k + 1} of {n}") if n > 1 else (lambda k: "whole evidence")
        if self.kind == "hhem":
            best = max(range(n), key=lambda k: windows[k])
            score = windows[best]
            if score >= self.threshold:
                return Verdict("supported", f"HHEM consistency {score:.2f} \u2265 {self.threshold:g} "
                               f"({where(best)})", score)
            return Verdict("unsupported", f"HHEM consistency {score:.2f} < {self.threshold:g} "
                           f"(best of {n} window{'s' * (n != 1)})", score)
        verdict_of = self.labels
        entail = [k for k, v in verdict_of.items() if v == "supported"][0]

        def top(k: int) -> str:
            probs = windows[k]
            return verdict_of[max(range(len(probs)), key=probs.__getitem__)]

        best_entail = max(range(n), key=lambda k: windows[k][entail])
        support = windows[best_entail][entail]
        for wanted, word in (("supported", "entailment"), ("contradicted", "contradiction")):
            hits = [k for k in range(n) if top(k) == wanted]
            if hits:
                column = [i for i, v in verdict_of.items() if v == wanted][0]
                k = max(hits, key=lambda h: windows[h][column])
                return Verdict(wanted, f"{word} {windows[k][column]:.2f} ({where(k)})", support)
        return Verdict("unsupported", f"no window entails or contradicts it; best entailment {support:.2f} "
                       f"({where(best_entail)})", support)


def _load(name: str):
    """(torch, model, tokenizer, kind) for a model on disk; a clear error when it is not there.
    A folder with ``model.onnx`` loads without PyTorch: ``torch`` is then ``None``."""
    if os.path.isfile(os.path.join(name, ONNX_FILE)):
        return (None,) + _load_onnx(name)
    if _is_path(name) and not os.path.isfile(os.path.join(name, "config.json")):
        raise GroundlabError(f"there is no NLI model in {name!r} (no config.json, no model.onnx); pass --model with "
                             "a folder that holds a saved or ONNX-exported model, or a Hub name already in the local "
                             "cache.")
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError:
        raise GroundlabError("the nli judge needs torch and transformers for this model; install them with "
                             "pip install 'groundlab[nli]' (see docs/install.md for the CPU build), give a folder "
                             "holding the model as model.onnx (onnxruntime, no PyTorch), or use --judge rules.") from None
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()  # load reports and progress bars would bury the one-line result
    hub = _offline_hub()  # HHEM's own code loads its tokenizer without local_files_only
    try:
        return (torch,) + _load_offline(name)
    finally:
        hf_logging.enable_progress_bar()
        hf_logging.set_verbosity(verbosity)
        if hub is not None:
            hub[0].HF_HUB_OFFLINE = hub[1]


def _load_offline(name: str):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import cached_file

    if _is_path(name):
        missing = GroundlabError(f"there is no NLI model in {name!r} (no config.json); pass --model with a folder "
                                 "that holds a saved model, or a Hub name already in the local cache.")
    else:
        missing = GroundlabError(
            f"the NLI model {name!r} is not on this machine and is never downloaded at run time; fetch it "
            f"once where there is network (hf download {name}) into the Hugging Face cache, or pass --model "
            "with the path of a folder that holds it.")
    try:
        config_path = cached_file(name, "config.json", local_files_only=True)
    except (OSError, ValueError):
        raise missing from None
    if not config_path:
        raise missing
    with open(config_path, encoding="utf-8") as fh:
        hhem = str(json.load(fh).get("model_type", "")).lower().startswith("hhem")
    try:
        net = AutoModelForSequenceClassification.from_pretrained(
            name, local_files_only=True, trust_remote_code=hhem)
        tokenizer = (getattr(net, "tokenzier", None) or getattr(net, "tokenizer", None)) if hhem else \
            AutoTokenizer.from_pretrained(name, local_files_only=True)
    except OSError as exc:
        detail = " ".join(str(exc).split())[:200]
        if hhem:
            raise GroundlabError(
                f"the HHEM model {name!r} could not be loaded offline ({detail}); it also needs "
                "google/flan-t5-base in the local Hugging Face cache (hf download google/flan-t5-base).") from None
        raise GroundlabError(f"the NLI model {name!r} could not be loaded offline ({detail}); fetch it once "
                             f"where there is network (hf download {name}) or pass --model with a local folder.") from None
    if tokenizer is None:
        raise GroundlabError(f"the HHEM model {name!r} loaded without its tokenizer; check its files.")
    net.eval()
    return net, tokenizer, "hhem" if hhem else "nli"


ONNX_FILE = "model.onnx"


def _is_path(name: str) -> bool:
    return os.path.isabs(name) or name.startswith(".") or os.path.exists(name)


class _FastTokenizer:
    """The part of a transformers tokenizer the judge uses, over a ``tokenizers.Tokenizer``."""

    def __init__(self, tokenizer: Any, model_max_length: int) -> None:
        self._tok = tokenizer
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.model_max_length = model_max_length

    def num_special_tokens_to_add(self, pair: bool = False) -> int:
        return self._tok.num_special_tokens_to_add(pair)

    def __call__(self, text: str, text_pair: Optional[str] = None, add_special_tokens: bool = True,
                 **_: Any) -> Dict[str, List[int]]:
        if text_pair is None:
            enc = self._tok.encode(text, add_special_tokens=add_special_tokens)
        else:
            enc = self._tok.encode(text, text_pair, add_special_tokens=add_special_tokens)
        return {"input_ids": list(enc.ids)}

    def encode_pairs(self, batch: Sequence[Tuple[str, str]], max_length: int):
        """ids, attention mask and token types, the premise cut at its end to fit (as
        ``truncation="only_first"``)."""
        import numpy as np

        specials = self._tok.num_special_tokens_to_add(True)
        rows = []
        for premise, claim in batch:
            hyp = self._tok.encode(claim, add_special_tokens=False)
            pre = self._tok.encode(premise, add_special_tokens=False)
            room = max_length - specials - len(hyp.ids)
            if room < 1:
                raise ValueError("Truncation error: Sequence to truncate too short to respect the provided max_length")
            if len(pre.ids) > room:
                pre.truncate(room)
            enc = self._tok.post_process(pre, hyp, True)
            rows.append((enc.ids, enc.type_ids))
        width = max(len(ids) for ids, _ in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        types = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for r, (row_ids, row_types) in enumerate(rows):
            ids[r, :len(row_ids)], types[r, :len(row_types)], mask[r, :len(row_ids)] = row_ids, row_types, 1
        return ids, mask, types


class _OnnxNet:
    """A sequence classifier exported to ONNX, on onnxruntime: class probabilities per pair."""

    def __init__(self, session: Any, config: Dict[str, Any]) -> None:
        self._session = session
        self._inputs = {i.name for i in session.get_inputs()}
        self.config = SimpleNamespace(id2label=config.get("id2label") or {},
                                      max_position_embeddings=config.get("max_position_embeddings", 512))

    def probabilities(self, tokenizer: _FastTokenizer, batch: Sequence[Tuple[str, str]],
                      max_length: int) -> List[List[float]]:
        import numpy as np

        ids, mask, types = tokenizer.encode_pairs(batch, max_length)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        logits = np.asarray(self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0],
                            dtype=np.float64)
        logits = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return (probs / probs.sum(axis=1, keepdims=True)).tolist()


def _load_onnx(folder: str):
    """(model, tokenizer, "nli") for a folder holding model.onnx, tokenizer.json and config.json."""
    try:
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError:
        raise GroundlabError(f"{os.path.join(folder, ONNX_FILE)} needs onnxruntime and tokenizers; install them "
                             "with pip install onnxruntime tokenizers.") from None
    for needed in ("tokenizer.json", "config.json"):
        if not os.path.isfile(os.path.join(folder, needed)):
            raise GroundlabError(f"the ONNX model in {folder!r} has no {needed} beside model.onnx; export the model "
                                 "with its tokenizer and config (optimum-cli export onnx writes all three).")
    try:
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as fh:
            config = json.load(fh)
        if not isinstance(config, dict):
            raise ValueError("not an object")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise GroundlabError(f"{os.path.join(folder, 'config.json')} is not a model config ({exc}); export the "
                             "model again.") from None
    limit = None
    try:
        with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as fh:
            limit = json.load(fh).get("model_max_length")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        limit = None
    if not isinstance(limit, (int, float)) or not math.isfinite(limit) or limit > 100_000 or limit < 1:
        limit = config.get("max_position_embeddings", 512)
    try:
        tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(os.path.join(folder, ONNX_FILE), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 (a damaged file: one sentence)
        detail = " ".join(str(exc).split())[:200]
        raise GroundlabError(f"the ONNX model in {folder!r} could not be loaded ({type(exc).__name__}: {detail}); "
                             "export it again.") from None
    return _OnnxNet(session, config), _FastTokenizer(tokenizer, int(limit)), "nli"


def _offline_hub():
    """Turn the Hub's offline switch on for the duration of a load; (module, old value) to restore."""
    try:
        from huggingface_hub import constants
    except ImportError:
        return None
    old = getattr(constants, "HF_HUB_OFFLINE", None)
    constants.HF_HUB_OFFLINE = True
    return constants, old
