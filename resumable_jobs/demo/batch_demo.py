"""``resumable-jobs demo --backend batch``: watch a retry adopt an AWS Batch job its killed worker left.

What it is for: showing, on one machine, without an AWS account or Docker, the window the
package closes for AWS Batch - a worker that dies after SubmitJob returned but before it saved
the job id. Upstream's operator resubmits there; ours finds the orphan by the submission-token tag
it put on the job, so the queue ends with exactly one job.

How it works: it starts a local ``moto_server`` with a Batch queue (:class:`LocalMotoServer`) and
an embedded Airflow 3.3 (:class:`EmbeddedAirflow`) whose connection ``aws_default`` points at it,
runs the demo DAG with ``airflow dags test --use-executor``, waits until try 1's SubmitJob has
returned (the DAG's subclass records it and holds the try for a few seconds before the id is
persisted), SIGKILLs that task process from outside, and follows the retry. Progress lines appear
as it goes; a timeline closes the run. Everything it started is stopped on exit, Ctrl-C included.

What it does not do: kill the worker while the job is RUNNING, as the Spark demo does - moto
without Docker completes a Batch job inside SubmitJob, so there is no running phase to kill into
(see :mod:`resumable_jobs.local.moto_server`); the demo says so when it starts. It needs
Airflow 3.3 and moto[server]; it says so and exits when either is missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from resumable_jobs.demo.common import read_record, require_durable_airflow
from resumable_jobs.demo.timeline import Timeline, wait_for
from resumable_jobs.shims import installed_airflow_version

HERE = Path(__file__).resolve().parent
DAG_ID = "resumable_jobs_batch_demo"
TASK_ID = "transform"
ADOPTION_MARK = "found by its submission token"
MOTO_HELP = (
    "The Batch demo runs a local moto_server, and moto[server] is not installed in this environment.\n"
    "Install it, then run the demo again:\n"
    "  pip install 'moto[server]'\n"
)


def run_batch_demo(*, hold_seconds: int = 8, out: TextIO = sys.stdout) -> int:
    """Run the demo; return the process exit code (0 when the retry adopted the one job)."""
    if not require_durable_airflow(out):
        return 2
    if importlib.util.find_spec("moto") is None:
        print(MOTO_HELP, file=out)
        return 2

    from resumable_jobs.local.embedded_airflow import EmbeddedAirflow
    from resumable_jobs.local.moto_server import LocalMotoServer

    timeline = Timeline(out=out)
    workdir = Path(tempfile.mkdtemp(prefix="rj-batch-demo-"))
    state_dir = workdir / "state"
    state_dir.mkdir()
    try:
        timeline.progress("starting moto_server (a local AWS Batch API) on 127.0.0.1 ...")
        with LocalMotoServer(workdir=workdir / "moto") as moto:
            timeline.progress(
                f"moto_server ready: {moto.endpoint_url} (queue {moto.job_queue}, definition {moto.job_definition})"
            )
            timeline.progress(
                "note: moto without Docker completes a Batch job inside SubmitJob, so the job never runs long "
                "enough to kill the worker mid-job; the demo kills it in the other dangerous window: right after "
                "SubmitJob returned, before the job id was persisted"
            )
            timeline.progress("starting an embedded Airflow (SQLite, api-server, LocalExecutor) ...")
            env = {
                **moto.airflow_connection_env("aws_default"),
                "RJ_DEMO_STATE_DIR": str(state_dir),
                "RJ_DEMO_BATCH_QUEUE": moto.job_queue,
                "RJ_DEMO_BATCH_DEFINITION": moto.job_definition,
                "RJ_DEMO_HOLD_SECONDS": str(hold_seconds),
            }
            with EmbeddedAirflow(HERE / "batch_dags", home=workdir / "airflow-home", extra_env=env) as airflow:
                version = installed_airflow_version()
                timeline.progress(f"Airflow {version} ready (api-server on 127.0.0.1:{airflow.port})")
                return _drive(airflow, moto, state_dir, timeline)
    except KeyboardInterrupt:
        print("\ninterrupted: stopping everything the demo started ...", file=out, flush=True)
        return 130
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _drive(airflow: Any, moto: Any, state_dir: Path, timeline: Timeline) -> int:
    process = airflow.start_dag_test(DAG_ID)
    timeline.progress(f"running DAG {DAG_ID} (task {TASK_ID!r}, retries=2) ...")

    first = wait_for(lambda: read_record(state_dir, "submitted-try-1"), timeline, "try 1 to submit a job", process)
    job_id = first["job_id"]
    timeline.event(f"try 1 submitted job {job_id} (SubmitJob returned; its id is not persisted yet)")
    os.kill(first["pid"], signal.SIGKILL)
    timeline.event(
        f"worker killed with SIGKILL (task process pid {first['pid']}) between SubmitJob and persisting the id"
    )

    second = wait_for(lambda: read_record(state_dir, "try-2"), timeline, "Airflow to retry the task", process, timeout=300)
    second_log = _try_log_with(airflow, 2, ADOPTION_MARK)
    adopted = second["job_id"] == job_id and ADOPTION_MARK in second_log
    resubmitted = read_record(state_dir, "submitted-try-2") is not None
    if adopted and not resubmitted:
        timeline.event(f"retry {second['try_number']} found job {job_id} by its submission-token tag and adopted it")
    elif resubmitted:
        timeline.event(f"retry {second['try_number']} SUBMITTED ANOTHER JOB: {second['job_id']}")
    else:
        timeline.event(f"retry {second['try_number']} followed job {second['job_id']} without the token lookup")

    deadline = time.monotonic() + 300
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    status = moto.job_status(job_id)
    timeline.event(f"job {job_id} {status}")
    rows = airflow.task_instances(DAG_ID)
    task_state = rows[0].state if rows else "unknown"
    timeline.event(f"task {task_state} (try {rows[0].try_number if rows else '?'})")
    jobs = moto.list_jobs()  # this server is the demo's own: every job in the queue is the demo's
    adoption_line = next((line for line in second_log.splitlines() if ADOPTION_MARK in line), "")
    timeline.summary(
        [
            f"try 2 logged: {_event_text(adoption_line) or '(no adoption line)'}",
            f"XCom return_value: {airflow.xcom(DAG_ID, TASK_ID)!r}",
            f"jobs in the queue: {len(jobs)}",
        ]
    )
    ok = adopted and not resubmitted and task_state == "success" and len(jobs) == 1 and status == "SUCCEEDED"
    return 0 if ok else 1


def _try_log_with(airflow: Any, try_number: int, mark: str, timeout: float = 15.0) -> str:
    """The try's log once it contains ``mark`` (the supervisor writes it a moment after the task
    logs it), or the log as it is after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        text = airflow.task_log(DAG_ID, TASK_ID, try_number)
        if mark in text or time.monotonic() > deadline:
            return text
        time.sleep(0.5)


def _event_text(log_line: str) -> str:
    """The message of one JSON task-log line (the raw line if it is not JSON)."""
    try:
        return str(json.loads(log_line)["event"])
    except (ValueError, KeyError, TypeError):
        return log_line.strip()
