"""How a dbt Cloud run's numeric status maps onto the mixin's active / succeeded / ended outcomes.

dbt Cloud reports a run's status as a number (API v2 reference, and upstream's
``DbtCloudJobRunStatus``): 1 queued, 2 starting, 3 running, 10 success, 20 error, 30 cancelled.
The mixin asks for one status string, so the number becomes its name (``"RUNNING"``). A number
this module does not know reads as ``"UNKNOWN_<n>"`` and counts as *active*: a retry keeps
following a run whose state it cannot read rather than start a second run of the job next to it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ACTIVE", "SUCCEEDED", "TERMINAL_FAILURES", "is_active", "is_succeeded", "status_name"]

_NAMES = {1: "QUEUED", 2: "STARTING", 3: "RUNNING", 10: "SUCCESS", 20: "ERROR", 30: "CANCELLED"}
#: Statuses of a run that may still finish: a retry reconnects to it.
ACTIVE = frozenset({"QUEUED", "STARTING", "RUNNING"})
SUCCEEDED = "SUCCESS"
#: Terminal statuses without success: a retry starts a new run.
TERMINAL_FAILURES = frozenset({"ERROR", "CANCELLED"})


def status_name(status: Any) -> str:
    """``3`` -> ``"RUNNING"``; an unknown value -> ``"UNKNOWN_<value>"``."""
    try:
        return _NAMES.get(int(status), f"UNKNOWN_{status}")
    except (TypeError, ValueError):
        return f"UNKNOWN_{status}"


def is_active(name: str) -> bool:
    """True while the run is queued, starting or running - or in a status this module does not know."""
    return name in ACTIVE or name.startswith("UNKNOWN_")


def is_succeeded(name: str) -> bool:
    return name == SUCCEEDED
