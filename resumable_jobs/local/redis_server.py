"""A private Redis server on a free 127.0.0.1 port, for a Celery broker.

What it is for: the CeleryExecutor topology of the production crash suite needs a broker that
behaves like the one users run - Redis, with Celery's acknowledgement and visibility-timeout
semantics - without touching a system Redis.

How it works: :class:`LocalRedis` starts ``redis-server`` in the foreground (no daemonizing) as
the leader of its own process group, bound to 127.0.0.1 on a free port, with persistence off and
its working directory in a temporary folder. It waits until ``PING`` answers ``PONG``; ``stop()``
signals the group by id (SIGTERM, then SIGKILL) and removes the folder.

What it does not do: no persistence, no password, no cluster; everything is lost on stop.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from resumable_jobs.local.net import free_port, wait_until
from resumable_jobs.local.processes import start_group, stop_group
from resumable_jobs.local.service import DaemonInTempDir

__all__ = ["LocalRedis", "RedisNotFoundError"]

INSTALL_HINT = "apt-get install -y redis-server"


class RedisNotFoundError(RuntimeError):
    """``redis-server`` is not installed."""


class LocalRedis(DaemonInTempDir):
    """A throwaway Redis server; use as a context manager. ``url`` is a Celery broker URL."""

    def __init__(self, *, start_timeout: float = 60.0) -> None:
        self.start_timeout = start_timeout
        self.port: int | None = None
        self.base_dir: Path | None = None
        self._process: subprocess.Popen | None = None


    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, *, attempts: int = 3) -> LocalRedis:
        server = shutil.which("redis-server") or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)
        if server is None:
            raise RedisNotFoundError(f"redis-server not found; install it: `{INSTALL_HINT}`")
        self.base_dir = Path(tempfile.mkdtemp(prefix="rj-redis-"))
        for attempt in range(1, attempts + 1):
            self.port = free_port()
            argv = [
                server,
                "--bind", "127.0.0.1",
                "--port", str(self.port),
                "--dir", str(self.base_dir),
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no",
                "--protected-mode", "yes",
            ]  # fmt: skip
            self._process = start_group(argv, env=dict(os.environ), log_path=self.base_dir / "redis.log")
            try:
                wait_until(self._pong, timeout=self.start_timeout, what=f"Redis on port {self.port}", check=self._check)
                return self
            except RuntimeError:
                stop_group(self._process)
                self._process = None
                if attempt == attempts:
                    raise
        return self

    def _check(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            assert self.base_dir is not None
            tail = (self.base_dir / "redis.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"redis-server exited with code {self._process.returncode}:\n{tail}")

    def _pong(self) -> bool:
        assert self.port is not None
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
