"""The combined judge: the signals judge and the entail judge weighed together by a small fitted model.

The two fail differently. The signals judge counts the claim's words, word pairs and names in the
passages, and is strong where an answer is written closely from them; the entailment model reads the
claim and the passage together, and is strong where a paraphrase or a summary shares few words with
its source, or where words the passage has are recombined. A claim is read so:

1. **Rules first.** The signals judge decides; a claim one of its rules settles (a framing sentence,
   a number the evidence does not give, a negation flip, a how-often or bound word that clashes, no
   content words) keeps that verdict, score and reason.
2. **The model reads the rest.** The entail model reads the claim against the passages, cut into
   chunks that fit its input, and against the sentences chosen by the claim's words; the best
   premise's probability counts (:func:`groundlab.judges.entail.read_claims`).
3. **Weighed.** A logistic model (:data:`FEATURES`, weights in ``groundlab/data/combined.json``,
   fitted by ``bench/fit_combined.py``) weighs the signals score and the entailment probability
   (each on the log-odds scale) with simple facts of the claim and passages: how long each is,
   whether the case asks a question (an answer to a question, or a summary of the passages), and
   whether the claim states numbers. ``supported`` at or above the threshold for the case's kind,
   else ``unsupported``; ``score`` is the probability.

A claim too long for the entail model's input keeps the signals judge's verdict; its reason says so.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..core.numbers import mentions
from ..core.records import Evidence, GroundlabError, Verdict

#: The model's inputs, in the order of the weights.
FEATURES: Tuple[str, ...] = ("signals", "entail", "claim_words", "evidence_words", "question", "numbers")
#: The side a weight must keep: more support by either judge never counts against a claim.
FEATURE_SIGNS: Tuple[int, ...] = (1, 1, 0, 0, 0, 0)
#: Kinds of case: an answer to a question, a summary (or any claim made from passages without a
#: question), a dialogue (a question made of several turns; no public labeled set has one, so it
#: takes the question's threshold unless a config gives its own).
KINDS = ("qa", "summary", "dialogue")
CONFIG_KIND = "groundlab combined judge"
DEFAULT_CONFIG = "combined.json"
#: Log-odds are clipped here: a probability of 0 or 1 says no more than this.
LOGIT_CLIP = 7.0

_TURN = re.compile(r"^\s*(?:user|customer|agent|assistant|system|bot|human|ai|employee|kunde|client)\s*:",
                   re.IGNORECASE | re.MULTILINE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def logit(p: float) -> float:
    """The log-odds of ``p``, within ±:data:`LOGIT_CLIP`."""
    if p <= 0:
        return -LOGIT_CLIP
    if p >= 1:
        return LOGIT_CLIP
    return max(-LOGIT_CLIP, min(LOGIT_CLIP, math.log(p / (1 - p))))


def kind_of(evidence: Evidence) -> str:
    """``dialogue`` when the question holds two turns or more (``User: ... Agent: ...``), ``qa``
    when there is a question, ``summary`` when there is none.

    >>> kind_of(Evidence("", ())), kind_of(Evidence("Who approves?", ()))
    ('summary', 'qa')
    >>> kind_of(Evidence("User: my order is blocked\\nAgent: which one?\\nUser: 2408", ()))
    'dialogue'
    """
    question = evidence.question or ""
    if not question.strip():
        return "summary"
    return "dialogue" if len(_TURN.findall(question)) >= 2 else "qa"


def facts(claim: str, evidence: Evidence) -> Tuple[float, float, float, float]:
    """The claim's and passages' facts the model weighs: log(1 + the claim's words), log(1 + the
    passages' words), 1 when the case asks a question (else 0), 1 when the claim states a number."""
    words = len(_WORD.findall(claim))
    passages = _words_in(tuple([p.text for p in evidence.passages]))
    return (math.log1p(words), math.log1p(passages), 0.0 if kind_of(evidence) == "summary" else 1.0,
            1.0 if mentions(claim) else 0.0)


@lru_cache(maxsize=4096)
def _words_in(texts: Tuple[str, ...]) -> int:
    """The words of a case's passages, counted once for all its claims."""
    return sum(len(_WORD.findall(text)) for text in texts)


def feature_row(signals_score: float, p_entail: float, claim: str, evidence: Evidence) -> Tuple[float, ...]:
    """The model's inputs for one claim (:data:`FEATURES`)."""
    return (logit(signals_score), logit(p_entail)) + facts(claim, evidence)


class CombinedConfig:
    """The weights and thresholds of the combined judge, read from a file and checked."""

    def __init__(self, data: Mapping[str, Any], path: Optional[Path], sha256: str) -> None:
        self.data, self.path, self.sha256 = dict(data), path, sha256
        self.intercept = float(data["weights"]["intercept"])
        self.weights = tuple(float(data["weights"][name]) for name in FEATURES)
        thresholds = data["thresholds"]
        self.thresholds = {kind: float(thresholds.get(kind, thresholds.get("qa" if kind == "dialogue" else kind,
                                                                            thresholds["default"])))
                           for kind in KINDS}
        self.reading = str(data.get("reading", "chunks"))
        self.max_chunks = int(data.get("max_chunks", 8))

    def score(self, row: Sequence[float]) -> float:
        z = self.intercept + sum(w * v for w, v in zip(self.weights, row))
        return 1.0 / (1.0 + math.exp(-max(-700.0, min(700.0, z))))


def load_config(path: Union[str, Path, None] = None) -> CombinedConfig:
    """The combined judge's config: a file ``bench/fit_combined.py`` wrote, or (``None``) the one
    shipped with groundlab. A file that is not one says so in one sentence."""
    if path is None:
        raw = resources.files("groundlab").joinpath("data", DEFAULT_CONFIG).read_bytes()
        where, shown = None, f"groundlab/data/{DEFAULT_CONFIG}"
    else:
        where, shown = Path(path), str(path)
        try:
            with open(where, "rb") as fh:
                raw = fh.read(1 << 20)
        except OSError as exc:
            raise GroundlabError(f"combined judge config {shown} cannot be read ({exc.strerror or exc}); give the "
                                 "file bench/fit_combined.py wrote.") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise GroundlabError(f"combined judge config {shown} is not JSON; give the file bench/fit_combined.py "
                             "wrote.") from None
    if not isinstance(data, dict) or data.get("kind") != CONFIG_KIND:
        raise GroundlabError(f"combined judge config {shown} is not a groundlab combined judge config (no \"kind\": "
                             f"\"{CONFIG_KIND}\"); give the file bench/fit_combined.py wrote.")
    weights, thresholds = data.get("weights"), data.get("thresholds")
    names = ("intercept",) + FEATURES
    if not isinstance(weights, dict) or any(not _finite(weights.get(k)) for k in names):
        raise GroundlabError(f"combined judge config {shown} needs a number for each weight ({', '.join(names)}); "
                             "fit it again with bench/fit_combined.py --write.")
    if not isinstance(thresholds, dict) or not _finite(thresholds.get("default")) or any(
            not _finite(v) or not 0 < float(v) < 1 for v in thresholds.values()):
        raise GroundlabError(f"combined judge config {shown} needs thresholds between 0 and 1, a \"default\" among "
                             "them; fit it again with bench/fit_combined.py --write.")
    return CombinedConfig(data, where, hashlib.sha256(raw).hexdigest())


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class CombinedJudge:
    """The signals judge and the entail judge weighed together (see the module docstring).

    ``model``: the entail model's folder (``None``: the one shipped with groundlab); ``config``: the
    weights (``None``: ``groundlab/data/combined.json``); ``threads``: onnxruntime's threads;
    ``batch_size``: pairs per model call."""

    name = "combined"
    version = "1"
    cpu_bound = False  # onnxruntime uses the cores itself

    def __init__(self, model: Union[str, Path, None] = None, *, config: Union[str, Path, None] = None,
                 threads: Optional[int] = None, batch_size: int = 32) -> None:
        from .entail import load_model
        from .signals import SignalsJudge

        self.config = load_config(config)
        self._signals = SignalsJudge()
        self._model = load_model(model, threads)
        self.model = str(model) if model is not None else "groundlab/data/entail"
        self.batch_size = max(1, int(batch_size))

    def identity(self) -> Dict[str, Any]:
        """What stands behind the verdicts: both judges' weights and the combination's."""
        return {"model": self.model, "weights_sha256": self._model.sha256(), "reading": self.config.reading,
                "max_chunks": self.config.max_chunks,
                "config": str(self.config.path) if self.config.path else f"groundlab/data/{DEFAULT_CONFIG}",
                "config_sha256": self.config.sha256, "signals_config_sha256": self._signals.config.sha256}

    def judge_batch(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Verdict]:
        from .entail import read_claims

        verdicts = self._signals.judge_batch(pairs)
        # a rule of the signals judge settled the claim when its score is exactly 0 or 1
        todo = [k for k, v in enumerate(verdicts) if v.label is not None and v.score is not None and 0 < v.score < 1]
        readings = read_claims(self._model, [pairs[k] for k in todo], self.config.reading, self.config.max_chunks,
                               self.batch_size)
        out = list(verdicts)
        for k, r in zip(todo, readings):
            out[k] = self._verdict(pairs[k], verdicts[k], r)
        return out

    def _verdict(self, pair: Tuple[str, Evidence], signals: Verdict, r) -> Verdict:
        from .entail import describe_reading

        claim, evidence = pair
        if r is None:
            return Verdict(signals.label, f"{signals.reason}; too long for the entailment model: the signals "
                           "judge decides", signals.score, evidence=signals.evidence, matched=signals.matched,
                           clashed=signals.clashed)
        config = self.config
        kind = kind_of(evidence)
        threshold = config.thresholds[kind]
        p = config.score(feature_row(signals.score, r.p, claim, evidence))
        label = "supported" if p >= threshold else "unsupported"
        sign = "\u2265" if label == "supported" else "<"
        return Verdict(label, f"combined {p:.2f} {sign} {threshold:.2f} ({kind}): signals {signals.score:.2f}, "
                       f"entailment {r.p:.2f} {describe_reading(r)}", p, evidence=signals.evidence,
                       matched=signals.matched, clashed=signals.clashed if label == "unsupported" else ())


__all__ = ["CombinedJudge", "CombinedConfig", "FEATURES", "FEATURE_SIGNS", "KINDS", "facts", "feature_row", "kind_of",
           "load_config", "logit"]
