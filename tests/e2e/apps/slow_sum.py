"""A PySpark job that takes long enough for a worker to be killed while it runs."""

import sys
import time

from pyspark.sql import SparkSession

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20
spark = SparkSession.builder.appName("rj-e2e-slow-sum").getOrCreate()
total = spark.sparkContext.parallelize(range(1, 101), 2).sum()
time.sleep(seconds)
print(f"sum=5050 ok={total == 5050}")
spark.stop()
