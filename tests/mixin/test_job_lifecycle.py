"""Carrying out the job-lifecycle rule: once per try, at a safe moment, for every operator.

The verdicts themselves are in ``test_lifecycle.py`` and the kit's cases run them end to end;
these are the mechanics around them - a second SIGTERM, a SIGTERM while the channel to the
supervisor is busy, the failure callback on a fresh copy of the operator, construction.
"""

from __future__ import annotations

import signal
import threading
import time
from types import SimpleNamespace

import pytest
from airflow.sdk import DAG, BaseOperator

from resumable_jobs import ResumableJobMixin
from resumable_jobs.mixin import own_state
from resumable_jobs.mixin.errors import WorkerShutdown
from resumable_jobs.mixin.job_lifecycle import CANCEL_AFTER_FINAL_FAILURE, retry_follows
from resumable_jobs.shims.sdk_names import sdk_exception
from resumable_jobs.testing import (
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    SimulatedWorkerCrash,
    crash_at,
    make_context,
    run_try,
)
from resumable_jobs.testing.fake_system import CANCELLED, RUNNING, SUCCEEDED, FakeJobOperator

ID_KEY = FakeJobOperator.external_id_key


def _op(system, **kwargs):
    kwargs.setdefault("task_id", "job")
    return FakeJobOperator(system=system, **kwargs)


def _mid_poll(op, ti=None, store=None):
    """Run a try until it polls a running job, as a SIGTERM finds it."""
    ti = ti or FakeTaskInstance(max_tries=1)
    context = make_context(store if store is not None else InMemoryTaskStateStore(), ti)
    with crash_at(op, CrashPoint.MID_POLL, context["task_state_store"]), pytest.raises(SimulatedWorkerCrash):
        run_try(op, context)
    (job_id,) = op.system.jobs
    return job_id, context


# ---------------------------------------------------------------- once per try
@pytest.mark.durable_only
def test_a_second_sigterm_neither_raises_again_nor_cancels(system, task_logs):
    op = _op(system)
    job_id, _ = _mid_poll(op)
    with pytest.raises(WorkerShutdown):
        op.on_kill()
    op.on_kill()  # the container runtime's SIGTERM after the supervisor's forwarded one
    assert system.jobs[job_id].state == RUNNING
    assert any(f"job {job_id!r} was already kept" in m for m in task_logs.at("info"))


def test_a_cancelled_job_is_cancelled_once(system):
    cancels = []
    op = _op(system)
    object.__setattr__(op, "cancel_job", lambda external_id, context: cancels.append(external_id))
    job_id, context = _mid_poll(op, FakeTaskInstance(max_tries=1, api_state="failed"))
    op.on_kill()
    op.on_kill()
    for callback in op.on_failure_callback:
        callback({**context, "task": op})
    assert cancels == [job_id]


def test_on_kill_after_the_job_finished_does_nothing(system, task_logs):
    op = _op(system)
    run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance(api_state="failed")))
    op.on_kill()
    assert [job.state for job in system.jobs.values()] == [SUCCEEDED]
    assert any("already finished; nothing to keep or cancel" in m for m in task_logs.at("info"))


def test_on_kill_after_a_submit_only_try_returned_does_nothing(system):
    op = _op(system, wait_for_termination=False)
    job_id = run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance(api_state="failed")))
    op.on_kill()
    assert system.jobs[job_id].state == RUNNING  # the downstream sensor follows it


def test_on_kill_before_the_try_started_does_nothing(system):
    _op(system).on_kill()
    assert system.jobs == {}


# ---------------------------------------------------------------- a SIGTERM at an unsafe moment
class _Channel:
    def __init__(self):
        self._thread_lock = threading.Lock()


@pytest.mark.durable_only
def test_sigterm_while_a_request_to_the_supervisor_is_in_flight_is_acted_on_once_it_is_done(system, monkeypatch):
    """The signal lands on the thread that holds the channel: asking or raising there would
    deadlock or leave an answer unread. The decision waits for the channel, then runs in a
    fresh SIGTERM at a safe moment."""
    channel = _Channel()
    monkeypatch.setattr(own_state, "_supervisor_channel", lambda: channel)
    op = _op(system)
    job_id, context = _mid_poll(op)
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: op.on_kill())
    try:
        channel._thread_lock.acquire()
        threading.Timer(0.3, channel._thread_lock.release).start()
        op.on_kill()  # what Airflow's handler calls, mid-request: postponed, no question asked
        assert context["ti"].api_calls == 0
        with pytest.raises(WorkerShutdown, match=f"keeping job {job_id!r}"):
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                time.sleep(0.01)
        assert context["ti"].api_calls == 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert system.jobs[job_id].state == RUNNING


# ---------------------------------------------------------------- the failure callback
def test_every_resumable_operator_carries_the_failure_callback_after_the_users_own():
    def mine(context):
        pass

    with DAG("d", schedule=None):
        op = FakeJobOperator(task_id="t", system=SimpleNamespace(name="n"), on_failure_callback=mine)
    assert list(op.on_failure_callback) == [mine, CANCEL_AFTER_FINAL_FAILURE]
    if hasattr(BaseOperator, "has_on_failure_callback"):  # what Airflow 3.1+ asks before running callbacks
        assert op.has_on_failure_callback


def test_the_callback_on_a_fresh_copy_cancels_the_job_it_finds_in_xcom(system, task_logs):
    """A worker died on its last try: Airflow runs the callback in the dag-processor, on an
    operator parsed from the DAG file, with no task_state_store."""
    ti = FakeTaskInstance(try_number=2, max_tries=1)
    job_id, _ = _mid_poll(_op(system), ti)
    assert ti.xcom[ID_KEY] == job_id
    fresh = _op(system)
    for callback in fresh.on_failure_callback:
        callback(make_context(None, ti, task=fresh))
    assert system.jobs[job_id].state == CANCELLED
    assert any(f"Cancelling job {job_id!r} after the final failure" in m for m in task_logs.at("warning"))


def test_the_callback_leaves_a_finished_job_and_a_missing_id_alone(system):
    ti = FakeTaskInstance(try_number=2, max_tries=1)
    job_id, _ = _mid_poll(_op(system), ti)
    system.run_to_completion(job_id)
    fresh = _op(system)
    CANCEL_AFTER_FINAL_FAILURE(make_context(None, ti, task=fresh))
    CANCEL_AFTER_FINAL_FAILURE(make_context(None, FakeTaskInstance(), task=_op(system)))
    assert system.jobs[job_id].state == SUCCEEDED


def test_do_xcom_push_false_pushes_no_job_id(system):
    ti = FakeTaskInstance()
    run_try(_op(system, do_xcom_push=False), make_context(InMemoryTaskStateStore(), ti))
    assert ID_KEY not in ti.xcom


class SidecarFlagOperator(FakeJobOperator):
    """do_xcom_push means something else here (KubernetesPodOperator's XCom sidecar)."""

    external_id_xcom_ignores_do_xcom_push = True


def test_an_operator_whose_do_xcom_push_means_a_sidecar_still_pushes_the_id_and_cancels_after_death(system):
    ti = FakeTaskInstance(try_number=2, max_tries=1)
    op = SidecarFlagOperator(task_id="job", system=system, do_xcom_push=False)
    job_id, _ = _mid_poll(op, ti)
    assert ti.xcom[ID_KEY] == job_id
    CANCEL_AFTER_FINAL_FAILURE(make_context(None, ti, task=SidecarFlagOperator(task_id="job", system=system)))
    assert system.jobs[job_id].state == CANCELLED


# ---------------------------------------------------------------- operators and cancel_job
class NoCancel(ResumableJobMixin, BaseOperator):
    external_id_key = "no_cancel_id"

    def __init__(self, *, system, **kwargs):
        super().__init__(**kwargs)
        self.system_name = system.name

    def execute(self, context):
        return self.execute_resumable(context)

    @property
    def system(self):
        from resumable_jobs.testing.fake_system import FakeJobSystem

        return FakeJobSystem.named(self.system_name)

    def submit_job(self, context):
        return self.system.submit(None)

    def get_job_status(self, external_id, context):
        return self.system.status(external_id)

    def is_job_active(self, status):
        return status == RUNNING

    def is_job_succeeded(self, status):
        return status == SUCCEEDED

    def poll_until_complete(self, external_id, context):
        raise RuntimeError("status API down")

    def get_job_result(self, external_id, context):
        return external_id


def test_an_operator_without_cancel_job_is_warned_about_not_left_silently(system, task_logs):
    op = NoCancel(task_id="t", system=system, durable=False)
    with pytest.raises(RuntimeError):
        run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    (job_id,) = system.jobs
    assert system.jobs[job_id].state == RUNNING
    assert any("does not implement cancel_job" in w and job_id in w for w in task_logs.at("warning"))


def test_a_cancel_that_fails_is_logged_and_does_not_replace_the_tasks_error(system, task_logs):
    op = _op(system, durable=False)

    def broken(external_id, context):
        raise ConnectionError("cancel endpoint down")

    object.__setattr__(op, "cancel_job", broken)
    object.__setattr__(op, "poll_until_complete", lambda external_id, context: (_ for _ in ()).throw(KeyError("x")))
    with pytest.raises(KeyError):
        run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert any("Could not cancel job" in e and "cancel endpoint down" in e for e in task_logs.at("error"))


class SpecOrder(BaseOperator, ResumableJobMixin):
    """The spec's base-class order: BaseOperator's no-op on_kill would come first in the MRO."""

    external_id_key = "spec_order_id"

    def execute(self, context):
        return self.execute_resumable(context)

    submit_job = get_job_status = is_job_active = is_job_succeeded = None
    poll_until_complete = get_job_result = None


def test_the_specs_base_class_order_still_runs_the_mixins_on_kill():
    from resumable_jobs.mixin.contract import ResumableJobContract

    assert SpecOrder.on_kill is ResumableJobContract.on_kill


def test_cancel_on_worker_shutdown_reaches_the_operator_through_default_args(system):
    with DAG("d", schedule=None, default_args={"cancel_on_worker_shutdown": True}):
        op = _op(system)
    assert op.cancel_on_worker_shutdown is True
    assert _op(system).cancel_on_worker_shutdown is False


def test_cancel_on_worker_shutdown_must_be_a_bool(system):
    with pytest.raises(TypeError, match="cancel_on_worker_shutdown must be True or False, got 'yes'"):
        _op(system, cancel_on_worker_shutdown="yes")


# ---------------------------------------------------------------- whether a retry follows
def test_the_servers_should_retry_decides_whether_a_retry_follows():
    ti = FakeTaskInstance(try_number=1, max_tries=3)
    assert retry_follows({"ti": ti}) is True
    ti._ti_context_from_server = SimpleNamespace(should_retry=False)
    assert retry_follows({"ti": ti}) is False


def test_airflow_fail_exception_means_no_retry_whatever_the_retries_left():
    assert retry_follows({"ti": FakeTaskInstance(max_tries=3)}, sdk_exception("AirflowFailException")("stop")) is False


def test_without_a_task_instance_it_cannot_tell():
    assert retry_follows({}) is None


@pytest.mark.durable_only
def test_a_sigterm_after_the_try_deferred_leaves_the_job_to_the_trigger(system):
    op = _op(system, deferrable=True)
    context = make_context(InMemoryTaskStateStore(), FakeTaskInstance(api_state="deferred"))
    with pytest.raises(BaseException) as deferred:
        op.execute(context)
    assert type(deferred.value).__name__ == "TaskDeferred"
    op.on_kill()  # arrives while the task runner reports the deferral: must not turn it into a failure
    (job,) = system.jobs.values()
    assert job.state == RUNNING


def test_no_failure_callback_is_added_inside_airflow_dags_test(monkeypatch):
    """`airflow dags test` has no callback sink: a killed task with any failure callback makes the
    command fail before the retry, so the mixin leaves it out there (and only there)."""
    monkeypatch.setattr("sys.argv", ["airflow", "dags", "test", "my_dag", "--use-executor"])
    with DAG("d", schedule=None):
        op = FakeJobOperator(task_id="t", system=SimpleNamespace(name="n"))
    assert CANCEL_AFTER_FINAL_FAILURE not in op.on_failure_callback
    monkeypatch.setattr("sys.argv", ["airflow", "dag-processor"])
    with DAG("d2", schedule=None):
        op = FakeJobOperator(task_id="t", system=SimpleNamespace(name="n"))
    assert CANCEL_AFTER_FINAL_FAILURE in op.on_failure_callback
