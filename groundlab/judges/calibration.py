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
   far as its labels carry them: the fewer the labels, the stronger the pull, and below
   :data:`MIN_FOR_WEIGHTS` of a kind the shipped weights are kept and only the threshold moves).
   Each weight stays on the side its signal speaks for. Newton's method on a handful of numbers:
   numpy alone.
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

import json
import math
import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..core.io import sha256_text
from ..core.records import VERDICTS, Evidence, GroundlabError
from ..core.stats import Rate
from .signals import _SUPPORTED_ROUTES, CONFIG_KIND, FEATURES, JudgeConfig, SignalsJudge, check_config

#: From this many labeled claims of each kind (supported; contradicted or unsupported) among
#: those the model decides, the weights are fitted freely (toward the shipped ones only by the
#: usual ridge penalty): with fewer, each of 5 folds tests fewer than 6 of a kind and the Wilson 95%
#: range of caught or false alarms is wider than ±17 points, so the weights are pulled toward the
#: shipped ones or kept (:data:`MODES`).
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
    negation, empty, computed or model), the signals of those the model decides (``X``, one row per claim,
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
                prior: Optional[np.ndarray] = None, sample_weight: Optional[np.ndarray] = None,
                signs: Optional[Sequence[int]] = None) -> np.ndarray:
    """Step 2: the intercept and weights of a ridge logistic regression of ``y`` on ``X`` (Newton's
    method); the penalty pulls the weights (not the intercept) toward ``prior``. ``sample_weight``
    weighs each claim (so that several labeled sets count alike, whatever their sizes).

    ``signs`` (one per column: +1, -1 or 0 for either) keeps each weight on the side its signal
    speaks for: more of the claim's words in the evidence never counts against it. Signals that
    say much the same (coverage, the best sentence, two sentences in a row) would otherwise trade
    weights of opposite signs, which reads as nonsense in a reason and moves on other answers. A
    weight that would cross to the wrong side is held at zero (at the prior's value, when it is
    on the right side) and the others fitted again."""
    if signs is None:
        return _fit_weights(X, y, penalty, prior, sample_weight)
    k = X.shape[1]
    held = np.zeros(k, bool)
    for _ in range(k + 1):
        free = ~held
        sub_prior = None if prior is None else np.concatenate([[prior[0]], np.asarray(prior)[1:][free]])
        w_free = _fit_weights(X[:, free], y, penalty, sub_prior, sample_weight)
        w = np.zeros(k + 1)
        w[0] = w_free[0]
        w[1:][free] = w_free[1:]
        wrong = np.array([s * v < 0 for s, v in zip(signs, w[1:])])
        if not wrong.any():
            return w
        held |= wrong
    return w


def _fit_weights(X: np.ndarray, y: np.ndarray, penalty: float, prior: Optional[np.ndarray],
                 sample_weight: Optional[np.ndarray]) -> np.ndarray:
    Xb = np.column_stack([np.ones(len(X)), X])
    k = Xb.shape[1]
    centre = np.zeros(k) if prior is None else np.asarray(prior, dtype=float)
    P = np.eye(k) * penalty
    P[0, 0] = 0.0
    w = centre.copy()
    target = y.astype(float)
    sw = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    for _ in range(100):
        z = np.clip(Xb @ w, -35, 35)
        p = 1.0 / (1.0 + np.exp(-z))
        gradient = Xb.T @ (sw * (target - p)) - P @ (w - centre)
        hessian = Xb.T @ (Xb * (sw * p * (1 - p))[:, None]) + P + np.eye(k) * 1e-9
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
    p = np.where(routes == "model", p, np.where(np.isin(routes, _SUPPORTED_ROUTES), 1.0, 0.0))
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


def threshold_for_sets(score: np.ndarray, supported: np.ndarray, sets: np.ndarray,
                       max_false_alarms: Optional[float] = None, tolerance: float = 0.0) -> float:
    """Step 3 for several labeled sets at once: the threshold with the best balanced accuracy
    averaged over the sets (each counts alike, whatever its size), among those whose false alarms
    stay at or below ``max_false_alarms`` on every set. ``tolerance`` > 0: the highest (strictest)
    threshold within that much of the best, else the middle one of equally good thresholds; when
    no threshold keeps to the budget, the one with the fewest false alarms on the set with most."""
    names = list(dict.fromkeys(sets.tolist()))
    values = np.unique(score[(score > 0) & (score < 1)])
    candidates = np.concatenate([[1e-6], (values[:-1] + values[1:]) / 2 if len(values) > 1 else [], [1 - 1e-6]])
    candidates = np.unique(np.clip(candidates, 1e-6, 1 - 1e-6))
    if len(candidates) > 2000:  # thresholds a thousandth apart are as good as all of them
        candidates = np.unique(np.round(candidates, 3))
    balanced, worst = np.zeros(len(candidates)), np.zeros(len(candidates))
    for name in names:
        rows = sets == name
        sup, y = score[rows], supported[rows]
        flagged = sup[None, :] < candidates[:, None]
        alarms = (flagged & y[None, :]).sum(axis=1) / max(int(y.sum()), 1)
        caught = (flagged & ~y[None, :]).sum(axis=1) / max(int((~y).sum()), 1)
        balanced += (caught + 1 - alarms) / 2 / len(names)
        worst = np.maximum(worst, alarms)
    ok = np.ones(len(candidates), bool) if max_false_alarms is None else worst <= max_false_alarms + 1e-12
    if not ok.any():
        return float(round(candidates[int(np.argmin(worst))], 4))
    top = np.flatnonzero(ok & (balanced >= balanced[ok].max() - max(tolerance, 1e-12)))
    return float(round(candidates[top[-1] if tolerance > 0 else top[len(top) // 2]], 4))


def set_weights(sets: np.ndarray) -> np.ndarray:
    """A weight per claim so that each labeled set weighs alike in a fit, and the weights sum to
    the number of claims."""
    names, inverse, counts = np.unique(sets, return_inverse=True, return_counts=True)
    weights = 1.0 / counts[inverse]
    return weights * len(sets) / weights.sum()


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
        from ..core.metrics import cohens_kappa

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
    cross_validated: Optional[Figures]
    by_source: Dict[str, Figures] = field(default_factory=dict)
    verdicts: List[Optional[str]] = field(default_factory=list)
    out_of_fold_scores: Optional[np.ndarray] = None
    claims: int = 0
    decided_by_rules: int = 0
    #: What the labels carried (:data:`MODES`), in how many folds it was checked, and the 95% range
    #: of the threshold over bootstrap draws of whole groups.
    mode: str = "full"
    folds: int = FOLDS
    threshold_range: Tuple[float, float] = (math.nan, math.nan)

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
            "fitted": MODES[self.mode],
            "threshold_range": list(self.threshold_range),
            "cross_validated": ({"folds": self.folds, "all": self.cross_validated.to_dict(),
                                 **{name: f.to_dict() for name, f in self.by_source.items()}}
                                if self.cross_validated is not None else None),
        }


#: Below this many labeled claims of a kind (among those the model decides), the weights are not
#: fitted at all: the shipped ones are kept and only the threshold moves.
MIN_FOR_WEIGHTS = 10

#: What a calibration fits, by the labels it has (the fewer of either kind the model decides).
MODES = {
    "full": f"weights and threshold (at least {MIN_PER_CLASS} labeled claims of each kind)",
    "pulled": ("weights pulled toward the shipped ones, and threshold (from "
               f"{MIN_FOR_WEIGHTS} to {MIN_PER_CLASS - 1} labeled claims of a kind)"),
    "threshold": f"threshold only, the shipped weights kept (fewer than {MIN_FOR_WEIGHTS} labeled claims of a kind)",
}


def mode_of(measured: "Measured", prior: Optional[np.ndarray]) -> Tuple[str, float]:
    """What the labels can carry, and the ridge penalty for it: ``full`` with at least
    :data:`MIN_PER_CLASS` claims of each kind; ``pulled`` (toward ``prior``, the more strongly the
    fewer the labels) down to :data:`MIN_FOR_WEIGHTS`; else ``threshold`` (the weights stay
    ``prior``). Without a prior (the public fit) always ``full``."""
    few = min(int((measured.y & measured.model).sum()), int((~measured.y & measured.model).sum()))
    if prior is None or few >= MIN_PER_CLASS:
        return "full", PENALTY
    if few >= MIN_FOR_WEIGHTS:
        return "pulled", PENALTY * (MIN_PER_CLASS / few) ** 2
    return "threshold", math.inf


def fit(claims: Sequence[LabeledClaim], *, max_false_alarms: Optional[float] = None, penalty: Optional[float] = None,
        prior: Optional[np.ndarray] = None, folds: int = FOLDS, seed: int = 0,
        measured: Optional[Measured] = None, draws: int = 200) -> Fit:
    """Steps 1 to 4 on ``claims``: the weights and threshold fitted on all of them, and the
    figures of the same procedure cross-validated over ``folds`` folds of whole groups (fewer
    when there are fewer groups; none below two).
    ``measured``: step 1 already done (:func:`measure` of the same claims).

    How much is fitted follows the labels (:func:`mode_of`): with few labeled claims of a kind the
    weights are pulled toward ``prior`` or kept, and the threshold alone moves. Claims of several
    ``source`` sets (tasks) pool: each set weighs alike, and the threshold has the best balanced
    accuracy averaged over them. ``threshold_range`` says how sure the threshold is: its 95% range
    over ``draws`` bootstrap draws of whole groups."""
    measured = measured if measured is not None else measure(claims)
    check_enough(measured, folds, max_false_alarms)
    mode, strength = mode_of(measured, prior)
    if penalty is not None and mode != "threshold":
        strength = penalty
    sources = np.array([c.source or "" for c in claims], dtype=object)
    groups = len(set(measured.groups.tolist()))
    folds = min(folds, groups)
    verdicts: List[Optional[str]] = [None] * len(claims)
    oof = np.full(len(claims), np.nan)
    if folds >= 2:
        fold = folds_of(measured.groups, folds, seed)
        for k in range(folds):
            train, test = fold != k, fold == k
            weights, threshold = _fit_once(measured, train, max_false_alarms, strength, prior, sources)
            judge = SignalsJudge(config=_in_memory(weights, threshold))
            idx = np.flatnonzero(test)
            for i, verdict in zip(idx, judge.judge_batch([(claims[i].text, claims[i].evidence) for i in idx])):
                verdicts[i] = verdict.label
                oof[i] = verdict.score
    everything = np.ones(len(claims), bool)
    weights, threshold = _fit_once(measured, everything, max_false_alarms, strength, prior, sources)
    labels = [c.label for c in claims]
    checked = [i for i, v in enumerate(verdicts) if v is not None]
    cross = Figures.of([labels[i] for i in checked], [verdicts[i] for i in checked]) if checked else None
    result = Fit(weights, threshold, cross, verdicts=list(verdicts), out_of_fold_scores=oof,
                 claims=len(claims), decided_by_rules=int((~measured.model).sum()), mode=mode, folds=folds)
    result.threshold_range = _threshold_range(measured, weights, max_false_alarms, sources, draws, seed)
    names = list(dict.fromkeys(sources.tolist()))
    if len(names) > 1 and checked:
        for name in names:
            keep = [i for i in checked if sources[i] == name]
            result.by_source[name] = Figures.of([labels[i] for i in keep], [verdicts[i] for i in keep])
    return result


def _threshold_range(measured: Measured, weights: np.ndarray, max_false_alarms: Optional[float],
                     sources: np.ndarray, draws: int, seed: int) -> Tuple[float, float]:
    """The 95% range of the threshold chosen on bootstrap draws of whole groups (the weights as
    fitted): how far other labels of the same kind would move it."""
    rng = np.random.default_rng(seed)
    members: Dict[Any, List[int]] = {}
    for i, g in enumerate(measured.groups.tolist()):
        members.setdefault(g, []).append(i)
    blocks = [np.array(b) for b in members.values()]
    score = scores(weights, measured)
    chosen = []
    for _ in range(draws):
        idx = np.concatenate([blocks[k] for k in rng.integers(0, len(blocks), len(blocks))])
        y = measured.y[idx]
        if y.all() or not y.any():
            continue
        chosen.append(_threshold(score[idx], y, max_false_alarms, sources[idx]))
    if not chosen:
        return (math.nan, math.nan)
    low, high = np.percentile(chosen, [2.5, 97.5])
    return (float(round(low, 4)), float(round(high, 4)))


def _threshold(score: np.ndarray, supported: np.ndarray, max_false_alarms: Optional[float],
               sources: np.ndarray) -> float:
    if len(set(sources.tolist())) > 1:
        return threshold_for_sets(score, supported, sources, max_false_alarms)
    try:
        return choose_threshold(score, supported, max_false_alarms)
    except GroundlabError:
        return threshold_for_sets(score, supported, sources, max_false_alarms)


def _fit_once(measured: Measured, rows: np.ndarray, max_false_alarms: Optional[float], penalty: float,
              prior: Optional[np.ndarray], sources: Optional[np.ndarray] = None) -> Tuple[np.ndarray, float]:
    from .signals import FEATURE_SIGNS

    sources = np.array([""] * len(rows), dtype=object) if sources is None else sources
    model = rows & measured.model
    if math.isinf(penalty) and prior is not None:
        weights = np.asarray(prior, dtype=float)
    else:
        weights = fit_weights(measured.X[model], measured.y[model], penalty, prior,
                              sample_weight=set_weights(sources[model]) if len(set(sources[model].tolist())) > 1
                              else None, signs=FEATURE_SIGNS)
    threshold = _threshold(scores(weights, measured)[rows], measured.y[rows], max_false_alarms, sources[rows])
    return weights, threshold


def _in_memory(weights: np.ndarray, threshold: float) -> JudgeConfig:
    names = ("intercept",) + FEATURES
    data = {"kind": CONFIG_KIND, "judge": SignalsJudge.name,
            "weights": {n: float(w) for n, w in zip(names, weights)}, "threshold": threshold}
    return JudgeConfig(data, None, sha256_text(json.dumps(data, sort_keys=True)))


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
    if not sup_model or not not_model:
        kind = "supported" if not sup_model else "contradicted or unsupported"
        raise GroundlabError(
            f"none of the {int(model.sum())} labeled claims the model decides is {kind} (the others are framing "
            "sentences, numbers the evidence lacks or negation flips, which a rule decides): a threshold cannot be "
            "chosen from one kind; label more claims of both kinds.")
    if max_false_alarms is not None:
        ruled = np.isin(measured.routes, ("number", "negation", "conflict")) & measured.y
        floor = ruled.sum() / supported
        if floor > max_false_alarms:
            raise GroundlabError(
                f"no threshold keeps false alarms at or below {max_false_alarms:.0%}: the rules alone (numbers the "
                f"evidence lacks, negation flips, clauses mostly missing) flag {int(ruled.sum())} of the {supported} "
                f"supported claims ({floor:.0%}); allow more with --max-false-alarms, or leave it out to choose by "
                "balanced accuracy.")



def shipped_prior() -> np.ndarray:
    """The weights shipped with groundlab, as a vector (intercept first): the centre of a
    calibration's penalty."""
    from .signals import _shipped

    config = _shipped()
    return np.array((config.intercept,) + config.weights)


def write_config(path: Path, data: Mapping[str, Any], force: bool = False) -> Path:
    """Write a judge config whole; an existing file is replaced only with ``force``."""
    from ..core.outputs import write_bytes

    check_config(data, str(path))
    path = Path(path)
    if path.is_dir():
        raise GroundlabError(f"{path} is a folder; give --out a file name such as judge.json.")
    if path.exists() and not force:
        raise GroundlabError(f"{path} already exists; nothing was written (choose another --out, or pass --force "
                             "to replace it).")
    return write_bytes(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


__all__ = ["FOLDS", "Figures", "Fit", "LabeledClaim", "MIN_FOR_WEIGHTS", "MIN_PER_CLASS", "MODES", "Measured",
           "check_enough", "mode_of",
           "choose_threshold", "fit", "fit_weights", "folds_of", "measure", "scores", "set_weights", "shipped_prior",
           "threshold_for_sets", "write_config"]
