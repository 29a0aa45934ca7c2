"""Reading the task instance's own state from inside a SIGTERM handler: answers, and never a hang."""

from __future__ import annotations

import threading
import time

import pytest

from resumable_jobs.mixin import own_state
from resumable_jobs.testing import DELETED, UNREACHABLE, FakeTaskInstance


def test_reads_the_state_the_api_server_reports():
    assert own_state.read_own_state(FakeTaskInstance(api_state="failed")).state == "failed"
    assert own_state.read_own_state(FakeTaskInstance(api_state="running")).state == "running"


def test_a_mapped_task_instance_reads_its_own_index():
    ti = FakeTaskInstance(map_index=3, api_state="restarting")
    answer = own_state.read_own_state(ti)
    assert (answer.state, answer.describe()) == ("restarting", "the task instance was cleared while running")


def test_a_deleted_task_instance_is_reported_as_gone():
    answer = own_state.read_own_state(FakeTaskInstance(api_state=DELETED))
    assert answer.readable and not answer.exists


def test_an_unreachable_api_server_is_unreadable_with_the_error():
    answer = own_state.read_own_state(FakeTaskInstance(api_state=UNREACHABLE))
    assert not answer.readable
    assert "ConnectionError: the API server is unreachable" in answer.detail


def test_a_slow_api_server_is_given_up_on_after_the_timeout():
    started = time.monotonic()
    answer = own_state.read_own_state(FakeTaskInstance(api_delay=5), timeout=0.2)
    assert time.monotonic() - started < 2
    assert not answer.readable and "no answer from the API server within 0.2s" in answer.detail


def test_a_task_instance_that_cannot_ask_is_unreadable():
    class Bare:
        task_id, run_id, dag_id = "t", "r", "d"

    assert not own_state.read_own_state(Bare()).readable


class _Channel:
    def __init__(self):
        self._thread_lock = threading.Lock()


def test_a_busy_channel_to_the_supervisor_is_never_waited_on(monkeypatch):
    """The handler runs on the thread that holds the channel: asking would deadlock."""
    channel = _Channel()
    monkeypatch.setattr(own_state, "_supervisor_channel", lambda: channel)
    ti = FakeTaskInstance()
    with channel._thread_lock:
        assert own_state.channel_busy()
        answer = own_state.read_own_state(ti)
    assert not answer.readable and "busy" in answer.detail
    assert ti.api_calls == 0
    assert not own_state.channel_busy()


@pytest.mark.durable_only
def test_outside_a_supervised_process_the_channel_is_not_busy():
    assert own_state.channel_busy() is False
