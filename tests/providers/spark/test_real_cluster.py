"""Against a real Spark standalone cluster (pyspark's jars, Java 17) on 127.0.0.1.

The session fixture starts one master with its REST submission server and one worker; these tests
run serially against it. Drivers get 512 MB so a driver and an executor fit in the worker's 1 GB.
"""

from __future__ import annotations

import threading
import time

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.shims import durable_supported
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, SimulatedWorkerCrash, make_context, run_try
from tests.providers.spark.conftest import APPS

pytestmark = pytest.mark.spark_cluster

#: Faster JVM start-up for the short drivers and executors of these tests.
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _op(app: str, *args: str, **kwargs) -> SparkSubmitOperator:
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("status_poll_interval", 0.5)
    conf = {"spark.driver.extraJavaOptions": QUICK_JVM, "spark.executor.extraJavaOptions": QUICK_JVM}
    return SparkSubmitOperator(
        application=str(APPS / app),
        application_args=list(args),
        driver_memory="512m",
        executor_memory="512m",
        total_executor_cores=1,
        conf=conf,
        **kwargs,
    )


def _new_driver_ids(cluster, before: set[str]) -> list[str]:
    return sorted(d["id"] for d in cluster.list_drivers() if d["id"] not in before)


def test_python_application_succeeds_on_the_cluster(cluster):
    ti = FakeTaskInstance()
    before = {d["id"] for d in cluster.list_drivers()}
    result = run_try(_op("sum_app.py", "100"), make_context(InMemoryTaskStateStore(), ti))
    assert _new_driver_ids(cluster, before) == [result]
    assert cluster.driver_state(result) == "FINISHED"
    assert "SUM=5050" in cluster.driver_output(result)  # the Spark job ran on an executor
    assert ti.xcom == {"spark_driver_id": result, "spark_master_ui_url": cluster.ui_url}


def test_failing_application_fails_the_task(cluster):
    # Through an HTTP-style connection this time (host and port of the REST server itself).
    with pytest.raises(ExternalJobFailed, match=r"ended FAILED") as raised:
        run_try(_op("fail_app.py", conn_id="spark_http"), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    driver_id = str(raised.value).split()[2]
    assert cluster.driver_state(driver_id) == "FAILED"
    assert "refusing to run on purpose" in cluster.driver_output(driver_id)  # PythonRunner merges the streams


def test_missing_application_file_ends_error_with_the_masters_message(cluster):
    with pytest.raises(ExternalJobFailed, match=r"(?s)ended ERROR.*missing_app\.py"):
        run_try(_op("missing_app.py"), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


def _crash_once_running(op: SparkSubmitOperator, cluster) -> None:
    """The worker dies mid-poll: after the master reported the driver RUNNING."""

    def poll_then_die(external_id, context):
        cluster.wait_for_driver_state(external_id, {"RUNNING"}, timeout=60)
        op.get_job_status(external_id, context)  # one real poll through the REST server
        raise SimulatedWorkerCrash("worker killed while polling")

    object.__setattr__(op, "poll_until_complete", poll_then_die)


def test_worker_crash_mid_poll_then_retry_reconnects_to_the_same_driver(cluster):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    before = {d["id"] for d in cluster.list_drivers()}
    first = _op("sleep_app.py", "15")
    _crash_once_running(first, cluster)
    with pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    first_driver = first.current_external_id

    retry_ti = ti.next_try()
    result = run_try(_op("sleep_app.py", "15"), make_context(store, retry_ti))
    new_drivers = _new_driver_ids(cluster, before)
    if durable_supported():
        assert new_drivers == [first_driver] == [result]  # one driver on the master, reconnected
        assert "sleep_app: done" in cluster.driver_output(result)
    else:
        assert len(new_drivers) == 2 and result != first_driver  # below 3.3 every try submits
    assert cluster.driver_state(result) == "FINISHED"
    assert retry_ti.xcom["spark_driver_id"] == result


def test_on_kill_kills_the_running_driver_of_a_task_marked_failed(cluster):
    op = _op("sleep_app.py", "120")
    outcome: dict[str, BaseException] = {}
    # The Execution API says the task instance was marked failed while it ran: on_kill cancels.
    # (A worker shutting down while the task instance is still running keeps the driver.)
    marked_failed = FakeTaskInstance(api_state="failed")

    def run() -> None:
        try:
            run_try(op, make_context(InMemoryTaskStateStore(), marked_failed))
        except BaseException as error:  # noqa: BLE001 - handed to the test thread
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    deadline = time.monotonic() + 60
    while op.current_external_id is None and time.monotonic() < deadline:
        time.sleep(0.2)
    driver_id = op.current_external_id
    cluster.wait_for_driver_state(driver_id, {"RUNNING"}, timeout=60)
    op.on_kill()  # what Airflow's SIGTERM handler calls after the task was marked failed
    worker.join(timeout=60)
    assert cluster.driver_state(driver_id) == "KILLED"
    assert isinstance(outcome.get("error"), ExternalJobFailed)
    assert "ended KILLED" in str(outcome["error"])


def test_deferrable_path_waits_in_the_trigger_against_the_real_rest_server(cluster):
    ti = FakeTaskInstance()
    before = {d["id"] for d in cluster.list_drivers()}
    result = run_try(_op("sleep_app.py", "2", deferrable=True), make_context(InMemoryTaskStateStore(), ti))
    assert _new_driver_ids(cluster, before) == [result]
    assert cluster.driver_state(result) == "FINISHED"
    assert ti.xcom["spark_driver_id"] == result
