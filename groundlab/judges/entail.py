"""The entail judge: a small entailment cross-encoder trained for this task, shipped with groundlab.

Word overlap cannot see roles swapped between the passage's own words ("the manager approves"
against "the manager is approved"), details recombined from the passage's own words, one name
put for another, or a correct paraphrase that shares few words with its source. A cross-encoder
reads the claim and its evidence together and can. This one is a 6-layer MiniLM (from
all-MiniLM-L6-v2, Apache-2.0) fine-tuned here on the public labeled claim sets and on pairs made
from their passages by rules, exported to ONNX and quantised to int8; it runs on onnxruntime, with
no PyTorch. How it was trained, on what, and how well it does on sets it was not trained on:
``groundlab/data/entail/MODEL_CARD.md`` (``bench/train_entail.py`` rebuilds it).

A claim is read so:

1. **Evidence, chosen by words.** The passages are split into sentences; the sentences that cover
   most of the claim's content words (compared by stem) are taken greedily, one at a time, each
   for the words the ones before it left uncovered, until the claim is covered, three are taken,
   or the model's input is full (:func:`evidence_window`). A passage of any length is read so,
   fast, and evidence spread over two sentences is read together. The question is not evidence:
   it asserts nothing.
2. **Evidence, read whole** (``reading="chunks"``: a model trained so says it in its
   ``model.json``). The passages are also cut into chunks that fit the model's input beside the
   claim, token-counted with its tokenizer, overlapping by their last sentences
   (:func:`evidence_chunks`); the claim is read against each and the window, the best deciding.
   At most :data:`MAX_CHUNKS` chunks a claim, those holding most of its words: the bound on its
   cost. A claim whose window already reaches the threshold is not read further.
3. **The model.** Each premise and the claim go in as one pair (at most :data:`MAX_LENGTH` tokens);
   the model gives the probability that the premise supports the claim. Pairs are scored in
   batches of similar length, and each (premise, claim) is scored once per judge (a cache).
4. **Verdict.** ``supported`` at or above the threshold (0.5 by default), else ``unsupported``
   (the model does not tell a contradiction from a missing fact); ``score`` is the probability.
   A claim so long that it leaves the evidence fewer than :data:`MIN_PREMISE` tokens is not cut:
   its verdict is an error saying so. A claim with no content word is ``supported`` (nothing to
   check), as the signals judge has it; a claim with no passage text to read is ``unsupported``,
   as for every judge (:func:`groundlab.records.without_passage_text`), never the model's guess on
   no words.

:func:`entailment_probabilities` gives the model's probabilities for ``(claim, evidence)`` pairs
directly, for a cascade or as a feature of another model.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Tuple, Union

from ..core.claims import split_sentences
from ..core.records import Evidence, GroundlabError, Passage, Verdict, without_passage_text  # noqa: F401 (Passage: the doctests)

#: The model's input: window and claim together, with the three special tokens.
MAX_LENGTH = 256
#: A claim that leaves the evidence fewer tokens than this is not judged (an error verdict).
MIN_PREMISE = 16
#: Evidence sentences a window holds at most.
MAX_SENTENCES = 3
#: Chunks of the passages one claim is read against at most (the word-chosen window besides): the
#: bound on a claim's cost. A longer evidence keeps the chunks that hold most of the claim's words.
MAX_CHUNKS = 8
#: The share of a chunk's tokens that the next chunk repeats (whole sentences, at most this many).
CHUNK_OVERLAP = 0.25
#: How the judge reads the evidence: every chunk and the window (``chunks``), or the window alone.
READINGS = ("chunks", "window")
#: The files of a model folder.
MODEL_FILE, TOKENIZER_FILE, CONFIG_FILE = "model.onnx", "tokenizer.json", "model.json"
#: What a model folder's model.json says it is.
CONFIG_KIND = "groundlab entailment model"

_CACHE_SIZE = 200_000


# ---------------------------------------------------------------- words and windows


@lru_cache(maxsize=1)
def _words():
    from .signals import STOP_WORDS, stem  # the signals judge's stems and function words

    import re

    token = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")

    @lru_cache(maxsize=200_000)
    def content(text: str) -> FrozenSet[str]:
        out = set()
        for word in token.findall(text.lower()):
            if word.endswith(("'s", "\u2019s")):
                word = word[:-2]
            if word in STOP_WORDS or (len(word) < 3 and not word.isdigit()):
                continue
            out.add(stem(word))
        return frozenset(out)

    return content


def content_stems(text: str) -> FrozenSet[str]:
    """The stems of a text's content words (digits kept, function words and words of fewer than
    three letters left out).

    >>> sorted(content_stems("The manager approved 2 orders."))
    ['2', 'approv', 'manag', 'order']
    """
    return _words()(text)


@lru_cache(maxsize=16384)
def _sentences(text: str) -> Tuple[Tuple[str, FrozenSet[str]], ...]:
    return tuple((s, content_stems(s)) for s in split_sentences(text) if s.strip())


def evidence_sentences(evidence: Union[Evidence, str, Sequence[str]]) -> List[Tuple[str, FrozenSet[str], str]]:
    """Every sentence of the evidence's passages: (text, its content stems, the passage id)."""
    if isinstance(evidence, str):
        passages: Sequence[Tuple[str, str]] = [("", evidence)]
    elif isinstance(evidence, Evidence):
        passages = [(p.id, p.text) for p in evidence.passages]
    else:
        passages = [("", text) for text in evidence]
    return [(s, stems, pid) for pid, text in passages for s, stems in _sentences(text)]


def evidence_window(claim: str, evidence: Union[Evidence, str, Sequence[str]], budget: int,
                    count: Callable[[str], int]) -> Tuple[str, Tuple[str, ...]]:
    """The evidence sentences that best cover ``claim``, joined, within ``budget`` tokens (by
    ``count``), and the ids of the passages they come from (see the module docstring, step 1).

    Sentences are taken in the order chosen: the one covering most of the claim's content words
    first (of equals, the shorter), then the one covering most of what is left, and so on; a
    sentence that covers nothing new is not taken. With no word in common, the first sentence.

    >>> ev = Evidence("", (Passage("D1", "Orders above 2 percent go to the manager. The analyst "
    ...     "releases the rest. Invoices are paid within 30 days."),))
    >>> evidence_window("The manager approves orders above 2 percent and the analyst the rest.",
    ...                 ev, 100, lambda s: len(s.split()))
    ('Orders above 2 percent go to the manager. The analyst releases the rest.', ('D1',))
    """
    sentences = evidence_sentences(evidence)
    if not sentences:
        return "", ()
    left = set(content_stems(claim))
    chosen: List[int] = []
    used = 0
    while left and len(chosen) < MAX_SENTENCES:
        best, best_key = -1, None
        for k, (text, stems, _) in enumerate(sentences):
            if k in chosen:
                continue
            found = len(left & stems)
            if found:
                key = (found, -len(text))
                if best_key is None or key > best_key:
                    best, best_key = k, key
        if best < 0:
            break
        n = count(sentences[best][0]) + (1 if chosen else 0)
        if chosen and used + n > budget:
            break
        chosen.append(best)
        used += n
        left -= sentences[best][1]
    if not chosen:
        chosen = [0]
    ids = tuple(dict.fromkeys(sentences[k][2] for k in chosen if sentences[k][2]))
    return " ".join(sentences[k][0] for k in chosen), ids


def _pieces(text: str, budget: int, count: Callable[[str], int]) -> List[str]:
    """A sentence longer than ``budget`` tokens cut between words into pieces that fit (a word's
    word pieces never depend on the words beside it, so the counts add up)."""
    pieces: List[str] = []
    words: List[str] = []
    used = 0
    for word in text.split():
        n = count(word)
        if words and used + n > budget:
            pieces.append(" ".join(words))
            words, used = [], 0
        words.append(word)
        used += n
    if words:
        pieces.append(" ".join(words))
    return pieces


@lru_cache(maxsize=4096)
def _chunked(passages: Tuple[Tuple[str, str], ...], budget: int, count: Callable[[str], int]
             ) -> Tuple[Tuple[str, FrozenSet[str], Tuple[str, ...]], ...]:
    units: List[Tuple[str, FrozenSet[str], str, int]] = []
    for pid, text in passages:
        for sentence, stems in _sentences(text):
            n = count(sentence)
            if n <= budget:
                units.append((sentence, stems, pid, n))
            else:
                units += [(piece, content_stems(piece), pid, count(piece)) for piece in _pieces(sentence, budget, count)]
    chunks = []
    start = 0
    overlap = int(budget * CHUNK_OVERLAP)
    while start < len(units):
        end, used = start, 0
        while end < len(units) and (end == start or used + units[end][3] <= budget):
            used += units[end][3]
            end += 1
        part = units[start:end]
        chunks.append((" ".join(u[0] for u in part), frozenset().union(*(u[1] for u in part)),
                       tuple(dict.fromkeys(u[2] for u in part if u[2]))))
        if end >= len(units):
            break
        # the next chunk begins with the last sentences of this one, up to the overlap, and moves on by one at least
        back, kept = end, 0
        while back - 1 > start and kept + units[back - 1][3] <= overlap:
            back -= 1
            kept += units[back][3]
        start = back
    return tuple(chunks)


def evidence_chunks(claim: str, evidence: Union[Evidence, str, Sequence[str]], budget: int,
                    count: Callable[[str], int], max_chunks: int = MAX_CHUNKS) -> List[Tuple[str, Tuple[str, ...]]]:
    """The passages cut into chunks of at most ``budget`` tokens (by ``count``) that the model reads
    one by one beside ``claim``, with the ids of the passages each holds, in the passages' order.

    The passages' sentences are packed in order, a passage after another, as many as fit; a sentence
    longer than the budget is cut between words. Each chunk after the first repeats the last
    sentences of the one before, up to :data:`CHUNK_OVERLAP` of the budget, so that support spread
    over two sentences is read together somewhere. When there are more than ``max_chunks``, the
    ``max_chunks`` that hold most of the claim's content words (of equals, the earlier) are kept.

    >>> ev = Evidence("", (Passage("D1", "Invoices are paid within 30 days. The warehouse ships on "
    ...     "Mondays. Orders above 2 percent go to the manager."),))
    >>> evidence_chunks("The manager approves orders.", ev, 12, lambda s: len(s.split()))
    [('Invoices are paid within 30 days. The warehouse ships on Mondays.', ('D1',)), \
('Orders above 2 percent go to the manager.', ('D1',))]
    >>> evidence_chunks("The manager approves orders.", ev, 12, lambda s: len(s.split()), max_chunks=1)
    [('Orders above 2 percent go to the manager.', ('D1',))]
    """
    if isinstance(evidence, str):
        passages: Tuple[Tuple[str, str], ...] = (("", evidence),)
    elif isinstance(evidence, Evidence):
        passages = tuple((p.id, p.text) for p in evidence.passages)
    else:
        passages = tuple(("", text) for text in evidence)
    if budget < 1:
        return []
    chunks = _chunked(passages, int(budget), count)
    if len(chunks) > max_chunks:
        stems = content_stems(claim)
        ranked = sorted(range(len(chunks)), key=lambda k: (-len(stems & chunks[k][1]), k))[:max(1, max_chunks)]
        chunks = tuple(chunks[k] for k in sorted(ranked))
    return [(text, ids) for text, _, ids in chunks]


# ---------------------------------------------------------------- the model


def shipped_model_dir() -> Path:
    """The folder of the model shipped with groundlab."""
    return Path(str(resources.files("groundlab").joinpath("data", "entail")))


class PairEncoder:
    """Turns ``(premise, claim)`` pairs into the model's input, as training did: BERT word pieces
    (``tokenizer``, a :class:`tokenizers.Tokenizer`), premise first, at most ``max_length`` tokens,
    a premise too long cut at its end; and chooses the evidence window beside a claim."""

    def __init__(self, tokenizer: Any, max_length: int = MAX_LENGTH) -> None:
        import numpy as np

        self._np = np
        self.tokenizer = tokenizer
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.max_length = int(max_length)
        self._specials = tokenizer.num_special_tokens_to_add(True)
        self._lengths: Dict[str, int] = {}

    def count(self, text: str) -> int:
        """The tokens of ``text`` alone, without special tokens (cached)."""
        n = self._lengths.get(text)
        if n is None:
            n = len(self.tokenizer.encode(text, add_special_tokens=False).ids)
            if len(self._lengths) < _CACHE_SIZE:
                self._lengths[text] = n
        return n

    def budget(self, claim: str) -> int:
        """The tokens left for the evidence beside ``claim``."""
        return self.max_length - self._specials - self.count(claim)

    def window(self, claim: str, evidence: Union[Evidence, str, Sequence[str]]) -> Tuple[str, Tuple[str, ...]]:
        """The evidence window the model reads beside ``claim`` (see :func:`evidence_window`)."""
        return evidence_window(claim, evidence, self.budget(claim), self.count)

    def chunks(self, claim: str, evidence: Union[Evidence, str, Sequence[str]],
               max_chunks: int = MAX_CHUNKS) -> List[Tuple[str, Tuple[str, ...]]]:
        """The chunks of the evidence the model reads beside ``claim`` (see :func:`evidence_chunks`)."""
        return evidence_chunks(claim, evidence, self.budget(claim), self.count, max_chunks)

    def readings(self, claim: str, evidence: Union[Evidence, str, Sequence[str]], reading: str = "chunks",
                 max_chunks: int = MAX_CHUNKS) -> List[Tuple[str, Tuple[str, ...]]]:
        """Every premise the model reads beside ``claim``, each with its passages: the word-chosen
        window first, then (``reading`` ``chunks``) each chunk that is not the window itself."""
        window = self.window(claim, evidence)
        if reading == "window":
            return [window]
        return [window] + [c for c in self.chunks(claim, evidence, max_chunks) if c[0] != window[0]]

    def encode(self, batch: Sequence[Tuple[str, str]]):
        """Token ids, attention mask and token types of a batch of ``(premise, claim)`` pairs,
        padded to the longest."""
        np = self._np
        tokenizer = self.tokenizer
        rows = []
        for premise, claim in batch:
            enc_claim = tokenizer.encode(claim, add_special_tokens=False)
            room = max(self.max_length - self._specials - len(enc_claim.ids), 0)
            if premise:
                enc_premise = tokenizer.encode(premise, add_special_tokens=False)
                if len(enc_premise.ids) > room:
                    enc_premise.truncate(room)
                merged = tokenizer.post_process(enc_premise, enc_claim, True)
            else:
                merged = tokenizer.post_process(enc_claim, None, True)
            rows.append((merged.ids[:self.max_length], merged.type_ids[:self.max_length]))
        width = max(len(ids) for ids, _ in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        types = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for r, (row_ids, row_types) in enumerate(rows):
            ids[r, :len(row_ids)] = row_ids
            types[r, :len(row_types)] = row_types
            mask[r, :len(row_ids)] = 1
        return ids, mask, types


class EntailmentModel:
    """An entailment cross-encoder on onnxruntime: ``model.onnx`` (inputs ``input_ids``,
    ``attention_mask``, ``token_type_ids``; output the probability of support, one per pair),
    ``tokenizer.json`` and ``model.json`` (``max_length``, ``threshold``) in one folder.

    ``threads``: onnxruntime's threads (``None``: its default, one per core)."""

    def __init__(self, path: Union[str, Path, None] = None, *, threads: Optional[int] = None,
                 batch_size: int = 32) -> None:
        folder = Path(path) if path is not None else shipped_model_dir()
        self.path = folder
        self.batch_size = max(1, int(batch_size))
        try:
            import numpy as np
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError:
            raise GroundlabError("the entail judge needs onnxruntime and tokenizers; install them with "
                                 "pip install onnxruntime tokenizers, or use --judge signals.") from None
        self._np = np
        shown = "the shipped entailment model" if path is None else f"the entailment model in {folder}"
        missing = [name for name in (MODEL_FILE, TOKENIZER_FILE, CONFIG_FILE) if not (folder / name).is_file()]
        if missing:
            raise GroundlabError(f"{shown} lacks {', '.join(missing)}; give a folder that bench/train_entail.py "
                                 "wrote (model.onnx, tokenizer.json, model.json).")
        try:
            config = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            raise GroundlabError(f"{folder / CONFIG_FILE} is not JSON; give a folder that bench/train_entail.py "
                                 "wrote.") from None
        if not isinstance(config, dict) or config.get("kind") != CONFIG_KIND:
            raise GroundlabError(f"{folder / CONFIG_FILE} is not a groundlab entailment model (no \"kind\": "
                                 f"\"{CONFIG_KIND}\"); give a folder that bench/train_entail.py wrote.")
        self.config = config
        try:
            self.max_length = int(config.get("max_length", MAX_LENGTH))
            self.threshold = float(config.get("threshold", 0.5))
            if not (MIN_PREMISE < self.max_length <= 4096 and 0 < self.threshold < 1):
                raise ValueError
        except (TypeError, ValueError):
            raise GroundlabError(f"{folder / CONFIG_FILE} needs a whole \"max_length\" above {MIN_PREMISE} and a "
                                 "\"threshold\" between 0 and 1; give a folder that bench/train_entail.py "
                                 "wrote.") from None
        # How the model was trained to read: a model trained on windows alone reads windows (chunks it
        # never saw raise its probabilities, on the public sets more for supported claims than others).
        self.reading = config.get("reading", "window")
        if self.reading not in READINGS:
            raise GroundlabError(f"{folder / CONFIG_FILE} says the model reads {self.reading!r}; it reads "
                                 f"{' or '.join(READINGS)}: give a folder that bench/train_entail.py wrote.")
        try:
            tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
            options = ort.SessionOptions()
            if threads is not None:
                options.intra_op_num_threads = max(1, int(threads))
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            self._session = ort.InferenceSession(str(folder / MODEL_FILE), options,
                                                 providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 (a damaged file: one sentence, not a traceback)
            detail = " ".join(str(exc).split())[:160]
            raise GroundlabError(f"{shown} cannot be loaded ({type(exc).__name__}: {detail}); reinstall groundlab "
                                 "or give a folder that bench/train_entail.py wrote.") from None
        self.encoder = PairEncoder(tokenizer, self.max_length)
        self.count, self.budget, self.window = self.encoder.count, self.encoder.budget, self.encoder.window
        self.chunks, self.readings = self.encoder.chunks, self.encoder.readings
        self._inputs = {i.name for i in self._session.get_inputs()}
        outputs = [o.name for o in self._session.get_outputs()]
        # A model may give more than the probability of support (p_contradicted beside it).
        self._outputs = ["p_supported" if "p_supported" in outputs else outputs[0]]
        self._cache: Dict[Tuple[str, str], float] = {}

    def sha256(self) -> str:
        """The hash of the model file (its identity in every output)."""
        return _file_sha256(str(self.path / MODEL_FILE))

    def probabilities(self, pairs: Sequence[Tuple[str, str]], batch_size: Optional[int] = None) -> List[float]:
        """The probability that each ``(premise, claim)`` pair's premise supports its claim, in order.
        A premise too long for the input beside its claim is cut at its end; ``batch_size``: pairs
        per model call (default: the model's own)."""
        out: List[Optional[float]] = [None] * len(pairs)
        todo: Dict[Tuple[str, str], List[int]] = {}
        for i, key in enumerate(pairs):
            p = self._cache.get(key)
            if p is None:
                todo.setdefault(key, []).append(i)
            else:
                out[i] = p
        keys = list(todo)
        count = self.count
        # Similar lengths together: less padding, the same results.
        keys.sort(key=lambda k: count(k[0]) + count(k[1]))
        size = max(1, int(batch_size or self.batch_size))
        for start in range(0, len(keys), size):
            batch = keys[start:start + size]
            for key, p in zip(batch, self._run(batch)):
                if len(self._cache) >= _CACHE_SIZE:
                    self._cache.clear()
                self._cache[key] = p
                for i in todo[key]:
                    out[i] = p
        return out  # type: ignore[return-value]

    def _run(self, batch: Sequence[Tuple[str, str]]) -> List[float]:
        ids, mask, types = self.encoder.encode(batch)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        (p,) = self._session.run(self._outputs, {k: v for k, v in feed.items() if k in self._inputs})
        return [float(v) for v in self._np.asarray(p, dtype=float).reshape(len(batch))]


@lru_cache(maxsize=64)
def _file_sha256(path: str) -> str:
    from ..core.io import sha256_file as sha256

    return sha256(path)


_MODELS: Dict[Tuple[str, Optional[int]], EntailmentModel] = {}


def load_model(path: Union[str, Path, None] = None, threads: Optional[int] = None) -> EntailmentModel:
    """The model in ``path`` (``None``: the shipped one), loaded once per process."""
    key = (str(Path(path).resolve()) if path is not None else "", threads)
    model = _MODELS.get(key)
    if model is None:
        model = _MODELS[key] = EntailmentModel(path, threads=threads)
    return model


class Reading(NamedTuple):
    """How the model read one claim: the probability of support (the best premise's), that premise
    and its passages, the window's own probability, and how many premises were read (the window
    and the chunks)."""

    p: float
    premise: str
    ids: Tuple[str, ...]
    p_window: float
    read: int
    by_window: bool


def read_claims(model: "EntailmentModel", pairs: Sequence[Tuple[str, Union[Evidence, str, Sequence[str]]]],
                reading: str = "chunks", max_chunks: int = MAX_CHUNKS, batch_size: Optional[int] = None,
                enough: Optional[float] = None) -> List[Optional[Reading]]:
    """Each claim read against its evidence by ``model``: the word-chosen window and (``reading``
    ``chunks``) every chunk of the passages, at most ``max_chunks``, all scored in batches; the best
    premise decides. ``None`` for a claim too long to leave the evidence :data:`MIN_PREMISE` tokens.

    ``enough``: the windows are scored first, and a claim whose window reaches this probability is
    not read further (its chunks could only raise it): a judge whose threshold it is gets the same
    verdicts for less, the probability of such a claim being its window's."""
    if reading not in READINGS:
        raise GroundlabError(f"the entail judge reads {' or '.join(READINGS)}, not {reading!r}.")
    plans: List[Optional[List[Tuple[str, Tuple[str, ...]]]]] = []
    for claim, evidence in pairs:
        if model.budget(claim) < MIN_PREMISE:
            plans.append(None)
        elif enough is None:
            plans.append(model.readings(claim, evidence, reading, max_chunks))
        else:
            plans.append([model.window(claim, evidence)])
    if enough is not None and reading == "chunks":
        first = model.probabilities([(plan[0][0], claim) for plan, (claim, _) in zip(plans, pairs) if plan],
                                    batch_size)
        scored = iter(first)
        for k, ((claim, evidence), plan) in enumerate(zip(pairs, plans)):
            if plan and next(scored) < enough:
                plans[k] = model.readings(claim, evidence, reading, max_chunks)
    jobs = [(premise, claim) for plan, (claim, _) in zip(plans, pairs) if plan for premise, _ in plan]
    scored = iter(model.probabilities(jobs, batch_size))
    out: List[Optional[Reading]] = []
    for plan in plans:
        if plan is None:
            out.append(None)
            continue
        p = [next(scored) for _ in plan]
        best = max(range(len(plan)), key=lambda k: (p[k], -k))
        out.append(Reading(p[best], plan[best][0], plan[best][1], p[0], len(plan), best == 0))
    return out


def entailment_probabilities(pairs: Sequence[Tuple[str, Union[Evidence, str, Sequence[str]]]], *,
                             model: Union[EntailmentModel, str, Path, None] = None,
                             reading: Optional[str] = None, max_chunks: int = MAX_CHUNKS) -> List[float]:
    """The probability, by the entailment model, that each claim is supported by its evidence.

    ``pairs`` are ``(claim, evidence)``: an :class:`~groundlab.records.Evidence`, a passage's
    text, or a list of passage texts, read as the judge reads it (``reading``: ``chunks``, the best
    of the word-chosen window and every chunk of the passages, at most ``max_chunks``; ``window``,
    the window alone; ``None``, as the model was trained to read). ``model``: a loaded
    :class:`EntailmentModel`, a model folder, or ``None`` for the shipped model. A claim too long
    to leave room for evidence gets ``nan``.
    """
    m = model if isinstance(model, EntailmentModel) else load_model(model)
    return [math.nan if r is None else r.p for r in read_claims(m, pairs, reading or m.reading, max_chunks)]


# ---------------------------------------------------------------- the judge


class EntailJudge:
    """The shipped entailment cross-encoder as a judge (see the module docstring).

    ``model``: a model folder (``None``: the one shipped with groundlab); ``threshold``: the
    probability at or above which a claim is ``supported`` (``None``: the model's own, 0.5);
    ``reading``: ``chunks`` (the window and every chunk of the passages, the best deciding),
    ``window`` (the word-chosen window alone), or ``None``: as the model was trained to read (its
    ``model.json``; the shipped model, trained on windows, reads windows); ``max_chunks``: the most
    chunks a claim is read against; ``threads``: onnxruntime's threads; ``batch_size``: pairs per
    model call."""

    name = "entail"
    version = "2"
    cpu_bound = False  # onnxruntime uses the cores itself

    def __init__(self, model: Union[str, Path, None] = None, *, threshold: Optional[float] = None,
                 reading: Optional[str] = None, max_chunks: int = MAX_CHUNKS, threads: Optional[int] = None,
                 batch_size: int = 32) -> None:
        if threshold is not None and not 0 < float(threshold) < 1:
            raise GroundlabError(f"the entail judge's threshold must be between 0 and 1, not {threshold!r}.")
        if reading is not None and reading not in READINGS:
            raise GroundlabError(f"the entail judge reads {' or '.join(READINGS)}, not {reading!r}.")
        if int(max_chunks) < 1:
            raise GroundlabError(f"the entail judge reads 1 chunk a claim at least, not {max_chunks!r}.")
        # One model a process for a folder and thread count: a judge built beside another (or beside
        # entailment_probabilities) shares its session and its cache of scored pairs.
        self._model = load_model(model, threads)
        self.batch_size = max(1, int(batch_size))
        self.reading, self.max_chunks = reading or self._model.reading, int(max_chunks)
        self.model = str(model) if model is not None else "groundlab/data/entail"
        self.threshold = float(self._model.threshold if threshold is None else threshold)

    def identity(self) -> Dict[str, Any]:
        """The model behind the verdicts: its folder and the sha256 of its weights, and how it reads."""
        return {"model": self.model, "weights_sha256": self._model.sha256(),
                "max_length": self._model.max_length, "reading": self.reading, "max_chunks": self.max_chunks}

    def judge_batch(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Verdict]:
        bare = without_passage_text(pairs, self.judge_batch)  # the model's guess on no words backs nothing
        if bare is not None:
            return bare
        model = self._model
        todo = [k for k, (claim, _) in enumerate(pairs) if content_stems(claim)]
        # a claim whose window reaches the threshold is supported whatever its chunks say: they are not read
        readings = dict(zip(todo, read_claims(model, [pairs[k] for k in todo], self.reading, self.max_chunks,
                                              self.batch_size, enough=self.threshold)))
        out = []
        for k, (claim, _) in enumerate(pairs):
            if k not in readings:
                out.append(Verdict("supported", "no content words to check", 1.0))
                continue
            r = readings[k]
            if r is None:
                problem = too_long(model, claim, "entail")
                out.append(Verdict(None, problem, error=problem))
            else:
                out.append(self._verdict(r))
        return out

    def _verdict(self, r: Reading) -> Verdict:
        label = "supported" if r.p >= self.threshold else "unsupported"
        sign = "\u2265" if label == "supported" else "<"
        return Verdict(label, f"entailment {r.p:.2f} {sign} {self.threshold:.2f} {describe_reading(r)}", r.p)


def describe_reading(r: Reading) -> str:
    """Where the deciding probability was read: ``on 24 words of passage D01`` and, when chunks were
    read, which premise of how many."""
    n = r.premise.count(" ") + 1 if r.premise else 0
    where = f"passage{'s' * (len(r.ids) != 1)} {', '.join(r.ids)}" if r.ids else "the evidence"
    text = f"on {min(n, 9999)} words of {where}"
    if r.read > 1:
        text += f" ({'the word-chosen window' if r.by_window else 'a chunk'}, the best of {r.read} read)"
    return text


def too_long(model: "EntailmentModel", claim: str, judge: str) -> str:
    """The error of a claim too long for the model's input beside any evidence."""
    return (f"the claim is {model.count(claim):,} tokens long and leaves its evidence fewer than {MIN_PREMISE} of the "
            f"model's {model.max_length}-token input, so the {judge} judge cannot judge it; split the claim, or use "
            "--judge signals")


__all__ = ["EntailJudge", "EntailmentModel", "PairEncoder", "Reading", "content_stems", "entailment_probabilities",
           "evidence_chunks", "evidence_window", "load_model", "read_claims", "shipped_model_dir", "MAX_CHUNKS",
           "MAX_LENGTH", "MIN_PREMISE"]
