"""Parameters every AWS operator of this package takes the same way: the wait flag's upstream alias
and ``region``, the AWS operators' old name of ``region_name``.

What it is for: one reading of those two parameters for every AWS operator here (EMR Serverless,
EMR on EKS; Batch has the same rules in private helpers of ``batch.py``), so an alias means the
same everywhere and a contradiction fails the same way, at construction, naming both parameters.

How it works: :func:`resolve_wait` checks both values with
:func:`resumable_jobs.mixin.parameters.flag` (True, False or None) and returns the one given, or
None when neither was (the mixin's default applies: wait). :func:`resolve_region` returns
``region`` as ``region_name`` with a warning to rename it; upstream's ``AwsBaseOperator`` accepts
``region`` but no longer applies it.

What it does not do: read any AWS configuration; the hook resolves a None region from the
connection or boto3's defaults, as upstream does.
"""

from __future__ import annotations

import warnings

from resumable_jobs.mixin.parameters import MODE_FLAGS, flag

__all__ = ["resolve_region", "resolve_wait"]


def resolve_wait(
    wait_for_termination: bool | None,
    upstream_value: bool | None,
    *,
    upstream_name: str,
    owner: str,
) -> bool | None:
    """One wait flag from the common name and upstream's (None: neither given)."""
    default, default_text = MODE_FLAGS["wait_for_termination"]
    for name, value in (("wait_for_termination", wait_for_termination), (upstream_name, upstream_value)):
        flag(name, value, default=default, default_text=default_text, owner=owner)  # TypeError unless bool/None
    if wait_for_termination is not None and upstream_value is not None and wait_for_termination != upstream_value:
        raise ValueError(
            f"{owner}: wait_for_termination={wait_for_termination!r} and {upstream_name}={upstream_value!r} "
            f"contradict each other; {upstream_name} is the upstream name of wait_for_termination: pass only one."
        )
    return wait_for_termination if wait_for_termination is not None else upstream_value


def resolve_region(region_name: str | None, region: str | None, *, owner: str, stacklevel: int = 4) -> str | None:
    """``region`` is the old name of ``region_name``: use it, with a warning; both and different: ValueError."""
    if region is None:
        return region_name
    if region_name is not None and region_name != region:
        raise ValueError(
            f"{owner}: region={region!r} and region_name={region_name!r} contradict each other; region is "
            "the old name of region_name: pass only region_name."
        )
    warnings.warn(
        f"{owner}: region= is the old name of region_name and is used as region_name here (upstream's "
        "operator accepts it but no longer applies it). Rename it to region_name.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return region
