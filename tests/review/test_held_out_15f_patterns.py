"""Patterns the held-out batch "held-out-15f" showed the reviewer had missed, as positives and
near misses of our own writing:

- RJ005: an Azure Data Factory pipeline run started from task code (the SDK's
  ``pipelines.create_run``, the Airflow hook's ``run_pipeline``) with a poll task or a sensor on
  its run id;
- RJ005: submit and sensor built by operator factories, helper functions that return an operator
  (``def add_step(task_id, ...): return EmrAddStepsOperator(task_id=task_id, ...)``);
- RJ008: ``datetime.utcnow()`` in a value named watermark inside a helper function that is not
  itself a task body (a ``utils`` module a task calls through a path the reviewer cannot follow).
"""

from __future__ import annotations

from resumable_jobs.review import RULES_BY_CODE, review_files
from tests.review.sources import found, relative, write


# --- RJ005: Azure Data Factory runs started from task code -----------------------------------

_ADF_SDK = """
    import time

    from airflow import DAG
    from airflow.operators.python import PythonOperator
    from azure.mgmt.datafactory import DataFactoryManagementClient

    def start_copy(ti, **context):
        factory = DataFactoryManagementClient(credential=None, subscription_id="sub")
        run = factory.pipelines.create_run("rg", "factory", "copy_sales")
        ti.xcom_push(key="copy_run", value=run.run_id)

    def follow_copy(ti, **context):
        run_id = ti.xcom_pull(key="copy_run", task_ids="{pulled}")
        factory = DataFactoryManagementClient(credential=None, subscription_id="sub")
        while factory.pipeline_runs.get("rg", "factory", run_id).status == "InProgress":
            time.sleep(20)

    with DAG("sales_copy") as dag:
        start = PythonOperator(task_id="start_copy", python_callable=start_copy)
        follow = PythonOperator(task_id="follow_copy", python_callable=follow_copy)
        start >> follow
"""


def test_adf_sdk_run_started_by_one_task_and_polled_by_another():
    assert found(_ADF_SDK.format(pulled="start_copy"), "RJ005") == [(20, "RJ005")]


def test_adf_poll_task_on_another_task_is_a_near_miss():
    assert found(_ADF_SDK.format(pulled="unrelated_task"), "RJ005") == []


def test_adf_run_started_and_polled_in_the_same_task_is_a_near_miss():
    source = """
        import time

        from airflow import DAG
        from airflow.operators.python import PythonOperator
        from azure.mgmt.datafactory import DataFactoryManagementClient

        def copy_and_wait(**context):
            factory = DataFactoryManagementClient(credential=None, subscription_id="sub")
            run = factory.pipelines.create_run("rg", "factory", "copy_sales")
            while factory.pipeline_runs.get("rg", "factory", run.run_id).status == "InProgress":
                time.sleep(20)

        with DAG("sales_copy") as dag:
            PythonOperator(task_id="copy", python_callable=copy_and_wait)
    """
    assert found(source, "RJ005") == []


def test_adf_hook_run_pipeline_in_a_python_callable_then_a_status_sensor():
    source = """
        from airflow import DAG
        from airflow.operators.python import PythonOperator
        from airflow.providers.microsoft.azure.hooks.data_factory import AzureDataFactoryHook
        from airflow.providers.microsoft.azure.sensors.data_factory import (
            AzureDataFactoryPipelineRunStatusSensor,
        )

        def kick_off(**context):
            hook = AzureDataFactoryHook(azure_data_factory_conn_id="adf")
            return hook.run_pipeline("copy_orders").run_id

        with DAG("nightly_copy") as dag:
            start = PythonOperator(task_id="kick_off", python_callable=kick_off)
            wait = AzureDataFactoryPipelineRunStatusSensor(
                task_id="wait", run_id="{{ ti.xcom_pull(task_ids='kick_off') }}"
            )
            start >> wait
    """
    assert found(source, "RJ005") == [(14, "RJ005")]


def test_adf_run_with_nothing_waiting_on_it_is_a_near_miss():
    source = """
        from airflow import DAG
        from airflow.operators.python import PythonOperator
        from airflow.providers.microsoft.azure.hooks.data_factory import AzureDataFactoryHook

        def kick_off(**context):
            return AzureDataFactoryHook(azure_data_factory_conn_id="adf").run_pipeline("copy").run_id

        with DAG("fire_and_forget") as dag:
            PythonOperator(task_id="kick_off", python_callable=kick_off)
    """
    assert found(source, "RJ005") == []


# --- RJ008: utcnow() in a watermark built by a helper that is not a task --------------------


def test_utcnow_in_a_watermark_record_built_by_a_helper():
    source = """
        import json
        from datetime import datetime

        def save_progress(blob, day):
            watermark = {"day": day, "saved_at": datetime.utcnow().isoformat() + "Z"}
            blob.upload(json.dumps(watermark))
    """
    assert found(source, "RJ008") == [(6, "RJ008")]


def test_utcnow_in_a_helper_value_not_named_watermark_is_a_near_miss():
    for line in (
        'record = {"day": day, "saved_at": datetime.utcnow().isoformat()}',
        'watermark = {"day": day, "saved_at": datetime.now(timezone.utc).isoformat()}',
    ):
        source = f"""
            import json
            from datetime import datetime, timezone

            def save_progress(blob, day):
                {line}
                blob.upload(json.dumps(locals()))
        """
        assert found(source, "RJ008") == [], line


# --- RJ005: submit and sensor made by operator factories -------------------------------------

_FACTORIES = """
    from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
    from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor


    def add_step(task_id, cluster, script):
        steps = [{"Name": script, "HadoopJarStep": {"Jar": "command-runner.jar", "Args": [script]}}]
        return EmrAddStepsOperator(task_id=task_id, job_flow_id=cluster, steps=steps)


    def watch_step(cluster, step):
        return EmrStepSensor(task_id="watch_step", job_flow_id=cluster, step_id=step)
"""

_FACTORY_DAG = """
    from airflow import DAG

    {imports}

    with DAG("nightly_spark") as dag:
        add = add_step({task_id}, "j-123", "s3://code/etl.py")
        watch = watch_step("j-123", "{{{{ ti.xcom_pull(task_ids='{pulled}')[0] }}}}")
        add >> watch
"""


def test_factories_of_the_same_file_make_a_submit_and_its_sensor():
    source = _FACTORIES + _FACTORY_DAG.format(imports="", task_id='"add_step"', pulled="add_step")
    assert found(source, "RJ005") == [(19, "RJ005")]
    # the task id handed over as a keyword counts the same
    source = (_FACTORIES + _FACTORY_DAG.format(imports="", task_id='"add_step"', pulled="add_step")).replace(
        'add_step("add_step", "j-123", "s3://code/etl.py")',
        'add_step(cluster="j-123", script="s3://code/etl.py", task_id="add_step")',
    )
    assert found(source, "RJ005") == [(19, "RJ005")]


def test_factory_sensor_on_another_task_is_a_near_miss():
    source = _FACTORIES + _FACTORY_DAG.format(imports="", task_id='"add_step"', pulled="some_other_step")
    assert found(source, "RJ005") == []


def test_factories_that_do_not_return_an_operator_make_no_task():
    source = """
        from airflow import DAG
        from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor

        def step_settings(task_id, script):
            return {"task_id": task_id, "steps": [script]}

        def describe(task_id):
            operator = EmrStepSensor(task_id=task_id, job_flow_id="j-1", step_id="s-1")
            print(operator)

        with DAG("nightly") as dag:
            settings = step_settings("add_step", "s3://code/etl.py")
            describe("watch_step")
    """
    assert found(source, "RJ005") == []


def test_factories_imported_from_a_module_beside_the_dags_folder(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    write(
        tmp_path,
        {
            "repo/modules/spark_tasks.py": _FACTORIES,
            "repo/dags/nightly.py": _FACTORY_DAG.format(
                imports="import spark_tasks as tasks",
                task_id='"add_step"',
                pulled="add_step",
            ).replace("add_step(", "tasks.add_step(").replace("watch_step(", "tasks.watch_step("),
        },
    )
    result = review_files([str(tmp_path / "repo" / "dags" / "nightly.py")], [RULES_BY_CODE["RJ005"]])
    assert relative(tmp_path, result) == [("repo/dags/nightly.py", 7, "RJ005")]


def test_factories_of_a_folder_that_is_not_beside_dags_are_not_imported(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    write(
        tmp_path,
        {
            "repo/lib/deep/spark_tasks.py": _FACTORIES,
            "repo/dags/nightly.py": _FACTORY_DAG.format(
                imports="import spark_tasks as tasks", task_id='"add_step"', pulled="add_step"
            ).replace("add_step(", "tasks.add_step(").replace("watch_step(", "tasks.watch_step("),
        },
    )
    result = review_files([str(tmp_path / "repo" / "dags" / "nightly.py")], [RULES_BY_CODE["RJ005"]])
    assert relative(tmp_path, result) == []


def test_factory_of_an_operator_that_waits_or_provisions_is_a_near_miss():
    for returned in (
        'GlueJobOperator(task_id=task_id, job_name="orders")',
        'EmrCreateJobFlowOperator(task_id=task_id, job_flow_overrides={})',
    ):
        source = f"""
            from airflow import DAG
            from airflow.providers.amazon.aws.operators.emr import EmrCreateJobFlowOperator
            from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
            from airflow.providers.amazon.aws.sensors.emr import EmrJobFlowSensor
            from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor

            def start(task_id):
                return {returned}

            with DAG("nightly") as dag:
                run = start("run")
                GlueJobSensor(task_id="wait_glue", job_name="orders", run_id=run.output)
                EmrJobFlowSensor(task_id="wait_cluster", job_flow_id=run.output, target_states=["WAITING"])
        """
        assert found(source, "RJ005") == [], returned
