"""What ``SparkSubmitOperator`` needs from a cluster manager: submit, find by token, status, cancel, trigger.

What it is for: one operator class for a standalone master, YARN and Kubernetes. The operator
implements the mixin's contract once, in terms of this interface; each cluster manager is a
small module of its own (:mod:`~resumable_jobs.providers.spark.standalone`,
:mod:`~resumable_jobs.providers.spark.yarn.manager`,
:mod:`~resumable_jobs.providers.spark.kubernetes.manager`) that knows how its system names,
finds, reads and stops an application.

How it works: :class:`ClusterManager` is the contract; :class:`ApplicationStatus` is what a status
read returns, whatever the system (a standalone ``DriverStatus``, a YARN application report, a
driver pod). Reads that fail for a reason that may pass (a standby ResourceManager, an API server
hiccup) raise :class:`StatusUnavailable`, never ``JobNotFoundError``: only a system that *knows*
the application is gone may make the mixin submit a new one.

What it does not do: no decision (the mixin decides), no waiting (see
:mod:`~resumable_jobs.providers.spark.polling`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping

    from airflow.triggers.base import BaseTrigger

__all__ = ["ApplicationStatus", "ClusterManager", "StatusUnavailable"]


class StatusUnavailable(RuntimeError):
    """The cluster manager could not say how the application is (try again later; it may well run)."""


class ApplicationStatus(Protocol):
    """One status read of a Spark application."""

    @property
    def state(self) -> str:
        """The status string the mixin classifies (``RUNNING``, ``FINISHED``, ``Succeeded``, ...)."""

    @property
    def active(self) -> bool: ...

    @property
    def succeeded(self) -> bool: ...

    @property
    def terminal(self) -> bool: ...

    def describe(self) -> str:
        """A sentence for logs and errors: which application, how it ended, the system's message."""


class ClusterManager(ABC):
    """Submit, find, read, cancel and wait for one task's Spark application on one cluster manager."""

    #: How logs name the application: "Spark driver", "YARN application", "Spark driver pod".
    noun: ClassVar[str] = "Spark application"
    #: What a poll says when the application disappears while it is followed.
    lost_hint: ClassVar[str] = "a retry submits a new application"

    @abstractmethod
    def submit(self, token: str, *, extra_conf: Mapping[str, str] | None = None) -> str:
        """Submit the application tagged with ``token`` (where the system can carry one); return its id.

        ``extra_conf``: Spark properties for this submission only (OpenLineage's per-try parent
        run); they are not part of :meth:`fingerprint_payload`.
        """

    def find(self, token: str) -> str | None:
        """The id of the application submitted with ``token``, or None (also: cannot be searched)."""
        return None

    @abstractmethod
    def status(self, app_id: str) -> ApplicationStatus:
        """Read the status; ``JobNotFoundError`` when the system does not know ``app_id``."""

    @abstractmethod
    def is_active(self, state: str) -> bool:
        """Whether ``state`` (an ``ApplicationStatus.state``) means the application may still finish."""

    @abstractmethod
    def is_succeeded(self, state: str) -> bool:
        """Whether ``state`` means the application succeeded."""

    def check_ready(self) -> None:
        """Raise now, before anything is submitted, if the application could not be followed afterwards."""

    @abstractmethod
    def cancel(self, app_id: str) -> None:
        """Stop the application (the call alone; the mixin decides when)."""

    @abstractmethod
    def trigger(self, app_id: str, poll_interval: float) -> BaseTrigger:
        """The trigger that waits for ``app_id`` in the triggerer."""

    def ui_url(self, app_id: str) -> str | None:
        """The page the "Spark Master UI" link opens for this application, if there is one."""
        return None

    def fingerprint_payload(self) -> Any:
        """What identifies the request (JSON-serialisable); it never contains the token."""
        return None

    #: Exceptions a status read may raise that mean "try again", besides ``StatusUnavailable``.
    transient_errors: ClassVar[tuple[type[Exception], ...]] = (StatusUnavailable,)
