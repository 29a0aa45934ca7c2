"""The triggerer side of ``SparkSubmitOperator(deferrable=True)`` on YARN.

What it is for: waiting for a YARN application in the triggerer, through the ResourceManager REST
API (HA: each RM in turn), with the worker's status mapping.

How it works: :class:`YarnApplicationTrigger` is an
:class:`~resumable_jobs.providers.spark.status_trigger.ApplicationStatusTrigger` whose read is
``GET /ws/v1/cluster/apps/<id>`` through
:class:`~resumable_jobs.providers.spark.yarn.rm_async.AsyncResourceManagerClient` (``aiohttp``,
never blocking the loop) on one session shared by every YARN trigger of the triggerer for the
same ResourceManagers. Its serialised arguments are the application id, the RM URLs and whether
to authenticate with SPNEGO (the triggerer then needs ``requests-kerberos`` - whose ``pyspnego``
makes the token - and a ticket cache, as the worker does).

What it does not do: it cannot carry an explicit ``yarn_rm_auth`` object to the triggerer (it is
no JSON); the operator refuses ``deferrable=True`` with one, naming this reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar

from resumable_jobs.providers.shared_clients import Lease, shared_http_session
from resumable_jobs.providers.spark.status_trigger import ApplicationStatusTrigger
from resumable_jobs.providers.spark.yarn.manager import YarnClusterManager
from resumable_jobs.providers.spark.yarn.status import YarnApplicationStatus

__all__ = ["YarnApplicationTrigger"]


class YarnApplicationTrigger(ApplicationStatusTrigger):
    """Poll one YARN application until it is terminal."""

    client_modules: ClassVar[tuple[str, ...]] = ("aiohttp", "resumable_jobs.providers.spark.yarn.rm_async")
    noun: ClassVar[str] = YarnClusterManager.noun
    lost_hint: ClassVar[str] = YarnClusterManager.lost_hint

    def __init__(
        self,
        app_id: str,
        rm_urls: Sequence[str],
        kerberos: bool = False,
        poll_interval: float = 10.0,
        max_consecutive_errors: int = 5,
        request_timeout: float = 30.0,
    ) -> None:
        super().__init__(app_id, poll_interval=poll_interval, max_consecutive_errors=max_consecutive_errors)
        self.rm_urls = [str(u).rstrip("/") for u in rm_urls]
        self.kerberos = bool(kerberos)
        self.request_timeout = float(request_timeout)

    def serialized_kwargs(self) -> dict[str, Any]:
        return {"rm_urls": list(self.rm_urls), "kerberos": self.kerberos, "request_timeout": self.request_timeout}

    def transient_errors(self) -> tuple[type[Exception], ...]:
        return (*YarnClusterManager.transient_errors, ValueError)

    def connect(self) -> AbstractAsyncContextManager[Lease]:
        return shared_http_session(("yarn", tuple(self.rm_urls)))

    async def read_status(self, client: Lease) -> YarnApplicationStatus:
        from resumable_jobs.providers.spark.yarn.rm_async import AsyncResourceManagerClient

        rm = AsyncResourceManagerClient(self.rm_urls, client, kerberos=self.kerberos, timeout=self.request_timeout)
        return YarnApplicationStatus.from_report(await rm.application(self.app_id))
