"""The contract every resumable operator implements, shared by the core mixin and the shim.

What it is for: one set of names - the six methods of spec section 5, ``external_id_key`` and the
optional hooks (``build_trigger``, ``find_job``, ``request_fingerprint``) - that an operator
implements once and that behave the same on every Airflow version. Airflow 3.3+ gets
:class:`resumable_jobs.mixin.core.ResumableJobMixin` (durable); older versions get
:class:`resumable_jobs.shims.pre33.ResumableJobMixin` (always submits). Both inherit from here.

How it works: this class owns what does not depend on the store - construction checks, the three
execution modes once a job id is known (poll, defer, or return the id), ``execute_complete`` for
trigger events, the store-less path, and the job's lifecycle (``on_kill``, a try failing while
its job runs, the failure callback: :mod:`resumable_jobs.mixin.job_lifecycle`), so operators
implement ``cancel_job`` and never ``on_kill``. The subclasses own the decision of *which* job id
a try continues with.

What it does not do: it never talks to ``task_state_store``; that is the core mixin's job alone.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from resumable_jobs.mixin import construction, parameters
from resumable_jobs.mixin.checkpoint import validate_external_id_key
from resumable_jobs.mixin.errors import ExternalJobFailed, JobNotFoundError
from resumable_jobs.mixin.job_lifecycle import (
    CANCEL_AFTER_FINAL_FAILURE,
    JobLifecycle,
    failure_callbacks_can_run,
    retry_follows,
)
from resumable_jobs.mixin.lifecycle import Situation
from resumable_jobs.mixin.tokens import one_off_token

if TYPE_CHECKING:
    from pydantic import JsonValue

    from airflow.sdk import Context
    from airflow.triggers.base import BaseTrigger

#: Classes whose ``__init__`` the mixin's constructor steps over (see ``_init_next_after_mixin``).
SKIPPED_INITS: set[type] = set()

#: Event status values ``execute_complete`` understands.
EVENT_SUCCESS = "success"
EVENT_ERROR = "error"


class ResumableJobContract(ABC):
    """Names and mode handling shared by the core mixin and the pre-3.3 shim (see module docstring)."""

    #: Store key of the bare external id. Never rename it on a deployed operator: retries in
    #: flight look the job up under the old name.
    external_id_key: str = "remote_job_id"

    #: Set by the mixin before every ``submit_job`` call: at most 64 characters of
    #: ``[A-Za-z0-9_-]``, stable across the retries of one submission generation.
    submission_token: str | None = None

    #: The submission generation ``submission_token`` belongs to, set with it: 1 for the first
    #: durable submission, +1 after each failed, lost or completed job; 0 on tries that keep no
    #: state (the pre-3.3 shim, ``durable=False``), whose token is new on every try.
    submission_generation: int | None = None

    #: XCom key the mixin pushes the job id under as soon as a try follows a job, on every path
    #: (None: ``external_id_key``). The failure callback of a worker that died on its last try
    #: reads it back to cancel the job; ``do_xcom_push=False`` turns the push off.
    external_id_xcom_key: str | None = None

    #: True for operators whose ``do_xcom_push`` switches something else than "no XCom at all"
    #: (``KubernetesPodOperator``: the XCom sidecar, off by default) and that publish their job's
    #: identity to XCom on every try, as upstream does: the id is then pushed whatever
    #: ``do_xcom_push`` says, so the failure callback of a worker that died on its last try
    #: still finds the job to cancel.
    external_id_xcom_ignores_do_xcom_push: bool = False

    #: The job this try follows, once known (fresh, reconnected, adopted or already succeeded).
    current_external_id: Any = None

    #: Names of the operator's parameters that are poll intervals (seconds between status
    #: checks): each must be a number >= 0, checked at construction with the mode flags
    #: (:mod:`resumable_jobs.mixin.parameters`).
    poll_interval_parameters: tuple[str, ...] = ()

    #: Upstream names of the mode flags this operator also accepts, mapped onto ours (Batch's
    #: ``{"wait_for_completion": "wait_for_termination"}``): when the alias is a template field,
    #: the flag may hold a template until the try renders it.
    flag_aliases: ClassVar[dict[str, str]] = {}

    #: True restores upstream's behaviour on a worker's SIGTERM: cancel the job even though a
    #: retry would reconnect to it (also through ``default_args``).
    cancel_on_worker_shutdown: bool = False

    #: Marks classes that are mixin layers rather than operators (no construction wrapping).
    _resumable_mixin_layer = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        validate_external_id_key(cls.external_id_key, owner=cls.__qualname__)
        if vars(cls).get("_resumable_mixin_layer"):
            return
        construction.install(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Reached with the operator's arguments when the mixin comes before BaseOperator in the
        # bases, and with none when BaseOperator comes first (it calls super().__init__() bare).
        for name in construction.MIXIN_PARAMETERS:
            value = kwargs.pop(name, construction.UNSET)
            if value is not construction.UNSET:
                construction.accept(self, name, value)
        _init_next_after_mixin(self, args, kwargs)

    # ----------------------------------------------------------------- the spec's six methods
    @abstractmethod
    def submit_job(self, context: Context) -> JsonValue:
        """Submit the job and return its external id (JSON-serialisable).

        ``self.submission_token`` is set before this is called; pass it to the external system
        where it accepts one (an idempotency token, a job id, a tag), so ``find_job`` or the
        system's own deduplication can recognise the job on a retry. Return None only when the
        system has no trackable id: the job then runs without crash safety (a WARNING says so).
        """

    @abstractmethod
    def get_job_status(self, external_id: JsonValue, context: Context) -> str:
        """Return the job's raw status string. Raise :class:`JobNotFoundError` for an unknown id."""

    @abstractmethod
    def is_job_active(self, status: str) -> bool:
        """True while the job may still finish: a retry reconnects to it."""

    @abstractmethod
    def is_job_succeeded(self, status: str) -> bool:
        """True when the job finished successfully: a retry returns its result."""

    @abstractmethod
    def poll_until_complete(self, external_id: JsonValue, context: Context) -> None:
        """Block until the job is terminal; raise on failure. Its return value is ignored."""

    @abstractmethod
    def get_job_result(self, external_id: JsonValue, context: Context) -> Any:
        """Return what the task returns after success (every path returns this). None if nothing."""

    # ----------------------------------------------------------------- optional hooks
    def get_submit_only_result(self, external_id: JsonValue, context: Context) -> Any:
        """Return what the task returns in submit-only mode (``wait_for_termination=False``): the id.

        Override it where the upstream operator returns something else without waiting (a list of
        statement ids, a URL): submitting and reconnecting tries then return the same value, and
        the conformance kit's ``assert_crash_safe`` expects it.
        """
        return external_id

    def build_trigger(self, external_id: JsonValue, context: Context) -> BaseTrigger:
        """Return the trigger that waits for ``external_id``; needed for ``deferrable=True``.

        The trigger must fire an event ``{"status": "success" | "error", "external_id": ...,
        "message": str}`` (or the operator overrides ``execute_complete`` to translate its own).
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement build_trigger()")

    def find_job(self, token: str, context: Context) -> JsonValue:
        """Return the id of a job submitted with ``token``, or None.

        Implement it where the external system can be searched (tags, names): it closes the
        window between ``submit_job`` returning and the id being persisted.
        """
        return None

    def request_fingerprint(self, context: Context) -> str | None:
        """Return a string identifying the rendered request, or None to skip the check.

        When it differs from the fingerprint stored with the job, a retry does not reconnect to
        that job (mapped inputs that shifted between retries, an edited DAG) but submits anew.
        """
        return None

    def cancel_job(self, external_id: JsonValue, context: Context) -> None:
        """Cancel the job: the cancellation call alone, no decision.

        The mixin decides when (the job-lifecycle table in DESIGN.md): it calls this when the
        task was stopped on purpose, ``execution_timeout`` fired, or a try fails on its last
        try while the job still runs - and not when a worker shuts down while a retry will
        reconnect to the job. ``context`` may be a callback's context (the dag-processor's, for
        a worker that died on its last try). Without an implementation such jobs are left
        running, with a WARNING.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement cancel_job()")

    def on_job_selected(self, external_id: JsonValue, context: Context) -> None:
        """Called once per try as soon as the job this try follows is known, on every path.

        Providers push the job id and page URL to XCom here, so the links are right whether the
        try submitted the job, reconnected to it, found it already succeeded or resumed from a
        trigger. The default does nothing.
        """

    # ----------------------------------------------------------------- modes
    @property
    def resumable_deferrable(self) -> bool:
        return bool(getattr(self, "deferrable", False))

    @property
    def resumable_waits(self) -> bool:
        return bool(getattr(self, "wait_for_termination", True))

    @classmethod
    def supports_deferral(cls) -> bool:
        return cls.build_trigger is not ResumableJobContract.build_trigger

    def execute_complete(self, context: Context, event: dict[str, Any] | None) -> Any:
        """Resume after the trigger fired: raise on ``"error"``, return the job's result on ``"success"``."""
        if not isinstance(event, dict) or event.get("status") not in (EVENT_SUCCESS, EVENT_ERROR):
            raise ExternalJobFailed(
                f"{type(self).__name__} received an unexpected trigger event {event!r}; expected "
                "{'status': 'success' | 'error', 'external_id': ..., 'message': str}"
            )
        external_id = event.get("external_id")
        self._check_rendered_parameters()
        self._begin_try(context, crash_recovery=self._resumes_with_store(context))
        self._select_job(external_id, context)
        if event["status"] == EVENT_ERROR:
            message = event.get("message") or "the trigger reported an error without a message"
            error = ExternalJobFailed(f"Job {external_id!r} did not succeed: {message}")
            self._job_lifecycle.after_failure(error)
            raise error
        return self._finish_succeeded_job(external_id, context)

    def _select_job(self, external_id: Any, context: Context) -> None:
        self.current_external_id = external_id
        if external_id is not None:
            self._job_lifecycle.follow(external_id)
            # For the failure callback of a worker that died on its last try: the dag-processor
            # that runs it can read XCom, not task_state_store.
            if self.external_id_xcom_ignores_do_xcom_push or getattr(self, "do_xcom_push", True):
                _push_xcom(context, self._job_id_xcom_key, external_id)
            self.on_job_selected(external_id, context)

    @property
    def _job_id_xcom_key(self) -> str:
        return self.external_id_xcom_key or self.external_id_key

    def _continue_with_job(self, external_id: Any, context: Context, *, already_succeeded: bool = False) -> Any:
        """Given the job this try follows, finish the try in the configured mode.

        Submit-only returns ``get_submit_only_result`` (the id by default); a job that already succeeded returns its result; otherwise
        the try defers to the job or polls it, and returns its result.
        """
        self._select_job(external_id, context)
        if not self.resumable_waits:
            self._record_task_completion(external_id, context)
            self._job_lifecycle.done_with_job()  # the downstream sensor follows it from here
            return self.get_submit_only_result(external_id, context)
        if already_succeeded:
            return self._finish_succeeded_job(external_id, context)
        if self.resumable_deferrable:
            trigger = self.build_trigger(external_id, context)
            self._job_lifecycle.done_with_job()  # the trigger follows the job from here
            self.defer(trigger=trigger, method_name="execute_complete")  # type: ignore[attr-defined]
        try:
            self.poll_until_complete(external_id, context)
        except Exception as error:
            self._job_lifecycle.after_failure(error)
            raise
        return self._finish_succeeded_job(external_id, context)

    def _finish_succeeded_job(self, external_id: Any, context: Context) -> Any:
        self._job_lifecycle.done_with_job()
        result = self.get_job_result(external_id, context)
        self._record_task_completion(external_id, context)
        return result

    def _record_task_completion(self, external_id: Any, context: Context) -> None:
        """Hook: the core mixin marks the generation completed; the store-less paths do nothing."""

    def _remember_cancelled(self, external_id: Any, context: Context | None) -> None:
        """Hook: the core mixin records a job cancelled on purpose; the store-less paths do nothing."""

    def _run_without_store(self, context: Context) -> Any:
        """Submit a new job on every try: shim, ``durable=False``, or no ``task_state_store``."""
        ti = context.get("ti")
        self._begin_try(context, crash_recovery=False)
        self.submission_generation = 0
        self.submission_token = one_off_token(
            task_id=getattr(ti, "task_id", None) or getattr(self, "task_id", None),
            map_index=getattr(ti, "map_index", None),
        )
        with self._job_lifecycle.critical():
            external_id = self.submit_job(context)
            self._job_lifecycle.follow(external_id)  # on_kill can cancel it from here on
        self._log_submission(external_id)
        return self._continue_with_job(external_id, context)

    def _log_submission(self, external_id: Any) -> None:
        if external_id is None:
            self.log.warning(  # type: ignore[attr-defined]
                "%s.submit_job() returned no job id: this job cannot be tracked, so a retry will "
                "submit it again (no crash safety for this task)",
                type(self).__name__,
            )
        else:
            self.log.info("Submitted job %r without crash recovery", external_id)  # type: ignore[attr-defined]

    # ----------------------------------------------------------------- the job's lifecycle
    def on_kill(self) -> None:
        """Keep or cancel the job this try follows (the job-lifecycle rule; never override this).

        Airflow calls it on SIGTERM (a worker shutting down, or a task stopped on purpose) and
        when ``execution_timeout`` fires. Operators implement ``cancel_job`` instead.
        """
        self._job_lifecycle.on_kill()

    @property
    def _job_lifecycle(self) -> JobLifecycle:
        # Created on first use at run time, never at DAG parse time, so operators stay copyable.
        lifecycle = self.__dict__.get("_resumable_job_lifecycle")
        if lifecycle is None:
            lifecycle = JobLifecycle(self)
            self.__dict__["_resumable_job_lifecycle"] = lifecycle
        return lifecycle

    def _check_rendered_parameters(self) -> None:
        """Start of a try: the mode flags and poll intervals as rendered (a templated flag is known now)."""
        parameters.check_rendered_parameters(self)
        if self.__dict__.pop("_resumable_flags_templated", False):
            self._validate_resumable_configuration()

    def _begin_try(self, context: Context, *, crash_recovery: bool) -> None:
        self._job_lifecycle.start_try(context, crash_recovery=crash_recovery)

    def _resumes_with_store(self, context: Context) -> bool:
        """Whether a try resumed from a trigger keeps state for its retries (the core mixin's answer)."""
        return False

    def _lifecycle_situation(self, context: Context, error: BaseException | None = None) -> Situation:
        return Situation(
            crash_recovery=self._job_lifecycle.crash_recovery,
            retry_follows=retry_follows(context, error),
            cancel_on_worker_shutdown=bool(self.cancel_on_worker_shutdown),
        )

    def _cancellation_disabled_reason(self) -> str | None:
        """Why this operator must never cancel its job (BigQuery's ``cancel_on_kill=False``), or None."""
        return None

    def _job_still_active(self, external_id: Any, context: Context) -> bool | None:
        """Ask the external system; None when it cannot say (the reason is logged)."""
        try:
            return bool(self.is_job_active(self.get_job_status(external_id, context)))
        except JobNotFoundError:
            return False
        except Exception as err:  # noqa: BLE001 - the caller decides what an unknown status means
            self.log.warning("Could not read the status of job %r: %s: %s", external_id, type(err).__name__, err)  # type: ignore[attr-defined]
            return None

    def _job_id_from_xcom(self, context: Context) -> Any:
        """The job id a try pushed to XCom (see ``_select_job``), or None."""
        ti = context.get("ti")
        if ti is None:
            return None
        map_index = getattr(ti, "map_index", None)
        try:
            kwargs: dict[str, Any] = {"task_ids": ti.task_id, "key": self._job_id_xcom_key}
            if isinstance(map_index, int) and map_index >= 0:
                kwargs["map_indexes"] = map_index
            return ti.xcom_pull(**kwargs)
        except Exception as err:  # noqa: BLE001 - a callback must not fail over a lookup
            self.log.warning("Could not read the job id from XCom %r: %s", self._job_id_xcom_key, err)  # type: ignore[attr-defined]
            return None

    def _render_for_callback(self, context: Context) -> None:
        """Render template fields in a callback's fresh copy of the operator, so ``cancel_job`` sees them."""
        try:
            self.render_template_fields(context)  # type: ignore[attr-defined]
        except Exception as err:  # noqa: BLE001 - unrendered fields are still worth a cancel attempt
            self.log.debug("Could not render template fields for the failure callback: %s", err)  # type: ignore[attr-defined]

    def _after_final_failure(self, context: Context) -> None:
        """The failure callback's work (see :class:`~resumable_jobs.mixin.job_lifecycle.CancelAfterFinalFailure`)."""
        self._job_lifecycle.after_final_failure(context)

    # ----------------------------------------------------------------- construction
    def _accept_durable(self, durable: Any) -> None:
        if durable is None:
            return  # "not given": keep the default
        if not isinstance(durable, bool):
            raise TypeError(
                f"{type(self).__name__}: durable must be True or False (or None for the default: crash "
                f"recovery on where Airflow supports it), got {durable!r} ({type(durable).__name__})"
            )
        self.durable = durable

    def _accept_cancel_on_worker_shutdown(self, value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, bool):
            raise TypeError(f"cancel_on_worker_shutdown must be True or False, got {value!r}")
        self.cancel_on_worker_shutdown = value

    def _finish_resumable_construction(self) -> None:
        """Runs once after the outermost ``__init__``: checks, and the failure callback."""
        if parameters.check_common_parameters(self):
            self.__dict__["_resumable_flags_templated"] = True  # checked again once rendered
        self._validate_resumable_configuration()
        callbacks = list(getattr(self, "on_failure_callback", None) or ())
        if CANCEL_AFTER_FINAL_FAILURE not in callbacks and failure_callbacks_can_run():
            self.on_failure_callback = [*callbacks, CANCEL_AFTER_FINAL_FAILURE]

    def _validate_resumable_configuration(self) -> None:
        """Checks that need the finished operator (runs after the outermost ``__init__``)."""
        validate_external_id_key(self.external_id_key, owner=type(self).__qualname__)
        if self.resumable_deferrable and not self.resumable_waits:
            warnings.warn(
                f"{type(self).__name__}(task_id={getattr(self, 'task_id', '?')!r}): deferrable=True "
                "with wait_for_termination=False defers nothing - the task succeeds as soon as the job "
                "is submitted. Set wait_for_termination=True to wait for the job in the triggerer.",
                UserWarning,
                stacklevel=4,
            )
        elif self.resumable_deferrable and not self.supports_deferral():
            raise ValueError(
                f"{type(self).__name__}(task_id={getattr(self, 'task_id', '?')!r}) has deferrable=True "
                "but does not implement build_trigger(external_id, context), so it cannot defer. "
                "Implement build_trigger or set deferrable=False."
            )


def _push_xcom(context: Any, key: str, value: Any) -> None:
    ti = context.get("ti") if hasattr(context, "get") else None
    # Every RuntimeTaskInstance can push; a test's task-instance stand-in may not (upstream's own
    # suite passes one with only stats_tags), and the push is for the failure callback's benefit.
    if ti is not None and hasattr(ti, "xcom_push"):
        ti.xcom_push(key=key, value=value)


def _init_next_after_mixin(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Call the ``__init__`` that follows the mixin layers in the MRO.

    Skips ``airflow.sdk.ResumableJobMixin.__init__`` (it forwards ``default_args`` to ``object``
    when BaseOperator comes first and then fails) and tolerates reaching ``object`` - the case
    where BaseOperator, earlier in the MRO, has already run.
    """
    mro = type(instance).__mro__
    for klass in mro[mro.index(ResumableJobContract) + 1 :]:
        init = vars(klass).get("__init__")
        if init is None or klass in SKIPPED_INITS:
            continue
        if klass is object:
            kwargs.pop("default_args", None)
            if args or kwargs:
                raise TypeError(f"{type(instance).__name__} got unexpected arguments: {sorted(kwargs)}")
            return
        init(instance, *args, **kwargs)
        return
