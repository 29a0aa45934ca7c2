"""OpenLineage parent-job and transport properties on a driver submitted through the REST server.

What a lineage user relies on: the driver's Spark configuration (the ``sparkProperties`` the
master received) names this task as its parent run and carries the HTTP transport, when asked
by parameter or by ``[openlineage] spark_inject_*``; a property set in ``conf`` is left alone;
and asking for it never costs crash safety - a retry still reconnects to the driver an earlier
try submitted, although each try has its own parent run id.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.providers.spark.lineage import with_openlineage_properties
from resumable_jobs.testing import CrashPoint, InMemoryTaskStateStore, make_context, run_crash_scenario, run_try
from tests.providers.lineage import LINEAGE_URL, LineageTaskInstance, http_lineage_transport, is_uuid

pytest.importorskip("airflow.providers.openlineage", reason="the OpenLineage provider is not installed")


def _op(**kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "/apps/job.py")
    kwargs.setdefault("status_poll_interval", 0)
    return SparkSubmitOperator(**kwargs)


def _submitted_properties(master, op, ti=None):
    run_try(op, make_context(InMemoryTaskStateStore(), ti or LineageTaskInstance(task_id="spark_job", dag_id="etl")))
    return master.creates[-1]["sparkProperties"]


def test_parent_job_information_names_this_task_run(master):
    properties = _submitted_properties(master, _op(openlineage_inject_parent_job_info=True))
    assert properties["spark.openlineage.parentJobName"] == "etl.spark_job"
    assert properties["spark.openlineage.parentJobNamespace"] == "default"
    assert properties["spark.openlineage.rootParentJobName"] == "etl"
    assert is_uuid(properties["spark.openlineage.parentRunId"])
    assert is_uuid(properties["spark.openlineage.rootParentRunId"])
    assert not any(key.startswith("spark.openlineage.transport") for key in properties)


def test_transport_information_points_the_driver_at_the_same_backend(master, monkeypatch):
    http_lineage_transport(monkeypatch)
    properties = _submitted_properties(master, _op(openlineage_inject_transport_info=True))
    assert properties["spark.openlineage.transport.type"] == "http"
    assert properties["spark.openlineage.transport.url"] == LINEAGE_URL
    assert properties["spark.openlineage.transport.endpoint"] == "api/v1/lineage"
    assert not any(key.startswith("spark.openlineage.parent") for key in properties)


def test_openlineage_settings_are_the_defaults(master, monkeypatch):
    http_lineage_transport(monkeypatch)
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__SPARK_INJECT_PARENT_JOB_INFO", "True")
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__SPARK_INJECT_TRANSPORT_INFO", "True")
    op = _op()
    assert (op.openlineage_inject_parent_job_info, op.openlineage_inject_transport_info) == (True, True)
    properties = _submitted_properties(master, op)
    assert "spark.openlineage.parentRunId" in properties and "spark.openlineage.transport.url" in properties


def test_nothing_is_injected_unless_asked(master):
    properties = _submitted_properties(master, _op())
    assert not any(key.startswith("spark.openlineage.") for key in properties)


def test_properties_the_user_set_in_conf_win(master):
    conf = {"spark.openlineage.parentJobName": "mine.by_hand"}
    properties = _submitted_properties(master, _op(conf=conf, openlineage_inject_parent_job_info=True))
    assert properties["spark.openlineage.parentJobName"] == "mine.by_hand"
    assert "spark.openlineage.parentRunId" not in properties  # upstream's rule: any parent key means "set by hand"


@pytest.mark.durable_only
def test_retry_reconnects_although_each_try_has_its_own_parent_run_id(master):
    ti = LineageTaskInstance(task_id="spark_job", dag_id="etl", max_tries=2)
    outcome = run_crash_scenario(lambda: _op(openlineage_inject_parent_job_info=True), CrashPoint.MID_POLL, ti=ti)
    assert len(master.creates) == 1  # the injected properties are not part of the request fingerprint
    assert outcome.result == "driver-20260101000000-0000"
    first = master.creates[0]["sparkProperties"]["spark.openlineage.parentRunId"]
    would_be = with_openlineage_properties({}, {"ti": ti.next_try()}, parent_job_info=True, transport_info=False, log=None)
    assert is_uuid(first) and first != would_be["spark.openlineage.parentRunId"]


def test_a_failing_injection_is_logged_and_the_driver_still_submitted(master, monkeypatch, task_logs):
    import airflow.providers.common.compat.openlineage.utils.spark as compat

    def unavailable(properties, context):
        raise ImportError("No module named 'airflow.providers.openlineage.plugins.macros'")

    monkeypatch.setattr(compat, "inject_parent_job_information_into_spark_properties", unavailable)
    properties = _submitted_properties(master, _op(openlineage_inject_parent_job_info=True))
    assert not any(key.startswith("spark.openlineage.") for key in properties)
    # task_logs.at: structured events on 3.3, stdlib records on Airflow 3.0's operator logger
    (warning,) = [m for m in task_logs.at("warning") if "OpenLineage properties were not added" in m]
    assert "plugins.macros" in warning


# ---------------------------------------------------------------- YARN and Kubernetes: spark-submit --conf
@pytest.fixture(params=["yarn", "k8s"])
def submit_cluster(request, standin_spark_submit):
    """A YARN or Kubernetes stand-in; ``applications()`` counts what reached it."""
    standin = request.getfixturevalue(request.param)
    standin.kind = request.param
    standin.binary = standin_spark_submit
    standin.applications = (lambda: len(standin.submissions)) if request.param == "yarn" else (lambda: len(standin.created))
    return standin


def _submit_op(cluster, **kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "local:///opt/jobs/etl.py")
    kwargs.setdefault("status_poll_interval", 0)
    return SparkSubmitOperator(spark_binary=str(cluster.binary.path), **kwargs)


def test_spark_submit_gets_the_parent_run_and_transport_as_conf(submit_cluster, monkeypatch):
    from tests.providers.spark.conftest import submit_calls

    http_lineage_transport(monkeypatch)
    op = _submit_op(submit_cluster, openlineage_inject_parent_job_info=True, openlineage_inject_transport_info=True)
    run_try(op, make_context(InMemoryTaskStateStore(), LineageTaskInstance(task_id="spark_job", dag_id="etl")))
    (call,) = submit_calls(submit_cluster.binary)
    assert call["conf"]["spark.openlineage.parentJobName"] == "etl.spark_job"
    assert is_uuid(call["conf"]["spark.openlineage.parentRunId"])
    assert call["conf"]["spark.openlineage.transport.url"] == LINEAGE_URL
    # the cluster manager's own tag, which a retry finds the application by, is still there
    tag = "spark.yarn.tags" if submit_cluster.kind == "yarn" else "spark.kubernetes.driver.label.resumable-jobs/submission"
    assert call["conf"][tag]


@pytest.mark.durable_only
def test_spark_submit_retry_reconnects_although_each_try_has_its_own_parent_run_id(submit_cluster):
    from tests.providers.spark.conftest import submit_calls

    ti = LineageTaskInstance(task_id="spark_job", dag_id="etl", max_tries=2)
    outcome = run_crash_scenario(
        lambda: _submit_op(submit_cluster, openlineage_inject_parent_job_info=True), CrashPoint.MID_POLL, ti=ti
    )
    assert submit_cluster.applications() == 1
    assert len(submit_calls(submit_cluster.binary)) == 1
    assert outcome.result == outcome.store.get(SparkSubmitOperator.external_id_key)
