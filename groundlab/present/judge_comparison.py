"""Several judges over the same cases, side by side: :class:`JudgeComparison` (each judge's
evaluation, and the judges that could not run, with why), :func:`compare_judges` (every judge
behind the same data policy, masking and judge config), and the frames a notebook reads the
comparison from: the person × judge confusion, agreement, caught and false alarms per judge, the
claims where they differ."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence

import pandas as pd

from ..core import formatting as fmt
from ..core.claims import ClaimSplitter
from ..measure.evaluate import Evaluation, evaluate
from ..core.io import PathLike
from ..core.metrics import agreement, disagreements, hallucination_rate, outcomes, risk_weighted_score
from ..measure.policy import make_judge
from ..core.records import Case, GroundlabError
from ..core.stats import UndefinedRateWarning
from ..measure.summary import rates_frame
from ..judges import nothing_judged
from .report import code_span


@dataclass
class JudgeComparison:
    """Several judges over the same cases; judges that could not be loaded, or judged nothing,
    are named in ``unavailable``. ``cases_path``, ``passages_path`` and ``origin`` say what was
    judged and where the verdicts come from (judged here, or the shared result of a run)."""

    evaluations: Dict[str, Evaluation] = field(default_factory=dict)
    unavailable: Dict[str, str] = field(default_factory=dict)
    cases_path: str = ""
    passages_path: str = ""
    origin: str = ""
    #: What every judge stood behind and was built with: ``policy``, ``mask``, ``mask_names``, ``judge_config``.
    settings: Dict[str, Any] = field(default_factory=dict)

    @property
    def judges(self) -> List[str]:
        return list(self.evaluations)

    def judge(self, name: str) -> Any:
        """Judge ``name`` as the cases were judged: behind the same data policy and masking, with
        the same judge config. What a notebook judges more cases with (notebook 04: its drawn sample),
        so that they stand behind the policy too."""
        settings = dict(self.settings)
        config = settings.pop("judge_config", None)
        provider = settings.pop("provider", "")
        return make_judge(name, **settings, **judge_config_options(name, config, provider))

    def get(self, name: str) -> Evaluation:
        """One judge's evaluation; a judge that was unavailable is named with the reason."""
        if name in self.evaluations:
            return self.evaluations[name]
        why = self.unavailable.get(name, "it was not in the list of judges to compare")
        raise GroundlabError(f"judge {name!r} has no results here ({why.rstrip('.')}).")

    def notes(self) -> List[str]:
        """One plain sentence per judge that is not compared, and why."""
        return [f"Judge {name!r} is unavailable here ({why.rstrip('.')}); the notebook carries on without it."
                for name, why in self.unavailable.items()]

    def _repr_markdown_(self) -> str:
        names = ", ".join(code_span(j) for j in self.judges) or "none"
        first = next(iter(self.evaluations.values()), None)
        lines = [f"{'Judge' if len(self.judges) == 1 else 'Judges compared:'} {names}"
                 + (f" on {len(first.cases)} cases ({len(first.claims)} claims)" if first is not None else "")
                 + (f" from {code_span(self.cases_path)}" if self.cases_path else "")
                 + (f" with the passages of {code_span(self.passages_path)}" if self.passages_path else "")
                 + "." + (f" {self.origin}" if self.origin else "")]
        lines += [f"- {_md_text(note)}" for note in self.notes()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self._repr_markdown_().replace("`", "")


def _md_text(text: str) -> str:
    from .report import markdown_text

    return markdown_text(text)


def compare_judges(cases: Sequence[Case], judges: Iterable[str], splitter: Optional[ClaimSplitter] = None,
                   judge_config: Optional[PathLike] = None, *, policy: Optional[PathLike] = None,
                   mask: bool = False, mask_names: Sequence[str] = (), provider: Optional[str] = "") -> JudgeComparison:
    """Judge ``cases`` with each judge in ``judges``.

    A judge that cannot be loaded (not registered, or its optional package missing), or that
    could not judge a single claim (a model judge whose every request failed), is skipped and
    named in :attr:`JudgeComparison.unavailable` with the reason, so one missing model judge
    does not stop a comparison of the others. ``judge_config`` (a file ``groundlab calibrate``
    wrote) gives the signals judge its weights and threshold. ``policy`` (a data policy file),
    ``mask`` and ``mask_names`` put every judge behind the data policy and the masking, as
    ``--policy`` and ``--mask`` do (docs/sensitive-logs.md); a case whose classification the
    policy cannot place stops it before anything is judged. ``provider`` is where the llm judge's
    requests go (``anthropic`` or ``sap-ai-core``; empty: ``$LLM_PROVIDER``, else ``anthropic``).
    """
    judges = list(judges)
    result = JudgeComparison()
    policy = policy if policy is not None and str(policy).strip() else None
    mask = bool(mask or mask_names)
    if policy is not None:
        from ..measure.policy import load_policy

        policy = load_policy(policy)
        policy.check_cases(cases)
    for name in judges:
        if name in result.evaluations or name in result.unavailable:
            continue
        try:
            judge = make_judge(name, policy=policy, mask=mask, mask_names=mask_names,
                               **judge_config_options(name, judge_config, provider))
        except ImportError as exc:
            result.unavailable[name] = f"a package it needs is not installed: {exc}"
            continue
        except GroundlabError as exc:
            result.unavailable[name] = str(exc).rstrip(".")
            continue
        ev = evaluate(cases, judge, splitter=splitter)
        stop = nothing_judged(ev.judge, ev.claims["error"].tolist())
        if stop:
            result.unavailable[name] = stop.rstrip(".")
            continue
        result.evaluations[name] = ev
    if not result.evaluations:
        raise GroundlabError("none of the judges " + ", ".join(map(repr, judges)) + " is available; "
                             "list at least one of signals, rules, lexical.")
    result.settings = {"policy": policy, "mask": mask, "mask_names": tuple(mask_names or ()),
                       "judge_config": judge_config, "provider": provider or ""}
    return result


def guarded_judge(judge: Any, policy: Any = None, mask: bool = False, mask_names: Sequence[str] = ()) -> Any:
    """``judge`` behind the data policy and the masking asked for (``policy``: a file or a loaded
    policy; an empty path is none), or the judge as it is (:func:`groundlab.policy.make_judge`)."""
    return make_judge(judge, policy=policy, mask=mask, mask_names=mask_names)


def judge_config_options(name: str, judge_config: Optional[PathLike], provider: Optional[str] = "") -> Dict[str, Any]:
    """The options that give judge ``name`` the config ``judge_config`` (only the signals judge
    takes one; an empty path is none) and the provider ``provider`` (only the llm judge takes
    one; empty: its default)."""
    if name == "llm" and provider is not None and str(provider).strip():
        return {"provider": str(provider).strip()}
    if judge_config is None or not str(judge_config).strip() or name != "signals":
        return {}
    return {"config": str(judge_config)}


def check_judge_config(judge_config: Optional[PathLike], judges: Sequence[str], what: str = "judge_config") -> None:
    """Refuse, in one sentence, a judge config that cannot be read, or one given where no judge
    uses it."""
    if judge_config is None or not str(judge_config).strip():
        return
    from ..judges.signals import load_config

    load_config(judge_config)
    if "signals" not in judges:
        raise GroundlabError(f"{what} {judge_config} is for the signals judge, which is not among the judges here "
                             f"({', '.join(judges) or 'none'}); use the signals judge, or leave {what} out.")


def confusion_frame(evaluation: Evaluation) -> pd.DataFrame:
    """The person × judge confusion matrix as a tidy frame: ``person``, ``verdict``, ``claims``, ``judge``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        result = agreement(evaluation.claims)
    rows = [{"person": p, "verdict": v, "claims": result.confusion[i][j], "judge": evaluation.judge}
            for i, p in enumerate(result.order) for j, v in enumerate(result.order)]
    return pd.DataFrame(rows)


def confusion_frames(comparison: JudgeComparison) -> pd.DataFrame:
    """:func:`confusion_frame` for every judge compared, stacked."""
    return pd.concat([confusion_frame(ev) for ev in comparison.evaluations.values()], ignore_index=True)


def agreement_frame(comparison: JudgeComparison) -> pd.DataFrame:
    """Per judge: exact agreement, hallucinated claims caught and false alarms, each with its Wilson range."""
    frames = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        for name, ev in comparison.evaluations.items():
            a = agreement(ev.claims, ev.cases)
            frames.append(rates_frame({"agreement": a.agreement, "caught": a.caught,
                                       "false alarms": a.false_alarms}, judge=name))
    return pd.concat(frames, ignore_index=True)


def judge_table(comparison: JudgeComparison, penalty: float = 1.0) -> pd.DataFrame:
    """One row per judge: the very same verdict as the person (supported, contradicted or
    unsupported), caught, false alarms, Cohen's kappa, and what the judge gives on its own (the
    answers it flags, the risk-weighted score by its verdicts at ``penalty``).

    Each rate reads as its count, percentage and Wilson 95% range: ``5/6 = 83% (44%–97%)``.
    """
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        for name, ev in comparison.evaluations.items():
            a = agreement(ev.claims, ev.cases)
            h = hallucination_rate(ev.cases)
            rows.append({"judge": name, "same verdict": a.agreement.with_range(), "caught": a.caught.with_range(),
                         "false alarms": a.false_alarms.with_range(), "kappa": round(a.kappa, 2),
                         "flagged by the judge": h.with_range(),
                         f"risk-weighted score per 100 answers (penalty {fmt.weight(penalty)})":
                             round(fmt.score_per_100(risk_weighted_score(ev.cases, penalty),
                                                     sum(outcomes(ev.cases).values())))})
    return pd.DataFrame(rows)


def disagreement_table(comparison: JudgeComparison) -> pd.DataFrame:
    """Per judge, the claims where it and the person differ: case, claim, person, judge, the judge's reason."""
    frames = [disagreements(ev.claims).assign(judge_name=name)
              for name, ev in comparison.evaluations.items()]
    table = pd.concat(frames, ignore_index=True)
    table = table[["judge_name", "case_id", "claim", "text", "person", "judge", "reason"]]
    return table.rename(columns={"judge_name": "judge name", "judge": "judge's verdict"})


def verdict_differences(comparison: JudgeComparison) -> pd.DataFrame:
    """The claims the judges do not all agree on, one column per judge, with the person's label:
    what one judge's extra step (the negation check of ``rules``) changes."""
    first = next(iter(comparison.evaluations.values())).claims
    table = first[["case_id", "claim", "text", "label"]].rename(columns={"label": "person"})
    for name, ev in comparison.evaluations.items():
        table[name] = ev.claims["verdict"].to_numpy()
    columns = comparison.judges
    differs = table[columns].nunique(axis=1, dropna=False) > 1
    return table[differs].reset_index(drop=True)
