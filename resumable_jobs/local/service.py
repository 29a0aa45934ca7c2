"""The context-manager shape every local stand-in shares: ``start()`` and ``stop()``, never half-started.

What it is for: a stand-in that fails half-way through ``start()`` (a port taken, a daemon that
exited) must still stop what it already started, and ``with`` must stop it on any exit, Ctrl-C
included. Writing that once keeps every stand-in honest about it.

How it works: :class:`LocalService` turns a subclass's ``start()`` and (idempotent) ``stop()`` into
``__enter__`` / ``__exit__``; ``__enter__`` calls ``stop()`` when ``start()`` raises.
:class:`DaemonInTempDir` is the common case - one process group and a private temp dir - whose
``stop()`` ends the group (``stop_signal`` first) and removes the dir.

What it does not do: it starts nothing itself.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any, TypeVar

from typing_extensions import Self

from resumable_jobs.local.processes import stop_group

__all__ = ["DaemonInTempDir", "LocalService"]

S = TypeVar("S", bound="LocalService")


class LocalService:
    """Base of the local stand-ins: ``with Service() as service:`` starts and always stops it."""

    def start(self) -> Any:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class DaemonInTempDir(LocalService):
    """A stand-in that is one process group (``_process``) with a private temp dir (``base_dir``)."""

    base_dir: Path | None = None
    _process: subprocess.Popen | None = None
    #: the signal that asks the daemon to shut down cleanly, and how long it gets before SIGKILL
    stop_signal: int = signal.SIGTERM
    stop_grace: float = 10.0

    def keep_base_dir(self) -> bool:
        """True to leave ``base_dir`` in place on stop (for a look at a failed run)."""
        return False

    def stop(self) -> None:
        if self._process is not None:
            stop_group(self._process, first_signal=self.stop_signal, grace=self.stop_grace)
            self._process = None
        if self.base_dir is not None and not self.keep_base_dir():
            shutil.rmtree(self.base_dir, ignore_errors=True)
            self.base_dir = None
