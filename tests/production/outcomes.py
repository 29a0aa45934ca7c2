"""What a recovered run must look like, asserted the same way by every scenario.

A user checks three places: the backend (how many jobs, how they ended), Airflow (the task
instance's state and try number, the returned XCom) and the log (the retry reconnected, it did
not submit). These helpers check all three.
"""

from __future__ import annotations

from resumable_jobs.local.task_logs import LogLine
from tests.production.backends import Job

#: The mixin's events (upstream's wording; the job is a structured field of the event).
RECONNECTING = "Reconnecting to existing job"
ALREADY_COMPLETED = "Job already completed successfully"
PERSISTED = "Persisted external ID to task store"


def reconnect_line(job: Job) -> LogLine:
    """What the mixin logs when a retry follows the stored, still active job."""
    return LogLine(RECONNECTING, {"external_id": job.id})


def submitted_line(job: Job, generation: int) -> LogLine:
    """What the mixin logs once a submission's id is stored."""
    return LogLine(PERSISTED, {"external_id": job.id, "generation": generation})


def kept_line(job: Job) -> str:
    """The WARNING of a try that ends on a worker's SIGTERM and keeps its job for the retry."""
    return f"The worker is shutting down: keeping job {job.id!r}"


def resumed_line(drill, job: Job) -> LogLine:
    """The line a retry logs on a backend that can hold jobs (reconnect) or cannot (already done)."""
    return reconnect_line(job) if drill.backend.holds_jobs else LogLine(ALREADY_COMPLETED, {"external_id": job.id})


def assert_single_job_succeeded(drill, job: Job, *, try_number: int, task_id: str | None = None) -> None:
    """The run's only job succeeded and the task succeeded on ``try_number``, returning that job."""
    jobs = drill.new_jobs()
    assert [j.id for j in jobs] == [job.id], f"more than one job for {drill.run_id}: {jobs}"
    assert jobs[0].state == drill.backend.succeeded, jobs
    ti = drill.ti(task_id)
    assert (ti["state"], ti["try_number"]) == ("success", try_number), drill.tries_summary(task_id)
    assert str(drill.xcom(task_id)) == str(drill.backend.returned(job))
    if try_number > 1:
        retry_log = drill.log(try_number, task_id)
        assert retry_log.contains(resumed_line(drill, job)), f"try {try_number} did not follow job {job.id}"
        assert not retry_log.contains(PERSISTED), f"try {try_number} submitted a job"
