"""The Dask and Spark engines on a real Dask LocalCluster (worker processes) and a real Spark
session on local[2]: the figures of groundlab score on the same cases, the frames with their
declared schema and the judge's identity, and one sentence for what cannot be judged there."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pandas as pd
import pytest

from groundlab.counts import counts_of
from groundlab.engines import JudgeSpec
from groundlab.evaluate import evaluate_file
from groundlab.frames import claim_schema
from groundlab.records import GroundlabError, InputError

from conftest import NOTES

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from make_cases import make  # noqa: E402

N = 1500


@pytest.fixture(scope="module")
def cases_file(tmp_path_factory) -> Path:
    rows = []
    for k, case in enumerate(make(N, seed=11)):
        if k % 3:
            case["process"] = ("procure-to-pay", "order-to-cash")[k % 2]
        if k % 10 == 0:
            case["labels"] = None  # written as null: absent
        rows.append(case)
    path = tmp_path_factory.mktemp("engines") / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def expected(cases_file):
    return counts_of(evaluate_file(cases_file, NOTES, "signals"))


@pytest.fixture(scope="module")
def dask_client():
    dask = pytest.importorskip("dask")
    from distributed import Client, LocalCluster

    with dask.config.set({"dataframe.convert-string": False}):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        yield client
        client.close()
        cluster.close()


def _frame(path: Path) -> pd.DataFrame:
    return pd.DataFrame([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()])


def test_dask_gives_the_figures_of_score_and_keeps_the_frames_on_the_cluster(dask_client, cases_file, expected):
    import dask
    import dask.dataframe as dd

    from groundlab.engines.dask import judge_dask

    with dask.config.set({"dataframe.convert-string": False}):
        frame = _frame(cases_file).rename(columns={"answer": "response"})
        cases = dd.from_pandas(frame, npartitions=5)
        result = judge_dask(cases, "signals", passages=NOTES, columns={"answer": "response"}, client=dask_client)
        assert result.counts.summary(3) == expected.summary(3)
        assert result.counts.breakdown() == expected.breakdown()
        assert result.counts.table().equals(expected.table())
        with_frames = judge_dask(cases, "signals", passages=NOTES, columns={"answer": "response"}, frames=True,
                                 client=dask_client)
    assert with_frames.counts.summary() == expected.summary()
    claims = with_frames.claims.compute()
    assert len(claims) == expected.count("claims") and claims["verdict"].notna().all()
    assert {str(t) for t in claims.dtypes} >= {"string[pyarrow]", "list<item: string>[pyarrow]"}
    assert str(claims.dtypes["error"]) == "string[pyarrow]"  # all null, still a string column in every partition
    cases_frame = with_frames.cases.compute()
    assert len(cases_frame) == N and int(cases_frame["claims"].sum()) == expected.count("claims")
    assert with_frames.claim_schema.metadata[b"groundlab.judge"] == claim_schema(expected.identity).metadata[
        b"groundlab.judge"]


def test_dask_refuses_a_repeated_id_a_bad_row_and_the_llm_judge(dask_client, cases_file):
    import dask
    import dask.dataframe as dd

    from groundlab.engines.dask import judge_dask

    frame = _frame(cases_file).head(400)
    with dask.config.set({"dataframe.convert-string": False}):
        twice = dd.from_pandas(pd.concat([frame, frame.head(3)], ignore_index=True), npartitions=3)
        with pytest.raises(InputError, match="holds case ids used by more than one row"):
            judge_dask(twice, "rules", passages=NOTES, client=dask_client)
        bad = frame.copy()
        bad.loc[250, "answer"] = 7
        with pytest.raises(InputError, match=r"partition \d row \d+ \(case s0000250\): \"answer\" must be a string"):
            judge_dask(dd.from_pandas(bad, npartitions=2), "rules", passages=NOTES, client=dask_client)
    with pytest.raises(GroundlabError, match="the llm judge stays on one machine"):
        judge_dask(dd.from_pandas(frame, npartitions=2), "llm", passages=NOTES, client=dask_client)


def test_score_engine_dask_uses_an_existing_cluster(dask_client, cases_file, cli, monkeypatch):
    import groundlab.engines.dask as engine

    monkeypatch.setattr(engine, "SPAN_BYTES", 100_000)  # several ranges a worker
    address = dask_client.scheduler.address
    local = cli.json("score", "--cases", cases_file, "--passages", NOTES, "--breakdown")
    on_cluster = cli.json("score", "--cases", cases_file, "--passages", NOTES, "--breakdown", "--engine", "dask",
                          "--scheduler", address)
    assert on_cluster == local
    code, _, err = cli("score", "--cases", cases_file, "--passages", NOTES, "--engine", "dask", "--scheduler", address,
                       "--judge", "llm")
    assert code == 2 and "stays on one machine" in err and err.count("\n") == 1
    code, _, err = cli("score", "--cases", cases_file, "--passages", NOTES, "--scheduler", address)
    assert code == 2 and "add --engine dask" in err
    code, _, err = cli("score", "--cases", cases_file, "--passages", NOTES, "--engine", "dask", "--scheduler",
                       "tcp://127.0.0.1:9")
    assert code == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    # a case citing a passage the passages file lacks: the same sentence, naming the passages file
    bad = Path(cases_file).with_name("bad_id.jsonl")
    bad.write_text(json.dumps({"id": "x1", "question": "q", "retrieved": ["NOPE"], "answer": "a."}) + "\n",
                   encoding="utf-8")
    local = cli("score", "--cases", bad, "--passages", NOTES)
    remote = cli("score", "--cases", bad, "--passages", NOTES, "--engine", "dask", "--scheduler", address)
    assert remote[0] == local[0] == 2 and remote[2] == local[2] and "is not in " + str(NOTES) in remote[2]


def test_a_judge_is_built_once_per_worker_from_its_name_and_config(tmp_path):
    spec = JudgeSpec.of("signals")
    judge, _ = spec.build()
    import pickle

    again = pickle.loads(pickle.dumps(spec))
    assert again.build()[0] is judge  # the same warm judge in this process
    assert len(pickle.dumps(spec)) < 20_000  # a recipe, not a judge with its memo


@pytest.fixture(scope="module")
def spark():
    pyspark = pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.master("local[2]").appName("groundlab-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "1g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    assert pyspark


def test_spark_gives_the_figures_of_score_with_the_judges_identity(spark, cases_file, expected):
    from groundlab.engines.spark import judge_of_spark, judge_spark

    cases = spark.read.json(str(cases_file)).repartition(3)
    result = judge_spark(cases, "signals", passages=str(NOTES), frames=True)
    assert result.counts.summary(3) == expected.summary(3)
    assert result.counts.breakdown() == expected.breakdown()
    assert judge_of_spark(result.claims) == expected.identity
    assert result.claims.count() == expected.count("claims")
    base = spark.read.json(str(cases_file))
    twice = base.filter("id < 's0000050'").unionByName(base.filter("id < 's0000003'"))
    with pytest.raises(InputError, match="holds case ids used by more than one row"):
        judge_spark(twice, "rules", passages=str(NOTES))


def _counting_spec(log: str):
    """A :class:`JudgeSpec` whose judge writes down, in ``log``, the number of pairs of every batch
    it is given. Defined in a function, so Spark's cloudpickle carries the class itself to the
    Python workers (each writes to the same file on this one machine)."""
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class CountingSpec(JudgeSpec):
        @classmethod
        def of(cls, judge="signals", splitter=None, **options):
            base = JudgeSpec.of(judge, splitter, **options)
            return cls(base.name, base.options, base.splitter)

        def build(self):
            built = self.__dict__.get("_built")
            if built is None:
                from groundlab.claims import ClaimSplitter
                from groundlab.policy import make_judge

                judge = make_judge(self.name, **dict(self.options))  # its own, not a worker's shared warm judge
                batch = judge.judge_batch

                def judge_batch(pairs):
                    with open(log, "a", encoding="utf-8") as fh:
                        fh.write(f"{len(pairs)}\n")
                    return batch(pairs)

                judge.judge_batch = judge_batch
                built = (judge, self.splitter or ClaimSplitter())
                object.__setattr__(self, "_built", built)
            return built

    return CountingSpec


def test_spark_judges_each_row_once_for_the_counts_and_both_frames(spark, cases_file, tmp_path, monkeypatch):
    """``frames=True`` judges every partition once: the counts, the claim frame and the case frame
    come from one pass, however often the frames are read afterwards."""
    import groundlab.engines.spark as engine

    cases = spark.read.json(str(cases_file)).filter("id < 's0000600'").repartition(3)
    pairs = []
    for k, frames in enumerate((False, True)):
        log = tmp_path / f"batches-{k}"
        log.touch()
        monkeypatch.setattr(engine, "JudgeSpec", _counting_spec(str(log)))
        result = engine.judge_spark(cases, "rules", passages=str(NOTES), frames=frames)
        if frames:
            claims = result.claims.toPandas()
            assert result.claims.count() == len(claims) == result.counts.count("claims")
            assert result.cases.count() == 600 and int(result.cases.toPandas()["claims"].sum()) == len(claims)
        pairs.append([int(n) for n in log.read_text(encoding="utf-8").split()])
    counts_only, with_frames = pairs
    assert counts_only and sum(counts_only) > 0
    # as many batches and pairs as the one pass that keeps counts only: each row judged once
    assert (len(with_frames), sum(with_frames)) == (len(counts_only), sum(counts_only))
