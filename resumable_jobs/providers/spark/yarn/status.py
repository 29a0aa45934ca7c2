"""What a YARN application report means to the mixin.

What it is for: one place that turns the ResourceManager's application JSON (``state``,
``finalStatus``, ``diagnostics``) into a :class:`YarnApplicationStatus`, so the worker, the
trigger and ``find_job`` agree on "active", "succeeded" and "ended".

How it works: YARN reports two fields. ``state`` says where the application is in its life
(NEW ... RUNNING, then FINISHED, FAILED or KILLED); ``finalStatus`` says how the application
master ended it (UNDEFINED while it runs, then SUCCEEDED, FAILED or KILLED). An application is
active while its state is one of :data:`ACTIVE_STATES`; it succeeded only when it is FINISHED
*and* SUCCEEDED - a Spark driver that threw ends FINISHED/FAILED. The mixin's status string is the
state while active and ``<state>/<finalStatus>`` once terminal (``FINISHED/SUCCEEDED``).

What it does not do: no HTTP (see :mod:`~resumable_jobs.providers.spark.yarn.rm_client`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ACTIVE_STATES", "SUCCEEDED_STATUS", "YarnApplicationStatus", "is_active", "is_succeeded"]

#: The application may still run: a retry reconnects to it.
ACTIVE_STATES = frozenset({"NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED", "RUNNING"})
SUCCEEDED_STATUS = "FINISHED/SUCCEEDED"


def is_active(status: str) -> bool:
    return status.upper() in ACTIVE_STATES


def is_succeeded(status: str) -> bool:
    return status.upper() == SUCCEEDED_STATUS


@dataclass(frozen=True)
class YarnApplicationStatus:
    """One application report: state, final status, diagnostics and where its UI is."""

    app_id: str
    yarn_state: str
    final_status: str = "UNDEFINED"
    diagnostics: str = ""
    tracking_url: str | None = None
    tags: tuple[str, ...] = ()
    started_time: int = 0

    @classmethod
    def from_report(cls, app: Mapping[str, Any]) -> YarnApplicationStatus:
        """Read one ``app`` object of ``/ws/v1/cluster/apps[/<id>]``; ``ValueError`` when it has no id or state."""
        if not isinstance(app, Mapping) or not app.get("id") or not app.get("state"):
            raise ValueError(f"not a YARN application report: {app!r}")
        tags = tuple(t.strip() for t in str(app.get("applicationTags") or "").split(",") if t.strip())
        return cls(
            app_id=str(app["id"]),
            yarn_state=str(app["state"]).upper(),
            final_status=str(app.get("finalStatus") or "UNDEFINED").upper(),
            diagnostics=str(app.get("diagnostics") or ""),
            tracking_url=app.get("trackingUrl") or None,
            tags=tags,
            started_time=int(app.get("startedTime") or 0),
        )

    @property
    def state(self) -> str:
        return self.yarn_state if self.active else f"{self.yarn_state}/{self.final_status}"

    @property
    def active(self) -> bool:
        return self.yarn_state in ACTIVE_STATES

    @property
    def succeeded(self) -> bool:
        return self.state == SUCCEEDED_STATUS

    @property
    def terminal(self) -> bool:
        return not self.active

    def describe(self) -> str:
        """``YARN application ... ended FINISHED/FAILED: <diagnostics>``, for errors and logs."""
        text = f"YARN application {self.app_id} ended {self.state}"
        if self.diagnostics.strip():
            text += f": {self.diagnostics.strip()}"
        if self.tracking_url:
            text += f" (see {self.tracking_url})"
        return text
