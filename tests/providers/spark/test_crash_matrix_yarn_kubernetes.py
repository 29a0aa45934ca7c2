"""Crash matrix on YARN and Kubernetes: how many applications the cluster was asked to create.

The stand-in ResourceManager and Kubernetes API (resumable_jobs.local) count the applications
that reached them; the stand-in spark-submit creates them as the real one would. The submission
token is a tag on both, so even the crash between the cluster accepting the application and its
id being persisted leaves one application: the retry finds it by the tag.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SYNC_POINTS,
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    assert_crash_safe,
    make_context,
    run_crash_scenario,
    run_try,
)
from tests.providers.spark.conftest import submit_calls

ID_KEY = SparkSubmitOperator.external_id_key
CLUSTER_MANAGERS = ["yarn", "k8s"]


@pytest.fixture(params=CLUSTER_MANAGERS)
def cluster(request, standin_spark_submit):
    """The stand-in of one cluster manager, with ``applications()`` counting what reached it."""
    standin = request.getfixturevalue(request.param)
    standin.kind = request.param
    standin.binary = standin_spark_submit
    standin.applications = (lambda: len(standin.submissions)) if request.param == "yarn" else (lambda: len(standin.created))
    return standin


def _factory(cluster, **kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "local:///opt/jobs/etl.py")
    kwargs.setdefault("status_poll_interval", 0)
    return lambda: SparkSubmitOperator(spark_binary=str(cluster.binary.path), **kwargs)


def _first_app(cluster) -> str:
    return cluster.submissions[0]["id"] if cluster.kind == "yarn" else cluster.pod_ids()[0]


@pytest.mark.durable_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_sync_crash_matrix_one_application(cluster, point):
    outcome = run_crash_scenario(_factory(cluster), point)
    assert cluster.applications() == 1
    assert outcome.result == _first_app(cluster) == outcome.store.get(ID_KEY)
    assert outcome.ti.xcom["spark_driver_id"] == outcome.result


@pytest.mark.durable_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_deferrable_crash_matrix_one_application(cluster, point):
    outcome = run_crash_scenario(_factory(cluster, deferrable=True), point)
    assert cluster.applications() == 1
    assert outcome.result == _first_app(cluster) == outcome.store.get(ID_KEY)


def _make_reads_fail(cluster, failing: bool) -> None:
    if cluster.kind == "yarn":
        cluster.standby = failing  # a standby RM while no RM is active: HTTP 307 without a Location
    else:
        cluster.unavailable = failing  # the API server answers 503


@pytest.mark.durable_only
def test_trigger_error_while_the_application_runs_then_the_retry_defers_to_it(cluster):
    cluster.running_polls = 3
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    _make_reads_fail(cluster, True)
    with pytest.raises(ExternalJobFailed, match="5 times in a row.*may still run"):
        run_try(_factory(cluster, deferrable=True)(), make_context(store, ti))
    _make_reads_fail(cluster, False)
    result = run_try(_factory(cluster, deferrable=True)(), make_context(store, ti.next_try()))
    assert cluster.applications() == 1
    assert result == _first_app(cluster)


@pytest.mark.durable_only
def test_conformance_kit_agrees_the_submit_window_is_closed(cluster):
    assert_crash_safe(_factory(cluster), submit_window_closed=True)
    assert_crash_safe(_factory(cluster, deferrable=True), submit_window_closed=True)
    assert_crash_safe(_factory(cluster, wait_for_termination=False), submit_window_closed=True)


@pytest.mark.shim_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_pre33_every_sync_retry_submits_a_new_application(cluster, point):
    outcome = run_crash_scenario(_factory(cluster), point)
    assert cluster.applications() == 2
    assert outcome.result == outcome.submitted_ids[-1] != outcome.submitted_ids[0]


@pytest.mark.shim_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_pre33_every_deferrable_retry_submits_a_new_application(cluster, point):
    outcome = run_crash_scenario(_factory(cluster, deferrable=True), point)
    assert cluster.applications() == 2


# ---------------------------------------------------------------- other decisions
@pytest.mark.durable_only
def test_spark_submit_failing_after_the_cluster_took_the_application_is_found_by_the_retry(cluster, monkeypatch):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    monkeypatch.setenv("RJ_STANDIN_FAIL", "after-submit")
    with pytest.raises(RuntimeError, match=r"(?s)exited with code 1.*stand-in failure after submitting"):
        run_try(_factory(cluster)(), make_context(store, ti))
    monkeypatch.delenv("RJ_STANDIN_FAIL")
    result = run_try(_factory(cluster)(), make_context(store, ti.next_try()))
    assert cluster.applications() == 1 and result == _first_app(cluster)


@pytest.mark.durable_only
def test_failed_application_is_replaced_by_a_new_generation_with_a_new_tag(cluster):
    if cluster.kind == "yarn":
        cluster.outcome = ("FINISHED", "FAILED", "User application exited with status 1")
        expected = r"ended FINISHED/FAILED: User application exited with status 1"
    else:
        cluster.outcome, cluster.exit_code = "Failed", 1
        expected = r"ended Failed \(exit code 1, Error\)"
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(ExternalJobFailed, match=expected):
        run_try(_factory(cluster)(), make_context(store, ti))
    if cluster.kind == "yarn":
        cluster.outcome = ("FINISHED", "SUCCEEDED", "")
    else:
        cluster.outcome, cluster.exit_code = "Succeeded", 0
    result = run_try(_factory(cluster)(), make_context(store, ti.next_try()))
    assert cluster.applications() == 2 and store.get(ID_KEY) == result != _first_app(cluster)
    calls = [c["conf"] for c in submit_calls(cluster.binary)]
    tags = [c.get("spark.yarn.tags") or c.get("spark.kubernetes.driver.label.resumable-jobs/submission") for c in calls]
    assert len(set(tags)) == 2 and "-g1-" in tags[0] and "-g2-" in tags[1]


@pytest.mark.durable_only
def test_submit_only_retry_returns_the_same_application(cluster):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = run_try(_factory(cluster, wait_for_termination=False)(), make_context(store, ti))
    again = run_try(_factory(cluster, wait_for_termination=False)(), make_context(store, ti.next_try()))
    assert first == again and cluster.applications() == 1


@pytest.mark.durable_only
def test_changed_application_args_do_not_reconnect(cluster, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=3)
    run_crash_scenario(_factory(cluster, application_args=["2026-01-01"]), CrashPoint.MID_POLL, store=store, ti=ti)
    run_try(_factory(cluster, application_args=["2026-01-02"])(), make_context(store, ti.next_try().next_try()))
    assert cluster.applications() == 2
    assert any("request changed" in w for w in task_logs.at("warning"))
