"""Kerberos for ``spark-submit`` and the ResourceManager: keytab, principal, ticket cache, HTTP auth.

What it is for: upstream's Kerberos parameters keep their meaning. ``keytab``/``principal`` on
the operator win over the connection's ``keytab`` (base64, as upstream stores it) and
``principal`` extras; ``use_krb5ccache=True`` makes Spark renew from the ticket cache in
``KRB5CCNAME`` instead of a keytab. The ResourceManager REST calls authenticate with
``yarn_rm_auth`` when given, else with SPNEGO (``requests-kerberos``) when the task has Kerberos
credentials, else not at all - upstream's rule.

How it works: :func:`kerberos_for_submit` is a context manager yielding the keytab path and
principal for one ``spark-submit`` run; a keytab that comes base64-encoded from the connection is
written to a private temporary file (mode 0600) that is removed when the run ends.
:func:`resource_manager_auth` builds the ``requests`` auth object; :func:`negotiate_header`
the SPNEGO header the trigger's ``aiohttp`` client sends.

What it does not do: it does not obtain or renew tickets (Airflow's ``kerberos`` command does),
and it never logs a keytab.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

__all__ = ["KRB5CCACHE_CONF", "kerberos_for_submit", "negotiate_header", "resource_manager_auth"]

#: What upstream passes to Spark for ``use_krb5ccache=True``.
KRB5CCACHE_CONF = {"spark.kerberos.renewal.credentials": "ccache"}


@contextlib.contextmanager
def kerberos_for_submit(
    *,
    keytab: str | None,
    principal: str | None,
    connection_keytab_base64: str | None,
    connection_principal: str | None,
    use_krb5ccache: bool,
    env: Mapping[str, str],
) -> Iterator[tuple[str | None, str | None]]:
    """Yield ``(keytab path, principal)`` for ``spark-submit``; see the module docstring."""
    if use_krb5ccache and not env.get("KRB5CCNAME"):
        raise ValueError(
            "use_krb5ccache=True needs the KRB5CCNAME environment variable (the ticket cache to use), "
            "and it is not set on this worker"
        )
    principal = principal or connection_principal
    if keytab or not connection_keytab_base64:
        yield keytab, principal
        return
    try:
        content = base64.b64decode(connection_keytab_base64, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError("the Spark connection's keytab extra is not valid base64") from error
    with tempfile.TemporaryDirectory(prefix="rj-keytab-") as folder:
        path = os.path.join(folder, "spark.keytab")
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
        yield path, principal


def resource_manager_auth(explicit: Any, *, kerberos: bool) -> Any:
    """``yarn_rm_auth`` if given; SPNEGO when the task uses Kerberos; otherwise None."""
    if explicit is not None:
        return explicit
    if not kerberos:
        return None
    try:
        from requests_kerberos import HTTPKerberosAuth
    except ImportError as error:
        raise RuntimeError(_NO_SPNEGO) from error
    return HTTPKerberosAuth()


def negotiate_header(url: str) -> str:
    """``Negotiate <token>`` for the ``HTTP`` service of ``url``'s host, from the ticket cache.

    The trigger's (``aiohttp``) side of SPNEGO, through ``pyspnego`` - the library
    ``requests-kerberos`` itself uses, installed with it. It may ask the KDC for a service ticket,
    so callers in an event loop run it in a thread.
    """
    try:
        import spnego
    except ImportError as error:
        raise RuntimeError(_NO_SPNEGO) from error
    context = spnego.client(hostname=urlsplit(url).hostname, service="HTTP", protocol="kerberos")
    return "Negotiate " + base64.b64encode(context.step() or b"").decode()


_NO_SPNEGO = (
    "this task uses Kerberos (keytab/principal), so the ResourceManager REST API is called with "
    "SPNEGO, which needs the requests-kerberos package; install it, or pass yarn_rm_auth="
)
