"""End to end: the job's life follows the task instance, with Airflow's real supervisor.

A durable Spark task runs on the local cluster under a real api-server and LocalExecutor. Once
its driver runs, the test does to the task what production does:

* SIGTERM to the task's supervisor - a pod eviction, a deploy, a worker shutting down. The
  supervisor forwards it to the task, whose on_kill asks the API server for the task instance's
  state (``running``), keeps the driver and ends the try at once; the retry reconnects.
* The task instance marked failed through the REST API - the supervisor's next heartbeat is
  refused and it SIGTERMs the task, whose on_kill finds the state ``failed`` and kills the driver.

Assertions are what a user checks: drivers on the master and their end states, the task
instance's state and try number, the XCom, and the log lines that explain each decision.
"""

from __future__ import annotations

import json
import os
import signal
import time
from datetime import datetime

import pytest

from tests.e2e.logs import has_event

pytestmark = [pytest.mark.e2e, pytest.mark.durable_only, pytest.mark.spark_cluster]


def _marker(marker_dir, dag_id):
    path = marker_dir / f"{dag_id}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _log_time(log: str, text: str) -> float | None:
    """Epoch seconds of the first JSON log line containing ``text``."""
    for line in log.splitlines():
        if text in line:
            try:
                return datetime.fromisoformat(json.loads(line)["timestamp"].replace("Z", "+00:00")).timestamp()
            except (ValueError, KeyError):
                continue
    return None


def _run_and_act(airflow, spark_cluster, marker_dir, dag_id, act):
    before = {d["id"] for d in spark_cluster.list_drivers()}
    acted: dict = {}

    def on_tick():
        if not acted and (marker := _marker(marker_dir, dag_id)) is not None:
            acted.update(marker, at=time.time())
            act(marker)

    rc = airflow.run_dag(dag_id, timeout=600, on_tick=on_tick)
    new = [d for d in spark_cluster.list_drivers() if d["id"] not in before]
    (ti,) = airflow.task_instances(dag_id)
    assert acted, "the task never reported a running driver"
    return rc, new, ti, acted


def test_worker_sigterm_keeps_the_driver_and_the_retry_reconnects_to_it(airflow, spark_cluster, marker_dir):
    dag_id = "e2e_spark_worker_sigterm"
    rc, new, ti, acted = _run_and_act(
        airflow, spark_cluster, marker_dir, dag_id, lambda marker: os.kill(marker["supervisor_pid"], signal.SIGTERM)
    )
    assert rc == 0
    assert len(new) == 1, new  # kept, not killed and resubmitted
    (driver,) = new
    assert driver["id"] == acted["driver_id"] and driver["state"] == "FINISHED"
    assert (ti.state, ti.try_number) == ("success", 2)
    assert airflow.xcom(dag_id, "spark_job") == driver["id"]

    first, retry = airflow.task_log(dag_id, "spark_job", 1), airflow.task_log(dag_id, "spark_job", 2)
    assert f"The worker is shutting down: keeping job '{driver['id']}'" in first
    assert "the task instance is 'running'" in first
    assert "Asked the Spark master to kill" not in first
    # the try ended at once, so the retry found the driver still running and reconnected to it
    assert has_event(retry, "Reconnecting to existing job", external_id=driver["id"], status="RUNNING")
    reconnected_at = _log_time(retry, "Reconnecting to existing job")
    if reconnected_at is not None:
        print(f"\nSIGTERM to the supervisor -> retry's reconnect line: {reconnected_at - acted['at']:.1f}s")
    assert "sum=5050 ok=True" in spark_cluster.driver_output(driver["id"])


def test_marking_the_running_task_failed_kills_its_driver(airflow, spark_cluster, marker_dir):
    dag_id = "e2e_spark_marked_failed"
    rc, new, ti, acted = _run_and_act(
        airflow,
        spark_cluster,
        marker_dir,
        dag_id,
        lambda marker: airflow.set_task_instance_state(dag_id, "spark_job", "failed"),
    )
    assert rc == 1
    assert [d["id"] for d in new] == [acted["driver_id"]]
    deadline = time.monotonic() + 60
    while spark_cluster.driver_state(acted["driver_id"]) != "KILLED" and time.monotonic() < deadline:
        time.sleep(1)
    assert spark_cluster.driver_state(acted["driver_id"]) == "KILLED"
    assert (ti.state, ti.try_number) == ("failed", 1)
    first = airflow.task_log(dag_id, "spark_job", 1)
    assert f"Cancelling job '{acted['driver_id']}' on SIGTERM: the task instance is 'failed'" in first
