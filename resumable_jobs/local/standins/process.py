"""Start, inspect and stop one HTTP stand-in process, and tell Airflow how to reach it.

What it is for: the production crash suite and the recovery benchmark run the Databricks and
BigQuery stand-ins as processes of their own (:mod:`resumable_jobs.local.standins.server`) and need
three things from them: the Airflow connection (and environment) that makes the real hooks,
clients and triggers talk to the stand-in; the jobs the stand-in saw, with their states; a way to
let a held job finish.

How it works: :class:`StandinProcess` runs ``python -m resumable_jobs.local.standins KIND`` as the
leader of its own process group, waits for the port file and ``/_standin/health``, and talks to the
control surface over HTTP. :meth:`StandinProcess.airflow_env` gives:

* Databricks: ``AIRFLOW_CONN_DATABRICKS_DEFAULT`` - host 127.0.0.1, the port, schema ``http``, a
  personal access token (any value);
* Snowflake: ``AIRFLOW_CONN_SNOWFLAKE_DEFAULT`` with a fresh key pair's private half (the public
  half is registered with the stand-in), ``RJ_SNOWFLAKE_SQL_API_URL`` and a ``PYTHONPATH`` entry
  whose ``sitecustomize`` routes ``*.snowflakecomputing.com`` to the stand-in
  (:mod:`resumable_jobs.local.standins.snowflake_route`);
* BigQuery: ``AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT`` with a generated service-account key whose
  ``token_uri`` is the stand-in (google-auth's real token refresh runs), and
  ``BIGQUERY_EMULATOR_HOST`` - the variable google-cloud-bigquery reads for its API endpoint; the
  upstream trigger polls through the same client library, so both reach the stand-in;
* dbt Cloud: ``AIRFLOW_CONN_DBT_CLOUD_DEFAULT`` - tenant ``127.0.0.1:<port>``, the stand-in's
  account id and token - and ``REQUESTS_CA_BUNDLE`` / ``SSL_CERT_FILE`` naming a bundle of the
  public roots plus the certificate generated for this stand-in: the hook only builds
  ``https://`` URLs, so this stand-in speaks TLS (its control surface too).

What it does not do: it never contacts the real services; the key it generates is useless outside.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from resumable_jobs.local.net import http_json, wait_until
from resumable_jobs.local.processes import start_group
from resumable_jobs.local.service import DaemonInTempDir

__all__ = ["StandinProcess"]

DATABRICKS_TOKEN = "dapi-rj-local-standin-0000"  # any value: the stand-in does not check it


class StandinProcess(DaemonInTempDir):
    """One stand-in server process; use as a context manager (see the module docstring)."""

    def __init__(
        self,
        kind: str,
        *,
        hold_seconds: float | None = 600.0,
        python: str = sys.executable,
        start_timeout: float = 60.0,
    ) -> None:
        self.kind = kind
        self.hold_seconds = hold_seconds
        self.python = python
        self.start_timeout = start_timeout
        self.base_dir: Path | None = None
        self.port: int | None = None
        self._process: subprocess.Popen | None = None
        self._service_account: dict[str, Any] | None = None
        self._snowflake_env: dict[str, str] | None = None

        self._certificate: Any = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError(f"the {self.kind} stand-in is not started")
        return f"{'https' if self._certificate else 'http'}://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> StandinProcess:
        self.base_dir = Path(tempfile.mkdtemp(prefix=f"rj-standin-{self.kind}-"))
        port_file = self.base_dir / "port"
        argv = [self.python, "-m", "resumable_jobs.local.standins", self.kind, "--port-file", str(port_file)]
        if self.hold_seconds is not None:
            argv += ["--hold-seconds", str(self.hold_seconds)]
        from resumable_jobs.local.standins.server import TLS_KINDS

        if self.kind in TLS_KINDS:
            from resumable_jobs.local.tls import LocalCertificate

            self._certificate = LocalCertificate.create(self.base_dir / "tls")
            argv += ["--tls-cert", str(self._certificate.cert_file), "--tls-key", str(self._certificate.key_file)]
        self._process = start_group(argv, env=dict(os.environ), log_path=self.base_dir / "standin.log")

        def check() -> None:
            assert self._process is not None and self.base_dir is not None
            if self._process.poll() is not None:
                log = (self.base_dir / "standin.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"the {self.kind} stand-in exited with code {self._process.returncode}:\n{log}")

        self.port = int(wait_until(lambda: port_file.exists() and port_file.read_text(), timeout=self.start_timeout,
                                   what=f"the {self.kind} stand-in's port", check=check, interval=0.1))  # fmt: skip
        wait_until(lambda: self._control("GET", "health"), timeout=self.start_timeout,
                   what=f"the {self.kind} stand-in to answer", check=check, interval=0.1)  # fmt: skip
        return self

    # ------------------------------------------------------------------ control surface
    def _control(self, method: str, what: str, body: Any = None) -> Any:
        context = self._certificate.client_context() if self._certificate else None
        return http_json(method, f"{self.url}/_standin/{what}", body, timeout=10, context=context)

    def jobs(self) -> list[dict[str, Any]]:
        """Every job the stand-in received, oldest first: ``id``, ``state``, result or error, times."""
        return list(self._control("GET", "jobs")["jobs"])

    def release(self, job_id: Any) -> bool:
        """Let a held job finish at its next status read."""
        return bool(self._control("POST", "release", {"id": job_id})["released"])

    def requests(self) -> list[dict[str, Any]]:
        """Every API request with its time (``time.time()`` of the stand-in)."""
        return list(self._control("GET", "requests")["requests"])

    # ------------------------------------------------------------------ Airflow
    def airflow_env(self) -> dict[str, str]:
        """What every Airflow process needs to reach this stand-in through the real hooks."""
        if self.kind == "databricks":
            connection = {
                "conn_type": "databricks",
                "host": "127.0.0.1",
                "port": self.port,
                "schema": "http",
                "password": DATABRICKS_TOKEN,
            }
            return {"AIRFLOW_CONN_DATABRICKS_DEFAULT": json.dumps(connection)}
        if self.kind == "bigquery":
            from resumable_jobs.local.standins.bigquery import PROJECT, service_account_info

            if self._service_account is None:
                self._service_account = service_account_info(f"{self.url}/token")
            connection = {
                "conn_type": "google_cloud_platform",
                "extra": {"project": PROJECT, "keyfile_dict": json.dumps(self._service_account)},
            }
            return {
                "AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT": json.dumps(connection),
                "BIGQUERY_EMULATOR_HOST": self.url,
            }
        if self.kind == "snowflake":
            from resumable_jobs.local.standins import snowflake, snowflake_route

            if self._snowflake_env is not None:  # one key pair per stand-in process
                return dict(self._snowflake_env)
            private, public = snowflake.key_pair()  # the user's key pair; the stand-in learns the public half
            self._control("POST", "users", {"user": snowflake.USER, "public_key": public})
            site = Path(snowflake.__file__).with_name("snowflake_site")
            self._snowflake_env = {
                "AIRFLOW_CONN_SNOWFLAKE_DEFAULT": json.dumps(snowflake.connection(private)),
                snowflake_route.ENV: self.url,
                "PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p),
            }
            return dict(self._snowflake_env)
        if self.kind == "dbt_cloud":
            from resumable_jobs.local.standins.dbt_cloud import ACCOUNT_ID, API_TOKEN

            assert self.base_dir is not None and self._certificate is not None, "the stand-in is not started"
            bundle = self._certificate.bundle(self.base_dir / "tls" / "ca-bundle.pem")
            connection = {
                "conn_type": "dbt_cloud",
                "host": f"127.0.0.1:{self.port}",
                "login": str(ACCOUNT_ID),
                "password": API_TOKEN,
            }
            return {
                "AIRFLOW_CONN_DBT_CLOUD_DEFAULT": json.dumps(connection),
                "REQUESTS_CA_BUNDLE": str(bundle),
                "SSL_CERT_FILE": str(bundle),
            }
        raise ValueError(f"unknown stand-in {self.kind!r}")
