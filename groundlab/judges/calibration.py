"""Fit the signals judge's weights and threshold on labeled claims, and say how well it does on
claims it was not fitted on.

The steps, the same for the weights shipped with groundlab (``bench/fit_signals.py`` on the
public claim sets) and for ``groundlab calibrate`` on a person's labels:

1. **Signals.** Every labeled claim is measured by :meth:`SignalsJudge.measure`. Claims a rule
   decides (a framing sentence, a number the evidence lacks, a negation flip, no content words)
   keep the rule's verdict and score (1 or 0); the model is fitted on the others.
2. **Weights.** A logistic regression of "the person found it supported" on the signals, with a
   ridge penalty (``penalty`` × the squared distance of the weights from ``prior``: zero for the
   public fit, the shipped weights for a calibration, so a small labeled set moves them only as
   far as its labels carry them). Newton's method on a handful of numbers: numpy alone.
3. **Threshold.** The score at which a claim is called supported: the one with the best balanced
   accuracy on the labels (the mean of caught and 1 − false alarms; of equally good ones, the one
   with fewest false alarms), or, given
   ``max_false_alarms``, the highest one whose false alarms stay at or below it (the most
   hallucinated claims caught within that budget).
4. **Cross-validation.** Steps 2 and 3 are repeated with each of ``folds`` folds left out, folds
   made of whole groups (a case, or claims sharing evidence: near-duplicates never sit on both
   sides), and the left-out claims are judged by the real judge with those weights: caught,
   false alarms, balanced accuracy and Cohen's kappa over the three verdicts, each rate with its
   Wilson 95% range.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..records import VERDICTS, Evidence, GroundlabError
from ..stats import Rate
from .signals import CONFIG_KIND, FEATURES, JudgeConfig, SignalsJudge, check_config

#: Below this many labeled claims of each kind (supported; contradicted or unsupported) among
#: those the model decides, a calibration is refused: with 5 folds each would test fewer than 6
#: of a kind, and the Wilson 95% range of caught or false alarms would be wider than ±17 points,
#: so the threshold would be chosen on noise.
MIN_PER_CLASS = 30
#: Folds of the cross-validation, and the fewest groups (cases) it needs.
FOLDS = 5
#: The ridge penalty of the fit.
PENALTY = 1.0


@dataclass
class LabeledClaim:
    """One claim a person labeled, with its evidence and the group it belongs to (a case, or
    claims sharing evidence)."""

    case_id: str
    number: int
    text: str
    evidence: Evidence
    label: str
    group: str
    source: str = ""


@dataclass
class Measured:
    """The labeled claims measured: the rule each claim went to (``routes``: framing, number,
    negation, empty or model), the signals of those the model decides (``X``, one row per claim,
    zeros for the others) and whether the person found each supported (``y``)."""

    claims: List[LabeledClaim]
    routes: np.ndarray
    X: np.ndarray
    y: np.ndarray
    groups: np.ndarray

    @property
    def model(self) -> np.ndarray:
        return self.routes == "model"


def measure(claims: Sequence[LabeledClaim]) -> Measured:
    """Step 1: the signals of every labeled claim."""
    judge = SignalsJudge()
    routes, rows = [], []
    for c in claims:
        route, signals = judge.measure(c.text, c.evidence)
        routes.append(route)
        rows.append(signals.values if signals is not None else (0.0,) * len(FEATURES))
    X = np.array(rows, dtype=float).reshape(len(claims), len(FEATURES))
    y = np.array([c.label == "supported" for c in claims], dtype=bool)
    groups = np.array([c.group for c in claims], dtype=object)
    return Measured(list(claims), np.array(routes, dtype=object), X, y, groups)


# ---------------------------------------------------------------- steps 2 and 3


def fit_weights(X: np.ndarray, y: np.ndarray, penalty: float = PENALTY,
                prior: Optional[np.ndarray] = None) -> np.ndarray:
    """Step 2: the intercept and weights of a ridge logistic regression of ``y`` on ``X`` (Newton's
    method); the penalty pulls the weights (not the intercept) toward ``prior``."""
    Xb = np.column_stack([np.ones(len(X)), X])
    k = Xb.shape[1]
    centre = np.zeros(k) if prior is None else np.asarray(prior, dtype=float)
    P = np.eye(k) * penalty
    P[0, 0] = 0.0
    w = centre.copy()
    target = y.astype(float)
    for _ in range(100):
        z = np.clip(Xb @ w, -35, 35)
        p = 1.0 / (1.0 + np.exp(-z))
        gradient = Xb.T @ (target - p) - P @ (w - centre)
        hessian = Xb.T @ (Xb * (p * (1 - p))[:, None]) + P + np.eye(k) * 1e-9
        step = np.linalg.solve(hessian, gradient)
        w = w + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def scores(weights: np.ndarray, measured: Measured) -> np.ndarray:
    """The judge's score of every claim: the model's probability, or the rule's 1 or 0."""
    z = np.clip(weights[0] + measured.X @ weights[1:], -700, 700)
    p = 1.0 / (1.0 + np.exp(-z))
    routes = measured.routes
    p = np.where(routes == "model", p, np.where((routes == "framing") | (routes == "empty"), 1.0, 0.0))
    return p


def choose_threshold(score: np.ndarray, supported: np.ndarray, max_false_alarms: Optional[float] = None) -> float:
    """Step 3: the threshold (a claim is supported at or above it) with the best balanced accuracy,
    or the highest one whose false alarms stay at or below ``max_false_alarms``.

    Candidates lie halfway between the distinct scores of the claims the model decides, so a
    threshold never sits on a claim's score."""
    values = np.unique(score[(score > 0) & (score < 1)])
    candidates = np.concatenate([[1e-6], (values[:-1] + values[1:]) / 2 if len(values) > 1 else [], [1 - 1e-6]])
    candidates = np.unique(np.clip(candidates, 1e-6, 1 - 1e-6))
    n_sup, n_not = int(supported.sum()), int((~supported).sum())
    flagged = score[None, :] < candidates[:, None]
    false_alarms = (flagged & supported[None, :]).sum(axis=1) / max(n_sup, 1)
    caught = (flagged & ~supported[None, :]).sum(axis=1) / max(n_not, 1)
    if max_false_alarms is not None:
        ok = np.where(false_alarms <= max_false_alarms + 1e-12)[0]
        if not len(ok):
            raise GroundlabError(
                f"no threshold keeps false alarms at or below {max_false_alarms:.0%}: the rules alone (numbers the "
                f"evidence lacks, negation flips, clauses mostly missing) flag {false_alarms.min():.0%} of the "
                "supported claims; allow more with --max-false-alarms, or leave it out to choose by balanced accuracy.")
        best = ok[np.argmax(candidates[ok])]
    else:
        balanced = (caught + 1 - false_alarms) / 2
        top = np.flatnonzero(balanced >= balanced.max() - 1e-12)
        # of equally good thresholds, those with the fewest false alarms, and the middle of them
        top = top[false_alarms[top] <= false_alarms[top].min() + 1e-12]
        best = top[len(top) // 2]
    return float(round(candidates[best], 4))


# ---------------------------------------------------------------- step 4


def folds_of(groups: Sequence[Any], folds: int = FOLDS, seed: int = 0) -> np.ndarray:
    """A fold number for every claim, whole groups to a fold, the folds as even in claims as the
    groups allow (largest groups first, each to the fold with fewest claims so far; groups of
    one size in a shuffled order)."""
    sizes: Dict[Any, int] = {}
    for g in groups:
        sizes[g] = sizes.get(g, 0) + 1
    order = list(sizes)
    random.Random(seed).shuffle(order)
    order.sort(key=lambda g: -sizes[g])
    load = [0] * folds
    fold_of = {}
    for g in order:
        k = min(range(folds), key=lambda f: (load[f], f))
        fold_of[g] = k
        load[k] += sizes[g]
    return np.array([fold_of[g] for g in groups])


@dataclass
class Figures:
    """How a judge does against the person's labels: the confusion matrix (rows person, columns
    judge, in :data:`VERDICTS` order), caught and false alarms with their Wilson ranges, balanced
    accuracy and Cohen's kappa."""

    confusion: List[List[int]]
    caught: Rate
    false_alarms: Rate
    balanced_accuracy: float
    kappa: float

    @classmethod
    def of(cls, labels: Sequence[str], verdicts: Sequence[str]) -> "Figures":
        from ..metrics import cohens_kappa

        index = {v: k for k, v in enumerate(VERDICTS)}
        matrix = [[0, 0, 0] for _ in VERDICTS]
        for person, judged in zip(labels, verdicts):
            matrix[index[person]][index[judged]] += 1
        caught = Rate(sum(matrix[i][j] for i in (1, 2) for j in (1, 2)), sum(matrix[1]) + sum(matrix[2]))
        alarms = Rate(matrix[0][1] + matrix[0][2], sum(matrix[0]))
        balanced = (caught.rate + 1 - alarms.rate) / 2 if caught.total and alarms.total else math.nan
        return cls(matrix, caught, alarms, balanced, cohens_kappa(matrix))

    def to_dict(self) -> Dict[str, Any]:
        def rate(r: Rate) -> Dict[str, Any]:
            low, high = r.interval
            return {"count": r.count, "total": r.total, "rate": _round(r.rate), "low": _round(low),
                    "high": _round(high)}

        return {"caught": rate(self.caught), "false_alarms": rate(self.false_alarms),
                "balanced_accuracy": _round(self.balanced_accuracy), "kappa": _round(self.kappa),
                "confusion": self.confusion}

    def line(self) -> str:
        """One line: ``caught 173/337 = 51% (46%–57%), false alarms 58/295 = 20% (16%–25%), balanced
        accuracy 0.66, kappa 0.27``."""
        return (f"caught {self.caught.with_range()}, false alarms {self.false_alarms.with_range()}, balanced "
                f"accuracy {self.balanced_accuracy:.2f}, kappa {self.kappa:.2f}")


def _round(x: float) -> Optional[float]:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


@dataclass
class Fit:
    """A fitted judge config and its cross-validated figures (``by_source``: per labeled set)."""

    weights: np.ndarray
    threshold: float
    cross_validated: Figures
    by_source: Dict[str, Figures] = field(default_factory=dict)
    verdicts: List[str] = field(default_factory=list)
    out_of_fold_scores: Optional[np.ndarray] = None
    claims: int = 0
    decided_by_rules: int = 0

    def config(self, description: str, max_false_alarms: Optional[float], sources: Mapping[str, Any]) -> Dict[str, Any]:
        """The judge config file's content."""
        names = ("intercept",) + FEATURES
        return {
            "kind": CONFIG_KIND,
            "judge": SignalsJudge.name,
            "judge_version": SignalsJudge.version,
            "weights": {n: round(float(w), 6) for n, w in zip(names, self.weights)},
            "threshold": self.threshold,
            "threshold_rule": ("balanced accuracy" if max_false_alarms is None
                               else f"false alarms at most {max_false_alarms:g}"),
            "fitted_on": {"description": description, "claims": self.claims,
                          "decided_by_rules": self.decided_by_rules, "sources": dict(sources),
                          "date": datetime.now(timezone.utc).strftime("%Y-%m-%d")},
            "cross_validated": {"folds": FOLDS, "all": self.cross_validated.to_dict(),
                                **{name: f.to_dict() for name, f in self.by_source.items()}},
        }


def fit(claims: Sequence[LabeledClaim], *, max_false_alarms: Optional[float] = None, penalty: float = PENALTY,
        prior: Optional[np.ndarray] = None, folds: int = FOLDS, seed: int = 0,
        measured: Optional[Measured] = None) -> Fit:
    """Steps 1 to 4 on ``claims``: the weights and threshold fitted on all of them, and the
    figures of the same procedure cross-validated over ``folds`` folds of whole groups.
    ``measured``: step 1 already done (:func:`measure` of the same claims)."""
    measured = measured if measured is not None else measure(claims)
    check_enough(measured, folds, max_false_alarms)
    fold = folds_of(measured.groups, folds, seed)
    verdicts: List[Optional[str]] = [None] * len(claims)
    oof = np.zeros(len(claims))
    for k in range(folds):
        train, test = fold != k, fold == k
        weights, threshold = _fit_once(measured, train, max_false_alarms, penalty, prior)
        judge = SignalsJudge(config=_in_memory(weights, threshold))
        idx = np.flatnonzero(test)
        for i, verdict in zip(idx, judge.judge_batch([(claims[i].text, claims[i].evidence) for i in idx])):
            verdicts[i] = verdict.label
            oof[i] = verdict.score
    weights, threshold = _fit_once(measured, np.ones(len(claims), bool), max_false_alarms, penalty, prior)
    labels = [c.label for c in claims]
    result = Fit(weights, threshold, Figures.of(labels, verdicts), verdicts=list(verdicts), out_of_fold_scores=oof,
                 claims=len(claims), decided_by_rules=int((~measured.model).sum()))
    sources = list(dict.fromkeys(c.source for c in claims))
    if len(sources) > 1:
        for name in sources:
            keep = [i for i, c in enumerate(claims) if c.source == name]
            result.by_source[name] = Figures.of([labels[i] for i in keep], [verdicts[i] for i in keep])
    return result


def _fit_once(measured: Measured, rows: np.ndarray, max_false_alarms: Optional[float], penalty: float,
              prior: Optional[np.ndarray]) -> Tuple[np.ndarray, float]:
    model = rows & measured.model
    weights = fit_weights(measured.X[model], measured.y[model], penalty, prior)
    threshold = choose_threshold(scores(weights, measured)[rows], measured.y[rows], max_false_alarms)
    return weights, threshold


def _in_memory(weights: np.ndarray, threshold: float) -> JudgeConfig:
    names = ("intercept",) + FEATURES
    data = {"kind": CONFIG_KIND, "judge": SignalsJudge.name,
            "weights": {n: float(w) for n, w in zip(names, weights)}, "threshold": threshold}
    return JudgeConfig(data, None, hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest())


def check_enough(measured: Measured, folds: int = FOLDS, max_false_alarms: Optional[float] = None) -> None:
    """Refuse, in one sentence, labels a fit cannot stand on: none, of one kind only, too few
    claims of a kind, too few groups to fold, or a false-alarm target the rules alone exceed."""
    n = len(measured.y)
    if not n:
        raise GroundlabError("there are no labeled claims to calibrate on; add \"labels\" (one verdict per claim) "
                             "to the cases, e.g. with 'groundlab label export' and 'label import'.")
    supported = int(measured.y.sum())
    if supported in (0, n):
        kind = "supported" if supported else "contradicted or unsupported"
        raise GroundlabError(f"all {n} labeled claims are {kind}: a threshold cannot be chosen from one kind; label "
                             "claims of both kinds (supported, and contradicted or unsupported).")
    model = measured.model
    sup_model = int((measured.y & model).sum())
    not_model = int((~measured.y & model).sum())
    if min(sup_model, not_model) < MIN_PER_CLASS:
        raise GroundlabError(
            f"too few labeled claims to calibrate: {sup_model} supported and {not_model} contradicted or unsupported "
            f"among the {int(model.sum())} the model decides (the rest are framing sentences, numbers the evidence "
            f"lacks, negation flips or clauses mostly missing); at least {MIN_PER_CLASS} of each are needed, since "
            f"with fewer each of the {folds} folds tests fewer than 6 of a kind and the ranges are too wide to choose "
            "a threshold on.")
    if max_false_alarms is not None:
        ruled = np.isin(measured.routes, ("number", "negation", "clause")) & measured.y
        floor = ruled.sum() / supported
        if floor > max_false_alarms:
            raise GroundlabError(
                f"no threshold keeps false alarms at or below {max_false_alarms:.0%}: the rules alone (numbers the "
                f"evidence lacks, negation flips, clauses mostly missing) flag {int(ruled.sum())} of the {supported} "
                f"supported claims ({floor:.0%}); allow more with --max-false-alarms, or leave it out to choose by "
                "balanced accuracy.")
    groups = len(set(measured.groups.tolist()))
    if groups < folds:
        raise GroundlabError(f"the labeled claims come from {groups} case(s); cross-validation needs claims from at "
                             f"least {folds} cases, so that no case is both fitted on and tested.")


def shipped_prior() -> np.ndarray:
    """The weights shipped with groundlab, as a vector (intercept first): the centre of a
    calibration's penalty."""
    from .signals import _shipped

    config = _shipped()
    return np.array((config.intercept,) + config.weights)


def write_config(path: Path, data: Mapping[str, Any], force: bool = False) -> Path:
    """Write a judge config whole; an existing file is replaced only with ``force``."""
    from ..outputs import write_bytes

    check_config(data, str(path))
    path = Path(path)
    if path.is_dir():
        raise GroundlabError(f"{path} is a folder; give --out a file name such as judge.json.")
    if path.exists() and not force:
        raise GroundlabError(f"{path} already exists; nothing was written (choose another --out, or pass --force "
                             "to replace it).")
    return write_bytes(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


__all__ = ["FOLDS", "Figures", "Fit", "LabeledClaim", "MIN_PER_CLASS", "Measured", "check_enough",
           "choose_threshold", "fit", "fit_weights", "folds_of", "measure", "scores", "shipped_prior",
           "write_config"]
