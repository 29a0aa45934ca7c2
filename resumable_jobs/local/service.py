"""The context-manager shape every local stand-in shares: ``start()`` and ``stop()``, never half-started.

What it is for: a stand-in that fails half-way through ``start()`` (a port taken, a daemon that
exited) must still stop what it already started, and ``with`` must stop it on any exit, Ctrl-C
included. Writing that once keeps every stand-in honest about it.

How it works: :class:`LocalService` turns a subclass's ``start()`` and (idempotent) ``stop()`` into
``__enter__`` / ``__exit__``; ``__enter__`` calls ``stop()`` when ``start()`` raises.

What it does not do: it starts nothing itself.
"""

from __future__ import annotations

from typing import Any, TypeVar

from typing_extensions import Self

__all__ = ["LocalService"]

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
