"""Fixtures for the end-to-end crash tests: a local Spark cluster and an embedded Airflow."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def spark_cluster():
    from resumable_jobs.local.spark_cluster import LocalSparkCluster

    # Room for two applications at once: the documented open window (a crash between submit and
    # checkpoint) runs the orphan driver and the retry's driver side by side, and with one
    # application's worth of cores/memory both drivers would wait for executors forever.
    with LocalSparkCluster(worker_cores=4, worker_memory="2g") as cluster:
        yield cluster


@pytest.fixture(scope="session")
def airflow(spark_cluster):
    from resumable_jobs.local.embedded_airflow import EmbeddedAirflow

    env = {
        **spark_cluster.airflow_connection_env("spark_default"),
        "RJ_E2E_SPARK_APP": str(HERE / "apps" / "slow_sum.py"),
    }
    with EmbeddedAirflow(HERE / "dags", extra_env=env) as embedded:
        yield embedded
