"""Production-suite DAGs on the Kubernetes API stand-in (served by the test session, held pods).

The real ``KubernetesHook``, ``PodManager`` and ``KubernetesPodTrigger`` reach the stand-in
through AIRFLOW_CONN_KUBERNETES_DEFAULT (a kubeconfig path); a pod stays Running until the
drill releases it. ``on_finish_action="keep_pod"`` keeps a finished pod, so the drill can read
how each pod ended: Succeeded, or deleted because nobody would follow it any more.
"""

from __future__ import annotations

from airflow.sdk import DAG
from prod_support import RETRY_ARGS, START

from resumable_jobs.providers.kubernetes import KubernetesPodOperator

POD = {
    "namespace": "drills",
    "image": "busybox",
    "cmds": ["sh", "-c", "echo working; sleep 3600"],
    "on_finish_action": "keep_pod",
    "poll_interval": 1,
    "startup_check_interval_seconds": 1,
    "base_container_status_polling_interval": 1,
}

with DAG("prod_kubernetes_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    KubernetesPodOperator(task_id="job", **POD)

with DAG("prod_kubernetes_deferrable", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    KubernetesPodOperator(task_id="job", deferrable=True, **POD)

with DAG("prod_kubernetes_last_try", schedule=None, start_date=START, catchup=False, default_args={"retries": 0}):
    KubernetesPodOperator(task_id="job", **POD)
