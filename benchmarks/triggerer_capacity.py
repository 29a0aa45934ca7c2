"""How one real ``airflow triggerer`` copes with N deferred tasks per trigger class (issue 23).

For every trigger class in :data:`CLASSES` and every N, one case: a fresh ``airflow triggerer``
(Airflow 3.3, SQLite or ``--db postgres``, the environment of ``resumable_jobs.local.airflow_config``)
takes N deferred task instances whose triggers poll one stand-in server (``serve`` below, in its own
process), where every job stays running for the measurement window and then ends - all at the same
instant, or spread over ``--end-spread`` seconds. It prints, per class and N:

* ``start``: seconds from the moment the deferred task instances exist to the first status call
  of the last of them (the triggerer assigns at most ``[triggerer] max_trigger_to_select_per_loop``
  = 50 triggers per loop, so this is mostly Airflow's pace at N = 1,000);
* ``lag p50/p99/max``: poll lag, the interval between two consecutive status calls of one job
  minus the configured poll interval, over the window (after every trigger has started);
* ``stall``: the worst event-loop stall after start-up - the larger of Airflow's "Triggerer's
  async thread was blocked for X seconds" warnings net of the watchdog's own 0.1 s sleep (X - 0.1;
  ``warned`` shows X as printed) and the worst oversleep of a probe trigger
  (:class:`benchmarks.capacity_triggers.LoopLagProbe`, a 50 ms sleep in the same loop);
* ``cpu/call``: CPU seconds of the triggerer (its supervisor and its trigger-runner process) per
  status call, over the window;
* ``rss/trig``: the triggerer's resident memory over the window, minus its idle memory before
  any trigger existed, per trigger;
* ``seen p50/p99/max``: seconds from a job's end to the status call that saw it (the trigger's part
  of the resume: at most one poll interval plus the poll lag);
* ``resume p50/p99/max``: seconds from a job's end (the stand-in's clock) to its task instance's
  ``scheduled_dttm``, the moment the triggerer handed the event to the task instance (state
  ``scheduled``, ``next_method`` set).

How the deferred tasks are made: a DAG with one ``EmptyOperator`` is serialised into the metadata
database (``airflow dags reserialize``); each case creates a DAG run and N task instances of that
task (map indexes 0..N-1), each ``deferred`` on its own ``Trigger`` row built by
``Trigger.from_object`` - the rows the scheduler-side ``defer()`` writes, with the same kwargs
encryption. What this measures: the triggerer alone - assignment, trigger start-up, each
trigger's polls and its event handling up to the database. What it does not measure: the task's
submission and ``defer()`` on a worker, and the scheduler queueing the resumed task (no scheduler
runs); the stand-in and this driver run on the same machine and take CPU of their own.

Adding a trigger class is one :class:`TriggerClass` entry in :data:`CLASSES`: the trigger's
classpath and kwargs, the status call's route on the stand-in (a regular expression over
``"<METHOD> <path?query> <body>"`` with a ``job`` group) and the reply for a running and an ended
job, and the connections it needs (``AIRFLOW_CONN_...``) if any.

Usage (heavy: run it under ``flock /tmp/rj-heavy.lock``)::

    python benchmarks/triggerer_capacity.py                     # N = 100, 500, 1000; every class
    python benchmarks/triggerer_capacity.py --quick             # N = 100, 8 s window
    python benchmarks/triggerer_capacity.py --n 1000 --classes spark-yarn,floor --json out.json

Nothing here asserts a time: run it and read (goal and figures: ``docs/benchmarks.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DAG_ID, TASK_ID = "rj_triggerer_capacity", "wait"
BQ_PROJECT = "test-project"
K8S_NAMESPACE = "bench"
POD_NAMESPACE = "bench-pods"  # KubernetesPodOperator's pods: a namespace of their own, so the two pod routes differ
EMR_APPLICATION, EMR_VIRTUAL_CLUSTER, GLUE_JOB = "00fbenchapp00001", "benchvirtualcluster0001", "bench_job"
DBT_ACCOUNT = 4242
CONN = {"k8s": "rj_bench_k8s", "databricks": "rj_bench_databricks", "aws": "rj_bench_aws", "gcp": "rj_bench_gcp",
        "snowflake": "rj_bench_snowflake", "dbt": "rj_bench_dbt"}  # fmt: skip


@dataclass(frozen=True)
class Bench:
    """What an entry's callables may use: the stand-in's URLs, the poll interval, the scratch folder.

    ``tls_url`` is the same stand-in behind TLS (for clients that only build ``https://`` URLs), with a
    certificate that ``ca_bundle`` (the public roots plus that certificate) trusts.
    """

    url: str
    poll: float
    home: Path
    tls_url: str = ""
    ca_bundle: str = ""


@dataclass(frozen=True)
class TriggerClass:
    """One row of the benchmark: a trigger class and the stand-in's side of its status call."""

    name: str
    #: "ours", "upstream" (a trigger of an upstream provider that an operator of ours defers to), "floor"
    owner: str
    classpath: str
    #: (job id, bench) -> the trigger's constructor kwargs
    kwargs: Callable[[str, Bench], dict[str, Any]]
    #: regular expression over "<METHOD> <path?query> <body>"; its group ``job`` is the job id
    route: str
    #: (job id, ended) -> (HTTP status, JSON reply) of the status call
    reply: Callable[[str, bool], tuple[int, Any]]
    #: (index) -> the job id the trigger follows
    job_id: Callable[[int], str] = field(default=lambda i: f"job-{i:05d}")
    #: (bench) -> environment the triggerer needs (connections)
    env: Callable[[Bench], dict[str, str]] = field(default=lambda bench: {})
    #: (route match) -> the job id, when it is not the ``job`` group as it is
    job_of: Callable[[re.Match[str]], str] = field(default=lambda match: match.group("job"))


# ---------------------------------------------------------------- replies of the stand-in
def _spark_standalone(job: str, ended: bool) -> tuple[int, Any]:
    state = "FINISHED" if ended else "RUNNING"
    return 200, {"action": "SubmissionStatusResponse", "driverState": state, "submissionId": job, "success": True}


def _yarn(job: str, ended: bool) -> tuple[int, Any]:
    state, final = ("FINISHED", "SUCCEEDED") if ended else ("RUNNING", "UNDEFINED")
    return 200, {"app": {"id": job, "state": state, "finalStatus": final, "diagnostics": "", "startedTime": 1}}


def _pod_of(container_name: str, image: str) -> Callable[[str, bool], tuple[int, Any]]:
    """The reply of ``GET /api/v1/namespaces/{ns}/pods/{name}`` for a one-container pod (job = ``ns:name``)."""

    def reply(job: str, ended: bool) -> tuple[int, Any]:
        namespace, _, name = job.partition(":")
        state = (
            {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2026-01-01T00:00:00Z"}}
            if ended
            else {"running": {"startedAt": "2026-01-01T00:00:00Z"}}
        )
        container = {"name": container_name, "image": image, "imageID": "", "ready": not ended,
                     "restartCount": 0, "state": state}  # fmt: skip
        return 200, {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
            "spec": {"containers": [{"name": container_name, "image": image}]},
            "status": {"phase": "Succeeded" if ended else "Running", "containerStatuses": [container]},
        }

    return reply


_pod = _pod_of("spark-kubernetes-driver", "spark")


def _databricks(job: str, ended: bool) -> tuple[int, Any]:
    state: dict[str, Any] = {"life_cycle_state": "TERMINATED" if ended else "RUNNING", "state_message": ""}
    if ended:
        state["result_state"] = "SUCCESS"
    return 200, {"run_id": int(job), "job_id": 1, "run_page_url": f"http://databricks.test/#run/{job}", "state": state,
                 "tasks": [{"task_key": "t", "run_id": int(job) * 10, "state": state}]}  # fmt: skip


def _bigquery(job: str, ended: bool) -> tuple[int, Any]:
    return 200, {
        "kind": "bigquery#job",
        "id": f"{BQ_PROJECT}:EU.{job}",
        "jobReference": {"projectId": BQ_PROJECT, "jobId": job, "location": "EU"},
        "configuration": {"jobType": "QUERY", "query": {"query": "SELECT 1", "useLegacySql": False}},
        "status": {"state": "DONE" if ended else "RUNNING"},
        "statistics": {"creationTime": "1767225600000", "startTime": "1767225600100"},
    }


def _batch(job: str, ended: bool) -> tuple[int, Any]:
    return 200, {"jobs": [{"jobName": "bench", "jobId": job, "jobArn": f"arn:aws:batch:us-east-1:123456789012:job/{job}",
                           "jobQueue": "bench", "status": "SUCCEEDED" if ended else "RUNNING", "createdAt": 1,
                           "startedAt": 2, "jobDefinition": "bench:1"}]}  # fmt: skip


def _snowflake(job: str, ended: bool) -> tuple[int, Any]:
    """``GET /api/v2/statements/{handle}``: 202 while it runs, 200 with the result once it succeeded."""
    from resumable_jobs.local.standins.snowflake import RUNNING, SUCCESS, SnowflakeStatement

    statement = SnowflakeStatement(job, "SELECT 1", state=SUCCESS if ended else RUNNING, ended=1767225600.0)
    return statement.answer(request_id="")


def _redshift_data(job: str, ended: bool) -> tuple[int, Any]:
    """``RedshiftData.DescribeStatement`` (JSON 1.1): ``Status`` STARTED, then FINISHED."""
    reply = {"Id": job, "Status": "FINISHED" if ended else "STARTED", "QueryString": "SELECT 1",
             "ClusterIdentifier": "bench", "Database": "dev", "DbUser": "awsuser", "HasResultSet": True,
             "CreatedAt": 1767225600.0, "UpdatedAt": 1767225601.0, "RedshiftPid": 1073, "RedshiftQueryId": 0}  # fmt: skip
    if ended:
        reply.update(ResultRows=1, ResultSize=10, Duration=1_000_000_000)
    return 200, reply


def _emr_serverless(job: str, ended: bool) -> tuple[int, Any]:
    """EMR Serverless ``GetJobRun`` (REST-JSON): ``jobRun.state`` RUNNING, then SUCCESS."""
    return 200, {"jobRun": {
        "applicationId": EMR_APPLICATION, "jobRunId": job, "name": "bench",
        "arn": f"arn:aws:emr-serverless:us-east-1:123456789012:/applications/{EMR_APPLICATION}/jobruns/{job}",
        "createdBy": "arn:aws:iam::123456789012:user/bench", "createdAt": 1767225600.0, "updatedAt": 1767225601.0,
        "executionRole": "arn:aws:iam::123456789012:role/bench", "state": "SUCCESS" if ended else "RUNNING",
        "stateDetails": "", "releaseLabel": "emr-7.0.0",
        "jobDriver": {"sparkSubmit": {"entryPoint": "s3://bench/job.py"}},
    }}  # fmt: skip


def _emr_containers(job: str, ended: bool) -> tuple[int, Any]:
    """EMR on EKS ``DescribeJobRun`` (REST-JSON): ``jobRun.state`` RUNNING, then COMPLETED."""
    return 200, {"jobRun": {
        "id": job, "name": "bench", "virtualClusterId": EMR_VIRTUAL_CLUSTER,
        "arn": f"arn:aws:emr-containers:us-east-1:123456789012:/virtualclusters/{EMR_VIRTUAL_CLUSTER}/jobruns/{job}",
        "state": "COMPLETED" if ended else "RUNNING", "clientToken": f"token-{job}",
        "executionRoleArn": "arn:aws:iam::123456789012:role/bench", "releaseLabel": "emr-7.0.0-latest",
        "createdAt": 1767225600.0, "createdBy": "arn:aws:iam::123456789012:user/bench",
        "jobDriver": {"sparkSubmitJobDriver": {"entryPoint": "s3://bench/job.py"}},
    }}  # fmt: skip


def _glue(job: str, ended: bool) -> tuple[int, Any]:
    """Glue ``GetJobRun`` (JSON 1.1): ``JobRun.JobRunState`` RUNNING, then SUCCEEDED."""
    run = {"Id": job, "Attempt": 0, "JobName": GLUE_JOB, "StartedOn": 1767225600.0, "LastModifiedOn": 1767225601.0,
           "JobRunState": "SUCCEEDED" if ended else "RUNNING", "ExecutionTime": 1 if ended else 0,
           "GlueVersion": "4.0", "WorkerType": "G.1X", "NumberOfWorkers": 2}  # fmt: skip
    if ended:
        run["CompletedOn"] = 1767225700.0
    return 200, {"JobRun": run}


def _dbt_cloud(job: str, ended: bool) -> tuple[int, Any]:
    """dbt Cloud ``GET /api/v2/accounts/{account}/runs/{run}/``: ``data.status`` 3 (running), then 10 (success)."""
    from resumable_jobs.local.standins.dbt_cloud import RUNNING, SUCCESS, DbtCloudRun

    run = DbtCloudRun(int(job), 101, "bench", status=SUCCESS if ended else RUNNING, created=1767225600.0)
    return 200, {"data": run.describe(), "status": {"code": 200, "is_success": True, "user_message": "Success!",
                                                    "developer_message": ""}}  # fmt: skip


def _floor(job: str, ended: bool) -> tuple[int, Any]:
    return 200, {"state": "DONE" if ended else "RUNNING"}


# ---------------------------------------------------------------- connections
def _k8s_env(bench: Bench) -> dict[str, str]:
    kubeconfig = bench.home / "kubeconfig"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "bench",
        "clusters": [{"name": "bench", "cluster": {"server": bench.url}}],
        "users": [{"name": "airflow", "user": {"token": "bench"}}],
        "contexts": [{"name": "bench", "context": {"cluster": "bench", "user": "airflow"}}],
    }))  # fmt: skip
    extra = {"kube_config_path": str(kubeconfig)}
    return {f"AIRFLOW_CONN_{CONN['k8s'].upper()}": json.dumps({"conn_type": "kubernetes", "extra": extra})}


def _databricks_env(bench: Bench) -> dict[str, str]:
    host, port = bench.url.removeprefix("http://").split(":")
    connection = {"conn_type": "databricks", "host": host, "port": int(port), "schema": "http", "password": "bench"}
    return {f"AIRFLOW_CONN_{CONN['databricks'].upper()}": json.dumps(connection)}


def _aws_env(bench: Bench) -> dict[str, str]:
    connection = {"conn_type": "aws", "login": "bench", "password": "bench",
                  "extra": {"endpoint_url": bench.url, "region_name": "us-east-1"}}  # fmt: skip
    return {f"AIRFLOW_CONN_{CONN['aws'].upper()}": json.dumps(connection)}


def _gcp_env(bench: Bench) -> dict[str, str]:
    from resumable_jobs.local.standins.bigquery import service_account_info

    keyfile = service_account_info(f"{bench.url}/token", BQ_PROJECT)
    connection = {
        "conn_type": "google_cloud_platform",
        "extra": {"project": BQ_PROJECT, "keyfile_dict": json.dumps(keyfile)},
    }
    return {f"AIRFLOW_CONN_{CONN['gcp'].upper()}": json.dumps(connection), "BIGQUERY_EMULATOR_HOST": bench.url}


def _snowflake_env(bench: Bench) -> dict[str, str]:
    """A key-pair connection, and ``*.snowflakecomputing.com`` routed to the stand-in in every Airflow process.

    The hook only builds ``https://<account>.snowflakecomputing.com`` URLs; the crash suite's
    ``snowflake_site`` (a ``sitecustomize`` on ``PYTHONPATH``) routes them to ``RJ_SNOWFLAKE_SQL_API_URL``.
    The benchmark's stand-in does not check the JWT (the Snowflake stand-in's tests do).
    """
    from resumable_jobs.local.standins import snowflake, snowflake_route

    site = Path(snowflake.__file__).with_name("snowflake_site")
    private, _ = snowflake.key_pair()
    return {
        f"AIRFLOW_CONN_{CONN['snowflake'].upper()}": json.dumps(snowflake.connection(private)),
        snowflake_route.ENV: bench.url,
        "PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p),
    }


def _dbt_env(bench: Bench) -> dict[str, str]:
    """The dbt Cloud connection to the TLS listener, trusted through the stand-in's CA bundle (requests, aiohttp)."""
    if not bench.tls_url:
        raise RuntimeError("the dbt-cloud row needs the stand-in's TLS listener (Bench.tls_url)")
    connection = {"conn_type": "dbt_cloud", "host": bench.tls_url.removeprefix("https://"),
                  "login": str(DBT_ACCOUNT), "password": "dbtc-bench"}  # fmt: skip
    return {
        f"AIRFLOW_CONN_{CONN['dbt'].upper()}": json.dumps(connection),
        "REQUESTS_CA_BUNDLE": bench.ca_bundle,
        "SSL_CERT_FILE": bench.ca_bundle,
    }


def _snowflake_kwargs(job: str, bench: Bench) -> dict[str, Any]:
    """What ``SnowflakeSqlApiOperator.build_trigger`` gives our trigger with its defaults (one statement)."""
    import datetime

    return {
        "poll_interval": bench.poll,
        "query_ids": [job],
        "snowflake_conn_id": CONN["snowflake"],
        "token_life_time": datetime.timedelta(minutes=59),
        "token_renewal_delta": datetime.timedelta(minutes=54),
        "cancel_on_kill": True,
    }


def _bigquery_kwargs(job: str, bench: Bench) -> dict[str, Any]:
    """What ``BigQueryInsertJobOperator.build_trigger`` gives the trigger (ours and upstream's)."""
    return {"conn_id": CONN["gcp"], "job_id": job, "project_id": BQ_PROJECT, "location": "EU", "poll_interval": bench.poll}


def _dbt_kwargs(job: str, bench: Bench) -> dict[str, Any]:
    """What ``DbtCloudRunJobOperator.build_trigger`` gives the trigger with its defaults (ours and upstream's)."""
    return {
        "conn_id": CONN["dbt"],
        "run_id": int(job),
        "end_time": time.time() + 7 * 24 * 3600,  # the operator's default timeout: a week
        "account_id": DBT_ACCOUNT,
        "poll_interval": bench.poll,
        "hook_params": {},
    }


def _pod_trigger_kwargs(job: str, bench: Bench) -> dict[str, Any]:
    """What ``KubernetesPodOperator.build_trigger`` gives its trigger with its defaults (ours and upstream's take the same)."""
    import datetime

    from resumable_jobs.providers.kubernetes.pod import UID_EVENT_KEY

    namespace, _, name = job.partition(":")
    return {
        "pod_name": name,
        "pod_namespace": namespace,
        "trigger_start_time": datetime.datetime.now(tz=datetime.timezone.utc),
        "kubernetes_conn_id": CONN["k8s"],
        "connection_extras": {"kube_config_path": str(bench.home / "kubeconfig")},
        "cluster_context": None,
        "config_dict": None,
        "in_cluster": None,
        "poll_interval": bench.poll,
        "get_logs": True,
        "startup_timeout": 120,
        "startup_check_interval": 5,
        "log_events_on_startup": True,
        "schedule_timeout": 120,
        "base_container_name": "base",
        "on_finish_action": "delete_pod",
        "on_kill_action": "delete_pod",
        "termination_grace_period": None,
        "logging_interval": None,
        "trigger_kwargs": {UID_EVENT_KEY: f"uid-{name}"},
    }


def _aws_kwargs(bench: Bench) -> dict[str, Any]:
    """The connection arguments every AWS operator of ours passes its trigger."""
    return {"aws_conn_id": CONN["aws"], "region_name": "us-east-1", "verify": None, "botocore_config": None}


#: Every trigger class the benchmark measures. Add a row for a new family's trigger.
CLASSES: list[TriggerClass] = [
    TriggerClass(
        "floor",
        "floor",
        "benchmarks.capacity_triggers.FloorTrigger",
        lambda job, b: {"job_id": job, "url": b.url, "poll_interval": b.poll},
        r"^GET /floor/(?P<job>[^/? ]+)",
        _floor,
    ),
    TriggerClass(
        "spark-standalone",
        "ours",
        "resumable_jobs.providers.spark.trigger.SparkDriverTrigger",
        lambda job, b: {"driver_id": job, "rest_urls": [b.url], "poll_interval": b.poll},
        r"^GET /v1/submissions/status/(?P<job>[^/? ]+)",
        _spark_standalone,
        job_id=lambda i: f"driver-20260101000000-{i:05d}",
    ),
    TriggerClass(
        "spark-yarn",
        "ours",
        "resumable_jobs.providers.spark.yarn.trigger.YarnApplicationTrigger",
        lambda job, b: {"app_id": job, "rm_urls": [b.url], "poll_interval": b.poll},
        r"^GET /ws/v1/cluster/apps/(?P<job>[^/? ]+)",
        _yarn,
        job_id=lambda i: f"application_1767225600000_{i:05d}",
    ),
    TriggerClass(
        "spark-kubernetes",
        "ours",
        "resumable_jobs.providers.spark.kubernetes.trigger.KubernetesDriverPodTrigger",
        lambda job, b: {"app_id": job, "kubernetes_conn_id": CONN["k8s"], "poll_interval": b.poll},
        rf"^GET /api/v1/namespaces/(?P<ns>{K8S_NAMESPACE})/pods/(?P<name>[^/? ]+)",
        _pod,
        job_id=lambda i: f"{K8S_NAMESPACE}:driver-{i:05d}",
        env=_k8s_env,
        job_of=lambda m: f"{m['ns']}:{m['name']}",
    ),
    TriggerClass(
        "databricks",
        "upstream",
        "airflow.providers.databricks.triggers.databricks.DatabricksExecutionTrigger",
        lambda job, b: {"run_id": int(job), "databricks_conn_id": CONN["databricks"], "polling_period_seconds": b.poll},
        r'^GET /api/2\.\d/jobs/runs/get[? ].*?run_id["=:\s]+(?P<job>\d+)',
        _databricks,  # query or JSON body
        job_id=lambda i: str(100000 + i),
        env=_databricks_env,
    ),
    TriggerClass(
        "bigquery",
        "ours",
        "resumable_jobs.providers.google.trigger.BigQueryJobTrigger",
        _bigquery_kwargs,
        rf"^GET /bigquery/v2/projects/{BQ_PROJECT}/jobs/(?P<job>[^/? ]+)",
        _bigquery,
        env=_gcp_env,
    ),
    TriggerClass(
        "bigquery-upstream",
        "upstream",
        "airflow.providers.google.cloud.triggers.bigquery.BigQueryInsertJobTrigger",
        _bigquery_kwargs,
        rf"^GET /bigquery/v2/projects/{BQ_PROJECT}/jobs/(?P<job>[^/? ]+)",
        _bigquery,
        env=_gcp_env,
    ),
    TriggerClass(
        "batch",
        "ours",
        "resumable_jobs.providers.amazon.batch_trigger.BatchJobStatusTrigger",
        lambda job, b: {
            "job_id": job,
            "waiter_delay": max(1, round(b.poll)),
            "waiter_max_attempts": 100000,
            **_aws_kwargs(b),
        },
        r'^POST /v1/describejobs .*"jobs":\s*\[\s*"(?P<job>[^"]+)"',
        _batch,
        env=_aws_env,
    ),
    TriggerClass(
        "batch-upstream",
        "upstream",
        "airflow.providers.amazon.aws.triggers.batch.BatchJobTrigger",
        lambda job, b: {
            "job_id": job,
            "aws_conn_id": CONN["aws"],
            "region_name": "us-east-1",
            "waiter_delay": max(1, round(b.poll)),
            "waiter_max_attempts": 100000,
        },
        r'^POST /v1/describejobs .*"jobs":\s*\[\s*"(?P<job>[^"]+)"',
        _batch,
        env=_aws_env,
    ),
    TriggerClass(
        "snowflake",
        "ours",
        "resumable_jobs.providers.snowflake.trigger.SnowflakeStatementsTrigger",
        _snowflake_kwargs,
        r"^GET /api/v2/statements/(?P<job>[^/? ]+)",
        _snowflake,
        job_id=lambda i: f"01bench0-0000-4000-8000-{i:012d}",
        env=_snowflake_env,
    ),
    TriggerClass(
        "redshift-data",
        "ours",
        "resumable_jobs.providers.amazon.redshift_trigger.RedshiftDataStatementTrigger",
        lambda job, b: {"statement_id": job, "poll_interval": b.poll, **_aws_kwargs(b), "cancel_on_kill": True},
        r'^POST / \{.*"Id":\s*"(?P<job>rsd-[^"]+)"',  # X-Amz-Target: RedshiftData.DescribeStatement
        _redshift_data,
        job_id=lambda i: f"rsd-0000-4000-8000-{i:012d}",
        env=_aws_env,
    ),
    TriggerClass(
        "redshift-data-upstream",
        "upstream",
        "airflow.providers.amazon.aws.triggers.redshift_data.RedshiftDataTrigger",
        lambda job, b: {
            "statement_id": job,
            "task_id": TASK_ID,
            "poll_interval": b.poll,
            **_aws_kwargs(b),
            "cancel_on_kill": True,
        },
        r'^POST / \{.*"Id":\s*"(?P<job>rsd-[^"]+)"',  # X-Amz-Target: RedshiftData.DescribeStatement
        _redshift_data,
        job_id=lambda i: f"rsd-0000-4000-8000-{i:012d}",
        env=_aws_env,
    ),
    TriggerClass(
        "dbt-cloud",
        "ours",
        "resumable_jobs.providers.dbt.trigger.DbtCloudRunTrigger",
        _dbt_kwargs,
        rf"^GET /api/v2/accounts/{DBT_ACCOUNT}/runs/(?P<job>\d+)/",
        _dbt_cloud,
        job_id=lambda i: str(700000 + i),
        env=_dbt_env,
    ),
    TriggerClass(
        "dbt-cloud-upstream",
        "upstream",
        "airflow.providers.dbt.cloud.triggers.dbt.DbtCloudRunJobTrigger",
        _dbt_kwargs,
        rf"^GET /api/v2/accounts/{DBT_ACCOUNT}/runs/(?P<job>\d+)/",
        _dbt_cloud,
        job_id=lambda i: str(700000 + i),
        env=_dbt_env,
    ),
    TriggerClass(
        "emr-serverless",
        "ours",
        "resumable_jobs.providers.amazon.emr_serverless_trigger.EmrServerlessJobRunTrigger",
        lambda job, b: {
            "application_id": EMR_APPLICATION,
            "job_id": job,
            "waiter_delay": max(1, round(b.poll)),
            "waiter_max_attempts": 100000,
            **_aws_kwargs(b),
            "cancel_on_kill": True,
        },
        rf"^GET /applications/{EMR_APPLICATION}/jobruns/(?P<job>[^/? ]+)",
        _emr_serverless,
        job_id=lambda i: f"00fbenchrun{i:05d}",
        env=_aws_env,
    ),
    TriggerClass(
        "emr-serverless-upstream",
        "upstream",
        "airflow.providers.amazon.aws.triggers.emr.EmrServerlessStartJobTrigger",
        lambda job, b: {
            "application_id": EMR_APPLICATION,
            "job_id": job,
            "waiter_delay": max(1, round(b.poll)),
            "waiter_max_attempts": 100000,  # the benchmark outlasts the default 25 attempts x 2 s
            **_aws_kwargs(b),
            "cancel_on_kill": True,
        },
        rf"^GET /applications/{EMR_APPLICATION}/jobruns/(?P<job>[^/? ]+)",
        _emr_serverless,
        job_id=lambda i: f"00fbenchrun{i:05d}",
        env=_aws_env,
    ),
    TriggerClass(
        "emr-containers",
        "ours",
        "resumable_jobs.providers.amazon.emr_containers_trigger.EmrContainerJobRunTrigger",
        lambda job, b: {
            "virtual_cluster_id": EMR_VIRTUAL_CLUSTER,
            "job_id": job,
            **_aws_kwargs(b),
            "waiter_delay": max(1, round(b.poll)),
            "cancel_on_kill": True,
        },
        rf"^GET /virtualclusters/{EMR_VIRTUAL_CLUSTER}/jobruns/(?P<job>[^/? ]+)",
        _emr_containers,
        job_id=lambda i: f"benchjobrun{i:09d}",
        env=_aws_env,
    ),
    TriggerClass(
        "emr-containers-upstream",
        "upstream",
        "airflow.providers.amazon.aws.triggers.emr.EmrContainerTrigger",
        lambda job, b: {
            "virtual_cluster_id": EMR_VIRTUAL_CLUSTER,
            "job_id": job,
            **_aws_kwargs(b),
            "waiter_delay": max(1, round(b.poll)),
            "cancel_on_kill": True,
        },
        rf"^GET /virtualclusters/{EMR_VIRTUAL_CLUSTER}/jobruns/(?P<job>[^/? ]+)",
        _emr_containers,
        job_id=lambda i: f"benchjobrun{i:09d}",
        env=_aws_env,
    ),
    TriggerClass(
        "glue",
        "ours",
        "resumable_jobs.providers.amazon.glue_trigger.GlueJobRunTrigger",
        lambda job, b: {
            "job_name": GLUE_JOB,
            "run_id": job,
            "waiter_delay": max(1, round(b.poll)),
            "waiter_max_attempts": 100000,
            **_aws_kwargs(b),
        },
        r'^POST / \{.*"RunId":\s*"(?P<job>jr_[^"]+)"',  # X-Amz-Target: AWSGlue.GetJobRun
        _glue,
        job_id=lambda i: f"jr_bench{i:056d}",
        env=_aws_env,
    ),
    TriggerClass(
        "glue-upstream",
        "upstream",
        "airflow.providers.amazon.aws.triggers.glue.GlueJobCompleteTrigger",
        lambda job, b: {
            "job_name": GLUE_JOB,
            "run_id": job,
            "verbose": False,
            "waiter_delay": max(1, round(b.poll)),
            "waiter_max_attempts": 100000,  # the operator's default 75 x 2 s is shorter than a run at N = 1,000
            **_aws_kwargs(b),
        },
        r'^POST / \{.*"RunId":\s*"(?P<job>jr_[^"]+)"',  # X-Amz-Target: AWSGlue.GetJobRun
        _glue,
        job_id=lambda i: f"jr_bench{i:056d}",
        env=_aws_env,
    ),
    TriggerClass(
        "kubernetes-pod",
        "ours",
        "resumable_jobs.providers.kubernetes.trigger.PodTrigger",
        _pod_trigger_kwargs,
        rf"^GET /api/v1/namespaces/(?P<ns>{POD_NAMESPACE})/pods/(?P<name>[^/? ]+)",
        _pod_of("base", "busybox"),
        job_id=lambda i: f"{POD_NAMESPACE}:bench-pod-{i:05d}",
        env=_k8s_env,
        job_of=lambda m: f"{m['ns']}:{m['name']}",
    ),
    TriggerClass(
        "kubernetes-pod-upstream",
        "upstream",
        "airflow.providers.cncf.kubernetes.triggers.pod.KubernetesPodTrigger",
        _pod_trigger_kwargs,
        rf"^GET /api/v1/namespaces/(?P<ns>{POD_NAMESPACE})/pods/(?P<name>[^/? ]+)",
        _pod_of("base", "busybox"),
        job_id=lambda i: f"{POD_NAMESPACE}:bench-pod-{i:05d}",
        env=_k8s_env,
        job_of=lambda m: f"{m['ns']}:{m['name']}",
    ),
]
CLASS_BY_NAME = {c.name: c for c in CLASSES}


# ---------------------------------------------------------------- the stand-in server (own process)
def job_end(job: str, end_at: float, spread: float) -> float:
    """When ``job`` ends: ``end_at``, plus a fixed fraction of ``spread`` drawn from the job id (0: all at once)."""
    return end_at + spread * (zlib.crc32(job.encode()) / 2**32)


def serve(port_file: Path, delay: float) -> None:
    """Answer every class's status call after ``delay`` seconds; record each call's time per job."""
    from aiohttp import web

    routes = [(re.compile(c.route, re.DOTALL), c) for c in CLASSES]
    state: dict[str, Any] = {"end_at": None, "spread": 0.0, "calls": {}, "probe": [], "stop_probe": False}

    async def api(request: web.Request) -> web.Response:
        arrived = time.time()
        body = await request.text() if request.can_read_body else ""
        if request.method == "POST" and request.path == "/token":  # google-auth's token refresh
            return web.json_response({"access_token": "bench", "expires_in": 3600, "token_type": "Bearer"})
        key = f"{request.method} {request.path_qs} {body}"
        for pattern, entry in routes:
            match = pattern.search(key)
            if match:
                job = entry.job_of(match)
                state["calls"].setdefault(job, []).append(arrived)
                ended = state["end_at"] is not None and arrived >= job_end(job, state["end_at"], state["spread"])
                if delay:
                    await asyncio.sleep(delay)
                status, reply = entry.reply(job, ended)
                return web.json_response(reply, status=status)
        return web.json_response(
            {"message": f"the benchmark stand-in has no {request.method} {request.path}"}, status=404
        )

    async def control(request: web.Request) -> web.Response:
        action = request.match_info["action"]
        body = await request.json() if request.can_read_body else {}
        if action == "reset":
            state.update(end_at=None, spread=0.0, calls={}, probe=[], stop_probe=False)
        elif action == "end":
            state["end_at"], state["spread"] = float(body["at"]), float(body.get("spread", 0.0))
        elif action == "stop_probe":
            state["stop_probe"] = True
        elif action == "probe":
            state["probe"].append((float(body["t"]), float(body["lag"])))
            return web.json_response({"stop": state["stop_probe"]})
        return web.json_response({"calls": state["calls"], "probe": state["probe"], "end_at": state["end_at"]})

    app = web.Application(client_max_size=2**20)
    app.router.add_route("*", "/_bench/{action}", control)
    app.router.add_route("*", "/{tail:.*}", api)

    async def main() -> None:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=2048)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # the port the kernel chose
        certificate = _certificate(port_file.parent)
        if certificate.cert_file.exists():  # the same routes over TLS, for clients that only build https URLs
            tls = web.TCPSite(runner, "127.0.0.1", 0, backlog=2048, ssl_context=certificate.server_context())
            await tls.start()
            _tls_port_file(port_file).write_text(str(tls._server.sockets[0].getsockname()[1]))
        port_file.with_suffix(".tmp").write_text(str(port))
        port_file.with_suffix(".tmp").rename(port_file)
        await asyncio.Event().wait()

    asyncio.run(main())


def _certificate(home: Path) -> Any:
    from resumable_jobs.local.tls import LocalCertificate

    directory = home / "standin-tls"
    return LocalCertificate(directory / "standin-cert.pem", directory / "standin-key.pem")


def _tls_port_file(port_file: Path) -> Path:
    return port_file.with_name("standin-tls.port")


class StandinServer:
    """The stand-in server's process, and its control calls.

    It listens on ``url`` (http) and ``tls_url`` (https, with a certificate made for this run that
    ``ca_bundle`` trusts).
    """

    def __init__(self, home: Path, delay: float) -> None:
        from resumable_jobs.local.tls import LocalCertificate

        certificate = LocalCertificate.create(_certificate(home).cert_file.parent)
        self.ca_bundle = certificate.bundle(certificate.cert_file.parent / "ca-bundle.pem")
        port_file = home / "standin.port"
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(port_file), "--delay", str(delay)],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        deadline = time.monotonic() + 60
        while not port_file.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the benchmark's stand-in server did not start")
            time.sleep(0.1)
        self.url = f"http://127.0.0.1:{port_file.read_text()}"
        self.tls_url = f"https://127.0.0.1:{_tls_port_file(port_file).read_text()}"

    def bench(self, poll: float, home: Path) -> Bench:
        """What the rows' callables get: both URLs, the CA bundle, ``poll`` and the scratch folder ``home``."""
        return Bench(self.url, poll, home, self.tls_url, str(self.ca_bundle))

    def control(self, action: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.url}/_bench/{action}", data=json.dumps(body or {}).encode(), method="POST",
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=120) as reply:
            return json.loads(reply.read())

    def stop(self) -> None:
        self.process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(10)
        if self.process.poll() is None:
            self.process.kill()


# ---------------------------------------------------------------- the metadata database
_DAG_FILE = f'''
import pendulum
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG

with DAG("{DAG_ID}", schedule=None, start_date=pendulum.datetime(2026, 1, 1)):
    EmptyOperator(task_id="{TASK_ID}")
'''


def seed(run_id: str, triggers: list[Any]) -> None:
    """A DAG run with one deferred task instance per trigger (map index = position), as ``defer()`` leaves them."""
    from airflow.models.serialized_dag import SerializedDagModel
    from airflow.models.taskinstance import TaskInstance
    from airflow.models.trigger import Trigger
    from airflow.utils.session import create_session
    from airflow.utils.state import DagRunState, TaskInstanceState
    from airflow.utils.types import DagRunTriggeredByType, DagRunType

    with create_session() as session:
        dag = SerializedDagModel.get_dag(DAG_ID, session=session)
        now = _utcnow()
        run = dag.create_dagrun(
            run_id=run_id, logical_date=now, data_interval=(now, now), run_after=now, run_type=DagRunType.MANUAL,
            triggered_by=DagRunTriggeredByType.TEST, state=DagRunState.RUNNING, session=session,
        )  # fmt: skip
        session.flush()
        unmapped = run.get_task_instance(TASK_ID, session=session)
        version, task = unmapped.dag_version_id, dag.get_task(TASK_ID)
        session.delete(unmapped)
        rows = [Trigger.from_object(trigger) for trigger in triggers]
        session.add_all(rows)
        session.flush()
        for index, row in enumerate(rows):
            ti = TaskInstance(task, run_id=run_id, map_index=index, dag_version_id=version)
            ti.state, ti.trigger_id, ti.try_number = TaskInstanceState.DEFERRED, row.id, 1
            ti.next_method, ti.next_kwargs = "execute_complete", {}
            session.add(ti)


def task_instances(run_id: str) -> list[tuple[int, str | None, Any]]:
    from airflow.models.taskinstance import TaskInstance
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        query = select(TaskInstance.map_index, TaskInstance.state, TaskInstance.scheduled_dttm).where(
            TaskInstance.dag_id == DAG_ID, TaskInstance.run_id == run_id
        )
        return [tuple(row) for row in session.execute(query).all()]


def clean_up(run_id: str) -> None:
    """Fail what is still deferred and drop every trigger row, so the next case's triggerer starts empty."""
    from airflow.models.taskinstance import TaskInstance
    from airflow.models.trigger import Trigger
    from airflow.utils.session import create_session
    from sqlalchemy import delete, update

    with create_session() as session:
        session.execute(
            update(TaskInstance)
            .where(TaskInstance.dag_id == DAG_ID, TaskInstance.run_id == run_id, TaskInstance.state == "deferred")
            .values(state="failed", trigger_id=None)
        )
        session.execute(update(TaskInstance).values(trigger_id=None))
        session.execute(delete(Trigger))


def _utcnow() -> Any:
    import datetime

    return datetime.datetime.now(datetime.timezone.utc)


# ---------------------------------------------------------------- one case
@dataclass
class Case:
    name: str
    owner: str
    n: int
    start: float | None = None
    lag: tuple[float, float, float] | None = None
    warning: float = 0.0
    stall_warning: float = 0.0
    stall_probe: float = 0.0
    cpu_per_call: float | None = None
    rss_per_trigger_kib: float | None = None
    seen: tuple[float, float, float] | None = None
    resume: tuple[float, float, float] | None = None
    resumed: int = 0
    calls: int = 0
    note: str = ""

    @property
    def stall(self) -> float:
        return max(self.stall_warning, self.stall_probe)


def _pcts(values: list[float]) -> tuple[float, float, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99, ordered[-1]


def _tree(pid: int) -> list[Any]:
    import psutil

    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def _cpu(pid: int) -> float:
    total = 0.0
    for process in _tree(pid):
        with contextlib.suppress(Exception):
            times = process.cpu_times()
            total += times.user + times.system
    return total


def _rss(pid: int) -> int:
    total = 0
    for process in _tree(pid):
        with contextlib.suppress(Exception):
            total += process.memory_info().rss
    return total


_BLOCKED = re.compile(r"async thread was blocked for (\d+(?:\.\d+)?) seconds")
#: Airflow's watchdog sleeps 0.1 s and warns with the whole time that sleep took: the stall is the rest.
WATCHDOG_TICK = 0.1


def run_case(entry: TriggerClass, n: int, args: argparse.Namespace, env: dict[str, str], server: StandinServer,
             bench: Bench, seq: int) -> Case:  # fmt: skip
    from resumable_jobs.local.processes import start_group, stop_group

    case = Case(entry.name, entry.owner, n)
    run_id = f"capacity_{seq:03d}_{entry.name}_{n}"
    server.control("reset")
    log = bench.home / f"triggerer-{seq:03d}-{entry.name}-{n}.log"
    triggerer = start_group(
        [sys.executable, "-m", "airflow", "triggerer", "--capacity", str(n + 10), "--skip-serve-logs"],
        env=env, log_path=log, cwd=bench.home,
    )  # fmt: skip
    try:
        _wait(
            lambda: "Starting the triggerer" in log.read_text(errors="replace"),
            120,
            "the triggerer to start",
            triggerer,
        )
        _wait(lambda: len(_tree(triggerer.pid)) > 1, 60, "the trigger runner process", triggerer)
        time.sleep(2)
        idle_rss = _rss(triggerer.pid)

        module, _, name = entry.classpath.rpartition(".")
        cls = getattr(__import__(module, fromlist=[name]), name)
        from benchmarks.capacity_triggers import LoopLagProbe

        jobs = [entry.job_id(i) for i in range(n)]
        seeded = time.time()
        seed(run_id, [cls(**entry.kwargs(job, bench)) for job in jobs] + [LoopLagProbe(server.url)])

        def started() -> bool:
            return len(server.control("calls")["calls"]) >= n

        _wait(started, args.start_timeout, f"all {n} {entry.name} triggers to poll once", triggerer)
        calls = server.control("calls")["calls"]
        all_started = max(min(calls[job]) for job in calls)
        case.start = all_started - seeded
        log_offset = len(log.read_bytes())
        window_start, cpu_start = time.time(), _cpu(triggerer.pid)
        time.sleep(args.window)
        window_end, cpu_end, rss = time.time(), _cpu(triggerer.pid), _rss(triggerer.pid)
        server.control("end", {"at": window_end, "spread": args.end_spread})

        def resumed() -> bool:
            return sum(1 for index, state, _ in task_instances(run_id) if index < n and state == "scheduled") >= n

        with contextlib.suppress(TimeoutError):
            _wait(resumed, args.poll * 6 + 30 + args.end_spread, f"the {n} task instances to resume", triggerer)
        server.control("stop_probe")
        snapshot = server.control("calls")
        rows = task_instances(run_id)
    finally:
        stop_group(triggerer, grace=20)
        # Also after a failed case: its deferred task instances' triggers would otherwise be the oldest
        # rows, which the next case's triggerer assigns first (by created_date), filling its capacity.
        clean_up(run_id)

    calls = snapshot["calls"]
    in_window = [t for times in calls.values() for t in times if window_start <= t < window_end]
    case.calls = len(in_window)
    lags = []
    for times in calls.values():
        inside = [t for t in times if all_started <= t < window_end]
        lags += [b - a - args.poll for a, b in itertools.pairwise(inside)]
    case.lag = _pcts(lags)
    case.cpu_per_call = (cpu_end - cpu_start) / case.calls if case.calls else None
    case.rss_per_trigger_kib = (rss - idle_rss) / n / 1024
    case.stall_probe = max((lag for t, lag in snapshot["probe"] if all_started + 1 <= t <= window_end), default=0.0)
    after = log.read_bytes()[log_offset:].decode(errors="replace")
    case.warning = max((float(v) for v in _BLOCKED.findall(after)), default=0.0)
    case.stall_warning = max(0.0, case.warning - WATCHDOG_TICK)
    ends = {job: job_end(job, snapshot["end_at"], args.end_spread) for job in jobs}
    case.seen = _pcts(
        [min(t for t in times if t >= ends[job]) - ends[job] for job, times in calls.items()
         if job in ends and times[-1] >= ends[job]]
    )  # fmt: skip
    delays = [
        dttm.timestamp() - ends[jobs[index]]
        for index, state, dttm in rows
        if index < n and state == "scheduled" and dttm
    ]
    case.resumed = len(delays)
    case.resume = _pcts(delays)
    if case.resumed < n:
        case.note = f"{n - case.resumed} not resumed"
    return case


def _wait(predicate: Callable[[], bool], timeout: float, what: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(Exception):
            if predicate():
                return
        if process.poll() is not None:
            raise RuntimeError(f"the triggerer exited while waiting for {what}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.5)


# ---------------------------------------------------------------- the run
def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _triple(values: tuple[float, float, float] | None) -> str:
    return "-" if values is None else " / ".join(f"{v:.2f}" for v in values)


def table(cases: list[Case], poll: float, spread: float = 0.0) -> str:
    ends = "every job ends at the same instant" if not spread else f"jobs end spread over {spread:g} s"
    lines = [
        f"poll interval {poll:g} s; {ends}; lag and resume in seconds (p50 / p99 / max); cpu in ms per status call",
        "| class | owner | N | start s | poll lag | stall s | warned s | cpu ms/call | rss KiB/trigger | seen "
        + "| resume | calls | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cases:
        lines.append(
            f"| {c.name} | {c.owner} | {c.n} | {_fmt(c.start, 1)} | {_triple(c.lag)} | {c.stall:.2f} | {c.warning:.2f} | "
            f"{_fmt(None if c.cpu_per_call is None else c.cpu_per_call * 1000)} | {_fmt(c.rss_per_trigger_kib, 0)} | "
            f"{_triple(c.seen)} | {_triple(c.resume)} | {c.calls} | {c.note} |"
        )
    return "\n".join(lines)


def goal(cases: list[Case], poll: float) -> str:
    """The issue's goal per class at the largest N: lag, stall, resume, CPU against upstream's best."""
    top = max(c.n for c in cases)
    at_top = [c for c in cases if c.n == top]
    upstream = [c.cpu_per_call for c in at_top if c.owner == "upstream" and c.cpu_per_call]
    best = min(upstream) if upstream else None
    lines = [f"goal at N = {top} (upstream's best CPU per call: {_fmt(best and best * 1000)} ms)"]
    for c in at_top:
        checks = {
            "p99 lag <= 1 interval": c.lag is not None and c.lag[1] <= poll,
            "no stall > 0.2 s": c.stall <= 0.2,
            "resume <= 2 intervals": c.resume is not None and c.resume[2] <= 2 * poll and c.resumed == c.n,
            "cpu <= 1.5x upstream's best": best is None
            or (c.cpu_per_call is not None and c.cpu_per_call <= 1.5 * best),
        }
        failed = [k for k, ok in checks.items() if not ok]
        lines.append(f"  {c.name:18} {'met' if not failed else 'NOT met: ' + ', '.join(failed)}")
    return "\n".join(lines)


def _start_database(kind: str) -> Any:
    """A private PostgreSQL server for ``postgres`` (None for SQLite); a missing server is an error, not SQLite."""
    if kind == "sqlite":
        return None
    from resumable_jobs.local.postgres import LocalPostgres

    return LocalPostgres().start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default="100,500,1000", help="comma-separated numbers of deferred tasks")
    parser.add_argument("--classes", default=",".join(CLASS_BY_NAME), help="comma-separated class names")
    parser.add_argument("--poll", type=float, default=2.0, help="poll interval of every trigger (s)")
    parser.add_argument("--window", type=float, default=20.0, help="measurement window once all started (s)")
    parser.add_argument("--delay", type=float, default=0.05, help="the stand-in's answer delay (s)")
    parser.add_argument("--start-timeout", type=float, default=180.0)
    parser.add_argument(
        "--end-spread",
        type=float,
        default=0.0,
        help="jobs end spread over this many seconds after the window (0: every job ends at the same instant)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch AIRFLOW_HOME (logs)")
    parser.add_argument("--quick", action="store_true", help="N = 100 and an 8 s window")
    parser.add_argument("--json", type=Path, help="also write the cases here")
    parser.add_argument(
        "--db",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help="the metadata database: SQLite in the scratch folder, or a private PostgreSQL server on this machine",
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.delay)
        return 0
    if args.quick:
        args.n, args.window = "100", 8.0
    names = [n.strip() for n in args.classes.split(",") if n.strip()]
    unknown = sorted(set(names) - set(CLASS_BY_NAME))
    if unknown:
        parser.error(f"unknown classes {unknown}; known: {sorted(CLASS_BY_NAME)}")
    sizes = [int(n) for n in args.n.split(",")]

    from resumable_jobs.local.airflow_config import DeploymentSettings, deployment_environment
    from resumable_jobs.local.net import free_port

    home = Path(tempfile.mkdtemp(prefix="rj-capacity-"))
    (home / "dags").mkdir()
    (home / "dags" / "capacity.py").write_text(_DAG_FILE)
    database = _start_database(args.db)
    settings = DeploymentSettings(
        home=home, dags_folder=home / "dags", api_port=free_port(), database_url=database and database.url
    )
    env = {
        **deployment_environment(settings),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    os.environ.update(env)  # this process reads and writes the same metadata database
    os.environ["AIRFLOW__LOGGING__LOGGING_LEVEL"] = "WARNING"  # this process's own logging only
    print(f"home {home}; database {args.db}; load before: {os.getloadavg()}", flush=True)
    server = StandinServer(home, args.delay)
    bench = server.bench(args.poll, home)
    for name in names:
        env.update(CLASS_BY_NAME[name].env(bench))
    cases: list[Case] = []
    try:
        for step in (["db", "migrate"], ["dags", "reserialize"]):
            subprocess.run([sys.executable, "-m", "airflow", *step], env=env, check=True, capture_output=True)
        seq = 0
        for n in sizes:
            for name in names:
                seq += 1
                try:
                    case = run_case(CLASS_BY_NAME[name], n, args, env, server, bench, seq)
                except Exception as error:  # noqa: BLE001 - one failed case must not lose the others
                    case = Case(name, CLASS_BY_NAME[name].owner, n, note=f"{type(error).__name__}: {error}"[:200])
                cases.append(case)
                if args.json:  # after every case, so an interrupted run keeps what it measured
                    args.json.write_text(json.dumps([c.__dict__ for c in cases], indent=1))
                print(
                    table([case], args.poll, args.end_spread).splitlines()[-1],
                    f"(load {os.getloadavg()[0]:.2f})",
                    flush=True,
                )
    finally:
        server.stop()
        if database is not None:
            database.stop()
        if not args.keep:
            shutil.rmtree(home, ignore_errors=True)
    print()
    print(table(cases, args.poll, args.end_spread))
    print()
    print(goal([c for c in cases if c.lag is not None] or cases, args.poll))
    return 0


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    sys.exit(main())
