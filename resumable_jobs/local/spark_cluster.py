"""A throwaway Spark standalone cluster on 127.0.0.1, built from the installed ``pyspark`` package.

What it is for: the real-cluster tests, the end-to-end crash test and ``resumable-jobs demo``
need a Spark master whose REST submission server accepts drivers, and one worker to run them,
without a Spark installation or Docker. ``pyspark`` ships every jar a standalone cluster needs.

How it works: :class:`LocalSparkCluster` starts two JVMs with ``java`` (17 or later) directly -
``org.apache.spark.deploy.master.Master`` with ``spark.master.rest.enabled=true`` and
``org.apache.spark.deploy.worker.Worker`` - each in its own session (so each is the leader of its
own process group), bound to 127.0.0.1 on free ports, with small heaps: 256 MB per daemon and
1 GB of worker memory for drivers and executors, about 1.5 GB in all. It waits until the master
is ALIVE with one worker registered and the REST server answers. Drivers and executors are
children of the worker and share its process group, so :meth:`LocalSparkCluster.stop` ends
everything by signalling the two process groups by id (SIGTERM, then SIGKILL), nothing else.
The master's JSON endpoint (``<ui_url>/json/``) lists active and completed drivers.

Usage::

    with LocalSparkCluster() as cluster:
        os.environ.update(cluster.airflow_connection_env("spark_default"))
        ...  # SparkSubmitOperator(conn_id="spark_default", ...)
        cluster.list_drivers()  # [{"id": "driver-...", "state": "FINISHED", ...}]

What it does not do: no security, no recovery mode, no high availability, one worker only; it is
not a production cluster. Drivers should ask for at most 512 MB (``driver_memory="512m"``) so a
driver and an executor fit in the worker. Missing ``java`` raises :class:`JavaNotFoundError`
with the command to install it.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["JavaNotFoundError", "LocalSparkCluster", "LocalSparkClusterError"]

JAVA_INSTALL_HINT = "apt-get install -y openjdk-17-jre-headless"
MIN_JAVA_MAJOR = 17


class LocalSparkClusterError(RuntimeError):
    """The local cluster could not be started (the message carries the daemons' log tails)."""


class JavaNotFoundError(LocalSparkClusterError):
    """No usable ``java`` (17 or later) on this machine."""


class LocalSparkCluster:
    """A Spark standalone master (REST enabled) and one worker on 127.0.0.1; a context manager.

    Attributes once started: ``master_url`` (``spark://127.0.0.1:<port>``), ``rest_url``
    (``http://127.0.0.1:<port>``, the REST submission server), ``ui_url`` (the master web UI),
    ``worker_ui_url``, ``work_dir`` (worker directory: one folder per driver with its
    ``stdout``/``stderr``), ``pids`` (the two daemons). Pass ``spark_home`` to use a Spark
    distribution instead of the installed ``pyspark``.
    """

    host = "127.0.0.1"

    def __init__(
        self,
        *,
        spark_home: str | os.PathLike[str] | None = None,
        java: str | None = None,
        worker_cores: int = 2,
        worker_memory: str = "1g",
        daemon_heap: str = "256m",
        python_executable: str | None = None,
        work_dir: str | os.PathLike[str] | None = None,
        startup_timeout: float = 120.0,
        keep_work_dir: bool = False,
    ) -> None:
        self.spark_home = Path(spark_home) if spark_home else _pyspark_home()
        self.java = java
        self.worker_cores = worker_cores
        self.worker_memory = worker_memory
        self.daemon_heap = daemon_heap
        self.python_executable = python_executable or sys.executable
        self.startup_timeout = startup_timeout
        self._given_work_dir = Path(work_dir) if work_dir else None
        self.keep_work_dir = keep_work_dir
        self.base_dir: Path | None = None
        self.work_dir: Path | None = None
        self._processes: dict[str, subprocess.Popen[bytes]] = {}
        self._ports: dict[str, int] = {}

    # ----------------------------------------------------------------- addresses
    @property
    def master_url(self) -> str:
        return f"spark://{self.host}:{self._port('master')}"

    @property
    def rest_url(self) -> str:
        return f"http://{self.host}:{self._port('rest')}"

    @property
    def rest_port(self) -> int:
        return self._port("rest")

    @property
    def ui_url(self) -> str:
        return f"http://{self.host}:{self._port('master_ui')}"

    @property
    def worker_ui_url(self) -> str:
        return f"http://{self.host}:{self._port('worker_ui')}"

    @property
    def pids(self) -> dict[str, int]:
        return {name: proc.pid for name, proc in self._processes.items()}

    @property
    def running(self) -> bool:
        return bool(self._processes) and all(p.poll() is None for p in self._processes.values())

    def airflow_connection_env(self, conn_id: str = "spark_default", *, style: str = "spark") -> dict[str, str]:
        """``{"AIRFLOW_CONN_<ID>": json}`` for this cluster.

        ``style="spark"``: a ``spark`` connection as upstream's operator uses it (host
        ``spark://127.0.0.1``, the RPC port, the REST port in extra ``rest_port``);
        ``style="http"``: an HTTP-style connection pointing straight at the REST server.
        """
        if style == "spark":
            conn = {
                "conn_type": "spark",
                "host": f"spark://{self.host}",
                "port": self._port("master"),
                "extra": {"rest_port": self.rest_port, "master_ui_url": self.ui_url},
            }
        elif style == "http":
            conn = {
                "conn_type": "http",
                "host": self.host,
                "port": self.rest_port,
                "schema": "http",
                "extra": {"master_ui_url": self.ui_url},
            }
        else:
            raise ValueError(f"style must be 'spark' or 'http', not {style!r}")
        return {f"AIRFLOW_CONN_{conn_id.upper()}": json.dumps(conn)}

    # ----------------------------------------------------------------- lifecycle
    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> Self:
        """Start the master and the worker and wait until both are usable; return ``self``."""
        if self._processes:
            raise LocalSparkClusterError("this LocalSparkCluster is already started")
        java = self._find_java()
        jars = self.spark_home / "jars"
        if not jars.is_dir():
            raise LocalSparkClusterError(f"{self.spark_home} has no jars/ folder: not a Spark home")
        self.base_dir = self._given_work_dir or Path(tempfile.mkdtemp(prefix="rj-local-spark-"))
        self.base_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir = self.base_dir / "work"
        self.work_dir.mkdir(exist_ok=True)
        self._ports = {name: _free_port() for name in ("master", "master_ui", "rest", "worker", "worker_ui")}
        atexit.register(self.stop)
        try:
            self._launch(
                "master",
                java,
                [
                    "-Dspark.master.rest.enabled=true",
                    f"-Dspark.master.rest.host={self.host}",
                    f"-Dspark.master.rest.port={self._ports['rest']}",
                ],
                "org.apache.spark.deploy.master.Master",
                [
                    "--host",
                    self.host,
                    "--port",
                    str(self._ports["master"]),
                    "--webui-port",
                    str(self._ports["master_ui"]),
                ],
            )
            # The worker needs ~5 s of JVM start-up: begin it as soon as the master's RPC port listens.
            self._wait_until(lambda: _listening(self._ports["master"]), "the master's RPC port to listen")
            self._launch(
                "worker",
                java,
                ["-Dspark.worker.cleanup.enabled=false"],
                "org.apache.spark.deploy.worker.Worker",
                [
                    "--host", self.host,
                    "--port", str(self._ports["worker"]),
                    "--webui-port", str(self._ports["worker_ui"]),
                    "--cores", str(self.worker_cores),
                    "--memory", self.worker_memory,
                    "--work-dir", str(self.work_dir),
                    self.master_url,
                ],
            )  # fmt: skip
            self._wait_until(self._master_ready, "the master to become ALIVE with its REST server up")
            self._wait_until(self._worker_registered, "the worker to register with the master")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the worker (with its drivers and executors) and the master, by process group id."""
        for name in ("worker", "master"):
            proc = self._processes.pop(name, None)
            if proc is not None:
                _stop_process_group(proc)
        self._processes.clear()
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        if self.base_dir is not None and self._given_work_dir is None and not self.keep_work_dir:
            shutil.rmtree(self.base_dir, ignore_errors=True)
            self.base_dir = None

    # ----------------------------------------------------------------- the master's view
    def state(self) -> dict[str, Any]:
        """The master's ``/json/`` document (workers, apps, drivers, status)."""
        return _get_json(f"{self.ui_url}/json/")

    def list_drivers(self) -> list[dict[str, Any]]:
        """Every driver the master knows, active first: dicts with ``id``, ``state``, ``worker``..."""
        state = self.state()
        return list(state.get("activedrivers") or []) + list(state.get("completeddrivers") or [])

    def active_drivers(self) -> list[dict[str, Any]]:
        return list(self.state().get("activedrivers") or [])

    def driver_state(self, driver_id: str) -> str | None:
        return next((d.get("state") for d in self.list_drivers() if d.get("id") == driver_id), None)

    def wait_for_driver_state(self, driver_id: str, states: set[str] | frozenset[str], timeout: float = 120.0) -> str:
        """Wait until the master reports ``driver_id`` in one of ``states``; return the state."""
        deadline = time.monotonic() + timeout
        while True:
            current = self.driver_state(driver_id)
            if current in states:
                return current
            if time.monotonic() > deadline:
                raise TimeoutError(f"driver {driver_id} is {current}, not one of {sorted(states)}, after {timeout}s")
            time.sleep(0.5)

    def kill_active_drivers(self, timeout: float = 60.0) -> list[str]:
        """Kill every active driver through the REST server; return their ids once they ended."""
        killed = []
        for driver in self.active_drivers():
            request = urllib.request.Request(f"{self.rest_url}/v1/submissions/kill/{driver['id']}", method="POST")
            with contextlib.suppress(urllib.error.URLError):
                urllib.request.urlopen(request, timeout=10).read()
            killed.append(driver["id"])
        deadline = time.monotonic() + timeout
        while self.active_drivers() and time.monotonic() < deadline:
            time.sleep(0.5)
        return killed

    def driver_output(self, driver_id: str, stream: str = "stdout") -> str:
        """What the driver wrote to ``stdout`` or ``stderr`` (read from the worker's directory)."""
        if self.work_dir is None:
            raise LocalSparkClusterError("the cluster is not started")
        path = self.work_dir / driver_id / stream
        return path.read_text(errors="replace") if path.exists() else ""

    def log_tail(self, name: str, lines: int = 40) -> str:
        """The last lines of the ``master`` or ``worker`` daemon log."""
        if self.base_dir is None:
            return ""
        path = self.base_dir / f"{name}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    # ----------------------------------------------------------------- internals
    def _port(self, name: str) -> int:
        if name not in self._ports:
            raise LocalSparkClusterError("the cluster is not started")
        return self._ports[name]

    def _find_java(self) -> str:
        if self.java:
            if not Path(self.java).exists():
                raise JavaNotFoundError(f"java={self.java!r} does not exist. Install Java, e.g. `{JAVA_INSTALL_HINT}`.")
            java: str | None = self.java
        else:
            home = os.environ.get("JAVA_HOME")
            candidate = Path(home) / "bin" / "java" if home else None
            java = str(candidate) if candidate is not None and candidate.exists() else shutil.which("java")
        if not java:
            raise JavaNotFoundError(
                f"LocalSparkCluster needs Java {MIN_JAVA_MAJOR} or later and found no `java` (PATH, JAVA_HOME). "
                f"Install it, e.g. `{JAVA_INSTALL_HINT}` on Debian/Ubuntu."
            )
        major = _java_major_version(java)
        if major is not None and major < MIN_JAVA_MAJOR:
            raise JavaNotFoundError(
                f"{java} is Java {major}; Spark 4 needs Java {MIN_JAVA_MAJOR} or later. "
                f"Install it, e.g. `{JAVA_INSTALL_HINT}`, or pass java=/path/to/java."
            )
        return java

    def _environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
        env.update(
            {
                "SPARK_HOME": str(self.spark_home),
                # Without a RELEASE file (pip's pyspark has none) the worker's launcher needs this
                # to build a driver's class path, or drivers end ERROR "Cannot find any build
                # directories".
                "SPARK_SCALA_VERSION": _scala_version(self.spark_home),
                "SPARK_LOCAL_IP": self.host,
                "SPARK_LOCAL_HOSTNAME": self.host,
                # Drivers and executors inherit these from the worker: Python applications run on
                # the interpreter that has pyspark installed.
                "PYSPARK_PYTHON": self.python_executable,
                "PYSPARK_DRIVER_PYTHON": self.python_executable,
            }
        )
        return env

    def _launch(self, name: str, java: str, properties: list[str], main_class: str, args: list[str]) -> None:
        assert self.base_dir is not None
        command = [
            java,
            f"-Xmx{self.daemon_heap}",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",  # C1 only: daemons start in about half the CPU time
            "-cp",
            f"{self.spark_home / 'conf'}{os.pathsep}{self.spark_home / 'jars' / '*'}",
            "-Dspark.port.maxRetries=0",  # the ports above are the ports: fail rather than drift
            *properties,
            main_class,
            *args,
        ]
        log = open(self.base_dir / f"{name}.log", "wb")  # noqa: SIM115 - owned by the child
        try:
            self._processes[name] = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self._environment(),
                cwd=self.base_dir,
                start_new_session=True,  # its own process group: stop() signals the group by id
            )
        finally:
            log.close()

    def _wait_until(self, ready: Any, what: str) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while True:
            for name, proc in self._processes.items():
                if proc.poll() is not None:
                    raise LocalSparkClusterError(
                        f"the Spark {name} exited with code {proc.returncode} while waiting for {what}; "
                        f"last lines of its log:\n{self.log_tail(name)}"
                    )
            with contextlib.suppress(OSError, ValueError):
                if ready():
                    return
            if time.monotonic() > deadline:
                tails = "\n".join(f"--- {n}.log\n{self.log_tail(n)}" for n in self._processes)
                raise LocalSparkClusterError(f"timed out after {self.startup_timeout}s waiting for {what}\n{tails}")
            time.sleep(0.5)

    def _master_ready(self) -> bool:
        if _get_json(f"{self.ui_url}/json/", timeout=2.0).get("status") != "ALIVE":
            return False
        reply = _get_json(f"{self.rest_url}/v1/submissions/status/readiness-probe", timeout=2.0)
        return reply.get("action") == "SubmissionStatusResponse"

    def _worker_registered(self) -> bool:
        return int(_get_json(f"{self.ui_url}/json/", timeout=2.0).get("aliveworkers") or 0) >= 1


def _pyspark_home() -> Path:
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise LocalSparkClusterError("LocalSparkCluster needs the pyspark package (pip install pyspark)")
    return Path(next(iter(spec.submodule_search_locations)))


def _scala_version(spark_home: Path) -> str:
    for jar in sorted((spark_home / "jars").glob("spark-core_*.jar")):
        match = re.match(r"spark-core_(\d+\.\d+)-", jar.name)
        if match:
            return match.group(1)
    return "2.13"


def _java_major_version(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        raise JavaNotFoundError(f"could not run {java}; install Java, e.g. `{JAVA_INSTALL_HINT}`") from None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _get_json(url: str, timeout: float = 5.0) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        data = json.loads(response.read().decode())
    if not isinstance(data, dict):
        raise ValueError(f"{url} did not return a JSON object")  # noqa: TRY004 - a bad reply, not a bad argument
    return data


def _stop_process_group(proc: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """SIGTERM the process group led by ``proc`` (it was started in its own session), then SIGKILL."""
    pgid = proc.pid  # start_new_session=True: the daemon leads a group whose id is its pid
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    # Children (drivers, executors, Python runners) may outlive the daemon: end the whole group.
    # The id is not reused while any member lives, so this cannot reach an unrelated process.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
