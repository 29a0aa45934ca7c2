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

from resumable_jobs.mixin import telemetry
from resumable_jobs.mixin.checkpoint import Checkpoint, CheckpointStore, Completion, ensure_json_id
from resumable_jobs.mixin.contract import SKIPPED_INITS, ResumableJobContract
from resumable_jobs.mixin.decision import Action, Attempt, Decision, JobState, Reason, decide
from resumable_jobs.mixin.errors import JobNotFoundError
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

    def execute_resumable(self, context: Context) -> Any:
        """Decide which job this try follows, then poll it, defer to it or return its id."""
        if self.resumable_deferrable and self.resumable_waits and not self.supports_deferral():
            self._validate_resumable_configuration()  # raises: never fall back to polling silently
        if not self.durable:
            return self._run_without_store(context)
        task_state_store = context.get("task_state_store")
        if task_state_store is None:
            self.log.warning(
                "task_state_store is not in the context: crash recovery is off for this try "
                "(a retry will submit a new job)"
            )
            return self._run_without_store(context)

        self._begin_try(context, crash_recovery=True)
        store = CheckpointStore(task_state_store, self.external_id_key)
        stored_id, checkpoint = store.load()
        self._resumable_checkpoint = checkpoint
        fingerprint = self.request_fingerprint(context)
        ti = context.get("ti")
        decision = decide(
            stored_id=stored_id,
            checkpoint=checkpoint,
            fingerprint=fingerprint,
            attempt=Attempt(getattr(ti, "try_number", None), getattr(ti, "max_tries", None)),
            probe=lambda external_id: self._probe(external_id, context),
            find_orphan=lambda cp: self._find_orphan(cp, context),
        )
        telemetry.emit(decision, type(self).__name__)

        if decision.action is Action.SUBMIT:
            external_id = self._submit(decision, stored_id, checkpoint, fingerprint, store, context)
        else:
            self.log.info(telemetry.describe_resume(decision))
            external_id = decision.external_id
            if decision.adopted:
                store.save_external_id(external_id)
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
            self.log.warning(
                "Not reconnecting to %s: %s (stored fingerprint %r, now %r); submitting a new job",
                f"job {decision.previous_id!r}"
                if decision.previous_id is not None
                else "the job an earlier try was submitting",
                decision.reason.value,
                checkpoint.fingerprint if checkpoint else None,
                fingerprint,
            )
        if decision.new_generation or checkpoint is None:
            checkpoint = Checkpoint(
                generation=(checkpoint.generation + 1) if checkpoint else 1,
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
            store.save_external_id(external_id)
        self.log.info(telemetry.describe_submission(decision, external_id, checkpoint.generation))
        return external_id

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
            self.log.info("Found job %r submitted with token %s by an earlier try", found, token)
        return found

    def _record_task_completion(self, external_id: Any, context: Context) -> None:
        task_state_store = context.get("task_state_store")
        if not self.durable or task_state_store is None or external_id is None:
            return
        store = CheckpointStore(task_state_store, self.external_id_key)
        # Loaded earlier in this try on the sync and submit-only paths; execute_complete runs in a
        # fresh process after deferral and reads it back.
        checkpoint = getattr(self, "_resumable_checkpoint", None) or store.load_checkpoint()
        if checkpoint is None:
            # A job stored by another operator (upstream, before a migration): start bookkeeping.
            checkpoint = Checkpoint(generation=0, nonce=new_nonce())
        ti = self._context_ti(context)
        store.save_checkpoint(
            checkpoint.completed_with(
                Completion(
                    external_id=external_id,
                    try_number=getattr(ti, "try_number", None),
                    max_tries=getattr(ti, "max_tries", None),
                )
            )
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
