"""A private PostgreSQL server on a free 127.0.0.1 port, for an Airflow metadata database.

What it is for: the production crash suite runs Airflow the way many deployments do - on
PostgreSQL, not SQLite - so that concurrent schedulers, workers and the api-server meet real row
locks and transactions. Nothing here touches a system PostgreSQL cluster or its data.

How it works: :class:`LocalPostgres` finds the server binaries (``initdb``, ``postgres``; on
Debian in ``/usr/lib/postgresql/<version>/bin``, which is not on ``PATH``), runs ``initdb`` into a
temporary directory, and starts ``postgres`` in the foreground as the leader of its own process
group, listening on 127.0.0.1 only with its Unix socket inside that directory. It waits until the
server accepts connections and creates the database. PostgreSQL refuses to run as root; when this
process is root, the data directory is handed to the ``postgres`` account (the Debian package
creates it) and both programs run as that account. ``stop()`` sends SIGINT (PostgreSQL's "fast"
shutdown: disconnect clients, no waiting for them) to the group, then SIGKILL, and removes the
directory.

What it does not do: no durability tuning beyond turning ``fsync`` off (it is a throwaway
database), no replication, no TLS, no passwords (``trust`` authentication on the loopback
interface only).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from resumable_jobs.local.net import free_port, wait_until
from resumable_jobs.local.processes import start_group, stop_group
from resumable_jobs.local.service import DaemonInTempDir

__all__ = ["LocalPostgres", "PostgresNotFoundError"]

INSTALL_HINT = "apt-get install -y postgresql"


class PostgresNotFoundError(RuntimeError):
    """The PostgreSQL server binaries are not installed."""


def find_server_bin() -> Path:
    """The directory holding ``initdb`` and ``postgres`` (the newest Debian version first)."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key, reverse=True)
    for directory in candidates:
        if (Path(directory) / "initdb").exists() and (Path(directory) / "postgres").exists():
            return Path(directory)
    initdb = shutil.which("initdb")
    if initdb and shutil.which("postgres"):
        return Path(initdb).resolve().parent
    raise PostgresNotFoundError(f"PostgreSQL server binaries not found; install them: `{INSTALL_HINT}`")


def _version_key(path: str) -> float:
    try:
        return float(Path(path).parent.name)
    except ValueError:
        return 0.0


class LocalPostgres(DaemonInTempDir):
    """A throwaway PostgreSQL server; use as a context manager. See the module docstring.

    ``url`` is a SQLAlchemy URL (``postgresql+psycopg2://...``) for Airflow's
    ``[database] sql_alchemy_conn``; ``celery_result_backend`` the same database for Celery's
    database result backend.
    """

    stop_signal = signal.SIGINT  # postgres' "fast shutdown"
    stop_grace = 20.0

    def __init__(self, *, database: str = "airflow", start_timeout: float = 120.0) -> None:
        self.database = database
        self.start_timeout = start_timeout
        self.port: int | None = None
        self.base_dir: Path | None = None
        self._process: subprocess.Popen | None = None
        self._user: str | None = None


    @property
    def user(self) -> str:
        return self._user or pwd.getpwuid(os.getuid()).pw_name

    @property
    def url(self) -> str:
        return f"postgresql+psycopg2://{self.user}@127.0.0.1:{self.port}/{self.database}"

    @property
    def celery_result_backend(self) -> str:
        return f"db+postgresql+psycopg2://{self.user}@127.0.0.1:{self.port}/{self.database}"

    @property
    def log_path(self) -> Path:
        assert self.base_dir is not None
        return self.base_dir / "postgres.log"

    def start(self, *, attempts: int = 3) -> LocalPostgres:
        bin_dir = find_server_bin()
        self.base_dir = Path(tempfile.mkdtemp(prefix="rj-postgres-"))
        data, sockets = self.base_dir / "data", self.base_dir / "sockets"
        sockets.mkdir()
        if os.getuid() == 0:
            self._user = "postgres"
            account = pwd.getpwnam(self._user)
            for path in (self.base_dir, sockets):
                os.chown(path, account.pw_uid, account.pw_gid)
        env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
        env["LC_ALL"] = "C"
        initdb = subprocess.run(
            [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", self.user, "-E", "UTF8", "--no-sync"],
            env=env,
            capture_output=True,
            text=True,
            user=self._user,
            cwd=self.base_dir,
            check=False,
        )
        if initdb.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{initdb.stdout}\n{initdb.stderr}")
        for attempt in range(1, attempts + 1):
            self.port = free_port()
            argv = [
                str(bin_dir / "postgres"),
                "-D", str(data),
                "-p", str(self.port),
                "-k", str(sockets),
                "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off",
                "-c", "synchronous_commit=off",
                "-c", "full_page_writes=off",
                "-c", "max_connections=200",
            ]  # fmt: skip
            self._process = start_group(argv, env=env, log_path=self.log_path, cwd=self.base_dir, user=self._user)
            try:
                wait_until(
                    self._accepts_connections,
                    timeout=self.start_timeout,
                    what=f"PostgreSQL on port {self.port}",
                    check=self._check_running,
                )
                break
            except RuntimeError:
                stop_group(self._process, first_signal=signal.SIGINT)
                self._process = None
                if attempt == attempts:
                    raise
        self._create_database()
        return self

    def keep_base_dir(self) -> bool:
        return os.environ.get("RJ_KEEP_POSTGRES") == "1"

    def _check_running(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            tail = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
            raise RuntimeError(f"postgres exited with code {self._process.returncode}:\n{tail}")

    def _connect(self, database: str = "postgres"):  # type: ignore[no-untyped-def]
        import psycopg2

        return psycopg2.connect(host="127.0.0.1", port=self.port, user=self.user, dbname=database, connect_timeout=5)

    def _accepts_connections(self) -> bool:
        import psycopg2

        try:
            self._connect().close()
        except psycopg2.OperationalError:
            return False
        return True

    def _create_database(self) -> None:
        connection = self._connect()
        try:
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute(f'CREATE DATABASE "{self.database}"')
        finally:
            connection.close()
