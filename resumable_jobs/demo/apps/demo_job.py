"""The demo's Spark application: a small aggregation that runs long enough to kill a worker."""

import sys
import time

from pyspark.sql import SparkSession

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30
spark = SparkSession.builder.appName("resumable-jobs-demo").getOrCreate()
total = spark.sparkContext.parallelize(range(1, 1001), 2).sum()
time.sleep(seconds)  # stands in for a long transformation
print(f"demo result: sum(1..1000) = {total}")
spark.stop()
