"""Issue 13 on the core mixin, through the kit's reference operator over the fake job system.

The provider families run the same scenarios (``tests/hardening.py``) behind their own fakes;
here are the cases only the mixin can show: ids of any size, a completion marker a newer
release extended, two tries of one task instance at once, and fingerprints of secret payloads.
"""

from __future__ import annotations

import json

import pytest

from resumable_jobs.mixin.digests import digest
from resumable_jobs.mixin.errors import DamagedRecordError, ExternalIdTooLarge
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
from resumable_jobs.testing.fake_system import FakeJobOperator
from tests.hardening import HardeningScenarios, run_two_tries_at_once

pytestmark = pytest.mark.durable_only

ID_KEY = FakeJobOperator.external_id_key
RECORD_KEY = f"{ID_KEY}_resumable"


def _factory(system, **kwargs):
    kwargs.setdefault("task_id", "job")
    kwargs.setdefault("payload", {"rows": 10})
    return lambda: FakeJobOperator(system=system, **kwargs)


class TestFakeJobOperatorHardening(HardeningScenarios):
    secret = "hunter2"
    secret_request = {"payload": {"rows": 10, "password": secret}}
    first_request = {"payload": {"partition": 1}}
    changed_request = {"payload": {"partition": 2}}

    @pytest.fixture
    def backend(self, system):
        self.system = system
        return system

    def make(self, **kwargs):
        return _factory(self.system, **kwargs)()

    def submissions(self, backend):
        return backend.submissions

    def assert_left_running(self, backend, old_id):
        assert backend.jobs[old_id].state == "RUNNING"


# ---------------------------------------------------------------- item 1: the record
def test_a_damaged_record_is_refused_even_when_a_job_id_is_stored(system):
    store = InMemoryTaskStateStore()
    store.set(ID_KEY, system.submit("earlier"))
    store.set(RECORD_KEY, {"version": 1, "generation": "one", "nonce": "n"})
    with pytest.raises(DamagedRecordError) as raised:
        run_try(_factory(system)(), make_context(store, FakeTaskInstance()))
    assert system.submissions == 1
    assert f"{ID_KEY!r} holds job 'job-" in str(raised.value)


def test_a_completion_marker_with_a_field_of_a_newer_release_still_returns_the_result(system):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    job_id = system.submit({"rows": 10})
    system.run_to_completion(job_id)
    store.set(ID_KEY, job_id)
    completed = {"external_id_sha256": digest(job_id), "try_number": 1, "max_tries": 2, "rows_seen": 10}
    store.set(RECORD_KEY, {"version": 1, "generation": 1, "nonce": "n0nce", "completed": completed})
    result = run_try(_factory(system)(), make_context(store, ti.next_try()))
    assert result == {"job_id": job_id, "state": "SUCCEEDED"}
    assert system.submissions == 1


# ---------------------------------------------------------------- item 2: an empty id
@pytest.mark.parametrize("empty", [[], {}], ids=["list", "dict"])
def test_empty_containers_count_as_absent_too(system, task_logs, empty):
    store = InMemoryTaskStateStore()
    store.set(ID_KEY, empty)
    run_try(_factory(system)(), make_context(store, FakeTaskInstance()))
    assert system.submissions == 1
    assert any("empty id" in w for w in task_logs.at("warning"))


# ---------------------------------------------------------------- item 4: fingerprints
def test_fingerprint_excludes_keep_a_rotated_secret_from_looking_like_a_new_request(system, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = _factory(system, payload={"rows": 10, "password": "old"}, fingerprint_excludes=["password"])()
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    retry = _factory(system, payload={"rows": 10, "password": "rotated"}, fingerprint_excludes=["password"])()
    run_try(retry, make_context(store, ti.next_try()))
    assert system.submissions == 1  # same request: reconnected
    assert not [w for w in task_logs.at("warning") if "Not reconnecting" in w]


# ---------------------------------------------------------------- item 5: large ids
def test_a_large_id_is_held_once_and_the_record_stays_small(system):
    system.id_length = 35_000  # two copies of it would not fit in 64 KB
    system.fail_next = 1
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    make = _factory(system)
    with pytest.raises(Exception, match="ended FAILED"):
        run_try(make(), make_context(store, ti))
    result = run_try(make(), make_context(store, ti.next_try()))  # a new generation, then its completion
    failed, replacement = system.jobs
    assert result["job_id"] == replacement and len(replacement) == 35_000
    snapshot = json.dumps(store.snapshot())
    assert snapshot.count(replacement) == 1 and failed not in snapshot
    assert len(json.dumps(store.get(RECORD_KEY))) < 500


def test_an_id_too_large_to_persist_cancels_its_job_and_names_the_setting(system, monkeypatch, task_logs):
    monkeypatch.setenv("AIRFLOW__STATE_STORE__MAX_VALUE_STORAGE_BYTES", "65536")
    system.id_length = 70_000
    store = InMemoryTaskStateStore(max_value_bytes=65536)
    with pytest.raises(ExternalIdTooLarge) as raised:
        run_try(_factory(system)(), make_context(store, FakeTaskInstance(max_tries=3)))
    (job,) = system.jobs.values()
    assert job.state == "CANCELLED"
    assert ID_KEY not in store
    message = str(raised.value)
    assert "[state_store] max_value_storage_bytes (65536)" in message
    assert "No retry could find the job, so it was cancelled" in message
    assert any("Cancelling job" in w and "as its id cannot be persisted" in w for w in task_logs.at("warning"))
    # Not retried: every retry would submit a job and hit the same limit.
    assert isinstance(raised.value, sdk_exception("AirflowFailException"))


def test_a_store_failure_that_is_not_about_size_is_not_called_one(system, monkeypatch):
    class Unavailable(InMemoryTaskStateStore):
        def set(self, key, value, **kwargs):
            if key == ID_KEY:
                raise ConnectionError("API server unreachable")
            super().set(key, value, **kwargs)

    with pytest.raises(ConnectionError):
        run_try(_factory(system)(), make_context(Unavailable(), FakeTaskInstance(max_tries=3)))


# ---------------------------------------------------------------- item 6: two tries at once
def test_two_tries_at_once_share_one_job_where_the_system_deduplicates_tokens(system):
    system.deduplicate_tokens = True
    first, second, tokens = run_two_tries_at_once(_factory(system))
    assert system.submissions == 1
    assert len(set(tokens)) == 1  # the later try reused the token of the generation in flight
    assert first == second


def test_two_tries_at_once_can_both_submit_where_the_system_cannot_deduplicate(system):
    first, second, tokens = run_two_tries_at_once(_factory(system))
    assert len(set(tokens)) == 1  # same token, but nothing on the system's side recognises it
    assert system.submissions == 2
