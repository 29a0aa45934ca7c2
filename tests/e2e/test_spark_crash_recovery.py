"""End to end: a real Airflow 3.3 scheduler path, a real SIGKILL, a real Spark cluster.

Each DAG's task kills its own process on try 1 at a named point (see dags/). Airflow notices the
dead task, schedules try 2, and try 2 must continue with the driver try 1 left behind. The
assertions are what a user would check: how many drivers the master ran, the task's final
state and try number, the XCom, and what try 2 logged. (A SIGKILL while polling is a scenario of
the production crash suite, in a real deployment: tests/production/test_worker_deaths.py.)
"""

from __future__ import annotations

import pytest

from tests.e2e.logs import has_event

pytestmark = [pytest.mark.e2e, pytest.mark.durable_only, pytest.mark.spark_cluster]


def _run(airflow, spark_cluster, dag_id):
    before = {d["id"] for d in spark_cluster.list_drivers()}
    rc = airflow.run_dag(dag_id, timeout=600)
    new = [d for d in spark_cluster.list_drivers() if d["id"] not in before]
    (ti,) = airflow.task_instances(dag_id)
    return rc, new, ti


def test_crash_after_the_driver_finished_returns_without_resubmitting(airflow, spark_cluster):
    rc, new, ti = _run(airflow, spark_cluster, "e2e_spark_after_succeeded")
    assert rc == 0
    assert [d["state"] for d in new] == ["FINISHED"]
    assert (ti.state, ti.try_number) == ("success", 2)
    assert airflow.xcom("e2e_spark_after_succeeded", "spark_job") == new[0]["id"]
    second = airflow.task_log("e2e_spark_after_succeeded", "spark_job", 2)
    assert has_event(second, "Job already completed successfully", external_id=new[0]["id"])


def test_crash_between_submit_and_checkpoint_is_the_documented_open_window(airflow, spark_cluster):
    """Spark standalone cannot be searched by token: this one window resubmits (README, docs)."""
    rc, new, ti = _run(airflow, spark_cluster, "e2e_spark_after_submit")
    assert rc == 0
    assert (ti.state, ti.try_number) == ("success", 2)
    assert len(new) == 2  # the orphan of try 1 and the driver of try 2
    returned = airflow.xcom("e2e_spark_after_submit", "spark_job")
    assert returned in {d["id"] for d in new}
    assert spark_cluster.driver_state(returned) == "FINISHED"
