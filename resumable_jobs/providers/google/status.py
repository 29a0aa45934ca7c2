"""What a BigQuery job's state means to the mixin, and how a failure is put into words.

What it is for: one place that maps BigQuery's ``status`` (``state`` plus ``errorResult``) to the
mixin's three questions - is the job still active, did it succeed, and if not, why.

How it works: BigQuery reports only ``PENDING``, ``RUNNING`` and ``DONE``; success and failure are
both ``DONE`` and differ by ``errorResult``. The mixin wants one status string, so a ``DONE`` job
with an ``errorResult`` becomes :data:`FAILED`. A state this module does not know is treated as
active: waiting on a job that is in fact finished costs a poll, while treating a running job as
ended would start a duplicate.

What it does not do: it makes no API calls and imports no Google library.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["DONE", "FAILED", "PENDING", "RUNNING", "failure_message", "is_active", "is_succeeded", "job_status"]

PENDING = "PENDING"
RUNNING = "RUNNING"
#: ``DONE`` without ``errorResult``: the job succeeded.
DONE = "DONE"
#: ``DONE`` with ``errorResult``: the job failed (our name; BigQuery says ``DONE``).
FAILED = "DONE_WITH_ERROR"


def job_status(state: str | None, error_result: Mapping[str, Any] | None) -> str:
    """The status string for a job in ``state`` with ``error_result``."""
    if state == DONE:
        return FAILED if error_result else DONE
    return str(state or PENDING)


def is_active(status: str) -> bool:
    """``PENDING``, ``RUNNING`` (and any state BigQuery may add): the job may still finish."""
    return status not in (DONE, FAILED)


def is_succeeded(status: str) -> bool:
    return status == DONE


def _describe(error: Mapping[str, Any]) -> str:
    reason = error.get("reason") or "unknown reason"
    message = error.get("message") or "no message"
    location = error.get("location")
    return f"{reason}: {message}" + (f" (at {location})" if location else "")


def failure_message(
    job_id: str,
    error_result: Mapping[str, Any] | None,
    errors: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """``BigQuery job <id> failed: <reason>: <message>``, plus the other errors BigQuery listed."""
    main = _describe(error_result or {})
    others = [_describe(e) for e in errors or () if dict(e) != dict(error_result or {})]
    text = f"BigQuery job {job_id} failed: {main}"
    if others:
        text += "; other errors: " + "; ".join(others[:5]) + (" ..." if len(others) > 5 else "")
    return text
