"""How operators are declared and configured: runs on every Airflow version (core mixin or shim)."""

from __future__ import annotations

import datetime
import warnings

import pytest
from airflow.sdk import DAG, BaseOperator

from resumable_jobs import ResumableJobMixin
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_try
from resumable_jobs.testing.fake_system import FakeJobOperator

from tests.conftest import DURABLE


class _Methods:
    """The six methods over a fake system, for operators declared in several shapes below."""

    external_id_key = "shape_job_id"

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return self.system.submit(None, token=self.submission_token)

    def get_job_status(self, external_id, context):
        return self.system.status(external_id)

    def is_job_active(self, status):
        return status == "RUNNING"

    def is_job_succeeded(self, status):
        return status == "SUCCEEDED"

    def poll_until_complete(self, external_id, context):
        self.system.run_to_completion(external_id)

    def get_job_result(self, external_id, context):
        return external_id


class BaseOperatorFirstNoInit(_Methods, BaseOperator, ResumableJobMixin):
    external_id_key = "shape_job_id"


class BaseOperatorFirstWithInit(_Methods, BaseOperator, ResumableJobMixin):
    external_id_key = "shape_job_id"

    def __init__(self, *, payload=None, **kwargs):
        super().__init__(**kwargs)
        self.payload = payload


class MixinFirstWithInit(_Methods, ResumableJobMixin, BaseOperator):
    external_id_key = "shape_job_id"

    def __init__(self, *, payload=None, **kwargs):
        super().__init__(**kwargs)
        self.payload = payload


class MixinFirstNamingDurable(_Methods, ResumableJobMixin, BaseOperator):
    external_id_key = "shape_job_id"

    def __init__(self, *, durable: bool | None = None, **kwargs):
        super().__init__(durable=durable, **kwargs)


class SubclassOfAnOperator(MixinFirstWithInit):
    def __init__(self, *, extra=1, **kwargs):
        super().__init__(**kwargs)
        self.extra = extra


SHAPES = [BaseOperatorFirstNoInit, BaseOperatorFirstWithInit, MixinFirstWithInit, MixinFirstNamingDurable, SubclassOfAnOperator]


@pytest.fixture(autouse=True)
def _quiet_shim():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("shape", SHAPES, ids=lambda c: c.__name__)
def test_durable_false_through_default_args_reaches_every_declaration_shape(shape, system):
    with DAG("d", schedule=None, start_date=datetime.datetime(2026, 1, 1), default_args={"durable": False}):
        op = shape(task_id="t")
    op.system = system
    assert op.durable is False
    store = InMemoryTaskStateStore()
    run_try(op, make_context(store, FakeTaskInstance()))
    assert store.operations == []


@pytest.mark.parametrize("shape", SHAPES, ids=lambda c: c.__name__)
def test_explicit_durable_false_is_accepted_by_every_declaration_shape(shape):
    assert shape(task_id="t", durable=False).durable is False


@pytest.mark.durable_only
@pytest.mark.parametrize("shape", SHAPES, ids=lambda c: c.__name__)
def test_durable_defaults_to_true_and_checkpoints(shape, system):
    op = shape(task_id="t")
    op.system = system
    store = InMemoryTaskStateStore()
    run_try(op, make_context(store, FakeTaskInstance()))
    assert op.durable is True
    assert store.get("shape_job_id") == "job-" + store.get("shape_job_id").split("-")[1]


def test_explicit_durable_true_is_accepted_by_every_declaration_shape():
    for shape in SHAPES:
        shape(task_id="t", durable=True)


def test_durable_must_be_a_bool():
    with pytest.raises(TypeError, match="durable must be True or False"):
        MixinFirstWithInit(task_id="t", durable="no")


def test_mapped_operator_accepts_durable_in_partial():
    with DAG("mapped", schedule=None, start_date=datetime.datetime(2026, 1, 1)):
        MixinFirstWithInit.partial(task_id="m", durable=False).expand(payload=[1, 2])


@pytest.mark.parametrize("key", ["job.id", "jobs/id"])
def test_key_with_dot_or_slash_is_rejected_at_class_creation(key):
    with pytest.raises(ValueError, match="must not contain dots or slashes"):
        type("Bad", (_Methods, ResumableJobMixin, BaseOperator), {"external_id_key": key})


def test_key_set_on_the_instance_is_checked_at_construction():
    class KeyFromArgument(MixinFirstWithInit):
        def __init__(self, *, key, **kwargs):
            super().__init__(**kwargs)
            self.external_id_key = key

    with pytest.raises(ValueError, match="must not contain dots or slashes"):
        KeyFromArgument(task_id="t", key="a.b")


def test_deferrable_without_build_trigger_fails_at_construction():
    class CannotDefer(MixinFirstWithInit):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.deferrable = True

    with pytest.raises(ValueError, match="does not implement build_trigger"):
        CannotDefer(task_id="t")


def test_deferrable_without_build_trigger_fails_before_submitting_when_set_late(system):
    op = MixinFirstWithInit(task_id="t")
    op.system = system
    op.deferrable = True  # set after construction: the check runs again before any submission
    with pytest.raises(ValueError, match="does not implement build_trigger"):
        run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert system.submissions == 0


def test_deferrable_without_waiting_warns_at_construction_and_does_not_defer(system):
    with pytest.warns(UserWarning, match="defers nothing.*wait_for_termination=True"):
        op = FakeJobOperator(task_id="t", system=system, deferrable=True, wait_for_termination=False)
    result = run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert result == next(iter(system.jobs))
    assert system.jobs[result].state == "RUNNING"


def test_execute_complete_contract(system):
    op = FakeJobOperator(task_id="t", system=system, deferrable=True)
    job_id = system.submit(None)
    system.run_to_completion(job_id)
    context = make_context(InMemoryTaskStateStore(), FakeTaskInstance())
    assert op.execute_complete(context, {"status": "success", "external_id": job_id, "message": ""}) == {
        "job_id": job_id,
        "state": "SUCCEEDED",
    }
    from resumable_jobs import ExternalJobFailed

    with pytest.raises(ExternalJobFailed, match="cluster terminated"):
        op.execute_complete(context, {"status": "error", "external_id": job_id, "message": "cluster terminated"})
    with pytest.raises(ExternalJobFailed, match="unexpected trigger event"):
        op.execute_complete(context, {"state": "weird"})


def test_mixin_matches_the_installed_airflow():
    from resumable_jobs.mixin.contract import ResumableJobContract

    assert issubclass(ResumableJobMixin, ResumableJobContract)
    assert ResumableJobMixin.__module__ == ("resumable_jobs.mixin.core" if DURABLE else "resumable_jobs.shims.pre33")
