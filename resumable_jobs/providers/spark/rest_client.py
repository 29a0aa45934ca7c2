"""A small synchronous client for the Spark standalone REST submission server.

What it is for: the three calls the operator makes from the worker - create a driver, read its
status, kill it - with errors that say what the master answered.

How it works: plain ``requests`` (imported when a call is made, not at import) against
``<rest url>/v1/submissions/{create,status/<id>,kill/<id>}``. With several masters (HA), a call
moves to the next URL when a master cannot be reached or answers that it is not the active one.
Status replies go through :func:`~resumable_jobs.providers.spark.status.parse_status_reply`, so an
unknown driver id raises :class:`~resumable_jobs.mixin.errors.JobNotFoundError`.

What it does not do: no retries on the same master, no waiting (the operator polls), no
authentication (the standalone REST server has none), nothing asynchronous (see ``trigger``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from resumable_jobs.providers.spark.status import (
    NOT_ALIVE_MARKER,
    DriverStatus,
    MasterNotAliveError,
    parse_status_reply,
)

API_PREFIX = "/v1/submissions"

__all__ = ["API_PREFIX", "SparkRestClient", "SparkRestError", "SparkSubmissionRejected"]


class SparkRestError(RuntimeError):
    """The REST server could not be reached, or answered with an HTTP error or non-JSON."""


class SparkSubmissionRejected(SparkRestError):
    """The master refused to create the driver (``success: false``); the message says why."""


class SparkRestClient:
    """Create, inspect and kill drivers through one or more masters' REST servers."""

    def __init__(self, rest_urls: Sequence[str], *, timeout: float = 30.0) -> None:
        if not rest_urls:
            raise ValueError("SparkRestClient needs at least one REST URL")
        self.rest_urls = tuple(url.rstrip("/") for url in rest_urls)
        self.timeout = timeout

    def create(self, request: dict[str, Any]) -> str:
        """POST a ``CreateSubmissionRequest``; return the new driver id."""
        reply = self._call("POST", "/create", body=request, master_must_be_alive=True)
        driver_id = reply.get("submissionId")
        if reply.get("success") is not True or not driver_id:
            detail = reply.get("message") or repr(reply)
            raise SparkSubmissionRejected(f"Spark master refused the submission: {detail}")
        return str(driver_id)

    def status(self, driver_id: str) -> DriverStatus:
        """GET the driver's status. Raises ``JobNotFoundError`` when the master does not know it."""
        return self._call("GET", f"/status/{driver_id}", parse=lambda r: parse_status_reply(driver_id, r))

    def kill(self, driver_id: str) -> tuple[bool, str]:
        """POST a kill request; return ``(accepted, master's message)``."""
        reply = self._call("POST", f"/kill/{driver_id}", master_must_be_alive=True)
        return reply.get("success") is True, str(reply.get("message") or "")

    # ----------------------------------------------------------------- transport
    def _call(
        self,
        method: str,
        path: str,
        *,
        body: dict[str, Any] | None = None,
        parse: Any = None,
        master_must_be_alive: bool = False,
    ) -> Any:
        import requests

        failures = []
        for base in self.rest_urls:
            url = f"{base}{API_PREFIX}{path}"
            try:
                response = requests.request(method, url, json=body, timeout=self.timeout)
            except requests.exceptions.ConnectionError as error:
                failures.append(f"{url}: {error}")
                continue
            except requests.exceptions.RequestException as error:
                raise SparkRestError(f"{method} {url} failed: {error}") from error
            reply = _json_body(method, url, response)
            if master_must_be_alive and NOT_ALIVE_MARKER in str(reply.get("message") or ""):
                failures.append(f"{url}: {reply.get('message')}")
                continue
            if parse is None:
                return reply
            try:
                return parse(reply)
            except MasterNotAliveError as error:
                failures.append(f"{url}: {error}")
        raise SparkRestError(f"no Spark master answered {method} {path}: " + "; ".join(failures))


def _json_body(method: str, url: str, response: Any) -> dict[str, Any]:
    try:
        reply = response.json()
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        raise SparkRestError(
            f"{method} {url} answered HTTP {response.status_code} without a JSON object: {response.text[:500]!r}"
        )
    if response.status_code >= 400:
        detail = reply.get("message") or repr(reply)
        raise SparkRestError(f"{method} {url} answered HTTP {response.status_code}: {detail}")
    return reply
