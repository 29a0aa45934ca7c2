"""Start, signal and stop helper processes so that nothing outlives the demo or a test.

Every process is started in a new session (its own process group), so stopping it also stops
whatever it forked - Airflow's api-server workers, LocalExecutor workers and task supervisors,
Spark's JVMs. Stopping is a signal to the group (SIGTERM unless the program wants another one for
a fast shutdown, e.g. SIGINT for PostgreSQL), then SIGKILL to whatever is left after a grace
period. Descendants that moved to process groups of their own (Airflow's task processes do) are
found through the process tree and signalled by pid as well.

The crash drills use the same tree: :func:`tree` lists a process and its descendants, and
:func:`signal_pids` sends a signal to exactly those pids - never to anything found by name.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO


def start_group(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    log_path: Path,
    cwd: Path | None = None,
    user: str | None = None,
) -> subprocess.Popen:
    """Start ``argv`` as the leader of a new process group, output appended to ``log_path``.

    ``user`` runs the program as that account (PostgreSQL refuses to run as root).
    """
    log: IO[bytes] = open(log_path, "ab")  # noqa: SIM115 - handed to the child, closed by stop_group
    process = subprocess.Popen(
        list(argv),
        env=env,
        cwd=cwd,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        user=user,
    )
    process._rj_log = log  # type: ignore[attr-defined]
    return process


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - exists, owned by someone else
        return True
    return True


def descendants(pid: int) -> list[int]:
    """Children at any depth; some (task supervisors) start sessions of their own."""
    try:
        import psutil  # an Airflow dependency
    except ImportError:  # pragma: no cover
        return []
    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def tree(pid: int) -> list[int]:
    """``pid`` followed by its descendants at any depth (empty when ``pid`` is gone)."""
    return [pid, *descendants(pid)] if alive(pid) else []


def parent_of(pid: int) -> int | None:
    try:
        import psutil
    except ImportError:  # pragma: no cover
        return None
    try:
        return psutil.Process(pid).ppid()
    except psutil.Error:
        return None


def signal_pids(pids: Sequence[int], sig: int) -> list[int]:
    """Send ``sig`` to each pid still alive; return the pids it reached."""
    reached = []
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
            reached.append(pid)
    return reached


def wait_gone(pids: Sequence[int], timeout: float) -> bool:
    """Wait until none of ``pids`` is alive (zombies of our own children are reaped); True if so."""
    deadline = time.monotonic() + timeout
    while True:
        for pid in pids:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
        if not any(alive(pid) for pid in pids):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        import psutil
    except ImportError:  # pragma: no cover
        return _alive(pid)
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover
        return True
    return True


def stop_group(process: subprocess.Popen, *, grace: float = 10.0, first_signal: int = signal.SIGTERM) -> None:
    """Stop ``process``, its process group and every descendant; idempotent.

    ``first_signal`` goes to the group first; whatever is alive after ``grace`` seconds gets
    SIGKILL.
    """
    pgid = process.pid  # leader of its own session: pgid == pid
    tracked = set(descendants(process.pid))
    for sig, wait in ((first_signal, grace), (signal.SIGKILL, 5.0)):
        tracked |= set(descendants(process.pid))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, sig)
        for pid in tracked:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            process.poll()
            if not group_alive(pgid) and not any(alive(pid) for pid in tracked):
                break
            time.sleep(0.1)
        else:
            continue
        break
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=1)
    log = getattr(process, "_rj_log", None)
    if log is not None:
        log.close()
