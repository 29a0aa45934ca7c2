"""Kubernetes: run a long task in a pod that survives a worker shutdown; the retry reattaches to it.

Use when: you run work in pods with KubernetesPodOperator and workers get evicted, redeployed or
run on spot nodes. A worker's SIGTERM keeps the pod (upstream deletes it), the retry reattaches
to that exact pod (stored namespace, name and uid) and continues its log; a task marked failed,
an execution_timeout or a last failing try deletes the pod. The XCom sidecar's result is read
even when the pod finished while no worker was following it.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.kubernetes import KubernetesPodOperator

with DAG(
    dag_id="example_kubernetes_pod_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "kubernetes"],
):
    KubernetesPodOperator(
        task_id="train_model",
        namespace="ml",
        image="ghcr.io/example/trainer:1.4",
        cmds=["python", "train.py", "--date", "{{ ds }}"],
        do_xcom_push=True,  # the container writes /airflow/xcom/return.json; the task returns it
        on_finish_action="delete_succeeded_pod",  # keep failed pods to look at
        deferrable=True,  # wait in the triggerer; a retry whose pod still runs defers to it again
        retries=3,
    )
