"""The real ``spark-submit`` of the installed pyspark, on Kubernetes and YARN, with local stand-ins.

Kubernetes: ``spark-submit --master k8s://http://127.0.0.1:<port>`` talks plain REST (fabric8
client) to the stand-in API server, which receives the real driver pod, service, config map and
network policy. The worker "dies" right after ``spark-submit`` returned, before the id was
persisted - the window upstream leaves open - and the retry finds the pod by its label: one pod.

YARN: the real client reaches the ResourceManager over Hadoop RPC, which no stand-in here speaks,
so the submission itself cannot succeed. The test runs the real binary with the operator's YARN
command line against a ResourceManager address nobody listens on: Spark parses and accepts every
argument (``--verbose`` prints what it understood), starts its YARN client, fails to connect, and
the operator reports the exit code with nothing stored as an application. The rest of the YARN
path runs against the stand-in ResourceManager and the stand-in ``spark-submit`` (other modules).

One JVM per test (about 10-25 s each on a busy machine): kept to these two.
"""

from __future__ import annotations

import re
import shutil
import socket
from pathlib import Path

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.providers.spark.kubernetes.manager import LABEL_KEY
from resumable_jobs.providers.spark.spark_submit import SparkSubmitFailed
from resumable_jobs.shims import durable_supported
from resumable_jobs.testing import CrashPoint, FakeTaskInstance, InMemoryTaskStateStore, make_context, run_crash_scenario, run_try

pytestmark = pytest.mark.spark_submit

QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx384m"


@pytest.fixture(scope="module")
def real_spark_submit() -> str:
    import pyspark

    binary = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    assert binary.exists(), f"pyspark ships no bin/spark-submit at {binary}"
    assert shutil.which("java"), "the real spark-submit needs Java 17 (apt-get install -y openjdk-17-jre-headless)"
    return str(binary)


@pytest.fixture
def quick_jvm(monkeypatch, tmp_path):
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", QUICK_JVM)
    monkeypatch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.kube or ~/.ivy2 of the machine's user


@pytest.mark.durable_only
def test_kubernetes_crash_after_spark_submit_before_persist_leaves_one_driver_pod(k8s, real_spark_submit, quick_jvm):
    k8s.running_polls = 2
    outcome = run_crash_scenario(
        lambda: SparkSubmitOperator(
            task_id="nightly_etl",
            application="local:///opt/spark/examples/src/main/python/pi.py",
            application_args=["10"],
            name="nightly-etl",
            conf={"spark.kubernetes.container.image": "apache/spark:4.1.0"},
            driver_memory="512m",
            spark_binary=real_spark_submit,
            status_poll_interval=0,
        ),
        CrashPoint.AFTER_SUBMIT,
    )
    (pod,) = k8s.created  # the real spark-submit's pod, and no second one
    assert outcome.result == f"etl:{pod['metadata']['name']}" == outcome.store.get("spark_driver_id")
    labels = pod["metadata"]["labels"]
    assert labels["spark-role"] == "driver"
    assert re.fullmatch(r"resumable_task-g1-[0-9a-f]{24}", labels[LABEL_KEY])  # the kit's task id, generation 1
    assert pod["spec"]["containers"][0]["image"] == "apache/spark:4.1.0"
    # what else the real client created for the driver (server-side apply)
    assert any(a.startswith("services/nightly-etl-") for a in k8s.applied)
    assert any(a.startswith("configmaps/") for a in k8s.applied)


def test_yarn_real_spark_submit_accepts_the_operators_command_line(yarn, real_spark_submit, quick_jvm, tmp_path, task_logs):
    with socket.socket() as sock:  # a ResourceManager RPC address nobody listens on
        sock.bind(("127.0.0.1", 0))
        rpc_port = sock.getsockname()[1]
    conf_dir = tmp_path / "hadoop-conf"
    conf_dir.mkdir()
    properties = {
        "yarn.resourcemanager.address": f"127.0.0.1:{rpc_port}",
        "yarn.resourcemanager.connect.max-wait.ms": "1500",
        "yarn.resourcemanager.connect.retry-interval.ms": "500",
        "ipc.client.connect.max.retries": "0",
    }
    (conf_dir / "yarn-site.xml").write_text(
        "<configuration>"
        + "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in properties.items())
        + "</configuration>"
    )
    op = SparkSubmitOperator(
        task_id="nightly_etl",
        application="hdfs:///jobs/etl.py",
        application_args=["2026-01-01"],
        num_executors=2,
        yarn_queue="etl",
        verbose=True,
        env_vars={"HADOOP_CONF_DIR": str(conf_dir)},  # also spark-submit's own environment on YARN
        spark_binary=real_spark_submit,
        status_poll_interval=0,
    )
    store = InMemoryTaskStateStore()
    with pytest.raises(SparkSubmitFailed, match=r"(?s)exited with code 1.*ConnectException"):
        run_try(op, make_context(store, FakeTaskInstance()))
    output = "\n".join(task_logs.at("info"))
    for understood in ("(spark.yarn.queue,etl)", "(spark.executor.instances,2)", "(spark.yarn.submit.waitAppCompletion,false)"):
        assert understood in output
    generation = 1 if durable_supported() else 0  # below 3.3 every try has a one-off token
    assert re.search(rf"\(spark\.yarn\.tags,resumable-jobs-submission-resumable_task-g{generation}-[0-9a-f]{{24}}\)", output)
    assert f"Connecting to ResourceManager at /127.0.0.1:{rpc_port}" in output
    assert store.get("spark_driver_id") is None and yarn.submissions == []
    if durable_supported():  # the generation (and so the tag) was recorded before submitting
        assert store.get("spark_driver_id_resumable")["generation"] == 1
