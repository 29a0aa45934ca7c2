"""The demo's Spark application: a small aggregation that runs long enough to kill a worker.

It runs on the Spark cluster (as the driver's main file), never in Airflow; pyspark is imported
in ``main`` so that nothing imports it by accident when the package is scanned.
"""

import sys
import time


def main(seconds: float) -> None:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("resumable-jobs-demo").getOrCreate()
    total = spark.sparkContext.parallelize(range(1, 1001), 2).sum()
    time.sleep(seconds)  # stands in for a long transformation
    print(f"demo result: sum(1..1000) = {total}")
    spark.stop()


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 30)
