"""One ``aiohttp`` session and one OAuth access token per event loop and Google connection, for our triggers.

What it is for: the BigQuery trigger's status reads. Upstream's trigger reads a job through the
synchronous client library in asgiref's one shared thread, building credentials and a client for
every read; a thousand deferred jobs then share that thread. Here a read is one GET on the loop,
with a token every trigger of the connection shares.

How it works: :func:`google_api` is a :func:`~resumable_jobs.providers.shared_clients.shared_client`
keyed by the connection and the impersonation chain. Its opener, once per loop and key, refreshes the
credentials - built once per process by :func:`credentials_for` the way the operator's hook does (``GoogleBaseHook(gcp_conn_id, impersonation_chain)
.get_credentials()``, which ``BigQueryHook`` inherits: key file, key dict, ADC, impersonation;
the base hook's module, not the BigQuery one, whose client library import holds the GIL long
enough to stall the loop) - in a worker thread, since the connection lookup, the key load and
google-auth's refresh are synchronous, and opens the session. The client is retired after :data:`TOKEN_REUSE`, half the hour Google's access tokens (also
impersonated ones, by default) live, so the token is renewed before it expires: once per half
token life, in a thread. The API's
base URL is ``BIGQUERY_EMULATOR_HOST`` when set (as the client library reads it), else Google's.
TLS is verified with aiohttp's default context.

What it does not do: it makes no API call of its own, retries nothing and keeps no credentials
on disk; a token revoked before its renewal answers 401 until then, and credentials whose tokens
live shorter than :data:`TOKEN_REUSE` are not supported.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from resumable_jobs.providers.shared_clients import shared_client

__all__ = ["BIGQUERY_API", "TOKEN_REUSE", "GoogleApi", "GoogleCredentialsError", "credentials_for", "google_api"]

BIGQUERY_API = "https://bigquery.googleapis.com"
#: Seconds one access token (and its session) is used at most; Google's access tokens live an hour.
TOKEN_REUSE = 30 * 60.0


class GoogleCredentialsError(Exception):
    """The connection's credentials could not be built or refreshed."""


@dataclass(frozen=True)
class GoogleApi:
    """What a trigger's call needs: the session, the base URL and the bearer token's headers."""

    session: Any
    base_url: str
    headers: dict[str, str]


def google_api(
    conn_id: str, impersonation_chain: str | Sequence[str] | None
) -> contextlib.AbstractAsyncContextManager[Any]:
    """A lease on this loop's client for ``conn_id`` (and impersonation chain), held while a trigger runs."""
    chain = tuple(impersonation_chain) if isinstance(impersonation_chain, list | tuple) else impersonation_chain
    return shared_client(
        ("google-api", conn_id, chain), lambda: _open(conn_id, impersonation_chain), max_age=TOKEN_REUSE
    )


@contextlib.asynccontextmanager
async def _open(conn_id: str, impersonation_chain: Any) -> AsyncIterator[GoogleApi]:
    import aiohttp

    headers = await asyncio.to_thread(_fresh_headers, conn_id, impersonation_chain)
    host = os.environ.get("BIGQUERY_EMULATOR_HOST") or BIGQUERY_API
    if "://" not in host:
        host = f"http://{host}"
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        yield GoogleApi(session, host.rstrip("/"), headers)


def _fresh_headers(conn_id: str, impersonation_chain: Any) -> dict[str, str]:
    """The request headers of the connection's credentials, refreshed now (synchronous: run in a thread)."""
    from google.auth.transport.requests import Request

    headers: dict[str, str] = {}
    try:
        credentials = credentials_for(conn_id, impersonation_chain)
        if credentials.token is not None or not credentials.valid:  # a new token for the client's whole life
            credentials.refresh(Request())
        credentials.apply(headers)  # "Authorization: Bearer <token>" (nothing for anonymous credentials)
    except Exception as error:
        raise GoogleCredentialsError(
            f"could not get an access token from connection {conn_id!r}: {type(error).__name__}: {error}"
        ) from error
    return headers


def credentials_for(conn_id: str, impersonation_chain: Any) -> Any:
    """The connection's credentials, built once per process and connection content (call it from a thread).

    Building them loads the private key, which cryptography does holding the GIL (tens of
    milliseconds for an RSA key: the event loop waits that long), so they are kept while the
    connection stays the same; a refresh only signs a new assertion.
    """
    from airflow.providers.google.common.hooks.base_google import GoogleBaseHook

    conn = GoogleBaseHook.get_connection(conn_id)
    chain = tuple(impersonation_chain) if isinstance(impersonation_chain, list | tuple) else impersonation_chain
    key = (conn_id, chain, conn.conn_type, conn.host, conn.login, conn.password, conn.extra)
    with _BUILDING:
        credentials = _CREDENTIALS.get(key)
        if credentials is None:
            hook = GoogleBaseHook(gcp_conn_id=conn_id, impersonation_chain=impersonation_chain)
            credentials = _CREDENTIALS[key] = hook.get_credentials()
    return credentials


#: (connection id, impersonation chain, the connection's fields) -> credentials, for every loop of the process.
_CREDENTIALS: dict[Any, Any] = {}
_BUILDING = threading.Lock()
