"""Whether the external job outlives the try: the job-lifecycle table of DESIGN.md, in one place.

What it is for: a job belongs to the task instance, not to the worker process that submitted
it. When a try ends early, the job is kept if a retry will reconnect to it and cancelled if
nothing in Airflow will follow it any more. Every operator - ours and users' own - shares this
rule; operators only implement ``cancel_job``.

How it works: two pure functions, one per way a try can end early, each returning a
:class:`Verdict` with the reason that goes into the log line:

* :func:`verdict_on_kill` - ``on_kill`` ran: either ``execution_timeout`` fired, or the task
  process got SIGTERM. A SIGTERM means one of two very different things, told apart by the task
  instance's state at the API server: the task was stopped on purpose (marked failed, success or
  skipped, cleared, deleted, its DAG run marked failed - the supervisor then terminates the
  process), or the worker is going away (eviction, deploy, Celery cold shutdown) while the task
  instance is still ``running`` and a retry will follow.
* :func:`verdict_on_failure` - the try is failing in-process (the poll raised, the trigger
  reported an error) while the job is still active.

Rows (first match wins):

============================================================  =============================
what happened                                                 verdict
============================================================  =============================
``execution_timeout`` fired                                   cancel
no crash recovery (``durable=False``, Airflow < 3.3)          cancel: no retry can reconnect
``cancel_on_worker_shutdown=True``                            cancel (upstream's behaviour)
the task instance was stopped on purpose                      cancel
no retry will follow (the last try)                           cancel
SIGTERM, task instance still running / up for retry           keep: the retry reconnects
SIGTERM, the state could not be read                          keep, and say so
in-process failure, job active, a retry will follow           keep: the retry reconnects
in-process failure, job active, last try                      cancel
============================================================  =============================

What it does not do: no I/O. Reading the task instance's state is
:mod:`resumable_jobs.mixin.own_state`'s job, calling ``cancel_job`` the mixin's.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class KillCause(enum.Enum):
    """Why ``on_kill`` is running."""

    TIMEOUT = "execution_timeout fired"
    SIGNAL = "the task process received SIGTERM"


class Verdict(enum.Enum):
    CANCEL = "cancel"
    KEEP = "keep"


#: Task instance states that mean "stopped on purpose": someone ended this task instance while it
#: ran (``restarting`` is a task cleared while running; ``None`` one cleared and not yet
#: rescheduled). A try that finds its task instance in one of these has nothing left to do.
STOPPED_ON_PURPOSE = frozenset({"failed", "success", "skipped", "upstream_failed", "removed", "restarting", None})

#: States in which the task instance carries on: this try is still the current one, Airflow
#: already scheduled the retry that will reconnect to the job, or a trigger follows it.
CARRIES_ON = frozenset({"running", "up_for_retry", "queued", "scheduled", "deferred", "up_for_reschedule"})


@dataclass(frozen=True)
class TaskInstanceState:
    """What the API server said about this task instance.

    ``readable`` is False when no answer came (API server unreachable or slow, not running
    under Airflow's supervisor); ``detail`` then says why. ``exists`` is False when the task
    instance is gone (deleted while running).
    """

    state: str | None = None
    readable: bool = True
    exists: bool = True
    detail: str = ""

    @classmethod
    def unreadable(cls, detail: str) -> TaskInstanceState:
        return cls(readable=False, detail=detail)

    @classmethod
    def deleted(cls) -> TaskInstanceState:
        return cls(exists=False)

    def describe(self) -> str:
        if not self.readable:
            return f"the task instance's state could not be read ({self.detail})"
        if not self.exists:
            return "the task instance was deleted"
        if self.state == "restarting":
            return "the task instance was cleared while running"
        if self.state is None:
            return "the task instance was cleared (it has no state)"
        return f"the task instance is {self.state!r}"


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str

    @property
    def cancels(self) -> bool:
        return self.verdict is Verdict.CANCEL


@dataclass(frozen=True)
class Situation:
    """What the mixin knows about this try when it must decide."""

    #: ``durable`` is on, Airflow has ``task_state_store`` and this try used it.
    crash_recovery: bool
    #: A retry of this task instance will run after this try (None: cannot tell).
    retry_follows: bool | None
    cancel_on_worker_shutdown: bool = False


def needs_state(cause: KillCause, situation: Situation) -> bool:
    """True when :func:`verdict_on_kill` depends on the task instance's state (ask only then)."""
    return cause is KillCause.SIGNAL and _kill_without_state(cause, situation) is None


def verdict_on_kill(cause: KillCause, situation: Situation, ti_state: TaskInstanceState | None) -> Decision:
    """The verdict for ``on_kill``; ``ti_state`` is needed only where :func:`needs_state` says so."""
    decided = _kill_without_state(cause, situation)
    if decided is not None:
        return decided
    if ti_state is None:
        ti_state = TaskInstanceState.unreadable("it was not asked for")
    if ti_state.readable and (not ti_state.exists or ti_state.state in STOPPED_ON_PURPOSE):
        return Decision(Verdict.CANCEL, f"{ti_state.describe()}: the task was stopped on purpose")
    if not ti_state.readable:
        return Decision(
            Verdict.KEEP,
            f"{ti_state.describe()}; assuming the worker is shutting down, the next try reconnects to it",
        )
    if ti_state.state in CARRIES_ON:
        return Decision(
            Verdict.KEEP,
            f"the worker is shutting down while {ti_state.describe()}: the next try reconnects to it",
        )
    return Decision(  # a state this table does not know: never cancel on a guess
        Verdict.KEEP,
        f"{ti_state.describe()}, which does not say the task was stopped; the next try reconnects to it",
    )


def verdict_on_failure(situation: Situation) -> Decision:
    """The verdict for a try that fails in-process while its job is still active."""
    if not situation.crash_recovery:
        return Decision(Verdict.CANCEL, "crash recovery is off, so no retry can reconnect to it")
    if situation.retry_follows is False:
        return Decision(Verdict.CANCEL, "this was the last try: nothing in Airflow would follow the job any more")
    return Decision(Verdict.KEEP, "a retry follows and reconnects to it")


def _kill_without_state(cause: KillCause, situation: Situation) -> Decision | None:
    if cause is KillCause.TIMEOUT:
        return Decision(Verdict.CANCEL, "execution_timeout fired")
    if not situation.crash_recovery:
        return Decision(Verdict.CANCEL, "crash recovery is off, so no retry can reconnect to it")
    if situation.cancel_on_worker_shutdown:
        return Decision(Verdict.CANCEL, "cancel_on_worker_shutdown=True")
    if situation.retry_follows is False:
        return Decision(Verdict.CANCEL, "this is the last try: no retry would reconnect to it")
    return None
