"""Counts: what every figure of a run is made of, and how the counts of shards add up.

Every figure ``groundlab score`` reports is a count over a total (supported claims over judged
claims, hallucinated answers over answered ones, each stratum's labeled answers, ...), and a rate
or a Wilson range is worked out from them at the end. Counts add up: the counts of two sets of
cases are the sums of their counts, so cases judged apart (in worker processes, on the partitions
of a Dask or Spark DataFrame, on other machines or other days) give, once their counts are
summed, exactly the figures of judging them all at once (:func:`merge_counts`,
``groundlab merge``).

A :class:`Counts` holds a tidy table (``measure``, ``group``, ``count``, ``total``:
:meth:`Counts.table`), the judge's identity (counts of different judges are never added), the
claims the judge could not decide (few, and shown by name), and a 64-bit fingerprint of every
case id, so that a case counted twice is refused rather than counted twice.

>>> from groundlab import evaluate, load_cases, sample_path
>>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "rules")
>>> c = counts_of(ev)
>>> c.summary()["flagged_by_judge"]["flagged"], c.summary()["flagged_by_judge"]["answered"]
(6, 10)
>>> first, second = (counts_of(evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"))[s],
...                                    "rules")) for s in (slice(0, 5), slice(5, None)))
>>> merge_counts([first, second]).summary() == c.summary()
True
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from array import array
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..core.records import GroundlabError, InputError
from ..core.stats import Rate

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .evaluate import Evaluation

#: The version of the counts file format (``score --counts-out``, ``merge --out``).
FORMAT = 1

#: The label of cases without a ``process`` (as in the breakdown by process).
NO_PROCESS = "(no process)"

#: The columns of the tidy counts table.
TABLE_COLUMNS = ["measure", "group", "count", "total"]

_KINDS = ("id", "amount", "date", "quantity", "other")
_STRATA = ("contradicted", "unsupported", "undecided", "supported", "abstained")

#: Up to this many case ids, their fingerprints are sorted in Python (a transient list of some 44
#: bytes an id); more are sorted in place by NumPy.
SORTED_IN_PYTHON = 250_000

#: How many answered cases without passages a run names (it counts them all).
SHOWN_WITHOUT_PASSAGES = 5


def case_fingerprint(case_id: str) -> int:
    """A 64-bit fingerprint of a case id (BLAKE2b), the same in every process and on every machine:
    what a run keeps of each id to refuse a case counted twice (two ids share one with a chance of
    about n\u00b2 / 3.7e19, one in 370,000 for 10 million cases)."""
    return int.from_bytes(hashlib.blake2b(case_id.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


class Counts:
    """The counts of one run or of several merged (see the module docstring).

    ``cells``: ``{(measure, group): [count, total]}``; ``total`` is ``None`` for a plain count.
    ``errors``: ``(case_id, claim, error)`` of each claim the judge could not decide.
    ``without_passages``: the first answered cases given no passage, by id.
    ``fingerprints``: the case ids' fingerprints (:func:`case_fingerprint`), in the order counted.
    """

    def __init__(self, judge: str = "", identity: Optional[Dict[str, Any]] = None) -> None:
        self.judge = judge
        self.identity = identity
        self.cells: Dict[Tuple[str, Any], List[Optional[int]]] = {}
        self.errors: List[Tuple[str, int, str]] = []
        self.without_passages: List[str] = []
        self.fingerprints = array("Q")
        self.shards = 1
        self.sources: List[str] = []

    # ------------------------------------------------------------------ adding

    def add(self, measure: str, group: Any, count: int, total: Optional[int] = None) -> None:
        cell = self.cells.get((measure, group))
        if cell is None:
            self.cells[(measure, group)] = [count, total]
        else:
            cell[0] += count
            if total is not None:
                cell[1] = total if cell[1] is None else cell[1] + total

    def get(self, measure: str, group: Any = "") -> Tuple[int, int]:
        cell = self.cells.get((measure, group))
        if cell is None:
            return 0, 0
        return int(cell[0]), int(cell[1] or 0)

    def count(self, measure: str, group: Any = "") -> int:
        return self.get(measure, group)[0]

    def rate(self, measure: str, group: Any = "") -> Rate:
        return Rate(*self.get(measure, group))

    def add_columns(self, claims: Mapping[str, list], cases: Mapping[str, list]) -> None:
        """Count one chunk of judged claims and cases, as :func:`groundlab.evaluate` lays them out
        (column lists: the claims of a case follow each other, cases in the same order). What the
        case rows already hold (each case's claims, and how many of them the judge found
        contradicted, unsupported or could not decide) is added up, not counted again from the
        claims' verdicts; the claims are read once, for what only they say (citations, kinds and
        the judge's errors)."""
        add = self.add
        verdicts = claims["verdict"]
        ok = claims["citation_ok"]
        n_cites = claims["citations"]
        relevant = claims["relevant_citations"]
        kinds = claims["kinds"]
        backed = decided_supported = citing = citations = relevant_sum = undecided = 0
        kind_counts: Dict[str, List[int]] = {}
        for k, verdict in enumerate(verdicts):
            if verdict is None:
                continue
            supported = verdict == "supported"
            for kind in kinds[k]:
                cell = kind_counts.get(kind)
                if cell is None:
                    cell = kind_counts[kind] = [0, 0]
                cell[0] += not supported
                cell[1] += 1
            checked = ok[k]
            cites = n_cites[k]
            if cites:
                citing += 1
            if checked is True or checked is False:
                citations += cites
                relevant_sum += relevant[k]
                if supported:
                    decided_supported += 1
                    backed += checked is True
            elif cites:
                undecided += 1
        n_claims = sum(cases["claims"])
        judged = n_claims - sum(cases["errors"])
        contradicted = sum(cases["contradicted"])
        unsupported = sum(cases["unsupported"])
        add("claims", "", n_claims)
        add("faithfulness", "", judged - contradicted - unsupported, judged)
        add("contradicted", "", contradicted, judged)
        add("unsupported", "", unsupported, judged)
        add("judge_errors", "", n_claims - judged, n_claims)
        add("citation_recall", "", backed, decided_supported)
        add("claims_citing", "", citing, judged)
        add("citation_precision", "", relevant_sum, citations)
        add("citations_undecided", "", undecided)

        ids = cases["case_id"]
        n_cases = len(ids)
        add("cases", "", n_cases)
        fingerprint = case_fingerprint
        self.fingerprints.extend(fingerprint(cid) for cid in ids)
        extra = cases.get("extra") or [(None, None, None)] * n_cases
        process_of = cases["process"]
        process_counts: Dict[str, List[int]] = {}
        for k in range(n_cases):
            process = process_of[k]
            if process is not None:
                add("process_cases", "", 1, None)
            self._add_case(k, cases, extra[k], process, process_counts)
        for kind, (flagged, total) in kind_counts.items():
            add("by_kind", kind, flagged, total)
        for name, (flagged, total) in process_counts.items():
            add("by_process", name, flagged, total)
        for case_id, number, error in zip((c for c in claims["case_id"]), claims["claim"], claims["error"]):
            if error is not None:
                self.errors.append((case_id, number, error))

    def _add_case(self, k: int, cases: Mapping[str, list], extra: tuple, process, process_counts) -> None:
        add = self.add
        n = cases["claims"][k]
        hallucinated = cases["hallucinated"][k]
        by_person = cases["hallucinated_by_person"][k]
        answerable = cases["answerable"][k]
        outcome = cases["outcome"][k]
        labeled = bool(cases["labeled"][k])
        if answerable is True or answerable is False:
            add("answerable_known", "", 1)
            if answerable:
                add("false_abstention", "", int(n == 0), 1)
            else:
                add("abstention", "", int(n == 0), 1)
        if outcome is not None:
            add("outcomes", outcome, 1)
        if labeled:
            add("labeled_cases", "", 1)
        # The outcome by people's labels (groundlab.metrics.person_outcome), where there are some.
        if not n:
            add("outcomes_by_person", "abstained", 1)
        elif by_person is True or by_person is False:
            add("outcomes_by_person", "wrong" if by_person or answerable is False else "correct", 1)
        if cases["cites_by_position"][k]:
            add("cites_by_position", "", 1)
        classification, origin, held_back = extra
        if held_back is not None:
            add("held_back", "", 1)
            if n and cases["errors"][k] == n:
                add("held_back_unjudged", "", 1)
        incident = origin == "incident"
        if origin is not None:
            add("origin_cases", "", 1)
            if incident:
                add("incidents", "", 1)
        if not n:
            return
        add("answered_cases", "", 1)
        if cases["passages"][k] == 0:
            add("without_passages", "", 1)
            if len(self.without_passages) < SHOWN_WITHOUT_PASSAGES:
                self.without_passages.append(cases["case_id"][k])
        if hallucinated is True or hallucinated is False:
            add("hallucination_rate", "", int(hallucinated), 1)
            name = NO_PROCESS if process is None else process
            cell = process_counts.get(name)
            if cell is None:
                cell = process_counts[name] = [0, 0]
            cell[0] += hallucinated
            cell[1] += 1
            if incident:
                add("incident_hallucination_rate", "", int(hallucinated), 1)
        if by_person is True or by_person is False:
            add("hallucination_rate_by_person", "", int(by_person), 1)
            if incident:
                add("incident_hallucination_rate_by_person", "", int(by_person), 1)
        # The judge's verdict on the answer (groundlab.sampling.judge_strata), for the corrected rate.
        if cases["contradicted"][k]:
            stratum = "contradicted"
        elif cases["unsupported"][k]:
            stratum = "unsupported"
        elif cases["errors"][k]:
            stratum = "undecided"
        else:
            stratum = "supported"
        add("stratum", stratum, 1)
        if labeled:
            add("stratum_labeled", stratum, int(bool(by_person)), 1)

    # ------------------------------------------------------------------ merging

    def merge(self, other: "Counts", names: Tuple[str, str] = ("the first counts", "the second counts")) -> None:
        """Add ``other``'s counts to these (see :func:`merge_counts`, which checks them first)."""
        for (measure, group), (count, total) in other.cells.items():
            self.add(measure, group, count, total)
        self.errors.extend(other.errors)
        room = SHOWN_WITHOUT_PASSAGES - len(self.without_passages)
        if room > 0:
            self.without_passages.extend(other.without_passages[:room])
        self.fingerprints.extend(other.fingerprints)
        self.shards += other.shards
        self.sources.extend(other.sources)

    def repeated_ids(self) -> int:
        """How many cases share an id fingerprint with another case counted here."""
        return self.repeated()[0]

    def repeated(self) -> Tuple[int, set]:
        """How many cases repeat an id fingerprint, and the fingerprints used more than once. The
        fingerprints are sorted where they are (no copy: at 8 bytes a case, a copy of 10 million
        would double what the run holds); their order carries no meaning."""
        if len(self.fingerprints) < 2:
            return 0, set()
        if len(self.fingerprints) <= SORTED_IN_PYTHON:
            # a run of this size is sorted as fast without NumPy, whose import costs more than the sort
            values = sorted(self.fingerprints)
            self.fingerprints[:] = array("Q", values)
            twice = {b for a, b in zip(values, values[1:]) if a == b}
            return (sum(1 for a, b in zip(values, values[1:]) if a == b) if twice else 0), twice
        import numpy as np

        values = np.frombuffer(self.fingerprints, dtype=np.uint64)
        values.sort(kind="stable")  # parts merged one after the other are sorted runs: merged in one pass
        same = values[1:] == values[:-1]
        count = int(same.sum())
        twice = set(values[1:][same].tolist()) if count else set()
        del values, same  # the array can grow again once no view of it is left
        return count, twice

    # ------------------------------------------------------------------ figures

    def rates(self) -> Dict[str, Rate]:
        """Every rate by its name in the tables (as :func:`groundlab.summary.rates`)."""
        recall = self.rate("citation_recall")
        if not self.count("claims_citing"):
            recall = Rate(0, recall.total, applies=False)
        return {
            "flagged by the judge": self.rate("hallucination_rate"),
            "hallucination rate by the person": self.rate("hallucination_rate_by_person"),
            "faithfulness": self.rate("faithfulness"),
            "citation recall": recall,
            "citation precision": self.rate("citation_precision"),
            "abstention": self.rate("abstention"),
            "false abstention": self.rate("false_abstention"),
            "accuracy-only score": self.accuracy(),
        }

    def outcomes(self) -> Dict[str, int]:
        return {k: self.count("outcomes", k) for k in ("correct", "abstained", "wrong")}

    def accuracy(self) -> Rate:
        o = self.outcomes()
        return Rate(o["correct"], sum(o.values()))

    def summary(self, penalty: float = 1.0, **options: Any) -> Dict[str, Any]:
        """The figures of ``groundlab score --json``: :func:`groundlab.summary.summary_of_counts`,
        the one computation of every figure (``options``: its ``margin`` and ``label_budget``)."""
        from .figures import summary_of_counts

        return summary_of_counts(self, penalty, **options)

    def breakdown(self) -> Dict[str, List[Dict[str, Any]]]:
        """``by_kind`` and ``by_process`` of ``score --json --breakdown``
        (:func:`groundlab.metrics.hallucination_breakdown`)."""
        from .figures import figure_value

        def figures(rate: Rate) -> Dict[str, Any]:
            low, high = rate.interval
            return {"rate": figure_value(rate.rate), "low": figure_value(low), "high": figure_value(high)}

        by_kind = []
        for kind in _KINDS:
            rate = self.rate("by_kind", kind)
            if rate.total:
                by_kind.append(dict({"kind": kind, "hallucinated": rate.count, "claims": rate.total}, **figures(rate)))
        by_process = []
        if self.count("process_cases"):
            names = sorted({g for m, g in self.cells if m == "by_process"} - {NO_PROCESS}, key=str)
            if ("by_process", NO_PROCESS) in self.cells:
                names.append(NO_PROCESS)
            for name in names:
                rate = self.rate("by_process", name)
                if rate.total:
                    by_process.append(dict({"process": None if name == NO_PROCESS else name,
                                            "hallucinated": rate.count, "answered": rate.total}, **figures(rate)))
        return {"by_kind": by_kind, "by_process": by_process}

    def table(self) -> "pd.DataFrame":
        """The tidy counts table: one row per measure and group, with its count and total (``<NA>``
        for a plain count). Summing two tables' counts and totals by measure and group gives the
        table of both runs together.

        >>> from groundlab import evaluate, load_cases, sample_path
        >>> t = counts_of(evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))).table()
        >>> t[t["measure"] == "hallucination_rate"].values.tolist()
        [['hallucination_rate', '', 6, 10]]
        """
        import pandas as pd

        rows = [(m, g, c, t) for (m, g), (c, t) in sorted(self.cells.items(), key=lambda item: (item[0][0],
                                                                                              str(item[0][1])))]
        frame = pd.DataFrame(rows, columns=TABLE_COLUMNS)
        frame["count"] = frame["count"].astype("int64")
        frame["total"] = pd.array([None if t is None else int(t) for _, _, _, t in rows], dtype="Int64")
        return frame

    # ------------------------------------------------------------------ files

    def to_json(self, sources: Sequence[str] = ()) -> Dict[str, Any]:
        """The counts as a JSON-ready dict: what ``score --counts-out`` writes and ``groundlab merge``
        reads (the fingerprints sorted, 8 bytes each, base64)."""
        import numpy as np

        self.repeated()  # sorts them where they are
        values = np.frombuffer(self.fingerprints, dtype=np.uint64)
        return {
            "groundlab_counts": FORMAT,
            "judge": self.judge,
            "judge_identity": self.identity,
            "shards": self.shards,
            "sources": list(sources or self.sources),
            "counts": [{"measure": m, "group": g, "count": c, "total": t} for (m, g), (c, t) in self.cells.items()],
            "errors": [list(e) for e in self.errors],
            "without_passages": self.without_passages,
            "case_ids": {"fingerprint": "blake2b-64", "cases": int(len(values)),
                         "sorted": base64.b64encode(values.astype("<u8").tobytes()).decode("ascii")},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], name: str) -> "Counts":
        """Counts read back from :meth:`to_json` (``name``: the file, for messages), every field
        checked: its kind, its range (whole numbers from 0, a count no more than its total), the
        cells every run writes and how they fit, and the case ids against the cases counted. A
        file that fails is one sentence naming it and the field."""
        if not isinstance(data, Mapping) or "groundlab_counts" not in data:
            hint = (" (it holds the figures of 'score --json', which cannot be added up; write each part with "
                    "'groundlab score --counts-out PART.json')" if isinstance(data, Mapping) and "hallucination_rate" in data
                    else "")
            raise InputError(f"{name} is not a counts file of groundlab{hint}; give the files 'groundlab score "
                             "--counts-out' or 'groundlab merge --out' wrote.")
        if data["groundlab_counts"] != FORMAT or isinstance(data["groundlab_counts"], bool):
            raise InputError(f"{name} is a counts file of format {data['groundlab_counts']!r}, which this groundlab "
                             f"does not read (it reads format {FORMAT}); score that part again with this version.")
        extra = sorted(set(data) - _FIELDS)
        missing = sorted(_FIELDS - set(data))
        if extra or missing:
            raise InputError(f"{name} {'has ' + repr(extra[0]) if extra else 'lacks ' + repr(missing[0])}, which a "
                             f"counts file {'does not hold' if extra else 'holds'}; {_AGAIN}.")
        judge = _of_kind(data["judge"], str, name, "judge", "a judge's name")
        identity = data["judge_identity"]
        if identity is not None:
            _of_kind(identity, dict, name, "judge_identity", "an object")
        counts = cls(judge, identity)
        counts.cells = _cells(data["counts"], name)
        errors = []
        for k, error in enumerate(_of_kind(data["errors"], list, name, "errors", "a list")):
            if not (isinstance(error, list) and len(error) == 3 and isinstance(error[0], str)
                    and isinstance(error[2], str)):
                raise InputError(f"{name}: errors[{k}] is {_shown(error)}, not [case id, claim, error]; {_AGAIN}.")
            errors.append((error[0], _whole(error[1], name, f"errors[{k}] claim", 1), error[2]))
        counts.errors = errors
        passages = _of_kind(data["without_passages"], list, name, "without_passages", "a list of case ids")
        if not all(isinstance(x, str) for x in passages):
            raise InputError(f"{name}: without_passages holds something other than case ids; {_AGAIN}.")
        counts.without_passages = passages[:SHOWN_WITHOUT_PASSAGES]
        counts.shards = _whole(data["shards"], name, "shards", 1)
        sources = _of_kind(data["sources"], list, name, "sources", "a list of file names")
        if not all(isinstance(s, str) for s in sources):
            raise InputError(f"{name}: sources holds something other than file names; {_AGAIN}.")
        counts.sources = list(sources)
        ids = _of_kind(data["case_ids"], dict, name, "case_ids", "an object")
        if ids.get("fingerprint") != "blake2b-64" or set(ids) != {"fingerprint", "cases", "sorted"}:
            raise InputError(f"{name}: case_ids must hold fingerprint \"blake2b-64\", cases and sorted; {_AGAIN}.")
        n_ids = _whole(ids["cases"], name, "case_ids.cases")
        try:
            raw = base64.b64decode(_of_kind(ids["sorted"], str, name, "case_ids.sorted", "base64 text"), validate=True)
        except ValueError:
            raise InputError(f"{name}: case_ids.sorted is not base64 text; {_AGAIN}.") from None
        if len(raw) != 8 * n_ids:
            raise InputError(f"{name}: case_ids.sorted holds {len(raw) / 8:g} fingerprints of 8 bytes, and "
                             f"case_ids.cases says {n_ids}; {_AGAIN}.")
        counts.fingerprints = array("Q")
        counts.fingerprints.frombytes(_little_endian(raw))
        if counts.count("cases") != n_ids:
            raise InputError(f"{name} counts {counts.count('cases')} cases but holds {n_ids} case ids; it was "
                             "changed after groundlab wrote it: write it again.")
        _check_cells(counts, name)
        return counts

def _little_endian(raw: bytes) -> bytes:
    import sys

    if sys.byteorder == "little":
        return raw
    import numpy as np

    return np.frombuffer(raw, dtype="<u8").astype(np.uint64).tobytes()


def _ordered(names: Iterable[Any]) -> List[Any]:
    names = set(names)
    known = [h for h in _STRATA if h in names]
    return known + sorted(names - set(known), key=str)


def counts_of(evaluation: "Evaluation") -> Counts:
    """The counts of an evaluation's frames (:func:`groundlab.evaluate`)."""
    claims, cases = evaluation.claims, evaluation.cases

    try:  # pandas' missing value, told apart from None
        from pandas import NA as missing
    except ImportError:  # pragma: no cover - pandas is a dependency
        missing = object()

    def column(frame, name, default=None):
        if name not in frame.columns:
            return [default] * len(frame)
        return [None if v is missing or (isinstance(v, float) and math.isnan(v)) else v for v in frame[name].tolist()]

    claim_columns = {name: column(claims, name) for name in ("case_id", "claim", "verdict", "citation_ok", "citations",
                                                             "relevant_citations", "kinds", "error")}
    claim_columns["kinds"] = [k if k is not None else ("other",) for k in claim_columns["kinds"]]
    case_columns = {name: column(cases, name) for name in ("case_id", "process", "claims", "hallucinated",
                                                          "hallucinated_by_person", "answerable", "outcome",
                                                          "labeled", "cites_by_position", "passages", "errors",
                                                          "contradicted", "unsupported")}
    case_columns["cites_by_position"] = [bool(v) for v in case_columns["cites_by_position"]]
    case_columns["passages"] = [1 if v is None else v for v in case_columns["passages"]]
    case_columns["extra"] = list(zip(column(cases, "classification"), column(cases, "origin"),
                                     column(cases, "held_back")))
    counts = Counts(evaluation.judge, claims.attrs.get("judge"))
    counts.add_columns(claim_columns, case_columns)
    return counts


def same_judge(a: Counts, b: Counts) -> Optional[str]:
    """Why the counts of ``a`` and ``b`` cannot be added (a phrase), or ``None``: a different judge,
    or the same judge with other settings, weights, prompt or splitting."""
    if a.judge != b.judge:
        return f"judge {a.judge} against judge {b.judge}"
    ia, ib = a.identity or {}, b.identity or {}
    if ia == ib:
        return None
    return f"the same judge ({a.judge}) with other {', '.join(_differences(ia, ib)) or 'settings'}"


def _differences(a: Dict[str, Any], b: Dict[str, Any], prefix: str = "") -> List[str]:
    """The keys (dotted, within nested settings) whose values differ between two identities; a key
    one of them holds and the other does not is named so, even when the one holds null.

    >>> _differences({"model": None, "splitting": {"x": 1}}, {"splitting": {"x": 2}})
    ['model (null in one, not given in the other)', 'splitting.x']
    """
    out = []
    for key in sorted(set(a) | set(b), key=str):
        name = f"{prefix}{key}"
        if (key in a) != (key in b):
            held = a[key] if key in a else b[key]
            what = "null" if held is None else "given"
            out.append(f"{name} ({what} in one, not given in the other)")
        elif isinstance(a[key], dict) and isinstance(b[key], dict):
            out.extend(_differences(a[key], b[key], f"{name}."))
        elif a[key] != b[key]:
            out.append(name)
    return out


def merge_counts(parts: Sequence[Counts], names: Optional[Sequence[str]] = None) -> Counts:
    """The counts of all ``parts`` together: exactly those of judging all their cases at once.

    Refused with one sentence (an :class:`~groundlab.records.InputError`): parts judged by
    different judges (by identity: name, version, settings, weights, prompt, model and how answers
    were split), and parts that share a case id (each case must be counted once). ``names`` say
    how messages call the parts (file names); the merged counts say how many parts they hold
    (``shards``).
    """
    if not parts:
        raise GroundlabError("there are no counts to merge; give at least one counts file.")
    names = list(names) if names is not None else [f"part {k + 1}" for k in range(len(parts))]
    first = parts[0]
    for part, name in zip(parts[1:], names[1:]):
        why = same_judge(first, part)
        if why is not None:
            raise InputError(f"{name} was judged otherwise than {names[0]} ({why}); counts of different judges do "
                             "not add up: score every part with the same judge and settings.")
    merged = _added_up(first, parts)
    if len(parts) > 1 and merged.repeated_ids():
        # Only now, with a repeat known to be there, find the part that brings it, adding them up
        # again one by one (the fingerprints are compared once, not once a part).
        replay = _added_up(first, [])
        seen = 0
        for part, name in zip(parts, names):
            replay.merge(part)
            before = replay.repeated_ids()
            if before > seen:
                raise InputError(f"{name} holds {before - seen} case id{'s' * (before - seen != 1)} that "
                                 f"{'an earlier part holds' if part is not first else 'it holds twice'} (compared "
                                 "by their fingerprints); each case must be counted in one part only: score parts "
                                 "whose cases do not overlap.")
            seen = before
    return merged


def _added_up(first: Counts, parts: Sequence[Counts]) -> Counts:
    merged = Counts(first.judge, first.identity)
    merged.shards = 0
    for part in parts:
        merged.merge(part)
    return merged


# ------------------------------------------------------------------ reading a counts file

#: The measures a counts file holds: those that are a count of a total, and the plain counts.
RATE_MEASURES = frozenset({
    "faithfulness", "contradicted", "unsupported", "judge_errors", "citation_recall", "claims_citing",
    "citation_precision", "by_kind", "by_process", "false_abstention", "abstention", "hallucination_rate",
    "hallucination_rate_by_person", "incident_hallucination_rate", "incident_hallucination_rate_by_person",
    "stratum_labeled"})
COUNT_MEASURES = frozenset({
    "claims", "citations_undecided", "cases", "process_cases", "answerable_known", "outcomes", "labeled_cases",
    "cites_by_position", "held_back", "held_back_unjudged", "origin_cases", "incidents", "answered_cases",
    "without_passages", "stratum", "outcomes_by_person"})
#: The cells every counts file of judged cases holds, whatever its cases.
ALWAYS = ("claims", "faithfulness", "contradicted", "unsupported", "judge_errors", "citation_recall",
          "claims_citing", "citation_precision", "citations_undecided", "cases")
#: The largest count a file may hold (a thousand million million: no run counts more).
MAX_COUNT = 10 ** 15

_FIELDS = {"groundlab_counts", "judge", "judge_identity", "shards", "sources", "counts", "errors", "without_passages",
           "case_ids"}
_AGAIN = "write it again with 'groundlab score --counts-out' (or 'groundlab merge --out')"


def _whole(value: Any, name: str, field: str, low: int = 0) -> int:
    """``value`` as a count: a whole number (not true or false) from ``low`` to :data:`MAX_COUNT`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name}: {field} is {_shown(value)}, not a whole number; {_AGAIN}.")
    if not low <= value <= MAX_COUNT:
        raise InputError(f"{name}: {field} is {_shown(value)}, outside {low} to {MAX_COUNT:.0e} (no run counts "
                         f"that); {_AGAIN}.")
    return value


def _shown(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, int) or isinstance(value, bool) or abs(value) < 10 ** 18 \
        else f"a number of {len(str(abs(value)))} digits"
    return text if len(text) <= 40 else text[:37] + "..."


def _of_kind(value: Any, kind: type, name: str, field: str, what: str) -> Any:
    if not isinstance(value, kind):
        raise InputError(f"{name}: {field} is {_shown(value)}, not {what}; {_AGAIN}.")
    return value


def _cells(rows: Any, name: str) -> Dict[Tuple[str, Any], List[Optional[int]]]:
    """The ``counts`` of a file as cells, every row checked (a field, its kind, its range)."""
    cells: Dict[Tuple[str, Any], List[Optional[int]]] = {}
    for k, row in enumerate(_of_kind(rows, list, name, "counts", "a list of rows")):
        where = f"counts[{k}]"
        _of_kind(row, dict, name, where, "a row {\"measure\", \"group\", \"count\", \"total\"}")
        extra = sorted(set(row) - {"measure", "group", "count", "total"})
        missing = [f for f in ("measure", "group", "count", "total") if f not in row]
        if extra or missing:
            raise InputError(f"{name}: {where} {'has ' + repr(extra[0]) if extra else 'lacks ' + repr(missing[0])}; "
                             f"a row holds measure, group, count and total; {_AGAIN}.")
        measure = _of_kind(row["measure"], str, name, f"{where}.measure", "a measure's name")
        where = f"{where} ({measure})"
        if measure not in RATE_MEASURES and measure not in COUNT_MEASURES:
            raise InputError(f"{name}: {where} is a measure no counts file holds; {_AGAIN}.")
        group = _of_kind(row["group"], str, name, f"{where}.group", "a text")
        count = _whole(row["count"], name, f"{where}.count")
        total = row["total"]
        if measure in RATE_MEASURES:
            if total is None:
                raise InputError(f"{name}: {where}.total is null, and {measure} is a count of a total; {_AGAIN}.")
            total = _whole(total, name, f"{where}.total")
            if count > total:
                raise InputError(f"{name}: {where}.count {count} is more than its total {total}; {_AGAIN}.")
        elif total is not None:
            raise InputError(f"{name}: {where}.total is {_shown(total)}, and {measure} is a plain count (null); "
                             f"{_AGAIN}.")
        if (measure, group) in cells:
            raise InputError(f"{name}: {where} counts {measure} {group!r} a second time; {_AGAIN}.")
        cells[(measure, group)] = [count, total]
    return cells


def _check_cells(counts: "Counts", name: str) -> None:
    """Refuse cells that cannot come from judging cases: a cell every run writes missing, or
    counts that do not fit each other (the judged claims, the answered cases)."""
    cases = counts.count("cases")
    if not counts.cells:
        return
    missing = [m for m in ALWAYS if (m, "") not in counts.cells]
    if missing:
        raise InputError(f"{name}: the counts lack {missing[0]}, which every run writes; {_AGAIN}.")
    claims = counts.count("claims")
    supported, judged = counts.get("faithfulness")

    def fits(ok: bool, what: str) -> None:
        if not ok:
            raise InputError(f"{name}: {what}; {_AGAIN}.")

    for measure in ("contradicted", "unsupported", "claims_citing"):
        fits(counts.get(measure)[1] == judged, f"the total of {measure} ({counts.get(measure)[1]}) is not that of "
                                               f"faithfulness ({judged}), the judged claims")
    fits(supported + counts.count("contradicted") + counts.count("unsupported") == judged,
         f"supported, contradicted and unsupported claims add up to "
         f"{supported + counts.count('contradicted') + counts.count('unsupported')}, not to the {judged} judged")
    errors, total = counts.get("judge_errors")
    fits(total == claims and claims - errors == judged,
         f"judge_errors ({errors} of {total}) does not fit {claims} claims of which {judged} were judged")
    fits(counts.get("citation_recall")[1] <= supported,
         f"citation_recall counts {counts.get('citation_recall')[1]} supported claims of {supported}")
    answered = counts.count("answered_cases")
    fits(answered <= cases, f"answered_cases ({answered}) is more than the {cases} cases")
    strata = sum(c for (m, _), (c, _) in counts.cells.items() if m == "stratum")
    fits(strata == answered, f"the strata hold {strata} answered cases, not {answered}")
    for measure in ("hallucination_rate", "hallucination_rate_by_person"):
        fits(counts.get(measure)[1] <= answered, f"{measure} is over {counts.get(measure)[1]} answered cases of "
                                                 f"{answered}")
    for measure in ("outcomes", "outcomes_by_person"):
        total = sum(c for (m, _), (c, _) in counts.cells.items() if m == measure)
        fits(total <= cases, f"the {measure.replace('_', ' ')} count {total} cases of {cases}")
    # What every case adds, read back: a row or cell taken out leaves these short.
    errors = counts.count("judge_errors")
    flagged_over = counts.get("hallucination_rate")[1]
    # an answered case is left out of the flagged rate only when the judge erred on one of its claims
    fits(flagged_over >= answered - errors, f"hallucination_rate is over {flagged_over} answered cases, where "
                                            f"{answered} were answered and {errors} claims left undecided")
    undecided = answered - flagged_over
    outcomes = sum(c for (m, _), (c, _) in counts.cells.items() if m == "outcomes")
    fits(outcomes >= cases - undecided, f"the outcomes count {outcomes} cases of {cases}, of which at most "
                                        f"{undecided} were left undecided")
    fits(counts.count("outcomes", "abstained") == cases - answered,
         f"the outcomes count {counts.count('outcomes', 'abstained')} abstained cases, where {cases - answered} "
         "cases have no claim")
    by_person = counts.get("hallucination_rate_by_person")[1]
    labeled = counts.count("labeled_cases")
    fits(by_person <= labeled, f"hallucination_rate_by_person is over {by_person} cases, more than the {labeled} "
                               "labeled")
    fits(by_person >= labeled - (cases - answered),
         f"hallucination_rate_by_person is over {by_person} cases, where {labeled} cases carry labels")
    person_outcomes = sum(c for (m, _), (c, _) in counts.cells.items() if m == "outcomes_by_person")
    fits(person_outcomes == cases - answered + by_person,
         f"the outcomes by person count {person_outcomes} cases, not the {cases - answered} without a claim and "
         f"the {by_person} labeled")
    known = counts.count("answerable_known")
    asked = counts.get("abstention")[1] + counts.get("false_abstention")[1]
    fits(asked == known, f"abstention and false_abstention are over {asked} cases, where {known} say whether "
                         "their passages hold the answer")

def read_counts(path) -> Counts:
    """A counts file (``score --counts-out``, ``merge --out``)."""
    from ..core.io import display_name, read_text

    name = display_name(path)
    text = read_text(path, "counts")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        from ..core.io import json_problem

        raise InputError(f"{name} is not valid JSON ({json_problem(exc)}); give the file 'groundlab score "
                         "--counts-out' wrote.") from None
    counts = Counts.from_json(data, name)
    if not counts.sources:
        counts.sources = [name]
    return counts


def write_counts(counts: Counts, path, *, force: bool = False, inputs: Sequence = ()) -> None:
    """Write a counts file atomically (refusing an existing file without ``force``, and any input)."""
    from ..core.io import check_output, write_atomic

    check_output(path, force, [i for i in inputs if i])
    write_atomic(path, json.dumps(counts.to_json()) + "\n")


__all__ = ["Counts", "TABLE_COLUMNS", "case_fingerprint", "counts_of", "merge_counts", "read_counts", "same_judge",
           "write_counts"]
