"""No trigger of ours blocks the triggerer's event loop, and triggers of one connection share one client.

A triggerer runs up to a thousand triggers in one event loop: a trigger that blocks it for a
second delays every other one by a second. Each trigger class runs here against a stand-in that
takes :data:`SLOW` seconds to answer every call, while a watchdog coroutine in the same loop
measures how late it is woken; a blocking read would show a stall of about ``SLOW``.
(Throughput figures are in ``benchmarks/triggerer_capacity.py``, not here.)

Every trigger class the provider registers must have a row in :data:`TRIGGERS`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import importlib
import inspect
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from resumable_jobs.local.http_standin import serve_http

SLOW = 1.0  # seconds every stand-in answer takes
MAX_STALL = 0.1  # the bound on one stall of the loop


@contextlib.contextmanager
def _slow(dispatch: Callable[[str, str, Any], tuple[int, Any, dict[str, str]]]) -> Iterator[str]:
    def answer(method: str, target: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        time.sleep(SLOW)  # the stand-in's thread sleeps; the client must not
        return dispatch(method, target, body)

    with serve_http(answer) as url:
        yield url


@contextlib.contextmanager
def _spark_standalone(tmp_path, monkeypatch) -> Iterator[Any]:
    from resumable_jobs.providers.spark.trigger import SparkDriverTrigger
    from tests.providers.spark.fake_master import FakeSparkMaster

    master = FakeSparkMaster(running_polls=1)
    _, reply = master.create({"action": "CreateSubmissionRequest", "mainClass": "x", "appResource": "/a.py"})
    with _slow(lambda m, t, b: (*master.dispatch(m, t, b), {})) as url:
        yield SparkDriverTrigger(reply["submissionId"], [url], poll_interval=0)


@contextlib.contextmanager
def _yarn(tmp_path, monkeypatch) -> Iterator[Any]:
    from resumable_jobs.local.yarn_resource_manager import LocalResourceManager
    from resumable_jobs.providers.spark.yarn.trigger import YarnApplicationTrigger

    rm = LocalResourceManager(running_polls=1)
    app_id = rm.register()
    with _slow(rm.dispatch) as url:
        yield YarnApplicationTrigger(app_id, [url], poll_interval=0)


@contextlib.contextmanager
def _kubernetes(tmp_path, monkeypatch) -> Iterator[Any]:
    from resumable_jobs.local.kubernetes_api import LocalKubernetesApi
    from resumable_jobs.providers.spark.kubernetes.trigger import KubernetesDriverPodTrigger

    api = LocalKubernetesApi(running_polls=1)
    body = {"metadata": {"name": "etl-driver", "labels": {"spark-role": "driver"}}, "spec": {"containers": []}}
    assert api.dispatch("POST", "/api/v1/namespaces/etl/pods", body)[0] == 201
    with _slow(lambda m, t, b: (*api.dispatch(m, t, b), {})) as url:
        api.url = url
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        extra = json.dumps({"kube_config_path": str(kubeconfig)})
        monkeypatch.setenv("AIRFLOW_CONN_K8S_SLOW", json.dumps({"conn_type": "kubernetes", "extra": extra}))
        yield KubernetesDriverPodTrigger("etl:etl-driver", kubernetes_conn_id="k8s_slow", poll_interval=0)


@contextlib.contextmanager
def _snowflake(tmp_path, monkeypatch) -> Iterator[Any]:
    import datetime

    from resumable_jobs.local.standins import snowflake_route
    from resumable_jobs.local.standins.server import serve_in_thread
    from resumable_jobs.local.standins.snowflake import USER, SnowflakeSqlApi, connection, key_pair
    from resumable_jobs.providers.snowflake.imports import sql_api_hook_class
    from resumable_jobs.providers.snowflake.trigger import SnowflakeStatementsTrigger

    private, public = key_pair()
    api = SnowflakeSqlApi(active_reads=1)
    api.register_user(USER, public)
    monkeypatch.setenv("AIRFLOW_CONN_SNOWFLAKE_SLOW", json.dumps(connection(private)))
    handles = None
    answer = api.handle_request

    def slow_answer(*args: Any, **kwargs: Any) -> Any:
        if handles is not None:  # the submission itself need not be slow; every status read is
            time.sleep(SLOW)
        return answer(*args, **kwargs)

    api.handle_request = slow_answer  # type: ignore[method-assign]
    with serve_in_thread(api, "snowflake") as url:
        snowflake_route.install(url)
        try:
            handles = sql_api_hook_class()("snowflake_slow").execute_query("SELECT 1", statement_count=1)
            yield SnowflakeStatementsTrigger(
                poll_interval=0,
                query_ids=handles,
                snowflake_conn_id="snowflake_slow",
                token_life_time=datetime.timedelta(minutes=59),
                token_renewal_delta=datetime.timedelta(minutes=54),
            )
        finally:
            snowflake_route.uninstall()


@contextlib.contextmanager
def _dbt_cloud(tmp_path, monkeypatch) -> Iterator[Any]:
    import aiohttp.connector

    from resumable_jobs.local.standins.dbt_cloud import ACCOUNT_ID, API_TOKEN, DbtCloudAccount
    from resumable_jobs.local.standins.server import serve_in_thread
    from resumable_jobs.local.tls import LocalCertificate
    from resumable_jobs.providers.dbt.trigger import DbtCloudRunTrigger

    certificate = LocalCertificate.create(tmp_path / "tls")
    certificate.trust_in(aiohttp.connector._SSL_CONTEXT_VERIFIED)  # aiohttp's default context, as in the triggerer
    account = DbtCloudAccount(active_reads=1)
    run_id = account.add_run()
    answer = account.handle

    def slow_answer(*args: Any) -> Any:
        time.sleep(SLOW)
        return answer(*args)

    account.handle = slow_answer  # type: ignore[method-assign]
    with serve_in_thread(account, "dbt_cloud", tls=certificate.server_context()) as url:
        connection = {"conn_type": "dbt_cloud", "host": url.removeprefix("https://"), "login": str(ACCOUNT_ID),
                      "password": API_TOKEN}  # fmt: skip
        monkeypatch.setenv("AIRFLOW_CONN_DBT_SLOW", json.dumps(connection))
        yield DbtCloudRunTrigger("dbt_slow", run_id, end_time=time.time() + 600, poll_interval=0, account_id=None)


@contextlib.contextmanager
def _bigquery(tmp_path, monkeypatch) -> Iterator[Any]:
    from resumable_jobs.local.standins.bigquery import PROJECT, BigQueryJobs, service_account_info
    from resumable_jobs.local.standins.server import serve_in_thread
    from resumable_jobs.providers.google.access import credentials_for
    from resumable_jobs.providers.google.trigger import BigQueryJobTrigger

    model = BigQueryJobs(gets_until_done=1)
    body = {"jobReference": {"projectId": PROJECT, "jobId": "slow_job"}, "configuration": {}}
    assert model.handle("POST", f"/bigquery/v2/projects/{PROJECT}/jobs", body)[0] == 200
    answer = model.handle

    def slow_answer(*args: Any) -> Any:  # the token and every read take SLOW seconds
        time.sleep(SLOW)
        return answer(*args)

    model.handle = slow_answer  # type: ignore[method-assign]
    with serve_in_thread(model, "bigquery") as url:
        keyfile = service_account_info(f"{url}/token", PROJECT)
        connection = {"conn_type": "google_cloud_platform", "extra": {"project": PROJECT, "keyfile_dict": keyfile}}
        monkeypatch.setenv("AIRFLOW_CONN_GCP_SLOW", json.dumps(connection))
        monkeypatch.setenv("BIGQUERY_EMULATOR_HOST", url)
        # The key is loaded once per process and connection (cryptography holds the GIL for it, tens of
        # ms: a start-up cost the capacity benchmark sees); what must never block is every later poll.
        credentials_for("gcp_slow", None)
        yield BigQueryJobTrigger("gcp_slow", "slow_job", PROJECT, "EU", poll_interval=0)


@contextlib.contextmanager
def _kubernetes_pod(tmp_path, monkeypatch) -> Iterator[Any]:
    import datetime

    from resumable_jobs.local.kubernetes_api import LocalKubernetesApi
    from resumable_jobs.providers.kubernetes.pod import UID_EVENT_KEY
    from resumable_jobs.providers.kubernetes.trigger import PodTrigger

    api = LocalKubernetesApi(running_polls=1)
    body = {"metadata": {"name": "work"}, "spec": {"containers": [{"name": "base", "image": "busybox"}]}}
    _, pod = api.dispatch("POST", "/api/v1/namespaces/jobs/pods", body)
    with _slow(lambda m, t, b: (*api.dispatch(m, t, b), {})) as url:
        api.url = url
        yield PodTrigger(
            pod_name="work",
            pod_namespace="jobs",
            trigger_start_time=datetime.datetime.now(tz=datetime.timezone.utc),
            base_container_name="base",
            kubernetes_conn_id="k8s_slow_pods",
            connection_extras={"kube_config_path": str(api.write_kubeconfig(tmp_path / "kubeconfig"))},
            poll_interval=0,
            startup_check_interval=0,
            trigger_kwargs={UID_EVENT_KEY: pod["metadata"]["uid"]},
        )


class _FakeRedshiftData:
    """DescribeStatement (JSON 1.1, ``POST /``) of any id: STARTED for the first ``running_reads`` reads, then FINISHED."""

    def __init__(self, running_reads: int = 1) -> None:
        self.running_reads, self.reads = running_reads, {}

    def dispatch(self, method: str, target: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        statement = (body or {}).get("Id", "")
        self.reads[statement] = self.reads.get(statement, 0) + 1
        state = "STARTED" if self.reads[statement] <= self.running_reads else "FINISHED"
        return 200, {"Id": statement, "Status": state, "CreatedAt": 1767225600.0, "UpdatedAt": 1767225601.0}, {}


def _aws_connection(monkeypatch, conn_id: str, url: str) -> None:
    connection = {"conn_type": "aws", "login": "testing", "password": "testing",
                  "extra": {"endpoint_url": url, "region_name": "us-east-1"}}  # fmt: skip
    monkeypatch.setenv(f"AIRFLOW_CONN_{conn_id.upper()}", json.dumps(connection))


@contextlib.contextmanager
def _redshift_data(tmp_path, monkeypatch) -> Iterator[Any]:
    from resumable_jobs.providers.amazon.redshift_trigger import RedshiftDataStatementTrigger

    api = _FakeRedshiftData(running_reads=2)
    with _slow(api.dispatch) as url:
        _aws_connection(monkeypatch, "aws_slow", url)
        yield RedshiftDataStatementTrigger("rsd-slow", poll_interval=0, aws_conn_id="aws_slow", region_name="us-east-1")


@contextlib.contextmanager
def _batch(tmp_path, monkeypatch) -> Iterator[Any]:
    from resumable_jobs.providers.amazon.batch_trigger import BatchJobStatusTrigger
    from tests.providers.amazon.fake_batch_api import FakeBatchApi

    api = FakeBatchApi({"job-slow": ["RUNNING", "RUNNING", "SUCCEEDED"]})
    with _slow(api.dispatch) as url:
        _aws_connection(monkeypatch, "aws_slow", url)
        yield BatchJobStatusTrigger("job-slow", waiter_delay=0, aws_conn_id="aws_slow", region_name="us-east-1")


@contextlib.contextmanager
def _glue(tmp_path, monkeypatch) -> Iterator[Any]:
    from resumable_jobs.providers.amazon.glue_trigger import GlueJobRunTrigger

    reads = []

    def get_job_run(method: str, target: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        reads.append(body)
        state = "RUNNING" if len(reads) < 3 else "SUCCEEDED"
        return 200, {"JobRun": {"Id": body["RunId"], "JobName": body["JobName"], "JobRunState": state}}, {}

    with _slow(get_job_run) as url:
        _aws_connection(monkeypatch, "aws_slow", url)
        yield GlueJobRunTrigger("etl", "jr_slow", waiter_delay=0, aws_conn_id="aws_slow", region_name="us-east-1")


def _emr_run(ended_state: str) -> Callable[[str, str, Any], tuple[int, Any, dict[str, str]]]:
    """GET .../jobruns/{id} of either EMR API: RUNNING for two reads, then ``ended_state``."""
    reads: list[str] = []

    def job_run(method: str, target: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        reads.append(target)
        run_id = target.rsplit("/", 1)[-1]
        state = "RUNNING" if len(reads) < 3 else ended_state
        return 200, {"jobRun": {"id": run_id, "jobRunId": run_id, "name": "etl", "state": state}}, {}

    return job_run


@contextlib.contextmanager
def _emr_serverless(tmp_path, monkeypatch) -> Iterator[Any]:
    from resumable_jobs.providers.amazon.emr_serverless_trigger import EmrServerlessJobRunTrigger

    with _slow(_emr_run("SUCCESS")) as url:
        _aws_connection(monkeypatch, "aws_slow", url)
        yield EmrServerlessJobRunTrigger("00fapp", "00frun", waiter_delay=0, aws_conn_id="aws_slow")


@contextlib.contextmanager
def _emr_containers(tmp_path, monkeypatch) -> Iterator[Any]:
    from resumable_jobs.providers.amazon.emr_containers_trigger import EmrContainerJobRunTrigger

    with _slow(_emr_run("COMPLETED")) as url:
        _aws_connection(monkeypatch, "aws_slow", url)
        yield EmrContainerJobRunTrigger("vc0001", "run0001", waiter_delay=0, aws_conn_id="aws_slow")


#: classpath -> a context manager (tmp_path, monkeypatch) yielding a trigger whose job succeeds after
#: a few slow reads. Add a row for every trigger class the provider registers.
TRIGGERS: dict[str, Callable[..., contextlib.AbstractContextManager[Any]]] = {
    "resumable_jobs.providers.spark.trigger.SparkDriverTrigger": _spark_standalone,
    "resumable_jobs.providers.spark.yarn.trigger.YarnApplicationTrigger": _yarn,
    "resumable_jobs.providers.spark.kubernetes.trigger.KubernetesDriverPodTrigger": _kubernetes,
    "resumable_jobs.providers.snowflake.trigger.SnowflakeStatementsTrigger": _snowflake,
    "resumable_jobs.providers.amazon.redshift_trigger.RedshiftDataStatementTrigger": _redshift_data,
    "resumable_jobs.providers.amazon.batch_trigger.BatchJobStatusTrigger": _batch,
    "resumable_jobs.providers.amazon.glue_trigger.GlueJobRunTrigger": _glue,
    "resumable_jobs.providers.amazon.emr_serverless_trigger.EmrServerlessJobRunTrigger": _emr_serverless,
    "resumable_jobs.providers.amazon.emr_containers_trigger.EmrContainerJobRunTrigger": _emr_containers,
    "resumable_jobs.providers.dbt.trigger.DbtCloudRunTrigger": _dbt_cloud,
    "resumable_jobs.providers.google.trigger.BigQueryJobTrigger": _bigquery,
    "resumable_jobs.providers.kubernetes.trigger.PodTrigger": _kubernetes_pod,
}


async def _watched(trigger: Any) -> tuple[dict[str, Any], float, int]:
    """Run ``trigger`` to its first event with a watchdog in the same loop: (payload, worst stall, ticks)."""
    loop = asyncio.get_running_loop()
    worst, ticks, done = 0.0, 0, asyncio.Event()

    async def watchdog() -> None:
        nonlocal worst, ticks
        while not done.is_set():
            before = loop.time()
            await asyncio.sleep(0.01)
            worst, ticks = max(worst, loop.time() - before - 0.01), ticks + 1

    guard = asyncio.create_task(watchdog())
    await asyncio.sleep(0)  # the watchdog is asleep before the trigger starts
    events = trigger.run()
    try:
        event = await events.__anext__()
    finally:
        await events.aclose()
        done.set()
        await guard
    return event.payload, worst, ticks


@pytest.mark.parametrize("classpath", sorted(TRIGGERS))
def test_run_never_blocks_the_loop_against_a_slow_service(classpath, tmp_path, monkeypatch):
    with TRIGGERS[classpath](tmp_path, monkeypatch) as trigger:
        payload, stall, ticks = asyncio.run(asyncio.wait_for(_watched(trigger), 60))
    assert payload["status"] == "success", payload
    assert ticks > 100  # the watchdog ran through three reads of SLOW seconds each
    assert stall < MAX_STALL, f"{classpath} blocked the event loop for {stall:.2f} s"


class _BlockingTrigger:
    """A trigger written the wrong way: a synchronous wait inside ``run()``."""

    async def run(self):
        from airflow.triggers.base import TriggerEvent

        await asyncio.sleep(0.05)
        time.sleep(SLOW / 2)  # noqa: ASYNC251 - the mistake this harness must catch
        yield TriggerEvent({"status": "success"})


def test_the_watchdog_sees_a_blocking_trigger():
    _, stall, _ = asyncio.run(_watched(_BlockingTrigger()))
    assert stall >= SLOW / 2 - 0.05


def test_every_trigger_class_the_provider_registers_is_checked():
    from airflow.triggers.base import BaseTrigger

    from resumable_jobs.provider_info import get_provider_info

    registered = set()
    for entry in get_provider_info()["triggers"]:
        for module_name in entry["python-modules"]:
            module = importlib.import_module(module_name)
            registered |= {
                f"{module_name}.{name}"
                for name, obj in vars(module).items()
                if inspect.isclass(obj) and issubclass(obj, BaseTrigger) and obj.__module__ == module_name
            }
    assert registered, "the provider registers no trigger class"
    assert sorted(registered - set(TRIGGERS)) == []


# ---------------------------------------------------------------- one client per loop and connection
def test_triggers_of_one_connection_share_one_session_which_closes_with_the_last(monkeypatch):
    from resumable_jobs.local.yarn_resource_manager import LocalResourceManager
    from resumable_jobs.providers import shared_clients
    from resumable_jobs.providers.spark.yarn.trigger import YarnApplicationTrigger

    opened: list[Any] = []
    real_open = shared_clients._open_http_session

    def counting_open():
        opened.append(real_open())
        return opened[-1]

    monkeypatch.setattr(shared_clients, "_open_http_session", counting_open)
    rm = LocalResourceManager(running_polls=2)
    apps = [rm.register() for _ in range(20)]

    async def all_of_them() -> list[Any]:
        return await asyncio.gather(*(_first_event(YarnApplicationTrigger(a, [rm.url], poll_interval=0)) for a in apps))

    with rm.serve():
        events = asyncio.run(all_of_them())
        again = asyncio.run(_first_event(YarnApplicationTrigger(apps[0], [rm.url], poll_interval=0)))
    assert [e["status"] for e in events] == ["success"] * 20 and again["status"] == "success"
    assert sum(app.reads for app in rm.apps.values()) == 20 * 4 + 1
    assert len(opened) == 2  # one for the 20 triggers of the first loop, one for the second loop
    assert all(session.closed for session in opened)
    assert shared_clients._POOLS == {}


def test_kubernetes_triggers_of_one_connection_build_one_api_client(monkeypatch, tmp_path):
    from airflow.providers.cncf.kubernetes.hooks.kubernetes import AsyncKubernetesHook

    from resumable_jobs.local.kubernetes_api import LocalKubernetesApi
    from resumable_jobs.providers.spark.kubernetes.trigger import KubernetesDriverPodTrigger

    built: list[str] = []
    real_get_conn = AsyncKubernetesHook.get_conn

    def counting_get_conn(hook):
        built.append(hook.conn_id)
        return real_get_conn(hook)

    monkeypatch.setattr(AsyncKubernetesHook, "get_conn", counting_get_conn)
    api = LocalKubernetesApi(running_polls=1)
    pods = []
    for n in range(10):
        body = {"metadata": {"name": f"d{n}", "labels": {"spark-role": "driver"}}, "spec": {"containers": []}}
        api.dispatch("POST", "/api/v1/namespaces/etl/pods", body)
        pods.append(f"etl:d{n}")
    with api.serve():
        extra = json.dumps({"kube_config_path": str(api.write_kubeconfig(tmp_path / "kubeconfig"))})
        monkeypatch.setenv("AIRFLOW_CONN_K8S_SHARED", json.dumps({"conn_type": "kubernetes", "extra": extra}))

        async def all_of_them() -> list[Any]:
            triggers = [KubernetesDriverPodTrigger(p, kubernetes_conn_id="k8s_shared", poll_interval=0) for p in pods]
            return await asyncio.gather(*(_first_event(t) for t in triggers))

        events = asyncio.run(all_of_them())
    assert [e["status"] for e in events] == ["success"] * 10
    assert built == ["k8s_shared"]
    assert api.requests.count("GET /api/v1/namespaces/etl/pods/d0") == 3


def test_pod_triggers_of_one_cluster_build_one_api_client_closed_with_the_last(monkeypatch, tmp_path):
    import datetime

    from airflow.providers.cncf.kubernetes.hooks.kubernetes import AsyncKubernetesHook

    from resumable_jobs.local.kubernetes_api import LocalKubernetesApi
    from resumable_jobs.providers import shared_clients
    from resumable_jobs.providers.kubernetes.pod import UID_EVENT_KEY
    from resumable_jobs.providers.kubernetes.trigger import PodTrigger

    built: list[Any] = []
    real_get_conn = AsyncKubernetesHook.get_conn

    def counting_get_conn(hook):
        built.append(hook)
        return real_get_conn(hook)

    monkeypatch.setattr(AsyncKubernetesHook, "get_conn", counting_get_conn)
    api = LocalKubernetesApi(running_polls=1)
    uids = {}
    for n in range(10):
        body = {"metadata": {"name": f"p{n}"}, "spec": {"containers": [{"name": "base", "image": "busybox"}]}}
        uids[f"p{n}"] = api.dispatch("POST", "/api/v1/namespaces/jobs/pods", body)[1]["metadata"]["uid"]
    with api.serve():
        extras = {"kube_config_path": str(api.write_kubeconfig(tmp_path / "kubeconfig"))}

        def trigger(name: str) -> PodTrigger:
            return PodTrigger(
                pod_name=name,
                pod_namespace="jobs",
                trigger_start_time=datetime.datetime.now(tz=datetime.timezone.utc),
                base_container_name="base",
                kubernetes_conn_id="k8s_pods",
                connection_extras=extras,
                poll_interval=0,
                startup_check_interval=0,
                trigger_kwargs={UID_EVENT_KEY: uids[name]},
            )

        async def all_of_them() -> list[Any]:
            return await asyncio.gather(*(_first_event(trigger(name)) for name in uids))

        events = asyncio.run(all_of_them())
    assert [e["status"] for e in events] == ["success"] * 10
    assert [(hook.conn_id, hook._extras) for hook in built] == [("k8s_pods", extras)]  # one client, no lookup
    assert api.requests.count("GET /api/v1/namespaces/jobs/pods/p0") == 3
    assert shared_clients._POOLS == {}  # closed with the last trigger


async def _first_event(trigger: Any) -> dict[str, Any]:
    events = trigger.run()
    try:
        return (await events.__anext__()).payload
    finally:
        await events.aclose()


# ---------------------------------------------------------------- SPNEGO on the async ResourceManager client
def test_yarn_trigger_answers_a_negotiate_challenge_once_then_rides_the_rms_cookie(monkeypatch):
    from aiohttp import web

    from resumable_jobs.local.yarn_resource_manager import LocalResourceManager
    from resumable_jobs.providers.spark.yarn.trigger import YarnApplicationTrigger

    tokens: list[str] = []

    class FakeContext:  # what pyspnego's client context gives: step() -> the token bytes
        def __init__(self, **kwargs: Any) -> None:
            tokens.append(f"{kwargs['service']}@{kwargs['hostname']}")

        def step(self) -> bytes:
            return b"ticket"

    class FakeSpnego:
        client = FakeContext

    monkeypatch.setitem(__import__("sys").modules, "spnego", FakeSpnego)
    rm = LocalResourceManager(running_polls=2)
    app_id = rm.register()
    seen: list[str] = []

    async def handle(request: web.Request) -> web.Response:
        authorization = request.headers.get("Authorization", "")
        seen.append("cookie" if "hadoop.auth" in request.cookies else authorization or "none")
        if (
            "hadoop.auth" not in request.cookies
            and authorization != "Negotiate " + base64.b64encode(b"ticket").decode()
        ):
            return web.Response(status=401, headers={"WWW-Authenticate": "Negotiate"}, text="Authentication required")
        code, reply, headers = rm.dispatch(request.method, request.path_qs, None)
        response = web.json_response(reply, status=code, headers=headers)
        response.set_cookie("hadoop.auth", "u=airflow&t=kerberos")
        return response

    async def scenario() -> dict[str, Any]:
        runner = web.AppRunner(web.Application())
        runner.app.router.add_route("*", "/{tail:.*}", handle)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
        try:
            return await _first_event(YarnApplicationTrigger(app_id, [url], kerberos=True, poll_interval=0))
        finally:
            await runner.cleanup()

    event = asyncio.run(scenario())
    assert event["status"] == "success"
    assert tokens == ["HTTP@127.0.0.1"]  # one ticket, for the RM's HTTP service
    assert seen == ["none", "Negotiate dGlja2V0", "cookie", "cookie", "cookie"]


def test_snowflake_triggers_of_one_connection_build_headers_once_share_a_session_and_log_once(monkeypatch):
    import datetime

    from resumable_jobs.local.standins import snowflake_route
    from resumable_jobs.local.standins.server import serve_in_thread
    from resumable_jobs.local.standins.snowflake import USER, SnowflakeSqlApi, connection, key_pair
    from resumable_jobs.providers import shared_clients
    from resumable_jobs.providers.snowflake.imports import sql_api_hook_class
    from resumable_jobs.providers.snowflake.trigger import SnowflakeStatementsTrigger

    hook_class = sql_api_hook_class()
    built: list[str] = []
    real_build = hook_class.get_request_url_header_params

    def counting_build(hook, query_id, *args, **kwargs):
        built.append(query_id)
        return real_build(hook, query_id, *args, **kwargs)

    opened: list[Any] = []
    real_open = shared_clients._open_http_session

    def counting_open():
        opened.append(real_open())
        return opened[-1]

    logged: list[str] = []

    class Recorder:
        def info(self, message: str, *args: Any) -> None:
            logged.append(message % args)

        def debug(self, message: str, *args: Any) -> None:
            logged.append("debug: " + message % args)

    monkeypatch.setattr(hook_class, "get_request_url_header_params", counting_build)
    monkeypatch.setattr(shared_clients, "_open_http_session", counting_open)
    monkeypatch.setattr(SnowflakeStatementsTrigger, "log", property(lambda self: Recorder()))
    private, public = key_pair()
    api = SnowflakeSqlApi(active_reads=3)
    api.register_user(USER, public)
    monkeypatch.setenv("AIRFLOW_CONN_SNOWFLAKE_SHARED", json.dumps(connection(private)))
    with serve_in_thread(api, "snowflake") as url:
        snowflake_route.install(url)
        try:
            handles = [sql_api_hook_class()("snowflake_shared").execute_query("SELECT 1", 1)[0] for _ in range(10)]
            built.clear()

            async def all_of_them() -> list[Any]:
                triggers = [
                    SnowflakeStatementsTrigger(
                        poll_interval=0,
                        query_ids=[handle],
                        snowflake_conn_id="snowflake_shared",
                        token_life_time=datetime.timedelta(minutes=59),
                        token_renewal_delta=datetime.timedelta(minutes=54),
                    )
                    for handle in handles
                ]
                return await asyncio.gather(*(_first_event(t) for t in triggers))

            events = asyncio.run(all_of_them())
        finally:
            snowflake_route.uninstall()
    assert events == [{"status": "success", "statement_query_ids": [h]} for h in handles]
    reads = [r for r in api.requests if r["method"] == "GET"]
    assert len(reads) == 10 * 4  # three "running" answers and the result, per statement
    assert len(built) == 1  # one connection lookup, key load and JWT for the ten triggers
    assert len(opened) == 1 and opened[0].closed
    assert sorted(logged) == sorted(  # once per statement and state, not once per read
        [f"Snowflake statement {h} is running; checking every 0 s" for h in handles]
        + [f"debug: Snowflake statement {h} succeeded" for h in handles]
    )


def test_aws_triggers_of_one_connection_build_one_client_which_closes_with_the_last(monkeypatch):
    from resumable_jobs.providers import shared_clients
    from resumable_jobs.providers.amazon import aws_async
    from resumable_jobs.providers.amazon.redshift_trigger import RedshiftDataStatementTrigger

    built: list[tuple[Any, str]] = []
    real_creator = aws_async._client_creator

    def counting_creator(connection, service):
        built.append((connection.aws_conn_id, service))
        return real_creator(connection, service)

    monkeypatch.setattr(aws_async, "_client_creator", counting_creator)
    api = _FakeRedshiftData(running_reads=2)
    statements = [f"rsd-{n}" for n in range(20)]
    with serve_http(api.dispatch) as url:
        _aws_connection(monkeypatch, "aws_shared", url)

        async def all_of_them() -> list[Any]:
            triggers = [
                RedshiftDataStatementTrigger(s, poll_interval=0, aws_conn_id="aws_shared", region_name="us-east-1")
                for s in statements
            ]
            return await asyncio.gather(*(_first_event(t) for t in triggers))

        events = asyncio.run(all_of_them())
    assert [(e["status"], e["external_id"]) for e in events] == [("success", s) for s in statements]
    assert api.reads == {s: 3 for s in statements}  # one DescribeStatement per poll, nothing else
    assert built == [("aws_shared", "redshift-data")]
    assert shared_clients._POOLS == {}  # the client was closed with the last trigger


def test_dbt_cloud_triggers_of_one_connection_read_it_once_and_share_one_session(monkeypatch, tmp_path):
    import aiohttp
    import aiohttp.connector
    from airflow.providers.common.compat import connection as compat

    from resumable_jobs.local.standins.dbt_cloud import ACCOUNT_ID, API_TOKEN, DbtCloudAccount
    from resumable_jobs.local.standins.server import serve_in_thread
    from resumable_jobs.local.tls import LocalCertificate
    from resumable_jobs.providers import shared_clients
    from resumable_jobs.providers.dbt.trigger import DbtCloudRunTrigger

    lookups: list[str] = []
    real_lookup = compat.get_async_connection

    async def counting_lookup(conn_id, *args, **kwargs):
        lookups.append(conn_id)
        return await real_lookup(conn_id, *args, **kwargs)

    sessions: list[Any] = []
    real_session = aiohttp.ClientSession

    def counting_session(*args, **kwargs):
        sessions.append(real_session(*args, **kwargs))
        return sessions[-1]

    monkeypatch.setattr(compat, "get_async_connection", counting_lookup)
    monkeypatch.setattr(aiohttp, "ClientSession", counting_session)
    certificate = LocalCertificate.create(tmp_path / "tls")
    certificate.trust_in(aiohttp.connector._SSL_CONTEXT_VERIFIED)
    account = DbtCloudAccount(active_reads=2)
    runs = [account.add_run() for _ in range(10)]
    with serve_in_thread(account, "dbt_cloud", tls=certificate.server_context()) as url:
        connection = {"conn_type": "dbt_cloud", "host": url.removeprefix("https://"), "login": str(ACCOUNT_ID),
                      "password": API_TOKEN}  # fmt: skip
        monkeypatch.setenv("AIRFLOW_CONN_DBT_SHARED", json.dumps(connection))

        async def all_of_them() -> list[Any]:
            end = time.time() + 600
            triggers = [DbtCloudRunTrigger("dbt_shared", r, end_time=end, poll_interval=0, account_id=None) for r in runs]
            return await asyncio.gather(*(_first_event(t) for t in triggers))

        events = asyncio.run(all_of_them())
    assert [(e["status"], e["run_id"]) for e in events] == [("success", r) for r in runs]
    assert len([r for r in account.requests if r["method"] == "GET"]) == 10 * 3
    assert lookups == ["dbt_shared"]  # one connection read for the ten triggers
    assert len(sessions) == 1 and sessions[0].closed  # one session, closed with the last trigger
    assert shared_clients._POOLS == {}


def test_bigquery_triggers_of_one_connection_share_one_session_and_token(monkeypatch):
    import aiohttp

    from resumable_jobs.local.standins.bigquery import PROJECT, BigQueryJobs, service_account_info
    from resumable_jobs.local.standins.server import serve_in_thread
    from resumable_jobs.providers import shared_clients
    from resumable_jobs.providers.google.trigger import BigQueryJobTrigger

    sessions: list[Any] = []
    real_session = aiohttp.ClientSession

    def counting_session(*args, **kwargs):
        sessions.append(real_session(*args, **kwargs))
        return sessions[-1]

    monkeypatch.setattr(aiohttp, "ClientSession", counting_session)
    model = BigQueryJobs(gets_until_done=2)
    jobs = [f"job_{n}" for n in range(10)]
    for job in jobs:
        body = {"jobReference": {"projectId": PROJECT, "jobId": job}, "configuration": {}}
        model.handle("POST", f"/bigquery/v2/projects/{PROJECT}/jobs", body)
    tokens: list[str] = []
    answer = model.handle

    def counting_answer(method: str, path: str, body: Any) -> Any:
        if path.rstrip("/") == "/token":
            tokens.append(path)
        return answer(method, path, body)

    model.handle = counting_answer  # type: ignore[method-assign]
    with serve_in_thread(model, "bigquery") as url:
        keyfile = service_account_info(f"{url}/token", PROJECT)
        connection = {"conn_type": "google_cloud_platform", "extra": {"project": PROJECT, "keyfile_dict": keyfile}}
        monkeypatch.setenv("AIRFLOW_CONN_GCP_SHARED", json.dumps(connection))
        monkeypatch.setenv("BIGQUERY_EMULATOR_HOST", url)

        async def all_of_them() -> list[Any]:
            triggers = [BigQueryJobTrigger("gcp_shared", j, PROJECT, "EU", poll_interval=0) for j in jobs]
            return await asyncio.gather(*(_first_event(t) for t in triggers))

        events = asyncio.run(all_of_them())
    assert [(e["status"], e["job_id"]) for e in events] == [("success", j) for j in jobs]
    assert len([r for r in model.requests if r["method"] == "GET"]) == 10 * 3
    assert len(tokens) == 1  # one token for the ten triggers
    assert len(sessions) == 1 and sessions[0].closed  # one session, closed with the last trigger
    assert shared_clients._POOLS == {}
