"""The headline figures in words: one wording for the report, its tiles, the slides, the charts,
``groundlab score`` and the notebooks, made from one summary
(:func:`groundlab.summary.summary_of_counts`), so that a figure shown in two places is the same.

The hallucination rate is people's: by their labels on every answer, or the judge's flags
corrected by their labels on some. Until some answers carry labels it is *not measured yet*, and
what the judge flags is said as what it is: *flagged by the judge*, with how many labels would
settle the rate. At a low base rate a judge's false alarms outnumber the hallucinations it
catches, so its flagged share can be several times the rate people find.

>>> from groundlab import evaluate, load_cases, sample_path
>>> from groundlab.summary import score_summary
>>> s = score_summary(evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "rules"))
>>> hallucination_words(s).figure, hallucination_words(s).how
('50%', "by people's labels on every answer")
>>> flagged_words(s)
'flagged by the judge: 60% (6 of 10 answers; 95% range 31%–83%)'
>>> risk_words(s)
"−2 over 12 answers (−17 per 100 answers) by the judge's verdicts; by people's labels +0 (+0 per 100 answers)"
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from ..core import formatting as fmt

#: What the label request's time rests on, in words.
TIME_NOTE = ("about {seconds} seconds a claim: the sample set's answers, 2 claims and 60 words of passages each, "
             "read at 230 words a minute with 15 seconds to decide each claim")


@dataclass(frozen=True)
class HeadlineWords:
    """The hallucination rate in words: ``figure`` (``50%`` or ``not measured yet``), ``how`` it was
    measured (or what it needs), ``range`` (``24%–76%``, empty when not measured), ``measured``."""

    figure: str
    how: str
    range: str
    measured: bool
    value: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None


def hallucination_words(s: Mapping[str, Any]) -> HeadlineWords:
    """People's hallucination rate as every output says it."""
    h = s["hallucination_rate"]
    if h["basis"] == "people":
        return HeadlineWords(fmt.percent(h["rate"]), "by people's labels on every answer",
                             fmt.percent_range(h["low"], h["high"]), True, h["rate"], h["low"], h["high"])
    if h["basis"] == "corrected":
        how = (f"corrected by people's labels on {fmt.number(h['labeled'])} of "
               f"{fmt.count(h['answered'], 'answer')}")
        return HeadlineWords(fmt.percent(h["rate"]), how, fmt.percent_range(h["low"], h["high"]), True, h["rate"],
                             h["low"], h["high"])
    request = s.get("label_request")
    how = label_request_words(s) if request else h.get("reason", "no answered case")
    return HeadlineWords("not measured yet", how, "", False)


def flagged_words(s: Mapping[str, Any]) -> str:
    """``flagged by the judge: 60% (6 of 10 answers; 95% range 31%–83%)``."""
    return f"flagged by the judge: {flagged_share(s)}"


def flagged_share(s: Mapping[str, Any]) -> str:
    """``60% (6 of 10 answers; 95% range 31%–83%)``: the answers the judge flags."""
    f = s["flagged_by_judge"]
    if not f["answered"]:
        return "n/a (no answered case)"
    return (f"{fmt.percent(f['rate'])} ({f['flagged']} of {fmt.count(f['answered'], 'answer')}; "
            f"95% range {fmt.percent_range(f['low'], f['high'])})")


def label_request_words(s: Mapping[str, Any], sheet: str = "") -> str:
    """What the labels would settle and what they cost: ``label 107 answers (about 95 minutes) for a
    range of ±5 points``; ``sheet`` names the labeling sheet that holds them."""
    r = s.get("label_request")
    if not r:
        return ""
    points = f"\u00b1{100 * r['margin']:g} points"
    minutes = f"about {fmt.count(r['minutes'], 'minute')}"
    where = f" ({sheet} holds them, in an order that may stop at any row)" if sheet else ""
    if r["labeled"]:
        if not r["more"]:
            return f"{fmt.number(r['labeled'])} labeled answers reach the {points} the request asked for"
        if not r["reached"]:
            return (f"label the {fmt.count(r['more'], 'answer')} still unlabeled ({minutes}); "
                    f"{fmt.number(r['labeled'])} labeled so far{where}; even with every answer labeled the range stays "
                    f"about \u00b1{_half(r)} points: more answers would narrow it")
        return (f"label {fmt.number(r['more'])} more of the answers drawn ({minutes}) for a range of {points}; "
                f"{fmt.number(r['labeled'])} labeled so far{where}")
    if not r["reached"]:
        return (f"label all {fmt.count(r['answers'], 'answer')} ({minutes}){where}; even then the range is about "
                f"\u00b1{_half(r)} points: more answers would narrow it")
    return f"label {fmt.count(r['answers'], 'answer')} ({minutes}) for a range of {points}{where}"


def _half(r: Mapping[str, Any]) -> str:
    return f"{100 * (r['expected_margin'] or 0):.0f}"


def label_request_basis(s: Mapping[str, Any]) -> str:
    """What the label request's size and time rest on, in a sentence."""
    r = s.get("label_request")
    if not r:
        return ""
    return (f"The request is stratified by the judge's verdict, labels in proportion to each stratum; its size "
            f"rests on {r['basis']}; its time on " + TIME_NOTE.format(seconds=r["seconds_per_claim"]) + ".")


def risk_words(s: Mapping[str, Any]) -> str:
    """The risk-weighted score in words, over the run and per 100 answers, by the judge's verdicts
    and, where every answer carries labels, by people's."""
    rw = s["risk_weighted"]
    n = rw["answers"]
    if not n:
        return "n/a (no answer scored)"
    text = (f"{fmt.signed(s['risk_weighted_score'])} over {fmt.count(n, 'answer')} "
            f"({fmt.signed(rw['per_100'])} per 100 answers) by the judge's verdicts")
    person = rw.get("by_person")
    if person:
        text += f"; by people's labels {fmt.signed(person['total'])} ({fmt.signed(person['per_100'])} per 100 answers)"
    return text


def agreement_words(a: Mapping[str, Any]) -> str:
    """The judge against people, claim by claim: caught and false alarms (flagged or not), then the
    share with the very same verdict (supported, contradicted or unsupported), which is stricter."""
    c, f, g = a["caught"], a["false_alarms"], a["agreement"]
    return (f"caught {c['caught']} of {fmt.count(c['hallucinated'], 'hallucinated claim')}, false alarms on "
            f"{f['flagged']} of {fmt.count(f['supported'], 'supported claim')}; the same verdict as people on "
            f"{g['agree']} of {g['claims']}")


__all__ = ["HeadlineWords", "agreement_words", "flagged_share", "flagged_words", "hallucination_words", "label_request_basis",
           "label_request_words", "risk_words"]
