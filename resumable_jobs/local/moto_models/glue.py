"""AWS Glue job runs as the crash-safety tests need them: held RUNNING, stopped, counted for concurrency.

What it is for: giving the Glue operator's tests (in-process ``mock_aws`` and the ``moto_server``
process of the Airflow deployments) a Glue API whose job runs behave the way AWS documents in
the three places moto leaves out or simplifies.

Which behaviour comes from where (moto 5.2.5, ``moto/glue/models.py``; the AWS Glue API reference):

* **moto**: CreateJob / GetJob / UpdateJob; StartJobRun storing the run's ``Arguments`` (merged
  over the job's ``DefaultArguments``, ``NonOverridableArguments`` last); GetJobRun and GetJobRuns
  (paged with ``MaxResults`` / ``NextToken``); ``ConcurrentRunsExceededException`` when a job
  already has ``ExecutionProperty.MaxConcurrentRuns`` runs (default 1, as AWS) in STARTING or
  RUNNING; run states driven by moto's state manager (model ``glue::job_run``, transitions
  STARTING -> RUNNING -> SUCCEEDED, default progression ``immediate``: a run reads SUCCEEDED at once).
* **added here**, as the API reference describes it:

  - ``BatchStopJobRun`` (moto does not implement it): each listed run that is still running is
    submitted for stopping - it reads STOPPING once, then STOPPED - and appears under
    ``SuccessfulSubmissions`` (``JobName``, ``JobRunId``); a run id the job does not have, or a
    run that already finished, appears under ``Errors`` with an ``ErrorDetail`` (AWS documents
    the list and its fields, not the codes: ``EntityNotFoundException`` and
    ``InvalidInputException`` are this model's choice). An unknown job name raises
    EntityNotFoundException, as every Glue job call does.
  - ``UpdateJob`` (moto does not implement it; upstream's hook calls it with
    ``update_config=True``): the job's definition takes the ``JobUpdate`` fields, those left out
    are reset (AWS: "unspecified configuration is removed or reset to default values"), and the
    answer is ``{"JobName": ...}``. Tags are not part of it (TagResource, as on AWS).
  - Concurrency counts every run that has not finished (STARTING, RUNNING, STOPPING, WAITING),
    not only STARTING and RUNNING: a run being stopped still holds its slot until it is STOPPED.
  - **Held runs** (a test device, not an AWS behaviour): while the state manager's transition for
    ``glue::job_run`` is ``{"progression": "held"}``, a new run reads RUNNING until it is
    released or stopped. :func:`hold_new_runs` sets that transition in-process; across processes
    POST moto's own ``/moto-api/state-manager/set-transition`` with
    ``{"model_name": "glue::job_run", "transition": {"progression": "held"}}``.
    :func:`release_job_run` ends a held run (SUCCEEDED by default, or any terminal state such as
    FAILED); across processes POST ``/moto-api/resumable-jobs/glue/release-job-run`` with
    ``{"JobRunId": ..., "JobRunState": "SUCCEEDED"}`` (the route this module adds to moto's API;
    :meth:`resumable_jobs.local.moto_server.LocalMotoServer.release_glue_job_run` calls it).

How it works: :func:`install` patches moto's ``FakeJob.start_job_run``, ``FakeJobRun``'s status
and constructor, adds ``batch_stop_job_run`` to ``GlueBackend`` and ``GlueResponse`` (moto
dispatches an action to the response method of the same snake-case name), and adds the release
route to ``moto.moto_api._internal.urls.url_paths`` before moto_server builds its app. A run's
own overrides live in attributes prefixed ``rj_``; everything else stays moto's.

What it does not do: run scripts, write CloudWatch logs (verbose log streaming finds no log
group and says so, as on AWS before a run logged anything), time runs out, retry them
(``MaxRetries``) or model WAITING (Glue Flex). It changes nothing else in moto's Glue.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "ACTIVE_STATES",
    "HELD",
    "MODEL_NAME",
    "RELEASE_ROUTE",
    "hold_new_runs",
    "install",
    "release_job_run",
]

#: moto's state-manager model of Glue job runs.
MODEL_NAME = "glue::job_run"
#: The progression that holds new runs RUNNING until released.
HELD = "held"
#: Run states that occupy one of the job's MaxConcurrentRuns slots.
ACTIVE_STATES = frozenset({"STARTING", "RUNNING", "STOPPING", "WAITING"})
#: The moto-api path of :func:`release_job_run` in a moto_server process.
RELEASE_ROUTE = "/moto-api/resumable-jobs/glue/release-job-run"

_TERMINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "STOPPED", "TIMEOUT", "ERROR", "EXPIRED"})
_INSTALLED = "_resumable_jobs_glue_model"


def install() -> None:
    """Patch moto's Glue (idempotent); see the module docstring."""
    from moto.glue.models import FakeJob, FakeJobRun, GlueBackend
    from moto.glue.responses import GlueResponse
    from moto.moto_api._internal import urls as moto_api_urls

    if getattr(FakeJobRun, _INSTALLED, False):
        return
    _patch_job_run(FakeJobRun)
    _patch_concurrency(FakeJob)
    GlueBackend.batch_stop_job_run = _backend_batch_stop_job_run
    GlueResponse.batch_stop_job_run = _response_batch_stop_job_run
    GlueBackend.update_job = _backend_update_job
    GlueResponse.update_job = _response_update_job
    moto_api_urls.url_paths["{0}" + RELEASE_ROUTE] = _release_route
    setattr(FakeJobRun, _INSTALLED, True)


def hold_new_runs(hold: bool = True) -> None:
    """In-process: runs started from now on stay RUNNING until released (False: moto's default again)."""
    from moto.moto_api import state_manager

    if hold:
        state_manager.set_transition(MODEL_NAME, {"progression": HELD})
    else:
        state_manager.unset_transition(MODEL_NAME)


def release_job_run(run_id: str, state: str = "SUCCEEDED") -> dict[str, Any]:
    """End the held (or still running) run ``run_id`` in ``state``; return its GetJobRun entry.

    Looks in every account and region of the Glue backend. Raises ``KeyError`` for an unknown
    run and ``ValueError`` for a state that is not terminal.
    """
    if state not in _TERMINAL_STATES:
        raise ValueError(f"JobRunState must be one of {sorted(_TERMINAL_STATES)}, got {state!r}")
    run = _find_run(run_id)
    if run is None:
        raise KeyError(f"no Glue job run {run_id!r} in moto")
    if run.status not in _TERMINAL_STATES:
        run.rj_final_state = state
    return run.as_dict()


# ---------------------------------------------------------------- job runs
def _patch_job_run(job_run_class: type) -> None:
    from moto.moto_api import state_manager

    moto_status = job_run_class.status
    moto_init = job_run_class.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        moto_init(self, *args, **kwargs)
        self.rj_held = state_manager.get_transition(MODEL_NAME).get("progression") == HELD
        self.rj_final_state = None
        self.rj_stopping_reads = 0

    def status(self: Any) -> str | None:
        final = getattr(self, "rj_final_state", None)
        if final is not None:
            if self.rj_stopping_reads > 0:
                self.rj_stopping_reads -= 1
                return "STOPPING"
            return final
        if getattr(self, "rj_held", False):
            return "RUNNING"
        return moto_status.fget(self)

    job_run_class.__init__ = __init__
    job_run_class.status = property(status, moto_status.fset)


def _patch_concurrency(job_class: type) -> None:
    from moto.glue.exceptions import ConcurrentRunsExceededException

    moto_start = job_class.start_job_run

    def start_job_run(self: Any, *args: Any, **kwargs: Any) -> str:
        running = sum(1 for run in self.job_runs if run.status in ACTIVE_STATES)
        if running >= (self.execution_property or {}).get("MaxConcurrentRuns", 1):
            raise ConcurrentRunsExceededException(f"Job with name {self.name} already running")
        return moto_start(self, *args, **kwargs)

    job_class.start_job_run = start_job_run


def _find_run(run_id: str) -> Any:
    from moto.glue.models import glue_backends

    for account in list(glue_backends.keys()):
        for region in list(glue_backends[account].keys()):
            for job in glue_backends[account][region].jobs.values():
                for run in job.job_runs:
                    if run.job_run_id == run_id:
                        return run
    return None


# ---------------------------------------------------------------- BatchStopJobRun
def _backend_batch_stop_job_run(self: Any, job_name: str, run_ids: list[str]) -> tuple[list[dict], list[dict]]:
    job = self.get_job(job_name)  # EntityNotFoundException for an unknown job, as AWS
    runs = {run.job_run_id: run for run in job.job_runs}
    stopped: list[dict[str, str]] = []
    errors: list[dict[str, Any]] = []
    for run_id in run_ids:
        run = runs.get(run_id)
        if run is None:
            errors.append(_stop_error(job_name, run_id, "EntityNotFoundException", f"Job run {run_id} not found."))
            continue
        state = run.status
        if state in _TERMINAL_STATES:
            errors.append(
                _stop_error(job_name, run_id, "InvalidInputException", f"Job run {run_id} has already ended: {state}")
            )
            continue
        if state != "STOPPING":
            run.rj_final_state = "STOPPED"
            run.rj_stopping_reads = 1  # the next read sees STOPPING, the ones after STOPPED
        stopped.append({"JobName": job_name, "JobRunId": run_id})
    return stopped, errors


def _stop_error(job_name: str, run_id: str, code: str, message: str) -> dict[str, Any]:
    return {"JobName": job_name, "JobRunId": run_id, "ErrorDetail": {"ErrorCode": code, "ErrorMessage": message}}


def _response_batch_stop_job_run(self: Any) -> Any:
    from moto.core.responses import ActionResult

    stopped, errors = self.glue_backend.batch_stop_job_run(
        self._get_param("JobName"), list(self._get_param("JobRunIds") or [])
    )
    return ActionResult({"SuccessfulSubmissions": stopped, "Errors": errors})


# ---------------------------------------------------------------- UpdateJob
#: JobUpdate field -> FakeJob attribute, and the value a field left out is reset to.
_JOB_UPDATE_FIELDS = {
    "Description": ("description", None),
    "LogUri": ("log_uri", None),
    "Role": ("role", None),
    "ExecutionProperty": ("execution_property", {}),
    "Command": ("command", None),
    "DefaultArguments": ("default_arguments", {}),
    "NonOverridableArguments": ("non_overridable_arguments", None),
    "Connections": ("connections", None),
    "MaxRetries": ("max_retries", None),
    "AllocatedCapacity": ("allocated_capacity", None),
    "Timeout": ("timeout", None),
    "MaxCapacity": ("max_capacity", None),
    "WorkerType": ("worker_type", None),
    "NumberOfWorkers": ("number_of_workers", None),
    "SecurityConfiguration": ("security_configuration", None),
    "NotificationProperty": ("notification_property", None),
    "GlueVersion": ("glue_version", None),
    "CodeGenConfigurationNodes": ("code_gen_configuration_nodes", None),
    "ExecutionClass": ("execution_class", "STANDARD"),
    "SourceControlDetails": ("source_control_details", None),
}


def _backend_update_job(self: Any, name: str, job_update: dict[str, Any]) -> str:
    from moto.core.utils import utcnow

    job = self.get_job(name)  # EntityNotFoundException for an unknown job, as AWS
    for field, (attribute, reset) in _JOB_UPDATE_FIELDS.items():
        setattr(job, attribute, job_update.get(field, reset))
    job.last_modified_on = utcnow()
    return name


def _response_update_job(self: Any) -> Any:
    from moto.core.responses import ActionResult

    name = self.glue_backend.update_job(self._get_param("JobName"), self._get_param("JobUpdate") or {})
    return ActionResult({"JobName": name})


# ---------------------------------------------------------------- the release route (moto_server)
def _release_route(request: Any, full_url: str, headers: Any) -> tuple[int, dict[str, str], str]:
    body = _request_json(request, headers)
    try:
        run = release_job_run(body["JobRunId"], body.get("JobRunState", "SUCCEEDED"))
    except KeyError as missing:
        return 404, {}, json.dumps({"message": str(missing)})
    except ValueError as bad:
        return 400, {}, json.dumps({"message": str(bad)})
    return 200, {"Content-Type": "application/json"}, json.dumps({"JobRun": run}, default=str)


def _request_json(request: Any, headers: Any) -> dict[str, Any]:
    body = getattr(request, "body", None)
    if body is None:  # a werkzeug request (moto_server)
        length = int(headers.get("Content-Length") or 0)
        body = request.environ["wsgi.input"].read(length)
    if isinstance(body, bytes):
        body = body.decode()
    return json.loads(body or "{}")
