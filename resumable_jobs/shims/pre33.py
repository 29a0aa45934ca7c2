"""The ``ResumableJobMixin`` stand-in for Airflow versions below 3.3.

What it is for: letting one operator class run on Airflow 3.0-3.2, where ``task_state_store``
does not exist. Without a store there is nothing to resume from, so every try submits a new job -
which is exactly what these operators did before crash recovery existed.

How it works: the same contract as the core mixin (:class:`ResumableJobContract`): the same six
methods, hooks, ``deferrable`` and ``wait_for_termination`` handling, ``execute_complete`` and
``on_kill``; only the store-backed decision is missing. An explicit ``durable=`` (also through
``default_args``) warns once per process that crash recovery needs Airflow 3.3.

What it does not do: it never reconnects and never looks jobs up by token; each try gets a fresh,
random ``submission_token`` so a deduplicating system does not hand back an earlier try's job.
"""

from __future__ import annotations

import threading
import warnings
from typing import TYPE_CHECKING, Any

from resumable_jobs.mixin.contract import ResumableJobContract

if TYPE_CHECKING:
    from airflow.sdk import Context

DURABLE_IGNORED_MESSAGE = (
    "durable= has no effect on Airflow {version}: crash recovery (task_state_store, AIP-103) needs "
    "Airflow 3.3 or later, so every try of a resumable operator submits a new job. Upgrade Airflow "
    "to make retries reconnect instead."
)

_warned = threading.Event()


def reset_durable_warning() -> None:
    """Forget that the once-per-process warning was given (for tests)."""
    _warned.clear()


class ResumableJobMixin(ResumableJobContract):
    """Pre-3.3 stand-in: same contract, no store, a new job on every try (see module docstring)."""

    _resumable_mixin_layer = True
    durable: bool = False

    def _accept_durable(self, durable: Any) -> None:
        super()._accept_durable(durable)
        self.durable = False
        if durable is not None and not _warned.is_set():
            _warned.set()
            from resumable_jobs.shims.airflow_version import installed_airflow_version

            warnings.warn(
                DURABLE_IGNORED_MESSAGE.format(version=installed_airflow_version()),
                UserWarning,
                stacklevel=5,
            )

    def execute_resumable(self, context: Context) -> Any:
        """Submit a new job, then poll it, defer to it or return its id."""
        self._check_rendered_parameters()
        if self.resumable_deferrable and self.resumable_waits and not self.supports_deferral():
            self._validate_resumable_configuration()
        return self._run_without_store(context)
