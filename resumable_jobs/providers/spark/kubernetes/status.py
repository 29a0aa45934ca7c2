"""What a Spark driver pod means to the mixin: its phase, and the driver container's exit code.

What it is for: one place that turns a driver pod (as the Kubernetes API returns it) into a
:class:`DriverPodStatus`, so the worker, the trigger and ``find_job`` agree on "active",
"succeeded" and "ended".

How it works: the driver container (``spark-kubernetes-driver``, Spark's name for it; else the
pod's first container) decides as soon as it has terminated: exit code 0 is ``Succeeded``,
anything else ``Failed`` - even while the pod's phase still says ``Running`` because a sidecar
(a service mesh proxy, a log shipper) keeps it alive. Before that the pod's phase is the status:
``Pending``, ``Running`` and ``Unknown`` (the node cannot be reached; the driver may well run)
are active, ``Succeeded`` is success, ``Failed`` (evicted, OOM-killed) is failure.

What it does not do: no API calls (see :mod:`~resumable_jobs.providers.spark.kubernetes.pods`).
It reads pods as the ``kubernetes`` client's ``V1Pod`` objects (attributes, not keys).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ACTIVE_PHASES", "DRIVER_CONTAINER", "DriverPodStatus", "is_active", "is_succeeded"]

#: Spark's name for the container that runs the driver.
DRIVER_CONTAINER = "spark-kubernetes-driver"
ACTIVE_PHASES = frozenset({"Pending", "Running", "Unknown"})
SUCCEEDED = "Succeeded"
FAILED = "Failed"


def is_active(status: str) -> bool:
    return status in ACTIVE_PHASES


def is_succeeded(status: str) -> bool:
    return status == SUCCEEDED


@dataclass(frozen=True)
class DriverPodStatus:
    """One read of a driver pod: its status, and how the driver container ended if it did."""

    app_id: str
    state: str
    exit_code: int | None = None
    reason: str = ""
    message: str = ""

    @classmethod
    def from_pod(cls, app_id: str, pod: Any) -> DriverPodStatus:
        status = getattr(pod, "status", None)
        phase = str(getattr(status, "phase", None) or "Pending")
        driver = _driver_container(getattr(status, "container_statuses", None) or [])
        terminated = getattr(getattr(driver, "state", None), "terminated", None)
        if terminated is not None:
            exit_code = getattr(terminated, "exit_code", None)
            return cls(
                app_id=app_id,
                state=SUCCEEDED if exit_code == 0 else FAILED,
                exit_code=exit_code,
                reason=str(getattr(terminated, "reason", None) or ""),
                message=str(getattr(terminated, "message", None) or ""),
            )
        return cls(
            app_id=app_id,
            state=phase,
            reason=str(getattr(status, "reason", None) or ""),
            message=str(getattr(status, "message", None) or ""),
        )

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
        """``Spark driver pod ns:name ended Failed (exit code 1, Error): ...``, for errors and logs."""
        text = f"Spark driver pod {self.app_id} ended {self.state}"
        details = [f"exit code {self.exit_code}"] if self.exit_code is not None else []
        if self.reason:
            details.append(self.reason)
        if details:
            text += f" ({', '.join(details)})"
        if self.message.strip():
            text += f": {self.message.strip()}"
        return text


def _driver_container(statuses: list[Any]) -> Any:
    for container in statuses:
        if getattr(container, "name", None) == DRIVER_CONTAINER:
            return container
    return statuses[0] if statuses else None
