"""Import cost: what importing our operators costs a DAG file, next to the upstream operator.

DAG files are parsed over and over by the dag processor; every module an operator drags in at
import time is paid on each parse. This script measures the median wall time of a *fresh*
interpreter running ``import <module>`` (so caches from earlier imports do not flatter anyone),
for ``airflow.sdk`` alone (the floor every DAG pays), our modules, and the upstream operator
module of the same name, and prints the ratios. Run it with the interpreter of the environment
to measure::

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
    ("BigQuery", "resumable_jobs.providers.google", "airflow.providers.google.cloud.operators.bigquery"),
    ("Spark", "resumable_jobs.providers.spark", "airflow.providers.apache.spark.operators.spark_submit"),
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
    print(f"{'module':58} {'median s':>9} {'vs airflow.sdk':>15} {'vs upstream':>12}")
    print(f"{BASELINE:58} {base:9.3f} {1.0:15.2f}")
    if core is not None:
        print(f"{CORE + ' (+ mixin)':58} {core:9.3f} {core / base:15.2f}")
    for label, ours, upstream in FAMILIES:
        ours_s = time_import(ours, args.runs)
        up_s = time_import(upstream, args.runs)
        if ours_s is None:
            print(f"{ours:58} {'not installed or failed to import':>38}")
            continue
        ratio = f"{ours_s / up_s:12.2f}" if up_s else f"{'n/a':>12}"
        print(f"{ours:58} {ours_s:9.3f} {ours_s / base:15.2f} {ratio}")
        if up_s is not None:
            print(f"{'  upstream ' + upstream:58} {up_s:9.3f} {up_s / base:15.2f}")
        else:
            print(f"  upstream {upstream}: not installed")
    print("\nratio < 1 vs upstream: our operator module is cheaper to import than upstream's.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
