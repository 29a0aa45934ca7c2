"""EMR on EKS (``emr-containers``) job runs as AWS documents them, on top of moto's backend.

What it is for: the crash tests of ``EmrContainerOperator`` rely on StartJobRun's ``clientToken``
(an idempotency token: moto 5.2 stores it and starts a new run anyway) and on runs that finish -
moto leaves every run RUNNING for ever - or fail.

From moto, unchanged: virtual clusters, StartJobRun's validation (the virtual cluster exists, the
release label looks like ``emr-6.x.0-latest``), DescribeJobRun, ListJobRuns with state and name
filters, and CancelJobRun: CANCELLED with ``stateDetails``, and ValidationException for a run that
already ended. A new run's default: RUNNING until the test says otherwise (moto's behaviour).

Added here (the API reference's StartJobRun, JobRun and JobRunState pages):

* **clientToken**: a second StartJobRun on the same virtual cluster with a token an earlier run
  was started with starts nothing and answers with that run's ``id``, ``name``, ``arn`` and
  ``virtualClusterId`` - what upstream's fix #69625 describes EMR on EKS doing ("EMR on EKS
  returned the original job run instead of starting a new one"). No token expiry is documented,
  so none is modelled.
* **States**: a run walks PENDING -> SUBMITTED -> RUNNING -> COMPLETED under moto's state
  manager, model :data:`MODEL_NAME`. The default progression is ``hold`` (RUNNING until released,
  as moto leaves it); ``{"progression": "immediate"}`` completes runs at their next read, and
  ``{"progression": "fail"}`` ends them FAILED with ``failureReason`` USER_ERROR and
  ``stateDetails``. See :mod:`resumable_jobs.local.moto_models._job_runs`.

What it does not do: job templates, retry policies, CANCEL_PENDING as a visible state, or the
pods EMR on EKS would start in the EKS namespace.
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.local.moto_models._job_runs import HOLD, find_by_token, install_state_property

__all__ = ["MODEL_NAME", "install"]

#: moto state-manager model of EMR on EKS job runs.
MODEL_NAME = "emr-containers::job-run"
TRANSITIONS = [("PENDING", "SUBMITTED"), ("SUBMITTED", "RUNNING"), ("RUNNING", "COMPLETED")]
FAILURE_REASON = "USER_ERROR"
FAILURE_DETAILS = "Job run failed (stand-in progression 'fail')."


def _mark_failed(run: Any) -> None:
    run.failure_reason = FAILURE_REASON
    run.state_details = FAILURE_DETAILS


def install() -> None:
    from moto.emrcontainers import models
    from moto.moto_api import state_manager

    backend_class = models.EMRContainersBackend
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
    state_manager.register_default_transition(MODEL_NAME, {"progression": HOLD})

    start_job_run = backend_class.start_job_run

    def start_job_run_once_per_token(self: Any, *args: Any, **kwargs: Any):
        cluster, token = kwargs.get("virtual_cluster_id"), kwargs.get("client_token")
        runs = [run for run in self.job_runs.values() if run.virtual_cluster_id == cluster]
        existing = find_by_token(runs, token)
        if existing is not None:
            return existing
        return start_job_run(self, *args, **kwargs)

    backend_class.start_job_run = start_job_run_once_per_token
    backend_class._rj_installed = True
