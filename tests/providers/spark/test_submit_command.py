"""The spark-submit command line: flags, masking, Kerberos material, and how spark-submit is run."""

from __future__ import annotations

import base64
import os
import re
import sys

import pytest

from resumable_jobs.providers.spark.credentials import kerberos_for_submit, resource_manager_auth
from resumable_jobs.providers.spark.spark_submit import run_spark_submit
from resumable_jobs.providers.spark.submit_command import SparkSubmitSpec, masked, spark_submit_argv


class _Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def info(self, message, *args):
        self.lines.append(message % args)


def test_every_parameter_becomes_its_flag_and_the_application_comes_last():
    spec = SparkSubmitSpec(
        application="hdfs:///jobs/etl.jar",
        master="yarn",
        conf={"spark.sql.shuffle.partitions": "8"},
        application_args=("--day", "2026-01-01"),
        java_class="com.example.Etl",
        name="etl",
        driver_memory="1g",
        driver_cores=1,
        executor_memory="2g",
        executor_cores=2,
        num_executors=4,
        jars="a.jar",
        files="f.csv",
        py_files="lib.zip",
        archives="env.tar.gz#env",
        driver_class_path="/opt/extra/*",
        packages="org.x:y:1.0",
        exclude_packages="org.z:w",
        repositories="https://repo.example",
        keytab="/etc/etl.keytab",
        principal="etl@EXAMPLE",
        proxy_user="analyst",
        queue="etl",
        properties_file="/etc/spark/etl.conf",
        verbose=True,
    )
    argv = spark_submit_argv("spark3-submit", spec)
    assert argv[:5] == ["spark3-submit", "--master", "yarn", "--deploy-mode", "cluster"]
    assert argv[-3:] == ["hdfs:///jobs/etl.jar", "--day", "2026-01-01"]
    flags = dict(zip(argv[5:-4:2], argv[6:-3:2], strict=False))
    assert flags == {
        "--conf": "spark.sql.shuffle.partitions=8",
        "--properties-file": "/etc/spark/etl.conf",
        "--files": "f.csv",
        "--py-files": "lib.zip",
        "--archives": "env.tar.gz#env",
        "--driver-class-path": "/opt/extra/*",
        "--jars": "a.jar",
        "--packages": "org.x:y:1.0",
        "--exclude-packages": "org.z:w",
        "--repositories": "https://repo.example",
        "--num-executors": "4",
        "--executor-cores": "2",
        "--executor-memory": "2g",
        "--driver-memory": "1g",
        "--driver-cores": "1",
        "--keytab": "/etc/etl.keytab",
        "--principal": "etl@EXAMPLE",
        "--proxy-user": "analyst",
        "--name": "etl",
        "--class": "com.example.Etl",
        "--queue": "etl",
    }
    assert argv[-4] == "--verbose"


def test_the_logged_command_hides_secret_values():
    argv = ["spark-submit", "--conf", "spark.hadoop.fs.s3a.secret.key=abc", "--conf", "spark.x=1", "app.py", "db_password=hunter2"]
    shown = masked(argv)
    assert "abc" not in shown and "hunter2" not in shown
    assert "spark.hadoop.fs.s3a.secret.key=******" in shown and "spark.x=1" in shown


def test_a_keytab_from_the_connection_lives_only_while_spark_submit_runs():
    content = b"\x05\x02keytab-bytes"
    with kerberos_for_submit(
        keytab=None,
        principal=None,
        connection_keytab_base64=base64.b64encode(content).decode(),
        connection_principal="etl@EXAMPLE",
        use_krb5ccache=False,
        env={},
    ) as (path, principal):
        assert principal == "etl@EXAMPLE"
        assert open(path, "rb").read() == content
        assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert not os.path.exists(path)


def test_the_tasks_keytab_wins_and_krb5ccache_needs_its_variable():
    with kerberos_for_submit(
        keytab="/etc/task.keytab", principal="task@EX", connection_keytab_base64="AAAA", connection_principal="conn@EX",
        use_krb5ccache=False, env={},
    ) as found:
        assert found == ("/etc/task.keytab", "task@EX")
    with pytest.raises(ValueError, match="KRB5CCNAME"):
        with kerberos_for_submit(
            keytab=None, principal=None, connection_keytab_base64=None, connection_principal=None, use_krb5ccache=True, env={}
        ):
            pass


def test_resource_manager_auth_follows_upstreams_rule():
    explicit = object()
    assert resource_manager_auth(explicit, kerberos=True) is explicit
    assert resource_manager_auth(None, kerberos=False) is None


def test_run_spark_submit_streams_output_and_finds_the_id(tmp_path):
    script = tmp_path / "fake.py"
    script.write_text("import sys\nprint('starting')\nprint('Submitted application application_17_0003')\nsys.exit(3)\n")
    log = _Log()
    result = run_spark_submit(
        [sys.executable, str(script)], env=dict(os.environ), id_pattern=re.compile(r"(application_\d+_\d+)"), log=log
    )
    assert (result.returncode, result.app_id) == (3, "application_17_0003")
    assert "starting" in log.lines and result.tail[-1] == "Submitted application application_17_0003"


def test_a_missing_binary_is_a_clear_error(tmp_path):
    from resumable_jobs.providers.spark.spark_submit import SparkSubmitFailed

    with pytest.raises(SparkSubmitFailed, match="could not run"):
        run_spark_submit([str(tmp_path / "nope")], env={}, id_pattern=re.compile("x"), log=_Log())
