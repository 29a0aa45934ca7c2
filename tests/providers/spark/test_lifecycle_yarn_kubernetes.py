"""The job-lifecycle table on YARN and Kubernetes: which applications the cluster was asked to stop.

The kit's cases end a try the ways production ends it (SIGTERM with the Execution API answering
``running``/``failed``/nothing, ``execution_timeout``, a poll error on the first or last try, a
worker dying on its last try). On YARN ``cancel_job`` is ``PUT .../state {"state": "KILLED"}``
and the stand-in RM records it; on Kubernetes it deletes the driver pod, which the stand-in API
records.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.testing import LifecycleCase, assert_job_lifecycle, run_lifecycle_case


def _factory(binary, **kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "local:///opt/jobs/etl.py")
    kwargs.setdefault("status_poll_interval", 0)
    return lambda: SparkSubmitOperator(spark_binary=str(binary.path), **kwargs)


@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_yarn_applications_are_killed_exactly_where_the_lifecycle_table_says(yarn, standin_spark_submit, durable):
    yarn.running_polls = 4
    outcomes = assert_job_lifecycle(_factory(standin_spark_submit, durable=durable))
    killed = [o.job_id for o in outcomes if o.cancelled]
    assert yarn.kills == killed
    assert {yarn.apps[a].current[0] for a in killed} == {"KILLED"}
    kept = [o.job_id for o in outcomes if not o.cancelled]
    assert all(yarn.apps[a].current[:2] == ("FINISHED", "SUCCEEDED") for a in kept)  # the retry followed it


@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_driver_pods_are_deleted_exactly_where_the_lifecycle_table_says(k8s, standin_spark_submit, durable):
    k8s.running_polls = 4
    outcomes = assert_job_lifecycle(_factory(standin_spark_submit, durable=durable))
    killed = [o.job_id for o in outcomes if o.cancelled]
    assert k8s.deleted == killed
    assert not set(killed) & set(k8s.pod_ids())
    kept = [o.job_id for o in outcomes if not o.cancelled]
    assert set(kept) <= set(k8s.pod_ids())  # finished driver pods stay: they prove the success


@pytest.mark.durable_only
def test_a_kept_yarn_application_is_named_in_one_warning(yarn, standin_spark_submit, task_logs):
    yarn.running_polls = 4
    outcome = run_lifecycle_case(_factory(standin_spark_submit), LifecycleCase.WORKER_SHUTDOWN)
    (warning,) = [w for w in task_logs.at("warning") if outcome.job_id in w]
    assert "The worker is shutting down: keeping job" in warning
    assert yarn.kills == []


@pytest.mark.durable_only
def test_cancel_on_worker_shutdown_deletes_the_driver_pod_on_sigterm(k8s, standin_spark_submit):
    k8s.running_polls = 4
    outcome = run_lifecycle_case(
        _factory(standin_spark_submit, cancel_on_worker_shutdown=True), LifecycleCase.WORKER_SHUTDOWN
    )
    assert k8s.deleted == [outcome.job_id]
