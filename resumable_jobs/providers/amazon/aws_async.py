"""aiobotocore clients shared by the AWS triggers: one per event loop, connection and service.

What it is for: a triggerer may wait on a thousand AWS jobs at once. Upstream's AWS triggers build
a hook, a session, credentials and an aiobotocore client per trigger or even per status read
(tens of milliseconds of CPU each, on the loop); the triggers of this package read every status
through one client per event loop and :class:`AwsConnection` + service instead.

How it works: :func:`aws_client` is an async context manager a trigger holds while it runs
(:func:`resumable_jobs.providers.shared_clients.shared_client`, keyed by the connection's four
fields and the service). The first call of a key builds, in a worker thread, upstream's
``AwsGenericHook`` for the connection (the connection lookup, the region, an assumed role's first
credentials), its aiobotocore session - given one process-wide botocore data loader, so the
service model, endpoint rules and partitions are read from disk once per process - and, the first
time a service is used in the process, enters and leaves one client of that service on a private
loop in that thread, so the JSON models are parsed there and not on the triggerer's loop. The client
may open :data:`MAX_POOL_CONNECTIONS` connections (botocore's default of 10 is one trigger's). The
loop then only enters the client (``create_client`` with everything cached). A client is retired after
:data:`CLIENT_MAX_AGE` seconds and the next call builds a fresh one, so rotated keys and
refreshed assumed-role credentials are picked up before botocore would refresh them on the loop.
:func:`call` makes one API call with a timeout; :func:`is_transient` tells throttling, 429/5xx
answers, timeouts and unreachable endpoints (worth another poll) from refusals (403, unknown ids,
validation errors, missing credentials: the same answer next time).

What it does not do: retry (botocore's own retries apply inside a call; the triggers decide about
the next poll), share anything between processes or loops, or refresh credentials inside a
client's lifetime faster than botocore does (an assumed role whose session lasts less than
:data:`CLIENT_MAX_AGE` plus botocore's 15-minute refresh margin is refreshed by botocore, whose
refresh call upstream's hook makes synchronously).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import Any

from resumable_jobs.providers.shared_clients import Lease, import_off_loop, shared_client

__all__ = [
    "CALL_TIMEOUT",
    "CLIENT_MAX_AGE",
    "MAX_POOL_CONNECTIONS",
    "AwsConnection",
    "aws_client",
    "call",
    "error_code",
    "is_transient",
]

#: Seconds a shared client is used before the next call builds a fresh one (credentials renewed).
CLIENT_MAX_AGE = 600.0
#: Concurrent HTTP connections of one shared client, unless ``botocore_config`` sets
#: ``max_pool_connections``: botocore's default (10) would let one client of a thousand triggers
#: send ~200 calls/s at 50 ms each, where 500/s are due at a 2 s poll interval.
MAX_POOL_CONNECTIONS = 500
#: Seconds one API call may take, botocore's own retries included, before it counts as a timeout.
CALL_TIMEOUT = 120.0

#: Error codes AWS answers for throttling (botocore's retry handler's list, plus the services' own).
_THROTTLING_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottledException",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "TransactionInProgressException",
        "RequestLimitExceeded",
        "BandwidthLimitExceeded",
        "LimitExceededException",
        "RequestThrottled",
        "SlowDown",
        "PriorRequestNotComplete",
        "EC2ThrottledException",
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "InternalServerError",
        "InternalServerException",
        "InternalFailure",
        "ServerException",
    }
)
_ASYNC_MODULES = ("aiobotocore.session", "botocore.loaders", "airflow.providers.amazon.aws.hooks.base_aws")
_LOADER_LOCK = threading.Lock()
_LOADER: Any = None
_WARMED: set[str] = set()


@dataclass(frozen=True)
class AwsConnection:
    """What identifies a client: the connection id, region, TLS verification and botocore config (as JSON)."""

    aws_conn_id: str | None
    region_name: str | None
    verify: bool | str | None
    botocore_config: str | None

    @classmethod
    def of(
        cls,
        aws_conn_id: str | None,
        region_name: str | None = None,
        verify: bool | str | None = None,
        botocore_config: dict | None = None,
    ) -> AwsConnection:
        config = None if botocore_config is None else json.dumps(botocore_config, sort_keys=True, default=str)
        return cls(aws_conn_id, region_name, verify, config)

    def hook_kwargs(self) -> dict[str, Any]:
        config = None if self.botocore_config is None else json.loads(self.botocore_config)
        return {
            "aws_conn_id": self.aws_conn_id,
            "region_name": self.region_name,
            "verify": self.verify,
            "config": config,
        }


def aws_client(connection: AwsConnection, service: str) -> contextlib.AbstractAsyncContextManager[Lease]:
    """Hold this loop's shared client of ``service`` for ``connection`` (see the module docstring)."""
    return shared_client(
        ("aiobotocore", service, connection), lambda: _open_client(connection, service), max_age=CLIENT_MAX_AGE
    )


async def call(lease: Lease, operation: str, timeout: float = CALL_TIMEOUT, **kwargs: Any) -> dict[str, Any]:
    """``operation`` (the client's method name, e.g. ``describe_statement``) with ``kwargs``, within ``timeout``."""
    async with lease.use() as client:
        answer: Awaitable[dict[str, Any]] = getattr(client, operation)(**kwargs)
        return await asyncio.wait_for(answer, timeout)


def error_code(error: BaseException) -> str | None:
    """The AWS error code of a botocore ``ClientError`` (None for any other error)."""
    response = getattr(error, "response", None)
    return response.get("Error", {}).get("Code") if isinstance(response, dict) else None


def is_transient(error: BaseException) -> bool:
    """True for an error another poll may not see: throttling, 429/5xx, timeouts, an unreachable endpoint."""
    if isinstance(error, asyncio.TimeoutError | TimeoutError | ConnectionError):
        return True
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
        return error_code(error) in _THROTTLING_CODES or status == 429 or status >= 500
    from botocore.exceptions import ConnectionError as BotocoreConnectionError
    from botocore.exceptions import HTTPClientError

    if isinstance(error, BotocoreConnectionError | HTTPClientError):  # endpoint unreachable, timeouts, resets
        return True
    with contextlib.suppress(ImportError):
        import aiohttp

        return isinstance(error, aiohttp.ClientError)
    return False


@contextlib.asynccontextmanager
async def _open_client(connection: AwsConnection, service: str) -> AsyncIterator[Any]:
    await import_off_loop(*_ASYNC_MODULES)
    creator = await asyncio.to_thread(_client_creator, connection, service)
    async with creator as client:
        yield client


def _client_creator(connection: AwsConnection, service: str) -> Any:
    """In a worker thread: the hook's session and the (not yet entered) ``create_client`` context of ``service``."""
    from airflow.providers.amazon.aws.hooks.base_aws import AwsGenericHook

    hook = AwsGenericHook(client_type=service, **connection.hook_kwargs())
    session = hook.get_session(region_name=hook.region_name, deferrable=True)
    session.register_component("data_loader", _shared_loader())
    get_config = getattr(hook, "_get_config", None)  # adds Airflow's user agent to the botocore config
    config = get_config() if callable(get_config) else hook.config
    if "max_pool_connections" not in (connection.hook_kwargs()["config"] or {}):
        from botocore.config import Config

        config = config.merge(Config(max_pool_connections=MAX_POOL_CONNECTIONS))
    kwargs = {
        "service_name": service,
        "endpoint_url": hook.conn_config.get_service_endpoint_url(service_name=service),
        "config": config,
        "verify": hook.verify,
    }
    if service not in _WARMED:
        asyncio.run(_enter_once(session.create_client(**kwargs)))
        _WARMED.add(service)
    return session.create_client(**kwargs)


async def _enter_once(creator: Any) -> None:
    async with creator:
        pass


def _shared_loader() -> Any:
    global _LOADER
    with _LOADER_LOCK:
        if _LOADER is None:
            from botocore.loaders import Loader

            _LOADER = Loader()
        return _LOADER
