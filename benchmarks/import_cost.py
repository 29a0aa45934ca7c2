"""Import cost: what importing our operators costs a DAG file, next to the upstream operator.

DAG files are parsed over and over by the dag processor; every module an operator drags in at
import time is paid on each parse. This script measures, for our modules and the upstream
operator module of the same name, two medians over fresh interpreters (so caches from earlier
imports do not flatter anyone):

* total: ``python -c "import <module>"`` wall time, next to ``airflow.sdk`` alone (the floor
  every DAG file pays);
* added: the time ``import <module>`` takes *after* ``import airflow.sdk`` in the same process -
  the part an operator adds on top of that floor, and the fairer comparison, since the floor
  dominates the totals and varies with machine load.

Run it with the interpreter of the environment to measure::

    python benchmarks/import_cost.py [--runs 7]

Rows whose module is not installed are reported as such, not skipped silently.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

BASELINE = "airflow.sdk"
CORE = "resumable_jobs"
#: (label, our module, upstream module with the operator of the same name)
FAMILIES = [
    ("Databricks", "resumable_jobs.providers.databricks", "airflow.providers.databricks.operators.databricks"),
    ("AWS Batch", "resumable_jobs.providers.amazon", "airflow.providers.amazon.aws.operators.batch"),
    ("AWS Glue", "resumable_jobs.providers.amazon.glue", "airflow.providers.amazon.aws.operators.glue"),
    (
        "Redshift Data",
        "resumable_jobs.providers.amazon.redshift_data",
        "airflow.providers.amazon.aws.operators.redshift_data",
    ),
    ("EMR Serverless / EKS", "resumable_jobs.providers.amazon.emr_serverless", "airflow.providers.amazon.aws.operators.emr"),
    ("BigQuery", "resumable_jobs.providers.google", "airflow.providers.google.cloud.operators.bigquery"),
    ("Spark", "resumable_jobs.providers.spark", "airflow.providers.apache.spark.operators.spark_submit"),
    ("Snowflake", "resumable_jobs.providers.snowflake", "airflow.providers.snowflake.operators.snowflake"),
    ("dbt Cloud", "resumable_jobs.providers.dbt", "airflow.providers.dbt.cloud.operators.dbt"),
    ("Kubernetes pod", "resumable_jobs.providers.kubernetes", "airflow.providers.cncf.kubernetes.operators.pod"),
]


def _statement(module: str) -> str:
    if module == CORE:  # the mixin is resolved lazily: include it, it is what operators use
        return "import resumable_jobs; resumable_jobs.ResumableJobMixin"
    return f"import {module}"


def time_import(module: str, runs: int) -> float | None:
    """Median seconds for a fresh interpreter to import ``module``; None if it cannot."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _statement(module)], capture_output=True)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            return None
        samples.append(elapsed)
    return statistics.median(samples)


def time_added(module: str, runs: int) -> float | None:
    """Median seconds ``import module`` takes after ``import airflow.sdk`` in a fresh interpreter."""
    code = (
        "import time, airflow.sdk\n"
        f"start = time.perf_counter()\n{_statement(module)}\n"
        "print(time.perf_counter() - start)"
    )
    samples = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if done.returncode != 0:
            return None
        samples.append(float(done.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh interpreters per module (median)")
    args = parser.parse_args(argv)

    subprocess.run([sys.executable, "-c", f"import {BASELINE}"], capture_output=True)  # warm the disk cache
    base = time_import(BASELINE, args.runs)
    if base is None:
        print("airflow.sdk cannot be imported in this environment", file=sys.stderr)
        return 2
    core = time_import(CORE, args.runs)
    core_added = time_added(CORE, args.runs)
    print(f"{'module':58} {'total s':>8} {'/ sdk':>6} {'added s':>8} {'added vs upstream':>18}")
    print(f"{BASELINE:58} {base:8.3f} {1.0:6.2f}")
    if core is not None and core_added is not None:
        print(f"{CORE + ' (+ mixin)':58} {core:8.3f} {core / base:6.2f} {core_added:8.3f}")
    for _label, ours, upstream in FAMILIES:
        ours_total, ours_added = time_import(ours, args.runs), time_added(ours, args.runs)
        up_total, up_added = time_import(upstream, args.runs), time_added(upstream, args.runs)
        if ours_total is None or ours_added is None:
            print(f"{ours:58} not installed or failed to import")
            continue
        ratio = f"{ours_added / up_added:18.3f}" if up_added else f"{'n/a':>18}"
        print(f"{ours:58} {ours_total:8.3f} {ours_total / base:6.2f} {ours_added:8.3f} {ratio}")
        if up_total is not None and up_added is not None:
            print(f"{'  upstream ' + upstream:58} {up_total:8.3f} {up_total / base:6.2f} {up_added:8.3f}")
        else:
            print(f"  upstream {upstream}: not installed")
    print("\nadded vs upstream < 1: our operator module adds less import time than upstream's.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
