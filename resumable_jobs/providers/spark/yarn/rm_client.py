"""A small synchronous client for the YARN ResourceManager REST API, aware of RM high availability.

What it is for: the calls the operator and its trigger make - read one application, list the
applications carrying a tag, kill one - with errors that tell "the RM does not know this
application" apart from "no RM could answer".

How it works: plain ``requests`` (imported when a call is made) against
``<rm>/ws/v1/cluster/apps...`` with ``Accept: application/json``. With several ResourceManagers
(HA) each call goes to them in order until one answers as the active one. A standby RM answers a
web-service call with HTTP 307 to the active RM (its ``Location`` is tried next, even if it was
not configured), or - while no RM is active - with a plain-text page; both mean "ask another
one", never "not found". Only the RM's own JSON ``NotFoundException`` (HTTP 404) raises
:class:`~resumable_jobs.mixin.errors.JobNotFoundError`, so a proxy's 404 page cannot make the mixin
submit a second application. Every call carries ``auth`` (``yarn_rm_auth``, SPNEGO or none).
What an answer means is decided in one place, :func:`read_answer`, which the trigger's
asynchronous client (:mod:`~resumable_jobs.providers.spark.yarn.rm_async`) uses too.

What it does not do: no retries on the same RM and no waiting (the callers poll); it does not
submit applications (``spark-submit`` does, over Hadoop RPC).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from resumable_jobs.mixin.errors import JobNotFoundError
from resumable_jobs.providers.spark.cluster_manager import StatusUnavailable

__all__ = [
    "APPS_PATH",
    "ResourceManagerClient",
    "ResourceManagerRefused",
    "ResourceManagerUnavailable",
    "RmReply",
    "application_report",
    "no_active_rm",
    "read_answer",
]

APPS_PATH = "/ws/v1/cluster/apps"


class ResourceManagerUnavailable(StatusUnavailable):
    """No ResourceManager answered as the active one (unreachable, standby, HTTP 5xx, not JSON)."""


class ResourceManagerRefused(RuntimeError):
    """The active ResourceManager refused the call (HTTP 4xx: authentication, permissions, a bad id)."""


class ResourceManagerClient:
    """Read, list and kill YARN applications through one or more ResourceManagers (HA)."""

    def __init__(self, urls: Sequence[str], *, auth: Any = None, timeout: float = 30.0) -> None:
        if not urls:
            raise ValueError(
                "the ResourceManager REST API address is needed to follow a YARN application: set "
                "yarn_resourcemanager_webapp_address in the Spark connection's extra (e.g. "
                "http://rm1:8088,http://rm2:8088)"
            )
        self.urls = [str(u).rstrip("/") for u in urls]
        self.auth = auth
        self.timeout = timeout
        #: The RM that answered last as the active one (for links).
        self.active_url = self.urls[0]

    def application(self, app_id: str) -> dict[str, Any]:
        """The ``app`` report of ``app_id``; ``JobNotFoundError`` when the RM does not know it."""
        return application_report(self._call("GET", f"{APPS_PATH}/{app_id}", not_found_id=app_id))

    def applications_tagged(self, tag: str) -> list[dict[str, Any]]:
        """Every application (any state the RM still keeps) carrying ``tag``."""
        reply = self._call("GET", APPS_PATH, params={"applicationTags": tag})
        apps = (reply.get("apps") or {}).get("app") or []
        return [a for a in apps if isinstance(a, dict)]

    def kill(self, app_id: str) -> str:
        """Ask the RM to kill ``app_id``; return the state it reports (``KILLED`` or still running)."""
        reply = self._call("PUT", f"{APPS_PATH}/{app_id}/state", body={"state": "KILLED"}, not_found_id=app_id)
        return str(reply.get("state") or "")

    def app_page(self, app_id: str) -> str:
        return f"{self.active_url}/cluster/app/{app_id}"

    # ----------------------------------------------------------------- transport
    def _call(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        not_found_id: str | None = None,
    ) -> dict[str, Any]:
        import requests

        candidates = list(self.urls)
        failures: list[str] = []
        for base in candidates:
            try:
                response = requests.request(
                    method,
                    f"{base}{path}",
                    params=params,
                    json=body,
                    auth=self.auth,
                    timeout=self.timeout,
                    allow_redirects=False,
                    headers={"Accept": "application/json"},
                )
            except requests.exceptions.RequestException as error:
                failures.append(f"{base}: {type(error).__name__}: {error}")
                continue
            answer = read_answer(
                RmReply(
                    base,
                    method,
                    path,
                    response.status_code,
                    response.headers.get("Location"),
                    _json_or_none(response),
                    response.text,
                ),
                candidates,
                failures,
                not_found_id=not_found_id,
            )
            if answer is not None:
                self.active_url = base
                return answer
        raise no_active_rm(method, path, failures)


@dataclass(frozen=True)
class RmReply:
    """One ResourceManager's answer to one call, whatever client made it."""

    base: str
    method: str
    path: str
    status: int
    location: str | None
    #: the JSON object of the body, or None when the body is no JSON object
    json: dict[str, Any] | None
    text: str


def read_answer(
    reply: RmReply, candidates: list[str], failures: list[str], *, not_found_id: str | None = None
) -> dict[str, Any] | None:
    """What one RM's answer means: the JSON to return, or None to ask the next RM (noted in ``failures``).

    A standby's redirect appends the active RM it names to ``candidates``. Raises
    ``JobNotFoundError`` for the RM's own NotFoundException and ``ResourceManagerRefused`` for
    another 4xx. Shared by the synchronous client and the trigger's asynchronous one.
    """
    base, status = reply.base, reply.status
    if status in (301, 302, 303, 307, 308):
        active = _base_of(reply.location)
        if active and active not in candidates:
            candidates.append(active)  # a standby names the active RM
        failures.append(f"{base}: standby ({status} to {active or 'nowhere yet'})")
        return None
    answer = reply.json
    if answer is None:
        failures.append(f"{base}: HTTP {status} without JSON: {reply.text[:200]!r}")
        return None
    if status == 404 and not_found_id and _remote_exception(answer) == "NotFoundException":
        raise JobNotFoundError(not_found_id, _remote_message(answer) or "the ResourceManager does not know it")
    if status >= 500:
        failures.append(f"{base}: HTTP {status}: {_remote_message(answer) or repr(answer)}")
        return None
    if status >= 400:
        raise ResourceManagerRefused(
            f"{reply.method} {base}{reply.path} answered HTTP {status}: {_remote_message(answer) or repr(answer)}"
        )
    return answer


def no_active_rm(method: str, path: str, failures: list[str]) -> ResourceManagerUnavailable:
    return ResourceManagerUnavailable(f"no ResourceManager answered {method} {path}: " + "; ".join(failures))


def application_report(reply: dict[str, Any]) -> dict[str, Any]:
    """The ``app`` object of a ``GET /ws/v1/cluster/apps/<id>`` answer."""
    app = reply.get("app")
    if not isinstance(app, dict):
        raise ResourceManagerUnavailable(f"ResourceManager answered without an application report: {reply!r}")
    return app


def _base_of(location: str | None) -> str | None:
    if not location:
        return None
    parts = urlsplit(location)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None


def _json_or_none(response: Any) -> dict[str, Any] | None:
    try:
        reply = response.json()
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None


def _remote_exception(reply: dict[str, Any]) -> str | None:
    remote = reply.get("RemoteException")
    return remote.get("exception") if isinstance(remote, dict) else None


def _remote_message(reply: dict[str, Any]) -> str | None:
    remote = reply.get("RemoteException")
    return remote.get("message") if isinstance(remote, dict) else None
