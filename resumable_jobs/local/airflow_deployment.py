"""A real multi-process Airflow deployment on one machine, for crash drills.

What it is for: running DAGs the way production runs them - ``airflow api-server``,
``scheduler``, ``dag-processor`` and ``triggerer`` as separate daemons, and with the
CeleryExecutor separate ``airflow celery worker`` processes - so that a drill can kill a task
process, a task supervisor, a whole worker or the triggerer and watch Airflow itself notice
(the supervisor's report, the scheduler's heartbeat timeout, a new triggerer taking over) and
retry.

How it works: :class:`AirflowDeployment` owns a temporary ``AIRFLOW_HOME`` and the environment of
:mod:`resumable_jobs.local.airflow_config`. ``start()`` migrates the metadata database, starts the
api-server and waits for it, then starts the other daemons and waits until the api-server's health
report calls the scheduler, triggerer and dag-processor healthy and every Celery worker logged
that it is ready. Each daemon is a :class:`Component`: the leader of its own process group,
stoppable, killable and restartable by name. :meth:`AirflowDeployment.task_processes` finds the
processes running a task instance from the ``pid`` Airflow records for it (the task process; its
parent is the supervisor) and refuses pids that are not descendants of this deployment's own
daemons, so a drill can never signal someone else's process. ``stop()`` stops every component by
process group and pid (descendants that started sessions of their own included), then any task
process it ever saw that is still alive; :meth:`AirflowDeployment.leftovers` tells what, if
anything, survived.

What it does not do: it is not a production deployment (one machine, the simple auth manager with
every user an admin, no TLS); it starts neither PostgreSQL nor Redis (see
:mod:`resumable_jobs.local.topologies`); it reads results only through the REST API and the task
log files.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resumable_jobs.local.airflow_config import (
    CELERY_EXECUTOR,
    LOCAL_EXECUTOR,
    DeploymentSettings,
    deployment_environment,
)
from resumable_jobs.local.airflow_rest import AirflowRest
from resumable_jobs.local.net import free_port, wait_until
from resumable_jobs.local.processes import descendants, parent_of, start_group, stop_group
from resumable_jobs.local.service import LocalService
from resumable_jobs.local.task_logs import TaskLog

__all__ = ["AirflowDeployment", "Component", "DeploymentError", "TaskProcesses"]


class DeploymentError(RuntimeError):
    """A daemon did not start, or exited while the deployment waited for it."""


@dataclass
class Component:
    """One daemon of the deployment, e.g. ``scheduler`` or ``worker-1``."""

    name: str
    argv: list[str]
    log_path: Path
    process: subprocess.Popen | None = None
    starts: int = 0

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""


@dataclass(frozen=True)
class TaskProcesses:
    """The processes running one try: the task process, its supervisor, the daemon above them."""

    task_pid: int
    supervisor_pid: int
    component: str
    #: Every pid of the component's tree when the processes were looked up.
    component_tree: tuple[int, ...] = field(default=())


class AirflowDeployment(LocalService):
    """See the module docstring. Use as a context manager."""

    def __init__(
        self,
        dags_folder: Path,
        *,
        executor: str = LOCAL_EXECUTOR,
        database_url: str | None = None,
        broker_url: str | None = None,
        result_backend: str | None = None,
        celery_workers: int = 2,
        heartbeat_timeout: int = 20,
        extra_env: dict[str, str] | None = None,
        python: str = sys.executable,
        start_timeout: float = 300.0,
    ) -> None:
        self.home = Path(tempfile.mkdtemp(prefix="rj-deployment-"))
        self.python = python
        self.start_timeout = start_timeout
        self.settings = DeploymentSettings(
            home=self.home,
            dags_folder=Path(dags_folder).resolve(),
            api_port=free_port(),
            executor=executor,
            database_url=database_url,
            broker_url=broker_url,
            result_backend=result_backend,
            heartbeat_timeout=heartbeat_timeout,
            extra_env=dict(extra_env or {}),
        )
        self.env = deployment_environment(self.settings)
        self.rest = AirflowRest(self.settings.api_url)
        self.components: dict[str, Component] = {}
        self.celery_workers = celery_workers if executor == CELERY_EXECUTOR else 0
        self._seen: dict[int, Any] = {}  # pid -> psutil.Process of every process a drill looked at
        self._define_components()

    # ------------------------------------------------------------------ definition
    @property
    def executor(self) -> str:
        return self.settings.executor

    @property
    def worker_names(self) -> list[str]:
        return [f"worker-{n}" for n in range(1, self.celery_workers + 1)]

    def _airflow(self, *args: str) -> list[str]:
        return [self.python, "-m", "airflow", *args]

    def _define_components(self) -> None:
        logs = self.home / "daemons"
        logs.mkdir(parents=True, exist_ok=True)
        port = str(self.settings.api_port)
        commands = {
            "api-server": self._airflow("api-server", "--host", "127.0.0.1", "--port", port, "--workers", "1"),
            "dag-processor": self._airflow("dag-processor"),
            "scheduler": self._airflow("scheduler"),
            "triggerer": self._airflow("triggerer", "--skip-serve-logs"),
        }
        for name in self.worker_names:
            commands[name] = self._airflow(
                "celery", "worker",
                "--celery-hostname", f"rj-{name}@%h",
                "--concurrency", str(self.settings.worker_concurrency),
                "--skip-serve-logs",
                "--pid", str(self.home / f"{name}.pid"),
            )  # fmt: skip
        self.components = {name: Component(name, argv, logs / f"{name}.log") for name, argv in commands.items()}

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> AirflowDeployment:
        atexit.register(self.stop)
        migrate = subprocess.run(
            self._airflow("db", "migrate"), env=self.env, capture_output=True, text=True, check=False
        )
        if migrate.returncode != 0:
            raise DeploymentError(f"airflow db migrate failed:\n{migrate.stdout[-3000:]}\n{migrate.stderr[-3000:]}")
        self.start_component("api-server")
        for name in self.components:
            if name != "api-server":
                self.start_component(name, wait=False)
        self.wait_healthy()
        for name in self.worker_names:
            self.wait_worker_ready(name)
        return self

    def stop(self) -> None:
        """Stop every component (workers first), then any task process a drill saw that survived."""
        for name in reversed(list(self.components)):
            self.stop_component(name)
        for process in list(self._seen.values()):
            with contextlib.suppress(Exception):
                if process.is_running():
                    process.kill()
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        if os.environ.get("RJ_KEEP_AIRFLOW_HOME") != "1":
            shutil.rmtree(self.home, ignore_errors=True)

    def leftovers(self) -> list[int]:
        """Pids of processes this deployment started or looked at that are still alive."""
        alive = [c.pid for c in self.components.values() if c.running()]
        for pid, process in self._seen.items():
            with contextlib.suppress(Exception):
                if process.is_running() and process.status() != "zombie":
                    alive.append(pid)
        return [pid for pid in alive if pid is not None]

    # ------------------------------------------------------------------ components
    def start_component(self, name: str, *, wait: bool = True) -> Component:
        component = self.components[name]
        if component.running():
            raise DeploymentError(f"{name} is already running (pid {component.pid})")
        component.process = start_group(component.argv, env=self.env, log_path=component.log_path, cwd=self.home)
        component.starts += 1
        self._remember(component.process.pid)
        if wait:
            if name == "api-server":
                self._wait_for(component, lambda: self.rest.health(), "the api-server to answer")
            elif name == "triggerer":
                self.wait_healthy("triggerer")
            elif name in self.worker_names:
                self.wait_worker_ready(name)
        return component

    def stop_component(self, name: str, *, grace: float = 15.0) -> None:
        component = self.components[name]
        if component.process is not None:
            for pid in descendants(component.process.pid):
                self._remember(pid)
            stop_group(component.process, grace=grace)

    def restart_component(self, name: str) -> Component:
        """Stop ``name`` if it still runs (its group and descendants), then start a new one."""
        self.stop_component(name)
        return self.start_component(name)

    def ensure_running(self) -> list[str]:
        """Start every component that is not running (after a drill killed one); return their names."""
        started = [name for name, component in self.components.items() if not component.running()]
        for name in started:
            self.stop_component(name)  # reap what is left of it
            self.start_component(name)
        return started

    def signal_component(self, name: str, sig: int) -> int:
        """Send ``sig`` to the component's main process only; return its pid."""
        component = self.components[name]
        if not component.running():
            raise DeploymentError(f"{name} is not running")
        assert component.process is not None
        os.kill(component.process.pid, sig)
        return component.process.pid

    def wait_component_exit(self, name: str, *, timeout: float = 180.0) -> int:
        component = self.components[name]
        assert component.process is not None
        try:
            return component.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise DeploymentError(f"{name} did not exit within {timeout:.0f}s:\n{component.log_tail()}") from None

    def _wait_for(self, component: Component, predicate: Any, what: str, timeout: float | None = None) -> Any:
        def check() -> None:
            if not component.running():
                raise DeploymentError(f"{component.name} exited while waiting for {what}:\n{component.log_tail()}")

        return wait_until(predicate, timeout=timeout or self.start_timeout, what=what, check=check, interval=1.0)

    def wait_healthy(self, *names: str) -> None:
        """Wait until the api-server reports the named daemons (default: all three) healthy."""
        wanted = names or ("scheduler", "triggerer", "dag_processor")

        def check() -> None:
            for component in self.components.values():
                if component.process is not None and not component.running():
                    raise DeploymentError(f"{component.name} exited during start-up:\n{component.log_tail()}")

        wait_until(
            lambda: self.rest.healthy(*wanted),
            timeout=self.start_timeout,
            what=f"{', '.join(wanted)} to be healthy",
            check=check,
            interval=1.0,
        )

    def wait_worker_ready(self, name: str) -> None:
        """Wait for this start of the Celery worker to log ``ready.`` (each start appends to the log)."""
        component = self.components[name]
        marker = re.compile(rf"\brj-{re.escape(name)}@\S+ ready\.")
        expected = component.starts

        def ready() -> bool:
            text = component.log_path.read_text(errors="replace") if component.log_path.exists() else ""
            return len(marker.findall(text)) >= expected

        self._wait_for(component, ready, f"Celery {name} to be ready")

    # ------------------------------------------------------------------ tasks
    def task_log(self, dag_id: str, run_id: str, task_id: str, try_number: int) -> TaskLog:
        return TaskLog(self.settings.base_log_folder, dag_id, run_id, task_id, try_number)

    def logs_containing(self, fragment: str) -> list[Path]:
        """Every log file of this deployment holding ``fragment``: task logs, the dag-processor's
        per-file logs (where failure callbacks log) and each component's own output."""
        candidates = [p for p in self.settings.base_log_folder.rglob("*") if p.is_file()]
        candidates += [c.log_path for c in self.components.values() if c.log_path.exists()]
        return [p for p in candidates if fragment in p.read_text(errors="replace")]

    def task_processes(self, dag_id: str, run_id: str, task_id: str) -> TaskProcesses:
        """The processes running the task instance's current try (it must be running)."""
        ti = self.rest.task_instance(dag_id, run_id, task_id)
        pid = ti.get("pid")
        if ti.get("state") != "running" or not pid:
            raise DeploymentError(f"{dag_id}/{run_id}/{task_id} is not running: state {ti.get('state')}, pid {pid}")
        for component in self.components.values():
            if component.process is None or not component.running():
                continue
            tree = descendants(component.process.pid)
            if pid in tree:
                supervisor = parent_of(pid)
                if supervisor is None or (supervisor not in tree and supervisor != component.process.pid):
                    raise DeploymentError(f"the supervisor of task process {pid} is gone")
                for seen in (pid, supervisor, *tree):
                    self._remember(seen)
                return TaskProcesses(pid, supervisor, component.name, (component.process.pid, *tree))
        raise DeploymentError(f"task process {pid} of {dag_id}/{run_id}/{task_id} is not a process of this deployment")

    def _remember(self, pid: int) -> None:
        import psutil

        with contextlib.suppress(psutil.Error):
            self._seen.setdefault(pid, psutil.Process(pid))

    # ------------------------------------------------------------------ runs
    def trigger(self, dag_id: str, run_id: str, conf: dict[str, Any] | None = None) -> str:
        return self.rest.trigger(dag_id, run_id, conf)

    def wait_for_run(self, dag_id: str, run_id: str, *, timeout: float = 600.0) -> str:
        started = time.monotonic()
        state = self.rest.wait_for_run(dag_id, run_id, timeout=timeout)
        self.last_run_seconds = time.monotonic() - started
        return state

    def kill_triggerer(self) -> int:
        """SIGKILL the triggerer's whole process group (and descendants); return its pid."""
        component = self.components["triggerer"]
        if not component.running():
            raise DeploymentError("the triggerer is not running")
        assert component.process is not None
        pid = component.process.pid
        pids = [pid, *descendants(pid)]
        for seen in pids:
            self._remember(seen)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        for each in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(each, signal.SIGKILL)
        component.process.wait(timeout=30)
        return pid
