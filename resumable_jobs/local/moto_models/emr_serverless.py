"""EMR Serverless job runs as AWS documents them, on top of moto's ``emrserverless`` backend.

What it is for: the crash tests of ``EmrServerlessStartJobOperator`` rely on three things moto
5.2 does not model: StartJobRun's ``clientToken`` (an idempotency token: moto stores it and starts
a new run anyway), a run that is still active when a try ends, and a run that fails.

From moto, unchanged: applications (created STARTED, StartApplication/StopApplication),
StartJobRun's validation (execution role account, ``executionTimeoutMinutes`` >= 5), GetJobRun,
ListJobRuns with state filters, CancelJobRun setting CANCELLED (the state then stays CANCELLED),
and a new run's default outcome: SUCCESS as soon as it is read.

Added here (the API reference's StartJobRun, JobRun and JobRunState pages):

* **clientToken**: a second StartJobRun on the same application with a token an earlier run was
  started with starts nothing and answers with that run's ``applicationId``, ``jobRunId`` and
  ``arn`` - what an idempotency token is for (the reference calls it "the client idempotency
  token of the job run to start"; upstream's EMR on EKS fix #69625 describes the same service
  family answering a repeated token with the original run). The reference gives no expiry for
  tokens, so none is modelled.
* **States**: a run walks SUBMITTED -> PENDING -> SCHEDULED -> RUNNING -> SUCCESS under moto's
  state manager, model :data:`MODEL_NAME` (default progression ``immediate``: SUCCESS at the
  first read, as moto answers). ``{"progression": "hold"}`` keeps runs RUNNING until the test
  sets another progression; ``{"progression": "fail"}`` ends them FAILED with ``stateDetails``.
  See :mod:`resumable_jobs.local.moto_models._job_runs`.

What it does not do: CANCELLING as a visible intermediate state, QUEUED, application capacity,
or a ConflictException for a token reused with different parameters (the reference lists no
such error for StartJobRun).
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.local.moto_models._job_runs import find_by_token, install_state_property

__all__ = ["MODEL_NAME", "install"]

#: moto state-manager model of EMR Serverless job runs.
MODEL_NAME = "emr-serverless::job-run"
TRANSITIONS = [("SUBMITTED", "PENDING"), ("PENDING", "SCHEDULED"), ("SCHEDULED", "RUNNING"), ("RUNNING", "SUCCESS")]
FAILURE_DETAILS = "Job run failed (stand-in progression 'fail')."


def _mark_failed(run: Any) -> None:
    run.state_details = FAILURE_DETAILS


def install() -> None:
    from moto.emrserverless import models
    from moto.moto_api import state_manager

    backend_class = models.EMRServerlessBackend
    if getattr(backend_class, "_rj_installed", False):
        return
    install_state_property(
        models.JobRun,
        model_name=MODEL_NAME,
        transitions=TRANSITIONS,
        running="RUNNING",
        failed="FAILED",
        on_failed=_mark_failed,
    )
    state_manager.register_default_transition(MODEL_NAME, {"progression": "immediate"})

    start_job_run = backend_class.start_job_run

    def start_job_run_once_per_token(self: Any, application_id: str, client_token: str, *args: Any, **kwargs: Any):
        existing = find_by_token(self.job_runs.get(application_id, []), client_token)
        if existing is not None:
            return existing
        return start_job_run(self, application_id, client_token, *args, **kwargs)

    backend_class.start_job_run = start_job_run_once_per_token
    backend_class._rj_installed = True
