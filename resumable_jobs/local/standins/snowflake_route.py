"""Send the real Snowflake clients' requests for ``*.snowflakecomputing.com`` to a local stand-in.

What it is for: ``SnowflakeSqlApiHook`` builds its URLs as ``https://<account>[.<region>]
.snowflakecomputing.com/api/v2/...`` and validates account and region, so no connection setting
can point it at ``http://127.0.0.1:<port>``. Tests and the crash suite still need the real hook,
the real trigger and the operator's own submission to reach the stand-in unchanged.

How it works: like a DNS entry for the test process, not a change to any client: :func:`install`
wraps the two transports the hook and the operator use - ``requests``' ``HTTPAdapter.send`` and
``aiohttp``'s ``ClientSession._request`` - so a request whose host ends with
``.snowflakecomputing.com`` goes to the stand-in's base URL with the same path and query. Every
other request is untouched. :func:`install_from_env` does it when ``RJ_SNOWFLAKE_SQL_API_URL`` is
set; the crash suite's deployment sets it and puts :mod:`.snowflake_site` (a ``sitecustomize``)
on ``PYTHONPATH``, so every Airflow process - task, triggerer - routes the same way.

What it does not do: TLS, or anything for hosts other than ``*.snowflakecomputing.com``. Never
imported by an operator module.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["ENV", "install", "install_from_env", "routed", "uninstall"]

ENV = "RJ_SNOWFLAKE_SQL_API_URL"
_DOMAIN = ".snowflakecomputing.com"
_MARK = "_rj_snowflake_route"
_target: dict[str, str] = {}
_originals: dict[str, Any] = {}


def routed(url: str) -> str:
    """``url`` with a ``*.snowflakecomputing.com`` host replaced by the stand-in's base URL."""
    base = _target.get("url")
    parts = urlsplit(str(url))
    if not base or not (parts.hostname or "").endswith(_DOMAIN):
        return str(url)
    target = urlsplit(base)
    return urlunsplit((target.scheme, target.netloc, parts.path, parts.query, parts.fragment))


def install(base_url: str) -> None:
    """Route ``*.snowflakecomputing.com`` to ``base_url`` in this process (idempotent; re-pointable)."""
    _target["url"] = base_url.rstrip("/")
    import aiohttp
    import requests.adapters

    send = requests.adapters.HTTPAdapter.send
    if not getattr(send, _MARK, False):

        def routed_send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
            request.url = routed(request.url)
            return send(self, request, *args, **kwargs)

        setattr(routed_send, _MARK, True)
        _originals["send"] = send
        requests.adapters.HTTPAdapter.send = routed_send  # type: ignore[method-assign]

    request = aiohttp.ClientSession._request
    if not getattr(request, _MARK, False):

        def routed_request(self: Any, method: str, str_or_url: Any, *args: Any, **kwargs: Any) -> Any:
            return request(self, method, routed(str(str_or_url)), *args, **kwargs)

        setattr(routed_request, _MARK, True)
        _originals["request"] = request
        aiohttp.ClientSession._request = routed_request  # type: ignore[method-assign]


def install_from_env() -> bool:
    """:func:`install` with ``$RJ_SNOWFLAKE_SQL_API_URL``; False (nothing done) when it is unset."""
    url = os.environ.get(ENV)
    if not url:
        return False
    install(url)
    return True


def uninstall() -> None:
    """Undo :func:`install` in this process (tests restore the transports after themselves)."""
    import aiohttp
    import requests.adapters

    _target.pop("url", None)
    if "send" in _originals:
        requests.adapters.HTTPAdapter.send = _originals.pop("send")  # type: ignore[method-assign]
    if "request" in _originals:
        aiohttp.ClientSession._request = _originals.pop("request")  # type: ignore[method-assign]
