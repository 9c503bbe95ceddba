"""What the notebooks call: tidy frames for their tables and charts, judges side by side, and
the steering report with its figures.

The notebooks are views of the pipeline (``io`` → ``evaluate`` → ``metrics``/``stats``); every
step that shapes data for a table or a chart lives here, so a notebook cell is one call.

>>> from groundlab import sample_path
>>> ev = evaluate_files(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"), "lexical")
>>> curve = penalty_curve(ev.cases, max_penalty=3)
>>> curve[curve.penalty == 3].set_index("policy")["score"].to_dict()
{'as it is': -10.0, 'abstains when the judge flags': 5.0}
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pandas as pd

from .evaluate import Evaluation, evaluate
from .io import PathLike, load_cases
from .judges import get_judge
from .metrics import (
    agreement,
    citation_problems,
    disagreements,
    hallucination_rate,
    outcomes,
    risk_weighted_score,
    verdict_counts,
)
from .records import VERDICTS, Case, GroundlabError
from .report import steering_report, write_report
from .summary import rates
from .stats import Rate, UndefinedRateWarning, answers_needed, interval_bounds, interval_half_width, percent

#: The two policies of the penalty curve.
AS_IT_IS = "as it is"
WITHHOLDS = "abstains when the judge flags"

_RATE_COLUMNS = ["measure", "count", "total", "rate", "low", "high"]


def evaluate_files(cases: PathLike, passages: Optional[PathLike] = None, judge: str = "rules") -> Evaluation:
    """Load a cases file (and the passages its ids refer to) and judge every claim."""
    return evaluate(load_cases(cases, passages), judge)


# ---------------------------------------------------------------- rates


def rates_frame(rates: Mapping[str, Rate], **columns: object) -> pd.DataFrame:
    """One row per rate: ``measure``, ``count``, ``total``, ``rate``, ``low``, ``high`` (NaN when undefined).

    Extra keyword arguments become constant columns (``judge="rules"``).

    >>> rates_frame({"caught": Rate(5, 6)}).round(2).to_dict("records")
    [{'measure': 'caught', 'count': 5, 'total': 6, 'rate': 0.83, 'low': 0.44, 'high': 0.97}]
    """
    rows = [{"measure": name, "count": r.count, "total": r.total, "rate": r.rate,
             "low": r.interval[0], "high": r.interval[1]} for name, r in rates.items()]
    frame = pd.DataFrame(rows, columns=_RATE_COLUMNS)
    for name, value in columns.items():
        frame[name] = value
    return frame


def styled_rates(frame: pd.DataFrame):
    """A rates frame for reading: percentages, ``n/a`` for a rate over nothing."""
    return frame.style.format({c: percent for c in ("rate", "low", "high")}).hide(axis="index")


def rate_table(evaluation: Evaluation, *names: str):
    """The named rates of a run (all of them when none is named), ready to read.

    Names are those of :func:`groundlab.summary.rates`: ``hallucination rate``, ``faithfulness``,
    ``citation recall``, ``abstention``, ...
    """
    every = rates(evaluation)
    unknown = [n for n in names if n not in every]
    if unknown:
        raise GroundlabError(f"there is no rate called {unknown[0]!r}; use one of: {', '.join(every)}.")
    return styled_rates(rates_frame({n: every[n] for n in (names or every)}))



# ---------------------------------------------------------------- claims and cases


_ROW_COLOURS = {"contradicted": "background-color: #f6d5c0", "unsupported": "background-color: #fbe7b5"}


def verdict_table(claims: pd.DataFrame) -> pd.DataFrame:
    """One row per claim with the judge's verdict, its reason and the person's label."""
    table = claims[["case_id", "claim", "text", "cites", "verdict", "reason", "label"]].copy()
    table["cites"] = table["cites"].map(lambda ids: ", ".join(ids))
    return table.rename(columns={"label": "person"})


def style_verdicts(claims: pd.DataFrame):
    """:func:`verdict_table` with contradicted rows in vermillion and unsupported ones in orange."""
    table = verdict_table(claims)
    colours = table["verdict"].map(_ROW_COLOURS).fillna("")

    return (table.style
            .apply(lambda row: [colours[row.name]] * len(row), axis=1)
            .map(lambda v: "font-weight: bold" if v in _ROW_COLOURS else "", subset=["verdict"])
            .set_properties(subset=["text", "reason"], **{"text-align": "left"})
            .hide(axis="index"))


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
    """Several judges over the same cases; judges that could not be loaded are named in ``unavailable``."""

    evaluations: Dict[str, Evaluation] = field(default_factory=dict)
    unavailable: Dict[str, str] = field(default_factory=dict)

    @property
    def judges(self) -> List[str]:
        return list(self.evaluations)

    def get(self, name: str) -> Evaluation:
        """One judge's evaluation; a judge that was unavailable is named with the reason."""
        if name in self.evaluations:
            return self.evaluations[name]
        why = self.unavailable.get(name, "it was not in the list of judges to compare")
        raise GroundlabError(f"judge {name!r} has no results here ({why}).")

    def notes(self) -> List[str]:
        """One plain sentence per judge that is not compared, and why."""
        return [f"Judge {name!r} is unavailable here ({why}); the notebook carries on without it."
                for name, why in self.unavailable.items()]

    def _repr_markdown_(self) -> str:
        lines = [f"Judges compared: {', '.join(f'`{j}`' for j in self.judges) or 'none'}."]
        lines += [f"- {note}" for note in self.notes()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self._repr_markdown_().replace("`", "")


def compare_judges(cases: Sequence[Case], judges: Iterable[str]) -> JudgeComparison:
    """Judge ``cases`` with each judge in ``judges``.

    A judge that cannot be loaded (not registered, or its optional package missing) is skipped
    and named in :attr:`JudgeComparison.unavailable` with the reason, so one missing model judge
    does not stop a comparison of the others.
    """
    result = JudgeComparison()
    for name in judges:
        if name in result.evaluations or name in result.unavailable:
            continue
        try:
            judge = get_judge(name)
        except ImportError as exc:
            result.unavailable[name] = f"a package it needs is not installed: {exc}"
            continue
        except GroundlabError as exc:
            result.unavailable[name] = str(exc).rstrip(".")
            continue
        result.evaluations[name] = evaluate(cases, judge)
    if not result.evaluations:
        raise GroundlabError("none of the judges " + ", ".join(map(repr, judges)) + " is available; "
                             "list at least one of rules, lexical.")
    return result


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
    """One row per judge: agreement with the person, caught, false alarms, Cohen's kappa, and the
    headline figures the judge gives (hallucination rate, risk-weighted score at ``penalty``).

    Each rate reads as its count, percentage and Wilson 95% range: ``5/6 = 83% (44%–97%)``.
    """
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        for name, ev in comparison.evaluations.items():
            a = agreement(ev.claims, ev.cases)
            h = hallucination_rate(ev.cases)
            rows.append({"judge": name, "agreement": a.agreement.with_range(), "caught": a.caught.with_range(),
                         "false alarms": a.false_alarms.with_range(), "kappa": round(a.kappa, 2),
                         "hallucination rate": h.with_range(),
                         f"risk-weighted (penalty {penalty:g})": risk_weighted_score(ev.cases, penalty)})
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


# ---------------------------------------------------------------- planning charts


def interval_width_frame(rate: Rate, n_min: int = 10, n_max: int = 2000, margin: float = 0.05,
                         points: int = 200) -> pd.DataFrame:
    """How the Wilson 95% range around the observed rate narrows with the number of answers.

    Columns: ``n``, ``rate``, ``low``, ``high``, ``half_width``. The range of ``n`` is widened to
    take in today's number of answers and the number a ``±margin`` range needs. A rate over
    nothing is planned at 50%, the widest case.
    """
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


def plan_answers(rate: Rate, margin: float = 0.05) -> Dict[str, float]:
    """Today's answers and range, and how many answers a ``±margin`` range needs at the observed rate."""
    p = rate.rate if rate.defined else 0.5
    return {"rate": p, "answers": rate.total,
            "half_width": interval_half_width(p, rate.total) if rate.total else math.nan,
            "margin": margin, "answers_needed": answers_needed(p, margin)}


def plan_table(plan: Mapping[str, float]) -> pd.DataFrame:
    """:func:`plan_answers` for reading: today's test set and the one a ``±margin`` range needs,
    each with its number of answers and the 95% range the observed rate would have.

    A rate over nothing is planned at 50%, the widest case.

    >>> plan_table(plan_answers(Rate(6, 10), 0.05))[["answers", "95% range"]].to_dict("index")
    {'today': {'answers': 10, '95% range': '31%–83%'}, 'for ±5 points': {'answers': 366, '95% range': '55%–65%'}}
    """
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


def penalty_curve(cases: pd.DataFrame, max_penalty: float = 9.0, step: float = 0.25) -> pd.DataFrame:
    """The risk-weighted score against the penalty, for the assistant as it is and had it
    abstained on every answer the judge flags.

    Columns: ``penalty``, ``target`` (the confidence target t with penalty t/(1−t)), ``policy``,
    ``score``, ``correct``, ``wrong``.
    """
    if max_penalty <= 0 or step <= 0:
        raise GroundlabError("the penalty curve needs a positive largest penalty and step.")
    steps = int(round(max_penalty / step))
    penalties = [round(k * step, 10) for k in range(steps + 1)]
    if penalties[-1] < max_penalty:
        penalties.append(max_penalty)
    rows = []
    for policy, withhold in ((AS_IT_IS, False), (WITHHOLDS, True)):
        counts = outcomes(cases, withhold_flagged=withhold)
        for p in penalties:
            rows.append({"penalty": p, "target": p / (1 + p), "policy": policy,
                         "score": risk_weighted_score(cases, p, withhold_flagged=withhold),
                         "correct": counts["correct"], "wrong": counts["wrong"]})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- the report


def write_steering_report(evaluation: Evaluation, penalty: float, path: PathLike, source: str = "",
                          figures: Optional[Mapping[str, Union[str, "os.PathLike[str]"]]] = None) -> str:
    """Write the one-page steering report to ``path`` and return its text.

    ``figures`` maps a caption to an exported image; each is linked below the report, relative to
    the report's folder, so the page shows them wherever the folder is moved.
    """
    path = Path(path)
    text = steering_report(evaluation, penalty, source)
    if figures:
        lines = ["## Figures", ""]
        for caption, image in figures.items():
            rel = os.path.relpath(Path(image).resolve(), path.resolve().parent)
            lines += [f"![{caption}]({Path(rel).as_posix()})", ""]
        text = text + "\n" + "\n".join(lines)
    write_report(path, text)
    return text
