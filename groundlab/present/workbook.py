"""What the notebooks call: tidy frames for the tables and charts of one run, the figures and
targets it is measured by, and the steering report with its figures. Every name a notebook calls
is here (``from groundlab import workbook``), those of the rooms beside it too: judges side by
side (:mod:`.judge_comparison`), one judged result per run (:mod:`.judged`), the judge's threshold
(:mod:`.roc`), the runtime guard (:mod:`.guard_examples`), two configurations compared
(:mod:`.configurations`) and the claim explorer (:mod:`.explorer`).

The notebooks are views of the pipeline (``io`` → ``evaluate`` → ``metrics``/``stats``); every
step that shapes data for a table or a chart lives in ``present/``, so a notebook cell is one call.

>>> from groundlab import sample_path
>>> ev = evaluate_files(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"), "lexical")
>>> curve = penalty_curve(ev.cases, max_penalty=3)
>>> curve[curve.penalty == 3].set_index("policy")["score"].to_dict()  # by the person's labels
{'as it is': -10.0, 'withholding the answers the judge flags': 1.0}
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Union

import pandas as pd

from ..core.claims import ClaimSplitter, claim_splitter  # noqa: F401 (claim_splitter: the notebooks name it here)
from ..measure.evaluate import Evaluation, evaluate, split_cases
from ..core.io import PathLike, load_cases, sha256_file  # noqa: F401
from ..measure.policy import make_judge  # noqa: F401
from ..judges import DEFAULT_JUDGE, nothing_judged  # noqa: F401
from ..core.metrics import (  # noqa: F401
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
from ..measure.summary import rates, rates_frame
from .tables import _INTERACTIVE, Sentences, Table, _escape, _readable, _styler, interactive_tables, table  # noqa: F401
from ..core.stats import Rate, UndefinedRateWarning, answers_needed, interval_bounds, interval_half_width, percent  # noqa: F401
# the rooms beside the workbook, every name of theirs a notebook calls named here too
from .configurations import (SAMPLE_PAIR, ConfigurationComparison, changed_questions, check_names,  # noqa: F401
                             compare_files, comparison_outcomes, comparison_sentences, comparison_table,
                             one_sided_table)
from .explorer import EXPLORER_FILTERS, ClaimExplorer, claim_explorer, claims_to_explore  # noqa: F401
from .guard_examples import guard_examples, guard_outcome_table  # noqa: F401
from .judge_comparison import (JudgeComparison, agreement_frame, check_judge_config, compare_judges,  # noqa: F401
                               confusion_frame, confusion_frames, disagreement_table, guarded_judge,
                               judge_config_options, judge_table, verdict_differences)
from .judged import judged_cases, judged_inputs, load_judged, save_judged  # noqa: F401
from .roc import judge_threshold, reliability_frame, roc_frame, threshold_moves  # noqa: F401

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
    from ..measure.summary import score_summary

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


def check_cases(cases: PathLike, passages: Optional[PathLike], splitter: Optional[ClaimSplitter] = None) -> List[Case]:
    """Read and check a cases file as ``groundlab check`` does (every field, every passage id, one
    label per claim), raising the one-sentence error of the first problem."""
    loaded = load_cases(cases, passages or None)
    split_cases(loaded, splitter)
    return loaded


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
            from ..measure.summary import label_curve

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
        from ..measure.summary import label_curve

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
        return [f"Targets from {self.source}, each met when the whole 95% range is on the right side of its limit: "
                f"{fmt.state_label(state)} {self.met} of {len(self.table)} met.",
                f"Weighted risk score {fmt.per_100(self.weighted, self.answers)} beside the plain "
                f"{fmt.per_100(self.plain, self.answers)} at penalty {fmt.weight(self.penalty)}: a wrong answer weighs "
                "as much as the heaviest kind of fact it got wrong ("
                + (f"{named}, others 1" if named else "every kind 1: the file gives no weights") + ")."]

    def _repr_html_(self) -> str:
        text = "".join(f"<p>{_escape(line)}</p>" for line in self.sentences())
        if self.table.empty:
            return text
        from ..production.targets import limit_text

        shown = self.table[["target", "count", "total", "rate", "low", "high", "status", "note"]]
        shown = shown.assign(status=[f"{fmt.state_label(state)} {st}"
                                     for st, state in zip(self.table["status"], self.table["state"])])
        shown.insert(1, "limit", [limit_text(row) for row in self.table.to_dict("records")])
        return text + table(shown, percents=("rate", "low", "high"))._repr_html_()

    def __repr__(self) -> str:
        return "\n".join(self.sentences())


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
