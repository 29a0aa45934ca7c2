"""EmrContainerOperator against moto's EMR on EKS (ThreadedMotoServer + our models).

The real ``EmrContainerHook`` submits and polls; our ``EmrContainerJobRunTrigger`` waits in the
deferrable tests (aiobotocore against the same server). moto leaves runs RUNNING until released,
so most tests release them first (``immediate``: COMPLETED at the next read). Job runs are
counted from ListJobRuns: what the service saw. What EMR Serverless shares (failed runs,
submit-only, the trigger, every crash point, the job lifecycle) is in test_emr_runs.py.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.testing import (
    FakeTaskInstance,
    InMemoryTaskStateStore,
    make_context,
    run_try,
)
from tests.providers.amazon.emr_fixtures import container_operator as _op

ID_KEY = "emr_containers_job_id"


@pytest.fixture
def cluster(virtual_cluster):
    virtual_cluster.release()
    return virtual_cluster


# ---------------------------------------------------------------- every Airflow version
def test_fresh_run_starts_one_job_run_with_the_submission_token_and_returns_its_id(cluster):
    ti = FakeTaskInstance()
    result = run_try(_op(cluster, tags={"team": "data"}), make_context(InMemoryTaskStateStore(), ti))
    (run,) = cluster.runs()
    assert result == run["id"] and ti.xcom[ID_KEY] == result
    described = cluster.run(result)
    assert described["state"] == "COMPLETED"
    assert described["clientToken"].startswith(f"{ti.task_id}-g")
    assert described["tags"] == {"team": "data"}


@pytest.mark.durable_only
def test_max_polling_attempts_ends_the_try_and_a_retry_follows_the_same_run(virtual_cluster):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    with pytest.raises(ExternalJobFailed, match=r"still RUNNING after 3 status checks \(max_polling_attempts\)"):
        run_try(_op(virtual_cluster, max_polling_attempts=3), make_context(store, ti))
    (run,) = virtual_cluster.runs()
    assert virtual_cluster.run(run["id"])["state"] == "RUNNING"  # kept: a retry follows it
    virtual_cluster.release()
    assert run_try(_op(virtual_cluster, max_polling_attempts=3), make_context(store, ti.next_try())) == run["id"]
    assert len(virtual_cluster.runs()) == 1


def test_a_users_client_request_token_is_the_runs_token(cluster):
    run_try(_op(cluster, client_request_token="nightly-2026-01-01"), make_context(None, FakeTaskInstance()))
    (run,) = cluster.runs()
    assert cluster.run(run["id"])["clientToken"] == "nightly-2026-01-01"


# ---------------------------------------------------------------- crash safety (Airflow >= 3.3)
@pytest.mark.durable_only
def test_a_users_token_is_only_the_first_generations(cluster):
    """Upstream's #69625 problem: a fixed token hands the FAILED run back to every retry."""
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    cluster.fail()
    with pytest.raises(ExternalJobFailed):
        run_try(_op(cluster, client_request_token="users-token"), make_context(store, ti))
    cluster.release()
    result = run_try(_op(cluster, client_request_token="users-token"), make_context(store, ti.next_try()))
    first, second = cluster.runs()
    assert result == second["id"] != first["id"]
    assert cluster.run(result)["clientToken"] != "users-token"
