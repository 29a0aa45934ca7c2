"""A pod's state as one status string: what the mixin's decision and the trigger event mean by done.

What it is for: the pod phase alone is not the workload's state. A pod whose base container
ended keeps the phase ``Running`` while a sidecar (the XCom sidecar, a service mesh proxy) still
runs; that pod's work is done, and its result is waiting in the sidecar. So the status string is
``Succeeded``/``Failed`` when the phase says so or the base container terminated (exit code 0 or
not), else the phase (``Pending``, ``Running``, ``Unknown``).

How it works: plain functions over ``V1Pod`` objects (duck-typed; nothing imported from Kubernetes).

What it does not do: it does not wait, read or delete anything.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ACTIVE", "FAILED", "SUCCEEDED", "base_container_exit_code", "is_active", "is_succeeded", "pod_status"]

SUCCEEDED = "Succeeded"
FAILED = "Failed"
#: Statuses a retry reattaches to. ``Unknown``: the node lost contact, the pod may still finish.
ACTIVE = frozenset({"Pending", "Running", "Unknown"})


def base_container_exit_code(pod: Any, base_container: str) -> int | None:
    """The exit code of the terminated base container, or None while it has not terminated."""
    statuses = (pod.status.container_statuses if pod.status else None) or []
    for container in statuses:
        if container.name == base_container and container.state is not None and container.state.terminated:
            return container.state.terminated.exit_code
    return None


def pod_status(pod: Any, base_container: str) -> str:
    """See the module docstring."""
    phase = pod.status.phase if pod.status else None
    if phase in (SUCCEEDED, FAILED):
        return phase
    if pod.status is not None and (pod.status.reason or "").lower() == "evicted":
        return FAILED
    exit_code = base_container_exit_code(pod, base_container)
    if exit_code is not None:
        return SUCCEEDED if exit_code == 0 else FAILED
    return phase or "Unknown"


def is_active(status: str) -> bool:
    return status in ACTIVE


def is_succeeded(status: str) -> bool:
    return status == SUCCEEDED
