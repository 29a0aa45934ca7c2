"""``resumable-jobs demo`` arguments; the demos live in :mod:`spark_demo` and :mod:`batch_demo`."""

from __future__ import annotations

import argparse
import signal
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=["spark", "batch"],
        default="spark",
        help="spark: a local Spark standalone cluster (needs Java); batch: AWS Batch served by a "
        "local moto_server (needs moto[server])",
    )
    parser.add_argument(
        "--job-seconds",
        type=int,
        default=30,
        help="spark backend: how long the demo's Spark job runs (the worker is killed while it runs)",
    )
    parser.add_argument(
        "--kill",
        choices=["sigkill", "sigterm"],
        default="sigkill",
        help="spark backend: how the worker dies. sigkill: the task process is killed outright (an "
        "OOM kill); sigterm: the task's supervisor gets SIGTERM, as in a pod eviction or a deploy - "
        "the driver is kept and the retry reconnects",
    )


def run(args: argparse.Namespace) -> int:
    # Ctrl-C and a plain `kill` both stop the demo through KeyboardInterrupt, whose handlers stop
    # everything it started - also when it was launched with SIGINT ignored (a background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        if args.backend == "batch":
            from resumable_jobs.demo.batch_demo import run_batch_demo

            return run_batch_demo(out=sys.stdout)
        from resumable_jobs.demo.spark_demo import run_spark_demo

        return run_spark_demo(job_seconds=args.job_seconds, kill=args.kill, out=sys.stdout)
    except (RuntimeError, TimeoutError) as error:
        print(f"demo failed: {error}", file=sys.stderr)
        return 1
