"""Engines: judge cases where they live, a partition at a time, and bring back counts.

A production log of millions of answers is Parquet in a lake, read by Dask or Spark. The
engines judge a Dask or Spark DataFrame of cases (columns of groundlab's case format, or mapped
with ``columns``) partition by partition on the cluster's workers and return the
:class:`~groundlab.counts.Counts` of all of them: exactly the figures ``groundlab score`` gives on
the same cases (:mod:`groundlab.counts`). What crosses the network is small: the judge goes as
its name and settings (:class:`JudgeSpec`) and is built once in each worker process (a warm
judge is never pickled), the passages table is sent to each worker once, and each partition
sends back its counts (8 bytes a case for the id fingerprints, a few kB else). The claim and case
frames, when asked for, stay on the cluster as DataFrames of a declared Arrow schema
(:mod:`groundlab.frames`) that carries the judge's identity.

- :mod:`groundlab.engines.dask`: :func:`~groundlab.engines.dask.judge_dask` (a Dask DataFrame)
  and ``groundlab score --engine dask --scheduler ADDRESS`` (a cases file the workers can read);
- :mod:`groundlab.engines.spark`: :func:`~groundlab.engines.spark.judge_spark` (a Spark DataFrame,
  ``mapInPandas``).

The llm judge stays on one machine: its cache, its rate limits and its spending are per process,
and a cluster of workers would each send the same requests. Judge every answer with an offline
judge on the cluster, then the llm judge on a sample (``groundlab sample``) or on the answers
the offline judge flags, on one machine (docs/scale.md).

May import: :mod:`groundlab.core`, :mod:`groundlab.judges` and :mod:`groundlab.measure`; takes plain values (a judge's
name and options, a scheduler's address), never the command line's options.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..judges import DEFAULT_JUDGE
from ..core.records import Case, GroundlabError, InputError, Passage

#: Judges that cannot run on a cluster's workers, and why.
ONE_MACHINE = {
    "llm": "the llm judge stays on one machine (its cache, rate limits and spending are per process); judge every "
           "answer with an offline judge on the cluster and a sample with the llm judge on one machine "
           "(docs/scale.md)",
    "cascade": "the cascade sends its flagged answers to the llm judge, which stays on one machine; run its first "
               "judge on the cluster and the cascade on one machine over the answers it flags (docs/scale.md)",
}

#: The case fields, and the columns that may hold them.
FIELDS = ("id", "question", "retrieved", "answer", "answerable", "labels", "process", "meta", "aliases",
          "classification", "origin")


@dataclass(frozen=True)
class JudgeSpec:
    """A judge as its name and options, and the claim splitter: what a worker builds its judge
    from (:meth:`build`, once per process), instead of a judge object carried over the network.

    >>> spec = JudgeSpec("rules")
    >>> judge, splitter = spec.build()
    >>> judge.name, spec.build()[0] is judge
    ('rules', True)
    """

    name: str = DEFAULT_JUDGE
    options: Tuple[Tuple[str, Any], ...] = ()
    splitter: Any = None

    @classmethod
    def of(cls, judge: str = DEFAULT_JUDGE, splitter: Any = None, **options: Any) -> "JudgeSpec":
        """A spec, refusing a judge that stays on one machine; a judge config given as a path is read
        here, so the workers need not see the file."""
        if not isinstance(judge, str):
            raise GroundlabError("an engine builds its judge in each worker from its name: give the judge's name "
                                 "(\"signals\", \"rules\") and its options, not a judge object.")
        if judge in ONE_MACHINE:
            raise GroundlabError(f"--judge {judge} cannot run on a cluster: {ONE_MACHINE[judge]}.")
        config = options.get("config")
        if config is not None and not hasattr(config, "weights"):
            from ..judges.signals import load_config

            options["config"] = load_config(config)
        return cls(judge, tuple(sorted(options.items())), splitter)

    def build(self):
        """``(judge, splitter)``, built once in this process and kept (by name, options and the
        splitter's settings, so that every partition a worker judges shares one warm judge)."""
        import json

        from ..core.identity import splitting_identity

        key = (self.name, repr(self.options), json.dumps(splitting_identity(self.splitter), sort_keys=True))
        built = _BUILT.get(key)
        if built is None:
            from ..core.claims import ClaimSplitter
            from ..measure.policy import make_judge

            built = _BUILT[key] = (make_judge(self.name, **dict(self.options)), self.splitter or ClaimSplitter())
        return built


_BUILT: Dict[Tuple[str, str, str], Tuple[Any, Any]] = {}


def rows_to_cases(records: Sequence[Mapping[str, Any]], table: Optional[Mapping[str, Passage]], where: str,
                  columns: Optional[Mapping[str, str]] = None) -> List[Case]:
    """Cases from the rows of a partition (``{column: value}``), checked as the lines of a cases
    file are (:mod:`groundlab.io`), each named ``where`` and its row number (``partition 3 row 17``).
    ``columns`` maps case fields to other column names (``{"answer": "response"}``). Missing
    values (``None``, NaN, an absent column) are absent fields; arrays become lists."""
    from ..core.io import _case

    rename = {column: name for name, column in (columns or {}).items()}
    cases = []
    for k, record in enumerate(records, 1):
        obj = {}
        for key, value in record.items():
            key = rename.get(key, key)
            if key not in FIELDS:
                continue
            value = _plain(value)
            if value is not None:
                obj[key] = value
        retrieved = obj.get("retrieved")
        if isinstance(retrieved, str) and retrieved.startswith("["):
            raise InputError(f"{where} row {k}: \"retrieved\" holds the text {retrieved[:40]!r} instead of a list; "
                             "the DataFrame turned its lists into strings (Dask does for object columns: build it "
                             "under dask.config.set({'dataframe.convert-string': False}), or read Parquet, which "
                             "keeps lists).")
        cases.append(_case(obj, f"{where} row {k}", table, "the passages"))
    return cases


def _plain(value: Any) -> Any:
    """A value of a pandas or Arrow column as JSON would hold it: NaN and NA as ``None``, arrays as lists."""
    if value is None:
        return None
    if isinstance(value, float) and value != value:
        return None
    tolist = getattr(value, "tolist", None)
    if tolist is not None and not isinstance(value, (str, bytes)):
        value = tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return None
    except ImportError:  # pragma: no cover
        pass
    return value


def judge_rows(records: Sequence[Mapping[str, Any]], spec: JudgeSpec, table: Optional[Mapping[str, Passage]],
               where: str, columns: Optional[Mapping[str, str]] = None, frames: bool = False) -> dict:
    """Judge the rows of one partition: ``{"counts": Counts}``, with ``claims`` and ``cases``
    (Arrow tables of :mod:`groundlab.frames`) when ``frames``, or ``error``: the sentence for a row
    that is not a case or whose labels do not fit its claims (never a traceback across the
    network)."""
    from ..measure.counts import Counts
    from ..measure.evaluate import CHUNK, _empty_columns, _judge_chunk, split_cases
    from ..core.identity import judge_identity

    judge, splitter = spec.build()
    identity = judge_identity(judge, splitter)
    counts = Counts(judge.name, identity)
    out: Dict[str, Any] = {"counts": counts}
    claim_parts, case_parts = [], []
    try:
        cases = rows_to_cases(records, table, where, columns)
        for start in range(0, len(cases), CHUNK):
            chunk = cases[start:start + CHUNK]
            claims, rows = _empty_columns()
            _judge_chunk(judge, list(zip(chunk, split_cases(chunk, splitter))), claims, rows)
            counts.add_columns(claims, rows)
            if frames:
                from ..core.frames import cases_table, claims_table

                claim_parts.append(claims_table(claims, identity))
                case_parts.append(cases_table(rows, identity))
    except InputError as error:
        return {"error": str(error)}
    if frames:
        import pyarrow as pa

        from ..core.frames import case_schema, claim_schema

        out["claims"] = pa.concat_tables(claim_parts) if claim_parts else claim_schema(identity).empty_table()
        out["cases"] = pa.concat_tables(case_parts) if case_parts else case_schema(identity).empty_table()
    return out


def merge_partitions(results: Sequence[dict], what: str = "the DataFrame"):
    """The counts of all partitions, or the first partition's error as one sentence; a case id
    used in two rows is refused, as ``groundlab score`` refuses it in a file."""
    from ..measure.counts import merge_counts

    for result in results:
        if "error" in result:
            raise InputError(result["error"])
    parts = [r["counts"] for r in results]
    try:
        merged = merge_counts(parts, [f"partition {k}" for k in range(len(parts))])
    except InputError as error:
        if "case id" in str(error):
            raise InputError(f"{what} holds case ids used by more than one row ({str(error).split(' (')[0]}); "
                             "give each case its own id.") from None
        raise
    if not merged.count("cases"):
        raise InputError(f"{what} holds no cases; give it one row per case (see the case format in the README).")
    merged.shards = 1
    return merged


@dataclass
class EngineResult:
    """What an engine gives: the ``counts`` of every case (``counts.summary()`` is ``score --json``,
    ``counts.table()`` the tidy counts), and when asked, the ``claims`` and ``cases`` frames as
    DataFrames of the engine (Dask or Spark) with the declared Arrow schemas
    (``claim_schema``, ``case_schema``, carrying the judge's identity)."""

    counts: Any
    claims: Any = None
    cases: Any = None
    identity: Optional[Dict[str, Any]] = None

    @property
    def claim_schema(self):
        from ..core.frames import claim_schema

        return claim_schema(self.identity)

    @property
    def case_schema(self):
        from ..core.frames import case_schema

        return case_schema(self.identity)


__all__ = ["EngineResult", "JudgeSpec", "ONE_MACHINE", "judge_rows", "merge_partitions", "rows_to_cases"]
