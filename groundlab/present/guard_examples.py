"""The runtime guard in a notebook: its outcomes per mode for reading (:func:`guard_outcome_table`)
and what a reader would see from each mode, answer by answer (:func:`guard_examples`)."""

from __future__ import annotations

from typing import Optional, Sequence

import pandas as pd

from ..core.claims import ClaimSplitter
from ..core.io import PathLike
from ..core.records import Case
from ..core.stats import Rate
from .judge_comparison import guarded_judge, judge_config_options


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


def guard_examples(cases: Sequence[Case], judge: Optional[str] = None, splitter: Optional[ClaimSplitter] = None,
                   route_when: Optional[str] = None, every: bool = False, *, policy: Optional[PathLike] = None,
                   mask: bool = False, mask_names: Sequence[str] = (), provider: Optional[str] = "") -> pd.DataFrame:
    """What a reader would see from each guard mode, one row per answer the guard acts on (``every``:
    per answer with a claim): the answer as given, the claims a person found not supported (where
    labeled), the answer as ``flag`` and ``hide`` show it, which modes send it to a person (``route``
    whenever a claim is not backed; the others under their route rule), and the judge's reasons.
    ``judge``: the guard's own unless named; ``provider``: where the llm judge's requests go (as
    the notebooks' parameter; empty: ``$LLM_PROVIDER``, else ``anthropic``).

    >>> from groundlab import load_cases, sample_path
    >>> rows = guard_examples(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> rows.loc[rows["case"] == "c10", "hide"].item()
    'Safety stock is a buffer quantity that planning keeps for uncertain demand [D15]. (Removed: not backed by the sources.)'
    """
    from ..production.guard import GUARD_JUDGE, guard, judge_object

    from ..measure.policy import make_judge

    options = judge_config_options(judge, None, provider) if isinstance(judge, str) else {}
    judge_used = guarded_judge(make_judge(judge, **options) if options else judge_object(judge or GUARD_JUDGE),
                               policy, mask, mask_names)
    if policy is not None and str(policy).strip():
        from ..measure.policy import policy_of

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
