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
def _kubernetes_pod(tmp_path, monkeypatch) -> Iterator[Any]:
    import datetime

    from resumable_jobs.local.kubernetes_api import LocalKubernetesApi
    from resumable_jobs.providers.kubernetes.pod import UID_EVENT_KEY
    from resumable_jobs.providers.kubernetes.trigger import PodTrigger

    # The first trigger of a process imports kubernetes_asyncio and the provider's hook in a thread (about
    # 1 s, once per triggerer); that thread holds the GIL in stretches, whichever trigger class comes first.
    # Imported here, so the row measures the reads, whatever order the rows run in.
    for module in PodTrigger.client_modules:
        importlib.import_module(module)
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


#: classpath -> a context manager (tmp_path, monkeypatch) yielding a trigger whose job succeeds after
#: a few slow reads. Add a row for every trigger class the provider registers.
TRIGGERS: dict[str, Callable[..., contextlib.AbstractContextManager[Any]]] = {
    "resumable_jobs.providers.spark.trigger.SparkDriverTrigger": _spark_standalone,
    "resumable_jobs.providers.spark.yarn.trigger.YarnApplicationTrigger": _yarn,
    "resumable_jobs.providers.spark.kubernetes.trigger.KubernetesDriverPodTrigger": _kubernetes,
    "resumable_jobs.providers.snowflake.trigger.SnowflakeStatementsTrigger": _snowflake,
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
