"""`resumable-jobs demo`, the README's main command: it runs, it says what is missing, it cleans up."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import DURABLE


def _demo(*args: str, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "resumable_jobs.cli", "demo", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def _leftovers(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if marker in line and "ps -eo" not in line]


@pytest.mark.skipif(not DURABLE, reason="the demo needs Airflow 3.3")
def test_missing_java_is_explained_not_a_stack_trace(tmp_path):
    python_dir = os.path.dirname(sys.executable)
    done = _demo(env={**os.environ, "PATH": f"{python_dir}:/nonexistent"}, timeout=120)
    assert done.returncode == 2
    assert "needs Java 17 or later" in done.stdout and "apt-get install -y openjdk-17-jre-headless" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.shim_only
def test_below_3_3_the_demo_says_it_needs_3_3():
    done = _demo(timeout=120)
    assert done.returncode == 2 and "needs Airflow 3.3 or later" in done.stdout


@pytest.mark.e2e
@pytest.mark.durable_only
@pytest.mark.spark_cluster
def test_spark_demo_shows_one_driver_and_a_reconnecting_retry():
    done = _demo("--job-seconds", "20")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    timeline = done.stdout[done.stdout.index("Timeline") :]
    assert "drivers on the master: 1" in timeline
    assert "(no new submission)" in timeline and "task success (try 2)" in timeline
    assert "demo result: sum(1..1000) = 500500" in timeline
    assert not _leftovers("rj-local-spark-") and not _leftovers("dags test resumable_jobs_demo")


@pytest.mark.e2e
@pytest.mark.durable_only
@pytest.mark.spark_cluster
def test_spark_demo_with_sigterm_shows_the_eviction_case_keeping_the_driver():
    done = _demo("--kill", "sigterm", "--job-seconds", "20")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    timeline = done.stdout[done.stdout.index("Timeline") :]
    assert "SIGTERM to the task's supervisor" in timeline
    assert "try 1 logged \"The worker is shutting down: keeping job 'driver-" in timeline
    assert "(no new submission)" in timeline and "task success (try 2)" in timeline
    assert "drivers on the master: 1" in timeline
    assert not _leftovers("rj-local-spark-") and not _leftovers("dags test resumable_jobs_demo")


@pytest.mark.e2e
@pytest.mark.durable_only
def test_batch_demo_adopts_the_orphaned_job():
    done = _demo("--backend", "batch")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    timeline = done.stdout[done.stdout.index("Timeline") :]
    assert "jobs in the queue: 1" in timeline and "adopted it" in timeline
    assert not _leftovers("dags test resumable_jobs_batch_demo") and not _leftovers("moto.server")


@pytest.mark.e2e
@pytest.mark.durable_only
@pytest.mark.spark_cluster
def test_ctrl_c_stops_everything_the_demo_started():
    import signal
    import time

    demo = subprocess.Popen(
        [sys.executable, "-m", "resumable_jobs.cli", "demo", "--job-seconds", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    seen = []
    deadline = time.monotonic() + 300
    for line in demo.stdout:  # wait until the cluster, Airflow and the DAG run all exist
        seen.append(line)
        if "running DAG" in line or time.monotonic() > deadline:
            break
    demo.send_signal(signal.SIGINT)
    rest, _ = demo.communicate(timeout=120)
    output = "".join(seen) + rest
    assert demo.returncode == 130, output[-2000:]
    assert "interrupted: stopping everything the demo started" in output
    assert not _leftovers("rj-local-spark-") and not _leftovers("dags test resumable_jobs_demo")
    assert not _leftovers("api_server -- host:127.0.0.1")
