"""The ways a worker dies in production, done to a running task instance of a local deployment.

What it is for: the production crash suite and the recovery benchmark need to end a try exactly
the way Kubernetes, the OOM killer, a deploy or a lost node end it - and nothing else. Each
function here does one of those to the processes Airflow runs the try in, and records when.

How it works: the processes come from
:meth:`resumable_jobs.local.airflow_deployment.AirflowDeployment.task_processes` (the task
process Airflow records for the try, its supervisor, and the daemon they run under), so only this
deployment's own processes are ever signalled, by pid:

* :func:`kill_task_process` - SIGKILL to the task process alone (the OOM killer picking the
  biggest process); the supervisor survives and reports the failure.
* :func:`sigterm_supervisor` - SIGTERM to the task's supervisor (LocalExecutor: the executor's
  worker process), which forwards it to the task: a graceful shutdown of that worker.
* :func:`kill_whole_worker` - SIGKILL to the supervisor and everything under it; on Celery to the
  worker's whole process tree (a lost node, an OOM-killed pod): nobody reports anything, the
  scheduler's heartbeat timeout must notice.
* :func:`celery_warm_shutdown` / :func:`celery_cold_shutdown` - SIGTERM / SIGQUIT to the Celery
  worker's main process (Celery drains its tasks / terminates its pool children).
* :func:`sigterm_worker_group` - SIGTERM to the Celery worker's whole process group, as a
  container runtime stops a container.
* :func:`restart_triggerer` - SIGKILL to the triggerer's process group, then a new triggerer.

What it does not do: it does not wait for Airflow to react, nor restart a worker it killed (the
caller decides when the topology is made whole again with ``AirflowDeployment.ensure_running``).
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass

from resumable_jobs.local.airflow_deployment import AirflowDeployment, DeploymentError, TaskProcesses
from resumable_jobs.local.processes import descendants, signal_pids, wait_gone

__all__ = [
    "WAYS",
    "Death",
    "celery_cold_shutdown",
    "celery_warm_shutdown",
    "kill_task_process",
    "kill_whole_worker",
    "restart_triggerer",
    "sigterm_supervisor",
    "sigterm_worker_group",
]


@dataclass(frozen=True)
class Death:
    """What was done, to which processes, and when (``time.time()``, to compare with log times)."""

    way: str
    at: float
    pids: tuple[int, ...]
    component: str
    processes: TaskProcesses | None = None


def _processes(airflow: AirflowDeployment, dag_id: str, run_id: str, task_id: str) -> TaskProcesses:
    return airflow.task_processes(dag_id, run_id, task_id)


def kill_task_process(airflow: AirflowDeployment, dag_id: str, run_id: str, task_id: str) -> Death:
    found = _processes(airflow, dag_id, run_id, task_id)
    at = time.time()
    signal_pids([found.task_pid], signal.SIGKILL)
    return Death("task process SIGKILL", at, (found.task_pid,), found.component, found)


def sigterm_supervisor(airflow: AirflowDeployment, dag_id: str, run_id: str, task_id: str) -> Death:
    found = _processes(airflow, dag_id, run_id, task_id)
    at = time.time()
    signal_pids([found.supervisor_pid], signal.SIGTERM)
    return Death("supervisor SIGTERM", at, (found.supervisor_pid,), found.component, found)


def kill_whole_worker(airflow: AirflowDeployment, dag_id: str, run_id: str, task_id: str) -> Death:
    """LocalExecutor: the supervisor and all below it. Celery: the worker's whole process tree."""
    found = _processes(airflow, dag_id, run_id, task_id)
    if found.component in airflow.worker_names:
        component = airflow.components[found.component]
        assert component.pid is not None
        pids = [component.pid, *descendants(component.pid)]
    else:  # never the scheduler itself: its executor's worker process is the "worker"
        pids = [found.supervisor_pid, *descendants(found.supervisor_pid)]
    at = time.time()
    signal_pids(pids, signal.SIGKILL)
    if not wait_gone(pids, timeout=30):
        raise DeploymentError(f"processes {pids} survived SIGKILL")
    if found.component in airflow.worker_names:
        airflow.wait_component_exit(found.component, timeout=30)
    return Death("whole worker SIGKILL", at, tuple(pids), found.component, found)


def _signal_celery_worker(
    airflow: AirflowDeployment, dag_id: str, run_id: str, task_id: str, *, sig: int, group: bool, way: str
) -> Death:
    found = _processes(airflow, dag_id, run_id, task_id)
    if found.component not in airflow.worker_names:
        raise DeploymentError(f"the task runs under {found.component}, not a Celery worker")
    pid = airflow.components[found.component].pid
    assert pid is not None
    at = time.time()
    if group:
        os.killpg(pid, sig)  # the worker leads its group: pgid == pid (the task process has its own)
    else:
        os.kill(pid, sig)
    return Death(way, at, (pid,), found.component, found)


def celery_warm_shutdown(airflow: AirflowDeployment, dag_id: str, run_id: str, task_id: str) -> Death:
    return _signal_celery_worker(
        airflow, dag_id, run_id, task_id, sig=signal.SIGTERM, group=False, way="Celery warm shutdown (SIGTERM)"
    )


def celery_cold_shutdown(airflow: AirflowDeployment, dag_id: str, run_id: str, task_id: str) -> Death:
    return _signal_celery_worker(
        airflow, dag_id, run_id, task_id, sig=signal.SIGQUIT, group=False, way="Celery cold shutdown (SIGQUIT)"
    )


def sigterm_worker_group(airflow: AirflowDeployment, dag_id: str, run_id: str, task_id: str) -> Death:
    """SIGTERM to every member of the worker's process group, as a container runtime stops it."""
    return _signal_celery_worker(
        airflow, dag_id, run_id, task_id, sig=signal.SIGTERM, group=True, way="SIGTERM to the worker's group"
    )


def restart_triggerer(airflow: AirflowDeployment) -> Death:
    """SIGKILL the triggerer (group and descendants), then start a new one and wait until healthy."""
    at = time.time()
    pid = airflow.kill_triggerer()
    airflow.stop_component("triggerer")  # already dead: reaps it and closes its log
    airflow.start_component("triggerer")
    return Death("triggerer SIGKILL and restart", at, (pid,), "triggerer")


WAYS = {
    "task_sigkill": kill_task_process,
    "supervisor_sigterm": sigterm_supervisor,
    "worker_sigkill": kill_whole_worker,
    "celery_warm_shutdown": celery_warm_shutdown,
    "celery_cold_shutdown": celery_cold_shutdown,
    "worker_group_sigterm": sigterm_worker_group,
}
