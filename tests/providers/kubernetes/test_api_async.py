"""The shared kubernetes_asyncio client: tuned once, so a read makes no thread-pool hop and parses timestamps cheaply."""

from __future__ import annotations

import asyncio
import datetime

from resumable_jobs.providers.kubernetes import api_async


async def _open_and_read(api, extras: dict) -> tuple[bool, int, object]:
    """(whether the session still looks the environment up, thread-pool hops of one read, the pod read)."""
    async with api_async.api_client("kubernetes_default", connection_extras=extras) as client:
        body = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "base", "image": "busybox"}]}}
        api.dispatch("POST", "/api/v1/namespaces/jobs/pods", body)
        loop = asyncio.get_running_loop()
        hops: list[object] = []
        real = loop.run_in_executor

        def counting(executor, func, *args):
            hops.append(func)
            return real(executor, func, *args)

        loop.run_in_executor = counting  # type: ignore[method-assign]
        try:
            pod = await api_async.read_pod(client, "jobs", "p")
        finally:
            loop.run_in_executor = real  # type: ignore[method-assign]
        return client.rest_client.pool_manager._trust_env, len(hops), pod


def test_a_read_makes_no_thread_pool_hop_when_no_proxy_or_netrc_applies(k8s_api, tmp_path, monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
    extras = {"kube_config_path": str(k8s_api.write_kubeconfig(tmp_path / "kubeconfig"))}
    trusts_env, hops, pod = asyncio.run(_open_and_read(k8s_api, extras))
    assert (trusts_env, hops) == (False, 0)  # kubernetes_asyncio's own session makes two per read
    assert pod.metadata.creation_timestamp == datetime.datetime(2026, 1, 1, 0, 0, 1, tzinfo=datetime.timezone.utc)


def test_a_proxy_variable_for_the_api_server_keeps_the_environment_lookups(k8s_api, tmp_path, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "")
    extras = {"kube_config_path": str(k8s_api.write_kubeconfig(tmp_path / "kubeconfig"))}

    async def trusts_env() -> bool:
        async with api_async.api_client("kubernetes_default", connection_extras=extras) as client:
            return client.rest_client.pool_manager._trust_env

    assert asyncio.run(trusts_env()) is True


def test_timestamps_the_fast_parse_cannot_read_still_go_to_dateutil():
    class Client:
        def _ApiClient__deserialize_datetime(self, text):
            return ("dateutil", text)

    client = Client()
    api_async.tune_client(client)
    parse = client._ApiClient__deserialize_datetime
    assert parse("2026-01-01T00:00:00Z") == datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    assert parse("Jan 1 2026") == ("dateutil", "Jan 1 2026")
