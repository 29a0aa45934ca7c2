"""The run-state mapping the retry decision rests on."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.databricks.status import (
    failure_message,
    is_active,
    is_succeeded,
    status_of,
)


@pytest.mark.parametrize(
    "life_cycle",
    ["PENDING", "QUEUED", "RUNNING", "TERMINATING", "BLOCKED", "WAITING_FOR_RETRY"],
)
def test_active_states_reconnect(life_cycle):
    status = status_of({"life_cycle_state": life_cycle})
    assert is_active(status) and not is_succeeded(status)


def test_only_terminated_success_is_success():
    assert is_succeeded(status_of({"life_cycle_state": "TERMINATED", "result_state": "SUCCESS"}))
    for state in (
        {"life_cycle_state": "TERMINATED", "result_state": "FAILED"},
        {"life_cycle_state": "TERMINATED", "result_state": "CANCELED"},
        {"life_cycle_state": "INTERNAL_ERROR", "result_state": "FAILED"},
        {"life_cycle_state": "SKIPPED"},
        {"life_cycle_state": "INTERNAL_ERROR", "result_state": "SUCCESS"},
    ):
        status = status_of(state)
        assert not is_succeeded(status) and not is_active(status), status


def test_failure_message_names_state_message_and_each_failed_task():
    message = failure_message(
        42,
        {
            "life_cycle_state": "TERMINATED",
            "result_state": "FAILED",
            "state_message": "2 tasks failed",
        },
        [
            {"task_key": "a", "run_id": 1, "error": "boom"},
            {"task_key": "b", "run_id": 2, "error": ""},
        ],
    )
    assert message == (
        "Databricks run 42 ended TERMINATED with result FAILED: 2 tasks failed. "
        "Failed tasks: a (run 1): boom; b (run 2): no error message"
    )
