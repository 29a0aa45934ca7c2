"""BatchOperator against moto's Batch API (transport: in-process ``mock_aws``, ``use_docker: False``).

moto marks a job SUCCEEDED as soon as it is submitted (FAILED with ``MOTO_SIMPLE_BATCH_FAIL_AFTER=0``),
so these tests cover submission, the token lookup, succeeded and failed jobs, forgotten ids, links
and on_kill. Jobs that must stay active are in ``test_batch_stubbed.py``. The number of jobs is read
back from moto's queue (ListJobs with a name filter returns every status).
"""

from __future__ import annotations

import datetime

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.amazon import BatchOperator
from resumable_jobs.providers.amazon.lookup import TOKEN_TAG_KEY
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
from tests.providers.amazon.conftest import DEFINITION, JOB_NAME, QUEUE, REGION

ID_KEY = "batch_job_id"
CHECKPOINT_KEY = f"{ID_KEY}_resumable"


def _op(**kwargs):
    kwargs.setdefault("task_id", "batch")
    kwargs.setdefault("job_name", JOB_NAME)
    kwargs.setdefault("job_queue", QUEUE)
    kwargs.setdefault("job_definition", DEFINITION)
    kwargs.setdefault("aws_conn_id", None)
    kwargs.setdefault("region_name", REGION)
    kwargs.setdefault("poll_interval", 0)
    return BatchOperator(**kwargs)


# ---------------------------------------------------------------- fresh submission (every version)
def test_fresh_submit_runs_one_tagged_job_and_returns_its_id(moto_batch):
    ti = FakeTaskInstance()
    result = run_try(_op(tags={"team": "data"}), make_context(InMemoryTaskStateStore(), ti))
    (job,) = moto_batch.jobs()
    assert result == job["jobId"]
    assert job["status"] == "SUCCEEDED"
    assert job["tags"]["team"] == "data"
    assert job["tags"][TOKEN_TAG_KEY].startswith(f"{ti.task_id}-g")
    assert ti.xcom[ID_KEY] == job["jobId"]


def test_links_are_pushed_to_xcom(moto_batch):
    ti = FakeTaskInstance()
    job_id = run_try(_op(), make_context(InMemoryTaskStateStore(), ti))
    job = moto_batch.describe(job_id)
    console = f"https://console.aws.amazon.com/batch/home?region={REGION}"
    assert ti.xcom["batch_job_details_url"] == f"{console}#jobs/detail/{job_id}"
    assert ti.xcom["batch_job_definition_url"] == f"{console}#job-definition/detail/{job['jobDefinition']}"
    assert ti.xcom["batch_job_queue_url"] == f"{console}#queues/detail/{job['jobQueue']}"
    stream = job["container"]["logStreamName"]
    assert ti.xcom["batch_cloudwatch_logs_url"] == (
        f"https://console.aws.amazon.com/cloudwatch/home?region={REGION}"
        f"#logsV2:log-groups/log-group/%2Faws%2Fbatch%2Fjob/log-events/{stream.replace('/', '%2F')}"
    )


def test_submit_only_returns_the_id_and_pushes_links_without_waiting(moto_batch):
    ti = FakeTaskInstance()
    result = run_try(_op(wait_for_completion=False), make_context(InMemoryTaskStateStore(), ti))
    assert result == moto_batch.job_ids()[0]
    assert ti.xcom["batch_job_details_url"].endswith(f"#jobs/detail/{result}")


def test_request_fields_reach_submit_job(moto_batch):
    run_try(
        _op(parameters={"day": "2026-01-01"}, container_overrides={"command": ["echo", "x"]}, submit_job_timeout=600),
        make_context(InMemoryTaskStateStore(), FakeTaskInstance()),
    )
    (job,) = moto_batch.jobs()
    assert job["parameters"]["day"] == "2026-01-01"
    assert job["timeout"] == {"attemptDurationSeconds": 600}


def test_failed_job_raises_with_its_status_and_log_location(moto_batch, monkeypatch):
    monkeypatch.setenv("MOTO_SIMPLE_BATCH_FAIL_AFTER", "0")
    with pytest.raises(ExternalJobFailed) as raised:
        run_try(_op(), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    (job_id,) = moto_batch.job_ids()
    message = str(raised.value)
    assert f"AWS Batch job {job_id!r} ({JOB_NAME}) ended FAILED" in message
    assert "CloudWatch Logs group '/aws/batch/job'" in message and job_id in message


def test_deferrable_fresh_run_returns_the_id(moto_batch, batch_trigger_in_process):
    ti = FakeTaskInstance()
    result = run_try(_op(deferrable=True), make_context(InMemoryTaskStateStore(), ti))
    assert moto_batch.job_ids() == [result]
    assert ti.xcom[ID_KEY] == result and "batch_cloudwatch_logs_url" in ti.xcom


def test_deferrable_failed_job_raises_with_its_status(moto_batch, batch_trigger_in_process, monkeypatch):
    monkeypatch.setenv("MOTO_SIMPLE_BATCH_FAIL_AFTER", "0")
    with pytest.raises(ExternalJobFailed, match=r"ended FAILED.*CloudWatch Logs group '/aws/batch/job'"):
        run_try(_op(deferrable=True), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


# ---------------------------------------------------------------- durable (Airflow >= 3.3)
@pytest.mark.durable_only
def test_crash_after_submit_before_persist_finds_the_orphan_by_tag(moto_batch, task_logs):
    outcome = run_crash_scenario(_op, CrashPoint.AFTER_SUBMIT)
    (job_id,) = moto_batch.job_ids()  # one job in the queue
    assert outcome.submitted_ids == [job_id]  # the retry did not call SubmitJob
    assert outcome.result == job_id
    assert outcome.store.get(ID_KEY) == job_id
    assert task_logs.event("found by its submission token", "info")["external_id"] == job_id
    done = task_logs.event("Job already completed successfully", "info")
    assert (done["external_id"], done["found_by_submission_token"]) == (job_id, True)


@pytest.mark.durable_only
def test_orphan_lookup_ignores_jobs_with_the_same_name_but_another_token(moto_batch):
    other = moto_batch.client.submit_job(
        jobName=JOB_NAME, jobQueue=QUEUE, jobDefinition=DEFINITION, tags={TOKEN_TAG_KEY: "another-task-g1-x"}
    )["jobId"]
    outcome = run_crash_scenario(_op, CrashPoint.AFTER_SUBMIT)
    assert len(moto_batch.job_ids()) == 2  # the other task's job and ours: no third job
    assert outcome.result != other and outcome.result == outcome.submitted_ids[0]


@pytest.mark.durable_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_sync_crash_matrix_submits_one_job(moto_batch, point):
    outcome = run_crash_scenario(_op, point)
    assert moto_batch.job_ids() == [outcome.result]


@pytest.mark.durable_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_deferrable_crash_matrix_submits_one_job(moto_batch, batch_trigger_in_process, point):
    outcome = run_crash_scenario(lambda: _op(deferrable=True), point)
    assert moto_batch.job_ids() == [outcome.result]


@pytest.mark.durable_only
def test_conformance_kit_passes(moto_batch, batch_trigger_in_process):
    assert_crash_safe(_op)
    assert_crash_safe(lambda: _op(deferrable=True))
    assert_crash_safe(lambda: _op(wait_for_termination=False))


@pytest.mark.durable_only
@pytest.mark.parametrize("deferrable", [False, True])
def test_succeeded_job_is_not_resubmitted_and_links_are_pushed_again(moto_batch, batch_trigger_in_process, deferrable, task_logs):
    outcome = run_crash_scenario(lambda: _op(deferrable=deferrable), CrashPoint.AFTER_JOB_SUCCEEDED)
    (job_id,) = moto_batch.job_ids()
    assert outcome.result == job_id and outcome.submitted_ids == [job_id]
    assert outcome.ti.xcom[ID_KEY] == job_id  # the retry's own XCom (a retry starts empty)
    assert outcome.ti.xcom["batch_job_details_url"].endswith(f"#jobs/detail/{job_id}")
    assert task_logs.event("Job already completed successfully", "info")["external_id"] == job_id


@pytest.mark.durable_only
def test_failed_job_is_replaced_by_a_new_generation(moto_batch, monkeypatch):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    monkeypatch.setenv("MOTO_SIMPLE_BATCH_FAIL_AFTER", "0")
    with pytest.raises(ExternalJobFailed):
        run_try(_op(), make_context(store, ti))
    monkeypatch.delenv("MOTO_SIMPLE_BATCH_FAIL_AFTER")
    result = run_try(_op(), make_context(store, ti.next_try()))
    failed, replacement = moto_batch.jobs()
    assert failed["status"] == "FAILED" and replacement["status"] == "SUCCEEDED"
    assert result == replacement["jobId"]
    assert failed["tags"][TOKEN_TAG_KEY] != replacement["tags"][TOKEN_TAG_KEY]
    assert store.get(CHECKPOINT_KEY)["generation"] == 2


@pytest.mark.durable_only
def test_id_that_describe_jobs_no_longer_knows_is_resubmitted(moto_batch, task_logs):
    store = InMemoryTaskStateStore()
    store.set(ID_KEY, "00000000-expired-job")  # e.g. stored by the upstream operator, long ago
    result = run_try(_op(), make_context(store, FakeTaskInstance()))
    assert moto_batch.job_ids() == [result]
    assert store.get(ID_KEY) == result
    terminal = task_logs.event("Prior job in terminal state", "warning")
    assert terminal["external_id"] == "00000000-expired-job" and "no longer knows" in terminal["reason"]


@pytest.mark.durable_only
def test_cleared_task_submits_a_new_job(moto_batch):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = run_try(_op(), make_context(store, ti))
    second = run_try(_op(), make_context(store, ti.cleared(retries=1)))
    assert moto_batch.job_ids() == [first, second] and first != second


@pytest.mark.durable_only
def test_changed_request_is_not_reconnected(moto_batch, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = run_try(_op(wait_for_termination=False, parameters={"day": "1"}), make_context(store, ti))
    second = run_try(_op(wait_for_termination=False, parameters={"day": "2"}), make_context(store, ti.next_try()))
    assert first != second and len(moto_batch.job_ids()) == 2
    assert any(f"Not reconnecting to job {first!r}" in w for w in task_logs.at("warning"))


@pytest.mark.durable_only
def test_default_args_durable_false_resubmits_and_touches_no_store(moto_batch):
    from airflow.sdk import DAG

    store = InMemoryTaskStateStore()

    def build():
        with DAG("d", schedule=None, start_date=datetime.datetime(2026, 1, 1), default_args={"durable": False}):
            return _op()

    assert build().durable is False
    outcome = run_crash_scenario(build, CrashPoint.AFTER_PERSIST, store=store)
    assert len(moto_batch.job_ids()) == 2 and outcome.jobs == 2
    assert store.operations == []


# ---------------------------------------------------------------- below Airflow 3.3
@pytest.mark.shim_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_pre33_every_retry_submits_again_on_the_sync_path(moto_batch, point):
    outcome = run_crash_scenario(_op, point)
    jobs = moto_batch.jobs()
    assert len(jobs) == 2 and outcome.result == jobs[-1]["jobId"]
    assert jobs[0]["tags"][TOKEN_TAG_KEY] != jobs[1]["tags"][TOKEN_TAG_KEY]  # the lookup cannot adopt


@pytest.mark.shim_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_pre33_every_retry_submits_again_on_the_deferrable_path(moto_batch, batch_trigger_in_process, point):
    outcome = run_crash_scenario(lambda: _op(deferrable=True), point)
    assert len(moto_batch.job_ids()) == 2 and outcome.result == moto_batch.job_ids()[-1]


@pytest.mark.shim_only
def test_pre33_explicit_durable_warns_and_still_runs(moto_batch):
    with pytest.warns(UserWarning, match="durable= has no effect"):
        op = _op(durable=True)
    assert run_try(op, make_context(None, FakeTaskInstance())) == moto_batch.job_ids()[0]


def test_awslogs_enabled_streams_the_job_log_while_polling(moto_batch, task_logs):
    import datetime as dt

    op = _op(awslogs_enabled=True, awslogs_fetch_interval=dt.timedelta(0))
    result = run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert result == moto_batch.job_ids()[0]
    # moto writes no log events for a job that never ran a container: the upstream fetcher says so
    assert any("Cannot find log stream yet" in m for m in task_logs.at("info"))
