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

Every key is a row of :func:`target_table`, whose state :func:`target_state` decides, the one
place the terminal, the exit status, ``score --json`` and the report read it from. A target is
**met** when the whole Wilson 95% range of its figure is on the right side of it (at or below a
maximum, at or above the minimum of citation accuracy): the test set must show, not merely
suggest, that the figure is good enough. A figure within the target whose range reaches across it
fails with a note that more answers are needed; a target with nothing to measure (no claim of that
kind, no answer of that process, no citation) has ``no data`` and is not met either. The finer
rates are the rows of :func:`groundlab.metrics.hallucination_breakdown`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Tuple, Union

from ..core.io import PathLike, read_text
from ..core.kinds import KINDS
from ..core.records import InputError
from ..core.stats import Rate

if TYPE_CHECKING:  # pandas and the measures load when a table is made: score without targets needs neither
    import pandas as pd

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

TABLE_COLUMNS = ["target", "process", "kind", "unit", "max_rate", "min_rate", "count", "hallucinated", "total", "rate",
                 "low", "high", "status", "state", "note"]


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
        """How many targets the file sets: a row of :func:`target_table` each."""
        return ((self.overall is not None) + (self.max_false_abstention is not None)
                + (self.min_citation_accuracy is not None) + len(self.kind) + len(self.process) + len(self.process_kind))


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
        for key in entry:
            if key != "max_rate":
                _not_misplaced(key, where, name)
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
    for entry in value:
        _not_misplaced(entry, f"[{key}]", name)
    return value


def _not_misplaced(entry: object, table: str, name: str) -> None:
    """A key of the file's top written below a table header belongs, in TOML, to that table: a
    ``max_false_abstention`` after ``[process]`` would be a process of that name, checked on nothing."""
    if entry in _TOP_KEYS:
        raise InputError(f"{name}: {entry} is written under {table}, and TOML reads every line after a table "
                         f"header as part of that table; move {entry} above the first table of the file.")


_TOP_KEYS = ("max_rate", "max_false_abstention", "min_citation_accuracy")


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


@dataclass(frozen=True)
class TargetState:
    """Where a figure stands against its target, decided in one place (:func:`target_state`) for
    the terminal, the exit status, ``score --json``, the report's panel, its decision and its table:
    ``status`` (``pass``, ``fail``, ``no data``, ``not measured``), ``state`` (the panel's
    ``good``, ``bad``, ``unsure`` or ``none``) and a ``note`` in words."""

    status: str
    state: str
    note: str

    @property
    def met(self) -> bool:
        return self.status == "pass"


def target_state(rate: Optional[float], low: Optional[float], high: Optional[float], total: int, limit: float,
                 bound: str = "max", *, unit: str = "answers", nothing: str = "nothing to measure") -> TargetState:
    """The state of a figure (``rate`` with its 95% range ``low``-``high`` over ``total``) against
    ``limit``, a maximum (``bound="max"``) or a minimum (``"min"``). Met (``pass``) when the whole
    range is on the right side of the limit; missed (``fail``, ``bad``) when the figure itself is on
    the wrong side; ``fail`` and ``unsure`` when the figure is within but its range reaches across,
    so that more ``unit`` are needed to show it; ``no data`` (``none``) with nothing to measure
    (``nothing`` says what is missing), which is not met either.

    >>> target_state(0.5, 0.24, 0.76, 10, 0.7).note
    'the rate is within the target but its range reaches above it: more answers are needed to show it'
    >>> target_state(0.95, 0.9, 0.98, 200, 0.9, "min").status
    'pass'
    """
    if bound not in ("max", "min"):
        raise ValueError(f"bound must be 'max' or 'min', not {bound!r}")
    if not total or rate is None or rate != rate or low is None or high is None:
        return TargetState("no data", "none", f"{nothing}: nothing shows the target is met")
    if bound == "max":
        shown, wrong_side, side, across = high <= limit, rate > limit, "above", "above"
    else:
        shown, wrong_side, side, across = low >= limit, rate < limit, "below", "below"
    if shown:
        return TargetState("pass", "good", "the whole range is within the target")
    if wrong_side:
        return TargetState("fail", "bad", f"the rate is {side} the target")
    return TargetState("fail", "unsure", f"the rate is within the target but its range reaches {across} it: "
                                         f"more {unit} are needed to show it")


#: The names of the rows on the decision panel's three figures, as the table and the decision name them.
HEADLINE_ROWS = {"all answers": "hallucination rate", "false abstention": "false abstention",
                 "citation accuracy": "citation accuracy"}


def target_table(targets: Targets, claims: pd.DataFrame, cases: pd.DataFrame,
                 summary: Optional[Dict] = None) -> pd.DataFrame:
    """One row per target of the file, every key it holds: what it measures, its limit
    (``max_rate``, or ``min_rate`` for citation accuracy, which must be at least its target), the
    rate with its count and Wilson 95% range, ``status`` (``pass``, ``fail``, ``no data`` or ``not
    measured``), the panel's ``state`` and a ``note`` saying why (columns :data:`TABLE_COLUMNS`),
    each decided by :func:`target_state`.

    The target on all answers is checked on the hallucination rate, people's (by their labels on
    every answer, or the judge's flags corrected by them: :func:`groundlab.summary.score_summary`),
    as the decision panel's tile is; until some answers carry labels it is ``not measured``. False
    abstention and citation accuracy are the panel's figures too (``summary``, the run's figures, is
    computed when not given). The finer targets, by kind of claim and by process, are checked on
    what the judge flags."""
    import pandas as pd

    from ..core.metrics import claim_process, claims_of_kind

    rows: List[dict] = []
    if targets.overall is not None or targets.max_false_abstention is not None \
            or targets.min_citation_accuracy is not None:
        if summary is None:
            from types import SimpleNamespace

            from ..measure.summary import score_summary

            summary = score_summary(SimpleNamespace(claims=claims, cases=cases, judge=""))
        if targets.overall is not None:
            rows.append(_headline_row(targets.overall, summary["hallucination_rate"]))
        if targets.max_false_abstention is not None:
            fa = summary["false_abstention"]
            rows.append(_judged_row("false abstention", None, None, "answerable questions",
                                    targets.max_false_abstention, fa["abstained"], fa["answerable"], fa,
                                    "no case says whether its question could be answered (set \"answerable\")",
                                    hallucinations=False))
        if targets.min_citation_accuracy is not None:
            from ..core.metrics import citations_undecided

            cp = summary["citation_precision"]
            nothing = ("every citation check was left undecided" if citations_undecided(claims)
                       else "no answer cites a passage")
            rows.append(_judged_row("citation accuracy", None, None, "citations", targets.min_citation_accuracy,
                                    cp["relevant"], cp["citations"], cp, nothing, bound="min",
                                    hallucinations=False))
    for kind, limit in sorted(targets.kind.items(), key=lambda item: KINDS.index(item[0])):
        rows.append(_rate_row(f"kind {kind}", None, kind, "claims", limit,
                              _claim_rate(claims[claims_of_kind(claims, kind)]), f"no judged {kind} claim"))
    for process, limit in targets.process.items():
        rows.append(_rate_row(f"process {process}", process, None, "answers", limit,
                              _answer_rate(cases[cases["process"] == process]),
                              f"no answered case of process {process!r}"))
    if targets.process_kind:
        process_of = claim_process(claims, cases)
        for (process, kind), limit in targets.process_kind.items():
            mine = claims[(process_of == process).to_numpy() & claims_of_kind(claims, kind).to_numpy()]
            rows.append(_rate_row(f"{process} / {kind}", process, kind, "claims", limit, _claim_rate(mine),
                                  f"no judged {kind} claim in process {process!r}"))
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def _headline_row(limit: float, h: Dict) -> dict:
    """The target on all answers, against people's hallucination rate (the decision panel's)."""
    if h["basis"] is None:
        row = _row("all answers", None, None, "answers", limit, None, h["answered"])
        row.update(status="not measured", state="unsure",
                   note=f"the hallucination rate is not measured yet ({h.get('reason')}): label the answers the "
                        "report asks for")
        return row
    # people's labels on every answer give a count; a rate weighed back from a labeled sample does not
    count = h["hallucinated"] if h["basis"] == "people" else None
    return _judged_row("all answers", None, None, "answers", limit, count, h["answered"], h, "no answered case",
                       more="labels" if h["basis"] != "people" else "answers")


def _row(target: str, process: Optional[str], kind: Optional[str], unit: str, limit: float, count: Optional[int],
         total: int, bound: str = "max", hallucinations: bool = True) -> dict:
    """A row before its state; ``hallucinated`` is the count on the rows that count hallucinations."""
    hallucinated = count if hallucinations else None
    return {"target": target, "process": process, "kind": kind, "unit": unit,
            "max_rate": limit if bound == "max" else None, "min_rate": limit if bound == "min" else None,
            "count": count, "hallucinated": hallucinated, "total": total, "rate": math.nan, "low": math.nan,
            "high": math.nan}


def _judged_row(target: str, process: Optional[str], kind: Optional[str], unit: str, limit: float,
                count: Optional[int], total: int, figure: Dict, nothing: str, bound: str = "max",
                more: Optional[str] = None, hallucinations: bool = True) -> dict:
    """A row on one of the run's figures (``figure``: its ``rate``, ``low`` and ``high``)."""
    row = _row(target, process, kind, unit, limit, count, total, bound, hallucinations)
    rate, low, high = (_number(figure.get(key)) for key in ("rate", "low", "high"))
    decided = target_state(rate, low, high, total, limit, bound, unit=more or unit, nothing=nothing)
    if decided.status != "no data":
        row.update(rate=rate, low=low, high=high)
    row.update(status=decided.status, state=decided.state, note=decided.note)
    return row


def _number(x: object) -> float:
    return math.nan if x is None else float(x)  # type: ignore[arg-type]


def _answer_rate(cases: pd.DataFrame) -> Rate:
    """As :func:`groundlab.metrics.hallucination_rate`, with no warning for a rate over nothing: the table says so."""
    flags = cases.loc[cases["claims"] > 0, "hallucinated"].dropna()
    return Rate(int(flags.sum()), len(flags))


def _claim_rate(claims: pd.DataFrame) -> Rate:
    from ..core.metrics import claim_hallucination_rate

    if not claims["verdict"].notna().any():
        return Rate(0, 0)
    return claim_hallucination_rate(claims)


def _rate_row(target: str, process: Optional[str], kind: Optional[str], unit: str, limit: float,
              rate: Rate, nothing: str) -> dict:
    low, high = rate.interval if rate.total else (math.nan, math.nan)
    return _judged_row(target, process, kind, unit, limit, rate.count, rate.total,
                       {"rate": rate.rate if rate.total else None, "low": low, "high": high}, nothing)


def limit_text(row: Mapping) -> str:
    """A row's limit as written, its side before it: ``≤ 5%``, ``≥ 90%``, ``≤ 2.5%``."""
    maximum = row.get("max_rate")
    if maximum is not None and maximum == maximum:
        return f"\u2264 {100 * maximum:.4g}%"
    return f"\u2265 {100 * row['min_rate']:.4g}%"


def target_summary(table: pd.DataFrame) -> Dict:
    """How a table of targets came out, counted once for the terminal, ``score --json`` and the
    exit status: ``count``, ``met``, ``failed`` (every row neither met nor waiting for people's
    labels: a missed target and one with no data alike) and ``not_measured``."""
    status = table["status"]
    unmeasured = int((status == "not measured").sum())
    failed = int((~status.isin(["pass", "not measured"])).sum())
    return {"count": len(table), "met": int((status == "pass").sum()), "failed": failed, "not_measured": unmeasured}


def targets_met(table: pd.DataFrame) -> bool:
    """Whether every target passed (a target with no data has not)."""
    return bool((table["status"] == "pass").all())


__all__ = ["read_targets", "HEADLINE_ROWS", "KEYS", "TABLE_COLUMNS", "TargetState", "Targets", "load_targets",
           "limit_text", "target_state", "target_summary", "target_table", "targets_met"]
