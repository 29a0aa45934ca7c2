"""``resumable-jobs demo``: watch a retry reconnect to a Spark driver after its worker was killed.

What it is for: showing, on one machine and in about two minutes, what the package does - a task
submits a Spark driver, its worker process is SIGKILLed while the driver runs, Airflow retries
the task, and the retry reconnects to the same driver instead of submitting another one. With
``--kill sigterm`` the worker is shut down instead (SIGTERM to the task's supervisor, as a pod
eviction or a deploy does): the task keeps the driver, ends its try at once, and the retry
reconnects.

How it works: it starts a local Spark standalone cluster (:class:`LocalSparkCluster`) and an
embedded Airflow 3.3 (:class:`EmbeddedAirflow`: api-server, LocalExecutor, SQLite), runs the
demo DAG with ``airflow dags test --use-executor``, waits until the master reports the driver
RUNNING, SIGKILLs the task process (or SIGTERMs its supervisor) from outside, and follows the
retry. Progress lines appear
as it goes; a timeline closes the run. Everything it started is stopped on exit, Ctrl-C
included.

What it does not do: it needs Java 17+ (Spark) and Airflow 3.3 (crash recovery); it says so
and exits when either is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from resumable_jobs.demo.common import read_record, require_durable_airflow
from resumable_jobs.demo.timeline import Timeline, wait_for
from resumable_jobs.shims import installed_airflow_version

HERE = Path(__file__).resolve().parent
DAG_ID = "resumable_jobs_demo"
TASK_ID = "aggregate"
JAVA_HELP = (
    "The demo runs a local Spark cluster, which needs Java 17 or later, and no `java` was found.\n"
    "Install it, then run the demo again:\n"
    "  Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless\n"
    "  macOS:         brew install openjdk@17\n"
)


def run_spark_demo(*, job_seconds: int = 30, kill: str = "sigkill", out: TextIO = sys.stdout) -> int:
    """Run the demo; return the process exit code (0 when the retry reconnected)."""
    if not require_durable_airflow(out):
        return 2
    if shutil.which("java") is None:
        print(JAVA_HELP, file=out)
        return 2

    from resumable_jobs.local.embedded_airflow import EmbeddedAirflow
    from resumable_jobs.local.spark_cluster import JavaNotFoundError, LocalSparkCluster

    timeline = Timeline(out=out)
    workdir = Path(tempfile.mkdtemp(prefix="rj-demo-"))
    state_dir = workdir / "state"
    state_dir.mkdir()
    try:
        timeline.progress("starting a Spark standalone master and worker on 127.0.0.1 ...")
        cluster = LocalSparkCluster()
        try:
            cluster.start()
        except JavaNotFoundError:
            print(JAVA_HELP, file=out)
            return 2
        try:
            timeline.progress(f"Spark master ready: {cluster.master_url} (REST {cluster.rest_url}, UI {cluster.ui_url})")
            timeline.progress("starting an embedded Airflow (SQLite, api-server, LocalExecutor) ...")
            env = {
                **cluster.airflow_connection_env("spark_default"),
                "RJ_DEMO_STATE_DIR": str(state_dir),
                "RJ_DEMO_APP": str(HERE / "apps" / "demo_job.py"),
                "RJ_DEMO_JOB_SECONDS": str(job_seconds),
            }
            with EmbeddedAirflow(HERE / "dags", home=workdir / "airflow-home", extra_env=env) as airflow:
                timeline.progress(f"Airflow {installed_airflow_version()} ready (api-server on 127.0.0.1:{airflow.port})")
                return _drive(airflow, cluster, state_dir, timeline, kill)
        finally:
            timeline.progress("stopping the Spark cluster")
            cluster.stop()
    except KeyboardInterrupt:
        print("\ninterrupted: stopping everything the demo started ...", file=out, flush=True)
        return 130
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _drive(airflow: Any, cluster: Any, state_dir: Path, timeline: Timeline, kill: str = "sigkill") -> int:
    drivers_before = {d["id"] for d in cluster.list_drivers()}
    process = airflow.start_dag_test(DAG_ID)
    timeline.progress(f"running DAG {DAG_ID} (task {TASK_ID!r}, retries=2) ...")

    first = wait_for(lambda: read_record(state_dir, "try-1"), timeline, "try 1 to submit a driver", process)
    driver_id = first["driver_id"]
    timeline.event(f"try 1 submitted driver {driver_id}")
    wait_for(lambda: cluster.driver_state(driver_id) == "RUNNING" or None, timeline, f"driver {driver_id} to run", process)
    timeline.progress(f"driver {driver_id} is RUNNING on the cluster")
    if kill == "sigterm":
        os.kill(first["supervisor_pid"], signal.SIGTERM)
        timeline.event(
            f"worker shutting down: SIGTERM to the task's supervisor (pid {first['supervisor_pid']}, as a pod "
            f"eviction sends it) while driver {driver_id} runs"
        )
        kept = wait_for(
            lambda: _log_line(airflow.task_log(DAG_ID, TASK_ID, 1), "keeping job"), timeline, "try 1 to decide", process
        )
        timeline.event(f"try 1 logged \"{kept.split(' (', 1)[0]}\" and ended at once")
    else:
        os.kill(first["pid"], signal.SIGKILL)
        timeline.event(f"worker killed with SIGKILL (task process pid {first['pid']}) while driver {driver_id} runs")

    second = wait_for(lambda: read_record(state_dir, "try-2"), timeline, "Airflow to retry the task", process, timeout=300)
    same = second["driver_id"] == driver_id
    if same:
        timeline.event(f"retry {second['try_number']} reconnected to {driver_id} (no new submission)")
    else:
        timeline.event(f"retry {second['try_number']} followed driver {second['driver_id']} - NOT the original driver")

    # The DAG run's state decides; `dags test` itself may linger on an idle executor worker.
    wait_for(
        lambda: airflow.dag_run_state(DAG_ID) in ("success", "failed") or process.poll() is not None,
        timeline,
        f"driver {driver_id} and the task to finish",
        process=None,
        timeout=600,
    )
    state = cluster.driver_state(driver_id)
    timeline.event(f"driver {driver_id} {state}")
    rows = airflow.task_instances(DAG_ID)
    task_state = rows[0].state if rows else "unknown"
    timeline.event(f"task {task_state} (try {rows[0].try_number if rows else '?'})")
    new_drivers = [d for d in cluster.list_drivers() if d["id"] not in drivers_before]
    output = cluster.driver_output(driver_id)
    result_line = next((line for line in output.splitlines() if line.startswith("demo result")), None)
    timeline.summary(
        [
            f"drivers on the master: {len(new_drivers)}",
            f"XCom return_value: {airflow.xcom(DAG_ID, TASK_ID)!r}",
            f"driver output: {result_line or '(none)'}",
        ]
    )
    ok = same and task_state == "success" and len(new_drivers) == 1 and state == "FINISHED"
    return 0 if ok else 1


def _log_line(log: str, text: str) -> str | None:
    """The event text of the first log line containing ``text`` (task logs are JSON lines)."""
    for line in log.splitlines():
        if text in line:
            try:
                return str(json.loads(line).get("event", line))
            except ValueError:
                return line
    return None
