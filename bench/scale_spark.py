"""Score a cases file with the Spark engine on local[2] and print score's JSON figures (bench_scale.py).

    python bench/scale_spark.py CASES.jsonl PASSAGES.jsonl
"""

from __future__ import annotations

import json
import os
import sys


def main(argv) -> int:
    from pyspark.sql import SparkSession

    from groundlab.engines.spark import judge_spark

    cases, passages = argv[1], argv[2]
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master("local[2]").appName("groundlab-bench")
             .config("spark.ui.enabled", "false").config("spark.driver.memory", "2g")
             .config("spark.sql.files.maxPartitionBytes", str(64 * 1024 * 1024)).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    schema = "id string, question string, retrieved array<string>, answerable boolean, answer string"
    frame = spark.read.schema(schema).json(cases)
    result = judge_spark(frame, "signals", passages=passages)
    print(json.dumps(result.counts.summary()))
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
