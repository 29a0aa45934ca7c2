"""Patterns of the held-out batch "held-out-15n" (the job families named in issue 15: Glue, EMR
Serverless, EMR steps, SageMaker, Batch, Athena, Lambda, Dataproc batches, Dataform, dbt Cloud),
as positives and near misses of our own writing.

The blind run found all five of the batch's findings and nothing wrong, so the first tests only
keep those shapes and the near misses around them: a Glue job run and an EMR Serverless job run
started without waiting and sensed by task id (with the application created without waiting and
its state sensor, which is provisioning), an asynchronous Dataform invocation whose sensor picks
the id out of the submit's XCom, operators that wait followed by a redundant sensor, a Lambda
function's state sensor, and an ``*Async`` time sensor that senses no job.

The last ones cover two gaps found while probing the batch's families by hand (not blind misses):

- a SageMaker job names itself inside its request (``config={"TrainingJobName": NAME}``, a
  transform job one level down in ``Transform``), not with a ``job_name=`` argument, so a sensor
  with ``job_name=NAME`` was never joined to it; the request's ``...JobName`` key now names the
  job, read from the call or through a name bound once to the dict;
- a task written in a task group has the group's id in front of its own (``transform.run``), so a
  sensor pulling ``transform.run`` was never joined to the submit written as ``task_id="run"``
  inside ``with TaskGroup("transform")`` or a ``@task_group`` function;
- a file whose only sensor is mapped (``Sensor.partial(...).expand(...)``) calls ``partial`` and
  not the sensor class by name, so the cheap first look skipped the file;
- a sensor template written as an f-string that inserts the submit's task id constant
  (``f"{{{{ ti.xcom_pull(task_ids='{LOAD}') }}}}"``) named no task id.
"""

from __future__ import annotations

from .sources import found

# ---------------------------------------------------------------- the batch's shapes

_GLUE = """
    from airflow import DAG
    from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
    from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor

    dag = DAG("crunch", schedule=None)
    JOB = "crunch-{{ ds_nodash }}"
    crunch = GlueJobOperator(task_id="crunch", job_name=JOB, WAIT dag=dag)
    watch = GlueJobSensor(task_id="watch", job_name=JOB, run_id="{{ ti.xcom_pull(task_ids='crunch') }}", dag=dag)
    crunch >> watch
"""


def test_glue_run_without_waiting_and_its_sensor_pulling_the_run_id():
    assert found(_GLUE.replace("WAIT", "wait_for_completion=False,"), "RJ005") == [(8, "RJ005")]


def test_near_miss_glue_run_that_waits_by_default():
    assert found(_GLUE.replace("WAIT", ""), "RJ005") == []


_SERVERLESS = """
    from airflow import DAG
    from airflow.providers.amazon.aws.operators.emr import (
        EmrServerlessCreateApplicationOperator,
        EmrServerlessStartJobOperator,
    )
    from airflow.providers.amazon.aws.sensors.emr import EmrServerlessApplicationSensor, EmrServerlessJobSensor

    APP = "{{ ti.xcom_pull(task_ids='make_app') }}"
    with DAG("serverless", schedule=None):
        make_app = EmrServerlessCreateApplicationOperator(
            task_id="make_app", job_type="SPARK", release_label="emr-7", config={}, wait_for_completion=False
        )
        app_up = EmrServerlessApplicationSensor(task_id="app_up", application_id=APP, target_states=["STARTED"])
        job = EmrServerlessStartJobOperator(
            task_id="job", application_id=APP, execution_role_arn="arn", job_driver={}, wait_for_completion=False
        )
        job_done = EmrServerlessJobSensor(
            task_id="job_done", application_id=APP, job_run_id="{{ ti.xcom_pull(task_ids='job') }}"
        )
        make_app >> app_up >> job >> job_done
"""


def test_serverless_job_started_without_waiting_but_not_the_application_it_runs_on():
    # the application created without waiting and its STARTED sensor is provisioning: not reported
    assert found(_SERVERLESS, "RJ005") == [(15, "RJ005")]


_DATAFORM = """
    from airflow import DAG
    from airflow.providers.google.cloud.operators.dataform import DataformCreateWorkflowInvocationOperator
    from airflow.providers.google.cloud.sensors.dataform import DataformWorkflowInvocationStateSensor

    with DAG("models", schedule=None):
        invoke = DataformCreateWorkflowInvocationOperator(
            task_id="invoke", project_id="p", region="r", repository_id="repo", ASYNC workflow_invocation={}
        )
        settled = DataformWorkflowInvocationStateSensor(
            task_id="settled",
            project_id="p",
            region="r",
            repository_id="repo",
            workflow_invocation_id="{{ ti.xcom_pull('invoke')['name'].split('/')[-1] }}",
            expected_statuses={2},
        )
        invoke >> settled
"""


def test_asynchronous_dataform_invocation_and_its_state_sensor():
    assert found(_DATAFORM.replace("ASYNC", "asynchronous=True,"), "RJ005") == [(7, "RJ005")]


def test_near_miss_dataform_invocation_that_waits():
    assert found(_DATAFORM.replace("ASYNC", ""), "RJ005") == []


def test_near_miss_lambda_function_created_then_its_state_sensed():
    source = """
        from airflow import DAG
        from airflow.providers.amazon.aws.operators.lambda_function import (
            LambdaCreateFunctionOperator,
            LambdaInvokeFunctionOperator,
        )
        from airflow.providers.amazon.aws.sensors.lambda_function import LambdaFunctionStateSensor

        with DAG("fn", schedule=None):
            make = LambdaCreateFunctionOperator(task_id="make", function_name="f", runtime="python3.12",
                                                role="arn", handler="h.main", code={})
            ready = LambdaFunctionStateSensor(task_id="ready", function_name="f", target_states=["Active"])
            call = LambdaInvokeFunctionOperator(task_id="call", function_name="f", payload="{}")
            make >> ready >> call
    """
    assert found(source, "RJ005") == []


def test_near_miss_async_time_sensor_senses_no_job():
    source = """
        import datetime

        from airflow import DAG
        from airflow.operators.empty import EmptyOperator
        from airflow.sensors.time_delta import TimeDeltaSensorAsync

        with DAG("pause", schedule=None):
            pause = TimeDeltaSensorAsync(task_id="pause", delta=datetime.timedelta(minutes=5))
            pause >> EmptyOperator(task_id="after")
    """
    assert found(source) == []


# ---------------------------------------------------------------- SageMaker jobs named in their request

_SAGEMAKER = """
    from airflow import DAG
    from airflow.providers.amazon.aws.operators.sagemaker import (
        SageMakerProcessingOperator,
        SageMakerTrainingOperator,
        SageMakerTransformOperator,
        SageMakerTuningOperator,
    )
    from airflow.providers.amazon.aws.sensors.sagemaker import (
        SageMakerProcessingSensor,
        SageMakerTrainingSensor,
        SageMakerTransformSensor,
        SageMakerTuningSensor,
    )

    FIT = "fit-{{ ds_nodash }}"
    REQUEST = {"TrainingJobName": FIT, "RoleArn": "arn", "ResourceConfig": {"InstanceCount": 1}}
    with DAG("ml", schedule=None):
        BODY
"""


def _sagemaker(body: str) -> list[tuple[int, str]]:
    return found(_SAGEMAKER.replace("BODY", body.strip().replace("\n", "\n        ")), "RJ005")


def test_training_told_not_to_wait_after_construction_and_sensed_by_the_name_in_its_request():
    body = """
fit = SageMakerTrainingOperator(task_id="fit", config=REQUEST)
fit.wait_for_completion = False
fitted = SageMakerTrainingSensor(task_id="fitted", job_name=FIT)
fit >> fitted
"""
    assert _sagemaker(body) == [(19, "RJ005")]


def test_processing_request_written_in_the_call_names_the_job_as_a_literal():
    body = """
prep = SageMakerProcessingOperator(
    task_id="prep", config={"ProcessingJobName": "prep-{{ ds }}"}, wait_for_completion=False
)
prepped = SageMakerProcessingSensor(task_id="prepped", job_name="prep-{{ ds }}")
"""
    assert _sagemaker(body) == [(19, "RJ005")]


def test_transform_job_named_one_level_down_in_its_request():
    body = """
score = SageMakerTransformOperator(
    task_id="score",
    config={"Model": {"ModelName": "m"}, "Transform": {"TransformJobName": "score-{{ ds }}"}},
    wait_for_completion=False,
)
scored = SageMakerTransformSensor(task_id="scored", job_name="score-{{ ds }}")
"""
    assert _sagemaker(body) == [(19, "RJ005")]


def test_tuning_job_named_at_the_top_of_its_request():
    body = """
tune = SageMakerTuningOperator(task_id="tune", config={"HyperParameterTuningJobName": "hp"}, wait_for_completion=False)
tuned = SageMakerTuningSensor(task_id="tuned", job_name="hp")
"""
    assert _sagemaker(body) == [(19, "RJ005")]


def test_near_miss_training_that_waits_and_a_redundant_sensor_on_its_name():
    body = """
fit = SageMakerTrainingOperator(task_id="fit", config=REQUEST)
fitted = SageMakerTrainingSensor(task_id="fitted", job_name=FIT)
"""
    assert _sagemaker(body) == []


def test_near_miss_sensor_on_another_job_name():
    body = """
fit = SageMakerTrainingOperator(task_id="fit", config=REQUEST, wait_for_completion=False)
fitted = SageMakerTrainingSensor(task_id="fitted", job_name="yesterday-{{ ds_nodash }}")
"""
    assert _sagemaker(body) == []


def test_near_miss_request_built_at_run_time_names_nothing():
    body = """
fit = SageMakerTrainingOperator(task_id="fit", config=build_request(FIT), wait_for_completion=False)
fitted = SageMakerTrainingSensor(task_id="fitted", job_name=FIT)
"""
    assert _sagemaker(body) == []


def test_near_miss_request_name_bound_twice_is_not_known():
    body = """
OTHER = {"TrainingJobName": FIT}
OTHER = {"TrainingJobName": "another"}
fit = SageMakerTrainingOperator(task_id="fit", config=OTHER, wait_for_completion=False)
fitted = SageMakerTrainingSensor(task_id="fitted", job_name=FIT)
"""
    assert _sagemaker(body) == []


# ---------------------------------------------------------------- task ids prefixed by their task group

_GROUPED = """
    from airflow import DAG
    from airflow.decorators import task_group
    from airflow.providers.dbt.cloud.operators.dbt import DbtCloudRunJobOperator
    from airflow.providers.dbt.cloud.sensors.dbt import DbtCloudJobRunSensor
    from airflow.utils.task_group import TaskGroup

    with DAG("warehouse", schedule=None):
        BODY
"""


def _grouped(body: str) -> list[tuple[int, str]]:
    return found(_GROUPED.replace("BODY", body.strip().replace("\n", "\n        ")), "RJ005")


def test_sensor_pulls_the_group_qualified_id_of_a_submit_in_a_task_group():
    body = """
with TaskGroup("models"):
    build = DbtCloudRunJobOperator(task_id="build", job_id=7, wait_for_termination=False)
    built = DbtCloudJobRunSensor(task_id="built", run_id="{{ ti.xcom_pull(task_ids='models.build') }}")
    build >> built
"""
    assert _grouped(body) == [(10, "RJ005")]


def test_nested_groups_and_a_sensor_outside_them():
    body = """
with TaskGroup(group_id="nightly"):
    with TaskGroup("models"):
        build = DbtCloudRunJobOperator(task_id="build", job_id=7, wait_for_termination=False)
built = DbtCloudJobRunSensor(task_id="built", run_id="{{ ti.xcom_pull(task_ids='nightly.models.build') }}")
"""
    assert _grouped(body) == [(11, "RJ005")]


def test_task_group_function_prefixes_with_its_name():
    body = """
@task_group
def models():
    build = DbtCloudRunJobOperator(task_id="build", job_id=7, wait_for_termination=False)
    built = DbtCloudJobRunSensor(task_id="built", run_id="{{ ti.xcom_pull(task_ids='models.build') }}")
    build >> built

models()
"""
    assert _grouped(body) == [(11, "RJ005")]


def test_near_miss_sensor_pulls_the_same_task_id_of_another_group():
    body = """
with TaskGroup("models"):
    build = DbtCloudRunJobOperator(task_id="build", job_id=7, wait_for_termination=False)
with TaskGroup("seeds"):
    built = DbtCloudJobRunSensor(task_id="built", run_id="{{ ti.xcom_pull(task_ids='seeds.build') }}")
"""
    assert _grouped(body) == []


def test_near_miss_submit_outside_any_group():
    body = """
build = DbtCloudRunJobOperator(task_id="build", job_id=7, wait_for_termination=False)
built = DbtCloudJobRunSensor(task_id="built", run_id="{{ ti.xcom_pull(task_ids='models.build') }}")
"""
    assert _grouped(body) == []


def test_group_without_a_prefix_keeps_the_plain_task_id():
    plain = """
with TaskGroup("models", prefix_group_id=False):
    build = DbtCloudRunJobOperator(task_id="build", job_id=7, wait_for_termination=False)
    built = DbtCloudJobRunSensor(task_id="built", run_id="{{ ti.xcom_pull(task_ids='PULLED') }}")
"""
    assert _grouped(plain.replace("PULLED", "build")) == [(10, "RJ005")]
    assert _grouped(plain.replace("PULLED", "models.build")) == []


# ---------------------------------------------------------------- mapped sensors, f-string templates

_MAPPED = """
    from airflow import DAG
    from airflow.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator
    from airflow.providers.amazon.aws.sensors.emr import EmrServerlessJobSensor

    with DAG("fanout", schedule=None):
        runs = EmrServerlessStartJobOperator.partial(
            task_id="runs", application_id="app", execution_role_arn="arn", WAIT
        ).expand(job_driver=[{"sparkSubmit": {}}, {"sparkSubmit": {}}])
        finished = EmrServerlessJobSensor.partial(task_id="finished", application_id="app").expand(
            job_run_id=runs.output
        )
"""


def test_mapped_sensor_on_mapped_job_runs():
    # a file whose sensor is only mapped calls ``partial``, not the sensor class, by name
    assert found(_MAPPED.replace("WAIT", "wait_for_completion=False"), "RJ005") == [(7, "RJ005")]


def test_near_miss_mapped_job_runs_that_wait():
    assert found(_MAPPED.replace("WAIT", "wait_for_completion=True"), "RJ005") == []


_FSTRING = """
    from airflow import DAG
    from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
    from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor

    LOAD = "load_orders"
    with DAG("orders", schedule=None):
        load = GlueJobOperator(task_id=LOAD, job_name="orders", wait_for_completion=False)
        loaded = GlueJobSensor(
            task_id="loaded", job_name="orders-check", run_id=f"{{{{ ti.xcom_pull(task_ids='{PULLED}') }}}}"
        )
"""


def test_sensor_template_built_as_an_f_string_of_the_submit_task_id_constant():
    assert found(_FSTRING.replace("PULLED", "LOAD"), "RJ005") == [(8, "RJ005")]


def test_near_miss_f_string_template_of_another_task_id_constant():
    source = _FSTRING.replace("PULLED", "OTHER").replace("with DAG", 'OTHER = "x"\n    with DAG')
    assert found(source, "RJ005") == []
