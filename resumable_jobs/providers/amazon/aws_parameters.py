"""Parameters the AWS operators share: upstream's wait-flag alias and the old ``region`` name.

What it is for: the Amazon provider names "wait for the job" differently per operator
(``wait_for_completion`` on Batch and Glue) and still accepts ``region`` as the old name of
``region_name``; this package's common model calls the wait flag ``wait_for_termination``.
Every AWS operator here accepts both wait names and both region names, with the same checks and
the same messages.

How it works: :func:`resolve_wait` type-checks both wait names (True, False or None, through
:func:`resumable_jobs.mixin.parameters.flag`) and returns the one value they mean, None when
neither was given (the mixin's default then applies); contradicting values raise ``ValueError``.
:func:`resolve_region` returns the region to use, warning when ``region`` was used.

What it does not do: read any AWS configuration; it only reconciles what the DAG wrote.
"""

from __future__ import annotations

import warnings
from typing import Any

from resumable_jobs.mixin.parameters import MODE_FLAGS, flag, is_template

__all__ = ["UpstreamWaitFlag", "resolve_region", "resolve_wait"]


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


def resolve_region(region_name: str | None, region: str | None, *, owner: str) -> str | None:
    """``region`` is the AWS operators' old name of ``region_name``; honour it, with a warning."""
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
        stacklevel=4,
    )
    return region


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
