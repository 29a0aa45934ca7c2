"""What the AWS operators share: the connection, upstream's wait-flag alias, the old ``region`` name, trigger events.

What it is for: the Amazon provider names "wait for the job" differently per operator
(``wait_for_completion`` on Batch and Glue) and still accepts ``region`` as the old name of
``region_name``; this package's common model calls the wait flag ``wait_for_termination``.
Every AWS operator here accepts both wait names and both region names, with the same checks and
the same messages, and keeps the connection in the same four attributes (``aws_conn_id``,
``region_name``, ``verify``, ``botocore_config``) that it hands to upstream's hooks and triggers.

How it works: :func:`resolve_wait` type-checks both wait names (True, False or None, through
:func:`resumable_jobs.mixin.parameters.flag`) and returns the one value they mean, None when
neither was given (the mixin's default then applies); contradicting values raise ``ValueError``.
:func:`resolve_region` returns the region to use, warning when ``region`` was used.
:func:`set_connection` sets the four connection attributes (the region through
:func:`resolve_region`); :func:`hook_kwargs` and :func:`trigger_kwargs` give them back
under the names upstream's hooks (``config``) and triggers (``botocore_config``) take.
:func:`deferred_cancel_on_kill_reason` is upstream's EMR meaning of ``cancel_on_kill=False``.
:func:`set_spark_openlineage` sets the ``openlineage_inject_*`` flags of the Spark operators
(Glue, EMR), each from ``[openlineage]`` when not given. :func:`translate_trigger_event` turns
the event an upstream trigger ends with (``{"status", <its id key>, "message"}``) into the mixin's
(``{"status": "success" | "error", "external_id", "message"}``): "success" stays a success, any
other status is an error whose message the operator builds (typically from the job's own reason).

What it does not do: read any AWS configuration, or build a hook or trigger itself (that would
import the Amazon provider); it only reconciles what the DAG wrote and what a trigger sent. Kept
in one module the operator modules import anyway, so sharing these adds nothing to import cost.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from resumable_jobs.mixin.parameters import MODE_FLAGS, flag, is_template
from resumable_jobs.providers.common import openlineage_default

__all__ = [
    "UpstreamWaitFlag",
    "deferred_cancel_on_kill_reason",
    "hook_kwargs",
    "resolve_region",
    "resolve_wait",
    "set_connection",
    "set_spark_openlineage",
    "translate_trigger_event",
    "trigger_kwargs",
]


def resolve_wait(
    wait_for_termination: bool | None,
    upstream_value: Any,
    *,
    owner: str,
    upstream_name: str = "wait_for_completion",
    upstream_default: bool | None = None,
    templated: bool = False,
) -> Any:
    """One value from the common name and upstream's: ``wait_for_termination`` when given, else upstream's.

    None: neither given, the mixin's default applies. ``upstream_default`` is the default of
    upstream's name in our signature (Batch keeps upstream's ``True``): a value equal to it cannot
    be told from "not given", so only a differing one contradicts ``wait_for_termination``.
    ``templated``: upstream's name is a template field, so it may hold a template until the try
    renders it (:mod:`resumable_jobs.mixin.parameters`); such a template cannot be combined with
    ``wait_for_termination``, whose value the rendered one would silently replace.
    """
    default, default_text = MODE_FLAGS["wait_for_termination"]
    flag("wait_for_termination", wait_for_termination, default=default, default_text=default_text, owner=owner)
    flag(upstream_name, upstream_value, default=default, default_text=default_text, owner=owner, templated=templated)
    if wait_for_termination is None:
        return upstream_value
    if is_template(upstream_value):
        raise ValueError(
            f"{owner}: wait_for_termination={wait_for_termination!r} and the templated "
            f"{upstream_name}={upstream_value!r} were both given; {upstream_name} is the upstream name of "
            "wait_for_termination: pass only one."
        )
    if upstream_value is not None and upstream_value != upstream_default and upstream_value != wait_for_termination:
        raise ValueError(
            f"wait_for_termination={wait_for_termination!r} and {upstream_name}={upstream_value!r} "
            f"contradict each other; {upstream_name} is the upstream name of wait_for_termination: "
            "pass only one."
        )
    return wait_for_termination


def resolve_region(region_name: str | None, region: str | None, *, owner: str, stacklevel: int = 4) -> str | None:
    """``region`` is the AWS operators' old name of ``region_name``; honour it, with a warning.

    ``stacklevel`` is the warning's, counted from here (4: called from an operator's ``__init__``).
    """
    if region is None:
        return region_name
    if region_name is not None and region_name != region:
        raise ValueError(
            f"{owner}: region={region!r} and region_name={region_name!r} contradict "
            "each other; region is the old name of region_name: pass only region_name."
        )
    warnings.warn(
        f"{owner}: region= is the old name of region_name and is used as "
        "region_name here (upstream's operator accepts it but no longer applies it). Rename it to region_name.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return region


def set_connection(
    operator: Any,
    aws_conn_id: str | None,
    region_name: str | None,
    verify: bool | str | None,
    botocore_config: dict | None,
    *,
    region: str | None,
    owner: str,
) -> None:
    """Set the operator's ``aws_conn_id``, ``region_name`` (``region`` honoured), ``verify`` and ``botocore_config``.

    Called from the operator's ``__init__``: the region warning points where it pointed when each
    operator resolved the region itself.
    """
    operator.aws_conn_id = aws_conn_id
    operator.region_name = resolve_region(region_name, region, owner=owner, stacklevel=5)
    operator.verify = verify
    operator.botocore_config = botocore_config


def hook_kwargs(operator: Any) -> dict[str, Any]:
    """The operator's connection as upstream's ``AwsBaseHook`` subclasses take it (``config``)."""
    return {
        "aws_conn_id": operator.aws_conn_id,
        "region_name": operator.region_name,
        "verify": operator.verify,
        "config": operator.botocore_config,
    }


def trigger_kwargs(operator: Any) -> dict[str, Any]:
    """The operator's connection as upstream's ``AwsBaseWaiterTrigger`` subclasses take it (``botocore_config``)."""
    kwargs = hook_kwargs(operator)
    kwargs["botocore_config"] = kwargs.pop("config")
    return kwargs


def set_spark_openlineage(operator: Any, parent_job_info: bool | None, transport_info: bool | None) -> None:
    """Set ``openlineage_inject_parent_job_info`` / ``..._transport_info``: each as given, else its ``[openlineage]`` option.

    The Spark operators' (Glue, EMR Serverless, EMR on EKS) ``spark_inject_parent_job_info`` and
    ``spark_inject_transport_info``, read when the operator is built.
    """
    operator.openlineage_inject_parent_job_info = openlineage_default(parent_job_info, "spark_inject_parent_job_info")
    operator.openlineage_inject_transport_info = openlineage_default(transport_info, "spark_inject_transport_info")


def deferred_cancel_on_kill_reason(operator: Any) -> str | None:
    """Why the job-lifecycle rule must not cancel: upstream's ``cancel_on_kill=False`` in deferrable mode (EMR).

    Upstream's EMR operators read ``cancel_on_kill=False`` as "keep a deferred run when the task is
    killed"; synchronous runs are cancelled as the rule says.
    """
    if operator.deferrable and not operator.cancel_on_kill:
        return "cancel_on_kill=False (deferrable mode)"
    return None


def translate_trigger_event(
    event: Any, id_key: str, success_message: str, error_message: Callable[[Any, Any], str]
) -> Any:
    """The mixin's event for upstream's ``event`` (whose job id is under ``id_key``); other events unchanged.

    ``error_message(external_id, trigger_message)`` is called only for a status other than "success".
    """
    if not isinstance(event, dict) or "external_id" in event or id_key not in event:
        return event
    external_id = event[id_key]
    if event.get("status") == "success":
        return {"status": "success", "external_id": external_id, "message": success_message}
    return {"status": "error", "external_id": external_id, "message": error_message(external_id, event.get("message"))}


class UpstreamWaitFlag:
    """Upstream's name of ``wait_for_termination`` (``wait_for_completion``) as an attribute of the operator.

    Reads and writes go through to ``wait_for_termination``, so the two names are one value: a
    DAG that reads or sets the upstream name, and template rendering that assigns a rendered
    upstream-named field back, both reach the flag the mixin uses.
    """

    def __get__(self, operator: Any, owner: type | None = None) -> Any:
        return self if operator is None else operator.wait_for_termination

    def __set__(self, operator: Any, value: Any) -> None:
        operator.wait_for_termination = value
