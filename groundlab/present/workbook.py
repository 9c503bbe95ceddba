"""What the notebooks call: tidy frames for their tables and charts, judges side by side, and
the steering report with its figures.

The notebooks are views of the pipeline (``io`` → ``evaluate`` → ``metrics``/``stats``); every
step that shapes data for a table or a chart lives here, so a notebook cell is one call.

>>> from groundlab import sample_path
>>> ev = evaluate_files(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"), "lexical")
>>> curve = penalty_curve(ev.cases, max_penalty=3)
>>> curve[curve.penalty == 3].set_index("policy")["score"].to_dict()  # by the person's labels
{'as it is': -10.0, 'withholding the answers the judge flags': 1.0}
"""

from __future__ import annotations

import math
import os
import pickle
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pandas as pd

from ..core.claims import ClaimSplitter, claim_splitter  # noqa: F401 (claim_splitter: the notebooks name it here)
from ..core.evaluate import Evaluation, evaluate, split_cases
from ..core.io import PathLike, load_cases, sha256_file
from ..core.policy import make_judge
from ..judges import DEFAULT_JUDGE, nothing_judged
from ..core.metrics import (
    agreement,
    citation_problems,
    disagreements,
    hallucination_rate,
    has_person_labels,
    outcomes,
    risk_weighted_score,
    verdict_counts,
)
from ..core import formatting as fmt
from ..core.records import VERDICTS, Case, GroundlabError
from .report import code_span, steering_report, write_report
from ..production.targets import read_targets  # noqa: F401 (notebook 03 reads its targets once)
from ..core.curves import AS_IT_IS, MAX_CURVE_POINTS, THRESHOLD_STEPS, WITHHOLDS, penalty_curve, threshold_points  # noqa: F401
from ..core.summary import rates, rates_frame
from .tables import _INTERACTIVE, Sentences, Table, _escape, _readable, _styler, interactive_tables, table  # noqa: F401
from ..core.stats import Rate, UndefinedRateWarning, answers_needed, interval_bounds, interval_half_width, percent

if TYPE_CHECKING:  # pragma: no cover
    from ..production.targets import Targets


def evaluate_files(cases: PathLike, passages: Optional[PathLike] = None, judge: str = DEFAULT_JUDGE,
                   splitter: Optional[ClaimSplitter] = None) -> Evaluation:
    """Load a cases file (and the passages its ids refer to) and judge every claim."""
    return evaluate(load_cases(cases, passages), judge, splitter=splitter)


# ---------------------------------------------------------------- tables for reading


# ---------------------------------------------------------------- rates


def styled_rates(frame: pd.DataFrame):
    """A rates frame for reading: percentages, ``n/a`` for a rate over nothing (see :func:`table`)."""
    return table(frame, percents=("rate", "low", "high"))


def run_summary(evaluation: Evaluation, penalty: float = 1.0, *, margin: float = 0.05, label_budget: int = 0):
    """Every figure of a run, once (:func:`groundlab.summary.score_summary`): what the report, its
    charts, the slides and ``groundlab score`` show, for the notebook to read from."""
    from ..core.summary import score_summary

    return score_summary(evaluation, penalty, margin=margin, label_budget=label_budget or None)


def headline_table(summary: Mapping[str, Any]) -> pd.DataFrame:
    """The hallucination rate as the report gives it, people's (by their labels on every answer, or
    the judge's flags corrected by their labels on some; *not measured yet* without labels, with
    the labels that would settle it), the share the judge flags beside it, and people's own rate
    over the answers they labeled."""
    from .headline import flagged_share, hallucination_words, label_request_words

    words = hallucination_words(summary)
    rows = [{"measure": "hallucination rate", "figure": words.figure, "95% range": words.range or "\u2014",
             "how": words.how}]
    rows.append({"measure": "flagged by the judge", "figure": fmt.percent(summary["flagged_by_judge"]["rate"]),
                 "95% range": fmt.percent_range(summary["flagged_by_judge"]["low"], summary["flagged_by_judge"]["high"]),
                 "how": flagged_share(summary) + ": the judge's share, not the rate"})
    person = summary.get("hallucination_rate_by_person")
    if person and summary["hallucination_rate"]["basis"] != "people":
        rows.append({"measure": "by the person, on the answers labeled", "figure": fmt.percent(person["rate"]),
                     "95% range": fmt.percent_range(person["low"], person["high"]),
                     "how": f"{person['hallucinated']} of {fmt.count(person['answered'], 'labeled answer')} "
                            "(drawn by stratum, so not the log's rate on its own)"})
    if summary.get("label_request") and summary["label_request"]["more"] and words.measured:
        rows.append({"measure": "label request", "figure": fmt.number(summary["label_request"]["more"]),
                     "95% range": "\u2014", "how": label_request_words(summary)})
    return pd.DataFrame(rows).set_index("measure")


def rate_table(evaluation: Evaluation, *names: str):
    """The named rates of a run (all of them when none is named), ready to read.

    Names are those of :func:`groundlab.summary.rates`: ``flagged by the judge``, ``faithfulness``,
    ``citation recall``, ``abstention``, ...
    """
    every = rates(evaluation)
    unknown = [n for n in names if n not in every]
    if unknown:
        raise GroundlabError(f"there is no rate called {unknown[0]!r}; use one of: {', '.join(every)}.")
    return styled_rates(rates_frame({n: every[n] for n in (names or every)}))



# ---------------------------------------------------------------- claims and cases


_ROW_COLOURS = {v: f"background-color: {fmt.STATE_TINTS[state]}" for v, state in fmt.VERDICT_STATES.items()
                if v != "supported"}


def verdict_table(claims: pd.DataFrame) -> pd.DataFrame:
    """One row per claim with the judge's verdict (its symbol beside it), its reason, the evidence
    sentence that decided it with the words found in both and what clashes, and the person's label."""
    from .cards import VERDICT_SYMBOLS

    columns = ["case_id", "claim", "text", "cites", "verdict", "reason", "evidence", "evidence_matched",
               "evidence_clashed", "label"]
    table = claims[[c for c in columns if c in claims]].copy()
    table["cites"] = table["cites"].map(lambda ids: ", ".join(ids))
    table["verdict"] = [f"{VERDICT_SYMBOLS.get(v, '?')} {v or 'undecided'}" for v in table["verdict"]]
    for name in ("evidence_matched", "evidence_clashed"):
        if name in table:
            table[name] = table[name].map(lambda words: ", ".join(words) if words else "")
    if "evidence" in table:
        table["evidence"] = table["evidence"].map(lambda text: text if isinstance(text, str) else "")
    return table.rename(columns={"label": "person"})


def style_verdicts(claims: pd.DataFrame):
    """:func:`verdict_table` with contradicted rows in vermillion and unsupported ones in orange,
    the verdict with its symbol beside the colour, every cell escaped (see :func:`table`)."""
    source = verdict_table(claims)
    frame = _readable(source)
    # by row label, so a filtered frame (labels 3, 4, 8, ...) is coloured row by row too
    colours = pd.Series([_ROW_COLOURS.get(v, "") for v in claims["verdict"]], index=frame.index)
    styler = (_styler(frame)
              .apply(lambda row: [colours[row.name]] * len(row), axis=1)
              .map(lambda v: "font-weight: bold", subset=[fmt.column_name("verdict")]))
    return Table(styler, frame, styled=True, source=source)


def verdict_frame(claims: pd.DataFrame, flagged_only: bool = False, **columns: object) -> pd.DataFrame:
    """Claims per verdict: ``verdict``, ``claims``, ``share`` (of the judged claims, or of the flagged
    ones with ``flagged_only``). Extra keyword arguments become constant columns."""
    counts = verdict_counts(claims)
    names = [v for v in VERDICTS if not flagged_only or v != "supported"]
    total = sum(counts[v] for v in names)
    frame = pd.DataFrame({"verdict": names, "claims": [counts[v] for v in names]})
    frame["share"] = frame["claims"] / total if total else math.nan
    for name, value in columns.items():
        frame[name] = value
    return frame


def outcome_table(cases: pd.DataFrame) -> pd.DataFrame:
    """One row per case: whether it was answerable, its claims per verdict and its outcome."""
    return cases[["case_id", "question", "answerable", "claims", "supported", "contradicted",
                  "unsupported", "outcome"]]


def citation_table(claims: pd.DataFrame) -> pd.DataFrame:
    """:func:`groundlab.citation_problems` for reading: the cited ids written ``D07, D06``."""
    table = citation_problems(claims).copy()
    table["cites"] = table["cites"].map(lambda ids: ", ".join(ids))
    return table


def abstentions(cases: pd.DataFrame) -> pd.DataFrame:
    """The cases that abstained, each marked as a right abstention, a false one, or unknown."""
    table = cases.loc[cases["abstained"], ["case_id", "question", "answerable"]].copy()
    table["reading"] = table["answerable"].map(
        {True: "false abstention: the passages hold the answer",
         False: "right: the passages cannot answer it"}).fillna("unknown: answerable not set")
    return table


# ---------------------------------------------------------------- judges side by side


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
        return make_judge(name, **settings, **judge_config_options(name, config))

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
                   mask: bool = False, mask_names: Sequence[str] = ()) -> JudgeComparison:
    """Judge ``cases`` with each judge in ``judges``.

    A judge that cannot be loaded (not registered, or its optional package missing), or that
    could not judge a single claim (a model judge whose every request failed), is skipped and
    named in :attr:`JudgeComparison.unavailable` with the reason, so one missing model judge
    does not stop a comparison of the others. ``judge_config`` (a file ``groundlab calibrate``
    wrote) gives the signals judge its weights and threshold. ``policy`` (a data policy file),
    ``mask`` and ``mask_names`` put every judge behind the data policy and the masking, as
    ``--policy`` and ``--mask`` do (docs/sensitive-logs.md); a case whose classification the
    policy cannot place stops it before anything is judged.
    """
    judges = list(judges)
    result = JudgeComparison()
    policy = policy if policy is not None and str(policy).strip() else None
    mask = bool(mask or mask_names)
    if policy is not None:
        from ..core.policy import load_policy

        policy = load_policy(policy)
        policy.check_cases(cases)
    for name in judges:
        if name in result.evaluations or name in result.unavailable:
            continue
        try:
            judge = make_judge(name, policy=policy, mask=mask, mask_names=mask_names,
                               **judge_config_options(name, judge_config))
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
                       "judge_config": judge_config}
    return result


def guarded_judge(judge: Any, policy: Any = None, mask: bool = False, mask_names: Sequence[str] = ()) -> Any:
    """``judge`` behind the data policy and the masking asked for (``policy``: a file or a loaded
    policy; an empty path is none), or the judge as it is (:func:`groundlab.policy.make_judge`)."""
    return make_judge(judge, policy=policy, mask=mask, mask_names=mask_names)


def judge_config_options(name: str, judge_config: Optional[PathLike]) -> Dict[str, Any]:
    """The options that give judge ``name`` the config ``judge_config`` (only the signals judge
    takes one; an empty path is none)."""
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


# ---------------------------------------------------------------- one judged result per run

#: What a file written by :func:`save_judged` starts with.
_JUDGED_KIND = "groundlab judged result"


def judged_inputs(cases: PathLike, passages: Optional[PathLike], citation_pattern: Optional[str] = "",
                  abstention_phrases: Sequence[str] = (), default_citations: bool = True, *,
                  policy: Optional[PathLike] = None, mask: bool = False,
                  mask_names: Sequence[str] = ()) -> Dict[str, Any]:
    """What decides a judged result: the content of the cases and passages files, how answers
    were split, and the data policy and masking the judges stood behind. A shared result is used
    only for exactly these."""
    inputs = {"cases": _file_digest(cases), "passages": _file_digest(passages) if passages else "",
              "citation_pattern": citation_pattern or "", "abstention_phrases": list(abstention_phrases or []),
              "default_citations": bool(default_citations)}
    if policy is not None and str(policy).strip():
        inputs["policy"] = _file_digest(policy)
    if mask or mask_names:
        inputs["mask"] = sorted(set(mask_names or ()))
    return inputs


def _file_digest(path: PathLike) -> str:
    try:
        return sha256_file(path)
    except OSError as exc:
        raise GroundlabError(f"cannot read {path} ({exc.strerror or exc}); check the path and run again.") from None


def save_judged(path: PathLike, comparison: JudgeComparison, inputs: Mapping[str, Any]) -> Path:
    """Keep a judged result (every judge's claim and case frames) for the notebooks of one run, so
    the cases are judged once, not once per notebook. ``inputs``: :func:`judged_inputs`."""
    from ..core.outputs import write_bytes

    data = {"kind": _JUDGED_KIND, "version": 1, "inputs": dict(inputs),
            "evaluations": comparison.evaluations, "unavailable": comparison.unavailable}
    return write_bytes(path, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))


def load_judged(path: PathLike, inputs: Mapping[str, Any]) -> JudgeComparison:
    """A judged result :func:`save_judged` wrote, checked to be of these ``inputs``.

    The file is a pickle: load only one a groundlab run wrote (it is the run's own file).
    """
    try:
        with open(path, "rb") as fh:
            data = pickle.load(fh)
    except OSError as exc:
        raise GroundlabError(f"judged_file {path} cannot be read ({exc.strerror or exc}); leave judged_file "
                             "empty to judge the cases here.") from None
    except Exception:  # not a pickle, or one of another version of groundlab
        data = None
    if not isinstance(data, dict) or data.get("kind") != _JUDGED_KIND:
        raise GroundlabError(f"judged_file {path} is not a judged result groundlab run wrote; leave judged_file "
                             "empty to judge the cases here.")
    if data.get("inputs") != dict(inputs):
        raise GroundlabError(f"judged_file {path} was judged from other cases, passages or claim settings than "
                             "these; leave judged_file empty to judge the cases here.")
    return JudgeComparison(dict(data["evaluations"]), dict(data["unavailable"]))


def judged_cases(cases: PathLike, passages: Optional[PathLike], judges: Iterable[str], *,
                 judged_file: PathLike = "", citation_pattern: Optional[str] = "",
                 abstention_phrases: Sequence[str] = (), judge_config: Optional[PathLike] = None,
                 default_citations: bool = True, policy: Optional[PathLike] = "", mask: bool = False,
                 mask_names: Sequence[str] = (), loaded: Optional[Sequence[Case]] = None) -> JudgeComparison:
    """The cases judged by each of ``judges``: from ``judged_file`` (the result ``groundlab run``
    judged once for all its notebooks) when one is given, else judged here. ``loaded``: the cases
    of ``cases`` when the caller has read them already, so the file is not read again.

    A judge the shared result does not hold is judged here; a judge that cannot run here, or
    judged nothing, is named in ``unavailable``. ``judge_config`` gives the signals judge the
    weights of a file ``groundlab calibrate`` wrote (``""``: the shipped ones; ``None``: whatever
    the shared result was judged with); a shared result judged with other weights is refused.
    ``policy``, ``mask`` and ``mask_names``: the data policy and masking every judge stands behind
    (:func:`compare_judges`); a shared result judged behind another policy is refused.
    """
    guarded = {"policy": policy, "mask": mask, "mask_names": mask_names}
    judges = list(dict.fromkeys(judges))
    read = (lambda: list(loaded)) if loaded is not None else (lambda: load_cases(cases, passages or None))
    splitter = claim_splitter(citation_pattern, abstention_phrases, default_citations=default_citations)
    passages = passages or None
    if judge_config is not None:
        check_judge_config(judge_config, judges)
    if str(judged_file).strip():
        comparison = load_judged(judged_file, judged_inputs(cases, passages, citation_pattern, abstention_phrases,
                                                            default_citations, **guarded))
        if judge_config is not None and "signals" in comparison.evaluations:
            _check_shared_config(judged_file, comparison.evaluations["signals"], judge_config)
        missing = [j for j in judges if j not in comparison.evaluations and j not in comparison.unavailable]
        if missing:
            extra = compare_judges(read(), missing, splitter, judge_config, **guarded)
            comparison.evaluations.update(extra.evaluations)
            comparison.unavailable.update(extra.unavailable)
        comparison.evaluations = {j: comparison.evaluations[j] for j in judges if j in comparison.evaluations}
        comparison.unavailable = {j: comparison.unavailable[j] for j in judges if j in comparison.unavailable}
        origin = "Verdicts from the run's shared result, judged once for all its notebooks."
    else:
        comparison = compare_judges(read(), judges, splitter, judge_config, **guarded)
        origin = ""
    comparison.cases_path, comparison.passages_path, comparison.origin = str(cases), str(passages or ""), origin
    comparison.settings = {**guarded, "mask_names": tuple(mask_names or ()), "judge_config": judge_config}
    return comparison


def _check_shared_config(judged_file: PathLike, evaluation: Evaluation, judge_config: PathLike) -> None:
    from ..judges.signals import load_config

    want = load_config(judge_config if str(judge_config).strip() else None).sha256
    have = (evaluation.claims.attrs.get("judge") or {}).get("config_sha256")
    if have != want:
        raise GroundlabError(f"judged_file {judged_file} was judged by the signals judge with other weights than "
                             f"judge_config {str(judge_config) or '(the shipped ones)'}; give the same judge_config "
                             "the run used, or leave judged_file empty to judge the cases here.")


def check_cases(cases: PathLike, passages: Optional[PathLike], splitter: Optional[ClaimSplitter] = None) -> List[Case]:
    """Read and check a cases file as ``groundlab check`` does (every field, every passage id, one
    label per claim), raising the one-sentence error of the first problem."""
    loaded = load_cases(cases, passages or None)
    split_cases(loaded, splitter)
    return loaded


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


# ---------------------------------------------------------------- the judge's threshold

_ROC_COLUMNS = ["threshold", "caught", "hallucinated", "false_alarms", "supported", "caught_rate",
                "false_alarm_rate", "chosen", "judge"]


def judge_threshold(evaluation: Evaluation) -> Optional[float]:
    """The score threshold the judge's verdicts were given with (from its identity), if it has one."""
    settings = (evaluation.claims.attrs.get("judge") or {}).get("settings") or {}
    value = settings.get("threshold")
    return float(value) if isinstance(value, (int, float)) else None


def roc_frame(evaluation: Evaluation) -> pd.DataFrame:
    """The judge's ROC curve on the claims a person labeled: for every threshold a claim's
    ``score`` can be held to (a claim scoring below it is flagged), the hallucinated claims caught
    and the supported claims flagged (false alarms), as counts and rates.

    One row per operating point, from flagging nothing to flagging everything; the row
    ``chosen`` is the judge's own point, counted from its verdicts (for the signals judge the
    same as its threshold on the score; a rules judge also flags by negation, which its score,
    the word coverage, does not show). Empty when the judge gives no scores or nothing is labeled.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "signals")
    >>> roc_frame(ev).query("chosen")[["caught", "hallucinated", "false_alarms", "supported"]].values.tolist()
    [[6, 6, 1, 14]]
    """
    import numpy as np

    claims = evaluation.claims
    labeled = claims[claims["label"].notna() & claims["verdict"].notna() & claims["score"].notna()]
    if labeled.empty:
        return pd.DataFrame(columns=_ROC_COLUMNS)
    score = labeled["score"].to_numpy(dtype=float)
    hallucinated = (labeled["label"] != "supported").to_numpy()
    n_h, n_s = int(hallucinated.sum()), int((~hallucinated).sum())
    rows = []
    for t in list(np.unique(score)) + [math.inf]:
        flagged = score < t
        rows.append({"threshold": float(t), "caught": int((flagged & hallucinated).sum()), "hallucinated": n_h,
                     "false_alarms": int((flagged & ~hallucinated).sum()), "supported": n_s, "chosen": False})
    flagged = (labeled["verdict"] != "supported").to_numpy()
    chosen = judge_threshold(evaluation)
    rows.append({"threshold": chosen if chosen is not None else math.nan,
                 "caught": int((flagged & hallucinated).sum()), "hallucinated": n_h,
                 "false_alarms": int((flagged & ~hallucinated).sum()), "supported": n_s, "chosen": True})
    frame = pd.DataFrame(rows)
    frame["caught_rate"] = frame["caught"] / n_h if n_h else math.nan
    frame["false_alarm_rate"] = frame["false_alarms"] / n_s if n_s else math.nan
    frame["judge"] = evaluation.judge
    frame = frame.sort_values(["false_alarm_rate", "caught_rate", "chosen"], kind="stable").reset_index(drop=True)
    return frame[_ROC_COLUMNS]


def reliability_frame(evaluation: Evaluation, bins: int = 5) -> pd.DataFrame:
    """Is the judge's score a probability? The claims a person labeled, in ``bins`` equal ranges of
    the score the judge's model gave (claims a rule decided, scored 0 or 1, left out): per range
    the claims, their mean score, and the share the person found supported, with its Wilson 95%
    range. A calibrated score lies on the diagonal: of claims scored 0.7, seven in ten are supported.
    Empty when the judge gives no scores or nothing is labeled.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "signals")
    >>> reliability_frame(ev)[["high", "claims", "supported"]].astype(float).values.tolist()[-1]
    [1.0, 11.0, 11.0]
    """
    from ..core.stats import Rate

    claims = evaluation.claims
    columns = ["low", "high", "claims", "mean_score", "supported", "share", "share_low", "share_high", "judge"]
    score = claims["score"]
    labeled = claims[claims["label"].notna() & score.notna() & (score > 0) & (score < 1)]
    if labeled.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for k in range(bins):
        low, high = k / bins, (k + 1) / bins
        inside = labeled[(labeled["score"] >= low) & ((labeled["score"] < high) | (k == bins - 1))]
        if inside.empty:
            continue
        supported = int((inside["label"] == "supported").sum())
        rate = Rate(supported, len(inside))
        lo, hi = rate.interval
        rows.append({"low": round(low, 4), "high": round(high, 4), "claims": len(inside),
                     "mean_score": float(inside["score"].mean()), "supported": supported, "share": rate.rate,
                     "share_low": lo, "share_high": hi, "judge": evaluation.judge})
    return pd.DataFrame(rows, columns=columns)


#: How far :func:`threshold_points` moves the judge's threshold, down and up.
def threshold_moves(roc: pd.DataFrame, steps: Sequence[float] = THRESHOLD_STEPS) -> pd.DataFrame:
    """What moving the judge's threshold would cost, for reading: the judge's point and the points
    of :func:`threshold_points`, each with its claims caught and false alarms and the change from
    the judge's point (a lower threshold flags fewer claims: fewer caught, fewer false alarms).

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "signals")
    >>> threshold_moves(roc_frame(ev))["change"].tolist()
    ['1 fewer false alarm', "the judge's verdicts", '1 more false alarm']
    """
    columns = ["threshold", "caught", "false alarms", "change"]
    rows = []
    for r in threshold_points(roc, steps).itertuples():
        if r.chosen:
            change = "the judge's verdicts"
        else:
            parts = [_more_or_fewer(r.caught_change, "caught", "caught"),
                     _more_or_fewer(r.false_alarm_change, "false alarm", "false alarms")]
            change = ", ".join(p for p in parts if p)
        shown = "\u2014" if r.threshold != r.threshold else f"{r.threshold:.2f}"
        rows.append({"threshold": shown, "caught": f"{int(r.caught)}/{int(r.hallucinated)}",
                     "false alarms": f"{int(r.false_alarms)}/{int(r.supported)}", "change": change})
    return pd.DataFrame(rows, columns=columns)


def _more_or_fewer(delta: int, one: str, many: str) -> str:
    if not delta:
        return ""
    word = one if abs(delta) == 1 else many
    return f"{abs(delta)} {'more' if delta > 0 else 'fewer'} {word}"


# ---------------------------------------------------------------- planning charts


def interval_width_frame(rate: Union[Rate, Mapping[str, Any]], n_min: int = 10, n_max: int = 2000,
                         margin: float = 0.05, points: int = 200) -> pd.DataFrame:
    """How the Wilson 95% range around the observed rate narrows with the number of answers.

    Columns: ``n``, ``rate``, ``low``, ``high``, ``half_width``. The range of ``n`` is widened to
    take in today's number of answers and the number a ``±margin`` range needs. A rate over
    nothing is planned at 50%, the widest case. Given a plan (:func:`plan_answers`) whose rate is
    not people's on every answer, the frame is the label request's instead: how the corrected
    rate's range is expected to narrow as people label answers (:func:`groundlab.summary.label_curve`).
    """
    if isinstance(rate, Mapping):
        if rate.get("request") is not None:
            from ..core.summary import label_curve

            return label_curve(rate["request"], points=min(points, 80))
        rate = Rate(int(rate["count"]), int(rate["answers"]))
    p = rate.rate if rate.defined else 0.5
    needed = answers_needed(p, margin)
    n_max = max(n_max, rate.total, needed)
    n_min = max(1, min(n_min, rate.total or n_min))
    grid = sorted({int(round(n_min * (n_max / n_min) ** (k / (points - 1)))) for k in range(points)}
                  | {n for n in (rate.total, needed) if n})
    rows = []
    for n in grid:
        low, high = interval_bounds(p, n)
        rows.append({"n": n, "rate": p, "low": low, "high": high, "half_width": interval_half_width(p, n)})
    return pd.DataFrame(rows)


def plan_answers(rate: Union[Rate, Mapping[str, Any]], margin: float = 0.05) -> Dict[str, Any]:
    """Today's answers and range, and how many a ``±margin`` range needs.

    Given a :class:`Rate`: at the observed rate, answers drawn at random. Given a run's summary
    (:func:`groundlab.summary.score_summary`): for the hallucination rate as the report gives it:
    by people's labels on every answer, the answers it needs; else the label request, the answers
    people should label (``request``), with what the judge flags beside it (``flagged``), which is
    not the rate. Every figure is the summary's.
    """
    if not isinstance(rate, Mapping):
        p = rate.rate if rate.defined else 0.5
        return {"rate": p, "answers": rate.total, "count": rate.count,
                "half_width": interval_half_width(p, rate.total) if rate.total else math.nan,
                "margin": margin, "answers_needed": answers_needed(p, margin), "request": None,
                "what": "hallucination rate", "unit": "test answers"}
    s = rate
    h, f = s["hallucination_rate"], s["flagged_by_judge"]
    if h["basis"] == "people":
        return {"rate": h["rate"], "answers": h["answered"], "count": h["hallucinated"],
                "half_width": (h["high"] - h["low"]) / 2, "margin": s["margin"],
                "answers_needed": s["answers_needed"]["hallucination_rate"], "request": None,
                "what": "hallucination rate, by people's labels", "unit": "test answers"}
    r = s["label_request"]
    return {"rate": h["rate"] if h["rate"] is not None else r["expected_rate"], "answers": r["labeled"],
            "count": None, "half_width": (h["high"] - h["low"]) / 2 if h["rate"] is not None else math.nan,
            "margin": s["margin"], "answers_needed": r["answers"], "request": r, "flagged": f,
            "what": "hallucination rate, expected as people label", "unit": "answers people label"}


def plan_table(plan: Mapping[str, Any]) -> pd.DataFrame:
    """:func:`plan_answers` for reading: today's test set and the one a ``±margin`` range needs,
    each with its number of answers and the 95% range the observed rate would have; for a label
    request, the answers labeled so far and those it asks for, with the expected ranges.

    A rate over nothing is planned at 50%, the widest case.

    >>> plan_table(plan_answers(Rate(6, 10), 0.05))[["answers", "95% range"]].to_dict("index")
    {'today': {'answers': 10, '95% range': '31%–83%'}, 'for ±5 points': {'answers': 366, '95% range': '55%–65%'}}
    """
    if plan.get("request") is not None:
        from ..core.summary import label_curve

        curve = label_curve(plan["request"]).set_index("n")
        rows = []
        for label, n in (("labeled so far", int(plan["answers"])),
                         (f"the request, for \u00b1{100 * plan['margin']:g} points", int(plan["answers_needed"]))):
            if n and n in curve.index:
                e = curve.loc[n]
                rows.append({"labels": label, "answers": n, "95% range": f"{percent(e['low'])}\u2013{percent(e['high'])}",
                             "\u00b1 points": f"\u00b1{100 * e['half_width']:.0f}"})
            else:
                rows.append({"labels": label, "answers": n, "95% range": "n/a", "\u00b1 points": "n/a"})
        return pd.DataFrame(rows).set_index("labels")
    rows = []
    for label, n in (("today", int(plan["answers"])),
                     (f"for \u00b1{100 * plan['margin']:g} points", int(plan["answers_needed"]))):
        if n:
            low, high = interval_bounds(plan["rate"], n)
            half = f"\u00b1{100 * interval_half_width(plan['rate'], n):.0f}"
            span = f"{percent(low)}\u2013{percent(high)}"
        else:
            half = span = "n/a"
        rows.append({"test set": label, "answers": n, "rate": percent(plan["rate"]) if n else "n/a",
                     "95% range": span, "\u00b1 points": half})
    return pd.DataFrame(rows).set_index("test set")


def score_table(cases: pd.DataFrame, penalty: float, withhold: bool = True) -> pd.DataFrame:
    """The risk-weighted score at ``penalty``, as it is and (``withhold``) withholding the answers
    the judge flags; scored by the judge and, where answers carry labels, by the person.

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "lexical")
    >>> score_table(ev.cases, 3).iloc[:, [0, 1, 5]].values.tolist()  # per 100 answers: -10, 5 and 1 of 12
    [['as it is', 'the judge', -83], ['as it is', "a person's labels", -83], \
['withholding the answers the judge flags', 'the judge', 42], \
['withholding the answers the judge flags', "a person's labels", 8]]
    """
    views = ["judge"] + (["person"] if has_person_labels(cases) else [])
    rows = []
    for policy, flag in ((AS_IT_IS, False), (WITHHOLDS, True))[:2 if withhold else 1]:
        for by in views:
            counts = outcomes(cases, withhold_flagged=flag, by=by)
            answers = sum(counts.values())
            score = float(counts["correct"] - penalty * counts["wrong"])
            rows.append({"policy": policy, "scored by": "the judge" if by == "judge" else "a person's labels",
                         "right": counts["correct"], "declined": counts["abstained"], "wrong": counts["wrong"],
                         f"score per 100 answers at penalty {fmt.weight(penalty)}":
                             round(fmt.score_per_100(score, answers)) if answers else math.nan})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- the runtime guard


def guard_outcome_table(outcomes: pd.DataFrame) -> pd.DataFrame:
    """:func:`groundlab.guard.guard_outcomes` for reading: one row per measure, what it is counted
    over, and one column per mode, each cell the count, percentage and Wilson 95% range.

    >>> from groundlab import evaluate, guard_outcomes, load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> guard_outcome_table(guard_outcomes(ev)).loc[2].to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'measure': 'hallucinated claims caught', 'counted over': 'claims a person found not supported',
     'flag': '6/6 = 100% (61%–100%)', 'hide': '6/6 = 100% (61%–100%)', 'route': '6/6 = 100% (61%–100%)'}
    """
    frame = outcomes.assign(cell=[Rate(int(c), int(t)).with_range() for c, t in zip(outcomes["count"], outcomes["total"])])
    measures = list(dict.fromkeys(frame["measure"]))
    modes = list(dict.fromkeys(frame["mode"]))
    table = frame.pivot(index="measure", columns="mode", values="cell").reindex(index=measures, columns=modes)
    over = frame.drop_duplicates("measure").set_index("measure")["over"]
    table.insert(0, "counted over", over.reindex(measures))
    table.columns.name = None
    return table.reset_index()


def guard_examples(cases: Sequence[Case], judge: str = "rules", splitter: Optional[ClaimSplitter] = None,
                   route_when: Optional[str] = None, every: bool = False, *, policy: Optional[PathLike] = None,
                   mask: bool = False, mask_names: Sequence[str] = ()) -> pd.DataFrame:
    """What a reader would see from each guard mode, one row per answer the guard acts on (``every``:
    per answer with a claim): the answer as given, the claims a person found not supported (where
    labeled), the answer as ``flag`` and ``hide`` show it, which modes send it to a person (``route``
    whenever a claim is not backed; the others under their route rule), and the judge's reasons.

    >>> from groundlab import load_cases, sample_path
    >>> rows = guard_examples(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> rows.loc[rows["case"] == "c10", "hide"].item()
    'Safety stock is a buffer quantity that planning keeps for uncertain demand [D15]. (Removed: not backed by the sources.)'
    """
    from ..production.guard import guard, judge_object

    judge_used = guarded_judge(judge_object(judge), policy, mask, mask_names)
    if policy is not None and str(policy).strip():
        from ..core.policy import policy_of

        policy_of(judge_used).check_cases(cases)
    rows = []
    for case in cases:
        results = {mode: guard(case.question, case.retrieved, case.answer, judge_used, mode, splitter=splitter,
                               route_when=route_when, classification=case.classification)
                   for mode in ("flag", "hide", "route")}
        if not results["flag"].claims or not (every or results["route"].route_to_person):
            continue
        routed = [mode for mode, result in results.items() if result.route_to_person]
        person = ("" if case.labels is None else "; ".join(
            f"claim {k}: {label}" for k, label in enumerate(case.labels, 1) if label != "supported")
            or "every claim supported")
        rows.append({"case": case.id, "answer as given": case.answer, "person": person, "flag": results["flag"].text,
                     "hide": results["hide"].text,
                     "sent to a person": ", ".join(routed) if routed else "no",
                     "why": "; ".join(f"claim {f.claim}: {f.reason}" for f in results["route"].flagged)})
    return pd.DataFrame(rows, columns=["case", "answer as given", "person", "flag", "hide", "sent to a person", "why"])


# ---------------------------------------------------------------- severity by kind and process


def breakdown_table(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`groundlab.metrics.hallucination_breakdown` for reading: one row per kind of claim
    and per process, what is counted (``1 of 2 claims``), the rate and its Wilson 95% range
    (show it with ``table(..., percents=("rate", "low", "high"))``).

    >>> from groundlab import evaluate, load_cases, sample_path
    >>> from groundlab.metrics import hallucination_breakdown
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> breakdown_table(hallucination_breakdown(ev.claims, ev.cases)).iloc[0, :3].tolist()
    ['kind of claim', 'id', '1 of 2 claims not supported']
    """
    by = {"kind": "kind of claim", "process": "process", "process kind": "process / kind"}
    out = pd.DataFrame({
        "by": frame["by"].map(by),
        "group": frame["group"],
        "count": [f"{h} of {t} {u if t != 1 else u[:-1]} "
                  + ("not supported" if u == "claims" else "with a claim not supported")
                  for h, t, u in zip(frame["hallucinated"], frame["total"], frame["unit"])],
        "rate": frame["rate"], "low": frame["low"], "high": frame["high"]})
    return out.reset_index(drop=True)


@dataclass(repr=False)
class TargetCheck:
    """The cases measured against a targets file: the pass/fail ``table``
    (:func:`groundlab.targets.target_table`), and the weighted risk score beside the plain one.
    Shows itself in a notebook as a sentence and the table, every name escaped."""

    table: pd.DataFrame
    source: str
    penalty: float
    plain: float
    weighted: float
    weights: Dict[str, float]
    answers: int = 0

    @property
    def met(self) -> int:
        return int((self.table["status"] == "pass").sum())

    def sentences(self) -> List[str]:
        named = ", ".join(f"{kind} {fmt.weight(weight)}" for kind, weight in self.weights.items())
        state = "good" if len(self.table) and self.met == len(self.table) else "bad" if len(self.table) else "none"
        return [f"Targets from {self.source}, each met when the whole 95% range is at or below its maximum: "
                f"{fmt.state_label(state)} {self.met} of {len(self.table)} met.",
                f"Weighted risk score {fmt.per_100(self.weighted, self.answers)} beside the plain "
                f"{fmt.per_100(self.plain, self.answers)} at penalty {fmt.weight(self.penalty)}: a wrong answer weighs "
                "as much as the heaviest kind of fact it got wrong ("
                + (f"{named}, others 1" if named else "every kind 1: the file gives no weights") + ")."]

    def _repr_html_(self) -> str:
        text = "".join(f"<p>{_escape(line)}</p>" for line in self.sentences())
        if self.table.empty:
            return text
        shown = self.table[["target", "max_rate", "hallucinated", "total", "rate", "low", "high", "status", "note"]]
        shown = shown.assign(status=[f"{fmt.state_label(_target_state(st, n))} {st}"
                                     for st, n in zip(shown["status"], shown["note"])])
        return text + table(shown.rename(columns={"max_rate": "max"}),
                            percents=("max", "rate", "low", "high"))._repr_html_()

    def __repr__(self) -> str:
        return "\n".join(self.sentences())


def _target_state(status: str, note: Any) -> str:
    if status == "pass":
        return "good"
    if status == "no data":
        return "none"
    return "unsure" if isinstance(note, str) and "more answers" in note else "bad"


def check_targets(evaluation: Evaluation, targets: Union[PathLike, "Targets", None], penalty: float = 1.0):
    """The cases of ``evaluation`` against ``targets`` (a targets file, docs/severity.md, or what
    :func:`groundlab.targets.load_targets` read): a :class:`TargetCheck`; without targets (``""``
    or ``None``), a note saying how to add them."""
    from ..core.metrics import weighted_risk_score
    from ..production.targets import read_targets, target_table

    goals = read_targets(targets)
    if goals is None:
        return Sentences([("No targets file is set (the parameter targets, or groundlab run --targets FILE): "
                           "set one for a pass/fail table per process and kind of claim and the weighted risk "
                           "score (docs/severity.md).", [])])
    return TargetCheck(target_table(goals, evaluation.claims, evaluation.cases), goals.source, penalty,
                       risk_weighted_score(evaluation.cases, penalty),
                       weighted_risk_score(evaluation.claims, evaluation.cases, goals.weights, penalty),
                       dict(goals.weights), sum(outcomes(evaluation.cases).values()))


# ---------------------------------------------------------------- the report


@dataclass(repr=False)
class SteeringReport:
    """The one-page report as written: its Markdown ``text`` and the files it went to. Shows
    itself in a notebook as the report (without its figures, which the notebook shows)."""

    text: str
    paths: List[Path]

    def _repr_markdown_(self) -> str:
        body = self.text.split("\n## Figures", 1)[0]
        where = " and ".join(code_span(str(p)) for p in self.paths)
        return f"{body.rstrip()}\n\n*Written to {where}.*\n"

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


def write_steering_report(evaluation: Evaluation, penalty: float, path: PathLike, source: str = "",
                          figures: Optional[Mapping[str, Union[str, "os.PathLike[str]"]]] = None,
                          html: bool = True, targets: Union[PathLike, "Targets", None] = None,
                          comparison: Optional["ConfigurationComparison"] = None,
                          claims_page: Optional[str] = None, *, margin: float = 0.05,
                          label_budget: int = 0, sheet: str = "") -> SteeringReport:
    """Write the one-page steering report to ``path`` (Markdown) and, with ``html``, beside it as
    a page that embeds its figures and prints on its own (``report.html``).

    ``figures`` maps a caption to an exported PNG; each is linked below the Markdown report,
    relative to the report's folder, so the page shows them wherever the folder is moved.
    ``targets``: a targets file (or what :func:`groundlab.targets.load_targets` read) adds the
    pass/fail table, the weighted risk score and the targets of the decision panel; ``""`` or
    ``None`` for none. ``comparison``: a second configuration compared with this one
    (:func:`compare_files`) adds the tile ``B − A``. ``claims_page``: the page the rows of the
    breakdown link to (default: ``01-groundedness.html`` when that HTML copy is beside the report,
    as in a run of the workbook; ``""`` for no links). ``margin`` and ``label_budget`` size the label
    request (:func:`groundlab.summary.label_request`); ``sheet`` names the labeling sheet written
    beside the report, which it points to.
    """
    from urllib.parse import quote

    from ..production.targets import read_targets
    from .report import html_report, markdown_text

    targets = read_targets(targets)
    path = Path(path)
    if claims_page is None:
        claims_page = CLAIMS_PAGE if (path.parent / CLAIMS_PAGE).is_file() else ""
    report = steering_report(evaluation, penalty, source, targets, comparison, claims_page, margin=margin,
                             label_budget=label_budget or None, sheet=sheet)
    text = str(report)
    if figures:
        lines = ["## Figures", ""]
        for caption, image in figures.items():
            rel = os.path.relpath(Path(image).resolve(), path.resolve().parent)
            lines += [f"![{markdown_text(caption)}]({quote(Path(rel).as_posix())})", ""]
        text = text + "\n" + "\n".join(lines)
    written = [write_report(path, text)]
    if html:
        page = html_report(report, figures or {})
        written.append(write_report(path.with_suffix(".html"), page))
    return SteeringReport(text, written)


#: The HTML copy the report's rows link to: notebook 01's, where each case unfolds.
CLAIMS_PAGE = "01-groundedness.html"


def report_figures(interval: PathLike, severity: PathLike, penalty: PathLike,
                   comparison: Optional["ConfigurationComparison"] = None,
                   figures_dir: PathLike = "") -> Dict[str, PathLike]:
    """The figures of the report, by caption: with a ``comparison``, its chart too (drawn and saved
    here into ``figures_dir`` as ``compare``)."""
    shown: Dict[str, PathLike] = {"How the 95% range narrows with more answers": interval,
                                  "Claims the judge did not find supported, by severity": severity,
                                  "What confident errors cost": penalty}
    if comparison is not None:
        from .compare_plots import comparison_chart
        from .plots import save_figure

        a, b = comparison.names
        fig = comparison_chart(comparison.result)
        png, _ = save_figure(fig, figures_dir, "compare")
        import matplotlib.pyplot as plt

        plt.close(fig)
        shown[f"{b} against {a}, question by question"] = png
    return shown


def comparison_for_report(cases: PathLike, cases_b: PathLike, passages: Optional[PathLike] = "",
                          judge: str = DEFAULT_JUDGE, **options: Any) -> Optional["ConfigurationComparison"]:
    """:func:`compare_files` when ``cases_b`` names a second configuration, else ``None``: what
    notebook 03 gives the report, so that it carries the tile ``B − A``."""
    if not str(cases_b or "").strip():
        return None
    return compare_files(cases, cases_b, passages, judge, **options)


def case_cards(judged: "JudgeComparison", judge: str, splitter: Optional[ClaimSplitter] = None):
    """Every case of ``judged`` as a card that unfolds (:func:`groundlab.cards.case_cards`): the
    question, the answer with each claim coloured by ``judge``'s verdict, the claims with the
    judge's reasons, the passages with the deciding sentence highlighted."""
    from .cards import case_cards as cards

    ev = judged.get(judge)
    loaded = load_cases(judged.cases_path, judged.passages_path or None)
    return cards(loaded, ev.claims, ev.cases, splitter)


# ---------------------------------------------------------------- the judge, pinned


@dataclass(repr=False)
class JudgeLine:
    """Which judge gave the figures, one line per judge (:func:`groundlab.identity.identity_line`),
    for the top of a notebook: what the judge's name, version, model, prompt or weights, the
    settings and the claim splitting were. Outside text (a model name, a phrase) is escaped."""

    identities: Dict[str, Optional[Dict[str, Any]]]

    def _repr_markdown_(self) -> str:
        from ..core.identity import identity_line

        if len(self.identities) == 1:
            return f"These figures come from {identity_line(next(iter(self.identities.values())))}."
        return "These figures come from:\n\n" + "\n".join(f"- {identity_line(ident)}"
                                                         for ident in self.identities.values())

    def __repr__(self) -> str:
        from ..core.identity import identity_text

        return "\n".join(identity_text(ident) for ident in self.identities.values())


def judge_line(judged: Any) -> JudgeLine:
    """The identity of the judge behind ``judged`` as a line to show: ``judged`` is an
    :class:`~groundlab.evaluate.Evaluation`, the :class:`JudgeComparison` of
    :func:`judged_cases` (one line per judge), a :class:`ConfigurationComparison`, a
    :class:`~groundlab.compare.Comparison`, or an identity dict.

    >>> from groundlab import sample_path
    >>> ev = evaluate_files(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"), "lexical")
    >>> judge_line(ev)._repr_markdown_()[:52]
    'These figures come from judge lexical 1 · threshold '
    """
    if isinstance(judged, JudgeComparison):
        return JudgeLine({name: ev.claims.attrs.get("judge") for name, ev in judged.evaluations.items()})
    if isinstance(judged, Evaluation):
        return JudgeLine({judged.judge: judged.claims.attrs.get("judge")})
    if isinstance(judged, ConfigurationComparison):
        judged = judged.result
    identity = getattr(judged, "judge_identity", judged)
    if identity is not None and not isinstance(identity, Mapping):
        raise GroundlabError(f"judge_line takes a judged result or an identity, not {type(judged).__name__}.")
    return JudgeLine({str((identity or {}).get("name", "judge")): dict(identity) if identity else None})


# ---------------------------------------------------------------- two configurations compared


@dataclass(repr=False)
class ConfigurationComparison:
    """Two configurations' cases judged alike and compared (:func:`compare_files`): the
    :class:`~groundlab.compare.Comparison` (``result``), both evaluations, and where the verdicts
    come from (``origin``). Shows itself in a notebook as what was compared, by which judge."""

    result: Any
    evaluations: tuple[Evaluation, Evaluation]
    origin: str = ""
    #: What the two files are, when groundlab knows them (its sample set and second configuration);
    #: empty for any other files, of which it says only what it read.
    about: str = ""

    @property
    def names(self) -> tuple[str, str]:
        return self.result.names

    def _repr_markdown_(self) -> str:
        from ..core.identity import identity_line
        from .report import markdown_text

        r = self.result
        sides = [f"**{markdown_text(name)}** {code_span(source)} ({count} cases)"
                 for name, source, count in zip(r.names, r.sources, r.cases)]
        judge = self.evaluations[0].judge
        lines = [f"{sides[0]} against {sides[1]}: {len(r.pairing.pairs)} questions paired by {r.pairing.by}, "
                 f"both judged by {code_span(judge)}." + (f" {markdown_text(self.origin)}" if self.origin else ""),
                 "", f"These figures come from {identity_line(r.judge_identity)}.", ""]
        if self.about:
            lines[1:1] = ["", markdown_text(self.about)]
        one_sided = r.one_sided()
        lines += [f"- {markdown_text(s)}" for s in one_sided] or ["Every case has its pair on the other side."]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self._repr_markdown_().replace("`", "").replace("*", "")


def compare_files(cases: PathLike, cases_b: PathLike, passages: Optional[PathLike] = "", judge: str = DEFAULT_JUDGE, *,
                  passages_b: Optional[PathLike] = "", pair_by: str = "id", names: Sequence[str] = ("A", "B"),
                  judged_file: PathLike = "", judged_file_b: PathLike = "", citation_pattern: Optional[str] = "",
                  abstention_phrases: Sequence[str] = (),
                  judge_config: Optional[PathLike] = None, default_citations: bool = True,
                  policy: Optional[PathLike] = "", mask: bool = False,
                  mask_names: Sequence[str] = ()) -> ConfigurationComparison:
    """Compare two configurations' answers to the same questions (:func:`groundlab.compare.compare`),
    both judged by ``judge``: from the run's shared results when ``judged_file`` (A's) and
    ``judged_file_b`` (B's) are given, else judged here. ``passages_b``: B's passages when they are
    another file than A's (empty: ``passages``). ``judge_config``: the signals judge's weights from
    ``groundlab calibrate``, for both sides alike (as in :func:`judged_cases`).

    Both files are read and paired before anything is judged, so a file that cannot be compared
    stops with one sentence.
    """
    from ..core.compare import compare, pair_cases

    if not str(cases_b or "").strip():
        raise GroundlabError("cases_b is empty: there is no second configuration to compare with; give its "
                             "cases file (groundlab run --cases-b FILE).")
    names = check_names(names)
    passages = passages or None
    passages_b = passages_b or passages
    a_cases = load_cases(cases, passages)
    b_cases = load_cases(cases_b, passages_b)
    pair_cases(a_cases, b_cases, pair_by, names)
    if policy is not None and str(policy).strip():  # both sides placed before either is judged
        from ..core.policy import load_policy

        loaded = load_policy(policy)
        loaded.check_cases(a_cases)
        loaded.check_cases(b_cases)
    settings = {"citation_pattern": citation_pattern, "abstention_phrases": abstention_phrases,
                "judge_config": judge_config, "default_citations": default_citations, "policy": policy,
                "mask": mask, "mask_names": mask_names}
    ev_a = judged_cases(cases, passages, [judge], judged_file=judged_file, loaded=a_cases, **settings).get(judge)
    ev_b = judged_cases(cases_b, passages_b, [judge], judged_file=judged_file_b, loaded=b_cases, **settings).get(judge)
    result = compare(a_cases, b_cases, pair_by=pair_by, names=names, evaluations=(ev_a, ev_b),
                     sources=(str(cases), str(cases_b)))
    shared = str(judged_file).strip() and str(judged_file_b).strip()
    origin = "Verdicts from the run's shared results, each file judged once." if shared else ""
    return ConfigurationComparison(result, (ev_a, ev_b), origin, _about(cases, cases_b))


#: What the sample set and its second configuration are, said only when they are what was compared.
SAMPLE_PAIR = ("These are groundlab's sample set (A) and its second configuration (B): the same twelve questions "
               "answered by a revised assistant that declines more often, fixes some answers and breaks others.")


def _about(cases: PathLike, cases_b: PathLike) -> str:
    """:data:`SAMPLE_PAIR` when the two files hold the sample set and its second configuration
    (by content, wherever they lie), else nothing: of other files only what was read is said."""
    from ..core.io import sample_path

    try:
        for given, name in ((cases, "grounded_cases.jsonl"), (cases_b, "grounded_cases_b.jsonl")):
            sample = sample_path(name)
            # the size first: a large log is never read a second time to learn it is not the sample
            if os.path.getsize(given) != os.path.getsize(sample) or sha256_file(given) != sha256_file(sample):
                return ""
    except (OSError, TypeError, ValueError):  # a pipe, a frame: not the sample files
        return ""
    return SAMPLE_PAIR


def check_names(names: Sequence[str], label: str = "names") -> tuple[str, str]:
    """The two configurations' names, or one sentence saying why they cannot be."""
    if isinstance(names, str):
        names = [part.strip() for part in names.split(",")]
    names = [str(n).strip() for n in names]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise GroundlabError(f"{label} must be two different names, like A,B or \"old prompt\",\"new prompt\", "
                             f"not {names!r}.")
    return names[0], names[1]


def comparison_table(compared: ConfigurationComparison) -> pd.DataFrame:
    """Every figure of the comparison, one row per measure: each side's rate with its count and
    Wilson 95% range, the difference in points with its paired 95% range, the test, the verdict,
    the pairs it rests on and what was left out."""
    from ..core.paired import LABELS, NEWCOMBE, left_out_words, p_text, points

    a, b = compared.names
    rows = []
    for name, m in compared.result.measures.items():
        if m.table is not None:
            pairs = f"{m.units}: {a} alone {m.table['a_only']}, {b} alone {m.table['b_only']}"
        else:
            pairs = f"{m.details['claims']['a']} and {m.details['claims']['b']} claims in {m.units} questions"
        defined = m.defined
        rows.append({
            "measure": LABELS[name], a: m.a.with_range(), b: m.b.with_range(),
            f"{b} \u2212 {a} (points)": points(m.difference) if defined else "n/a",
            "95% range": f"{points(m.low)} to {points(m.high)}" if defined else "n/a",
            "test": (f"{'McNemar exact' if m.method == NEWCOMBE else 'clustered t'}, {p_text(m.p_value)}"
                     if defined else "none"),
            "verdict": m.verdict, "pairs": pairs, "left out": left_out_words(m.left_out) or "none"})
    return pd.DataFrame(rows)


def comparison_sentences(compared: ConfigurationComparison) -> Sentences:
    """The comparison in plain words: each measure's sentence with what it left out, then the
    cases found on one side only, and how to read the ranges."""
    r = compared.result
    return Sentences(r.explained() + [(s, []) for s in r.one_sided()], r.reading())


#: How good an outcome is, to say whether a question went better or worse.
_OUTCOME_RANK = {"wrong": 0, "abstained": 1, "correct": 2}


def changed_questions(compared: ConfigurationComparison) -> pd.DataFrame:
    """The paired questions on which the two sides differ (another outcome, or another count of
    claims the judge could not back), question by question: each side's outcome and flagged
    claims, and whether the second side did better or worse."""
    a, b = compared.names
    frames = [ev.cases.set_index("case_id") for ev in compared.evaluations]
    rows = []
    for ia, ib in compared.result.pairing.pairs:
        ra, rb = frames[0].loc[ia], frames[1].loc[ib]
        flagged = [int(r["contradicted"] + r["unsupported"]) for r in (ra, rb)]
        if ra["outcome"] == rb["outcome"] and flagged[0] == flagged[1]:
            continue
        move = _OUTCOME_RANK.get(rb["outcome"], 1) - _OUTCOME_RANK.get(ra["outcome"], 1)
        rows.append({"case": ia if ia == ib else f"{ia} / {ib}", "question": ra["question"],
                     a: ra["outcome"], b: rb["outcome"],
                     f"{a}: claims not backed": f"{flagged[0]} of {int(ra['claims'])}",
                     f"{b}: claims not backed": f"{flagged[1]} of {int(rb['claims'])}",
                     f"for {b}": "better" if move > 0 else "worse" if move < 0 else "same outcome"})
    columns = ["case", "question", a, b, f"{a}: claims not backed", f"{b}: claims not backed", f"for {b}"]
    return pd.DataFrame(rows, columns=columns)


def one_sided_table(compared: ConfigurationComparison) -> pd.DataFrame:
    """The cases found on one side only, left out of every measure: ``side``, ``case_id``, ``question``."""
    rows = []
    for name, ids, ev in zip(compared.names, (compared.result.pairing.only_a, compared.result.pairing.only_b),
                             compared.evaluations):
        questions = ev.cases.set_index("case_id")["question"]
        rows += [{"side": name, "case_id": cid, "question": questions.get(cid, "")} for cid in ids]
    return pd.DataFrame(rows, columns=["side", "case_id", "question"])


def comparison_outcomes(compared: ConfigurationComparison, penalty: float = 1.0) -> pd.DataFrame:
    """Each side's outcomes over the paired questions, as the judge sees them, and its risk-weighted
    score at ``penalty`` (a wrong answer costs ``penalty`` correct ones; declining scores 0)."""
    rows = []
    pairs = compared.result.pairing.pairs
    for k, (name, ev) in enumerate(zip(compared.names, compared.evaluations)):
        ids = [pair[k] for pair in pairs]
        counts = outcomes(ev.cases[ev.cases["case_id"].isin(ids)])
        score = float(counts["correct"] - penalty * counts["wrong"])
        rows.append({"configuration": name, "questions": len(ids), "right": counts["correct"],
                     "declined": counts["abstained"], "wrong": counts["wrong"],
                     f"score per 100 answers at penalty {fmt.weight(penalty)}":
                         round(fmt.score_per_100(score, len(ids))) if ids else math.nan})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- exploring the claims


def claims_to_explore(comparison: "JudgeComparison") -> pd.DataFrame:
    """Every judge's claims in one frame for exploring: judge, case, process, claim, kind, the
    judge's verdict, the person's label, the claim, the judge's reason and the evidence sentence
    that decided it, every figure written for reading."""
    frames = []
    for name, ev in comparison.evaluations.items():
        claims = ev.claims
        process = ev.cases.set_index("case_id")["process"]
        frames.append(pd.DataFrame({
            "judge": name, "case": claims["case_id"],
            "process": claims["case_id"].map(process).fillna("(no process)"),
            "claim": claims["claim"], "kind": claims["kind"], "verdict": claims["verdict"].fillna("undecided"),
            "person": claims["label"].fillna("\u2014"), "text": claims["text"], "reason": claims["reason"],
            "evidence": (claims["evidence"] if "evidence" in claims else pd.Series("", index=claims.index))
            .map(lambda x: x if isinstance(x, str) else "")}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


#: The filters of :func:`claim_explorer`, each a column of :func:`claims_to_explore`.
EXPLORER_FILTERS = ("verdict", "kind", "process", "judge")


@dataclass(repr=False)
class ClaimExplorer:
    """The claims to explore (:func:`claim_explorer`). In JupyterLab with ipywidgets: a menu for
    each of verdict, kind, process and judge above the table they filter. Where widgets cannot
    show (no ipywidgets, an HTML copy, a viewer without a kernel), the same claims as one table
    to sort, search and filter by column (its static fallback)."""

    frame: pd.DataFrame

    def filtered(self, **chosen: str) -> pd.DataFrame:
        """The claims whose columns have the chosen values (``verdict="contradicted"``); ``"all"``
        or ``None`` keeps every value."""
        unknown = [k for k in chosen if k not in EXPLORER_FILTERS]
        if unknown:
            raise GroundlabError(f"the claims can be filtered by {', '.join(EXPLORER_FILTERS)}, not {unknown[0]!r}.")
        keep = pd.Series(True, index=self.frame.index)
        for name, value in chosen.items():
            if value not in (None, "all"):
                keep &= self.frame[name] == value
        return self.frame[keep]

    def fallback_html(self) -> str:
        note = ("<p>Filter the claims by typing a verdict, kind, process or judge (or any word) in the search box "
                "above the table, sort them by any heading. (In JupyterLab with ipywidgets, a menu for each of "
                "verdict, kind, process and judge filters them.)</p>")
        return note + table(self.frame, empty="No claim to explore: no case has a claim")._repr_html_()

    def widget(self):
        """The menus and the table they filter, as ipywidgets (``None`` without ipywidgets)."""
        try:
            import ipywidgets as widgets
        except ImportError:
            return None
        menus = {name: widgets.Dropdown(options=["all"] + sorted(map(str, self.frame[name].unique())), value="all",
                                        description=name) for name in EXPLORER_FILTERS}
        # the table as escaped static HTML in an HTML widget: no output captured from inside a
        # display (an Output widget there can leave a headless kernel waiting), no script to run
        shown = widgets.HTML()
        count = widgets.HTML()

        def update(*_):
            rows = self.filtered(**{name: menu.value for name, menu in menus.items()})
            count.value = f"<b>{_escape(fmt.count(len(rows), 'claim'))}</b> of {len(self.frame)}"
            shown.value = (_styler(_readable(rows)).to_html() if len(rows) else
                           "<p>No claim has all the values chosen: choose another.</p>")

        for menu in menus.values():
            menu.observe(update, names="value")
        update()
        return widgets.VBox([widgets.HBox(list(menus.values())), count, shown])

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = {"text/html": self.fallback_html(), "text/plain": repr(self)}
        box = self.widget()
        if box is not None:
            bundle = box._repr_mimebundle_()
            data.update({k: v for k, v in bundle.items() if k != "text/plain"})
        return data

    def __repr__(self) -> str:
        return f"{fmt.count(len(self.frame), 'claim')} to explore, by {fmt.joined(EXPLORER_FILTERS, 'or')}"


def claim_explorer(comparison: "JudgeComparison") -> ClaimExplorer:
    """The claims of every judge in ``comparison`` to explore, filtered by verdict, kind, process
    and judge (:class:`ClaimExplorer`).

    >>> from groundlab import sample_path
    >>> explorer = claim_explorer(judged_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"),
    ...                                        ["signals", "rules"]))
    >>> len(explorer.filtered(verdict="contradicted", judge="signals")), len(explorer.filtered(kind="date"))
    (3, 4)
    """
    return ClaimExplorer(claims_to_explore(comparison))
