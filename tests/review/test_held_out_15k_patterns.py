"""Patterns of the held-out batch "held-out-15k" (submitted external jobs), as positives and near
misses of our own writing.

The blind run found both of the batch's findings and nothing wrong, so the first tests only keep
those shapes found: an EMR step sensor that pulls the submit's XCom with the task id passed
positionally, tasks wired with ``set_upstream``, a Spark-on-Kubernetes sensor that pulls the
application name under its own key, and the near misses around them.

The last ones cover a gap found while probing the batch's Databricks shape (not a blind miss):
real DAGs build the request of a durable operator as a named dict (``json=payload``), and RJ009
read only what was written in the call itself, so a per-try value in the dict went unseen.
"""

from __future__ import annotations

import textwrap

from .sources import found

_EMR = """
    from datetime import datetime

    from airflow import DAG
    from airflow.contrib.operators.emr_add_steps_operator import EmrAddStepsOperator
    from airflow.contrib.sensors.emr_step_sensor import EmrStepSensor

    dag = DAG("steps", start_date=datetime(2026, 1, 1), schedule=None)
    adder = EmrAddStepsOperator(task_id="adder", job_flow_id="j-FIXED", steps=[], dag=dag)
    checker = EmrStepSensor(
        task_id="checker",
        job_flow_id="j-FIXED",
        step_id="{{ task_instance.xcom_pull('PULLED', key='return_value')[0] }}",
        dag=dag,
    )
    checker.set_upstream(adder)
"""


def test_step_sensor_pulling_the_submit_by_a_positional_task_id():
    assert found(_EMR.replace("PULLED", "adder"), "RJ005") == [(9, "RJ005")]


def test_near_miss_step_sensor_pulling_another_task():
    assert found(_EMR.replace("PULLED", "elsewhere"), "RJ005") == []


_SPARK = """
    from datetime import datetime

    from airflow import DAG
    from airflow.providers.cncf.kubernetes.operators.spark_kubernetes import SparkKubernetesOperator
    from airflow.providers.cncf.kubernetes.sensors.spark_kubernetes import SparkKubernetesSensor

    with DAG("spark", start_date=datetime(2026, 1, 1), schedule=None):
        launch = SparkKubernetesOperator(task_id="launch", namespace="jobs", application_file="app.yaml")
        SENSOR
"""


def test_spark_application_sensor_pulling_the_name_under_its_own_key():
    sensor = (
        'follow = SparkKubernetesSensor(task_id="follow", namespace="jobs", '
        "application_name=\"{{ ti.xcom_pull(task_ids='launch', key='application_name') }}\")\n"
        "        launch >> follow"
    )
    assert found(_SPARK.replace("SENSOR", sensor), "RJ005") == [(9, "RJ005")]


def test_near_miss_spark_application_without_a_sensor():
    assert found(_SPARK.replace("SENSOR", "pass"), "RJ005") == []


def test_near_miss_cluster_created_with_its_steps_and_a_job_flow_sensor():
    source = """
        from datetime import datetime

        from airflow import DAG
        from airflow.providers.amazon.aws.operators.emr import EmrCreateJobFlowOperator
        from airflow.providers.amazon.aws.sensors.emr import EmrJobFlowSensor

        STEPS = [{"Name": "nightly", "HadoopJarStep": {"Jar": "command-runner.jar"}}]

        with DAG("cluster", start_date=datetime(2026, 1, 1), schedule=None):
            create = EmrCreateJobFlowOperator(task_id="create", job_flow_overrides={"Steps": STEPS})
            watch = EmrJobFlowSensor(
                task_id="watch", job_flow_id="{{ ti.xcom_pull(task_ids='create', key='return_value') }}"
            )
            create >> watch
    """
    assert found(source, "RJ005") == []


_HEADER = """\
import uuid
from datetime import datetime

from airflow import DAG
from airflow.decorators import dag
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
"""


def _rj009(body: str) -> list[tuple[int, str]]:
    """RJ009's findings in the header's imports followed by ``body`` (from line 8 on)."""
    return found(_HEADER + textwrap.dedent(body), "RJ009")


def test_module_level_request_dict_with_a_per_try_template():
    body = """
    REQUEST = {"run_name": "refresh-{{ ti.try_number }}", "existing_cluster_id": "shared"}

    with DAG("refresh", start_date=datetime(2026, 1, 1), schedule=None):
        DatabricksSubmitRunOperator(task_id="refresh", json=REQUEST)
    """
    assert _rj009(body) == [(11, "RJ009")]


def test_request_dict_built_in_the_dag_function():
    body = """
    @dag(schedule=None, start_date=datetime(2026, 1, 1))
    def refresh():
        request = {"existing_cluster_id": "shared", "notebook_task": {"notebook_path": "/refresh"}}
        request_with_name = {**request, "run_name": "refresh-{{ macros.datetime.now() }}"}
        DatabricksSubmitRunOperator(task_id="refresh", json=request_with_name)

    refresh()
    """
    assert _rj009(body) == [(12, "RJ009")]


def test_request_dict_holding_a_name_computed_at_parse_time():
    body = """
    RUN_NAME = f"refresh-{uuid.uuid4()}"
    REQUEST = {"run_name": RUN_NAME, "existing_cluster_id": "shared"}

    with DAG("refresh", start_date=datetime(2026, 1, 1), schedule=None):
        DatabricksSubmitRunOperator(task_id="refresh", json=REQUEST)
    """
    assert _rj009(body) == [(12, "RJ009")]


def test_near_miss_request_dict_of_run_scoped_values():
    body = """
    REQUEST = {"run_name": "refresh-{{ ds }}", "existing_cluster_id": "shared"}

    with DAG("refresh", start_date=datetime(2026, 1, 1), schedule=None):
        DatabricksSubmitRunOperator(task_id="refresh", json=REQUEST)
    """
    assert _rj009(body) == []


def test_near_miss_name_bound_twice_is_not_known():
    body = """
    REQUEST = {"run_name": "refresh-{{ ti.try_number }}"}
    REQUEST = {"run_name": "refresh-{{ run_id }}"}

    with DAG("refresh", start_date=datetime(2026, 1, 1), schedule=None):
        DatabricksSubmitRunOperator(task_id="refresh", json=REQUEST)
    """
    assert _rj009(body) == []


def test_near_miss_factory_parameter_shadows_the_module_level_name():
    body = """
    request = {"run_name": "refresh-{{ ti.try_number }}"}

    def refresh_task(request):
        return DatabricksSubmitRunOperator(task_id="refresh", json=request)

    with DAG("refresh", start_date=datetime(2026, 1, 1), schedule=None):
        refresh_task({"run_name": "refresh-{{ run_id }}"})
    """
    assert _rj009(body) == []


def test_near_miss_request_dict_with_durable_off():
    body = """
    REQUEST = {"run_name": "refresh-{{ ti.try_number }}"}

    with DAG("refresh", start_date=datetime(2026, 1, 1), schedule=None):
        DatabricksSubmitRunOperator(task_id="refresh", json=REQUEST, durable=False)
    """
    assert _rj009(body) == []
