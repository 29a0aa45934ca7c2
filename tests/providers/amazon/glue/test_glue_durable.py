"""GlueJobOperator's crash recovery against moto (Airflow >= 3.3): one job run per crash point.

Each scenario counts the runs moto's Glue saw (GetJobRuns), not the ids the operator returned:
a retry that started a second run shows up however it started it.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.amazon import GlueJobOperator
from resumable_jobs.providers.amazon.glue_lookup import TOKEN_ARGUMENT, UPSTREAM_TASK_UUID_ARGUMENT
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SUBMIT_ONLY_POINTS,
    SYNC_POINTS,
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    SimulatedWorkerCrash,
    assert_crash_safe,
    crash_at,
    make_context,
    run_crash_scenario,
    run_try,
)
from tests.providers.amazon.glue.conftest import JOB, REGION, ROLE_ARN, SCRIPT

pytestmark = pytest.mark.durable_only

ID_KEY = "glue_job_run_id"
MODES = {
    "sync": ({}, SYNC_POINTS),
    "deferrable": ({"deferrable": True}, DEFERRABLE_POINTS),
    "submit-only": ({"wait_for_termination": False}, SUBMIT_ONLY_POINTS),
}


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


@pytest.mark.parametrize(
    ("mode", "point"),
    [(mode, point) for mode, (_, points) in MODES.items() for point in points],
    ids=lambda v: getattr(v, "name", v),
)
@pytest.mark.parametrize("pace", [None, 2], ids=["finishes-at-once", "runs-a-while"])
def test_every_crash_point_leaves_one_job_run(moto_glue, glue_trigger_in_process, mode, point, pace):
    if pace:
        moto_glue.pace(pace)  # moto's manual progression: STARTING, RUNNING for a few reads, then SUCCEEDED
    kwargs, _ = MODES[mode]
    outcome = run_crash_scenario(lambda: _op(**kwargs), point)
    runs = moto_glue.runs()
    assert [run["Id"] for run in runs] == [outcome.result], f"{mode} {point.name}: {len(runs)} runs"
    assert outcome.store.get(ID_KEY) == outcome.result
    assert outcome.ti.xcom[ID_KEY] == outcome.result  # the retry's own XCom: pushed on every path


@pytest.mark.parametrize("mode", list(MODES))
def test_conformance_kit(moto_glue, glue_trigger_in_process, mode):
    moto_glue.pace(2)
    kwargs, _ = MODES[mode]
    # each scenario is a task instance of its own: their runs may overlap (submit-only leaves them running)
    assert_crash_safe(lambda: _op(concurrent_run_limit=10, **kwargs))
    assert len(moto_glue.runs()) == len(MODES[mode][1])  # one run per crash point, no more


def test_crash_before_persisting_finds_the_run_by_its_token_argument(moto_glue, task_logs):
    moto_glue.hold()
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = _op()
    with crash_at(first, CrashPoint.AFTER_SUBMIT, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    (run,) = moto_glue.runs()
    assert store.get(ID_KEY) is None  # the window: the run exists, its id was never stored
    moto_glue.release(run["Id"])
    result = run_try(_op(), make_context(store, ti.next_try()))
    assert result == run["Id"] and moto_glue.run_ids() == [run["Id"]]
    assert task_logs.event("found by its submission token", "info")["external_id"] == run["Id"]


def test_the_lookup_ignores_runs_of_other_tasks(moto_glue):
    moto_glue.create_job(max_concurrent_runs=5)
    other = moto_glue.client.start_job_run(JobName=JOB, Arguments={TOKEN_ARGUMENT: "another-task-g1-x"})["JobRunId"]
    outcome = run_crash_scenario(lambda: _op(concurrent_run_limit=5), CrashPoint.AFTER_SUBMIT)
    assert len(moto_glue.runs()) == 2 and outcome.result != other


def test_a_retry_reconnects_to_the_running_run_and_polls_it_to_the_end(moto_glue, task_logs):
    moto_glue.pace(3)
    outcome = run_crash_scenario(_op, CrashPoint.MID_POLL)
    (run,) = moto_glue.runs()
    assert outcome.result == run["Id"] and run["JobRunState"] == "SUCCEEDED"
    assert task_logs.event("Reconnecting to existing job", "info")["external_id"] == run["Id"]


def test_a_retry_following_its_run_does_not_touch_the_uploaded_script(moto_glue, tmp_path):
    import boto3

    boto3.client("s3", region_name=REGION).create_bucket(
        Bucket="rj-artifacts", CreateBucketConfiguration={"LocationConstraint": REGION}
    )
    script = tmp_path / "etl.py"
    script.write_text("print('etl')\n")
    moto_glue.pace(3)
    outcome = run_crash_scenario(
        lambda: _op(script_location=str(script), s3_bucket="rj-artifacts"), CrashPoint.MID_POLL
    )
    assert moto_glue.run_ids() == [outcome.result]


def test_deferrable_retry_defers_again_to_the_still_running_run(moto_glue, glue_trigger_in_process):
    moto_glue.pace(3)
    outcome = run_crash_scenario(lambda: _op(deferrable=True), CrashPoint.AFTER_DEFER)
    (run,) = moto_glue.runs()
    assert outcome.result == run["Id"]


def test_a_trigger_error_while_the_run_goes_on_keeps_it_and_the_retry_defers_to_it(moto_glue, glue_trigger_in_process):
    moto_glue.hold()
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(ExternalJobFailed, match=r"the run is still RUNNING"):
        # one waiter attempt: the waiter gives up while the held run runs on
        run_try(_op(deferrable=True, waiter_max_attempts=1), make_context(store, ti))
    (run_id,) = moto_glue.run_ids()
    assert moto_glue.state(run_id) == "RUNNING"  # kept: a retry follows it
    moto_glue.release(run_id)
    assert run_try(_op(deferrable=True), make_context(store, ti.next_try())) == run_id
    assert moto_glue.run_ids() == [run_id]


def test_a_failed_run_is_replaced_by_a_new_generation(moto_glue):
    moto_glue.hold()
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    crashing = _op()
    with crash_at(crashing, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(crashing, make_context(store, ti))
    (first,) = moto_glue.run_ids()
    moto_glue.release(first, "FAILED")
    moto_glue.pace(1)
    second = run_try(_op(), make_context(store, ti.next_try()))
    assert moto_glue.run_ids() == [first, second] and first != second
    tokens = [run["Arguments"][TOKEN_ARGUMENT] for run in moto_glue.runs()]
    assert tokens[0] != tokens[1]  # the generation moved on: a new token


def test_a_run_glue_no_longer_knows_is_replaced(moto_glue):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    store.set(ID_KEY, "jr_forgotten")
    result = run_try(_op(), make_context(store, ti))
    assert moto_glue.run_ids() == [result]


def test_a_cleared_task_starts_one_new_run(moto_glue):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = run_try(_op(), make_context(store, ti))
    second = run_try(_op(), make_context(store, ti.cleared()))
    assert moto_glue.run_ids() == [first, second]


# ---------------------------------------------------------------- ConcurrentRunsExceeded
def test_concurrent_runs_exceeded_is_answered_by_the_lookup_when_the_run_is_ours(moto_glue, task_logs, monkeypatch):
    """GetJobRuns missed the run on the retry's first look (listing lag); StartJobRun is refused; ours is found."""
    moto_glue.hold()
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = _op()
    with crash_at(first, CrashPoint.AFTER_SUBMIT, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    (run_id,) = moto_glue.run_ids()
    retry = _op(wait_for_termination=False)
    object.__setattr__(retry, "find_job", lambda token, context: None)  # the lagging listing
    result = run_try(retry, make_context(store, ti.next_try()))
    assert result == run_id and moto_glue.run_ids() == [run_id]
    assert store.get(ID_KEY) == run_id
    assert any("refused (ConcurrentRunsExceeded)" in m and run_id in m for m in task_logs.at("info"))


def test_concurrent_run_of_another_task_fails_with_a_clear_message(moto_glue):
    moto_glue.create_job()
    moto_glue.hold()
    other = moto_glue.client.start_job_run(JobName=JOB, Arguments={"--day": "x"})["JobRunId"]
    with pytest.raises(ExternalJobFailed) as raised:
        run_try(_op(), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    message = str(raised.value)
    assert f"{other} (RUNNING)" in message and "concurrent_run_limit" in message
    assert "not" in message and moto_glue.run_ids() == [other]  # nothing started beside it


def test_a_run_upstreams_operator_started_for_this_task_instance_is_followed(moto_glue):
    """Switched from the Amazon provider's deferrable GlueJobOperator mid-retries: its run carries the task UUID."""
    moto_glue.create_job()
    moto_glue.hold()
    ti = FakeTaskInstance(max_tries=2)
    uuid = f"{ti.dag_id}:{ti.task_id}:{ti.run_id}:{ti.map_index}"
    upstream_run = moto_glue.client.start_job_run(JobName=JOB, Arguments={UPSTREAM_TASK_UUID_ARGUMENT: uuid})[
        "JobRunId"
    ]
    result = run_try(_op(wait_for_termination=False), make_context(InMemoryTaskStateStore(), ti.next_try()))
    assert result == upstream_run and moto_glue.run_ids() == [upstream_run]


# ---------------------------------------------------------------- migration from upstream's operator
def test_the_store_key_is_upstreams_so_a_task_switched_mid_retries_reconnects(moto_glue):
    from airflow.providers.amazon.aws.operators.glue import GlueJobOperator as UpstreamGlueJobOperator

    assert GlueJobOperator.external_id_key == UpstreamGlueJobOperator.external_id_key == ID_KEY
    moto_glue.pace(3)
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    upstream = UpstreamGlueJobOperator(
        task_id="glue",
        job_name=JOB,
        script_location=SCRIPT,
        iam_role_arn=ROLE_ARN,
        aws_conn_id=None,
        region_name=REGION,
        job_poll_interval=0,
    )
    with crash_at(upstream, CrashPoint.MID_POLL), pytest.raises(SimulatedWorkerCrash):
        upstream.execute(make_context(store, ti))
    (run_id,) = moto_glue.run_ids()
    assert store.get(ID_KEY) == run_id  # upstream's durable sync path persisted the bare id
    assert run_try(_op(), make_context(store, ti.next_try())) == run_id
    assert moto_glue.run_ids() == [run_id]
