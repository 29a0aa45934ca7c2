"""benchmarks/triggerer_capacity.py: every row of its table drives its real trigger through the stand-in.

The benchmark itself starts a real triggerer and takes minutes (it is never part of the suite).
This checks, in-process and in seconds, what a wrong row would spoil there: that each trigger
class builds from the row's kwargs and connections, that the stand-in's route recognises its
status call, that the row's "running" reply keeps the trigger waiting, and that its "ended" reply
makes the trigger fire the event the operator that defers to it resumes from.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from benchmarks.triggerer_capacity import CLASSES, StandinServer, TriggerClass

#: row name -> what the operator that defers to the row's trigger reads from its success event
#: (its ``execute_complete``), given the job id the trigger followed.
SUCCESS_EVENT: dict[str, Callable[[str, dict[str, Any]], bool]] = {
    "floor": lambda job, e: e == {"status": "success", "external_id": job},
    "spark-standalone": lambda job, e: e["status"] == "success" and e["external_id"] == job,
    "spark-yarn": lambda job, e: e["status"] == "success" and e["external_id"] == job,
    "spark-kubernetes": lambda job, e: e["status"] == "success" and e["external_id"] == job,
    "databricks": lambda job, e: e["run_state"] and '"SUCCESS"' in e["run_state"] and e["run_id"] == int(job),
    "bigquery": lambda job, e: e["status"] == "success" and e["job_id"] == job,
    "bigquery-upstream": lambda job, e: e["status"] == "success" and e["job_id"] == job,
    "batch": lambda job, e: e == {"status": "success", "job_id": job, "message": "job succeeded"},
    "batch-upstream": lambda job, e: e["status"] == "success" and e["job_id"] == job,
    "snowflake": lambda job, e: e == {"status": "success", "statement_query_ids": [job]},
    "redshift-data": lambda job, e: e == {"status": "success", "external_id": job, "message": "statement finished"},
    "redshift-data-upstream": lambda job, e: e == {"status": "success", "statement_id": job},
    "dbt-cloud": lambda job, e: e["status"] == "success" and e["run_id"] == int(job),
    "dbt-cloud-upstream": lambda job, e: e["status"] == "success" and e["run_id"] == int(job),
    "emr-serverless": lambda job, e: e == {"status": "success", "external_id": job, "message": "job run succeeded"},
    "emr-serverless-upstream": lambda job, e: e["status"] == "success" and e["job_details"]["job_id"] == job,
    "emr-containers": lambda job, e: e == {"status": "success", "external_id": job, "message": "job run completed"},
    "emr-containers-upstream": lambda job, e: e["status"] == "success" and e["job_id"] == job,
    "glue": lambda job, e: e == {"status": "success", "run_id": job, "message": "job run succeeded"},
    "glue-upstream": lambda job, e: e["status"] == "success" and e["run_id"] == job,
    "kubernetes-pod": lambda job, e: (
        e["status"] == "success"
        and f"{e['namespace']}:{e['name']}" == job
        and e["resumable_jobs_pod_uid"] == f"uid-{e['name']}"
    ),
    "kubernetes-pod-upstream": lambda job, e: (
        e["status"] == "success"
        and f"{e['namespace']}:{e['name']}" == job
        and e["resumable_jobs_pod_uid"] == f"uid-{e['name']}"
    ),
}


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    server = StandinServer(tmp_path_factory.mktemp("capacity"), delay=0)
    yield server
    server.stop()


@contextlib.contextmanager
def _in_process(env: dict[str, str]) -> Iterator[None]:
    """What the triggerer's environment does at process start, done in this (already started) process."""
    from resumable_jobs.local.standins import snowflake_route

    if env.get("SSL_CERT_FILE"):  # aiohttp built its default context at import, before the variable
        import aiohttp.connector

        aiohttp.connector._SSL_CONTEXT_VERIFIED.load_verify_locations(cafile=env["SSL_CERT_FILE"])
    if snowflake_route.ENV in env:  # the triggerer loads snowflake_site from PYTHONPATH
        snowflake_route.install(env[snowflake_route.ENV])
    try:
        yield
    finally:
        if snowflake_route.ENV in env:
            snowflake_route.uninstall()


async def _running_then_ended(trigger: Any, job: str, standin: StandinServer) -> tuple[int, bool, dict[str, Any]]:
    """Run the trigger while its job runs; end the job after two status calls. (calls before the end,
    whether the trigger was still waiting then, the event's payload)."""

    async def calls() -> int:
        answer = await asyncio.to_thread(standin.control, "calls")
        return len(answer["calls"].get(job, []))

    events = trigger.run()
    first = asyncio.ensure_future(events.__anext__())
    try:
        while await calls() < 2 and not first.done():
            await asyncio.sleep(0.1)
        before, waiting = await calls(), not first.done()
        await asyncio.to_thread(standin.control, "end", {"at": time.time()})
        event = await asyncio.wait_for(first, 60)
    finally:
        first.cancel()
        await events.aclose()
    return before, waiting, event.payload


@pytest.mark.parametrize("entry", CLASSES, ids=[c.name for c in CLASSES])
def test_each_row_waits_while_running_and_fires_its_success_event_once_ended(
    entry: TriggerClass, standin, tmp_path, monkeypatch
):
    module_name, _, class_name = entry.classpath.rpartition(".")
    trigger_class = getattr(pytest.importorskip(module_name), class_name)
    bench = standin.bench(0.2, tmp_path)
    env = entry.env(bench)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    job = entry.job_id(7)
    standin.control("reset")
    with _in_process(env):
        trigger = trigger_class(**entry.kwargs(job, bench))
        before, waiting, payload = asyncio.run(asyncio.wait_for(_running_then_ended(trigger, job, standin), 90))
    assert before >= 2 and waiting, f"{entry.name} fired while its job ran: {payload}"
    assert SUCCESS_EVENT[entry.name](job, payload), payload
    after = standin.control("calls")
    assert after["calls"][job][-1] >= after["end_at"]  # the event came from a status call that saw the end


def test_every_row_names_the_event_its_operator_resumes_from():
    assert sorted(SUCCESS_EVENT) == sorted(c.name for c in CLASSES)


def test_the_floor_and_probe_triggers_load_by_classpath():
    module = importlib.import_module("benchmarks.capacity_triggers")
    for name in ("FloorTrigger", "LoopLagProbe"):
        trigger = getattr(module, name)(
            **(
                {"job_id": "j", "url": "http://x", "poll_interval": 1}
                if name == "FloorTrigger"
                else {"url": "http://x"}
            )
        )
        classpath, kwargs = trigger.serialize()
        assert classpath == f"benchmarks.capacity_triggers.{name}"
        assert type(trigger)(**kwargs).serialize() == (classpath, kwargs)
