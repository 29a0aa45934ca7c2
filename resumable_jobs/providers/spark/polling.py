"""The synchronous wait: read an application's status until it is terminal, on any cluster manager.

What it is for: ``poll_until_complete`` on the worker, the same loop for a standalone driver, a
YARN application and a Kubernetes driver pod, so they agree on what a failed read, a lost
application and a state change mean.

How it works: :func:`wait_until_terminal` reads ``manager.status(app_id)`` every ``interval``
seconds, logs each state change once, and tolerates ``max_errors - 1`` failed reads in a row (the
manager's ``transient_errors``); the next one is raised and fails the try - the retry then asks
again and reconnects while the application runs. An application the system no longer knows fails
the try with ``ExternalJobFailed`` naming what probably happened (``manager.lost_hint``). A
terminal status is returned; the caller decides what a non-success means.

What it does not do: it never submits or cancels, and it does not bound the wait (that is
``execution_timeout``'s job).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from resumable_jobs.mixin.errors import ExternalJobFailed, JobNotFoundError

if TYPE_CHECKING:
    from resumable_jobs.providers.spark.cluster_manager import ApplicationStatus, ClusterManager

__all__ = ["MAX_CONSECUTIVE_POLL_ERRORS", "wait_until_terminal"]

#: Failed status reads in a row the synchronous poll tolerates before failing the try.
MAX_CONSECUTIVE_POLL_ERRORS = 5


def wait_until_terminal(
    manager: ClusterManager,
    app_id: str,
    *,
    interval: float,
    log: Any,
    max_errors: int = MAX_CONSECUTIVE_POLL_ERRORS,
) -> ApplicationStatus:
    """Poll until the application is terminal and return that status (see the module docstring)."""
    last_state = None
    errors = 0
    while True:
        try:
            current = manager.status(app_id)
        except JobNotFoundError as missing:
            raise ExternalJobFailed(f"{missing}; {manager.lost_hint}") from missing
        except manager.transient_errors as error:
            errors += 1
            if errors >= max_errors:
                raise
            log.warning("Could not read the status of %s %s: %s", manager.noun, app_id, error)
        else:
            errors = 0
            if current.state != last_state:
                log.info("%s %s is %s", manager.noun, app_id, current.state)
                last_state = current.state
            if current.terminal:
                return current
        time.sleep(interval)
