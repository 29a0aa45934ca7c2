"""Succeeds: sums 1..N on the cluster's executor and prints the total (N is the first argument)."""

import sys

from pyspark.sql import SparkSession

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 100
spark = SparkSession.builder.appName("resumable-jobs-sum").getOrCreate()
total = spark.sparkContext.parallelize(range(1, limit + 1), 2).sum()
print(f"SUM={total}", flush=True)
spark.stop()
