"""BatchJobStatusTrigger against a scripted DescribeJobs endpoint: its events, max attempts, errors.

The operator's deferrable path with this trigger runs in ``test_batch_moto.py`` and
``test_batch_stubbed.py``; a resume from upstream's ``BatchJobTrigger`` event (the upgrade case:
the same event shape) in ``test_batch_stubbed.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from resumable_jobs.local.http_standin import serve_http
from resumable_jobs.testing import run_trigger_until_event
from tests.providers.amazon.fake_batch_api import FAILED_REASON, FakeBatchApi

JOB = "8e7a6c1e-0000-4000-8000-000000000001"
NO_BOTOCORE_RETRIES = {"retries": {"total_max_attempts": 1}}


@pytest.fixture
def batch_api(monkeypatch):
    api = FakeBatchApi()
    with serve_http(api.dispatch) as url:
        connection = {"conn_type": "aws", "login": "testing", "password": "testing",
                      "extra": {"endpoint_url": url, "region_name": "eu-west-1"}}  # fmt: skip
        monkeypatch.setenv("AIRFLOW_CONN_RJ_BATCH", json.dumps(connection))
        yield api


def _trigger(job_id: str = JOB, **kwargs: Any) -> Any:
    from resumable_jobs.providers.amazon.batch_trigger import BatchJobStatusTrigger

    kwargs.setdefault("waiter_delay", 0)
    return BatchJobStatusTrigger(job_id=job_id, aws_conn_id="rj_batch", **kwargs)


def test_a_running_job_is_read_each_poll_until_it_succeeds(batch_api):
    batch_api.scripts[JOB] = ["RUNNABLE", "RUNNING", "SUCCEEDED"]
    event = run_trigger_until_event(_trigger())
    assert event == {"status": "success", "job_id": JOB, "message": "job succeeded"}
    assert batch_api.calls == {JOB: 3}


def test_a_failed_job_is_an_error_event_with_its_reason_and_exit_code(batch_api):
    batch_api.scripts[JOB] = ["RUNNING", "FAILED"]
    event = run_trigger_until_event(_trigger())
    assert event == {
        "status": "error",
        "job_id": JOB,
        "message": f"AWS Batch job {JOB!r} (etl) ended FAILED; statusReason: {FAILED_REASON}; exit code 1",
    }


def test_after_waiter_max_attempts_reads_of_a_running_job_the_wait_ends_in_an_error_event(batch_api):
    batch_api.scripts[JOB] = ["RUNNING"]
    event = run_trigger_until_event(_trigger(waiter_max_attempts=3))
    assert event["status"] == "error" and event["job_id"] == JOB
    assert (
        event["message"]
        == f"AWS Batch job {JOB!r} was still RUNNING after 3 status reads, 0 s apart (the operator's max attempts)"
    )
    assert batch_api.calls == {JOB: 3}


def test_a_job_batch_does_not_know_is_an_error_event_naming_it(batch_api):
    event = run_trigger_until_event(_trigger("no-such-job"))
    assert event["status"] == "error"
    assert event["message"].startswith("could not read AWS Batch job 'no-such-job': ")
    assert "DescribeJobs does not return it" in event["message"]


def test_throttling_and_5xx_answers_are_read_again_at_the_next_poll(batch_api):
    batch_api.scripts[JOB] = [(429, "TooManyRequestsException"), (503, "ServerException"), "RUNNING", "SUCCEEDED"]
    event = run_trigger_until_event(_trigger(botocore_config=NO_BOTOCORE_RETRIES))
    assert event["status"] == "success"
    assert batch_api.calls == {JOB: 4}


def test_five_failed_reads_in_a_row_end_the_wait_in_an_error_event_naming_the_last_cause(batch_api):
    batch_api.scripts[JOB] = [(503, "ServerException")]
    event = run_trigger_until_event(_trigger(botocore_config=NO_BOTOCORE_RETRIES))
    assert event["status"] == "error"
    assert event["message"].startswith(f"could not read AWS Batch job {JOB!r} 5 times in a row; last error: ")
    assert "ServerException" in event["message"]
    assert batch_api.calls == {JOB: 5}


def test_a_refused_call_is_an_error_event_at_once(batch_api):
    batch_api.scripts[JOB] = [(403, "AccessDeniedException")]
    event = run_trigger_until_event(_trigger(botocore_config=NO_BOTOCORE_RETRIES))
    assert event["status"] == "error" and "AccessDeniedException" in event["message"]
    assert batch_api.calls == {JOB: 1}


@pytest.mark.parametrize("end", ["SUCCEEDED", "FAILED"])
def test_upstreams_trigger_fires_the_same_status_and_id_for_the_same_job(batch_api, end):
    from airflow.providers.amazon.aws.triggers.batch import BatchJobTrigger

    batch_api.scripts[JOB] = ["RUNNING", end]
    ours = run_trigger_until_event(_trigger())
    batch_api.calls.clear()
    theirs = run_trigger_until_event(
        BatchJobTrigger(job_id=JOB, aws_conn_id="rj_batch", waiter_delay=0, waiter_max_attempts=5)
    )
    assert (ours["status"], ours["job_id"]) == (theirs["status"], theirs["job_id"])


def test_it_serialises_to_itself_with_upstreams_kwargs(batch_api):
    import importlib

    trigger = _trigger(waiter_delay=30, waiter_max_attempts=4200, region_name="eu-west-1")
    classpath, kwargs = trigger.serialize()
    module, _, name = classpath.rpartition(".")
    rebuilt = getattr(importlib.import_module(module), name)(**kwargs)
    assert classpath == "resumable_jobs.providers.amazon.batch_trigger.BatchJobStatusTrigger"
    assert (rebuilt.job_id, rebuilt.waiter_delay, rebuilt.waiter_max_attempts) == (JOB, 30, 4200)
    assert (rebuilt.aws_conn_id, rebuilt.region_name) == ("rj_batch", "eu-west-1")


@pytest.mark.parametrize("end", ["SUCCEEDED", "FAILED"])
def test_a_task_deferred_on_upstreams_trigger_resumes_from_its_event_after_the_upgrade(batch_api, end):
    """The previous release deferred to upstream's ``BatchJobTrigger``; its event resumes this release's operator."""
    from airflow.providers.amazon.aws.triggers.batch import BatchJobTrigger

    from resumable_jobs import ExternalJobFailed
    from resumable_jobs.providers.amazon import BatchOperator
    from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context

    batch_api.scripts[JOB] = ["RUNNING", end]
    event = run_trigger_until_event(BatchJobTrigger(job_id=JOB, aws_conn_id="rj_batch", waiter_delay=0))
    operator = BatchOperator(
        task_id="etl", job_name="etl", job_queue="q", job_definition="etl:1", aws_conn_id="rj_batch", deferrable=True
    )
    context = make_context(InMemoryTaskStateStore(), FakeTaskInstance())
    if end == "SUCCEEDED":
        assert operator.execute_complete(context, event) == JOB
    else:
        with pytest.raises(ExternalJobFailed, match=f"ended FAILED; statusReason: {FAILED_REASON}; exit code 1"):
            operator.execute_complete(context, event)
