"""OpenLineage context and Spark properties in the Databricks run request, as upstream injects them.

What a lineage user relies on: with ``openlineage_inject_parent_job_info`` (or ``[openlineage]
spark_inject_parent_job_info``) the run's notebook parameters carry ``OPENLINEAGE_CONTEXT`` and a
new cluster's ``spark_conf`` the ``spark.openlineage.parent*`` properties naming this task run;
with ``openlineage_inject_transport_info`` the cluster gets the HTTP transport. And a retry still
follows the run an earlier try started, although every try has its own parent run id.
"""

from __future__ import annotations

import json

import pytest

from resumable_jobs.testing import CrashPoint, InMemoryTaskStateStore, make_context, run_crash_scenario, run_try
from tests.providers.databricks.builders import run_now, submit_run
from tests.providers.lineage import LINEAGE_URL, LineageTaskInstance, http_lineage_transport, is_uuid

pytestmark = pytest.mark.usefixtures("openlineage_enabled")

NEW_CLUSTER_TASKS = [
    {
        "task_key": "etl",
        "notebook_task": {"notebook_path": "/Shared/etl"},
        "new_cluster": {"spark_version": "15.4.x-scala2.12", "node_type_id": "m5.large", "num_workers": 1},
    }
]


def _ti(**kwargs):
    return LineageTaskInstance(dag_id="etl", **kwargs)


def _started(workspace, op, endpoint):
    run_try(op, make_context(InMemoryTaskStateStore(), _ti(task_id=op.task_id)))
    (body,) = workspace.started(endpoint)
    return body


def test_submit_run_carries_the_parent_run_in_parameters_and_spark_conf(workspace):
    body = _started(workspace, submit_run(tasks=NEW_CLUSTER_TASKS, openlineage_inject_parent_job_info=True), "runs/submit")
    (task,) = body["tasks"]
    context = json.loads(task["notebook_task"]["base_parameters"]["OPENLINEAGE_CONTEXT"])
    assert context["parent"]["job"]["name"] == "etl.run_job"
    assert context["parent"]["root"]["job"]["name"] == "etl"
    spark_conf = task["new_cluster"]["spark_conf"]
    assert spark_conf["spark.openlineage.parentJobName"] == "etl.run_job"
    assert spark_conf["spark.openlineage.parentRunId"] == context["parent"]["run"]["runId"]
    assert is_uuid(spark_conf["spark.openlineage.parentRunId"])


def test_submit_run_carries_the_http_transport_to_the_new_cluster(workspace, monkeypatch):
    http_lineage_transport(monkeypatch)
    op = submit_run(tasks=NEW_CLUSTER_TASKS, openlineage_inject_transport_info=True)
    spark_conf = _started(workspace, op, "runs/submit")["tasks"][0]["new_cluster"]["spark_conf"]
    assert spark_conf["spark.openlineage.transport.url"] == LINEAGE_URL
    assert not any(key.startswith("spark.openlineage.parent") for key in spark_conf)


def test_run_now_carries_the_parent_run_in_job_parameters(workspace):
    body = _started(workspace, run_now(openlineage_inject_parent_job_info=True, job_parameters={"day": "1"}), "run-now")
    assert body["job_parameters"]["day"] == "1"
    context = json.loads(body["job_parameters"]["OPENLINEAGE_CONTEXT"])
    assert context["parent"]["job"]["name"] == "etl.run_nightly"


def test_openlineage_settings_are_the_defaults(workspace, monkeypatch):
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__SPARK_INJECT_PARENT_JOB_INFO", "True")
    op = submit_run(tasks=NEW_CLUSTER_TASKS)
    assert op.openlineage_inject_parent_job_info is True
    assert "spark.openlineage.parentRunId" in _started(workspace, op, "runs/submit")["tasks"][0]["new_cluster"]["spark_conf"]


def test_nothing_is_injected_unless_asked(workspace):
    (task,) = _started(workspace, submit_run(tasks=NEW_CLUSTER_TASKS), "runs/submit")["tasks"]
    assert "OPENLINEAGE_CONTEXT" not in (task["notebook_task"].get("base_parameters") or {})
    assert "spark_conf" not in task["new_cluster"]


@pytest.mark.durable_only
def test_retry_follows_the_run_although_each_try_has_its_own_parent_run_id(workspace):
    outcome = run_crash_scenario(
        lambda: submit_run(tasks=NEW_CLUSTER_TASKS, openlineage_inject_parent_job_info=True),
        CrashPoint.MID_POLL,
        ti=_ti(task_id="run_job", max_tries=2),
    )
    (started,) = workspace.started("runs/submit")  # the parent run id is not part of the fingerprint
    assert outcome.result == outcome.final_job
    assert is_uuid(started["tasks"][0]["new_cluster"]["spark_conf"]["spark.openlineage.parentRunId"])
