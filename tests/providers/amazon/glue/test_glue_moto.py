"""GlueJobOperator against moto's Glue API (in-process ``mock_aws`` + ``moto_models.glue``).

What a user relies on: how many job runs Glue saw, which run a retry followed, what the task
returned and pushed, what it logged. Runs are counted from GetJobRuns, so a second run started
by a retry shows up however it was started.
"""

from __future__ import annotations

import threading
import time

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.amazon import GlueJobOperator
from resumable_jobs.providers.amazon.glue_lookup import TOKEN_ARGUMENT
from resumable_jobs.testing import (
    FakeTaskInstance,
    InMemoryTaskStateStore,
    make_context,
    run_try,
)
from tests.providers.amazon.glue.conftest import JOB, REGION, ROLE_ARN, SCRIPT

ID_KEY = "glue_job_run_id"


def _op(**kwargs):
    kwargs.setdefault("task_id", "glue")
    kwargs.setdefault("job_name", JOB)
    kwargs.setdefault("script_location", SCRIPT)
    kwargs.setdefault("iam_role_arn", ROLE_ARN)
    kwargs.setdefault("aws_conn_id", None)
    kwargs.setdefault("region_name", REGION)
    kwargs.setdefault("job_poll_interval", 0)
    kwargs.setdefault("waiter_delay", 0)
    return GlueJobOperator(**kwargs)


def _release_when_started(moto_glue, state: str, count: int = 1) -> threading.Thread:
    """Release the job's ``count``-th run in ``state`` as soon as it exists (a held run ends while polled)."""

    def release() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ids = moto_glue.run_ids()
            if len(ids) >= count:
                moto_glue.release(ids[count - 1], state)
                return
            time.sleep(0.01)

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    return thread


# ---------------------------------------------------------------- fresh run (every version)
def test_fresh_run_creates_the_job_starts_one_tagged_run_and_returns_its_id(moto_glue):
    ti = FakeTaskInstance()
    op = _op(script_args={"--day": "2026-01-01"}, concurrent_run_limit=2, create_job_kwargs={"GlueVersion": "4.0"})
    result = run_try(op, make_context(InMemoryTaskStateStore(), ti))
    (run,) = moto_glue.runs()
    assert result == run["Id"] and run["JobRunState"] == "SUCCEEDED"
    assert run["Arguments"]["--day"] == "2026-01-01"
    assert run["Arguments"][TOKEN_ARGUMENT].startswith(f"{ti.task_id}-")
    job = moto_glue.client.get_job(JobName=JOB)["Job"]  # created through upstream's hook, as upstream does
    assert job["Role"] == ROLE_ARN and job["Command"]["ScriptLocation"] == SCRIPT
    assert job["ExecutionProperty"] == {"MaxConcurrentRuns": 2} and job["GlueVersion"] == "4.0"
    assert ti.xcom[ID_KEY] == run["Id"]
    assert ti.xcom["glue_job_run_details_url"] == (
        f"https://console.aws.amazon.com/gluestudio/home?region={REGION}#/job/{JOB}/run/{run['Id']}"
    )


def test_run_job_kwargs_reach_start_job_run_and_update_config_updates_the_job(moto_glue):
    moto_glue.create_job()
    run_try(
        _op(run_job_kwargs={"Timeout": 30}, update_config=True, job_desc="new description"),
        make_context(InMemoryTaskStateStore(), FakeTaskInstance()),
    )
    (run,) = moto_glue.runs()
    assert run["Timeout"] == 30
    assert moto_glue.client.get_job(JobName=JOB)["Job"]["Description"] == "new description"


def test_a_local_script_is_uploaded_to_s3_bucket_as_upstream_does(moto_glue, tmp_path):
    import boto3

    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket="rj-artifacts", CreateBucketConfiguration={"LocationConstraint": REGION})
    script = tmp_path / "etl.py"
    script.write_text("print('v1')\n")
    run_try(_op(script_location=str(script), s3_bucket="rj-artifacts"), make_context(InMemoryTaskStateStore()))

    def uploaded() -> bytes:
        return s3.get_object(Bucket="rj-artifacts", Key="artifacts/glue-scripts/etl.py")["Body"].read()

    assert uploaded() == b"print('v1')\n"
    job = moto_glue.client.get_job(JobName=JOB)["Job"]
    assert job["Command"]["ScriptLocation"] == "s3://rj-artifacts/artifacts/glue-scripts/etl.py"
    assert job["LogUri"] == f"s3://rj-artifacts/logs/glue-logs/{JOB}"
    # a later run keeps the object unless replace_script_file=True (upstream raises "already exists")
    script.write_text("print('v2')\n")
    run_try(_op(script_location=str(script), s3_bucket="rj-artifacts"), make_context(InMemoryTaskStateStore()))
    assert uploaded() == b"print('v1')\n"
    run_try(
        _op(script_location=str(script), s3_bucket="rj-artifacts", replace_script_file=True),
        make_context(InMemoryTaskStateStore()),
    )
    assert uploaded() == b"print('v2')\n"
    assert len(moto_glue.runs()) == 3


def test_submit_only_returns_the_run_id_without_waiting(moto_glue):
    moto_glue.hold()
    ti = FakeTaskInstance()
    result = run_try(_op(wait_for_completion=False), make_context(InMemoryTaskStateStore(), ti))
    assert moto_glue.run_ids() == [result] and moto_glue.state(result) == "RUNNING"
    assert ti.xcom[ID_KEY] == result


def test_a_failed_run_fails_the_task_with_its_state(moto_glue):
    moto_glue.hold()
    releaser = _release_when_started(moto_glue, "FAILED")
    with pytest.raises(ExternalJobFailed, match=r"ended FAILED.*logs: CloudWatch Logs group 'test/log'"):
        run_try(_op(), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    releaser.join()
    assert len(moto_glue.runs()) == 1


def test_verbose_streams_the_runs_logs_through_upstreams_hook(moto_glue, task_logs):
    import boto3

    logs = boto3.client("logs", region_name=REGION)
    logs.create_log_group(logGroupName="test/log/output")  # moto's LogGroupName for every run
    moto_glue.hold()

    def write_logs_then_release() -> None:
        deadline = time.monotonic() + 30
        while not moto_glue.run_ids() and time.monotonic() < deadline:
            time.sleep(0.01)
        (run_id,) = moto_glue.run_ids()
        logs.create_log_stream(logGroupName="test/log/output", logStreamName=run_id)
        event = {"timestamp": int(time.time() * 1000) + 1000, "message": "hello from the glue driver"}
        logs.put_log_events(logGroupName="test/log/output", logStreamName=run_id, logEvents=[event])
        moto_glue.release(run_id)

    writer = threading.Thread(target=write_logs_then_release, daemon=True)
    writer.start()
    run_try(_op(verbose=True), make_context(InMemoryTaskStateStore()))
    writer.join()
    streamed = [m for m in task_logs.at("info") if "hello from the glue driver" in m]
    assert streamed and streamed[0].startswith("Glue Job Run test/log/output Logs:")


def test_deferrable_fresh_run_returns_the_id(moto_glue, glue_trigger_in_process):
    ti = FakeTaskInstance()
    result = run_try(_op(deferrable=True), make_context(InMemoryTaskStateStore(), ti))
    assert moto_glue.run_ids() == [result] and ti.xcom[ID_KEY] == result


def test_deferrable_failed_run_raises_with_its_state(moto_glue, glue_trigger_in_process):
    moto_glue.pace(1)
    op = _op(deferrable=True)
    original = op.build_trigger

    def release_then_trigger(external_id, context):
        moto_glue.release(external_id, "FAILED")
        return original(external_id, context)

    object.__setattr__(op, "build_trigger", release_then_trigger)
    with pytest.raises(ExternalJobFailed, match=r"ended FAILED"):
        run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


def test_without_durability_every_try_starts_a_run(moto_glue):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = run_try(_op(durable=False), make_context(store, ti))
    second = run_try(_op(durable=False), make_context(store, ti.next_try()))
    assert moto_glue.run_ids() == [first, second] and first != second
    assert store.get(ID_KEY) is None
