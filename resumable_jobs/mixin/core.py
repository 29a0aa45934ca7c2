"""The durable mixin for Airflow 3.3 and later.

What it is for: making a job-submitting operator crash-safe on every path - synchronous polling,
deferral to a trigger, and submit-only (``wait_for_termination=False``) - through one entry point,
``execute_resumable(context)``. A retry reconnects to the job its crashed predecessor submitted
instead of starting a duplicate.

How it works: each try loads the operator's checkpoint from ``task_state_store``, asks
:func:`resumable_jobs.mixin.decision.decide` what to do (the decision table of DESIGN.md), writes
the new generation's checkpoint *before* submitting, persists the job id right after, and then
polls, defers or returns the id (:class:`ResumableJobContract`). ``execute_complete`` and the
synchronous path both end by marking the generation completed, which is how a cleared task is
told apart from a retry.

What it does not do: it cannot close the submit-to-persist window on systems that offer neither
a token lookup (``find_job``) nor token deduplication; there a crash in that window still
resubmits. It does not free the worker while polling (use ``deferrable=True`` for that).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.sdk import ResumableJobMixin as _SdkResumableJobMixin

from resumable_jobs.mixin import durable_marker, telemetry
from resumable_jobs.mixin.checkpoint import CheckpointStore, IdTooLargeToPersist, ensure_json_id, is_empty_id
from resumable_jobs.mixin.contract import SKIPPED_INITS, ResumableJobContract
from resumable_jobs.mixin.decision import Action, Attempt, Decision, JobState, Reason, decide, generation_for
from resumable_jobs.mixin.digests import digest
from resumable_jobs.mixin.errors import ExternalIdTooLarge, JobNotFoundError
from resumable_jobs.mixin.record import Checkpoint, Completion
from resumable_jobs.mixin.record_reader import shorten
from resumable_jobs.mixin.tokens import build_token, new_nonce

if TYPE_CHECKING:
    from airflow.sdk import Context

# Its __init__ forwards default_args to object() when BaseOperator precedes it; ours replaces it.
SKIPPED_INITS.add(_SdkResumableJobMixin)


class ResumableJobMixin(ResumableJobContract, _SdkResumableJobMixin):
    """Crash-safe job submission on Airflow >= 3.3 (see the module docstring).

    Subclass it next to ``BaseOperator`` (either order works), set ``external_id_key``,
    implement the six methods, and make ``execute`` return ``self.execute_resumable(context)``.
    ``durable=False`` (also through ``default_args``) turns every store interaction off.
    """

    _resumable_mixin_layer = True
    durable: bool = True
    _resumable_checkpoint: Checkpoint | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if durable_marker.is_own_operator(cls):
            durable_marker.declare(cls)  # upstream's marker, read by the Airflow Registry

    def execute_resumable(self, context: Context) -> Any:
        """Decide which job this try follows, then poll it, defer to it or return its id."""
        self._check_rendered_parameters()
        if self.resumable_deferrable and self.resumable_waits and not self.supports_deferral():
            self._validate_resumable_configuration()  # raises: never fall back to polling silently
        if not self.durable:
            return self._run_without_store(context)
        operator = type(self).__name__
        task_state_store = context.get("task_state_store")
        if task_state_store is None:
            with telemetry.decision_span(operator, self.external_id_key) as span:
                telemetry.record_no_store(span)
                telemetry.log_no_store(self.log)
            return self._run_without_store(context)

        self._begin_try(context, crash_recovery=True)
        ti = context.get("ti")
        store = CheckpointStore(task_state_store, self.external_id_key, ti=ti)
        with telemetry.decision_span(operator, self.external_id_key) as span:
            stored_id, checkpoint = store.load()  # raises on a record it cannot use: nothing submitted
            if is_empty_id(stored_id):
                self.log.warning(
                    "task_state_store key %r holds an empty id (%r), which names no job: treating it as no stored id",
                    self.external_id_key,
                    stored_id,
                )
                stored_id = None
            self._resumable_checkpoint = checkpoint
            fingerprint = self._fingerprint_digest(context)
            decision = decide(
                stored_id=stored_id,
                checkpoint=checkpoint,
                fingerprint=fingerprint,
                attempt=Attempt(getattr(ti, "try_number", None), getattr(ti, "max_tries", None)),
                probe=lambda external_id: self._probe(external_id, context),
                find_orphan=lambda cp: self._find_orphan(cp, context),
                cancelled=store.was_cancelled,
            )
            generation = generation_for(decision, checkpoint)
            telemetry.record_decision(span, decision, generation)
        telemetry.count(decision, telemetry.metric_tags(operator, ti))
        telemetry.log_decision(self.log, decision, external_id_key=self.external_id_key, generation=generation)

        if decision.action is Action.SUBMIT:
            external_id = self._submit(decision, stored_id, checkpoint, fingerprint, store, context)
        else:
            external_id = decision.external_id
            if decision.adopted:
                self._persist_id(store, external_id)
        return self._continue_with_job(
            external_id, context, already_succeeded=decision.action is Action.ALREADY_SUCCEEDED
        )

    # ----------------------------------------------------------------- steps
    def _submit(
        self,
        decision: Decision,
        stored_id: Any,
        checkpoint: Checkpoint | None,
        fingerprint: str | None,
        store: CheckpointStore,
        context: Context,
    ) -> Any:
        if decision.reason is Reason.REQUEST_CHANGED:
            old = decision.previous_id
            self.log.warning(
                "Not reconnecting to %s: %s (stored fingerprint %s, now %s). %s is not cancelled: it is "
                "left running if it still runs, and this task no longer follows it (cancel it in the "
                "external system if it must not finish). Submitting a new job.",
                f"job {shorten(old)}" if old is not None else "the job an earlier try was submitting",
                decision.reason.value,
                checkpoint.fingerprint if checkpoint else None,
                fingerprint,
                f"Job {shorten(old)}" if old is not None else "Any job that try started",
            )
        if decision.new_generation or checkpoint is None:
            checkpoint = Checkpoint.following(
                checkpoint,
                nonce=new_nonce(),
                fingerprint=fingerprint,
                # whatever the id key holds now belongs to an earlier generation: a retry that
                # still finds it there knows this generation's id was never persisted
                superseded=stored_id,
            )
            store.save_checkpoint(checkpoint)  # before submit_job: a retry must know the token
            self._resumable_checkpoint = checkpoint
        self.submission_token = self._token(checkpoint, self._context_ti(context))
        self.submission_generation = checkpoint.generation

        # A SIGTERM between here and the id's write is acted on once the id is safe (or known).
        with self._job_lifecycle.critical():
            external_id = self.submit_job(context)
            if external_id is None:
                self._log_submission(None)
                return None
            self._job_lifecycle.follow(external_id)  # on_kill can cancel it before it is persisted
            ensure_json_id(external_id, owner=type(self).__name__)
            self._persist_id(store, external_id)
        telemetry.log_persisted(
            self.log, decision, external_id, external_id_key=self.external_id_key, generation=checkpoint.generation
        )
        return external_id

    def _fingerprint_digest(self, context: Context) -> str | None:
        """The sha256 digest of ``request_fingerprint()``: the record and the log never hold the request."""
        fingerprint = self.request_fingerprint(context)
        return None if fingerprint is None else digest(fingerprint)

    def _persist_id(self, store: CheckpointStore, external_id: Any) -> None:
        """Write the id; one the store refuses for its size is cancelled, since no retry could find it."""
        try:
            store.save_external_id(external_id)
        except IdTooLargeToPersist as too_large:
            self._job_lifecycle.cancel_now(
                external_id,
                f"task_state_store cannot hold its id ({too_large}), so no retry could find it",
                "as its id cannot be persisted",
            )
            raise ExternalIdTooLarge(
                f"Job {shorten(external_id)} cannot be followed across tries: task_state_store refused its id "
                f"under {store.id_key!r} ({too_large}). No retry could find the job, so it was cancelled (the "
                "log says whether the cancellation went through) and the task fails without retrying. Raise "
                "[state_store] max_value_storage_bytes (0 means no limit) or configure a [workers] "
                "state_store_backend that holds large values, then clear the task."
            ) from too_large

    def _resumes_with_store(self, context: Context) -> bool:
        return bool(self.durable) and context.get("task_state_store") is not None

    def _probe(self, external_id: Any, context: Context) -> tuple[JobState, str | None]:
        try:
            status = self.get_job_status(external_id, context)
        except JobNotFoundError:
            return JobState.NOT_FOUND, None
        if self.is_job_active(status):
            return JobState.ACTIVE, status
        if self.is_job_succeeded(status):
            return JobState.SUCCEEDED, status
        return JobState.ENDED, status

    def _find_orphan(self, checkpoint: Checkpoint, context: Context) -> Any:
        token = self._token(checkpoint, self._context_ti(context))
        found = self.find_job(token, context)
        if found is not None:
            telemetry.log_found_by_token(
                self.log, found, external_id_key=self.external_id_key, generation=checkpoint.generation
            )
        return found

    def _record_task_completion(self, external_id: Any, context: Context) -> None:
        task_state_store = context.get("task_state_store")
        if not self.durable or task_state_store is None or external_id is None:
            return
        ti = self._context_ti(context)
        store = CheckpointStore(task_state_store, self.external_id_key, ti=ti)
        # Loaded earlier in this try on the sync and submit-only paths; execute_complete runs in a
        # fresh process after deferral and reads it back.
        checkpoint = getattr(self, "_resumable_checkpoint", None) or store.load_checkpoint(external_id)
        if checkpoint is None:
            # A job stored by another operator (upstream, before a migration): start bookkeeping.
            checkpoint = Checkpoint(generation=0, nonce=new_nonce())
        store.save_checkpoint(
            checkpoint.completed_with(
                Completion.of(
                    external_id,
                    try_number=getattr(ti, "try_number", None),
                    max_tries=getattr(ti, "max_tries", None),
                )
            )
        )

    def _remember_cancelled(self, external_id: Any, context: Context | None) -> None:
        """After a cancel on purpose: the next try of this task instance must not reconnect to the job."""
        task_state_store = context.get("task_state_store") if context is not None else None
        if not self.durable or task_state_store is None or external_id is None:
            return  # a failure callback's context has no store: nothing follows the job there anyway
        store = CheckpointStore(task_state_store, self.external_id_key, ti=self._context_ti(context))
        try:
            store.save_cancelled(external_id)
        except Exception as err:  # noqa: BLE001 - the cancel went through; this only spares the next try
            self.log.warning(
                "Cancelled job %r but could not record it under %r (%s: %s); a try that finds it still "
                "winding down may reconnect to it",
                external_id,
                store.cancelled_key,
                type(err).__name__,
                err,
            )

    @staticmethod
    def _context_ti(context: Context) -> Any:
        return context.get("ti")

    def _token(self, checkpoint: Checkpoint, ti: Any) -> str:
        return build_token(
            nonce=checkpoint.nonce,
            generation=checkpoint.generation,
            task_id=getattr(ti, "task_id", None) or getattr(self, "task_id", None),
            map_index=getattr(ti, "map_index", None),
        )
