"""The Kubernetes API stand-in behind upstream's hook, client, PodManager and trigger."""

from __future__ import annotations

import json

import pytest

NAMESPACE = "jobs"


@pytest.fixture
def k8s_api(monkeypatch, tmp_path):
    """A stand-in API server; the ``kubernetes_default`` connection points at it."""
    from resumable_jobs.local.kubernetes_api import LocalKubernetesApi

    api = LocalKubernetesApi(running_polls=3, log_lines=("starting the work", "half way", "work done"))
    with api.serve():
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        # The connection names the kubeconfig; with $KUBECONFIG set too, upstream's trigger would get
        # both a config dict and a path, which its hook refuses as contradictory.
        monkeypatch.delenv("KUBECONFIG", raising=False)
        monkeypatch.setenv(
            "AIRFLOW_CONN_KUBERNETES_DEFAULT",
            json.dumps({"conn_type": "kubernetes", "extra": json.dumps({"kube_config_path": str(kubeconfig)})}),
        )
        yield api


@pytest.fixture
def long_pods(k8s_api):
    """Pods that are still running when a first try is stopped: 8 Running reads before they end."""
    k8s_api.running_polls = 8
    return k8s_api
