"""Ask the API server for this task instance's own state, safely from inside a SIGTERM handler.

Why: a SIGTERM reaches ``on_kill`` both when the task was stopped on purpose (the supervisor
terminates a task the API server no longer runs) and when the worker itself is going away. Only
the task instance's state at the API server tells the two apart
(:mod:`resumable_jobs.mixin.lifecycle`).

How it works: the Task SDK's ``ti.get_task_states(...)`` sends one request through the
supervisor, which asks the Execution API. Two things make that delicate inside a signal handler:

* The handler runs on the main thread, between two bytecodes of whatever it interrupted. If that
  was another request to the supervisor, the channel's lock is held by the very thread the handler
  runs on: asking would deadlock, and an exception raised now would leave that request's answer
  unread on the channel. :func:`channel_busy` tells; the caller then waits for a safe moment.
* The API server may be slow or gone. The request runs in a daemon thread and is given
  ``timeout`` seconds; no answer in time is reported as unreadable, never waited on. The thread
  holds the channel's lock until its answer arrives, so nothing else reads it by mistake.

What it does not do: decide anything; it returns what the server said (or why it said nothing).
"""

from __future__ import annotations

import threading
from typing import Any

from resumable_jobs.mixin.lifecycle import TaskInstanceState

#: Seconds to wait for the API server's answer before calling the state unreadable.
DEFAULT_TIMEOUT = 3.0


def _supervisor_channel() -> Any:
    try:
        from airflow.sdk.execution_time import task_runner
    except ImportError:  # pragma: no cover - a Task SDK without the task runner
        return None
    return getattr(task_runner, "SUPERVISOR_COMMS", None)


def channel_busy() -> bool:
    """True while a request to the supervisor is in flight (its lock is held)."""
    lock = getattr(_supervisor_channel(), "_thread_lock", None)
    return bool(lock is not None and lock.locked())


def _state_key(task_id: str, map_index: int | None) -> str:
    # The Execution API keys mapped task instances as "<task_id>_<map_index>".
    return task_id if map_index is None or map_index < 0 else f"{task_id}_{map_index}"


def read_own_state(ti: Any, *, timeout: float = DEFAULT_TIMEOUT) -> TaskInstanceState:
    """This task instance's state at the API server (see the module docstring)."""
    ask = getattr(ti, "get_task_states", None)
    if ask is None:
        return TaskInstanceState.unreadable("the task instance cannot ask the API server")
    if channel_busy():
        return TaskInstanceState.unreadable("the channel to the supervisor is busy")
    task_id, run_id, map_index = ti.task_id, ti.run_id, getattr(ti, "map_index", None)
    answer: dict[str, Any] = {}

    def query() -> None:
        try:
            kwargs: dict[str, Any] = {"task_ids": [task_id], "run_ids": [run_id]}
            if map_index is not None and map_index >= 0:
                kwargs["map_index"] = map_index
            answer["states"] = ask(ti.dag_id, **kwargs)
        except BaseException as err:  # noqa: BLE001 - any failure means "unreadable", reported below
            answer["error"] = err

    thread = threading.Thread(target=query, name="resumable-own-state", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return TaskInstanceState.unreadable(f"no answer from the API server within {timeout:g}s")
    if "error" in answer:
        err = answer["error"]
        return TaskInstanceState.unreadable(f"{type(err).__name__}: {err}")
    states = (answer.get("states") or {}).get(run_id) or {}
    key = _state_key(task_id, map_index)
    if key not in states:
        return TaskInstanceState.deleted()
    state = states[key]
    return TaskInstanceState(state=getattr(state, "value", state))
