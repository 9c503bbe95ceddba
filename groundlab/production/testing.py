"""Gates for a project's own test suite: fail a test when the assistant's answers stray from their
passages, as ``groundlab score --fail-if`` fails a pipeline step.

>>> from groundlab import sample_path
>>> summary = assert_grounded(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"),
...                           max_hallucination_rate=0.7, fail_if=["false_abstention.high > 50%"])
>>> summary["hallucination_rate"]["rate"], summary["flagged_by_judge"]["rate"]
(0.5, 0.6)
>>> assert_grounded(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"), max_hallucination_rate=0.4)
Traceback (most recent call last):
...
AssertionError: the answers are less grounded than required (judge signals, 12 cases):
  hallucination_rate.rate > 0.4 (it is 0.5: 50% by people's labels on every answer, 95% range 24%\u201376%)

The hallucination rate is people's (the sample set's cases carry their labels): on cases without
labels it is not measured, and a limit on it cannot be checked (an error says so); limit what the
judge flags with ``fail_if=["flagged_by_judge.high > 0.2"]`` instead.

A limit is a rate between 0 and 1; anything else would check nothing, and is refused:

>>> assert_grounded(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"), max_hallucination_rate=10)
Traceback (most recent call last):
...
groundlab.core.records.GroundlabError: max_hallucination_rate=10 is not a rate between 0 and 1, so it would check nothing; if you meant 10%, write 0.1.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from ..core.io import PathLike
from ..judges import DEFAULT_JUDGE
from ..core.records import Case, GroundlabError

#: The keyword limits and the condition each one stands for: a limit is broken when its
#: condition holds. They bound the rate itself; gate on the range with ``fail_if``
#: (``"hallucination_rate.high > 0.10"``: fail unless the rate is shown to be at most 10%).
LIMITS = {
    "max_hallucination_rate": ("hallucination_rate.rate", ">"),
    "min_faithfulness": ("faithfulness.rate", "<"),
    "max_false_abstention": ("false_abstention.rate", ">"),
    "min_abstention": ("abstention.rate", "<"),
    "min_citation_precision": ("citation_precision.rate", "<"),
    "min_citation_recall": ("citation_recall.rate", "<"),
}


def assert_grounded(cases: Union[PathLike, Sequence[Case]], passages: Optional[PathLike] = None,
                    judge: Any = DEFAULT_JUDGE, *, max_hallucination_rate: Optional[float] = None,
                    min_faithfulness: Optional[float] = None, max_false_abstention: Optional[float] = None,
                    min_abstention: Optional[float] = None, min_citation_precision: Optional[float] = None,
                    min_citation_recall: Optional[float] = None, fail_if: Union[str, Iterable[str]] = (),
                    splitter: Any = None, penalty: float = 1.0) -> Dict[str, Any]:
    """Judge ``cases`` and raise :class:`AssertionError`, listing every broken limit with its
    figures, when a limit is broken or a ``fail_if`` condition (as ``score --fail-if`` takes them)
    holds. Returns the figures of ``score --json`` otherwise.

    Each limit is a rate between 0 and 1 (``max_hallucination_rate=0.1`` for 10%); one outside that
    range, NaN or not a number raises :class:`~groundlab.GroundlabError`. ``fail_if`` is one
    condition or a list of them.

    ``cases`` is a cases file or a list of :class:`~groundlab.Case`; ``judge`` a judge name or
    object. A condition that cannot be read, names no figure, or names a figure that is undefined
    on these cases (a rate over nothing) raises :class:`~groundlab.GroundlabError`: such a gate
    checks nothing, and a test should not pass because of it.
    """
    from ..measure.evaluate import evaluate
    from .gate import Condition, check_names, failing
    from ..core.io import load_cases
    from ..measure.summary import SCORE_FIGURES, score_summary

    given = {"max_hallucination_rate": max_hallucination_rate, "min_faithfulness": min_faithfulness,
             "max_false_abstention": max_false_abstention, "min_abstention": min_abstention,
             "min_citation_precision": min_citation_precision, "min_citation_recall": min_citation_recall}
    conditions: List[Union[str, Condition]] = [
        Condition(LIMITS[name][0], LIMITS[name][1], limit, f"{LIMITS[name][0]} {LIMITS[name][1]} {limit:g}")
        for name, limit in ((name, _limit(name, value)) for name, value in given.items() if value is not None)]
    conditions += check_names([fail_if] if isinstance(fail_if, str) else list(fail_if), SCORE_FIGURES)
    loaded = load_cases(cases, passages) if isinstance(cases, (str, Path)) else list(cases)
    ev = evaluate(loaded, judge, splitter=splitter)
    summary = score_summary(ev, penalty)
    failed = failing(conditions, summary)
    if failed:
        raise AssertionError(f"the answers are less grounded than required (judge {summary['judge']}, "
                             f"{summary['cases']} cases):" + "".join(f"\n  {f}" for f in failed))
    return summary


def _limit(name: str, value: Any) -> float:
    """The keyword limit ``name=value`` as a rate; one sentence when it is not one."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise GroundlabError(f"{name}={value!r} is not a number; write the rate as a number between 0 and 1, "
                             "such as 0.1 for 10%.")
    limit = float(value)
    if math.isnan(limit) or not 0 <= limit <= 1:
        hint = f"; if you meant {limit:g}%, write {limit / 100:g}" if 1 < limit <= 100 else \
            "; write it between 0 and 1, such as 0.1 for 10%"
        raise GroundlabError(f"{name}={limit:g} is not a rate between 0 and 1, so it would check nothing{hint}.")
    return limit


__all__ = ["LIMITS", "assert_grounded"]
