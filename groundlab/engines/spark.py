"""Judge a Spark DataFrame of cases with ``mapInPandas``, a partition per task, and add up the counts.

    from pyspark.sql import SparkSession
    from groundlab.engines.spark import judge_spark
    spark = SparkSession.builder.getOrCreate()
    cases = spark.read.parquet("s3://lake/assistant-log/2026-11/")
    result = judge_spark(cases, "signals", passages="passages.jsonl", columns={"answer": "response"})
    result.counts.summary()["hallucination_rate"]            # the figures of groundlab score

The passages table is broadcast to the executors once; each Python worker builds the judge once
from its name and options. ``frames=True`` also gives the claim and case frames as Spark
DataFrames, with the judge's identity in the metadata of their ``verdict`` and ``hallucinated``
columns. Every partition is judged once, in one pass that gives its counts and both its frames:
that pass is kept on the executors (a local checkpoint, in memory and on disk), and the counts
and every action on either frame read it, never judging again. An executor lost afterwards takes
its part of the frames with it: write them out (``result.claims.write.parquet(...)``) to keep them.
"""

from __future__ import annotations

import json
import pickle
from typing import Any, Mapping, Optional, Union

from . import EngineResult, JudgeSpec, judge_rows, merge_partitions

#: Arrow types as Spark SQL types.
_SPARK_TYPES = {"string": "string", "int64": "bigint", "double": "double", "bool": "boolean",
                "list<item: string>": "array<string>"}


def spark_schema(arrow_schema) -> str:
    """A declared Arrow schema of :mod:`groundlab.frames` as a Spark DDL string."""
    return ", ".join(f"{f.name} {_SPARK_TYPES[str(f.type)]}" for f in arrow_schema)


def _table(passages):
    from ..core.io import passage_table

    return passage_table(passages)[0]


def _partition_id() -> int:
    from pyspark import TaskContext

    context = TaskContext.get()
    return context.partitionId() if context is not None else 0


def _judge_task(spec: JudgeSpec, shared, columns, frames: bool):
    """Judge a partition once: a row ``counts`` with its counts (or the sentence of its first bad
    row), and with ``frames`` a row ``claims`` and a row ``cases`` for each Arrow batch judged,
    each the frame's Arrow table as IPC bytes."""
    def run(batches):
        import pandas as pd

        from ..measure.counts import Counts

        part = _partition_id()
        table = shared.value if shared is not None else None
        merged, offset, error = None, 0, None
        for batch in batches:
            records = batch.to_dict("records")
            result = judge_rows(records, spec, table, f"partition {part}", columns, frames=frames)
            if "error" in result:
                error = _renumber(result["error"], part, offset)
                break
            offset += len(records)
            if merged is None:
                merged = result["counts"]
            else:
                merged.merge(result["counts"])
            if frames:
                yield pd.DataFrame({"partition": [part, part], "kind": ["claims", "cases"],
                                    "result": [_arrow_bytes(result["claims"]), _arrow_bytes(result["cases"])]})
        if error is None and merged is None:
            judge, splitter = spec.build()
            from ..core.identity import judge_identity

            merged = Counts(judge.name, judge_identity(judge, splitter))
        payload = {"error": error} if error is not None else {"counts": merged}
        yield pd.DataFrame({"partition": [part], "kind": ["counts"], "result": [pickle.dumps(payload)]})

    return run


def _arrow_bytes(table) -> bytes:
    """A frame's Arrow table as IPC stream bytes, zstd-compressed where pyarrow has the codec (the
    checkpoint holds every frame of the pass until the frames are read)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression="zstd" if pa.Codec.is_available("zstd") else None)
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _renumber(message: str, part: int, offset: int) -> str:
    """A row error of one Arrow batch, its row counted from the partition's start."""
    import re

    prefix = f"partition {part} row "
    if not offset or not message.startswith(prefix):
        return message
    match = re.match(r"partition \d+ row (\d+)", message)
    return f"{prefix}{int(match.group(1)) + offset}{message[match.end():]}"


def _frame_rows():
    """The rows of a frame from the Arrow tables one judging pass kept (no judging here)."""
    def run(batches):
        import pyarrow as pa

        for batch in batches:
            for blob in batch["result"]:
                frame = pa.ipc.open_stream(blob).read_all().to_pandas()
                for name in ("cites", "kinds"):
                    if name in frame.columns:
                        frame[name] = frame[name].map(lambda v: list(v) if v is not None else None)
                yield frame

    return run


def judge_spark(cases, judge: str = "signals", *, passages: Union[str, Mapping, None] = None,
                columns: Optional[Mapping[str, str]] = None, splitter: Any = None, frames: bool = False,
                **options: Any) -> EngineResult:
    """Judge every row of the Spark DataFrame ``cases`` and return an
    :class:`~groundlab.engines.EngineResult`: the counts of all rows, the same figures as
    ``groundlab score`` on the same cases. Arguments as :func:`groundlab.engines.dask.judge_dask`;
    the counts are gathered with one ``collect`` of a row per partition."""
    spec = JudgeSpec.of(judge, splitter, **options)
    table = _table(passages)
    context = cases.sparkSession.sparkContext
    shared = context.broadcast(table) if table is not None else None
    judged = cases.mapInPandas(_judge_task(spec, shared, columns, frames),
                               schema="partition int, kind string, result binary")
    if frames:  # judged here, once: the counts and both frames are read from this pass
        judged = judged.localCheckpoint(eager=True)
    rows = judged.filter("kind = 'counts'").select("partition", "result").collect()
    results = [pickle.loads(r["result"]) for r in sorted(rows, key=lambda r: r["partition"])]
    counts = merge_partitions(results)
    result = EngineResult(counts, identity=counts.identity)
    if frames:
        from pyspark.sql import functions as F

        from ..core.frames import case_schema, claim_schema

        identity = {"groundlab.judge": json.dumps(counts.identity, sort_keys=True, default=str)}
        claims = judged.filter("kind = 'claims'").select("result").mapInPandas(
            _frame_rows(), schema=spark_schema(claim_schema()))
        result.claims = claims.withColumn("verdict", F.col("verdict").alias("verdict", metadata=identity))
        case_frame = judged.filter("kind = 'cases'").select("result").mapInPandas(
            _frame_rows(), schema=spark_schema(case_schema()))
        result.cases = case_frame.withColumn("hallucinated", F.col("hallucinated").alias("hallucinated",
                                                                                          metadata=identity))
    return result


def judge_of_spark(frame) -> Optional[dict]:
    """The judge's identity a claim or case frame of :func:`judge_spark` carries (or ``None``)."""
    for field in frame.schema.fields:
        raw = (field.metadata or {}).get("groundlab.judge")
        if raw:
            return json.loads(raw)
    return None


__all__ = ["judge_of_spark", "judge_spark", "spark_schema"]
