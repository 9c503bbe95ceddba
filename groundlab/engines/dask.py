"""Judge a Dask DataFrame of cases on a Dask cluster, a partition per task, and add up the counts.

    from distributed import Client
    import dask.dataframe as dd
    from groundlab.engines.dask import judge_dask
    client = Client("tcp://scheduler:8786")
    cases = dd.read_parquet("s3://lake/assistant-log/2026-11/")
    result = judge_dask(cases, "signals", passages="s3-synced/passages.jsonl", columns={"answer": "response"})
    result.counts.summary()["hallucination_rate"]            # the figures of groundlab score
    result.counts.table()                                    # the tidy counts table

``frames=True`` keeps each partition's claims and cases on the cluster as Dask DataFrames of the
declared Arrow schemas (``result.claims.to_parquet(path, schema=result.claim_schema)`` writes them
with the judge's identity). ``groundlab score --engine dask --scheduler ADDRESS`` judges a cases
file the workers can read (a shared folder) the same way, cut into byte ranges.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

from ..core.records import GroundlabError
from . import EngineResult, JudgeSpec, judge_rows, merge_partitions


def _client(client):
    try:
        from distributed import default_client
    except ImportError:
        raise GroundlabError("the Dask engine needs Dask's distributed scheduler: pip install 'dask[distributed]'.") from None
    if client is not None:
        return client
    try:
        return default_client()
    except ValueError:
        raise GroundlabError("no Dask client is running; start one (distributed.Client(address), or a LocalCluster) "
                             "or pass client=.") from None


def _table(passages):
    from ..core.io import passage_table

    return passage_table(passages)[0]


def _judge_partition(frame, spec: JudgeSpec, table, where: str, columns, frames: bool):
    """One partition (a pandas DataFrame): its counts, and its frames as pandas (Arrow dtypes)."""
    result = judge_rows(frame.to_dict("records"), spec, table, where, columns, frames)
    if not frames:
        return result, None, None
    import pandas as pd

    if "error" in result:
        from ..core.frames import case_schema, claim_schema

        empty = {"claims": claim_schema().empty_table(), "cases": case_schema().empty_table()}
        result.update(empty)
    claims = result.pop("claims").to_pandas(types_mapper=pd.ArrowDtype)
    cases = result.pop("cases").to_pandas(types_mapper=pd.ArrowDtype)
    return result, claims, cases


def judge_dask(cases, judge: str = "signals", *, passages: Union[str, Mapping, None] = None,
               columns: Optional[Mapping[str, str]] = None, splitter: Any = None, frames: bool = False,
               client: Any = None, **options: Any) -> EngineResult:
    """Judge every row of the Dask DataFrame ``cases`` on the cluster of ``client`` (default: the
    running one) and return an :class:`~groundlab.engines.EngineResult`: the counts of all rows,
    the same figures as ``groundlab score`` on the same cases.

    ``judge`` and ``options`` (``config=`` a judge config, path or loaded) name the judge each worker
    builds once (:class:`~groundlab.engines.JudgeSpec`); ``passages``: the passages file or
    ``{id: Passage}`` the ``retrieved`` ids refer to, sent to each worker once; ``columns`` maps
    case fields to the DataFrame's columns (``{"id": "request_id"}``); ``frames=True`` also gives the
    claim and case frames as Dask DataFrames, left on the cluster. A row that is not a case, or a case
    id used twice, is one sentence (:class:`~groundlab.records.InputError`).
    """
    import dask

    client = _client(client)
    spec = JudgeSpec.of(judge, splitter, **options)
    table = _table(passages)
    shared = client.scatter([table], broadcast=True, hash=False)[0] if table is not None else None
    parts = cases.to_delayed()
    tasks = [dask.delayed(_judge_partition, nout=3, pure=False)(part, spec, shared, f"partition {k}", columns, frames)
             for k, part in enumerate(parts)]
    if not frames:
        results = client.gather(client.compute([t[0] for t in tasks]))
        counts = merge_partitions(results)
        return EngineResult(counts, identity=counts.identity)
    import dask.dataframe as dd
    import pandas as pd

    from ..core.frames import case_schema, claim_schema

    kept = client.persist([piece for t in tasks for piece in t])
    counts = merge_partitions(client.gather(client.compute(kept[0::3])))
    claims = dd.from_delayed(kept[1::3], meta=claim_schema().empty_table().to_pandas(types_mapper=pd.ArrowDtype),
                             verify_meta=False)
    case_frame = dd.from_delayed(kept[2::3], meta=case_schema().empty_table().to_pandas(types_mapper=pd.ArrowDtype),
                                 verify_meta=False)
    return EngineResult(counts, claims, case_frame, identity=counts.identity)


def _count_span(path: str, span, spec: JudgeSpec, table, passages_name: str) -> dict:
    """One byte range of a cases file, read and judged in a worker (as ``score`` does locally);
    ``passages_name``: how messages name the passages file."""
    from ..measure.evaluate import count_part

    judge, splitter = spec.build()
    return count_part(path, table, passages_name, span, judge, splitter)


#: The size of the byte ranges ``score --engine dask`` cuts a cases file into.
SPAN_BYTES = 16 * 1024 * 1024


def score_file_on_cluster(path, passages, judge: str, scheduler: str, *, splitter=None, options=None,
                          claims_out=None, guarded: bool = False):
    """``groundlab score --engine dask --scheduler ADDRESS``: the counts of a cases file, judged on
    the cluster in byte ranges of :data:`SPAN_BYTES` (each worker reads its ranges of the file,
    which it must see at the same path) by the judge named ``judge`` with ``options``.
    ``guarded``: a data policy or masking was asked for, which applies on one machine only."""
    import os
    from pathlib import Path

    from ..measure.evaluate import merge_parts
    from ..core.identity import judge_identity
    from ..core.io import is_regular_file, split_file

    if claims_out:
        raise GroundlabError("--claims-out is written on one machine; with --engine dask, judge_dask(..., frames=True) "
                             "leaves the claim frame on the cluster (docs/scale.md), or drop --engine dask.")
    if guarded:
        raise GroundlabError("a data policy and masking apply on one machine; drop --policy and --mask, or run "
                             "without --engine dask.")
    if not scheduler:
        raise GroundlabError("--engine dask needs --scheduler ADDRESS, the scheduler of a running Dask cluster "
                             "(e.g. tcp://10.0.0.5:8786; 'dask scheduler' prints it).")
    if not is_regular_file(path):
        raise GroundlabError(f"--engine dask reads the cases file on the workers, a range each, so it needs a file "
                             f"(not {path}); save it where the workers can read it.")
    spec = JudgeSpec.of(judge, splitter, **(options or {}))
    try:
        from distributed import Client
    except ImportError:
        raise GroundlabError("--engine dask needs Dask's distributed scheduler: pip install 'dask[distributed]'.") from None
    _refused(scheduler)
    try:
        client = Client(scheduler, timeout=30)
    except (OSError, TimeoutError) as exc:
        raise GroundlabError(f"cannot reach the Dask scheduler at {scheduler} ({exc}); check the address and "
                             "that the cluster is running.") from None
    try:
        from ..core.io import passage_table

        table, passages_name = passage_table(passages)
        shared = client.scatter([table], broadcast=True, hash=False)[0] if table is not None else None
        absolute = os.path.abspath(path)
        size = Path(absolute).stat().st_size
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        spans = split_file(absolute, max(workers * 2, size // SPAN_BYTES + 1))
        futures = [client.submit(_count_span, absolute, span, spec, shared, passages_name, pure=False)
                   for span in spans]
        results = client.gather(futures)
        built, splitter = spec.build()
        return merge_parts(path, results, built.name, judge_identity(built, splitter))
    finally:
        client.close()


def _refused(scheduler: str) -> None:
    """A ``tcp://`` address where nothing listens is refused at once, in one sentence; Dask's client
    would retry it for its whole timeout (30 s). Any other answer is left to the client."""
    import socket
    from urllib.parse import urlsplit

    if not scheduler.startswith("tcp://"):
        return
    try:
        where = urlsplit(scheduler)
        host, port = where.hostname, where.port
    except ValueError:
        return
    if not host or not port:
        return
    try:
        socket.create_connection((host, port), timeout=5).close()
    except ConnectionRefusedError:
        raise GroundlabError(f"cannot reach the Dask scheduler at {scheduler} (nothing listens on port {port} of "
                             f"{host}); check the address and that the cluster is running.") from None
    except OSError:
        return


__all__ = ["judge_dask", "score_file_on_cluster"]
