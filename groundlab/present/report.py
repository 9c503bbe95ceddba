"""The one-page report for a steering committee, in Markdown, and as a page that prints.

It opens with the decision panel: a tile per headline (hallucination rate, false abstention,
citation accuracy), each with its figure, a bar for its 95% range, the target line where a
targets file gives one and a state in words and colour (meets the target, misses it, or not
enough answers yet), a tile saying how far the judge can be trusted, and with a second
configuration the difference B − A. What the figures rest on follows, then a glossary in plain
words; the judge, its settings and the inputs close the page. Every figure reads as
:mod:`groundlab.formatting` writes it. The panel's tiles are made in :mod:`.panel` (named here
too, as they always were); the page around them is made here.

Text that comes from outside (file names, case ids) is escaped for Markdown and HTML alike: a
file name can hold ``<script>``, a backtick, a ``|`` or a link, and must show as written.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Sequence, Union

from ..core import formatting as fmt
from ..core.formatting import code_span, markdown_text  # noqa: F401 (their old home)
from .cards import case_anchor
from ..measure.evaluate import Evaluation
from ..core.identity import identity_line
from ..core.io import PathLike, check_output, write_atomic
from ..core.records import GroundlabError
from ..core.metrics import citations_undecided, has_person_labels, outcomes, risk_weighted_score
from ..core.stats import Rate, percent
from ..measure.summary import agree_summary, rates, score_summary
from .panel import (MARGIN, Tile, bar_text, comparison_tile, decision_line, decision_tiles,  # noqa: F401
                    panel_markdown)

if TYPE_CHECKING:  # pragma: no cover
    from ..production.targets import Targets

#: First line of every report groundlab writes; a file that starts otherwise is not replaced
#: without ``--force``, since it may be a person's own document.
MARKER = "<!-- groundlab report -->"




def rate_line(rate: Rate, noun: str) -> str:
    """``60% (6 of 10 answered cases; 95% range 31%–83%)``, or why the rate is not available."""
    if not rate.total:
        return f"n/a (no {noun})"
    low, high = rate.interval
    return f"{percent(rate.rate)} ({rate.count} of {rate.total} {noun}; 95% range {percent(low)}\u2013{percent(high)})"


# ---------------------------------------------------------------- the report


class ReportText(str):
    """The Markdown of a report, which also carries what it was made of (``parts``), so that
    :func:`html_report` lays the same report out as a page."""

    parts: "ReportParts"


@dataclass
class ReportParts:
    """What a report shows: the title line, the panel's tiles, the detail lines (Markdown), the
    glossary, the footer lines (provenance, Markdown) and its source."""

    subtitle: str
    tiles: List[Tile]
    details: List[str]
    glossary: List[tuple]
    footer: List[str]
    tables: List[List[str]] = None  # the breakdown and the targets, each its own block (Markdown)
    apart: List[str] = None

    @property
    def markdown_details(self) -> List[str]:
        """The details as the Markdown report shows them: the lines, each table, what is counted apart."""
        out = list(self.details)
        for block in self.tables or []:
            out += block
        return out + (list(self.apart) + [""] if self.apart else [])


#: Terms a committee may not know, in plain words.
GLOSSARY = (
    ("hallucination rate", "the share of answers with a claim no passage backs, as people find it (their labels, "
                           "or the judge's flags corrected by them)."),
    ("flagged by the judge", "answers the judge finds a claim in that no passage backs: its false alarms count, its "
                             "misses do not."),
    ("95% range", "where the true rate lies, 19 times in 20 (a Wilson interval): fewer answers, a wider range."),
    ("false abstention", "the assistant declined a question its passages could answer."),
    ("citation accuracy", "of the passages an answer cites, the share that back the claim they are cited for."),
    ("caught, false alarms", "of the claims people found not backed, the share the judge flagged; of those they "
                             "found backed, the share it flagged."),
    ("penalty, risk-weighted score", "a wrong answer costs as many right ones as the penalty; declining scores 0."),
    ("could be noise", "within what chance alone gives on so few questions."),
    ("same verdict, kappa", "judge and person chose the same of the three verdicts; kappa: that agreement beyond "
                            "chance (0 chance, 1 perfect)."),
)


def steering_report(evaluation: Evaluation, penalty: float = 1.0, source: str = "",
                    targets: Optional["Targets"] = None, comparison: Any = None,
                    claims_page: str = "", *, margin: float = MARGIN, label_budget: Optional[int] = None,
                    sheet: str = "") -> ReportText:
    """The one-page steering report as Markdown text: the decision (:func:`decision_line`) and the
    decision panel (:func:`decision_tiles`), then what the figures rest on, where the judge flags
    problems (by kind of claim and by process, each row linked to its claims in ``claims_page``,
    the HTML copy of notebook 01, when given), with ``targets``
    (:func:`groundlab.targets.load_targets`) the pass/fail table and the weighted risk score, a
    glossary, and the judge and inputs behind the figures at the foot. ``sheet`` names the
    labeling sheet written beside the report, which the label request points to."""
    parts = report_parts(evaluation, penalty, source, targets, comparison, claims_page, margin=margin,
                         label_budget=label_budget, sheet=sheet)
    lines = [MARKER, "# Groundedness report", "", parts.subtitle, "", "## Decision panel", ""]
    lines += panel_markdown(parts.tiles)
    lines += ["", "## What the figures rest on", ""] + parts.markdown_details
    lines += ["## In plain words", ""]
    lines += [f"- **{term}:** {markdown_text(words)}" for term, words in parts.glossary]
    lines += ["", "---", ""] + parts.footer + [""]
    text = ReportText("\n".join(lines))
    text.parts = parts
    return text


def report_parts(evaluation: Evaluation, penalty: float = 1.0, source: str = "",
                 targets: Optional["Targets"] = None, comparison: Any = None, claims_page: str = "", *,
                 margin: float = MARGIN, label_budget: Optional[int] = None, sheet: str = "") -> ReportParts:
    """Everything a report shows, once, for both its Markdown and its page; every figure from one
    summary (:func:`groundlab.summary.score_summary`)."""
    from .headline import agreement_words, risk_words

    s = score_summary(evaluation, penalty, margin=margin, label_budget=label_budget)
    undecided = citations_undecided(evaluation.claims)
    r = rates(evaluation)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    flagged = s["contradicted"] + s["unsupported"]
    table = None
    if targets is not None:  # one table of targets: the panel, the decision and the pass/fail rows read it
        from ..production.targets import target_table

        table = target_table(targets, evaluation.claims, evaluation.cases, s)
    tiles = [_linked(t, claims_page) for t in decision_tiles(evaluation, targets, comparison, margin, summary=s,
                                                             sheet=sheet, table=table)]
    subtitle = (f"Is the assistant ready to go live? {decision_line(tiles, targets, s, table)} "
                f"{fmt.count(s['cases'], 'case')} judged by the {markdown_text(s['judge'])} judge.")
    details = [headline_line(s, sheet),
               f"- **Severity:** the judge found {s['contradicted']} contradicted and {s['unsupported']} unsupported of "
               f"{fmt.count(s['claims'], 'claim')}"
               + (f" ({fmt.percent(s['contradicted'] / flagged)} of its flags are contradictions, usually the worse "
                  "kind: the opposite of a passage)." if flagged else ": no problem found."),
               f"- **Abstention:** on unanswerable questions {rate_line(r['abstention'], 'unanswerable cases')}; "
               f"false abstention on answerable ones {rate_line(r['false abstention'], 'answerable cases')}."]
    a = agree_summary(evaluation)
    if a["agreement"]["claims"]:
        from .people import labels_made, people_words

        caught = Rate(a["caught"]["caught"], a["caught"]["hallucinated"])
        alarms = Rate(a["false_alarms"]["flagged"], a["false_alarms"]["supported"])
        who, people = people_words(labels_made(evaluation.cases), a["agreement"]["rate"])
        details.append(
            f"- **How the judge was checked:** against people's labels on {fmt.count(a['agreement']['claims'], 'claim')}"
            + (f" ({who})" if who else "") +
            f" it caught {rate_line(caught, 'hallucinated claims')} and raised false alarms on "
            f"{rate_line(alarms, 'supported claims')}; the same verdict as people on {a['agreement']['agree']} of "
            f"{a['agreement']['claims']}" + (f", Cohen's kappa {a['kappa']:.2f}" if a["kappa"] is not None else "") + "."
            + people)
    else:
        details.append("- **How the judge was checked:** not yet: no case carries people's labels. The labels the "
                       "hallucination rate asks for check it too (caught and false alarms).")
    if s["errors"]:
        across = s.get("errors_across_languages") or 0
        why = (f" ({across} of them in another language than their passages, too few of whose words carry across "
               "to decide)" if across else "")
        details.append(f"- The judge could not decide {fmt.count(s['errors'], 'claim')}{why}; they are left out of "
                       "every rate.")
    o = s["outcomes"]
    answers = sum(o.values())
    details += [
        f"- **Outcomes:** {o['correct']} correct, {o['abstained']} abstained, {o['wrong']} wrong by the judge's "
        f"verdicts; risk-weighted score at penalty {fmt.weight(s['penalty'])}: {risk_words(s)}"
        + (_weighted_score(evaluation, s["penalty"], targets, answers) if targets is not None else "") + ".",
        f"- **The control:** the judge could not back {fmt.count(flagged, 'claim')} in "
        f"{fmt.count(s['flagged_by_judge']['flagged'], 'answer')}: decide whether the product hides such a claim, "
        "flags it or routes the answer to a person. " + _control(evaluation, s["penalty"]),
        ("- **Citations:** " + (f"recall {rate_line(r['citation recall'], 'supported claims')}, "
                                f"precision {rate_line(r['citation precision'], 'citations')}."
                                if r["citation precision"].total
                                else "every citation check was left undecided." if undecided
                                else "the answers cite no passage, so citation recall and precision do not apply.")
         + (f" {fmt.count(undecided, 'cited claim')} left out: the judge found them supported without naming a "
            "passage behind them, could not judge their cited passages, or they need too many of them together "
            "to tell which." if undecided else "")),
    ]
    if comparison is not None:
        from ..measure.compare import compare_rows

        a_name, b_name = _names(comparison)
        result = comparison.result if hasattr(comparison, "result") else comparison
        units = {m.name: m.units for m in result.measures.values()}
        shown = [f"{row['note']} (over {fmt.count(units[name], 'question')} paired)" for name, row in
                 zip([n for n, m in result.measures.items() if m.defined], compare_rows(comparison))]
        details.append(f"- **{markdown_text(b_name)} \u2212 {markdown_text(a_name)}**, question by question: "
                       + "; ".join(f"{markdown_text(label)} {markdown_text(text)}" for label, text in
                                   zip([LABEL_OF[n] for n, m in result.measures.items() if m.defined], shown))
                       + f". The other figures count every answer of {markdown_text(a_name)}; the comparison, the "
                       "questions both sides answered.")
    details.append("")
    tables = [breakdown_lines(evaluation, claims_page)]
    if targets is not None:
        tables.append(target_lines(evaluation, targets, table))
    # -- the platform's metric (an SAP AI Core evaluation's rating), only when the cases carry one:
    #    present/platform.py writes the section; nothing changes for other cases.
    from .platform import report_lines as platform_lines

    platform = platform_lines(evaluation)
    if platform:
        tables.append(platform)
    # -- end of the platform's section
    apart = apart_lines(s)
    footer = [f"Judge {code_span(s['judge'])} on {fmt.count(s['cases'], 'case')}"
              f"{f' from {code_span(source)}' if source else ''}, {stamp}.", "",
              f"These figures come from {identity_line(evaluation.claims.attrs.get('judge'))}."]
    return ReportParts(subtitle, tiles, details, list(GLOSSARY), footer, tables, apart)


#: The anchor of the report's details, which every tile links down to.
DETAILS_ANCHOR = "rests-on"


def _linked(tile: Tile, claims_page: str) -> Tile:
    """``tile`` with its links down: to what its figure rests on, and for the hallucination rate and
    citation accuracy to the claims behind them (``claims_page``, notebook 01's HTML copy)."""
    from dataclasses import replace

    links = [(f"#{DETAILS_ANCHOR}", "what it rests on")]
    if claims_page and tile.key in ("hallucination", "citations", "judge"):
        links.append((claims_page, "the claims behind it"))
    return replace(tile, links=tuple(links))


def _names(comparison: Any) -> tuple:
    return (comparison.result if hasattr(comparison, "result") else comparison).names


#: How the report names each compared measure.
LABEL_OF = {"hallucination_rate": "flagged by the judge", "faithfulness": "faithfulness", "abstention": "abstention",
            "false_abstention": "false abstention", "agreement": "agreement with the person"}


def headline_line(summary: Mapping[str, Any], sheet: str = "") -> str:
    """The report's first measure: people's hallucination rate (by their labels, or the judge's
    flags corrected by them) beside what the judge flags; without labels, the flagged share said
    as what it is and the labels that would settle the rate (:mod:`groundlab.present.headline`)."""
    from .headline import flagged_share, flagged_words, hallucination_words, label_request_words

    s = summary
    words = hallucination_words(s)
    if words.measured:
        line = (f"- **Hallucination rate per answer:** {words.figure} {words.how} (95% range {words.range}); "
                f"{flagged_words(s)}.")
        if s.get("label_request") and s["label_request"]["more"]:
            line += f" {_upper(label_request_words(s, sheet))}."
        return line
    if not s.get("label_request"):
        return f"- **Hallucination rate per answer:** not measured: {words.how}."
    return (f"- **Hallucination rate per answer:** not measured yet: no answer carries people's labels. "
            f"{_upper(label_request_words(s, sheet))}. Meanwhile the judge flags {flagged_share(s)}; "
            "at a low base rate a judge's false alarms outnumber the hallucinations it catches, so that share can "
            "be several times the rate people find, and no figure without labels is given as the rate (the "
            "corrections tried without labels missed the truth on the public sets: docs/measures.md); what the "
            "request rests on is in the tile's note above.")


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def apart_lines(summary: Mapping[str, Any], markdown: bool = True) -> List[str]:
    """What a run counts apart, a line each: the cases a data policy held back from the judge, and
    the cases that came from incidents with their hallucination rate (:func:`~groundlab.summary.apart_figures`)."""
    out: List[str] = []
    held = summary.get("held_back")
    if held is not None:
        how = f"{held['judged_instead']} judged by an offline judge the policy allows, {held['unjudged']} left unjudged"
        out.append(f"Data policy: {held['cases']} case{'s' * (held['cases'] != 1)} held back from the judge ({how}).")
    incidents = summary.get("incidents")
    if incidents is not None and incidents["cases"]:
        rate = incidents["hallucination_rate"]
        person = incidents["hallucination_rate_by_person"]

        def text(r: Mapping[str, Any]) -> str:
            if not r["answered"]:
                return "n/a (no answered case)"
            return (f"{percent(r['rate'])} ({r['hallucinated']}/{r['answered']}, 95% range {percent(r['low'])}"
                    f"\u2013{percent(r['high'])})")

        out.append(f"From incidents: {incidents['cases']} case{'s' * (incidents['cases'] != 1)} reported after go-live; "
                   f"their hallucination rate {text(rate)}, by the person {text(person)}.")
    if markdown:
        out = [markdown_text(line) for line in out]
    return out


def breakdown_lines(evaluation: Evaluation, claims_page: str = "") -> List[str]:
    """The report's compact table of the hallucinated share by kind of claim and by process, each
    with its count and Wilson 95% range (:func:`groundlab.metrics.hallucination_breakdown`); with
    ``claims_page`` (the HTML copy of notebook 01, beside the report) each row links to the cases
    behind it (``01-groundedness.html#c02``)."""
    from ..core.metrics import hallucination_breakdown

    frame = hallucination_breakdown(evaluation.claims, evaluation.cases)
    if frame.empty:
        return ["**Where the problems are:** no judged claim to break down by kind or process.", ""]
    processes = (frame["by"] == "process").any()
    behind = _cases_behind(evaluation, frame) if claims_page else {}
    lines = ["**Where the judge flags problems**, by the kind of fact a claim states (claims the judge did not find "
             "supported; a claim counts under each kind it states)" + (" and by process (answers it flagged)"
                                                                       if processes else "; no case names its process")
             + ":",
             "", "| | flagged | count | 95% range |" + (" claims behind it |" if behind else ""),
             "| --- | ---: | ---: | --- |" + (" --- |" if behind else "")]
    for k, row in enumerate(frame.itertuples()):
        unit = row.unit if row.total != 1 else row.unit[:-1]
        line = (f"| {row.by} {markdown_text(row.group)} | {percent(row.rate)} | "
                f"{row.hallucinated} of {row.total} {unit} | {percent(row.low)}\u2013{percent(row.high)} |")
        if behind:
            ids = behind.get(k, [])
            shown = ", ".join(f"[{markdown_text(cid)}]({claims_page}#{_quote_url(case_anchor(cid))})"
                              for cid in ids[:_LINKS]) + (", \u2026" if len(ids) > _LINKS else "")
            line += f" {shown or chr(0x2014)} |"
        lines.append(line)
    return lines + [""]


#: How many cases a row of the breakdown links to.
_LINKS = 4


def _quote_url(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def _cases_behind(evaluation: Evaluation, frame) -> dict:
    """Per row of the breakdown, the ids of the cases whose claims make its count (claims of that
    kind not supported; answers of that process with a claim not supported), in case order."""
    claims, cases = evaluation.claims, evaluation.cases
    flagged = claims[claims["verdict"].notna() & (claims["verdict"] != "supported")]
    out = {}
    for k, row in enumerate(frame.itertuples()):
        if row.by == "kind":
            ids = flagged.loc[flagged["kinds"].map(lambda kinds: row.group in kinds), "case_id"]
        elif row.by == "process":
            mine = cases[(cases["claims"] > 0) & cases["hallucinated"].fillna(False).astype(bool)]
            process = mine["process"].where(mine["process"].notna(), None)
            ids = mine.loc[(process == row.process) if row.process is not None else process.isna(), "case_id"]
        else:
            continue
        out[k] = list(dict.fromkeys(ids))
    return out


def target_lines(evaluation: Evaluation, targets: "Targets", table: Any = None) -> List[str]:
    """The report's pass/fail table against ``targets``: one row per target, met when the whole
    95% range of its figure is on the right side of it, each row's state as
    :func:`groundlab.targets.target_table` decides it (``table``, made here when not given)."""
    from ..production.targets import limit_text, target_table

    if table is None:
        table = target_table(targets, evaluation.claims, evaluation.cases)
    met = int((table["status"] == "pass").sum())
    state = "good" if len(table) and met == len(table) else "bad" if len(table) else "none"
    lines = [f"**Targets** from {code_span(targets.source)}: {fmt.state_label(state)} {met} of {len(table)} met, each "
             f"when its whole 95% range is on the right side of its limit (?: the figure is, its range not yet).", ""]
    if table.empty:
        return lines
    lines += ["| target | limit | rate | 95% range | status |", "| --- | ---: | ---: | --- | --- |"]
    for row in table.to_dict("records"):
        if row["status"] == "not measured":
            rate, span = "not measured yet", "\u2014"
        elif row["status"] == "no data":
            rate, span = "n/a", "\u2014"
        elif row["count"] is None or row["count"] != row["count"]:
            rate = f"{percent(row['rate'])} (corrected)"  # people's, weighed from their labels on some answers
            span = f"{percent(row['low'])}\u2013{percent(row['high'])}"
        else:
            rate = f"{percent(row['rate'])} ({int(row['count'])} of {int(row['total'])})"
            span = f"{percent(row['low'])}\u2013{percent(row['high'])}"
        # "? fail": within the target, its range not yet (the panel's "?"); "✗ fail": the figure misses it
        status = row["status"]
        lines.append(f"| {markdown_text(row['target'])} | {limit_text(row)} | {rate} | {span} | "
                     f"{fmt.state_label(row['state'])} {status} |")
    return lines + [""]


def _weighted_score(evaluation: Evaluation, penalty: float, targets: "Targets", answers: int) -> str:
    from ..core.metrics import weighted_risk_score

    score = weighted_risk_score(evaluation.claims, evaluation.cases, targets.weights, penalty)
    named = ", ".join(f"{markdown_text(kind)} {fmt.weight(weight)}" for kind, weight in targets.weights.items())
    return (f"; weighted by what each wrong answer got wrong, {fmt.per_100(score, answers)} (its heaviest wrong kind "
            "weighs " + (f"{named}, others 1" if named else "1: the targets give no weights") + ")")


def _control(evaluation: Evaluation, penalty: float) -> str:
    """What withholding every answer the judge flags would score: by the person's labels where
    answers carry them (the judge's wrong flags then cost correct answers, its misses stay wrong),
    else as the judge sees it, saying so."""
    cases = evaluation.cases
    if has_person_labels(cases):
        as_is, withheld = (outcomes(cases, withhold_flagged=w, by="person") for w in (False, True))
        lost, missed = as_is["correct"] - withheld["correct"], withheld["wrong"]
        n = sum(as_is.values())
        after, before = (fmt.per_100(o["correct"] - penalty * o["wrong"], n) for o in (withheld, as_is))
        moved = f"would stay at {before}" if after == before else f"would be {after} instead of {before}"
        return (f"Had the assistant declined every answer the judge flags, its risk-weighted score at penalty "
                f"{fmt.weight(penalty)} {moved}, by the person's labels on "
                f"{fmt.count(n, 'answer')}: the judge's wrong flags would cost {fmt.count(lost, 'correct answer')}, and "
                f"{fmt.count(missed, 'wrong answer')} it missed would still go out.")
    n = sum(outcomes(cases).values())
    after = fmt.per_100(risk_weighted_score(cases, penalty, withhold_flagged=True), n)
    before = fmt.per_100(risk_weighted_score(cases, penalty), n)
    moved = f"would stay at {before}" if after == before else f"would be {after} instead of {before}"
    return (f"Had the assistant declined every answer the judge flags, its risk-weighted score at penalty "
            f"{fmt.weight(penalty)} {moved} as the judge sees it; without a person's labels, the correct answers its "
            "wrong flags would cost are not counted.")


def check_report_target(path: Path, force: bool = False, inputs: Sequence[Optional[PathLike]] = ()) -> None:
    """Refuse to write a report over a file groundlab did not write (it may be a person's own),
    unless ``force``; over one of the run's ``inputs``, or a folder, even with ``force``."""
    path = Path(path)
    check_output(path, force=True, inputs=[i for i in inputs if i])
    if path.exists() and not force:
        with open(path, encoding="utf-8", errors="replace") as fh:
            first = fh.readline().strip()
        if first != MARKER:
            raise GroundlabError(f"{path} exists and is not a groundlab report; nothing was written "
                                 "(choose another file or pass --force to replace it).")


def write_report(path: Path, text: str, force: bool = False,
                 inputs: Sequence[Optional[PathLike]] = ()) -> Path:
    """Write a report atomically (temporary file, then rename), after :func:`check_report_target`."""
    check_report_target(path, force, inputs)
    return write_atomic(path, text)


_PAGE_CSS = """
:root { --good: %(good)s; --bad: %(bad)s; --unsure: %(unsure)s; --none: %(none)s; }
* { box-sizing: border-box; }
body { font-family: "Helvetica Neue", Arial, sans-serif; color: #111; max-width: 60rem; margin: 1.2rem auto;
       padding: 0 1rem; line-height: 1.4; font-size: 11pt; }
h1 { font-size: 1.5rem; margin: 0 0 0.2rem; }
h2 { font-size: 1.05rem; margin: 1.1rem 0 0.4rem; }
.subtitle { margin: 0 0 0.7rem; color: #333; }
.panel { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 0.6rem; margin: 0 0 0.6rem; }
.tile { border: 1px solid #bbb; border-left: 0.45rem solid var(--none); border-radius: 4px; padding: 0.45rem 0.6rem;
        min-width: 0; overflow-wrap: anywhere; }
.tile h3 { font-size: 0.85rem; margin: 0; font-weight: 600; color: #333; }
.tile .figure { font-size: 1.9rem; font-weight: 700; margin: 0.05rem 0 0.15rem; line-height: 1.1; }
.tile .figure.two { font-size: 1.15rem; } .tile .figure.two span { display: block; }
.tile .state { font-weight: 700; margin: 0.25rem 0 0.15rem; font-size: 0.88rem; }
.tile .state .symbol { display: inline-block; min-width: 1.2em; text-align: center; color: #fff; border-radius: 3px;
                       margin-right: 0.3em; }
.tile .detail { font-size: 0.78rem; color: #333; margin: 0.1rem 0; }
.tile .links { font-size: 0.72rem; margin: 0.1rem 0 0; }
.tile .links a { color: #0a4f8a; }
.tile.good { border-left-color: var(--good); } .tile.good .symbol { background: var(--good); }
.tile.bad { border-left-color: var(--bad); } .tile.bad .symbol { background: var(--bad); }
.tile.unsure { border-left-color: var(--unsure); } .tile.unsure .symbol { background: var(--unsure); color: #000; }
.tile.none .symbol { background: var(--none); }
.bar { position: relative; height: 0.8rem; background: #eee; border-radius: 2px; margin: 0.35rem 0 0.1rem; }
.bar .range { position: absolute; top: 0.15rem; bottom: 0.15rem; background: #7a7a7a; border-radius: 2px; }
.bar .dot { position: absolute; top: 0; width: 0.8rem; height: 0.8rem; border-radius: 50%%;
            background: #111; border: 2px solid #fff; }
.bar .target { position: absolute; top: -0.2rem; bottom: -0.2rem; width: 0; border-left: 2px dashed #111; }
.scale { display: flex; justify-content: space-between; gap: 0.3rem; font-size: 0.65rem; color: #555; margin: 0; }
.scale .range-text { font-size: 0.72rem; color: #222; text-align: center; }
.scale span:first-child, .scale span:last-child { white-space: nowrap; }
.details ul { padding-left: 1.1rem; margin: 0.2rem 0; } .details li { margin-bottom: 0.25rem; }
.details p { margin: 0.4rem 0 0.2rem; }
code { font-family: Menlo, Consolas, monospace; font-size: 0.92em; background: #f3f3f3; padding: 0 0.2em;
       overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 0.3rem 0 0.6rem; font-size: 0.9em; break-inside: avoid; }
th, td { padding: 0.05rem 0.6rem 0.05rem 0; border-bottom: 1px solid #ddd; vertical-align: top; text-align: left;
         overflow-wrap: anywhere; }
th { border-bottom: 1px solid #999; }
td.good { color: var(--good); font-weight: 600; } td.bad { color: var(--bad); font-weight: 600; }
td.unsure { color: #8a5a00; font-weight: 600; }
.glossary dl { columns: 2; column-gap: 1.2rem; margin: 0.2rem 0; font-size: 0.85rem; }
.glossary dl > div { break-inside: avoid; margin-bottom: 0.15rem; }
.glossary dt { font-weight: 600; display: inline; } .glossary dt::after { content: ":"; }
.glossary dd { margin: 0; display: inline; }
footer { margin-top: 0.8rem; padding-top: 0.4rem; border-top: 1px solid #ccc; font-size: 0.75rem; color: #444; }
footer p { margin: 0.15rem 0; }
.figures { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 0.6rem; }
figure { margin: 0; break-inside: avoid; page-break-inside: avoid; }
figure img { max-width: 100%%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.8rem; color: #444; margin-top: 0.2rem; }
@page { size: A4; margin: 8mm 10mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 8pt; line-height: 1.24; }
  .tile .links { display: none; }
  h1 { font-size: 14pt; } h2 { font-size: 9.6pt; margin: 0.45rem 0 0.2rem; }
  .subtitle { margin-bottom: 0.35rem; }
  .panel { gap: 0.3rem; } .tile { padding: 0.25rem 0.4rem; }
  .tile .figure { font-size: 15pt; } .tile .figure.two { font-size: 9pt; } .tile .state { font-size: 8pt; }
  .tile .detail { font-size: 6.6pt; }
  .scale { font-size: 6pt; } .scale .range-text { font-size: 6.8pt; }
  .details ul { font-size: 7.1pt; }
  .glossary dl { columns: 3; column-gap: 4mm; }
  .tile, .bar .range, .bar .dot, .tile .symbol, td { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .details ul { columns: 2; column-gap: 5mm; } .details li { margin-bottom: 0.05rem; break-inside: avoid; }
  .details table { font-size: 7.4pt; margin: 0.1rem 0 0.25rem; }
  .tables { display: grid; grid-template-columns: repeat(auto-fit, minmax(80mm, 1fr)); gap: 5mm; }
  .tables .block p { margin-top: 0.1rem; }
  .tables td:not(:first-child):not(:last-child), .tables th { white-space: nowrap; }
  .tables th, .tables td { padding-right: 0.35rem; }
  .glossary dl { font-size: 6.4pt; } footer { font-size: 6.4pt; margin-top: 0.3rem; }
  footer p { display: inline; margin-right: 0.5em; }
  code { background: none; }
  .figures-section { break-before: page; }
  figure img { max-height: 105mm; width: auto; border: none; }
}
""" % fmt.STATE_COLOURS


def _tile_html(t: Tile) -> str:
    """One tile as HTML: every text escaped, the bar placed by numbers the report computed."""
    e = html.escape
    # a figure of two sides ("caught 100% · false alarms 7%") reads as two short lines
    sides = t.figure.split(" \u00b7 ")
    figure = (f'<p class="figure two">{"".join(f"<span>{e(side)}</span>" for side in sides)}</p>' if len(sides) == 2
              else f'<p class="figure">{e(t.figure)}</p>')
    parts = [f'<div class="tile {e(t.state)}" id="tile-{e(t.key)}">', f"<h3>{e(t.title)}</h3>", figure]
    if t.low is not None and t.high is not None:
        def at(x: float) -> float:
            x = (x + 1) / 2 if t.scale == "points" else x
            return round(100 * min(1.0, max(0.0, x)), 2)

        label = t.range_text + (f", {t.target_text}" if t.target_text else "")
        bar = [f'<div class="bar" role="img" aria-label="{e(label)}">',
               f'<span class="range" style="left:{at(t.low)}%;width:{max(0.5, at(t.high) - at(t.low))}%"></span>']
        if t.target is not None:  # the line and the dot stay inside the bar at either end
            x = at(t.target)
            bar.append(f'<span class="target" style="left:calc({x}% - {x * 0.02:.3f}px)"></span>')
        if t.value is not None and t.value == t.value:
            x = at(t.value)
            bar.append(f'<span class="dot" style="left:calc({x}% - {x * 0.008:.4f}rem)"></span>')
        bar.append("</div>")
        ends = ("\u2212100", "+100") if t.scale == "points" else ("0%", "100%")
        middle = t.range_text + (f" \u00b7 {t.target_text}" if t.target_text else "")
        parts += bar + [f'<p class="scale"><span>{e(ends[0])}</span><span class="range-text">{e(middle)}</span>'
                        f"<span>{e(ends[1])}</span></p>"]
    parts.append(f'<p class="state"><span class="symbol" aria-hidden="true">{e(fmt.state_label(t.state))}</span>'
                 f"{e(t.state_text)}</p>")
    if t.detail:
        parts.append(f'<p class="detail">{e(t.detail)}</p>')
    if t.links:
        parts.append('<p class="links">' + " \u00b7 ".join(
            f'<a href="{e(_safe_href(href))}">{e(words)}</a>' for href, words in t.links) + "</p>")
    parts.append("</div>")
    return "".join(parts)


def _safe_href(href: str) -> str:
    """A link of the report's own: an anchor, or a page beside it (never a scheme such as javascript:)."""
    from urllib.parse import quote

    if href.startswith("#"):
        return "#" + quote(href[1:], safe="-_")
    return quote(href, safe="/-_.#")


_STATE_CELL = re.compile(r"<td>(\u2713|\u2717|\?|\u2013) ")


def html_report(markdown: str, figures: Mapping[str, Union[str, "Path"]] = ()) -> str:
    """The steering report as one HTML page that needs nothing beside it: the decision panel as
    tiles, the rest of the report's Markdown rendered with raw HTML switched off (markup in it
    shows as text), the figures embedded as PNG on a page of their own when printed, and the
    provenance at the foot. It runs no script. ``markdown`` is what :func:`steering_report`
    returned; other Markdown is rendered as it is."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    parts: Optional[ReportParts] = getattr(markdown, "parts", None)
    if parts is None:
        body = markdown.split("\n", 1)[1] if markdown.startswith(MARKER) else markdown
        sections = [md.render(body)]
    else:
        def states(rendered: str) -> str:
            classes = {"\u2713": "good", "\u2717": "bad", "?": "unsure", "\u2013": "none"}
            return _STATE_CELL.sub(lambda m: f'<td class="{classes[m.group(1)]}">{m.group(1)} ', rendered)

        glossary = "".join(f"<div><dt>{html.escape(term)}</dt> <dd>{html.escape(words)}</dd></div>"
                           for term, words in parts.glossary)
        sections = ['<header><h1>Groundedness report</h1>', f'<p class="subtitle">{md.renderInline(parts.subtitle)}</p>',
                    "</header>",
                    '<section class="panel" id="decision-panel" aria-label="Decision panel">'
                    + "".join(_tile_html(t) for t in parts.tiles) + "</section>",
                    # the headline's own line is the first tile's; the tables side by side when printed
                    '<section class="details" id="rests-on"><h2>What the figures rest on</h2>'
                    + states(md.render("\n".join(parts.details[1:])))
                    + '<div class="tables">' + "".join(f'<div class="block">{states(md.render(chr(10).join(block)))}</div>'
                                                       for block in parts.tables or [])
                    + "</div>" + (md.render("\n".join(parts.apart)) if parts.apart else "") + "</section>",
                    f'<section class="glossary"><h2>In plain words</h2><dl>{glossary}</dl></section>',
                    "<footer>" + md.render("\n".join(parts.footer)) + "</footer>"]
    if figures:
        shown = []
        for caption, image in figures.items():
            data = base64.b64encode(Path(image).read_bytes()).decode("ascii")
            shown.append(f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(caption)}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")
        sections.append('<section class="figures-section"><h2>Figures</h2><div class="figures">' + "".join(shown)
                        + "</div></section>")
    return "\n".join([MARKER, "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
                      '<meta name="viewport" content="width=device-width, initial-scale=1">',
                      "<title>Groundedness report</title>", f"<style>{_PAGE_CSS}</style>", "</head>", "<body>",
                      *sections, "</body>", "</html>", ""])
