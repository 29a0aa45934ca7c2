"""Which pod a task follows: its stored identity, the submission-token label, and what it means for a pod to be ours.

What it is for: the store key ``pod_identifier`` (the key upstream's durable mode uses) holds a
pod's namespace, name and uid. A name alone is not an identity - Kubernetes hands a deleted pod's
name to the next pod that asks for it - so a pod is this task's only when its uid is the stored
one. An entry upstream's operator wrote has no uid; such a pod is adopted only when it carries
the labels upstream puts on every pod of this task instance (``dag_id``, ``task_id``,
``run_id``, ``map_index``).

How it works: plain functions over ``kubernetes.client`` ``V1Pod`` objects (duck-typed, so this
module imports nothing from Kubernetes). The submission token becomes the value of the label
:data:`TOKEN_LABEL`; :func:`token_label_value` fits it to the 63 characters a label value may have,
keeping the generation and the nonce, which are what make it unique.

What it does not do: no API calls (the operator makes them), no status interpretation
(:mod:`resumable_jobs.providers.kubernetes.status`).
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.mixin.errors import JobNotFoundError

__all__ = [
    "TOKEN_LABEL",
    "PodIdentity",
    "carries_task_instance_labels",
    "identity_of",
    "parse_identity",
    "token_label_value",
]

#: The label that carries the mixin's submission token (``find_job`` selects pods by it).
TOKEN_LABEL = "resumable-jobs.io/submission-token"
_LABEL_VALUE_LIMIT = 63
#: The label upstream sets on a pod a try already finished with (a retry must not reattach).
ALREADY_CHECKED_LABEL = "already_checked"

PodIdentity = dict[str, str]


def token_label_value(token: str) -> str:
    """``token`` as a label value: at most 63 characters, starting and ending alphanumeric."""
    return token[-_LABEL_VALUE_LIMIT:].lstrip("-_")


def identity_of(pod: Any) -> PodIdentity:
    """The stored form of a created or found pod."""
    meta = pod.metadata
    return {"namespace": meta.namespace, "name": meta.name, "uid": meta.uid}


def parse_identity(stored: Any) -> tuple[str, str, str | None]:
    """``(namespace, name, uid or None)`` from a stored identity; ``JobNotFoundError`` for a malformed one."""
    if isinstance(stored, dict):
        namespace, name, uid = stored.get("namespace"), stored.get("name"), stored.get("uid")
        if isinstance(namespace, str) and namespace and isinstance(name, str) and name:
            return namespace, name, uid if isinstance(uid, str) and uid else None
    raise JobNotFoundError(stored, "the stored pod identity has no namespace and name")


def describe(stored: Any) -> str:
    """``namespace/name`` (and the uid when known), for log lines."""
    try:
        namespace, name, uid = parse_identity(stored)
    except JobNotFoundError:
        return repr(stored)
    return f"{namespace}/{name}" + (f" (uid {uid})" if uid else "")


def check_ownership(stored: Any, pod: Any, expected_labels: dict[str, str]) -> None:
    """Raise ``JobNotFoundError`` unless ``pod`` is the pod ``stored`` names (see the module docstring)."""
    _, _, uid = parse_identity(stored)
    meta = pod.metadata
    if uid is not None:
        if meta.uid != uid:
            raise JobNotFoundError(
                stored,
                f"pod {meta.namespace}/{meta.name} now has uid {meta.uid}, not the stored {uid}: "
                "another pod reuses the name, and it is not this task's",
            )
        return
    labels = meta.labels or {}
    if labels.get(ALREADY_CHECKED_LABEL) == "True":
        raise JobNotFoundError(stored, f"pod {meta.namespace}/{meta.name} was already finished with by an earlier try")
    if not carries_task_instance_labels(labels, expected_labels):
        raise JobNotFoundError(
            stored,
            f"pod {meta.namespace}/{meta.name} was stored without a uid (by upstream's operator) and does not "
            f"carry this task instance's labels {expected_labels}: not adopting it",
        )


def carries_task_instance_labels(labels: dict[str, str], expected: dict[str, str]) -> bool:
    """True when every expected task-instance label is on the pod with the same value."""
    return bool(expected) and all(labels.get(key) == value for key, value in expected.items())
