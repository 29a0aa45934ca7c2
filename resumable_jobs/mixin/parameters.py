"""Checking the common parameters every resumable operator takes, once, at construction.

Why: a mode flag taken by truthiness turns a typo into a different behaviour - ``deferrable="false"``
defers, ``wait_for_termination=None`` made some operators submit-only while others waited - and
a negative poll interval is accepted, the job submitted, and only then does the try fail
(``sleep length must be non-negative``), on every retry. A wrong value has to fail where it is
written: in the DAG file, at construction, naming the parameter.

How it works: :func:`check_common_parameters` runs once the outermost ``__init__`` has finished
(so the operator has stored its own values). ``deferrable`` and ``wait_for_termination`` must be
True, False or None; None becomes the default, the same on every operator (``[operators]
default_deferrable`` and True). Each name an operator lists in ``poll_interval_parameters`` must
be a finite number >= 0. :func:`flag` is the same check for an operator's own flags (such as an
upstream alias of ``wait_for_termination``). ``durable`` is checked where it arrives
(``ResumableJobContract._accept_durable``), since it is taken out of the keyword arguments.

What it does not do: check parameters only one operator has; the operator does that itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

def default_deferrable() -> bool:
    """``[operators] default_deferrable``, read when an operator is built (not at import)."""
    from resumable_jobs.shims.sdk_names import airflow_conf

    return airflow_conf().getboolean("operators", "default_deferrable", fallback=False)


def flag(name: str, value: Any, *, default: Callable[[], bool], default_text: str, owner: str) -> bool:
    """``value`` as a bool: True or False as given, None for ``default()``; anything else is a TypeError."""
    if value is None:
        return default()
    if isinstance(value, bool):
        return value
    raise TypeError(
        f"{owner}: {name} must be True or False (or None for the default, {default_text}), "
        f"got {value!r} ({type(value).__name__})"
    )


def poll_interval(name: str, value: Any, *, owner: str) -> float | int:
    """``value`` if it is a number of seconds >= 0; a TypeError or ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{owner}: {name} must be a number of seconds >= 0, got {value!r} ({type(value).__name__})")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{owner}: {name} must be a finite number of seconds >= 0, got {value!r}")
    return value


#: The mode flags every operator shares: name -> (default when None, how the default reads).
MODE_FLAGS: dict[str, tuple[Callable[[], bool], str]] = {
    "deferrable": (default_deferrable, "[operators] default_deferrable"),
    "wait_for_termination": (lambda: True, "True"),
}


def owner_of(operator: Any) -> str:
    """How messages name the operator: ``BatchOperator(task_id='load')``."""
    return f"{type(operator).__name__}(task_id={getattr(operator, 'task_id', '?')!r})"


def check_common_parameters(operator: Any) -> None:
    """Check (and resolve None in) the operator's mode flags and poll intervals; see the module docstring."""
    owner = owner_of(operator)
    for name, (default, default_text) in MODE_FLAGS.items():
        if not hasattr(operator, name):
            continue  # an operator without this mode (the mixin's own default applies)
        value = getattr(operator, name)
        resolved = flag(name, value, default=default, default_text=default_text, owner=owner)
        if value is None:
            setattr(operator, name, resolved)
    for name in getattr(operator, "poll_interval_parameters", ()):
        poll_interval(name, getattr(operator, name), owner=owner)
