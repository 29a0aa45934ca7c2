"""Task SDK names that moved into ``airflow.sdk`` after Airflow 3.0, found where each release has them.

Why: the package promises Airflow 3.0 and later, but ``airflow.sdk.conf``, ``airflow.sdk.BaseHook``
and the execution exceptions (``TaskDeferred``, ``AirflowTaskTimeout``, ``AirflowFailException``)
are not in 3.0's Task SDK; there they live in ``airflow.configuration``, ``airflow.hooks.base``
and ``airflow.exceptions``. One lookup per name keeps that knowledge in one place.

How it works: each function imports the name from ``airflow.sdk`` first and falls back to the
3.0 location, inside the function, so importing this module imports no part of Airflow.

What it does not do: provide anything Airflow 3.0 lacks altogether (``task_state_store``,
``NEVER_EXPIRE``): those are used only on the durable path, which needs 3.3.
"""

from __future__ import annotations

from typing import Any


def airflow_conf() -> Any:
    """Airflow's configuration (``airflow.sdk.conf`` from 3.1 on)."""
    try:
        from airflow.sdk import conf
    except ImportError:  # Airflow 3.0
        from airflow.configuration import conf
    return conf


def base_hook() -> type:
    """``BaseHook``, whose ``get_connection`` resolves connections on a worker."""
    try:
        from airflow.sdk import BaseHook
    except ImportError:  # Airflow 3.0
        from airflow.hooks.base import BaseHook
    return BaseHook


def sdk_exception(name: str) -> type[BaseException]:
    """An exception of Airflow's task execution (``TaskDeferred``, ``AirflowTaskTimeout``, ...)."""
    from airflow.sdk import exceptions

    found = getattr(exceptions, name, None)
    if found is None:  # Airflow 3.0
        import airflow.exceptions

        found = getattr(airflow.exceptions, name)
    return found
