"""An evaluation: the claim and case frames one run fills, their columns and their types, and
the columns a judged chunk fills before they become frames (:mod:`groundlab.measure.judging`
fills them, :mod:`groundlab.measure.evaluate` gathers them)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Mapping, Sequence, Tuple

if TYPE_CHECKING:  # pragma: no cover - numpy and pandas are imported where frames are built
    import pandas as pd

    from ..judges import Judge
    from ..core.claims import ClaimSplitter


@dataclass
class Evaluation:
    """The judged claims and cases of one run.

    ``claims``: one row per claim — ``case_id``, ``claim`` (1-based), ``text``, ``cites``,
    ``verdict`` (``None`` when the judge failed), ``reason``, ``score``, ``error``, ``label``
    (the person's, if any), ``citation_ok`` (its cited passages alone back it, ALCE recall),
    ``citations`` and ``relevant_citations`` (ALCE precision), ``kind`` (what the claim states,
    by rules: ``id``, ``amount``, ``date``, ``quantity`` or ``other``, the most severe when it
    states several) and ``kinds`` (all of them, most severe first; :mod:`groundlab.kinds`), ``evidence`` (the
    passage sentence that decided the verdict, ``None`` when the judge does not say: :class:`Verdict`),
    ``evidence_matched`` and ``evidence_clashed`` (the words and numbers found in it, and what parts it
    from the claim). ``claims.attrs["judge"]`` is the
    judge's identity (:func:`groundlab.identity.judge_identity`): which judge, model, prompt or
    weights, and which splitting settings gave these verdicts.

    ``cases``: one row per case — ``case_id``, ``question``, ``process`` (the business process the
    case belongs to, ``None`` when the cases file gives none), ``answerable``, ``labeled``,
    ``abstains`` (holds an abstention sentence), ``abstained`` (outcome), ``claims``, ``passages``
    (how many passages were retrieved for it; with none, every claim is unsupported), the counts
    per verdict and ``errors``, ``hallucinated`` (by the judge), ``hallucinated_by_person``,
    ``outcome`` (``correct`` / ``abstained`` / ``wrong``, or ``None`` when judge errors leave it
    open), ``cites_by_position`` (its ``[1]``-style citations were read as the passages at those
    positions, the passages carrying ids of other forms). ``correct`` needs every claim supported
    and the case not marked unanswerable: where
    ``answerable`` is unknown, passages that back every claim evidently held the answer. Then one
    column per field of the cases' ``meta``, named ``meta.<field>`` (``meta.model``; a nested
    object gives ``meta.<field>.<key>``), empty where a case lacks it: group by it to break any
    rate down (``hallucination_rate(ev.cases[ev.cases["meta.model"] == "v3"])``).
    """

    judge: str
    claims: pd.DataFrame
    cases: pd.DataFrame


def _evaluation(judge: Judge, splitter: ClaimSplitter, claims: Columns, rows: Columns) -> Evaluation:
    """The frames of a run, the claim frame carrying the judge's identity in ``attrs["judge"]``."""
    from ..core.identity import judge_identity

    frame = _frame(claims, CLAIM_COLUMNS)
    frame.attrs["judge"] = judge_identity(judge, splitter)
    return Evaluation(judge.name, frame, _case_frame(rows))


#: The columns of the two frames and their types ("boolean" may hold NA).
CLAIM_COLUMNS = {"case_id": object, "claim": int, "text": object, "cites": object, "verdict": object,
                 "reason": object, "score": float, "error": object, "label": object,
                 "citation_ok": "boolean", "citations": int, "relevant_citations": int, "kind": object,
                 "kinds": object, "evidence": object, "evidence_matched": object, "evidence_clashed": object}


CASE_COLUMNS = {"case_id": object, "question": object, "process": object, "answerable": "boolean",
                "labeled": bool, "abstains": bool, "abstained": bool, "claims": int, "passages": int, "supported": int,
                "contradicted": int, "unsupported": int, "errors": int, "hallucinated": "boolean",
                "hallucinated_by_person": "boolean", "outcome": object, "cites_by_position": bool}


Columns = Dict[str, list]


#: Not a column of the case frame: each case's ``meta``, spread into ``meta.<field>`` columns.
_META = "meta"


#: Not a column either: each case's ``(classification, origin, held_back)``, each a column of the
#: case frame when any case has it (a data policy's classification, a case made from an incident,
#: the judge a data policy kept a case from).
_EXTRA = "extra"
EXTRA_COLUMNS = ("classification", "origin", "held_back")


#: How deep nested ``meta`` objects are spread into columns; deeper values stay objects.
META_DEPTH = 3


def _frame(columns: Columns, types: Dict[str, object]) -> "pd.DataFrame":
    """A DataFrame from lists, typed up front: pandas then has nothing left to infer."""
    import numpy as np
    import pandas as pd

    data = {}
    for name, kind in types.items():
        values = columns[name]
        if kind is object:
            array = np.empty(len(values), dtype=object)
            array[:] = values
        elif kind is float:
            array = np.array([math.nan if v is None else v for v in values], dtype=float)
        elif kind == "boolean":
            array = pd.array(values, dtype="boolean")
        else:
            array = np.array(values, dtype=np.int64 if kind is int else bool)
        data[name] = array
    return pd.DataFrame(data, copy=False)


def _case_frame(rows: Columns) -> "pd.DataFrame":
    """The case frame, with a ``meta.<field>`` column for each field of the cases' ``meta``."""
    import numpy as np
    import pandas as pd

    frame = _frame(rows, CASE_COLUMNS)
    extra = rows.get(_EXTRA) or []
    for k, name in enumerate(EXTRA_COLUMNS):
        values = [e[k] for e in extra]
        if any(v is not None for v in values):
            array = np.empty(len(values), dtype=object)
            array[:] = values
            frame[name] = array
    metas = rows[_META]
    if not any(m is not None for m in metas):
        return frame
    flat = [_flatten(m, "meta") if m else {} for m in metas]
    names = list(dict.fromkeys(k for f in flat for k in f))
    extra = {}
    for name in names:
        array = np.empty(len(flat), dtype=object)
        array[:] = [f.get(name) for f in flat]
        extra[name] = array
    return pd.concat([frame, pd.DataFrame(extra, index=frame.index).infer_objects()], axis=1)


def _flatten(obj: Mapping, prefix: str, depth: int = META_DEPTH) -> Dict[str, object]:
    out: Dict[str, object] = {}
    for key, value in obj.items():
        name = f"{prefix}.{key}"
        if isinstance(value, dict) and value and depth > 1:
            out.update(_flatten(value, name, depth - 1))
        else:
            out[name] = value
    return out


def _empty_columns() -> Tuple[Columns, Columns]:
    rows: Columns = {k: [] for k in CASE_COLUMNS}
    rows[_META] = []
    rows[_EXTRA] = []
    return {k: [] for k in CLAIM_COLUMNS}, rows


def _merge(parts: Sequence[Tuple[Columns, Columns]]) -> Tuple[Columns, Columns]:
    if not parts:
        return _empty_columns()
    claims, rows = parts[0]
    for more_claims, more_rows in parts[1:]:
        for key in CLAIM_COLUMNS:
            claims[key].extend(more_claims[key])
        for key in rows:
            rows[key].extend(more_rows[key])
    return claims, rows
