"""Carrying out the job-lifecycle rule for one operator's try: keep the job, or cancel it.

What it is for: :mod:`resumable_jobs.mixin.lifecycle` says *what* to do when a try ends early;
this module does it, at the right moment, exactly once per try, for every operator. It is why
no operator writes its own ``on_kill``: operators implement ``cancel_job(external_id, context)``
(the cancellation call alone) and the mixin decides when to call it.

How it works: one :class:`JobLifecycle` per operator instance follows the try - the job it
follows (remembered the moment ``submit_job`` returns, before the id is persisted), whether the
job already finished, and whether a verdict was already carried out (a second SIGTERM, a
failure callback after an in-process cancel: each acts once). Three entry points:

* :meth:`JobLifecycle.on_kill` - Airflow's SIGTERM handler or ``execution_timeout``. A kept job
  ends the try at once with :class:`~resumable_jobs.mixin.errors.WorkerShutdown`, so Airflow
  records a retry now instead of after the grace period's SIGKILL and a heartbeat timeout. A
  SIGTERM that lands at a moment where raising or asking the API server is unsafe - inside
  ``submit_job`` and the write of its id, or while a request to the supervisor is in flight - is
  acted on as soon as that moment is over.
* :meth:`JobLifecycle.after_failure` - the try is failing in-process while the job may be active.
* :func:`cancel_after_final_failure` - Airflow's failure callback: the task instance failed for
  good. It runs in the worker after an in-process failure, and in the dag-processor for a worker
  that died on its last try (heartbeat timeout), where no code of the dead try can run. There
  ``task_state_store`` is not served, so the job id comes from the XCom the try pushed under
  ``external_id_key``.

What it does not do: it never cancels a job the try did not follow, and it never cancels
without a reason in the log.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from resumable_jobs.mixin import own_state
from resumable_jobs.mixin.errors import WorkerShutdown
from resumable_jobs.mixin.lifecycle import (
    Decision,
    KillCause,
    Verdict,
    needs_state,
    verdict_on_failure,
    verdict_on_kill,
)

if TYPE_CHECKING:
    from airflow.sdk import Context

#: How long a postponed SIGTERM waits for a safe moment before the job is simply left running.
POSTPONE_LIMIT = 10.0


def _current_exception() -> BaseException | None:
    return sys.exc_info()[1]


def _is_timeout(error: BaseException | None) -> bool:
    return error is not None and type(error).__name__ == "AirflowTaskTimeout"


def _fails_for_good(error: BaseException | None) -> bool:
    """Exceptions after which Airflow never retries, whatever the retries left."""
    return error is not None and type(error).__name__ in ("AirflowFailException", "AirflowSensorTimeout")


def retry_follows(context: Any, error: BaseException | None = None) -> bool | None:
    """Whether Airflow will run another try of this task instance after this one fails.

    From what the API server sent at the start of the try (``should_retry``), else from
    ``try_number`` and ``max_tries``; None when neither is known.
    """
    if _fails_for_good(error):
        return False
    ti = context.get("ti") if context is not None else None
    if ti is None:
        return None
    from_server = getattr(ti, "_ti_context_from_server", None)
    should_retry = getattr(from_server, "should_retry", None)
    if isinstance(should_retry, bool):
        return should_retry
    try_number, max_tries = getattr(ti, "try_number", None), getattr(ti, "max_tries", None)
    if isinstance(try_number, int) and isinstance(max_tries, int):
        return max_tries != 0 and try_number <= max_tries
    return None


class JobLifecycle:
    """The lifecycle of the job one try follows (see the module docstring)."""

    def __init__(self, operator: Any) -> None:
        self._operator = operator
        self.context: Context | None = None
        #: This try keeps state for its retries (``durable`` on Airflow 3.3+, with a store).
        self.crash_recovery = False
        self.job_id: Any = None
        self.finished = False
        self.handled: Decision | None = None
        self._critical = 0
        self._postponed = False
        self._deciding = False

    # ------------------------------------------------------------------ what the try tells it
    def start_try(self, context: Context, *, crash_recovery: bool) -> None:
        self.context = context
        self.crash_recovery = crash_recovery

    def follow(self, external_id: Any) -> None:
        """The try follows this job from now on (submitted, reconnected, adopted, resumed)."""
        if external_id is not None:
            self.job_id = external_id
            self.finished = False

    def done_with_job(self) -> None:
        """Nothing is left to keep or cancel: the job ended, or a submit-only try handed it on."""
        self.finished = True

    @contextlib.contextmanager
    def critical(self) -> Iterator[None]:
        """Submitting and persisting the id: a SIGTERM here is acted on once the block is over."""
        self._critical += 1
        try:
            yield
        finally:
            self._critical -= 1
        if self._critical == 0 and self._postponed:
            self._postponed = False
            self.on_kill()

    # ------------------------------------------------------------------ on_kill
    def on_kill(self) -> None:
        error = _current_exception()
        cause = KillCause.TIMEOUT if _is_timeout(error) else KillCause.SIGNAL
        if not self._ready_to_decide(cause):
            return
        self._deciding = True  # a second SIGTERM while this one is decided is ignored
        try:
            situation = self._operator._lifecycle_situation(self.context)
            ti_state = own_state.read_own_state(self.context.get("ti")) if needs_state(cause, situation) else None
            decision = self.handled = verdict_on_kill(cause, situation, ti_state)
        finally:
            self._deciding = False
        if decision.cancels:
            self._cancel(decision, "on SIGTERM" if cause is KillCause.SIGNAL else "after execution_timeout")
            return
        message = (
            f"The worker is shutting down: keeping job {self.job_id!r} ({decision.reason}). "
            "This try ends now as a failure that Airflow retries; the retry reconnects to the job "
            "instead of submitting a new one."
        )
        self._operator.log.warning(message)
        raise WorkerShutdown(message)

    def _ready_to_decide(self, cause: KillCause) -> bool:
        """False when there is nothing to decide now (logged where a user would wonder why)."""
        log = self._operator.log
        if self._deciding or self.context is None:
            return False  # deciding already, or the try never reached the mixin (no job)
        if self.handled is not None:
            log.info("on_kill: job %r was already %s (%s)", self.job_id, _done(self.handled), self.handled.reason)
            return False
        if self.finished:
            log.info("on_kill: job %r already finished; nothing to keep or cancel", self.job_id)
            return False
        if cause is KillCause.SIGNAL and (self._critical or own_state.channel_busy()):
            self._postpone()
            return False
        if self.job_id is None:
            log.warning("on_kill (%s) before a job was submitted or found: nothing to cancel", cause.value)
            return False
        return True

    def _postpone(self) -> None:
        """Act on this SIGTERM at the next safe moment (see :meth:`on_kill`)."""
        if self._postponed:
            return
        self._postponed = True
        if self._critical:
            return  # critical() acts when the block ends
        main = threading.main_thread().ident
        handler = signal.getsignal(signal.SIGTERM)

        def resignal_when_safe() -> None:
            deadline = time.monotonic() + POSTPONE_LIMIT
            while own_state.channel_busy() and time.monotonic() < deadline:
                time.sleep(0.02)
            if own_state.channel_busy() or signal.getsignal(signal.SIGTERM) is not handler or main is None:
                self._operator.log.warning(
                    "on_kill: no safe moment to act on SIGTERM within %ss; job %r is left running",
                    POSTPONE_LIMIT,
                    self.job_id,
                )
                return
            self._postponed = False
            signal.pthread_kill(main, signal.SIGTERM)

        threading.Thread(target=resignal_when_safe, name="resumable-on-kill", daemon=True).start()

    # ------------------------------------------------------------------ in-process failure
    def after_failure(self, error: BaseException) -> None:
        """The try is failing with ``error`` while following ``job_id``: keep or cancel the job."""
        if self.handled is not None or self.finished or self.job_id is None or self.context is None:
            return
        if _is_timeout(error) or isinstance(error, WorkerShutdown):
            return  # on_kill decides these
        active = self._operator._job_still_active(self.job_id, self.context)
        if active is False:
            self.finished = True
            return
        situation = self._operator._lifecycle_situation(self.context, error)
        decision = verdict_on_failure(situation)
        self.handled = decision
        if decision.cancels:
            self._cancel(decision, "as the try fails while the job is still active")
        else:
            self._operator.log.warning(
                "The try failed while job %r is still active: keeping it, %s", self.job_id, decision.reason
            )

    # ------------------------------------------------------------------ final failure (callback)
    def after_final_failure(self, context: Context) -> None:
        """Airflow's failure callback: the task instance failed and no retry follows.

        In the process of the failed try this instance knows the job. Anywhere else - the
        dag-processor running the callback of a worker that died on its last try, a worker
        failing a try whose trigger failed - it is a fresh instance, and the job id comes from
        the XCom the try pushed under ``external_id_key``.
        """
        if self.context is None:
            self.context = context
            self._operator._render_for_callback(context)
            self.follow(self._operator._job_id_from_xcom(context))
        if self.finished or self.job_id is None or (self.handled is not None and self.handled.cancels):
            return
        if self._operator._job_still_active(self.job_id, context) is False:
            self.finished = True
            return
        self.handled = Decision(
            Verdict.CANCEL, "the task instance failed for good: nothing in Airflow would follow the job any more"
        )
        self._cancel(self.handled, "after the final failure", context)

    # ------------------------------------------------------------------ the mixin's own reasons
    def cancel_now(self, external_id: Any, reason: str, when: str) -> None:
        """Cancel ``external_id`` at once: the mixin found that nothing could follow it (its id
        cannot be persisted). Once per try, like every other verdict."""
        if self.handled is not None:
            return
        self.follow(external_id)
        self.handled = Decision(Verdict.CANCEL, reason)
        self._cancel(self.handled, when)

    # ------------------------------------------------------------------ acting
    def _cancel(self, decision: Decision, when: str, context: Context | None = None) -> None:
        context = context or self.context
        if cancel_job(self._operator, self.job_id, context, decision, when) and self.crash_recovery:
            self._operator._remember_cancelled(self.job_id, context)
        self.finished = True


def cancel_job(operator: Any, job_id: Any, context: Any, decision: Decision, when: str) -> bool:
    """Call ``operator.cancel_job`` for ``job_id``, logging why; a failing cancel is logged, not raised.

    Returns whether the cancellation was sent.
    """
    log = operator.log
    disabled = operator._cancellation_disabled_reason()
    if disabled:
        log.warning("Not cancelling job %r %s (%s) because %s", job_id, when, decision.reason, disabled)
        return False
    log.warning("Cancelling job %r %s: %s", job_id, when, decision.reason)
    try:
        operator.cancel_job(job_id, context)
    except NotImplementedError:
        log.warning(
            "%s does not implement cancel_job(external_id, context): job %r is left running",
            type(operator).__name__,
            job_id,
        )
        return False
    except Exception as err:  # noqa: BLE001 - on_kill and callbacks must not fail over a cancel
        log.error("Could not cancel job %r: %s: %s", job_id, type(err).__name__, err)
        return False
    return True


def _done(decision: Decision) -> str:
    return "cancelled" if decision.cancels else "kept"


def failure_callbacks_can_run() -> bool:
    """False inside ``airflow dags test``, where the mixin adds no failure callback.

    ``dags test`` has no callback sink: when a task it runs with ``--use-executor`` is killed
    and the task has any failure callback, Airflow 3.3's scheduler loop raises "Callback sink
    is not ready" and the command stops before the retry. Without a dag-processor nothing
    would run the callback there anyway, and an in-process last try still cancels its job
    (:meth:`JobLifecycle.after_failure`).
    """
    return sys.argv[1:3] != ["dags", "test"]


class CancelAfterFinalFailure:
    """The failure callback the mixin adds to every resumable operator (see the module docstring).

    Stateless, so operators can be copied and callbacks compared; the operator comes from the
    callback's context.
    """

    __name__ = "resumable_jobs_cancel_after_final_failure"

    def __call__(self, context: Context) -> None:
        task = context.get("task")
        if task is None or not hasattr(task, "_after_final_failure"):
            return
        task._after_final_failure(context)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CancelAfterFinalFailure)

    def __hash__(self) -> int:
        return hash(CancelAfterFinalFailure)

    def __repr__(self) -> str:
        return f"{type(self).__module__}.{type(self).__qualname__}()"


CANCEL_AFTER_FINAL_FAILURE = CancelAfterFinalFailure()
