"""Exceptions shared by the mixin, the shim and the provider operators.

Why our own types: the decision table treats "the external system no longer knows this id" as its
own outcome (submit a new generation), distinct from a store error or a network error, which must
propagate. A dedicated exception is the only unambiguous way for ``get_job_status`` to say it.
"""

from __future__ import annotations


def _airflow_exception_base() -> type[Exception]:
    try:
        from airflow.sdk.exceptions import AirflowException
    except ImportError:  # pragma: no cover - older Task SDKs
        from airflow.exceptions import AirflowException
    return AirflowException


class JobNotFoundError(LookupError):
    """Raised by ``get_job_status`` when the external system has no job with this id.

    Typical causes: run history expired (Databricks 404), a master restarted without recovery
    (Spark standalone), DescribeJobs no longer lists the id (AWS Batch). The mixin answers with a
    new submission generation; any other exception from ``get_job_status`` propagates unchanged.
    """

    def __init__(self, external_id: object, detail: str = "") -> None:
        self.external_id = external_id
        self.detail = detail
        message = f"job {external_id!r} is not known to the external system"
        super().__init__(f"{message}: {detail}" if detail else message)


class ExternalJobFailed(_airflow_exception_base()):  # type: ignore[misc]
    """The external job ended without success, or its trigger reported an error.

    Subclasses ``AirflowException`` so Airflow's retry handling applies as for any task failure.
    """


class WorkerShutdown(BaseException):
    """This try ends because the worker is shutting down; the job it followed is kept for the retry.

    Raised from ``on_kill`` when a SIGTERM reached a task whose task instance is still running at
    the API server (eviction, deploy, Celery cold shutdown), so the try fails at once and Airflow
    schedules the retry now - instead of the task polling on until the grace period's SIGKILL and
    the scheduler's heartbeat timeout. A ``BaseException``, like ``KeyboardInterrupt``: polling
    code that retries on ``Exception`` (hooks, tenacity) must not swallow it. Airflow's task
    runner treats it as a failure that is retried when retries are left.
    """


__all__ = ["ExternalJobFailed", "JobNotFoundError", "WorkerShutdown"]
