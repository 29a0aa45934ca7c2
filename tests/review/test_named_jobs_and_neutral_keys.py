"""A SageMaker job named inside the operator's ``config`` and by ``job_name=`` on its sensor
(RJ005), and a job id kept in XCom under a key whose name says nothing, by a ``python_callable``
that reads it back under its operator's task id (RJ002). Our own cases, after the issue's
"SageMaker jobs joined to a sensor by job_name" and "job ids handed between tasks through XCom".
"""

from __future__ import annotations

from .sources import found

_SAGEMAKER = """
    from datetime import datetime

    from airflow import DAG
    from airflow.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator
    from airflow.providers.amazon.aws.sensors.sagemaker import SageMakerTrainingSensor

    with DAG("churn", start_date=datetime(2026, 1, 1), schedule="@weekly"):
        fit = SageMakerTrainingOperator(
            task_id="fit",
            config={{"TrainingJobName": "churn-{{{{ ds_nodash }}}}", "RoleArn": "arn"}},
            {wait}
        )
        watch = SageMakerTrainingSensor(task_id="watch", job_name="{sensor_name}")
        fit >> watch
"""


def test_a_training_job_named_in_its_config_and_watched_by_job_name_is_one_job():
    source = _SAGEMAKER.format(wait="wait_for_completion=False,", sensor_name="churn-{{ ds_nodash }}")
    assert found(source, "RJ005") == [(9, "RJ005")]


def test_near_miss_the_sensor_watches_another_training_job():
    source = _SAGEMAKER.format(wait="wait_for_completion=False,", sensor_name="baseline-{{ ds_nodash }}")
    assert found(source, "RJ005") == []


def test_near_miss_the_training_operator_waits_by_default():
    source = _SAGEMAKER.format(wait="", sensor_name="churn-{{ ds_nodash }}")
    assert found(source, "RJ005") == []


_STEP_KEEPER = """
    from datetime import datetime

    from airflow import DAG
    from airflow.operators.python import PythonOperator

    HANDLE = "step_handle"


    def add_step(**context):
        ti = context["ti"]
        earlier = ti.xcom_pull(task_ids="{pulled}", key=HANDLE)
        if earlier:
            return earlier
        {started}
        ti.xcom_push(key=HANDLE, value=step)


    with DAG("steps", start_date=datetime(2026, 1, 1), schedule=None):
        PythonOperator(task_id="add", python_callable=add_step)
"""

_STARTED = 'step = context["emr"].add_job_flow_steps(JobFlowId="j-1", Steps=[])["StepIds"][0]'


def test_a_step_id_kept_under_a_neutral_key_and_read_back_by_its_own_operator_task():
    source = _STEP_KEEPER.format(pulled="add", started=_STARTED)
    assert found(source, "RJ002") == [(16, "RJ002")]


def test_near_miss_the_value_kept_is_not_what_a_job_start_returned():
    source = _STEP_KEEPER.format(pulled="add", started="step = len(ti.xcom_pull(task_ids='list_steps') or [])")
    assert found(source, "RJ002") == []


def test_near_miss_the_key_is_read_back_from_another_task():
    source = _STEP_KEEPER.format(pulled="plan", started=_STARTED)
    assert found(source, "RJ002") == []
