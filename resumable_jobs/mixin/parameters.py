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

Templated flags: a flag the operator lists in ``template_fields`` (Batch's ``wait_for_completion``)
may hold a Jinja template at construction - ``"{{ params.wait }}"`` - which only has a value once
Airflow renders the task. Such a value is left alone at construction and checked by
:func:`check_rendered_parameters` at the start of the try, with the same message. After rendering,
the strings ``"True"`` and ``"False"`` (what a template renders a Python bool to, unless the DAG
renders native objects) count as the bools; anything else is the same ``TypeError``. A template
string in a flag that is *not* templated is still rejected at construction: Airflow would never
render it.

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


def is_template(value: Any) -> bool:
    """True for a string Airflow's Jinja rendering would change (it holds ``{{`` or ``{%``)."""
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def flag(
    name: str,
    value: Any,
    *,
    default: Callable[[], bool],
    default_text: str,
    owner: str,
    templated: bool = False,
    rendered: bool = False,
) -> Any:
    """``value`` as a bool: True or False as given, None for ``default()``; anything else is a TypeError.

    ``templated``: the flag is a template field, so a template string is returned unchanged (it is
    checked once rendered). ``rendered``: the value comes out of rendering, where ``"True"`` and
    ``"False"`` are the bools a non-native template produces.
    """
    if value is None:
        return default()
    if isinstance(value, bool):
        return value
    if templated and is_template(value):
        return value
    if rendered and isinstance(value, str) and value.strip() in _RENDERED_BOOLS:
        return _RENDERED_BOOLS[value.strip()]
    raise TypeError(
        f"{owner}: {name} must be True or False (or None for the default, {default_text}), "
        f"got {value!r} ({type(value).__name__})"
    )


#: What Jinja renders a Python bool to when the DAG does not render native objects.
_RENDERED_BOOLS = {"True": True, "False": False}


def poll_interval(name: str, value: Any, *, owner: str, templated: bool = False, rendered: bool = False) -> Any:
    """``value`` if it is a number of seconds >= 0; a TypeError or ValueError naming ``name`` otherwise.

    ``templated`` and ``rendered`` as for :func:`flag`; a rendered string holding a number is that number.
    """
    if templated and is_template(value):
        return value
    if rendered and isinstance(value, str):
        value = _number_or_text(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{owner}: {name} must be a number of seconds >= 0, got {value!r} ({type(value).__name__})")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{owner}: {name} must be a finite number of seconds >= 0, got {value!r}")
    return value


def _number_or_text(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text.strip())
        except ValueError:
            continue
    return text


#: The mode flags every operator shares: name -> (default when None, how the default reads).
MODE_FLAGS: dict[str, tuple[Callable[[], bool], str]] = {
    "deferrable": (default_deferrable, "[operators] default_deferrable"),
    "wait_for_termination": (lambda: True, "True"),
}


def owner_of(operator: Any) -> str:
    """How messages name the operator: ``BatchOperator(task_id='load')``."""
    return f"{type(operator).__name__}(task_id={getattr(operator, 'task_id', '?')!r})"


def templated_name(operator: Any, name: str) -> str | None:
    """The template field that sets flag ``name``: itself, an upstream alias mapped onto it, or None."""
    fields = set(getattr(operator, "template_fields", ()) or ())
    if name in fields:
        return name
    aliases = getattr(operator, "flag_aliases", {}) or {}
    return next((alias for alias, target in aliases.items() if target == name and alias in fields), None)


def check_common_parameters(operator: Any, *, rendered: bool = False) -> bool:
    """Check (and resolve None in) the operator's mode flags and poll intervals; see the module docstring.

    At construction (``rendered=False``) a template string in a templated flag is left for later;
    returns True when one was. At the start of a try (``rendered=True``) every value is checked
    and normalised (``"False"`` -> False).
    """
    owner = owner_of(operator)
    deferred = False
    for name, (default, default_text) in MODE_FLAGS.items():
        if not hasattr(operator, name):
            continue  # an operator without this mode (the mixin's own default applies)
        value = getattr(operator, name)
        field = templated_name(operator, name)
        resolved = flag(
            # once rendered, a wrong value came through the template field: name that one
            field if rendered and field else name,
            value,
            default=default,
            default_text=default_text,
            owner=owner,
            templated=not rendered and field is not None,
            rendered=rendered,
        )
        deferred = deferred or is_template(resolved)
        if resolved is not value:
            setattr(operator, name, resolved)
    for name in getattr(operator, "poll_interval_parameters", ()):
        value = getattr(operator, name)
        templated = not rendered and templated_name(operator, name) is not None
        resolved = poll_interval(name, value, owner=owner, templated=templated, rendered=rendered)
        deferred = deferred or is_template(resolved)
        if resolved is not value:
            setattr(operator, name, resolved)
    return deferred


def check_rendered_parameters(operator: Any) -> None:
    """The start-of-try check of :func:`check_common_parameters`, on the rendered values."""
    check_common_parameters(operator, rendered=True)
