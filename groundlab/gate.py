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

from .records import GroundlabError
from .stats import percent

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


def check_names(conditions: Iterable[Union[str, Condition]], known: Sequence[str]) -> List[Condition]:
    """The conditions, read and checked against the figure names ``known``, before anything is
    judged: a name that is no figure is one sentence naming the closest ones."""
    out = []
    for condition in conditions:
        condition = parse_condition(condition) if isinstance(condition, str) else condition
        if condition.figure not in known:
            close = difflib.get_close_matches(condition.figure, known, n=3, cutoff=0.5)
            hint = f"did you mean {' or '.join(close)}?" if close else \
                "the figures are the numbers of 'groundlab score --json', such as hallucination_rate.high"
            raise GroundlabError(f"the condition {condition.text!r} names {condition.figure!r}, which is not a "
                                 f"figure of score --json; {hint}")
        out.append(condition)
    return out


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
    out = []
    for condition in conditions:
        condition = parse_condition(condition) if isinstance(condition, str) else condition
        if known is not None:
            check_names([condition], known)
        try:
            value = figure(summary, condition.figure)
        except KeyError:
            raise GroundlabError(f"the condition {condition.text!r} names {condition.figure!r}, which is not in "
                                 "these figures; check the name against 'groundlab score --json'.") from None
        group = condition.figure.rsplit(".", 1)[0] if "." in condition.figure else None
        if value is None or (isinstance(value, float) and math.isnan(value)):
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


def _why_undefined(summary: Mapping[str, Any], group: Optional[str]) -> str:
    counts = figure(summary, group) if group else None
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
    (count, n), (total, d) = [(k, v) for k, v in counts.items() if k not in ("rate", "low", "high")][:2]
    text = f"{n}/{d} {total.replace('_', ' ')}, {percent(counts['rate'])}"
    if counts.get("low") is not None:
        text += f", 95% range {percent(counts['low'])}\u2013{percent(counts['high'])}"
    return text


__all__ = ["Condition", "Failure", "OPERATORS", "check_names", "failing", "figure", "parse_condition"]
