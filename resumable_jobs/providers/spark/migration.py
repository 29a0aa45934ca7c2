"""Continuing a YARN or Kubernetes application that upstream's operator submitted for this task instance.

What it is for: a task switched from upstream's ``SparkSubmitOperator`` to this one in the middle
of its retries. Upstream's operator stores the application id under ``spark_job_id`` (a YARN
application id, or ``<namespace>:<driver pod>`` on Kubernetes - the same ids this operator
uses); this one stores under ``spark_driver_id``. Without this step the first try of the new
operator would not see upstream's application and would submit a second one.

How it works: before the mixin loads its checkpoint, :func:`adopt_upstream_job_id` looks at the
task's ``task_state_store``: when this operator has stored nothing yet (no id, no bookkeeping)
and ``spark_job_id`` holds an id, the id is moved to ``spark_driver_id`` (written first, with
``NEVER_EXPIRE``, then the old key is deleted, so a later switch back cannot find a stale id).
The mixin then treats it like any stored id: reconnect while it runs, return once it succeeded,
submit a new generation after a failure.

What it does not do: nothing on a standalone master (its store key is unchanged, and upstream's
standalone ids are the same driver ids - but the issue that introduced this keeps standalone
exactly as it was), nothing without a store (Airflow < 3.3, ``durable=False``). It does not read
upstream's cached ``k8s_driver_status``: upstream deletes a finished driver pod, so a retry
after upstream's try finished but before the task recorded success submits once more.
"""

from __future__ import annotations

from typing import Any

__all__ = ["UPSTREAM_ID_KEY", "adopt_upstream_job_id"]

#: Where upstream's ``SparkSubmitOperator`` keeps the application id.
UPSTREAM_ID_KEY = "spark_job_id"


def adopt_upstream_job_id(context: Any, *, id_key: str, bookkeeping_key: str, log: Any) -> Any:
    """Move upstream's stored id to ``id_key`` when this operator has stored nothing; return it (or None)."""
    store = context.get("task_state_store") if hasattr(context, "get") else None
    if store is None:
        return None
    if store.get(id_key) is not None or store.get(bookkeeping_key) is not None:
        return None
    upstream_id = store.get(UPSTREAM_ID_KEY)
    if upstream_id is None:
        return None
    from airflow.sdk import NEVER_EXPIRE

    store.set(id_key, upstream_id, retention=NEVER_EXPIRE)
    store.delete(UPSTREAM_ID_KEY)
    log.info(
        "Found %r under %r, stored by upstream's SparkSubmitOperator for this task instance: continuing "
        "with it under %r",
        upstream_id,
        UPSTREAM_ID_KEY,
        id_key,
    )
    return upstream_id
