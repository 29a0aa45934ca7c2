"""A throwaway Airflow installation for the demo and the end-to-end crash tests.

What it is for: running DAGs under Airflow's real execution path - an api-server, the
LocalExecutor, a supervisor per task and a separate process per try - so that a SIGKILL kills a
real task process and the retry is scheduled by Airflow itself, with ``task_state_store`` served
by the real Execution API.

How it works: a fresh ``AIRFLOW_HOME`` with a SQLite metadata database, an api-server on a free
127.0.0.1 port, and ``airflow dags test <dag> --use-executor`` for each run. Results are read
back from the metadata database and the task log files. Everything it starts runs in its own
process group and is stopped on exit.

What it does not do: it is not a deployment - SQLite, one LocalExecutor, no triggerer (the
deferrable path is covered by the unit and integration tests).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from resumable_jobs.local.processes import start_group, stop_group
from resumable_jobs.local.service import LocalService


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class TaskInstanceRow:
    task_id: str
    state: str | None
    try_number: int
    map_index: int


class EmbeddedAirflow(LocalService):
    """See the module docstring. Use as a context manager."""

    def __init__(
        self,
        dags_folder: Path,
        *,
        home: Path | None = None,
        extra_env: dict[str, str] | None = None,
        python: str = sys.executable,
    ) -> None:
        self.dags_folder = Path(dags_folder).resolve()
        self._own_home = home is None
        self.home = Path(home) if home else Path(tempfile.mkdtemp(prefix="rj-airflow-"))
        self.python = python
        self.port = free_port()
        self.env = {
            **os.environ,
            "AIRFLOW_HOME": str(self.home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(self.dags_folder),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__PARALLELISM": "4",
            "AIRFLOW__API__HOST": "127.0.0.1",
            "AIRFLOW__API__PORT": str(self.port),
            "AIRFLOW__API__WORKERS": "1",
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{self.port}/execution/",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{self.home / 'airflow.db'}",
            "AIRFLOW__LOGGING__BASE_LOG_FOLDER": str(self.home / "logs"),
            "AIRFLOW__SCHEDULER__STANDALONE_DAG_PROCESSOR": "False",
            # a throwaway instance on 127.0.0.1: every REST caller is an admin (GET /auth/token)
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
            **(extra_env or {}),
        }
        self._api: subprocess.Popen | None = None
        self._runs: list[subprocess.Popen] = []
        self._token: str | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self, *, timeout: float = 180.0) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        migrate = subprocess.run(
            [self.python, "-m", "airflow", "db", "migrate"],
            env=self.env,
            capture_output=True,
            text=True,
        )
        if migrate.returncode != 0:
            raise RuntimeError(f"airflow db migrate failed:\n{migrate.stdout}\n{migrate.stderr}")
        self._api = start_group(
            [self.python, "-m", "airflow", "api-server", "--host", "127.0.0.1", "--port", str(self.port)],
            env=self.env,
            log_path=self.home / "api-server.log",
        )
        self._wait_for_api(timeout)

    def _wait_for_api(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        url = f"http://127.0.0.1:{self.port}/api/v2/monitor/health"
        while time.monotonic() < deadline:
            if self._api is not None and self._api.poll() is not None:
                raise RuntimeError(f"the api-server exited early; see {self.home / 'api-server.log'}")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise TimeoutError(f"the api-server did not answer on port {self.port} within {timeout:.0f}s")

    def stop(self) -> None:
        for process in self._runs:
            stop_group(process)
        self._runs.clear()
        if self._api is not None:
            stop_group(self._api)
            self._api = None
        if self._own_home and os.environ.get("RJ_KEEP_AIRFLOW_HOME") != "1":
            shutil.rmtree(self.home, ignore_errors=True)

    # ------------------------------------------------------------------ runs
    def start_dag_test(self, dag_id: str, *, conf: dict[str, Any] | None = None) -> subprocess.Popen:
        argv = [self.python, "-m", "airflow", "dags", "test", dag_id, "--use-executor"]
        if conf:
            argv += ["--conf", json.dumps(conf)]
        process = start_group(argv, env=self.env, log_path=self.home / f"dags-test-{dag_id}.log")
        self._runs.append(process)
        return process

    def run_dag(
        self,
        dag_id: str,
        *,
        conf: dict[str, Any] | None = None,
        timeout: float = 600.0,
        exit_grace: float = 30.0,
        on_tick: Callable[[], None] | None = None,
    ) -> int:
        """Run ``airflow dags test --use-executor`` until its DAG run ends; return an exit code.

        The DAG run's state in the metadata database is what counts: 0 when it succeeded, 1
        otherwise. ``dags test`` sometimes waits on an idle LocalExecutor worker after a task
        process was SIGKILLed; once the run is over it gets ``exit_grace`` seconds to exit by
        itself before it is stopped.
        """
        process = self.start_dag_test(dag_id, conf=conf)
        deadline = time.monotonic() + timeout
        finished_at: float | None = None
        try:
            while process.poll() is None:
                now = time.monotonic()
                if now > deadline:
                    raise TimeoutError(f"dags test {dag_id} did not finish within {timeout:.0f}s")
                if finished_at is None and self.dag_run_state(dag_id) in ("success", "failed"):
                    finished_at = now
                if finished_at is not None and now - finished_at > exit_grace:
                    break
                if on_tick is not None:
                    on_tick()
                time.sleep(0.5)
        finally:
            stop_group(process)  # the executor's workers too, if any outlived it
            self._runs.remove(process)
        return 0 if self.dag_run_state(dag_id) == "success" else 1

    def dag_run_id(self, dag_id: str) -> str | None:
        """Run id of the DAG's latest run, or None before it exists."""
        try:
            rows = self._query("SELECT run_id FROM dag_run WHERE dag_id = ? ORDER BY id DESC LIMIT 1", (dag_id,))
        except sqlite3.Error:
            return None
        return rows[0][0] if rows else None

    def rest(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """Call the public REST API (``/api/v2/...``) as an admin; return the decoded answer."""
        if self._token is None:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/auth/token", timeout=10) as answer:
                self._token = json.load(answer)["access_token"]
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {self._token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def set_task_instance_state(self, dag_id: str, task_id: str, state: str) -> Any:
        """Mark the latest run's task instance ``state`` through the REST API, as a user in the UI does."""
        run_id = self.dag_run_id(dag_id)
        path = f"/api/v2/dags/{dag_id}/dagRuns/{urllib.parse.quote(str(run_id), safe='')}/taskInstances/{task_id}"
        return self.rest("PATCH", path, {"new_state": state})

    def dag_run_state(self, dag_id: str) -> str | None:
        """State of the DAG's latest run, or None before it exists."""
        try:
            rows = self._query("SELECT state FROM dag_run WHERE dag_id = ? ORDER BY id DESC LIMIT 1", (dag_id,))
        except sqlite3.Error:  # the database is being written: ask again on the next tick
            return None
        return rows[0][0] if rows else None

    # ------------------------------------------------------------------ results
    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.home / "airflow.db", timeout=10) as db:
            return db.execute(sql, params).fetchall()

    def task_instances(self, dag_id: str) -> list[TaskInstanceRow]:
        rows = self._query(
            "SELECT task_id, state, try_number, map_index FROM task_instance WHERE dag_id = ? ORDER BY task_id",
            (dag_id,),
        )
        return [TaskInstanceRow(*row) for row in rows]

    def xcom(self, dag_id: str, task_id: str, key: str = "return_value") -> Any:
        rows = self._query(
            "SELECT value FROM xcom WHERE dag_id = ? AND task_id = ? AND key = ? ORDER BY timestamp DESC",
            (dag_id, task_id, key),
        )
        if not rows:
            return None
        value = rows[0][0]
        value = value.decode() if isinstance(value, bytes) else value
        return json.loads(value) if isinstance(value, str) else value

    def task_log(self, dag_id: str, task_id: str, try_number: int) -> str:
        """The text of one try's log file ('' when there is none yet)."""
        logs = self.home / "logs"
        found = sorted(logs.glob(f"dag_id={dag_id}/**/task_id={task_id}/**/attempt={try_number}.log"))
        found += sorted(logs.glob(f"dag_id={dag_id}/**/task_id={task_id}/attempt={try_number}.log"))
        return "\n".join(path.read_text(errors="replace") for path in dict.fromkeys(found))
