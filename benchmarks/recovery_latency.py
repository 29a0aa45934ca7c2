"""How long a retry takes to get back to a running job after its worker died, against a plain retry.

For each way a worker dies (whole-worker SIGKILL, found by the heartbeat timeout; worker SIGTERM,
the supervisor's graceful shutdown on LocalExecutor or a Celery cold shutdown) this measures, in
one real deployment (``resumable_jobs.local.topologies``):

* a durable synchronous task polling a job that stays RUNNING: seconds from the kill to the
  retry's "Reconnecting to existing job" line, and to the task's success (the job is released as soon as
  the retry reconnected), plus the number of status calls the reconnecting try made before its
  poll loop started (from the Databricks stand-in's request log);
* a plain task in the same deployment that only retries: seconds from the same kill to its
  retry's first line, and to its success.

It prints both with their ratio and difference. The goal: reconnecting adds at most one status
call and less than a second over the plain retry. Nothing here asserts a time; run it and read.

On a worker SIGTERM the plain task is no fair baseline: Airflow 3.3's task runner answers the
forwarded SIGTERM by calling ``on_kill()`` and nothing else, so a plain task runs on (here until
its 300 s cap; in production until the grace period's SIGKILL and the heartbeat timeout), while
a durable task ends its try at once and keeps the job. The benchmark says so when it happens.

    python benchmarks/recovery_latency.py [--topology local|celery] [--repeat 2]
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import statistics
import sys
import time
from pathlib import Path

from resumable_jobs.local import worker_deaths
from resumable_jobs.local.standins.process import StandinProcess
from resumable_jobs.local.task_logs import LogLine
from resumable_jobs.local.topologies import deployment
from resumable_jobs.mixin.telemetry import PERSISTED, RECONNECTING

DAGS = Path(__file__).resolve().parents[1] / "tests" / "production" / "dags"
DURABLE_DAG, PLAIN_DAG, TASK = "prod_databricks_sync", "prod_plain_retry", "job"
WAIT = 600.0
_runs = itertools.count(1)


def _end_epoch(ti: dict) -> float:
    return datetime.datetime.fromisoformat(ti["end_date"].replace("Z", "+00:00")).timestamp()


def _run_id(kind: str, way: str) -> str:
    return f"bench-{kind}-{way}-{next(_runs)}-{int(time.time())}"


def durable_sample(airflow, standin: StandinProcess, way: str) -> dict:
    run_id = _run_id("durable", way)
    before = {job["id"] for job in standin.jobs()}
    airflow.trigger(DURABLE_DAG, run_id)
    airflow.rest.wait_for_task(DURABLE_DAG, run_id, TASK, lambda ti: ti["state"] == "running", what="running")
    job = next(iter(j for j in _new_jobs(standin, before)), None) or _wait_new_job(standin, before)
    airflow.task_log(DURABLE_DAG, run_id, TASK, 1).wait_for(f"Databricks run {job['id']} is RUNNING", timeout=WAIT)
    death = worker_deaths.WAYS[way](airflow, DURABLE_DAG, run_id, TASK)
    retry_log = airflow.task_log(DURABLE_DAG, run_id, TASK, 2)
    reconnected = _first(retry_log, LogLine(RECONNECTING, {"external_id": job["id"]}), LogLine(PERSISTED))
    if reconnected is None or PERSISTED in reconnected.text:
        for each in _new_jobs(standin, before):
            standin.release(each["id"])
        airflow.wait_for_run(DURABLE_DAG, run_id, timeout=WAIT)
        return {"reconnect": None, "success": None, "status_calls": None, "jobs": len(_new_jobs(standin, before))}
    standin.release(job["id"])
    airflow.wait_for_run(DURABLE_DAG, run_id, timeout=WAIT)
    ti = airflow.rest.task_instance(DURABLE_DAG, run_id, TASK)
    started = retry_log.first_timestamp()
    assert started is not None
    calls = [
        request
        for request in standin.requests()
        if request["endpoint"] == "runs/get"
        and str(request["run_id"]) == str(job["id"])
        and started.timestamp() <= request["time"] <= reconnected.epoch
    ]
    return {
        "reconnect": reconnected.epoch - death.at,
        "success": _end_epoch(ti) - death.at,
        "status_calls": len(calls),
        "jobs": len(_new_jobs(standin, before)),
    }


def plain_sample(airflow, way: str) -> dict:
    run_id = _run_id("plain", way)
    airflow.trigger(PLAIN_DAG, run_id)
    airflow.task_log(PLAIN_DAG, run_id, TASK, 1).wait_for("plain try 1 is waiting to be killed", timeout=WAIT)
    death = worker_deaths.WAYS[way](airflow, PLAIN_DAG, run_id, TASK)
    line = airflow.task_log(PLAIN_DAG, run_id, TASK, 2).wait_for("plain retry 2 started", timeout=WAIT)
    airflow.wait_for_run(PLAIN_DAG, run_id, timeout=WAIT)
    ti = airflow.rest.task_instance(PLAIN_DAG, run_id, TASK)
    return {"retry": line.epoch - death.at, "success": _end_epoch(ti) - death.at}


def _new_jobs(standin: StandinProcess, before: set) -> list[dict]:
    return [job for job in standin.jobs() if job["id"] not in before]


def _wait_new_job(standin: StandinProcess, before: set) -> dict:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        jobs = [job for job in _new_jobs(standin, before) if job["state"] == "RUNNING"]
        if jobs:
            return jobs[0]
        time.sleep(0.5)
    raise TimeoutError("the durable task's run never started")


def _first(log, *lines: LogLine):
    """The first line matching one of ``lines`` (waiting for it)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        for event in log.events():
            if any(line.matches(event) for line in lines):
                return event
        time.sleep(0.5)
    return None


def _median(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _fmt(value: float | None, unit: str = "s") -> str:
    return "-" if value is None else f"{value:.1f}{unit}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topology", choices=("local", "celery"), default="local")
    parser.add_argument("--repeat", type=int, default=1, help="samples per way and kind (medians are printed)")
    parser.add_argument("--heartbeat-timeout", type=int, default=20)
    args = parser.parse_args(argv)
    sigterm = "supervisor_sigterm" if args.topology == "local" else "celery_cold_shutdown"
    ways = {"worker SIGKILL": "worker_sigkill", "worker SIGTERM": sigterm}

    started = time.monotonic()
    with StandinProcess("databricks", hold_seconds=600) as standin, deployment(
        args.topology, DAGS, extra_env=standin.airflow_env(), heartbeat_timeout=args.heartbeat_timeout
    ) as airflow:
        airflow.rest.wait_for_dags([DURABLE_DAG, PLAIN_DAG])
        print(f"deployment ({args.topology}) ready in {time.monotonic() - started:.0f}s; "
              f"heartbeat timeout {args.heartbeat_timeout}s; {args.repeat} sample(s) per cell", flush=True)  # fmt: skip
        rows = []
        for label, way in ways.items():
            durable, plain = [], []
            for _ in range(args.repeat):
                plain.append(plain_sample(airflow, way))
                airflow.ensure_running()
                durable.append(durable_sample(airflow, standin, way))
                airflow.ensure_running()
            rows.append((label, durable, plain))
            print(f"  measured {label}", flush=True)

    print()
    print(f"Recovery latency ({args.topology} executor, Databricks stand-in; medians of {args.repeat})")
    header = f"{'death':<16}{'':>2}{'plain retry':>12}{'durable':>10}{'ratio':>8}{'added':>8}  status calls before polling"
    for label, durable, plain in rows:
        print()
        print(header)
        for key, plain_key, name in (("reconnect", "retry", "to retry"), ("success", "success", "to success")):
            p, d = _median([s[plain_key] for s in plain]), _median([s[key] for s in durable])
            ratio = "-" if p in (None, 0) or d is None else f"{d / p:.2f}x"
            added = "-" if p is None or d is None else f"{d - p:+.1f}s"
            calls = _median([s["status_calls"] for s in durable]) if key == "reconnect" else None
            note = "" if calls is None else f"{calls:.0f}"
            if d is None:
                note = f"no reconnect: the retry submitted a new job (jobs: {[s['jobs'] for s in durable]})"
            print(f"{label if key == 'reconnect' else '':<16}{name:>2}  {_fmt(p):>10}{_fmt(d):>10}{ratio:>8}{added:>8}  {note}")
        if label == "worker SIGTERM" and (_median([s["retry"] for s in plain]) or 0) > args.heartbeat_timeout:
            print("  (the plain task did not end on SIGTERM: Airflow only calls on_kill(); it ran to its cap)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
