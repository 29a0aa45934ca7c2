"""Fixtures of the production crash suite: real services, one Airflow deployment per topology.

Every test here is marked ``production`` and ``durable_only`` (crash recovery needs Airflow 3.3;
on 3.2 the tests are skipped with that reason). The session starts the backends once - the local
Spark cluster, moto_server, the Databricks and BigQuery stand-ins - and one deployment per
topology (``airflow``, parametrized ``local`` / ``celery``): pytest runs every test of one
topology before it tears that deployment down and starts the next, so the two never compete for
the machine. Scenarios use their own DAG runs and compare backend jobs before and after, so they
can share a deployment; a drill that killed a Celery worker gets it restarted before the next
test. After each deployment stops, no process it started or looked at may still be alive.

``pytest_terminal_summary`` prints one row per scenario: jobs on the backend, their end states,
the task instance's state and try, and the recovery latency (kill to the retry's reconnect line).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from resumable_jobs.local.topologies import TOPOLOGIES
from tests.production.backends import (
    BatchBackend,
    BigQueryBackend,
    DatabricksBackend,
    DbtCloudBackend,
    GlueBackend,
    RedshiftBackend,
    SnowflakeBackend,
    KubernetesBackend,
    EmrContainersBackend,
    EmrServerlessBackend,
    SparkBackend,
)
from tests.production.drill import Drill

HERE = Path(__file__).resolve().parent
DAGS = HERE / "dags"
DAG_IDS = (
    "prod_spark_sync",
    "prod_spark_last_try",
    "prod_spark_deferrable",
    "prod_spark_kill_before_defer",
    "prod_spark_trigger_error",
    "prod_spark_submit_and_sensor",
    "prod_databricks_sync",
    "prod_databricks_deferrable",
    "prod_bigquery_sync",
    "prod_bigquery_deferrable",
    "prod_batch_sync",
    "prod_batch_kill_before_defer",
    "prod_batch_submit_and_sensor",
    "prod_snowflake_sync",
    "prod_snowflake_deferrable",
    "prod_dbt_cloud_sync",
    "prod_dbt_cloud_deferrable",
    "prod_glue_sync",
    "prod_glue_deferrable",
    "prod_redshift_sync",
    "prod_redshift_deferrable",
    "prod_kubernetes_sync",
    "prod_kubernetes_deferrable",
    "prod_kubernetes_last_try",
    "prod_emr_serverless_sync",
    "prod_emr_serverless_deferrable",
    "prod_emr_containers_sync",
    "prod_emr_containers_deferrable",
)
#: Rows of the summary table, filled by :func:`record`.
RESULTS: list[dict[str, object]] = []
#: Seconds spent in production tests (setup, call, teardown), and in starting each deployment.
TIMES: dict[str, float] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.production)
            item.add_marker(pytest.mark.durable_only)


# ----------------------------------------------------------------------- backends
@pytest.fixture(scope="session")
def spark_cluster():
    from resumable_jobs.local.spark_cluster import LocalSparkCluster

    # room for two held drivers at once: a scenario that shows a bug runs an orphan and a new one
    with LocalSparkCluster(worker_cores=4, worker_memory="2g") as cluster:
        yield cluster


@pytest.fixture(scope="session")
def moto_server():
    from resumable_jobs.local.moto_server import LocalMotoServer

    with LocalMotoServer() as server:
        yield server


@pytest.fixture(scope="session")
def emr_resources(moto_server):
    """An EMR Serverless application and an EMR on EKS virtual cluster in moto_server."""
    serverless = moto_server.client("emr-serverless")
    application = serverless.create_application(name="rj-prod", releaseLabel="emr-6.15.0", type="SPARK")
    provider = {"id": "rj-prod-eks", "type": "EKS", "info": {"eksInfo": {"namespace": "rj-prod"}}}
    cluster = moto_server.client("emr-containers").create_virtual_cluster(name="rj-prod", containerProvider=provider)
    return {"application": application["applicationId"], "virtual_cluster": cluster["id"]}


@pytest.fixture(scope="session")
def databricks_standin():
    from resumable_jobs.local.standins.process import StandinProcess

    with StandinProcess("databricks", hold_seconds=300) as standin:
        yield standin


@pytest.fixture(scope="session")
def bigquery_standin():
    from resumable_jobs.local.standins.process import StandinProcess

    with StandinProcess("bigquery", hold_seconds=300) as standin:
        yield standin


@pytest.fixture(scope="session")
def snowflake_standin():
    from resumable_jobs.local.standins.process import StandinProcess

    with StandinProcess("snowflake", hold_seconds=300) as standin:
        yield standin


@pytest.fixture(scope="session")
def dbt_cloud_standin():
    from resumable_jobs.local.standins.process import StandinProcess

    with StandinProcess("dbt_cloud", hold_seconds=300) as standin:
        yield standin


@pytest.fixture(scope="session")
def kubernetes_api(tmp_path_factory):
    """The Kubernetes API stand-in, served by this process: pods stay Running until released."""
    from resumable_jobs.local.kubernetes_api import LocalKubernetesApi

    api = LocalKubernetesApi(running_polls=100_000, log_lines=("working",), follow_hold=600.0)
    with api.serve():
        api.kubeconfig = api.write_kubeconfig(tmp_path_factory.mktemp("kubernetes") / "kubeconfig")
        yield api


@pytest.fixture(scope="session")
def release_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("release")


# ----------------------------------------------------------------------- deployments
@pytest.fixture(scope="session", params=TOPOLOGIES)
def airflow(
    request,
    spark_cluster,
    moto_server,
    databricks_standin,
    bigquery_standin,
    snowflake_standin,
    dbt_cloud_standin,
    kubernetes_api,
    emr_resources,
    release_dir,
):
    """A running deployment of the requested topology (shared by every test of that topology)."""
    from resumable_jobs.local.topologies import deployment

    env = {
        **spark_cluster.airflow_connection_env("spark_default"),
        **moto_server.airflow_connection_env("aws_default"),
        **databricks_standin.airflow_env(),
        **bigquery_standin.airflow_env(),
        **snowflake_standin.airflow_env(),
        **dbt_cloud_standin.airflow_env(),  # also REQUESTS_CA_BUNDLE / SSL_CERT_FILE: public roots + its cert
        "RJ_PROD_SPARK_APP": str(DAGS / "apps" / "hold_app.py"),
        "RJ_PROD_UNREACHABLE_REST_URL": _unreachable_url(),
        "RJ_PROD_BATCH_QUEUE": moto_server.job_queue,
        "RJ_PROD_BATCH_DEFINITION": moto_server.job_definition,
        "AIRFLOW_CONN_KUBERNETES_DEFAULT": json.dumps(
            {"conn_type": "kubernetes", "extra": json.dumps({"kube_config_path": str(kubernetes_api.kubeconfig)})}
        ),
        "RJ_PROD_EMR_APPLICATION": emr_resources["application"],
        "RJ_PROD_EMR_VIRTUAL_CLUSTER": emr_resources["virtual_cluster"],
    }
    started = time.monotonic()
    with deployment(request.param, DAGS, extra_env=env) as running:
        running.rest.wait_for_dags(DAG_IDS)
        TIMES[f"{request.param} deployment start"] = time.monotonic() - started
        yield running
    leftovers = running.leftovers()
    assert not leftovers, f"processes of the {request.param} deployment survived its stop: {leftovers}"


def _unreachable_url() -> str:
    from resumable_jobs.local.net import free_port

    return f"http://127.0.0.1:{free_port()}"  # nothing listens there: connections are refused


@pytest.fixture
def backend(request, spark_cluster, release_dir):
    name = request.param
    if name == "spark":
        return SparkBackend(spark_cluster, release_dir)
    if name == "databricks":
        return DatabricksBackend(request.getfixturevalue("databricks_standin"))
    if name == "bigquery":
        return BigQueryBackend(request.getfixturevalue("bigquery_standin"))
    if name == "batch":
        return BatchBackend(request.getfixturevalue("moto_server"))
    if name == "snowflake":
        return SnowflakeBackend(request.getfixturevalue("snowflake_standin"))
    if name == "dbt_cloud":
        return DbtCloudBackend(request.getfixturevalue("dbt_cloud_standin"))
    if name == "glue":
        return GlueBackend(request.getfixturevalue("moto_server"))
    if name == "redshift":
        return RedshiftBackend(request.getfixturevalue("moto_server"))
    if name == "kubernetes":
        return KubernetesBackend(request.getfixturevalue("kubernetes_api"))
    if name == "emr_serverless":
        return EmrServerlessBackend(request.getfixturevalue("moto_server"), request.getfixturevalue("emr_resources"))
    if name == "emr_containers":
        return EmrContainersBackend(request.getfixturevalue("moto_server"), request.getfixturevalue("emr_resources"))
    raise ValueError(name)


@pytest.fixture
def drill_factory(airflow, backend):
    """``drill_factory(scenario, dag_id)``: a Drill; whatever its run left running is ended afterwards."""
    drills: list[Drill] = []

    def make(scenario: str, dag_id: str, task_id: str = "job") -> Drill:
        drill = Drill(airflow, backend, dag_id, scenario=scenario, task_id=task_id)
        drills.append(drill)
        return drill

    yield make
    for drill in drills:
        drill.cleanup()
    airflow.ensure_running()  # a drill that killed a Celery worker or the triggerer: make it whole


def on(*combos: str) -> pytest.MarkDecorator:
    """Run a test on ``"topology:backend"`` combinations, e.g. ``@on("local:spark", "celery:spark")``.

    The parameters are session-scoped, so pytest runs every test of one topology against one
    shared deployment before it starts the next.
    """
    pairs = [tuple(combo.split(":")) for combo in combos]
    return pytest.mark.parametrize("airflow,backend", pairs, indirect=True, scope="session", ids=list(combos))


# ----------------------------------------------------------------------- the summary table
def record(drill: Drill, **row: object) -> None:
    """Add a row to the summary table printed at the end of the session."""
    jobs = drill.new_jobs()
    ti = drill.ti()
    RESULTS.append(
        {
            "scenario": drill.scenario,
            "topology": drill.airflow.executor,
            "backend": drill.backend.name,
            "jobs": len(jobs),
            "end states": ",".join(job.state for job in jobs),
            "TI": f"{ti['state']}/try {ti['try_number']}",
            **row,
        }
    )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "tests/production/" in report.nodeid and not report.skipped:
        TIMES["production suite"] = TIMES.get("production suite", 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Tell .ci/run how long the production suite took (it prints the wall time of each part)."""
    import os

    from resumable_jobs.shims import installed_airflow_version

    path = os.environ.get("RJ_TIMINGS_FILE")
    if path and TIMES.get("production suite", 0.0) >= 1.0:  # not the teardowns of skipped tests
        with open(path, "a") as out:
            out.writelines(f"  {name + ' (airflow ' + str(installed_airflow_version()) + ')':<40} {seconds:5.0f}s\n" for name, seconds in TIMES.items())


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    for name, seconds in TIMES.items():
        terminalreporter.write_line(f"{name}: {seconds:.0f}s")
    if not RESULTS:
        return
    columns = ["scenario", "topology", "backend", "jobs", "end states", "TI", "latency"]
    rows = [[str(r.get(c, "")) for c in columns] for r in RESULTS]
    widths = [max(len(c), *(len(row[i]) for row in rows)) for i, c in enumerate(columns)]
    terminalreporter.section("production crash drills")
    terminalreporter.write_line("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in rows:
        terminalreporter.write_line("  ".join(v.ljust(w) for v, w in zip(row, widths)))
