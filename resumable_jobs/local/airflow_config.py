"""The configuration of a throwaway multi-process Airflow deployment, as environment variables.

What it is for: every daemon of a local deployment (api-server, scheduler, dag-processor,
triggerer, Celery workers) and every task process must read the same configuration - the same
database, the same JWT secret (tasks authenticate to the Execution API with tokens the scheduler
signs), the same heartbeat timeout (the supervisor paces its heartbeats on it, the scheduler
detects lost workers with it). One function builds that configuration so they cannot drift.

How it works: :func:`deployment_environment` returns ``os.environ`` plus ``AIRFLOW__...`` variables
for a :class:`DeploymentSettings`. The settings that matter for crash drills:

* ``[scheduler] task_instance_heartbeat_timeout`` low (20 s by default) with a short detection
  interval, so a worker that died whole is noticed in well under a minute, not five;
* ``[triggerer] triggerer_health_check_threshold`` low, so a new triggerer takes over the triggers
  of one that was killed within seconds;
* the simple auth manager with every user an admin, so drills call the REST API without tokens;
* log servers on free ports (two deployments on one machine must not fight over 8793/8794).

What it does not do: it writes no ``airflow.cfg`` and never reads the user's own; secrets are
random per deployment and never leave it.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from resumable_jobs.local.net import free_port

__all__ = ["DeploymentSettings", "deployment_environment"]

LOCAL_EXECUTOR = "LocalExecutor"
CELERY_EXECUTOR = "CeleryExecutor"


@dataclass(frozen=True)
class DeploymentSettings:
    """What differs between deployments; everything else is fixed by :func:`deployment_environment`."""

    home: Path
    dags_folder: Path
    api_port: int
    executor: str = LOCAL_EXECUTOR
    #: SQLAlchemy URL of the metadata database; None: SQLite in ``home``.
    database_url: str | None = None
    broker_url: str | None = None
    result_backend: str | None = None
    heartbeat_timeout: int = 20
    heartbeat_detection_interval: float = 3.0
    triggerer_health_check_threshold: int = 10
    worker_concurrency: int = 2
    parallelism: int = 8
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def sql_alchemy_conn(self) -> str:
        return self.database_url or f"sqlite:///{self.home / 'airflow.db'}"

    @property
    def base_log_folder(self) -> Path:
        return self.home / "logs"

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"


def deployment_environment(settings: DeploymentSettings) -> dict[str, str]:
    """The environment every process of the deployment runs with."""
    from cryptography.fernet import Fernet

    env = {key: value for key, value in os.environ.items() if not key.startswith("AIRFLOW__")}
    env.update(
        {
            "AIRFLOW_HOME": str(settings.home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(settings.dags_folder),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__EXECUTOR": settings.executor,
            "AIRFLOW__CORE__PARALLELISM": str(settings.parallelism),
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
            "AIRFLOW__CORE__FERNET_KEY": Fernet.generate_key().decode(),
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{settings.api_url}/execution/",
            "AIRFLOW__API__HOST": "127.0.0.1",
            "AIRFLOW__API__PORT": str(settings.api_port),
            "AIRFLOW__API__BASE_URL": settings.api_url,
            "AIRFLOW__API__WORKERS": "1",
            "AIRFLOW__API__SECRET_KEY": secrets.token_urlsafe(32),
            "AIRFLOW__API_AUTH__JWT_SECRET": secrets.token_urlsafe(32),
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": settings.sql_alchemy_conn,
            "AIRFLOW__LOGGING__BASE_LOG_FOLDER": str(settings.base_log_folder),
            "AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT": str(free_port()),
            "AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT": str(free_port()),
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT": str(settings.heartbeat_timeout),
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT_DETECTION_INTERVAL": str(
                settings.heartbeat_detection_interval
            ),
            "AIRFLOW__WORKERS__MIN_HEARTBEAT_INTERVAL": "2",
            "AIRFLOW__TRIGGERER__TRIGGERER_HEALTH_CHECK_THRESHOLD": str(settings.triggerer_health_check_threshold),
            "AIRFLOW__TRIGGERER__JOB_HEARTBEAT_SEC": "2",
            "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "30",
        }
    )
    if settings.executor == CELERY_EXECUTOR:
        if not settings.broker_url or not settings.result_backend:
            raise ValueError("the CeleryExecutor needs broker_url and result_backend")
        env.update(
            {
                "AIRFLOW__CELERY__BROKER_URL": settings.broker_url,
                "AIRFLOW__CELERY__RESULT_BACKEND": settings.result_backend,
                "AIRFLOW__CELERY__WORKER_CONCURRENCY": str(settings.worker_concurrency),
                # a loaded 2-core machine answers the broker slowly; the default (1 s) drops sends
                "AIRFLOW__CELERY__OPERATION_TIMEOUT": "15",
            }
        )
    env.update(settings.extra_env)
    return env
