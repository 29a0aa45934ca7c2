"""One log line and one metric per decision, with upstream's metric names.

Dashboards built on ``airflow.sdk.ResumableJobMixin`` count ``resumable_job.*`` metrics; keeping
the names means switching operators does not blank those panels. Metrics go through Airflow's
own stats client, resolved lazily because its module location moved between releases; where no
client can be found, metrics are skipped (logging still tells the story).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from resumable_jobs.mixin.decision import Action, Decision, Reason

FRESH_SUBMIT = "resumable_job.fresh_submit"
RECONNECT_ATTEMPT = "resumable_job.reconnect_attempt"
RECONNECT_SUCCESS = "resumable_job.reconnect_success"
ALREADY_SUCCEEDED = "resumable_job.already_succeeded"
TERMINAL_RESUBMIT = "resumable_job.terminal_resubmit"

_log = logging.getLogger(__name__)


@functools.cache
def _stats() -> Any:
    for module, attr in (
        ("airflow.sdk._shared.observability.metrics.stats", None),
        ("airflow.sdk.observability.stats", "Stats"),
        ("airflow.stats", "Stats"),
    ):
        try:
            imported = __import__(module, fromlist=["_"])
        except ImportError:
            continue
        return getattr(imported, attr) if attr else imported
    _log.debug("No Airflow stats client found; resumable_job metrics are not emitted")
    return None


def incr(name: str, tags: dict[str, str]) -> None:
    stats = _stats()
    if stats is not None:
        stats.incr(name, tags=tags)


def metric_names(decision: Decision) -> list[str]:
    """The upstream counters a decision increments, in order."""
    if decision.reason in (Reason.FRESH, Reason.RETRY_SUBMISSION):
        return [FRESH_SUBMIT]
    names = [RECONNECT_ATTEMPT]
    if decision.action is Action.RECONNECT:
        names.append(RECONNECT_SUCCESS)
    elif decision.action is Action.ALREADY_SUCCEEDED:
        names.append(ALREADY_SUCCEEDED)
    else:
        names.append(TERMINAL_RESUBMIT)
    return names


def emit(decision: Decision, operator: str) -> None:
    for name in metric_names(decision):
        incr(name, {"operator": operator})


def describe_submission(decision: Decision, external_id: Any, generation: int) -> str:
    """The INFO line written once a submit decision has produced a job id."""
    if decision.reason is Reason.FRESH and decision.previous_id is None:
        why = decision.reason.value
    elif decision.previous_id is not None:
        status = f" ({decision.status})" if decision.status else ""
        why = f"{decision.reason.value}: replaces job {decision.previous_id!r}{status}"
    else:
        why = decision.reason.value
    return f"Submitted job {external_id!r} (generation {generation}): {why}"


def describe_resume(decision: Decision) -> str:
    """The INFO line for a decision that does not submit."""
    status = f" (status {decision.status})" if decision.status else ""
    found = " found by its submission token" if decision.adopted else ""
    if decision.action is Action.RECONNECT:
        return f"Reconnecting to job {decision.external_id!r}{found}{status}: {decision.reason.value}; not resubmitting"
    return f"Job {decision.external_id!r}{found} already succeeded{status}: returning its result without resubmitting"
