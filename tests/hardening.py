"""Hostile-user scenarios (issue 13), shared by the mixin's tests and every provider's.

Each scenario runs an operator's try against the kit's strict in-memory store holding what a
damaged deployment, a hand edit or another version of the package leaves there, behind the
provider's own fake backend, and asserts what a user relies on: nothing is submitted on a
record that cannot be used, the message says which key and how to reset it, an empty id is
absent, the record holds digests and never the request, a changed request names the job it
leaves running. ``submissions`` is a callable counting the jobs the backend was asked to start.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from resumable_jobs.mixin.digests import digest, is_digest
from resumable_jobs.mixin.errors import DamagedRecordError, NewerRecordError
from resumable_jobs.mixin.record import FORMAT_VERSION
from resumable_jobs.testing import (
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    SimulatedWorkerCrash,
    crash_at,
    make_context,
    run_try,
)

Factory = Callable[[], Any]
Counter = Callable[[], int]

#: Records no version of this package writes, each damaged differently.
DAMAGED_RECORDS = [
    pytest.param(["generation", 1], id="a-list"),
    pytest.param("g1-abc", id="a-string"),
    pytest.param({"version": 1, "generation": "2", "nonce": "abc"}, id="generation-a-string"),
    pytest.param({"version": 1, "generation": 2}, id="nonce-missing"),
    pytest.param({"version": 1, "generation": 1, "nonce": "abc", "completed": "yes"}, id="completed-a-string"),
]


def keys_of(make_operator: Factory) -> tuple[str, str]:
    """``(external_id_key, bookkeeping key)`` of the operator."""
    key = make_operator().external_id_key
    return key, f"{key}_resumable"


def prepared_store(make_operator: Factory, *, record: Any = None, stored_id: Any = None) -> InMemoryTaskStateStore:
    """A store holding ``record`` under the bookkeeping key and ``stored_id`` under the id key."""
    id_key, record_key = keys_of(make_operator)
    store = InMemoryTaskStateStore()
    if record is not None:
        store.set(record_key, record)
    if stored_id is not None:
        store.set(id_key, stored_id)
    return store


def assert_refuses_record(make_operator: Factory, submissions: Counter, record: Any, error: type) -> str:
    """A try over ``record`` raises ``error`` before submitting; returns the message."""
    store = prepared_store(make_operator, record=record)
    before = submissions()
    with pytest.raises(error) as raised:
        run_try(make_operator(), make_context(store, FakeTaskInstance(max_tries=2)))
    assert submissions() == before, "a job was submitted although the record could not be used"
    message = str(raised.value)
    assert repr(keys_of(make_operator)[1]) in message
    assert "Nothing was submitted" in message
    assert "DELETE /api/v2/dags/resumable_dag/dagRuns/" in message  # how to reset it
    return message


def assert_refuses_damaged_record(make_operator: Factory, submissions: Counter, record: Any) -> str:
    return assert_refuses_record(make_operator, submissions, record, DamagedRecordError)


def assert_refuses_newer_record(make_operator: Factory, submissions: Counter) -> str:
    newer = {"version": FORMAT_VERSION + 1, "package_version": "9.4.0", "generation": 3, "nonce": "n0nce"}
    message = assert_refuses_record(make_operator, submissions, newer, NewerRecordError)
    assert f"format version {FORMAT_VERSION + 1}" in message
    assert "airflow-provider-resumable-jobs>=9.4.0" in message
    return message


def assert_keeps_unknown_fields(make_operator: Factory, submissions: Counter) -> dict[str, Any]:
    """A record with a field of a newer release: the try goes on, and the field survives its rewrites."""
    unknown = {"added_by_a_newer_release": {"kept": True}}
    store = prepared_store(make_operator, record={"version": 1, "generation": 1, "nonce": "n0nce", **unknown})
    before = submissions()
    run_try(make_operator(), make_context(store, FakeTaskInstance(max_tries=2)))
    assert submissions() == before + 1
    record = store.get(keys_of(make_operator)[1])
    assert record["added_by_a_newer_release"] == {"kept": True}
    assert "completed" in record  # rewritten: the completion marker was added next to it
    return record


def assert_empty_id_is_absent(make_operator: Factory, submissions: Counter, task_logs: Any) -> Any:
    """``""`` under the id key names no job: WARNING, then a first submission."""
    id_key, _ = keys_of(make_operator)
    store = prepared_store(make_operator, stored_id="")
    before = submissions()
    run_try(make_operator(), make_context(store, FakeTaskInstance(max_tries=2)))
    assert submissions() == before + 1
    (warning,) = [w for w in task_logs.at("warning") if "empty id" in w]
    assert repr(id_key) in warning
    assert store.get(id_key) not in ("", None)
    return store.get(id_key)


def assert_fingerprint_is_a_digest(make_operator: Factory, secret: str) -> str:
    """The record holds sha256(request_fingerprint()) and no trace of the request's secret."""
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    operator = make_operator()
    returned = operator.request_fingerprint(make_context(store, ti))
    assert returned is not None
    run_try(operator, make_context(store, ti))
    stored = store.get(keys_of(make_operator)[1])["fingerprint"]
    assert is_digest(stored) and stored == digest(returned)
    assert secret not in json.dumps(store.snapshot())
    return stored


def assert_request_change_names_the_job_left_running(
    make_first: Factory, make_changed: Factory, task_logs: Any
) -> tuple[Any, str]:
    """The first try dies while its job runs; the retry's request differs: the WARNING says the
    old job, by id, is left running."""
    id_key, _ = keys_of(make_first)
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = make_first()
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    old_id = store.get(id_key)
    run_try(make_changed(), make_context(store, ti.next_try()))
    (warning,) = [w for w in task_logs.at("warning") if "Not reconnecting" in w]
    assert f"Job {old_id!r} is not cancelled: it is left running" in warning
    assert store.get(id_key) != old_id
    return old_id, warning


def run_two_tries_at_once(make_operator: Factory) -> tuple[Any, Any, list[str]]:
    """Try 1 has written its generation and is about to call the external system when try 2 of
    the same task instance (its worker given up on, still alive) runs from start to end; then
    try 1 goes on. Returns both results and the submission tokens, in the order they were used."""
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = make_operator()
    tokens: list[str] = []
    second_result: list[Any] = []
    submit = first.submit_job

    def submit_while_another_try_runs(context: Any) -> Any:
        second = make_operator()
        second_submit = second.submit_job

        def recording(context: Any) -> Any:
            tokens.append(second.submission_token)
            return second_submit(context)

        object.__setattr__(second, "submit_job", recording)
        second_result.append(run_try(second, make_context(store, ti.next_try())))
        tokens.append(first.submission_token)
        return submit(context)

    object.__setattr__(first, "submit_job", submit_while_another_try_runs)
    first_result = run_try(first, make_context(store, ti))
    return first_result, second_result[0], tokens


class HardeningScenarios:
    """Every scenario above as a test, for one operator behind one fake backend.

    Subclass it as ``Test<Operator>Hardening`` next to the backend's fixtures, with a ``backend``
    fixture that returns the fake and the hooks below; pytest runs the inherited tests per class.
    """

    #: kwargs whose request carries :attr:`secret` (which must never reach the store).
    secret_request: dict[str, Any] = {}
    secret: str = ""
    #: kwargs of a request, and of the same request with one input shifted.
    first_request: dict[str, Any] = {}
    changed_request: dict[str, Any] = {}

    def make(self, **kwargs: Any) -> Any:
        """The operator, as a DAG would declare it, with test-friendly poll intervals."""
        raise NotImplementedError

    def submissions(self, backend: Any) -> int:
        """How many jobs the backend was asked to start so far."""
        raise NotImplementedError

    def assert_left_running(self, backend: Any, old_id: Any) -> None:
        """What the backend shows of a job the task stopped following: not cancelled."""

    def _count(self, backend: Any) -> Counter:
        return lambda: self.submissions(backend)

    @pytest.mark.parametrize("record", DAMAGED_RECORDS)
    def test_a_damaged_record_starts_nothing_and_names_its_reset(self, backend, record):
        assert_refuses_damaged_record(self.make, self._count(backend), record)

    def test_a_record_of_a_newer_release_starts_nothing(self, backend):
        assert_refuses_newer_record(self.make, self._count(backend))

    def test_fields_of_a_newer_release_survive(self, backend):
        assert_keeps_unknown_fields(self.make, self._count(backend))

    def test_an_empty_stored_id_counts_as_absent(self, backend, task_logs):
        assert_empty_id_is_absent(self.make, self._count(backend), task_logs)

    def test_the_record_holds_a_digest_of_the_request_not_its_secret(self, backend):
        assert_fingerprint_is_a_digest(lambda: self.make(**self.secret_request), self.secret)

    def test_a_changed_request_names_the_job_it_leaves_running(self, backend, task_logs):
        before = self.submissions(backend)
        old_id, _ = assert_request_change_names_the_job_left_running(
            lambda: self.make(**self.first_request), lambda: self.make(**self.changed_request), task_logs
        )
        assert self.submissions(backend) == before + 2
        self.assert_left_running(backend, old_id)
