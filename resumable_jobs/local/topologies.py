"""The two deployment topologies of the production crash suite, each with the services it needs.

What it is for: tests and the recovery benchmark ask for "a LocalExecutor deployment" or "a
CeleryExecutor deployment" and get everything that topology runs on, started in order and
stopped in reverse - on failure and on Ctrl-C too.

How it works: :func:`deployment` is a context manager. ``local``: LocalExecutor on SQLite, no
extra service - the scheduler's executor forks a worker process per running task, which is that
task's supervisor. ``celery``: a private PostgreSQL (metadata database and Celery result backend)
and Redis (broker) from :mod:`resumable_jobs.local.postgres` and :mod:`resumable_jobs.local.redis_server`,
and ``celery_workers`` ``airflow celery worker`` processes (two by default), whose prefork pool
children are the task supervisors. Both run the api-server, scheduler, dag-processor and
triggerer as separate daemons (:class:`resumable_jobs.local.airflow_deployment.AirflowDeployment`).

What it does not do: Kubernetes, several schedulers, or remote logging.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from resumable_jobs.local.airflow_config import CELERY_EXECUTOR, LOCAL_EXECUTOR
from resumable_jobs.local.airflow_deployment import AirflowDeployment

__all__ = ["TOPOLOGIES", "deployment"]

TOPOLOGIES = ("local", "celery")


@contextlib.contextmanager
def deployment(
    topology: str,
    dags_folder: Path,
    *,
    extra_env: dict[str, str] | None = None,
    heartbeat_timeout: int = 20,
    celery_workers: int = 2,
) -> Iterator[AirflowDeployment]:
    """Start the ``local`` or ``celery`` topology with its services; stop everything on exit."""
    if topology not in TOPOLOGIES:
        raise ValueError(f"unknown topology {topology!r}; one of {TOPOLOGIES}")
    with contextlib.ExitStack() as stack:
        options: dict[str, object] = {"executor": LOCAL_EXECUTOR}
        if topology == "celery":
            from resumable_jobs.local.postgres import LocalPostgres
            from resumable_jobs.local.redis_server import LocalRedis

            postgres = stack.enter_context(LocalPostgres())
            redis = stack.enter_context(LocalRedis())
            options = {
                "executor": CELERY_EXECUTOR,
                "database_url": postgres.url,
                "broker_url": redis.url,
                "result_backend": postgres.celery_result_backend,
                "celery_workers": celery_workers,
            }
        airflow = AirflowDeployment(
            dags_folder,
            extra_env=extra_env,
            heartbeat_timeout=heartbeat_timeout,
            **options,  # type: ignore[arg-type]
        )
        yield stack.enter_context(airflow)
