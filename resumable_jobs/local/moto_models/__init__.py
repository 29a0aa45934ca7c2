"""What moto does not model of an AWS service, added the way AWS documents it.

What it is for: moto serves the APIs our AWS operators call, but leaves out behaviour the
crash-safety claims rest on - an idempotency token (``ClientToken``, ``clientToken``) answered
with the first run's id, a run held RUNNING until a test releases it, a cancellation that really
stops a run. Each module of this package adds one service's missing pieces to moto, so the same
additions apply in-process (``mock_aws`` in unit tests) and in the separate ``moto_server``
process the Airflow deployments use.

How it works: a module here exposes ``install() -> None``, which patches moto's backend classes
for its service and is idempotent. :func:`install_all` runs every module's ``install`` (found by
listing the package, so adding a service is adding a file). ``python -m
resumable_jobs.local.moto_models [moto_server arguments]`` installs them all, then runs moto's own
server entry point: :class:`resumable_jobs.local.moto_server.LocalMotoServer` starts the server
that way.

What it does not do: change anything moto already models, or model services nobody tests. Each
module's docstring says which behaviour comes from moto and which from the module, and on what
evidence (the AWS API reference).
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["install_all", "model_modules"]


def model_modules() -> list[str]:
    """The names of this package's service modules, sorted."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))


def install_all() -> list[str]:
    """Run every service module's ``install()``; return the modules installed."""
    installed = []
    for name in model_modules():
        module = importlib.import_module(f"{__name__}.{name}")
        install = getattr(module, "install", None)
        if callable(install):
            install()
            installed.append(name)
    return installed
