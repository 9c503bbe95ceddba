"""The one-page report for a steering committee, in Markdown, and as a page that prints.

Text that comes from outside (file names, case ids) is escaped for Markdown and HTML alike: a
file name can hold ``<script>``, a backtick, a ``|`` or a link, and must show as written.
"""

from __future__ import annotations

import base64
import html
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Sequence, Union

from .evaluate import Evaluation
from .identity import identity_line
from .io import PathLike, check_output, write_atomic
from .records import GroundlabError, visible
from .metrics import citations_undecided, has_person_labels, outcomes, risk_weighted_score
from .stats import Rate, percent
from .summary import agree_summary, rates, score_summary

if TYPE_CHECKING:  # pragma: no cover
    from .targets import Targets

#: First line of every report groundlab writes; a file that starts otherwise is not replaced
#: without ``--force``, since it may be a person's own document.
MARKER = "<!-- groundlab report -->"

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~-])")


def markdown_text(text: str) -> str:
    r"""``text`` as literal Markdown: its markup characters backslash-escaped and ``&``, ``<``, ``>``
    written as entities, so no renderer makes a link, a table cell, code or HTML of it.

    >>> print(markdown_text("[x](javascript:alert(1)) <b>|</b>"))
    \[x\]\(javascript:alert\(1\)\) &lt;b&gt;\|&lt;/b&gt;
    """
    text = visible(" ".join(str(text).splitlines()))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def code_span(text: str) -> str:
    """``text`` as a Markdown code span (a file name, a case id): shown as written, never read as
    Markdown or HTML, whatever backticks or markup it holds.

    >>> code_span("a`b.jsonl"), code_span("<script>")
    ('``a`b.jsonl``', '`<script>`')
    """
    text = " ".join(str(text).splitlines())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"



def rate_line(rate: Rate, noun: str) -> str:
    """``60% (6 of 10 answered; 95% range 31%–83%)``, or why the rate is not available."""
    if not rate.total:
        return f"n/a (no {noun})"
    low, high = rate.interval
    return f"{percent(rate.rate)} ({rate.count} of {rate.total} {noun}; 95% range {percent(low)}\u2013{percent(high)})"


def steering_report(evaluation: Evaluation, penalty: float = 1.0, source: str = "",
                    targets: Optional["Targets"] = None) -> str:
    """The one-page steering report as Markdown text: the measures, then where the problems are
    (by kind of claim and by process, each with its 95% range), and with ``targets``
    (:func:`groundlab.targets.load_targets`) the pass/fail table and the weighted risk score."""
    s = score_summary(evaluation, penalty)
    undecided = citations_undecided(evaluation.claims)
    a = agree_summary(evaluation)
    r = rates(evaluation)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    flagged = s["contradicted"] + s["unsupported"]
    severity = (f"{s['contradicted']} contradicted and {s['unsupported']} unsupported of {s['claims']} claims "
                f"({percent(s['contradicted'] / flagged) if flagged else 'n/a'} of the problems are contradictions, "
                "usually the worse kind: the answer says the opposite of a passage).")
    lines = [
        MARKER,
        "# Groundedness report",
        "",
        f"Judge {code_span(s['judge'])} on {s['cases']} cases{f' from {code_span(source)}' if source else ''}, "
        f"{stamp}.",
        "",
        f"These figures come from {identity_line(evaluation.claims.attrs.get('judge'))}.",
        "",
        headline_line(evaluation, r),
        f"2. **Severity:** {severity}",
        f"3. **Abstention:** on unanswerable questions {rate_line(r['abstention'], 'unanswerable cases')}; "
        f"false abstention on answerable ones {rate_line(r['false abstention'], 'answerable cases')}.",
    ]
    if a["agreement"]["claims"]:
        caught = Rate(a["caught"]["caught"], a["caught"]["hallucinated"])
        alarms = Rate(a["false_alarms"]["flagged"], a["false_alarms"]["supported"])
        lines.append(
            f"4. **How the judge was checked:** against a person's labels on {a['agreement']['claims']} claims "
            f"it caught {rate_line(caught, 'hallucinated claims')} and raised false alarms on "
            f"{rate_line(alarms, 'supported claims')} (agreement {a['agreement']['agree']}/"
            f"{a['agreement']['claims']}" + (f", Cohen's kappa {a['kappa']:.2f}" if a["kappa"] is not None else "")
            + "). Hallucinated claims the judge misses are missing from the rate above too.")
    else:
        lines.append("4. **How the judge was checked:** not yet: no case carries a person's labels. "
                     "Label a sample before trusting these rates (see `groundlab agree`).")
    if s["errors"]:
        lines.append(f"   The judge could not decide {s['errors']} claims; they are left out of every rate.")
    o = s["outcomes"]
    lines += [
        f"5. **The control:** {flagged} claims in {r['hallucination rate'].count} answers could not be backed "
        "by the passages. Decide what the product does with such a claim: hide it, flag it to the user, or "
        "route the answer to a person. " + _control(evaluation, s["penalty"]),
        "",
        f"Outcomes: {o['correct']} correct, {o['abstained']} abstained, {o['wrong']} wrong. "
        f"Risk-weighted score {s['risk_weighted_score']:+g} with penalty {s['penalty']:g} "
        "(correct \u2212 penalty \u00d7 wrong; an abstention scores 0)."
        + (_weighted_score(evaluation, s["penalty"], targets) if targets is not None else ""),
        (f"Citations: recall {rate_line(r['citation recall'], 'supported claims')}, "
         f"precision {rate_line(r['citation precision'], 'citations')}." if r["citation precision"].total
         else "Citations: every citation check was left undecided." if undecided
         else "Citations: the answers cite no passage, so citation recall and precision do not apply.")
        + (f" {undecided} cited claims are left out: the judge found them supported without "
           "naming a passage behind them, or could not judge their cited passages."
           if undecided else ""),
        "",
    ]
    lines += breakdown_lines(evaluation)
    if targets is not None:
        lines += target_lines(evaluation, targets)
    apart = apart_lines(s)
    if apart:
        lines += apart + [""]
    return "\n".join(lines)


#: Public sets of answers written from the passages they are judged against, whose measured
#: false alarms and catches say how far an unchecked rate may be off.
RAG_STYLE_SETS = ("FRANK CNN/DM", "HaluEval QA", "ExpertQA retrieve-then-read")


def headline_line(evaluation: Evaluation, r: Mapping[str, Rate]) -> str:
    """The report's first measure: the hallucination rate corrected by people's labels beside the
    judge's flagged rate when labels exist (:func:`groundlab.sampling.corrected_hallucination_rate`),
    else the flagged rate and how far the judge's measured error could move it."""
    from .sampling import _pct, corrected_hallucination_rate

    flagged = rate_line(r["hallucination rate"], "answered cases")
    correction = corrected_hallucination_rate(evaluation.cases)
    est = correction.estimate
    if est is not None:
        every = correction.labeled == correction.answered
        how = ("by people's labels on every answer" if every else
               f"corrected by people's labels on {correction.labeled} of {correction.answered} answers")
        return (f"1. **Hallucination rate per answer:** {_pct(est.rate)} {how} (95% range {_pct(est.low)}\u2013"
                f"{_pct(est.high)}); the judge alone flags {flagged}.")
    if correction.labeled:
        return (f"1. **Hallucination rate per answer:** {flagged}, as the judge flags it; by the person's labels "
                f"{rate_line(r['hallucination rate by the person'], 'labeled answers')}. Not corrected: "
                f"{correction.reason}.")
    return f"1. **Hallucination rate per answer:** {flagged}, as the judge flags it. " + unchecked_sentence(evaluation)


def unchecked_sentence(evaluation: Evaluation) -> str:
    """One sentence for a rate no person checked: how far the judge's false alarms and misses on
    public answers written from their passages could move the share of claims it flags, and how
    many labeled answers would pin the rate down."""
    from .stats import answers_needed

    claims = evaluation.claims
    judged = claims["verdict"].notna()
    total = int(judged.sum())
    if not total:
        return "No answer carries a person's labels to check it with."
    q = float((claims.loc[judged, "verdict"] != "supported").mean())
    errors = _public_errors(evaluation)
    rate = r_rate = hallucination_share(evaluation)
    need = answers_needed(min(max(r_rate, 0.02), 0.98), 0.05) if rate == rate else None
    label = (f"labeling about {need} answers drawn at random within the judge's verdicts (notebook 04) would pin the "
             "rate down to \u00b15 points" if need else "a person's labels would pin it down")
    if not errors:
        return (f"No answer carries a person's labels, and this judge's error is not measured on public answers: "
                f"{label}.")
    trues = [min(1.0, max(0.0, (q - fa) / (c - fa))) for c, fa in errors.values() if c > fa]
    alarms = sorted(fa for _, fa in errors.values())
    caught = sorted(c for c, _ in errors.values())
    low, high = (min(trues), max(trues)) if trues else (0.0, 1.0)
    return (f"No answer carries a person's labels. On public answers written from their passages this judge flagged "
            f"{percent(alarms[0])}\u2013{percent(alarms[-1])} of the claims people found supported and caught "
            f"{percent(caught[0])}\u2013{percent(caught[-1])} of the hallucinated ones, so of the {percent(q)} of "
            f"claims it flags here anywhere from {percent(low)} to {percent(high)} may really be hallucinated; "
            f"{label}.")


def hallucination_share(evaluation: Evaluation) -> float:
    """The judge's hallucination rate per answer, NaN when nothing was answered."""
    cases = evaluation.cases
    answered = cases[cases["claims"] > 0]
    return float(answered["hallucinated"].astype(float).mean()) if len(answered) else float("nan")


def _public_errors(evaluation: Evaluation) -> dict:
    """``{set: (caught, false alarms)}`` the judge showed on the public RAG-style sets, from the
    figures shipped with the signals judge's weights (they hold the rules judge's too)."""
    identity = evaluation.claims.attrs.get("judge") or {}
    name = identity.get("name") or evaluation.judge
    if name not in ("signals", "rules"):
        return {}
    try:
        from .judges.signals import load_config

        path = identity.get("config") if name == "signals" else None
        config = load_config(None if not path or str(path).startswith("groundlab/data/") else path)
    except Exception:  # a config moved or another judge's: no public figures to quote
        return {}
    sets = config.data.get("leave_one_set_out") or {}
    out = {}
    for set_name in RAG_STYLE_SETS:
        figures = (sets.get(set_name) or {}).get(name)
        if figures and figures["caught"]["total"] and figures["false_alarms"]["total"]:
            out[set_name] = (figures["caught"]["rate"], figures["false_alarms"]["rate"])
    return out


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


def breakdown_lines(evaluation: Evaluation) -> List[str]:
    """The report's compact table of the hallucinated share by kind of claim and by process, each
    with its count and Wilson 95% range (:func:`groundlab.metrics.hallucination_breakdown`)."""
    from .metrics import hallucination_breakdown

    frame = hallucination_breakdown(evaluation.claims, evaluation.cases)
    if frame.empty:
        return ["**Where the problems are:** no judged claim to break down by kind or process.", ""]
    processes = (frame["by"] == "process").any()
    lines = ["**Where the problems are**, by the kind of fact a claim states (claims not supported; a claim "
             "counts under each kind it states)" + (" and by process (answers with a claim not supported)"
                                                     if processes else "; no case names its process") + ":",
             "", "| | not supported | count | 95% range |", "| --- | ---: | ---: | --- |"]
    for row in frame.itertuples():
        unit = row.unit if row.total != 1 else row.unit[:-1]
        lines.append(f"| {row.by} {markdown_text(row.group)} | {percent(row.rate)} | "
                     f"{row.hallucinated} of {row.total} {unit} | {percent(row.low)}\u2013{percent(row.high)} |")
    return lines + [""]


def target_lines(evaluation: Evaluation, targets: "Targets") -> List[str]:
    """The report's pass/fail table against ``targets``: one row per target, judged on the upper
    end of the rate's 95% range (:func:`groundlab.targets.target_table`)."""
    from .targets import target_table

    table = target_table(targets, evaluation.claims, evaluation.cases)
    met = int((table["status"] == "pass").sum())
    lines = [f"**Targets** from {code_span(targets.source)}, each met when the whole 95% range is at or below its "
             f"maximum: {met} of {len(table)} met.", ""]
    if table.empty:
        return lines
    lines += ["| target | max | rate | 95% range | status |", "| --- | ---: | ---: | --- | --- |"]
    for row in table.itertuples():
        if row.total:
            rate = f"{percent(row.rate)} ({row.hallucinated} of {row.total})"
            span = f"{percent(row.low)}\u2013{percent(row.high)}"
        else:
            rate, span = "n/a", "\u2014"
        status = ("fail: more answers needed" if row.status == "fail" and row.rate <= row.max_rate
                  else str(row.status))
        lines.append(f"| {markdown_text(row.target)} | {_max(row.max_rate)} | {rate} | {span} | {status} |")
    return lines + [""]


def _max(rate: float) -> str:
    """A target's maximum as written: 2.5% stays 2.5%."""
    return f"{100 * rate:.4g}%"


def _weighted_score(evaluation: Evaluation, penalty: float, targets: "Targets") -> str:
    from .metrics import weighted_risk_score

    score = weighted_risk_score(evaluation.claims, evaluation.cases, targets.weights, penalty)
    named = ", ".join(f"{markdown_text(kind)} {weight:g}" for kind, weight in targets.weights.items())
    return (f" Weighted by what each wrong answer got wrong, {score:+g} (its heaviest wrong kind weighs "
            + (f"{named}, others 1" if named else "1: the targets give no weights") + ").")


def _control(evaluation: Evaluation, penalty: float) -> str:
    """What withholding every answer the judge flags would score: by the person's labels where
    answers carry them (the judge's wrong flags then cost correct answers, its misses stay wrong),
    else as the judge sees it, saying so."""
    cases = evaluation.cases
    if has_person_labels(cases):
        as_is, withheld = (outcomes(cases, withhold_flagged=w, by="person") for w in (False, True))
        lost, missed = as_is["correct"] - withheld["correct"], withheld["wrong"]
        return (f"Had the assistant declined every answer the judge flags, its risk-weighted score at penalty "
                f"{penalty:g} would be {withheld['correct'] - penalty * withheld['wrong']:+g} instead of "
                f"{as_is['correct'] - penalty * as_is['wrong']:+g}, by the person's labels on "
                f"{sum(as_is.values())} answers: the judge's wrong flags would cost {lost} correct "
                f"answer{'s' * (lost != 1)}, and {missed} wrong answer{'s' * (missed != 1)} it missed would "
                "still go out.")
    return (f"Had the assistant declined every answer the judge flags, its risk-weighted score at penalty "
            f"{penalty:g} would be {risk_weighted_score(cases, penalty, withhold_flagged=True):+g} instead of "
            f"{risk_weighted_score(cases, penalty):+g} as the judge sees it; without a person's labels, the "
            "correct answers its wrong flags would cost are not counted.")


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
body { font-family: "Helvetica Neue", Arial, sans-serif; color: #111; max-width: 46rem; margin: 2rem auto;
       padding: 0 1rem; line-height: 1.45; font-size: 11pt; }
h1 { font-size: 1.6rem; margin-bottom: 0.3rem; }
h2 { font-size: 1.2rem; margin-top: 1.6rem; }
ol li { margin-bottom: 0.5rem; }
code { font-family: Menlo, Consolas, monospace; font-size: 0.95em; background: #f3f3f3; padding: 0 0.2em;
       overflow-wrap: anywhere; }
figure { margin: 1.2rem 0; break-inside: avoid; page-break-inside: avoid; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9rem; color: #444; margin-top: 0.3rem; }
table { border-collapse: collapse; margin: 0.4rem 0 0.8rem; font-size: 0.92em; break-inside: avoid; }
th, td { padding: 0.1rem 0.7rem 0.1rem 0; border-bottom: 1px solid #ddd; vertical-align: top;
         overflow-wrap: anywhere; }
th { border-bottom: 1px solid #999; }
@page { size: A4; margin: 16mm 14mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; }
  figure { margin: 0.6rem 0; }
  figure img { max-height: 105mm; width: auto; border: none; }
  code { background: none; }
}
"""


def html_report(markdown: str, figures: Mapping[str, Union[str, "Path"]] = ()) -> str:
    """The steering report as one HTML page that needs nothing beside it: its Markdown rendered
    with raw HTML switched off (markup in it shows as text), the figures embedded as PNG, and a
    print style that keeps each figure whole on its page. It runs no script."""
    from markdown_it import MarkdownIt

    body = markdown.split("\n", 1)[1] if markdown.startswith(MARKER) else markdown
    rendered = MarkdownIt("commonmark", {"html": False}).enable("table").render(body)
    parts = []
    if figures:
        parts.append("<h2>Figures</h2>")
        for caption, image in figures.items():
            data = base64.b64encode(Path(image).read_bytes()).decode("ascii")
            parts.append(f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(caption)}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    return "\n".join([MARKER, "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
                      '<meta name="viewport" content="width=device-width, initial-scale=1">',
                      "<title>Groundedness report</title>", f"<style>{_PAGE_CSS}</style>", "</head>", "<body>",
                      rendered, *parts, "</body>", "</html>", ""])
