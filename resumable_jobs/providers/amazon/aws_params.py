"""Parameters the AWS operators share with upstream's, resolved the same way for each of them.

What it is for: upstream's AWS operators accept ``region`` (the old name of ``region_name``,
accepted but no longer applied) and some name their wait flag ``wait_for_completion``; this
package's common name is ``wait_for_termination``. A DAG may give either name, and these
functions turn the two into one value - or a construction-time error naming both parameters.

How it works: plain functions an operator calls in its ``__init__`` with its own ``owner``
(``RedshiftDataOperator(task_id='load')``) for the messages. ``None`` always means "not given".

What it does not do: read configuration or import anything from the Amazon provider.
"""

from __future__ import annotations

import warnings

from resumable_jobs.mixin.parameters import MODE_FLAGS, flag

__all__ = ["resolve_region", "resolve_wait"]


def resolve_region(region_name: str | None, region: str | None, *, owner: str) -> str | None:
    """``region`` used as ``region_name`` (with a warning to rename it); both, different: ValueError."""
    if region is None:
        return region_name
    if region_name is not None and region_name != region:
        raise ValueError(
            f"{owner}: region={region!r} and region_name={region_name!r} contradict each other; region "
            "is the old name of region_name: pass only region_name."
        )
    warnings.warn(
        f"{owner}: region= is the old name of region_name and is used as region_name here (upstream's "
        "operator accepts it but no longer applies it). Rename it to region_name.",
        UserWarning,
        stacklevel=4,
    )
    return region


def resolve_wait(wait_for_termination: bool | None, alias: str, alias_value: bool | None, *, owner: str) -> bool | None:
    """One wait flag from the common name and upstream's ``alias`` (None: neither given)."""
    default, default_text = MODE_FLAGS["wait_for_termination"]
    for name, value in (("wait_for_termination", wait_for_termination), (alias, alias_value)):
        flag(name, value, default=default, default_text=default_text, owner=owner)  # TypeError unless bool/None
    if wait_for_termination is not None and alias_value is not None and wait_for_termination != alias_value:
        raise ValueError(
            f"{owner}: wait_for_termination={wait_for_termination!r} and {alias}={alias_value!r} contradict "
            f"each other; {alias} is the upstream name of wait_for_termination: pass only one."
        )
    return wait_for_termination if wait_for_termination is not None else alias_value
