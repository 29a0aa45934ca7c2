"""What a Spark standalone driver state means to the mixin, and how a status reply is read.

What it is for: one place that turns the REST submission server's ``SubmissionStatusResponse``
into a :class:`DriverStatus` and classifies driver states, so the synchronous client, the
trigger and the operator agree on what "active", "succeeded" and "not found" mean.

How it works: :func:`parse_status_reply` reads the JSON body of ``GET /v1/submissions/status/<id>``.
A reply with ``success: false`` and no ``driverState`` is how the master says it does not know the
id (a master restarted without recovery, a typo): that raises
:class:`~resumable_jobs.mixin.errors.JobNotFoundError`, and the mixin submits a new driver.

What it does not do: no HTTP (see ``rest_client`` and ``trigger``), no waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from resumable_jobs.mixin.errors import JobNotFoundError

#: The driver may still finish: a retry reconnects to it. RELAUNCHING is a supervised driver being
#: restarted; UNKNOWN is reported while a master recovers its state.
ACTIVE_STATES = frozenset({"SUBMITTED", "RUNNING", "RELAUNCHING", "UNKNOWN"})
SUCCEEDED_STATES = frozenset({"FINISHED"})
FAILED_STATES = frozenset({"FAILED", "KILLED", "ERROR"})

#: What a standby (or recovering) master puts in its reply: the id may well exist on the leader.
NOT_ALIVE_MARKER = "Current state is not alive"

__all__ = [
    "ACTIVE_STATES",
    "FAILED_STATES",
    "SUCCEEDED_STATES",
    "DriverStatus",
    "MasterNotAliveError",
    "is_active",
    "is_succeeded",
    "parse_status_reply",
]


@dataclass(frozen=True)
class DriverStatus:
    """One status reply: the driver's state, the master's message (if any) and where it runs."""

    driver_id: str
    state: str
    message: str = ""
    worker_id: str | None = None
    worker_host_port: str | None = None

    @property
    def active(self) -> bool:
        return is_active(self.state)

    @property
    def succeeded(self) -> bool:
        return is_succeeded(self.state)

    @property
    def terminal(self) -> bool:
        return not self.active

    def describe(self) -> str:
        """``driver-... ended FAILED: <message>``, for errors and logs."""
        text = f"Spark driver {self.driver_id} ended {self.state}"
        if self.worker_host_port:
            text += f" on worker {self.worker_host_port}"
        if self.message:
            text += f": {self.message.strip()}"
        elif self.state == "FAILED":
            text += " (the application exited with a non-zero code; see the driver's stderr on the worker)"
        return text


class MasterNotAliveError(RuntimeError):
    """The master that answered is a standby or still recovering: ask another one, or later.

    Never treated as "not found": a standby master knows no drivers, but the leader may.
    """


def is_active(state: str) -> bool:
    return state.upper() in ACTIVE_STATES


def is_succeeded(state: str) -> bool:
    return state.upper() in SUCCEEDED_STATES


def parse_status_reply(driver_id: str, reply: Any) -> DriverStatus:
    """Read a ``SubmissionStatusResponse`` body. Raises ``JobNotFoundError`` for an unknown id.

    A standby master's refusal raises :class:`MasterNotAliveError`; any other malformed reply
    raises ``ValueError`` naming what was received. Neither is "not found", so the mixin does not
    answer them with a new driver.
    """
    if not isinstance(reply, dict):
        raise ValueError(f"Spark status reply for {driver_id} is not a JSON object: {reply!r}")  # noqa: TRY004
    state = reply.get("driverState")
    message = str(reply.get("message") or "")
    if not state:
        if NOT_ALIVE_MARKER in message:
            raise MasterNotAliveError(f"Spark master cannot report on {driver_id}: {message.strip()}")
        if reply.get("success") is False:
            raise JobNotFoundError(driver_id, message or "the Spark master does not know this driver")
        raise ValueError(f"Spark status reply for {driver_id} has no driverState: {reply!r}")
    return DriverStatus(
        driver_id=str(reply.get("submissionId") or driver_id),
        state=str(state).upper(),
        message=message,
        worker_id=reply.get("workerId"),
        worker_host_port=reply.get("workerHostPort"),
    )
