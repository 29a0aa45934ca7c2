"""The patterns real DAG folders use (issue 15), each with a positive and a near miss."""

from __future__ import annotations

import os
import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_files, review_source
from tests.review.sources import found, write


# -- RJ005: flags set after construction ----------------------------------------------------


def test_wait_switched_off_by_attribute_after_construction():
    source = """
        from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
        from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor
        from airflow.sdk import DAG

        with DAG("d"):
            run = GlueJobOperator(task_id="run", job_name="etl")
            run.wait_for_completion = False
            GlueJobSensor(task_id="wait", job_name="etl", run_id=run.output)
    """
    assert found(source, "RJ005") == [(7, "RJ005")]


def test_wait_switched_on_by_attribute_is_a_near_miss():
    source = """
        from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
        from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
        from airflow.sdk import DAG

        with DAG("d"):
            add = EmrAddStepsOperator(task_id="add", job_flow_id="j-1", steps=[])
            add.wait_for_completion = True
            EmrStepSensor(task_id="watch", job_flow_id="j-1", step_id=add.output)
    """
    assert found(source, "RJ005") == []


def test_deferrable_and_no_wait_set_after_construction_is_rj006_on_the_assignment():
    source = """
        from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
        from airflow.sdk import DAG

        with DAG("d"):
            run = DatabricksSubmitRunOperator(task_id="run", tasks=[], wait_for_termination=False)
            run.deferrable = True
            other = DatabricksSubmitRunOperator(task_id="other", tasks=[], wait_for_termination=False)
            other.deferrable = False
    """
    assert found(source, "RJ006") == [(6, "RJ006")]


# -- RJ005: operator families and provisioning ----------------------------------------------


def test_cluster_provisioning_with_its_state_sensor_is_not_a_job():
    source = """
        from airflow.providers.amazon.aws.operators.emr import EmrCreateJobFlowOperator
        from airflow.providers.amazon.aws.sensors.emr import EmrJobFlowSensor
        from airflow.sdk import DAG

        with DAG("d"):
            cluster = EmrCreateJobFlowOperator(task_id="cluster", job_flow_overrides={})
            EmrJobFlowSensor(task_id="ready", job_flow_id=cluster.output, target_states=["WAITING"])
    """
    assert found(source, "RJ005") == []


def test_astronomer_sensor_async_and_deferrable_operator_async():
    source = """
        from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
        from astronomer.providers.amazon.aws.operators.emr import EmrContainerOperatorAsync
        from astronomer.providers.amazon.aws.sensors.emr import EmrContainerSensorAsync, EmrStepSensorAsync
        from airflow.sdk import DAG

        with DAG("d"):
            add = EmrAddStepsOperator(task_id="add_steps", job_flow_id="j-1", steps=[])
            EmrStepSensorAsync(task_id="watch", job_flow_id="j-1",
                               step_id="{{ ti.xcom_pull(task_ids='add_steps')[0] }}")
            job = EmrContainerOperatorAsync(task_id="job", virtual_cluster_id="v", execution_role_arn="r",
                                            release_label="l", job_driver={})
            EmrContainerSensorAsync(task_id="job_done", job_id=job.output, virtual_cluster_id="v")
    """
    # The *Async operator defers, so it waits: its sensor is redundant, not a split.
    assert found(source, "RJ005") == [(8, "RJ005")]


def test_spark_kubernetes_application_and_its_sensor():
    source = """
        from airflow.providers.cncf.kubernetes.operators.spark_kubernetes import SparkKubernetesOperator
        from airflow.providers.cncf.kubernetes.sensors.spark_kubernetes import SparkKubernetesSensor
        from airflow.sdk import DAG

        with DAG("d"):
            app = SparkKubernetesOperator(task_id="pi", namespace="spark", application_file="pi.yaml")
            SparkKubernetesSensor(task_id="pi_done", namespace="spark",
                                  application_name="{{ ti.xcom_pull(task_ids='pi')['metadata']['name'] }}")
            lonely = SparkKubernetesOperator(task_id="lonely", namespace="spark", application_file="x.yaml")
    """
    assert found(source, "RJ005") == [(7, "RJ005")]


def test_sagemaker_job_joined_to_its_sensor_by_job_name_only():
    source = """
        from airflow.providers.amazon.aws.operators.sagemaker import SageMakerAutoMLOperator
        from airflow.providers.amazon.aws.sensors.sagemaker import SageMakerAutoMLSensor
        from airflow.sdk import DAG

        NAMES = {"automl": "churn-automl", "other": "other-automl"}

        with DAG("d"):
            automl = SageMakerAutoMLOperator(task_id="automl", job_name=NAMES["automl"], s3_input="s3://i",
                                             target_attribute="y", s3_output="s3://o", role_arn="r")
            automl.wait_for_completion = False
            SageMakerAutoMLSensor(task_id="automl_done", job_name=NAMES["automl"])
            SageMakerAutoMLSensor(task_id="other_done", job_name=NAMES["other"])
    """
    (finding,) = review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ005"]])
    assert finding.line == 9 and "'automl_done'" in finding.message and "other_done" not in finding.message


def test_in_house_subclass_of_a_known_operator_and_unknown_base():
    source = """
        from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
        from company.ops import TeamOperator
        from airflow.providers.standard.sensors.python import PythonSensor
        from airflow.sdk import DAG

        class TeamDatabricksOperator(DatabricksSubmitRunOperator):
            pass

        class Unrelated(TeamOperator):
            pass

        with DAG("d"):
            a = TeamDatabricksOperator(task_id="a", tasks=[], wait_for_termination=False)
            PythonSensor(task_id="a_done", python_callable=len, op_args=[a.output])
            b = Unrelated(task_id="b", wait_for_termination=False)
            PythonSensor(task_id="b_done", python_callable=len, op_args=[b.output])
    """
    assert found(source, "RJ005") == [(14, "RJ005")]


def test_step_id_picked_out_by_a_taskflow_step_links_the_sensor():
    source = """
        from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
        from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
        from airflow.sdk import DAG, task

        @task
        def first(ids):
            return ids[0]

        with DAG("d"):
            add = EmrAddStepsOperator(task_id="add", job_flow_id="j-1", steps=[])
            EmrStepSensor(task_id="watch", job_flow_id="j-1", step_id=first(add.output))
    """
    assert found(source, "RJ005") == [(11, "RJ005")]


def test_message_names_the_missing_wait_argument_once():
    source = """
        from airflow.providers.amazon.aws.operators.step_function import StepFunctionStartExecutionOperator
        from airflow.providers.amazon.aws.sensors.step_function import StepFunctionExecutionSensor
        from airflow.sdk import DAG

        with DAG("d"):
            start = StepFunctionStartExecutionOperator(task_id="start", state_machine_arn="arn")
            StepFunctionExecutionSensor(task_id="done", execution_arn=start.output)
    """
    (finding,) = review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ005"]])
    assert "'start' does not wait (it has no wait argument)" in finding.message
    assert "((" not in finding.message



def test_message_says_when_not_waiting_is_the_operators_default_not_the_dags_setting():
    source = """
        from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
        from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
        from airflow.sdk import DAG

        with DAG("d"):
            add = EmrAddStepsOperator(task_id="add", job_flow_id="j-1", steps=[]{flag})
            EmrStepSensor(task_id="watch", job_flow_id="j-1", step_id="{{{{ ti.xcom_pull(task_ids='add')[0] }}}}")
    """
    (left_out,) = review_source(textwrap.dedent(source.format(flag="")), "dag.py", [RULES_BY_CODE["RJ005"]])
    assert "'add' does not wait (by default: wait_for_completion=False)" in left_out.message
    flag = ", wait_for_completion=False"
    (written,) = review_source(textwrap.dedent(source.format(flag=flag)), "dag.py", [RULES_BY_CODE["RJ005"]])
    assert "'add' does not wait (wait_for_completion=False)" in written.message

# -- RJ001 / RJ004: helpers, Jinja, markers, offsets -------------------------------------------


def test_helper_in_another_module_of_the_dag_folder(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/utils/__init__.py": "",
            "dags/utils/state.py": """
                from airflow.models import Variable

                def remember(job_id):
                    Variable.set("emr_step_id", job_id)

                def configured_bucket():
                    return Variable.get("landing_bucket")
            """,
            "dags/etl.py": """
                from airflow.sdk import task
                from utils.state import configured_bucket, remember

                @task
                def submit():
                    remember("s-1")
                    return configured_bucket()
            """,
        },
    )
    result = review_files(paths)
    assert [(os.path.relpath(f.path, tmp_path), f.line, f.code) for f in result.findings] == [
        ("dags/utils/state.py", 5, "RJ001")
    ]


def test_helper_nobody_calls_from_a_task_is_a_near_miss(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/helpers.py": """
                from airflow.models import Variable

                def remember(job_id):
                    Variable.set("emr_step_id", job_id)
            """,
            "dags/etl.py": """
                from airflow.sdk import task
                from helpers import remember

                remember("at parse time")

                @task
                def submit():
                    return 1
            """,
        },
    )
    assert review_files(paths).findings == []


def test_helper_outside_the_reviewed_folder_is_reported_at_the_call(tmp_path):
    (tmp_path / ".git").mkdir()
    write(
        tmp_path,
        {
            "plugins/checkpoints.py": """
                from airflow.models import Variable

                def save(position):
                    Variable.set("export_checkpoint", position)
            """
        },
    )
    paths = write(
        tmp_path,
        {
            "dags/export.py": """
                from airflow.sdk import task
                from checkpoints import save

                @task
                def export():
                    save(10)
            """
        },
    )
    (finding,) = review_files(paths).findings
    assert (os.path.relpath(finding.path, tmp_path), finding.line, finding.code) == ("dags/export.py", 7, "RJ001")
    assert "in save (" in finding.message and "checkpoints.py:5" in finding.message


def test_jinja_read_of_a_key_a_task_writes_and_of_configuration():
    source = """
        from airflow.models import Variable
        from airflow.providers.standard.operators.bash import BashOperator
        from airflow.providers.standard.operators.python import PythonOperator
        from airflow.sdk import DAG

        def mark_done():
            Variable.set("last_success_ts", "{{ ts }}")

        with DAG("d"):
            BashOperator(task_id="report", bash_command="echo {{ var.value.last_success_ts }}")
            BashOperator(task_id="config", bash_command="echo {{ var.json.settings.bucket }}")
            PythonOperator(task_id="mark", python_callable=mark_done)
    """
    assert found(source, "RJ001", "RJ004") == [(8, "RJ004"), (11, "RJ004")]


def test_marker_written_by_one_task_and_read_by_another():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def produce():
            Variable.set("export_batch", "b-17")

        @task
        def consume():
            return Variable.get("export_batch")

        @task
        def configured():
            return Variable.get("bucket_name")
    """
    assert found(source, "RJ001") == [(7, "RJ001"), (11, "RJ001")]


def test_marker_written_and_read_by_the_same_task_only_is_a_near_miss():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def toggle():
            if Variable.get("feature_enabled") == "yes":
                Variable.set("feature_enabled", "no")
    """
    assert found(source, "RJ001") == []


def test_offset_only_its_own_task_advances_is_run_state_not_a_watermark():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def consume():
            offset = int(Variable.get("kafka_offset", default_var=0))
            Variable.set("kafka_offset", offset + 100)

        @task
        def rewind():
            Variable.set("replay_offset", 0)
    """
    assert found(source, "RJ001", "RJ004") == [(7, "RJ001"), (8, "RJ001"), (12, "RJ001")]


# -- RJ003: reconnect logic without Variables ------------------------------------------------


def test_reconnect_by_listing_pods_by_label_then_parent_execute():
    source = """
        from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator

        class ReattachingPodOperator(KubernetesPodOperator):
            def execute(self, context):
                pods = self.client.list_namespaced_pod(self.namespace, label_selector="run=1")
                if pods.items:
                    return self.await_pod(pods.items[0])
                return super().execute(context)
    """
    (finding,) = review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ003"]])
    assert (finding.line, finding.code) == (7, "RJ003")
    assert "list_namespaced_pod() looks for a previous try's job" in finding.message


def test_listing_without_a_filter_or_without_a_submit_is_a_near_miss():
    source = """
        from airflow.sdk import BaseOperator

        class Cleanup(BaseOperator):
            def execute(self, context):
                jobs = self.client.list_jobs()
                if jobs:
                    return start_cleanup(jobs)

        class Report(BaseOperator):
            def execute(self, context):
                jobs = self.client.list_jobs(filters=[{"name": "JOB_NAME", "values": ["x"]}])
                if not jobs:
                    raise ValueError("nothing ran")
                return len(jobs)

        class Index(BaseOperator):
            def execute(self, context):
                hits = self.es.search_documents(filter={"term": {"day": "x"}})
                if not hits:
                    self.es.create_index("day")
    """
    assert found(source, "RJ003") == []


def test_reconnect_through_own_xcom_without_a_push_of_that_key():
    source = """
        from airflow.sdk import task

        @task(retries=2)
        def submit(ti=None):
            previous = ti.xcom_pull(task_ids=None, key="batch_job")
            if previous:
                return previous
            return start_job()

        @task
        def downstream(ti=None):
            data = ti.xcom_pull(task_ids="upstream")
            if data:
                return start_job()
    """
    assert found(source, "RJ003") == [(7, "RJ003")]


# -- RJ002: XCom keys imported from another module -------------------------------------------


def test_xcom_key_constant_imported_from_another_module(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/common/__init__.py": "",
            "dags/common/keys.py": 'SPARK_JOB_ID = "spark_job_id"\nREPORT_PATH = "report_path"\n',
            "dags/spark.py": """
                from airflow.sdk import task
                from common import keys
                from common.keys import REPORT_PATH

                @task(retries=2)
                def submit(ti=None):
                    job = ti.xcom_pull(key=keys.SPARK_JOB_ID)
                    if not job:
                        ti.xcom_push(key=keys.SPARK_JOB_ID, value=start_job())
                    path = ti.xcom_pull(key=REPORT_PATH)
                    ti.xcom_push(key=REPORT_PATH, value=path or "/tmp/r")
            """,
        },
    )
    result = review_files(paths)
    assert [(os.path.basename(f.path), f.line, f.code) for f in result.findings] == [("spark.py", 10, "RJ002")]


# -- keys handed to a helper by its caller ------------------------------------------------------


def test_key_named_by_the_caller_through_op_kwargs(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/common/variables.py": """
                from airflow.models import Variable

                def update_variables(**kwargs):
                    for key, value in kwargs.get("UPDATE").items():
                        Variable.set(key, value)
            """,
            "dags/harvest.py": """
                from airflow.providers.standard.operators.python import PythonOperator
                from airflow.sdk import DAG
                from common.variables import update_variables

                with DAG("harvest"):
                    PythonOperator(
                        task_id="update_dates",
                        python_callable=update_variables,
                        op_kwargs={"UPDATE": {"LAST_HARVEST_DATE": "{{ ts }}", "OUTPUT_PATH": "/data/out"}},
                    )
            """,
        },
    )
    (finding,) = review_files(paths).findings
    assert (os.path.relpath(finding.path, tmp_path), finding.line, finding.code) == (
        "dags/common/variables.py",
        6,
        "RJ004",
    )
    assert 'Variable.set("LAST_HARVEST_DATE")' in finding.message


def test_key_named_by_the_caller_that_names_configuration_is_a_near_miss():
    source = """
        from airflow.models import Variable
        from airflow.providers.standard.operators.python import PythonOperator
        from airflow.sdk import DAG

        def publish(name, value):
            Variable.set(name, value)

        with DAG("d"):
            PythonOperator(task_id="publish", python_callable=publish, op_args=["model_version", "/models/v3"])
    """
    assert found(source, "RJ001", "RJ004") == []


def test_marker_with_no_hint_moved_on_from_run_to_run():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def count_runs():
            seen = int(Variable.get("nightly_counter", default_var=0))
            total = seen + 1
            Variable.set("nightly_counter", total)

        @task
        def reset_flag():
            if Variable.get("maintenance_mode") == "on":
                Variable.set("maintenance_mode", "off")
    """
    assert found(source, "RJ001", "RJ004") == [(7, "RJ001"), (9, "RJ001")]


def test_in_house_operator_and_sensor_from_plugins_and_a_relative_helper(tmp_path):
    (tmp_path / ".git").mkdir()
    paths = write(
        tmp_path,
        {
            "plugins/operators/__init__.py": "",
            "plugins/operators/batch.py": """
                from airflow.providers.amazon.aws.operators.batch import BatchOperator
                from airflow.providers.amazon.aws.sensors.batch import BatchSensor

                class TeamBatchOperator(BatchOperator):
                    pass

                class TeamBatchWaiter(BatchSensor):
                    pass
            """,
            "dags/pipelines/__init__.py": "",
            "dags/pipelines/state.py": """
                from airflow.models import Variable

                def save_offset(value):
                    Variable.set("export_checkpoint", value)
            """,
            "dags/pipelines/export.py": """
                from airflow.sdk import DAG, task
                from operators.batch import TeamBatchOperator, TeamBatchWaiter
                from .state import save_offset

                @task
                def checkpoint():
                    save_offset(1)

                with DAG("export"):
                    job = TeamBatchOperator(task_id="job", job_name="j", job_queue="q", job_definition="d",
                                            wait_for_completion=False)
                    TeamBatchWaiter(task_id="job_done", job_id=job.output)
                    checkpoint()
            """,
        },
    )
    result = review_files([p for p in paths if "/dags/" in p])
    assert [(os.path.relpath(f.path, tmp_path), f.line, f.code) for f in result.findings] == [
        ("dags/pipelines/export.py", 11, "RJ005"),
        ("dags/pipelines/state.py", 5, "RJ001"),
    ]


def test_more_provider_families_that_can_skip_waiting():
    source = """
        from airflow.providers.amazon.aws.operators.bedrock import BedrockCustomizeModelOperator
        from airflow.providers.amazon.aws.sensors.bedrock import BedrockCustomizeModelCompletedSensor
        from airflow.providers.google.cloud.operators.dataflow import DataflowStartFlexTemplateOperator
        from airflow.providers.google.cloud.sensors.dataflow import DataflowJobStatusSensor
        from airflow.sdk import DAG

        with DAG("d"):
            tune = BedrockCustomizeModelOperator(task_id="tune", job_name="tune-1", custom_model_name="m",
                                                 role_arn="r", base_model_id="b", hyperparameters={},
                                                 training_data_uri="s3://t", output_data_uri="s3://o")
            tune.wait_for_completion = False
            BedrockCustomizeModelCompletedSensor(task_id="tuned", job_name="tune-1")
            flex = DataflowStartFlexTemplateOperator(task_id="flex", body={}, location="eu",
                                                     wait_until_finished=False)
            DataflowJobStatusSensor(task_id="flex_done", job_id=flex.output, expected_statuses={"JOB_STATE_DONE"})
            batch = DataflowStartFlexTemplateOperator(task_id="batch", body={}, location="eu")
            DataflowJobStatusSensor(task_id="batch_done", job_id=batch.output, expected_statuses={"JOB_STATE_DONE"})
    """
    # "batch" waits (Dataflow batch jobs wait by default): its sensor is redundant, not a split
    assert found(source, "RJ005") == [(9, "RJ005"), (14, "RJ005")]


def test_deferrable_from_default_args_reaches_job_operators_not_dag_triggers():
    source = """
        from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
        from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator
        from airflow.sdk import DAG

        DEFAULTS = {"retries": 2, "deferrable": True}

        with DAG("d", default_args=DEFAULTS):
            DatabricksRunNowOperator(task_id="run", job_id=42, wait_for_termination=False)
            TriggerDagRunOperator(task_id="next", trigger_dag_id="other", wait_for_completion=False)
            DatabricksRunNowOperator(task_id="sync", job_id=7, deferrable=False, wait_for_termination=False)
    """
    assert found(source, "RJ006") == [(9, "RJ006")]


def test_async_operator_told_not_to_wait_defers_nothing():
    source = """
        from astronomer.providers.databricks.operators.databricks import DatabricksRunNowOperatorAsync
        from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
        from airflow.sdk import DAG

        with DAG("d"):
            DatabricksRunNowOperatorAsync(task_id="run", job_id=42, wait_for_termination=False)
            DatabricksRunNowOperator(task_id="plain", job_id=42, wait_for_termination=False)
    """
    assert found(source, "RJ006") == [(7, "RJ006")]
