"""What the production-suite DAGs share: retry settings and a crash on the first try at one point.

Kills done from outside (a worker's SIGKILL, SIGTERM, a triggerer restart) need nothing from the
DAG. Two windows cannot be hit from outside because they last microseconds: between persisting
the job id and ``defer()``, and between persisting it and a submit-only task returning. An
operator that mixes :class:`DieOnFirstTry` in SIGKILLs its own task process there on try 1 - no
cleanup runs, as with an OOM kill - and behaves normally afterwards.

Not a DAG file: ``.airflowignore`` keeps the dag-processor from parsing it; DAG files import it
from the DAGs folder, which Airflow puts on ``sys.path``.
"""

from __future__ import annotations

import datetime
import os
import signal
from typing import Any

RETRY_ARGS = {"retries": 2, "retry_delay": datetime.timedelta(seconds=2)}
START = datetime.datetime(2026, 1, 1)


class DieOnFirstTry:
    """Mix in before the operator class; ``crash_point`` names where try 1 kills itself."""

    crash_point: str | None = None

    def die_on_first_try(self, point: str, context: Any) -> None:
        if self.crash_point == point and context["ti"].try_number == 1:
            self.log.warning("PRODUCTION DRILL: SIGKILL of this task process at %s", point)
            os.kill(os.getpid(), signal.SIGKILL)

    def build_trigger(self, external_id: Any, context: Any) -> Any:
        # called after the job id was persisted, right before defer()
        self.die_on_first_try("before_defer", context)
        return super().build_trigger(external_id, context)

    def on_job_selected(self, external_id: Any, context: Any) -> None:
        super().on_job_selected(external_id, context)
        # the job id is persisted; a submit-only task returns right after this
        if not getattr(self, "wait_for_termination", True):
            self.die_on_first_try("after_persist", context)
