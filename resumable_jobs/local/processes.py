"""Start and stop helper processes so that nothing outlives the demo or a test.

Every process is started in a new session (its own process group), so stopping it also stops
whatever it forked - Airflow's api-server workers, LocalExecutor workers and task supervisors,
Spark's JVMs. Stopping is SIGTERM to the group, then SIGKILL to whatever is left after a grace
period.
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
    argv: Sequence[str], *, env: dict[str, str], log_path: Path, cwd: Path | None = None
) -> subprocess.Popen:
    """Start ``argv`` as the leader of a new process group, output appended to ``log_path``."""
    log: IO[bytes] = open(log_path, "ab")  # noqa: SIM115 - handed to the child, closed by stop_group
    process = subprocess.Popen(
        list(argv),
        env=env,
        cwd=cwd,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
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


def _descendants(pid: int) -> list[int]:
    """Children at any depth; some (task supervisors) start sessions of their own."""
    try:
        import psutil  # an Airflow dependency
    except ImportError:  # pragma: no cover
        return []
    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover
        return True
    return True


def stop_group(process: subprocess.Popen, *, grace: float = 10.0) -> None:
    """Stop ``process``, its process group and every descendant; idempotent."""
    pgid = process.pid  # leader of its own session: pgid == pid
    tracked = set(_descendants(process.pid))
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        tracked |= set(_descendants(process.pid))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, sig)
        for pid in tracked:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            process.poll()
            if not group_alive(pgid) and not any(_alive(pid) for pid in tracked):
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
