"""A Spark standalone master as a cluster manager: REST submission, no ``spark-submit``.

What it is for: the operator's standalone path - create, read and kill a driver through the
master's REST submission server, wait for it in :class:`~resumable_jobs.providers.spark.trigger.SparkDriverTrigger`.

How it works: the request body comes from :func:`~resumable_jobs.providers.spark.request.build_create_request`,
the calls go through :class:`~resumable_jobs.providers.spark.rest_client.SparkRestClient` (HA:
the first master that answers as the active one), statuses are
:class:`~resumable_jobs.providers.spark.status.DriverStatus`. The driver id (``driver-...``) is
the application id.

What it does not do: ``find`` always answers None - drivers carry no name, tag or token the REST
server or the master's JSON could be searched by - so the submit-to-persist window stays open on
standalone (documented). It ignores the submission token.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from resumable_jobs.providers.spark.cluster_manager import ClusterManager

if TYPE_CHECKING:
    from resumable_jobs.providers.spark.connection import SparkRestEndpoint
    from resumable_jobs.providers.spark.master import SparkConnection
    from resumable_jobs.providers.spark.rest_client import SparkRestClient
    from resumable_jobs.providers.spark.status import DriverStatus
    from resumable_jobs.providers.spark.trigger import SparkDriverTrigger

__all__ = ["StandaloneClusterManager"]


class StandaloneClusterManager(ClusterManager):
    """Drivers on a standalone master, through its REST submission server (see the module docstring)."""

    noun: ClassVar[str] = "Spark driver"
    lost_hint: ClassVar[str] = "the master may have restarted without recovery (a retry submits a new driver)"

    def __init__(
        self,
        connection: SparkConnection,
        *,
        application: str,
        create_request: Callable[[], dict[str, Any]],
        log: Any,
    ) -> None:
        self.connection = connection
        self.application = application
        self._create_request = create_request
        self.log = log

    @cached_property
    def endpoint(self) -> SparkRestEndpoint:
        from resumable_jobs.providers.spark.connection import endpoint_from_connection

        return endpoint_from_connection(self.connection.conn)

    @cached_property
    def client(self) -> SparkRestClient:
        from resumable_jobs.providers.spark.rest_client import SparkRestClient

        return SparkRestClient(self.endpoint.rest_urls)

    @property
    def transient_errors(self) -> tuple[type[Exception], ...]:  # type: ignore[override]
        from resumable_jobs.providers.spark.rest_client import SparkRestError

        return (SparkRestError,)

    def submit(self, token: str, *, extra_conf: Mapping[str, str] | None = None) -> str:
        request = self._create_request()
        if extra_conf:
            request["sparkProperties"] = {**request["sparkProperties"], **extra_conf}
        self.log.info(
            "Submitting Spark application %s (main class %s) to %s",
            self.application,
            request["mainClass"],
            ", ".join(self.endpoint.rest_urls),
        )
        driver_id = self.client.create(request)
        self.log.info("Spark master accepted driver %s", driver_id)
        return driver_id

    def status(self, app_id: str) -> DriverStatus:
        return self.client.status(app_id)

    def is_active(self, state: str) -> bool:
        from resumable_jobs.providers.spark.status import is_active

        return is_active(state)

    def is_succeeded(self, state: str) -> bool:
        from resumable_jobs.providers.spark.status import is_succeeded

        return is_succeeded(state)

    def cancel(self, app_id: str) -> None:
        accepted, message = self.client.kill(app_id)
        if accepted:
            self.log.info("Asked the Spark master to kill driver %s: %s", app_id, message)
        else:
            self.log.warning("Spark master did not kill driver %s: %s", app_id, message)

    def trigger(self, app_id: str, poll_interval: float) -> SparkDriverTrigger:
        from resumable_jobs.providers.spark.trigger import SparkDriverTrigger

        return SparkDriverTrigger(driver_id=app_id, rest_urls=self.endpoint.rest_urls, poll_interval=poll_interval)

    def ui_url(self, app_id: str) -> str | None:
        return self.endpoint.master_ui_url

    def fingerprint_payload(self) -> Any:
        return self._create_request()
