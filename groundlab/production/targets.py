"""Targets per process and kind of claim, read from a TOML file, and a pass/fail table against them.

A targets file sets the highest hallucination rate the assistant may have, overall, per kind of
claim, per process, or per kind within a process, and optionally how much each kind weighs in
the weighted risk score (:func:`groundlab.metrics.weighted_risk_score`)::

    max_rate = 0.10            # all answers: answered cases with a claim not supported

    [kind]                     # claims stating this kind that are not supported
    amount = 0.02
    id = 0.02

    [process]                  # answers of this process with a claim not supported
    "procure-to-pay" = 0.10

    [[target]]                 # claims of one kind within one process
    process = "procure-to-pay"
    kind = "quantity"
    max_rate = 0.01

    [weights]                  # what a wrong answer weighs, by its most severe wrong kind (default 1)
    amount = 5
    id = 3

    max_false_abstention = 0.10   # the decision panel: answerable questions declined, at most
    min_citation_accuracy = 0.90  # the decision panel: citations that back their claim, at least

A target is **met** when the upper end of the rate's Wilson 95% range is at or below it: the
test set must show, not merely suggest, that the rate is low enough. A rate within the target
whose range reaches above it fails with a note that more answers are needed; a target with
nothing to measure (no claim of that kind, no answer of that process) has ``no data`` and is not
met either. Rates are the rows of :func:`groundlab.metrics.hallucination_breakdown`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

import pandas as pd

from ..core.io import PathLike, read_text
from ..core.kinds import KINDS
from ..core.metrics import claim_hallucination_rate, claim_process, claims_of_kind
from ..core.records import InputError
from ..core.stats import Rate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: What ``groundlab targets FILE`` writes: the decision panel's three targets, set to values many
#: teams start from, and the finer ones shown as comments. Each figure must show, with its whole
#: 95% range, that it meets its target.
STARTER = """# groundlab targets: what the assistant must show before it goes live (docs/severity.md).
# A target is met when the whole 95% range of its figure is on the right side of it.

# The hallucination rate (people's: by their labels, or the judge's flags corrected by them):
# answered questions with a claim the passages do not back, at most this share.
max_rate = 0.05

# Answerable questions the assistant declined, at most this share.
max_false_abstention = 0.10

# Citations that back the claim they are cited for, at least this share.
min_citation_accuracy = 0.90

# Finer limits on what the judge flags, by the kind of fact a claim states:
# [kind]
# amount = 0.02
# id = 0.02

# ... and by process (the "process" field of each case):
# [process]
# "procure-to-pay" = 0.10

# What a wrong answer weighs in the weighted risk score, by the worst kind it got wrong (default 1):
# [weights]
# amount = 5
# id = 3
"""

KEYS = ("max_rate", "kind", "process", "target", "weights", "max_false_abstention", "min_citation_accuracy")

TABLE_COLUMNS = ["target", "process", "kind", "unit", "max_rate", "hallucinated", "total", "rate", "low", "high",
                 "status", "note"]


@dataclass(frozen=True)
class Targets:
    """What a targets file asks: ``overall`` (all answers), ``kind``, ``process`` and
    ``process_kind`` (``(process, kind) -> rate``) maxima, and ``weights`` per kind."""

    overall: Optional[float] = None
    kind: Dict[str, float] = field(default_factory=dict)
    process: Dict[str, float] = field(default_factory=dict)
    process_kind: Dict[Tuple[str, str], float] = field(default_factory=dict)
    weights: Dict[str, float] = field(default_factory=dict)
    source: str = ""
    max_false_abstention: Optional[float] = None
    min_citation_accuracy: Optional[float] = None

    @property
    def count(self) -> int:
        return (self.overall is not None) + len(self.kind) + len(self.process) + len(self.process_kind)


def read_targets(targets: Union[PathLike, "Targets", None]) -> Optional["Targets"]:
    """``targets`` as :class:`Targets`: read from a targets file, passed on when read already, and
    ``None`` when there are none (``""`` or ``None``). Read once and hand the result on: the
    checks, the report and the slides of a run then share one reading of the file."""
    if targets is None or isinstance(targets, Targets):
        return targets
    return load_targets(targets) if str(targets).strip() else None


def load_targets(path: PathLike) -> Targets:
    """Read and check a targets file; every mistake is one sentence naming the file and key."""
    path = Path(path)
    name = str(path)
    if not path.exists():
        raise InputError(f"targets file {name} does not exist; check the path (docs/severity.md shows one).")
    if path.is_dir():
        raise InputError(f"targets file {name} is a folder; pass the path of a .toml file.")
    try:
        data = tomllib.loads(read_text(path, "targets"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{name} is not valid TOML ({exc}); fix that line and run again.") from None
    except RecursionError:
        raise InputError(f"{name} nests arrays or tables more deeply than groundlab reads; a targets file is a few "
                         "flat tables (see docs/severity.md).") from None
    except ValueError:  # a whole number longer than Python reads
        raise InputError(f"{name} holds a number too long to read (more than 4,300 digits); a rate is a number "
                         "from 0 to 1.") from None
    unknown = [key for key in data if key not in KEYS]
    if unknown:
        raise InputError(f"{name}: unknown key {unknown[0]!r}; a targets file holds max_rate, [kind], [process], "
                         "[[target]], [weights], max_false_abstention and min_citation_accuracy (see docs/severity.md).")
    overall = _rate(data["max_rate"], name, "max_rate") if "max_rate" in data else None
    kinds = {kind: _rate(value, name, f"kind.{kind}") for kind, value in _table(data, "kind", name).items()
             if _known_kind(kind, name, f"kind.{kind}")}
    processes = {}
    for process, value in _table(data, "process", name).items():
        if not process.strip():
            raise InputError(f"{name}: process \"\" has no name; write the process as the cases name it.")
        processes[process] = _rate(value, name, f"process.{_quoted(process)}")
    pairs: Dict[Tuple[str, str], float] = {}
    entries = data.get("target", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InputError(f"{name}: target must be written as [[target]] tables, each with process, kind and "
                         "max_rate.")
    for k, entry in enumerate(entries, 1):
        where = f"[[target]] number {k}"
        extra = [key for key in entry if key not in ("process", "kind", "max_rate")]
        missing = [key for key in ("process", "kind", "max_rate") if key not in entry]
        if extra or missing:
            problem = f"has the unknown key {extra[0]!r}" if extra else f"lacks {missing[0]!r}"
            raise InputError(f"{name}: [[target]] number {k} {problem}; each [[target]] holds process, kind and "
                             "max_rate.")
        process, kind = entry["process"], entry["kind"]
        if not isinstance(process, str) or not process.strip():
            raise InputError(f"{name}: {where}: process must be the name of a process, like \"procure-to-pay\", "
                             f"not {_show(process)}.")
        _known_kind(kind, name, f"{where}: kind")
        if (process, kind) in pairs:
            raise InputError(f"{name}: [[target]] number {k} repeats process {process!r} with kind {kind!r}; "
                             "keep one of them.")
        pairs[(process, kind)] = _rate(entry["max_rate"], name, f"{where}: max_rate")
    weights = {}
    for kind, value in _table(data, "weights", name).items():
        _known_kind(kind, name, f"weights.{kind}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or math.isinf(value) \
                or value < 0:
            raise InputError(f"{name}: weights.{kind} = {_show(value)} must be a number of 0 or more (1 is the "
                             "weight of a kind not listed).")
        weights[kind] = float(value)
    headline = {key: _rate(data[key], name, key) if key in data else None
                for key in ("max_false_abstention", "min_citation_accuracy")}
    targets = Targets(overall, kinds, processes, pairs, weights, name, **headline)
    if not targets.count and not weights and not any(v is not None for v in headline.values()):
        raise InputError(f"{name} sets no target; add max_rate, a [kind] or [process] table, [[target]] or "
                         "[weights] (see docs/severity.md).")
    return targets


def _table(data: dict, key: str, name: str) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise InputError(f"{name}: {key} must be a table, written [{key}] with one line per entry, not "
                         f"{_show(value)}.")
    return value


def _known_kind(kind: object, name: str, key: str) -> bool:
    if kind not in KINDS:
        raise InputError(f"{name}: {key}: {_show(kind)} is not a kind of claim; use "
                         f"{', '.join(KINDS[:-1])} or {KINDS[-1]}.")
    return True


def _rate(value: object, name: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InputError(f"{name}: {key} = {_show(value)} is not a rate between 0 and 1; write 2% as 0.02.")
    return float(value)


def _show(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _quoted(key: str) -> str:
    return key if key.replace("-", "").replace("_", "").isalnum() else f'"{key}"'


def target_table(targets: Targets, claims: pd.DataFrame, cases: pd.DataFrame) -> pd.DataFrame:
    """One row per target: what it measures, its maximum, the rate with its count and Wilson 95%
    range, ``status`` (``pass``, ``fail``, ``no data`` or ``not measured``) and a ``note`` saying
    why (columns :data:`TABLE_COLUMNS`). Pass means the upper end of the range is at or below the
    maximum.

    The target on all answers is checked on the hallucination rate, people's (by their labels on
    every answer, or the judge's flags corrected by them: :func:`groundlab.summary.score_summary`),
    as the decision panel's tile is; until some answers carry labels it is ``not measured``. The
    finer targets, by kind of claim and by process, are checked on what the judge flags."""
    rows: List[dict] = []
    if targets.overall is not None:
        rows.append(_headline_row(targets.overall, cases, claims))
    for kind, limit in sorted(targets.kind.items(), key=lambda item: KINDS.index(item[0])):
        rows.append(_judged_row(f"kind {kind}", None, kind, "claims", limit,
                                _claim_rate(claims[claims_of_kind(claims, kind)]), f"no judged {kind} claim"))
    for process, limit in targets.process.items():
        rows.append(_judged_row(f"process {process}", process, None, "answers", limit,
                                _answer_rate(cases[cases["process"] == process]),
                                f"no answered case of process {process!r}"))
    if targets.process_kind:
        process_of = claim_process(claims, cases)
        for (process, kind), limit in targets.process_kind.items():
            mine = claims[(process_of == process).to_numpy() & claims_of_kind(claims, kind).to_numpy()]
            rows.append(_judged_row(f"{process} / {kind}", process, kind, "claims", limit, _claim_rate(mine),
                                    f"no judged {kind} claim in process {process!r}"))
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def _headline_row(limit: float, cases: pd.DataFrame, claims: pd.DataFrame) -> dict:
    """The target on all answers, against people's hallucination rate (the decision panel's)."""
    from types import SimpleNamespace

    from ..measure.summary import score_summary

    h = score_summary(SimpleNamespace(claims=claims, cases=cases, judge=""))["hallucination_rate"]
    if h["basis"] == "people":
        return _judged_row("all answers", None, None, "answers", limit, Rate(h["hallucinated"], h["answered"]),
                           "no answered case")
    row = {"target": "all answers", "process": None, "kind": None, "unit": "answers", "max_rate": limit,
           "hallucinated": None, "total": h["answered"], "rate": math.nan, "low": math.nan, "high": math.nan}
    if h["basis"] is None:
        row.update(status="not measured", note=f"the hallucination rate is not measured yet ({h.get('reason')}): "
                                                "label the answers the report asks for")
        return row
    row.update(rate=h["rate"], low=h["low"], high=h["high"], hallucinated=None)
    if h["high"] <= limit:
        row.update(status="pass", note="the whole range is within the target")
    elif h["rate"] > limit:
        row.update(status="fail", note="the rate is above the target")
    else:
        row.update(status="fail", note="the rate is within the target but its range reaches above it: "
                                       "more labels are needed to show it")
    return row


def _answer_rate(cases: pd.DataFrame) -> Rate:
    """As :func:`groundlab.metrics.hallucination_rate`, with no warning for a rate over nothing: the table says so."""
    flags = cases.loc[cases["claims"] > 0, "hallucinated"].dropna()
    return Rate(int(flags.sum()), len(flags))


def _claim_rate(claims: pd.DataFrame) -> Rate:
    if not claims["verdict"].notna().any():
        return Rate(0, 0)
    return claim_hallucination_rate(claims)


def _judged_row(target: str, process: Optional[str], kind: Optional[str], unit: str, limit: float,
                rate: Rate, nothing: str) -> dict:
    row = {"target": target, "process": process, "kind": kind, "unit": unit, "max_rate": limit,
           "hallucinated": rate.count, "total": rate.total, "rate": rate.rate}
    if not rate.total:
        row.update(low=math.nan, high=math.nan, status="no data", note=f"{nothing}: nothing shows the target is met")
        return row
    low, high = rate.interval
    row.update(low=low, high=high)
    if high <= limit:
        row.update(status="pass", note="the whole range is within the target")
    elif rate.rate > limit:
        row.update(status="fail", note="the rate is above the target")
    else:
        row.update(status="fail", note="the rate is within the target but its range reaches above it: "
                                       "more answers are needed to show it")
    return row


def targets_met(table: pd.DataFrame) -> bool:
    """Whether every target passed (a target with no data has not)."""
    return bool((table["status"] == "pass").all())


__all__ = ["read_targets", "KEYS", "TABLE_COLUMNS", "Targets", "load_targets", "target_table", "targets_met"]
