"""Release gates: conditions on the figures of ``groundlab score --json`` that stop a pipeline.

A condition names a figure by its dotted path in ``score --json``, compares it with ``<``, ``<=``,
``>``, ``>=``, ``==`` or ``!=`` and a number or a percentage::

    hallucination_rate.high > 0.10        the upper end of the 95% range is above 10%
    false_abstention.rate > 20%           more than a fifth of answerable questions declined
    outcomes.wrong >= 3

The gate *fails* when any condition holds (``score --fail-if`` exits 1). A condition that cannot
be read, a name that is no figure, and a figure that is undefined on these cases (``null``: a rate
over nothing, such as abstention without unanswerable cases) are mistakes in the gate itself:
:class:`~groundlab.records.GroundlabError`, exit 2. An undefined rate never passes silently:
a gate on false abstention over a test set with no answerable case checks nothing, and should say
so rather than let a release through.

>>> summary = {"hallucination_rate": {"hallucinated": 6, "answered": 10, "rate": 0.6, "low": 0.31, "high": 0.83}}
>>> [str(f) for f in failing(["hallucination_rate.high > 10%"], summary)]
['hallucination_rate.high > 10% (it is 0.83: 6/10 answered, 60%, 95% range 31%\u201383%)']
>>> failing(["hallucination_rate.rate < 0.5"], summary)
[]
"""

from __future__ import annotations

import difflib
import math
import operator
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ..core.records import GroundlabError
from ..core.stats import percent

OPERATORS: Dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt}

_CONDITION = re.compile(r"^\s*([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\s*(<=|>=|==|!=|<|>)\s*"
                        r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(%?)\s*$")


@dataclass(frozen=True)
class Condition:
    """One gate condition: ``figure op threshold`` (a percentage already divided by 100)."""

    figure: str
    op: str
    threshold: float
    text: str

    def __post_init__(self) -> None:
        _check_threshold(self)

    def holds(self, value: float) -> bool:
        return OPERATORS[self.op](value, self.threshold)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Failure:
    """A condition that held, with the figure's value and the rate it belongs to."""

    condition: Condition
    value: float
    context: str = ""

    def __str__(self) -> str:
        return f"{self.condition} (it is {self.value:.4g}{': ' + self.context if self.context else ''})"


def parse_condition(text: str) -> Condition:
    """Read ``"hallucination_rate.high > 0.10"``; a malformed condition is one sentence.

    >>> parse_condition("false_abstention.rate>=20%")
    Condition(figure='false_abstention.rate', op='>=', threshold=0.2, text='false_abstention.rate >= 20%')

    A rate (a figure ending in ``.rate``, ``.low`` or ``.high``) is between 0 and 1, so a threshold
    outside that range is refused rather than checking nothing:

    >>> parse_condition("hallucination_rate.rate > 10")
    Traceback (most recent call last):
    ...
    groundlab.core.records.GroundlabError: the condition 'hallucination_rate.rate > 10' compares a rate, which is between 0 and 1, with 10, so it checks nothing; if you meant 10%, write 0.1 or 10%.
    """
    match = _CONDITION.match(text)
    if not match:
        raise GroundlabError(
            f"the condition {text!r} cannot be read; write it as FIGURE OP NUMBER, such as "
            "'hallucination_rate.high > 0.10' or 'false_abstention.rate > 20%' (OP is one of "
            f"{' '.join(sorted(OPERATORS, key=len))}).")
    figure, op, number, pct = match.groups()
    threshold = float(number) / (100 if pct else 1)
    return Condition(figure, op, threshold, f"{figure} {op} {number}{pct}")


#: The last part of the name of a figure that is a rate, between 0 and 1.
RATE_FIELDS = ("rate", "low", "high")


def is_rate(name: str) -> bool:
    """Whether the figure ``name`` is a rate (or an end of its range), between 0 and 1."""
    return "." in name and name.rsplit(".", 1)[1] in RATE_FIELDS


def _check_threshold(condition: Condition) -> None:
    """Refuse a threshold that makes the condition check nothing: not a number, NaN or infinite,
    or outside 0..1 on a rate (``hallucination_rate.rate > 10`` meant as 10%)."""
    threshold = condition.threshold
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise GroundlabError(f"the condition {condition.text!r} has the threshold {threshold!r}, which is not a "
                             "number; write a number such as 0.10 or a percentage such as 10%.")
    if math.isnan(threshold) or math.isinf(threshold):
        raise GroundlabError(f"the condition {condition.text!r} has the threshold {threshold:g}, which no figure "
                             "can be compared with, so it checks nothing; write a number such as 0.10 or a "
                             "percentage such as 10%.")
    if is_rate(condition.figure) and not 0 <= threshold <= 1:
        if threshold > 1 and threshold <= 100:
            hint = f"if you meant {threshold:g}%, write {threshold / 100:g} or {threshold:g}%"
        else:
            hint = "write it between 0 and 1, such as 0.10, or as a percentage, such as 10%"
        raise GroundlabError(f"the condition {condition.text!r} compares a rate, which is between 0 and 1, with "
                             f"{threshold:g}, so it checks nothing; {hint}.")


def check_names(conditions: Iterable[Union[str, Condition]], known: Sequence[str]) -> List[Condition]:
    """The conditions, read and checked against the figure names ``known``, before anything is
    judged: a name that is no figure is one sentence naming the closest ones."""
    if isinstance(conditions, (str, Condition)):
        conditions = [conditions]
    out = []
    for condition in conditions:
        condition = _read(condition)
        if condition.figure not in known:
            close = difflib.get_close_matches(condition.figure, known, n=3, cutoff=0.5)
            hint = f"did you mean {' or '.join(close)}?" if close else \
                "the figures are the numbers of 'groundlab score --json', such as hallucination_rate.high"
            raise GroundlabError(f"the condition {condition.text!r} names {condition.figure!r}, which is not a "
                                 f"figure of score --json; {hint}")
        out.append(condition)
    return out


def _read(condition: Union[str, Condition]) -> Condition:
    if isinstance(condition, Condition):
        return condition
    if not isinstance(condition, str):
        raise GroundlabError(f"the condition {condition!r} cannot be read; a condition is a string such as "
                             "'hallucination_rate.high > 0.10'.")
    return parse_condition(condition)


def figure(summary: Mapping[str, Any], name: str) -> Any:
    """The value at a dotted ``name`` in ``summary``; a missing name raises :class:`KeyError`, a
    name under a ``null`` group gives ``None``."""
    value: Any = summary
    for part in name.split("."):
        if value is None:
            return None
        if not isinstance(value, Mapping) or part not in value:
            raise KeyError(name)
        value = value[part]
    return value


def failing(conditions: Iterable[Union[str, Condition]], summary: Mapping[str, Any],
            known: Optional[Sequence[str]] = None) -> List[Failure]:
    """The conditions that hold on ``summary`` (the gate fails when any does), each with the value
    it found. Unknown names, non-numbers and undefined (``null``) figures raise one sentence."""
    if isinstance(conditions, (str, Condition)):
        conditions = [conditions]
    out = []
    for condition in conditions:
        condition = _read(condition)
        if known is not None:
            check_names([condition], known)
        try:
            value = figure(summary, condition.figure)
        except KeyError:
            raise GroundlabError(f"the condition {condition.text!r} names {condition.figure!r}, which is not in "
                                 "these figures; check the name against 'groundlab score --json'.") from None
        group = condition.figure.rsplit(".", 1)[0] if "." in condition.figure else None
        if value is None or (isinstance(value, float) and math.isnan(value)):
            unknown = _answerable_missing(condition, summary, group)
            if unknown:
                raise GroundlabError(unknown)
            raise GroundlabError(
                f"the condition {condition.text!r} cannot be checked: {condition.figure} is undefined on these "
                f"cases{_why_undefined(summary, group)}, and a gate on a figure that does not exist neither "
                "passes nor fails; gate on another figure or add cases it can be measured on.")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise GroundlabError(f"the condition {condition.text!r} names {condition.figure!r}, which is not a "
                                 "number; name one of its figures, such as hallucination_rate.rate.")
        if condition.holds(value):
            out.append(Failure(condition, value, _context(summary, group)))
    return out


#: The rates over answerable or unanswerable questions, which need each case's "answerable" field:
#: the rate's group, the count it is a rate over, and the value a case needs for it.
_OVER_ANSWERABLE = {"false_abstention": ("answerable", "true"), "abstention": ("unanswerable", "false")}


def _answerable_missing(condition: Condition, summary: Mapping[str, Any], group: Optional[str]) -> str:
    """Why a gate on (false) abstention cannot decide when no case says whether its question can be
    answered, and what to add; ``""`` for any other undefined figure.

    >>> summary = {"cases": 3, "abstention": {"abstained": 0, "unanswerable": 0, "rate": None},
    ...            "false_abstention": {"abstained": 0, "answerable": 0, "rate": None}}
    >>> print(_answerable_missing(parse_condition("false_abstention.rate > 20%"), summary, "false_abstention"))
    the condition 'false_abstention.rate > 20%' cannot be decided: none of the 3 cases says whether its question can be answered from its passages (no "answerable" field), so false abstention is measured on no case; add "answerable": true to each case whose passages hold the answer ("answerable": false to those whose passages do not), or gate on another figure.
    """
    if group not in _OVER_ANSWERABLE:
        return ""
    over, needed = _OVER_ANSWERABLE[group]
    counts = figure(summary, group)
    other = figure(summary, "abstention" if group == "false_abstention" else "false_abstention")
    cases = summary.get("cases")
    if not isinstance(counts, Mapping) or counts.get(over) != 0 or not cases:
        return ""
    what = group.replace("_", " ")
    known = other.get("unanswerable" if group == "false_abstention" else "answerable") if isinstance(other, Mapping) \
        else None
    if not known:
        return (f"the condition {condition.text!r} cannot be decided: none of the {cases} cases says whether its "
                f"question can be answered from its passages (no \"answerable\" field), so {what} is measured on no "
                f"case; add \"answerable\": true to each case whose passages hold the answer (\"answerable\": false "
                "to those whose passages do not), or gate on another figure.")
    return (f"the condition {condition.text!r} cannot be decided: {what} is a rate over the {over} questions and "
            f"every case that says has \"answerable\": {'false' if needed == 'true' else 'true'} ({known} of "
            f"{cases}); add cases with \"answerable\": {needed} to measure it, or gate on another figure.")


def _why_undefined(summary: Mapping[str, Any], group: Optional[str]) -> str:
    counts = figure(summary, group) if group else None
    if group == "hallucination_rate" and isinstance(counts, Mapping):
        request = summary.get("label_request") or {}
        more = (f"; label the {request['more']} answers the label request names (groundlab run writes the "
                "sheet)" if request.get("more") else "")
        return (f" ({counts.get('reason', 'not measured')}: it is people's rate, and the judge's own share is "
                f"flagged_by_judge{more})")
    if counts is None and group:
        return f" ({group} is null: no labeled answers)" if group.endswith("_by_person") else f" ({group} is null)"
    if isinstance(counts, Mapping):
        total = [(k, v) for k, v in counts.items() if k not in ("rate", "low", "high")]
        if len(total) == 2 and total[1][1] == 0:
            return f" (it is a rate over 0 {total[1][0].replace('_', ' ')})"
    return ""


def _context(summary: Mapping[str, Any], group: Optional[str]) -> str:
    """``6/10 answered, 60%, 95% range 31%–83%`` for a figure of a rate; ``""`` otherwise."""
    counts = figure(summary, group) if group else None
    if not isinstance(counts, Mapping) or "rate" not in counts:
        return ""
    if "basis" in counts:  # the hallucination rate: by people's labels, or corrected by them
        how = ("by people's labels on every answer" if counts["basis"] == "people" else
               f"corrected by people's labels on {counts['labeled']} of {counts['answered']} answers")
        return (f"{percent(counts['rate'])} {how}, 95% range {percent(counts['low'])}\u2013"
                f"{percent(counts['high'])}")
    (count, n), (total, d) = [(k, v) for k, v in counts.items() if k not in ("rate", "low", "high")][:2]
    text = f"{n}/{d} {total.replace('_', ' ')}, {percent(counts['rate'])}"
    if counts.get("low") is not None:
        text += f", 95% range {percent(counts['low'])}\u2013{percent(counts['high'])}"
    return text


__all__ = ["Condition", "Failure", "OPERATORS", "RATE_FIELDS", "check_names", "failing", "figure", "is_rate",
           "parse_condition"]
