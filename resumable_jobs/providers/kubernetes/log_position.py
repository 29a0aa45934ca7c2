"""Where a pod's log was read up to, kept in ``task_state_store`` so a reattaching try continues it.

What it is for: a try that follows a pod streams the pod's log into the task log. When the
worker dies, the retry reattaches to the same pod; reading the log from its beginning again
would repeat every line the first try already logged. This module remembers, per container, the
timestamp of the last line logged, and hands it to the retry.

How it works: upstream's ``PodManager`` records the last timestamp it logged per
``(namespace, pod, container)`` in its ``container_log_times`` mapping and resumes from it with
``since_time``. :class:`PersistedLogTimes` is that mapping, writing the pod's entry to the store
under ``<external_id_key>_log_position`` at most once every :data:`WRITE_EVERY` seconds (one
Execution API call, never per line); :func:`resume_times` reads it back for the same pod uid.

What it does not do: it cannot be exact. Lines of the last :data:`WRITE_EVERY` seconds before
the worker died are logged again, and the Kubernetes log API resumes at whole seconds
(``sinceSeconds``), so the last line logged may repeat - as it does in upstream's own resume.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["WRITE_EVERY", "PersistedLogTimes", "log_position_key", "resume_times"]

#: Seconds between two writes of the log position.
WRITE_EVERY = 10.0


def log_position_key(external_id_key: str) -> str:
    return f"{external_id_key}_log_position"


class PersistedLogTimes(dict):
    """``PodManager.container_log_times`` that also writes the followed pod's entries to the store."""

    def __init__(self, store: Any, key: str, pod_uid: str | None) -> None:
        super().__init__()
        self._store = store
        self._key = key
        self._uid = pod_uid
        self._written = 0.0

    def __setitem__(self, where: tuple[str, str, str], value: Any) -> None:
        super().__setitem__(where, value)
        now = time.monotonic()
        if self._store is None or now - self._written < WRITE_EVERY:
            return
        self._written = now
        self.flush()

    def flush(self) -> None:
        """Write the current positions (a failed write only costs repeated lines on a retry)."""
        if self._store is None or not self:
            return
        from airflow.sdk import NEVER_EXPIRE

        times = {container: str(value) for (_, _, container), value in self.items()}
        try:
            self._store.set(self._key, {"uid": self._uid, "times": times}, retention=NEVER_EXPIRE)
        except Exception:  # noqa: BLE001 - the log position is a convenience, never a reason to fail
            self._store = None


def resume_times(
    store: Any, key: str, namespace: str, name: str, pod_uid: str | None
) -> dict[tuple[str, str, str], Any]:
    """The stored positions for this pod (same uid), as ``container_log_times`` entries."""
    if store is None:
        return {}
    try:
        stored = store.get(key)
    except Exception:  # noqa: BLE001 - without a position the log is read from its beginning
        return {}
    if not isinstance(stored, dict) or stored.get("uid") != pod_uid or not isinstance(stored.get("times"), dict):
        return {}
    import pendulum

    resumed = {}
    for container, value in stored["times"].items():
        try:
            resumed[(namespace, name, container)] = pendulum.parse(value)
        except (TypeError, ValueError):
            continue
    return resumed
