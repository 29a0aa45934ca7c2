"""One crash drill: a DAG run in the shared deployment, the jobs it started, what Airflow reported.

A :class:`Drill` triggers its own DAG run (through the REST API), remembers which backend jobs
existed before it, and offers the observations scenarios assert on: the run's new jobs and their
states, the task instance's state and try number, its XCom, and each try's log. Every wait is on
observable state - a job RUNNING on the backend, a task instance state, a log line - with
generous timeouts, because the machine is small and shared.
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from typing import Any

from resumable_jobs.local.airflow_deployment import AirflowDeployment
from resumable_jobs.local.net import wait_until
from resumable_jobs.local.task_logs import LogEvent, LogLine, TaskLog
from tests.production.backends import Backend, Job

_runs = itertools.count(1)
WAIT = 300.0  # seconds: the longest a drill waits for any one thing


@dataclass
class Drill:
    airflow: AirflowDeployment
    backend: Backend
    dag_id: str
    scenario: str
    task_id: str = "job"
    run_id: str = ""
    before: set[Any] = field(default_factory=set)

    def start(self, **conf: Any) -> Drill:
        self.run_id = f"{self.scenario}-{self.airflow.executor}-{self.backend.name}-{next(_runs)}-{int(time.time())}"
        self.before = {job.id for job in self.backend.jobs()}
        self.backend.before_run(self.run_id)
        self.airflow.trigger(self.dag_id, self.run_id, {**self.backend.conf(self.run_id), **conf})
        return self

    # ----------------------------------------------------------------- observations
    def new_jobs(self) -> list[Job]:
        return [job for job in self.backend.jobs() if job.id not in self.before]

    def ti(self, task_id: str | None = None) -> dict[str, Any]:
        return self.airflow.rest.task_instance(self.dag_id, self.run_id, task_id or self.task_id)

    def xcom(self, task_id: str | None = None) -> Any:
        return self.airflow.rest.xcom(self.dag_id, self.run_id, task_id or self.task_id)

    def log(self, try_number: int, task_id: str | None = None) -> TaskLog:
        return self.airflow.task_log(self.dag_id, self.run_id, task_id or self.task_id, try_number)

    # ----------------------------------------------------------------- waits
    def wait_for_task(self, what: str, predicate: Any, task_id: str | None = None, timeout: float = WAIT) -> dict:
        return self.airflow.rest.wait_for_task(
            self.dag_id, self.run_id, task_id or self.task_id, predicate, what=what, timeout=timeout
        )

    def wait_for_running_job(self, timeout: float = WAIT) -> Job:
        """The one job this run started, once the backend reports it RUNNING."""

        def running() -> Job | None:
            jobs = self.new_jobs()
            return jobs[0] if len(jobs) == 1 and jobs[0].state == self.backend.running else None

        return wait_until(running, timeout=timeout, what=f"{self.run_id}'s job to be RUNNING", interval=0.5)

    def wait_for_jobs_to_end(self, what: str, timeout: float = WAIT) -> list[Job]:
        """The jobs this run started, once none of them is RUNNING any more."""

        def ended() -> list[Job] | None:
            jobs = self.new_jobs()
            return jobs if jobs and all(job.state != self.backend.running for job in jobs) else None

        return wait_until(ended, timeout=timeout, what=what, interval=0.5)

    def wait_polling(self, try_number: int = 1) -> Job:
        """Wait until try ``try_number`` is running and polls its RUNNING job; return the job."""
        job = self.wait_for_running_job()
        self.wait_for_task(
            f"running try {try_number}", lambda ti: ti["state"] == "running" and ti["try_number"] == try_number
        )
        self.log(try_number).wait_for(self.backend.poll_line(job), timeout=WAIT)
        return job

    def wait_deferred(self) -> tuple[Job, dict[str, Any]]:
        job = self.wait_for_running_job()
        ti = self.wait_for_task("deferred", lambda ti: ti["state"] == "deferred" and ti.get("triggerer_job"))
        return job, ti

    def wait_until_the_scheduler_saw_the_deferral(self, try_number: int) -> None:
        """Wait until the scheduler has processed the executor's event for the worker's exit after
        ``defer()`` on ``try_number``; release a held job only after that.

        Airflow 3.3.2 races here (apache/airflow#67287, #72716): if the trigger fires and the
        resumed try is already queued or running when the scheduler drains that stale "success"
        event, it logs "state mismatch" and fails the try. A durable retry reconnects to the same
        job - one job still runs - but the try number moves on, so a drill that releases its job
        before this point cannot say on which try the task will succeed.
        """
        finished = re.compile(
            rf"TaskInstance Finished: dag_id={re.escape(self.dag_id)}, task_id={re.escape(self.task_id)}, "
            rf"run_id={re.escape(self.run_id)}, .*?\bstate=deferred, .*?\btry_number={try_number},"
        )
        scheduler = self.airflow.components["scheduler"]
        wait_until(
            lambda: finished.search(scheduler.log_path.read_text(errors="replace")),
            timeout=WAIT,
            what=f"the scheduler to process the deferral exit of try {try_number}",
            check=self._run_not_failed,
        )

    def wait_for_line(self, try_number: int, what: str | LogLine, task_id: str | None = None) -> LogEvent:
        return self.log(try_number, task_id).wait_for(what, timeout=WAIT, check=self._run_not_failed)

    def _run_not_failed(self) -> None:
        state = self.airflow.rest.dag_run(self.dag_id, self.run_id)["state"]
        if state == "failed":
            raise AssertionError(f"DAG run {self.run_id} failed while the drill waited; tries: {self.tries_summary()}")

    def finish(self, timeout: float = 600.0) -> str:
        return self.airflow.wait_for_run(self.dag_id, self.run_id, timeout=timeout)

    def heartbeat_timeouts(self) -> list[dict[str, Any]]:
        """The scheduler's "heartbeat timeout" audit entries for this run (one per lost try)."""
        return self.airflow.rest.events(self.dag_id, self.run_id, "heartbeat timeout")

    def tries_summary(self, task_id: str | None = None) -> list[tuple[int, str]]:
        tries = self.airflow.rest.tries(self.dag_id, self.run_id, task_id or self.task_id)
        return [(t.get("try_number"), t.get("state")) for t in tries]

    def cleanup(self) -> None:
        """Release or end whatever this drill's run left running (a failed scenario's jobs)."""
        if not self.run_id:
            return
        jobs = [job for job in self.new_jobs() if job.state == self.backend.running]
        if jobs:
            self.backend.release(self.run_id, jobs[0])
            self.backend.cancel_leftovers(jobs)
