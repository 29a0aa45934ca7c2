"""BigQuery's PENDING / RUNNING / DONE (+ errorResult) as the mixin's active / succeeded / failed."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.google import status


@pytest.mark.parametrize(
    ("state", "error_result", "active", "succeeded"),
    [
        ("PENDING", None, True, False),
        ("RUNNING", None, True, False),
        ("DONE", None, False, True),
        ("DONE", {"reason": "invalidQuery", "message": "bad"}, False, False),
        ("SOMETHING_NEW", None, True, False),  # unknown: keep waiting rather than resubmit
    ],
)
def test_mapping(state, error_result, active, succeeded):
    raw = status.job_status(state, error_result)
    assert (status.is_active(raw), status.is_succeeded(raw)) == (active, succeeded)


def test_failure_message_names_reason_message_location_and_the_other_errors():
    main = {"reason": "invalidQuery", "message": "Unrecognized name: x", "location": "query"}
    other = {"reason": "stopped", "message": "Job cancelled"}
    assert status.failure_message("job_1", main, [main, other]) == (
        "BigQuery job job_1 failed: invalidQuery: Unrecognized name: x (at query); other errors: stopped: Job cancelled"
    )
