"""The HTTP stand-ins in processes of their own, reached through the real upstream hooks.

The production crash suite trusts that a worker's hook, a retry on another worker and the
triggerer's asynchronous hook all see the same jobs in a stand-in process; these tests check that
through the upstream code paths themselves (sync and async), plus holding, release and cancel.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from resumable_jobs.local.processes import alive
from resumable_jobs.local.standins.bigquery import PROJECT
from resumable_jobs.local.standins.process import StandinProcess

RUN = {"run_name": "t", "tasks": [{"task_key": "etl", "notebook_task": {"notebook_path": "/x"}}]}


@pytest.fixture
def databricks(monkeypatch):
    with StandinProcess("databricks", hold_seconds=120) as standin:
        pid = standin.pid
        for key, value in standin.airflow_env().items():
            monkeypatch.setenv(key, value)
        yield standin
    assert pid is not None and not alive(pid), "the stand-in outlived its stop"


@pytest.fixture
def bigquery(monkeypatch):
    with StandinProcess("bigquery", hold_seconds=120) as standin:
        for key, value in standin.airflow_env().items():
            monkeypatch.setenv(key, value)
        yield standin


def test_databricks_runs_are_held_deduplicated_and_seen_by_the_async_hook(databricks):
    from airflow.providers.databricks.hooks.databricks import DatabricksHook

    hook = DatabricksHook(retry_limit=2, retry_delay=0.1)
    run_id = hook.submit_run({**RUN, "idempotency_token": "token-1"})
    assert hook.submit_run({**RUN, "idempotency_token": "token-1"}) == run_id  # deduplicated
    assert hook.get_run_state(run_id).life_cycle_state == "RUNNING"

    async def read_async():
        async with DatabricksHook(retry_limit=2, retry_delay=0.1) as async_hook:
            return await async_hook.a_get_run_state(run_id)

    assert asyncio.run(read_async()).life_cycle_state == "RUNNING"  # the trigger's path, same run
    assert [(j["id"], j["state"]) for j in databricks.jobs()] == [(run_id, "RUNNING")]
    assert databricks.release(run_id)
    state = hook.get_run_state(run_id)
    assert (state.life_cycle_state, state.result_state) == ("TERMINATED", "SUCCESS")
    other = hook.submit_run({**RUN, "idempotency_token": "token-2"})
    hook.cancel_run(other)
    assert {j["id"]: j["result"] for j in databricks.jobs()} == {run_id: "SUCCESS", other: "CANCELED"}
    gets = [r for r in databricks.requests() if r["endpoint"] == "runs/get"]
    assert len(gets) == 3 and {str(r["run_id"]) for r in gets} == {str(run_id)}


def test_bigquery_jobs_through_a_service_account_key_and_the_emulator_host(bigquery):
    from airflow.providers.google.cloud.hooks.bigquery import BigQueryAsyncHook, BigQueryHook
    from google.api_core.exceptions import Conflict

    assert os.environ["BIGQUERY_EMULATOR_HOST"] == bigquery.url
    hook = BigQueryHook(use_legacy_sql=False)
    config = {"query": {"query": "SELECT 1", "useLegacySql": False}}
    job = hook.insert_job(configuration=config, job_id="j1", project_id=PROJECT, location="EU", nowait=True)
    assert job.state == "RUNNING"
    with pytest.raises(Conflict):  # the 409 the operator relies on to adopt its own job
        hook.insert_job(configuration=config, job_id="j1", project_id=PROJECT, location="EU", nowait=True)

    async def read_async():
        return await BigQueryAsyncHook().get_job_status(job_id="j1", project_id=PROJECT, location="EU")

    assert asyncio.run(read_async())["status"] == "running"  # the trigger's path, same job
    assert bigquery.release("j1")
    assert hook.get_job(job_id="j1", project_id=PROJECT, location="EU").state == "DONE"
    assert [(j["id"], j["state"], j["error"]) for j in bigquery.jobs()] == [("j1", "DONE", None)]


def test_snowflake_statements_through_the_routed_hook_in_another_process():
    """What a task process of the deployment sees: the env the crash suite gives every Airflow process."""
    import json
    import subprocess
    import sys

    probe = (
        "import json, asyncio\n"
        "from resumable_jobs.providers.snowflake.imports import sql_api_hook_class\n"
        "hook = sql_api_hook_class()('snowflake_default')\n"
        "handles = hook.execute_query('SELECT 1; SELECT 2', statement_count=2)\n"
        "status = asyncio.run(hook.get_sql_api_query_status_async(handles[0]))['status']\n"
        "print(json.dumps({'handles': handles, 'status': status}))\n"
    )
    with StandinProcess("snowflake", hold_seconds=120) as snowflake:
        env = {**os.environ, **snowflake.airflow_env()}  # the sitecustomize on PYTHONPATH routes the hook
        out = subprocess.run(
            [sys.executable, "-W", "ignore", "-c", probe], check=False, env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr[-2000:]
        seen = json.loads(out.stdout.strip().splitlines()[-1])
        assert seen["status"] == "running"  # the trigger's async path, same statements
        (request,) = snowflake.jobs()
        assert (request["handles"], request["state"]) == (seen["handles"], "RUNNING")
        assert snowflake.release(seen["handles"][1])
        assert snowflake.jobs()[0]["state"] == "SUCCESS"
DBT_CLOUD_PROBE = """
import asyncio, json
from airflow.providers.dbt.cloud.hooks.dbt import DbtCloudHook
from airflow.providers.dbt.cloud.triggers.dbt import DbtCloudRunJobTrigger

hook = DbtCloudHook()
run = hook.trigger_job_run(job_id=101, cause="probe [airflow-rj:g1-abc]").json()["data"]
status_before = hook.get_job_run_status(run["id"])
listed = hook.get_job_runs(payload={"job_definition_id": 101, "order_by": "-id", "include_related": ["trigger"]})
job = hook.get_job_by_name(project_name="analytics", environment_name="production", job_name="nightly")

async def first_event():
    trigger = DbtCloudRunJobTrigger(conn_id="dbt_cloud_default", run_id=run["id"], end_time=1e12,
                                    poll_interval=0.2, account_id=None)
    async for event in trigger.run():
        return event.payload

print(json.dumps({"run": run["id"], "status": status_before, "job": job["id"],
                  "causes": [r["trigger"]["cause"] for r in listed.json()["data"]]}))
print(json.dumps(asyncio.run(first_event())))
"""


def test_dbt_cloud_runs_over_tls_through_the_real_hook_and_trigger_in_another_process():
    import json
    import subprocess
    import sys
    import threading

    from resumable_jobs.local.net import wait_until

    with StandinProcess("dbt_cloud", hold_seconds=120) as standin:
        env = {**os.environ, **standin.airflow_env()}
        probe = subprocess.Popen(
            [sys.executable, "-c", DBT_CLOUD_PROBE], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

        def release_when_the_trigger_runs() -> None:  # the trigger waits for the held run
            wait_until(
                lambda: any("/projects/" in r["path"] for r in standin.requests()),  # after the sync reads
                timeout=120,
                what="the probe's sync calls",
                interval=0.2,
            )
            standin.release(standin.jobs()[0]["id"])

        releaser = threading.Thread(target=release_when_the_trigger_runs)
        releaser.start()
        out, err = probe.communicate(timeout=300)
        releaser.join(timeout=30)
        assert probe.returncode == 0, err[-3000:]
        first, event = (json.loads(line) for line in out.splitlines() if line.startswith("{"))
        assert first["status"] == 3 and first["job"] == 101  # held RUNNING; names resolved over v3 + v2
        assert first["causes"] == ["probe [airflow-rj:g1-abc]"]
        assert event == {
            "status": "success",
            "message": f"Job run {first['run']} has completed successfully.",
            "run_id": first["run"],
        }
        assert [(j["id"], j["state"]) for j in standin.jobs()] == [(first["run"], "SUCCESS")]
        assert standin.url.startswith("https://")
