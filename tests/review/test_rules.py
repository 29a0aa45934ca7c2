"""Rules on small sources: the import, alias and argument forms real DAGs use, and edge cases."""

from __future__ import annotations

import textwrap

import pytest

from resumable_jobs.review import RULES_BY_CODE, review_source
from resumable_jobs.review.keys import KeyKind, classify


def found(source: str, *codes: str) -> list[tuple[int, int, str]]:
    rules = [RULES_BY_CODE[c] for c in codes] if codes else list(RULES_BY_CODE.values())
    return [(f.line, f.column, f.code) for f in review_source(textwrap.dedent(source), "dag.py", rules)]


# -- key vocabulary -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("spark_job_id", KeyKind.JOB_ID),
        ("databricksRunId", KeyKind.JOB_ID),
        ("last_run_id", KeyKind.JOB_ID),
        ("etl_cursor", KeyKind.CURSOR),
        ("kafka_offset", KeyKind.CURSOR),
        ("next_page_token", KeyKind.CURSOR),
        ("last_processed_at", KeyKind.WATERMARK),
        ("orders_watermark_{}", KeyKind.WATERMARK),
        ("lastSyncTs", KeyKind.WATERMARK),
        ("databricks_cluster_id", None),
        ("gcp_project_id", None),
        ("max_active_runs", None),
        ("feature_flags", None),
        ("job_ids_to_run", None),
        (None, None),
    ],
)
def test_key_kinds(key, kind):
    assert classify(key) is kind


# -- RJ001 ----------------------------------------------------------------------------------------


def test_variable_from_airflow_models_variable_module_import():
    source = """
        import airflow.models.variable as var_mod
        from airflow.sdk import task

        @task
        def t():
            var_mod.Variable.set("batch_offset", 3)
    """
    assert found(source, "RJ001") == [(7, 5, "RJ001")]


def test_local_import_inside_the_task_counts():
    source = """
        from airflow.sdk import task

        @task
        def t():
            from airflow.sdk import Variable
            Variable.set("job_id", "x")
    """
    assert found(source, "RJ001") == [(7, 5, "RJ001")]


def test_python_callable_defined_after_the_operator():
    source = """
        from airflow.models import Variable
        from airflow.providers.standard.operators.python import PythonOperator

        op = PythonOperator(task_id="p", python_callable=later)

        def later():
            Variable.set("statement_id", "s-1")
    """
    assert found(source, "RJ001") == [(8, 5, "RJ001")]


def test_task_decorator_variants_and_poke():
    source = """
        from airflow.sdk import BaseSensorOperator, Variable, task
        from airflow.sdk import task as tsk

        @tsk.virtualenv(requirements=[])
        def a():
            Variable.set("cursor", 1)

        @task.sensor(poke_interval=5)
        def b():
            Variable.set("cursor", 2)
            return True

        class S(BaseSensorOperator):
            def poke(self, context):
                Variable.set("cursor", 3)
                return True
    """
    assert found(source, "RJ001") == [(7, 5, "RJ001"), (11, 5, "RJ001"), (16, 9, "RJ001")]


def test_plain_functions_and_unrelated_variable_classes_are_ignored():
    source = """
        from airflow.models import Variable
        from mylib import Variable as Other
        from airflow.sdk import task

        def not_a_task():
            Variable.set("job_id", 1)

        @task
        def t():
            Other.set("job_id", 1)
            Variable.get("job_id")  # read-only job id: may be configuration
    """
    assert found(source, "RJ001") == []


def test_noqa_silences_one_code_or_all():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def t():
            Variable.set("job_id", 1)  # noqa: RJ001
            Variable.set("run_id", 1)  # noqa: E501
            Variable.set("app_id", 1)  # noqa
    """
    assert found(source, "RJ001") == [(8, 5, "RJ001")]


# -- RJ002 ----------------------------------------------------------------------------------------


def test_xcom_pull_of_another_task_is_not_a_retry_lookup():
    source = """
        from airflow.sdk import task

        @task
        def t(ti=None):
            old = ti.xcom_pull(task_ids="other_task", key="job_id")
            ti.xcom_push(key="job_id", value=old or "new")
    """
    assert found(source, "RJ002") == []


def test_xcom_self_read_through_decorator_task_id():
    source = """
        from airflow.sdk import task

        @task(task_id="submitter")
        def t(ti=None):
            old = ti.xcom_pull("submitter", None, "emr_step_id")
            ti.xcom_push("emr_step_id", old or "new")
    """
    assert found(source, "RJ002") == [(7, 5, "RJ002")]


# -- RJ003 ----------------------------------------------------------------------------------------


def test_reconnect_if_hides_the_rj001_findings_of_its_function():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def t():
            job_id = Variable.get("job_id", default_var=None)
            if not job_id:
                job_id = submit_run()
                Variable.set("job_id", job_id)
            return job_id

        def submit_run():
            return "r"
    """
    assert found(source, "RJ001", "RJ003") == [(8, 5, "RJ003")]


def test_if_with_an_unrelated_test_is_not_reconnect_logic():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def t(flag):
            job_id = Variable.get("job_id", default_var=None)
            if flag:
                submit_run()
            return job_id

        def submit_run():
            return "r"
    """
    assert found(source, "RJ003") == []


_TWO_TIER_LOOKUP = """
    from airflow.models import BaseOperator


    class TaggedJobOperator(BaseOperator):
        def previous_run(self, context, tag):
            ti = context["ti"]
            run_id = ti.xcom_pull(key="tagged_run_id", task_ids=ti.task_id)
            if run_id:
                return run_id
            else:
                {absent}
            return None

        def execute(self, context):
            return self.previous_run(context, "t") or self.client.start_job_run(Name="t")
"""


def test_a_lookup_of_the_job_by_tag_in_the_nothing_found_branch_is_a_fallback_not_a_submit():
    source = _TWO_TIER_LOOKUP.format(absent='return self.client.find_job_run_by_tag(Tag=tag)')
    assert found(source, "RJ003") == []


def test_a_submit_in_the_nothing_found_branch_is_still_reconnect_logic():
    source = _TWO_TIER_LOOKUP.format(absent='return self.client.start_job_run(Name=tag)')
    assert found(source, "RJ003") == [(9, 9, "RJ003")]


# -- RJ005 ----------------------------------------------------------------------------------------


def test_submit_and_sensor_linked_by_chain_and_output_subscript():
    source = """
        from airflow.providers.amazon.aws.operators.batch import BatchOperator
        from airflow.providers.amazon.aws.sensors.batch import BatchSensor
        from airflow.providers.standard.operators.empty import EmptyOperator
        from airflow.sdk import DAG, chain

        with DAG("d"):
            submit = BatchOperator(task_id="submit", job_name="j", job_queue="q",
                                   job_definition="d", wait_for_completion=False)
            sense = BatchSensor(task_id="sense", job_id=submit.output["job_id"])
            after = EmptyOperator(task_id="after")
            chain(submit, sense, after)
    """
    assert found(source, "RJ005") == [(8, 14, "RJ005")]
    (finding,) = review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ005"]])
    assert finding.severity == "advice"


def test_downstream_on_the_submit_via_set_downstream_is_a_warning():
    source = """
        from airflow.providers.amazon.aws.operators.batch import BatchOperator
        from airflow.providers.amazon.aws.sensors.batch import BatchSensor
        from airflow.providers.standard.operators.empty import EmptyOperator
        from airflow.sdk import DAG

        with DAG("d"):
            submit = BatchOperator(task_id="submit", job_name="j", job_queue="q",
                                   job_definition="d", wait_for_completion=False)
            sense = BatchSensor(task_id="sense", job_id=submit.output)
            after = EmptyOperator(task_id="after")
            submit.set_downstream(after)
    """
    (finding,) = review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ005"]])
    assert finding.severity == "warning"
    assert "'after' depends on 'submit' but not on 'sense'" in finding.message


def test_operator_not_from_airflow_is_not_a_submit():
    source = """
        from company.ops import DatabricksSubmitRunOperator
        from airflow.providers.standard.sensors.python import PythonSensor
        from airflow.sdk import DAG

        with DAG("d"):
            s = DatabricksSubmitRunOperator(task_id="s", wait_for_termination=False)
            PythonSensor(task_id="w", python_callable=len, op_args=[s.output])
    """
    assert found(source, "RJ005") == []


# -- RJ007 ----------------------------------------------------------------------------------------


def test_mixin_from_resumable_jobs_and_self_assigned_key():
    source = """
        from airflow.sdk import BaseOperator
        from resumable_jobs import ResumableJobMixin

        class A(BaseOperator, ResumableJobMixin):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.external_id_key = "a/b"

            def execute(self, context):
                return self.execute_resumable(context)
    """
    assert found(source, "RJ007") == [(8, 9, "RJ007")]


# -- RJ008 ----------------------------------------------------------------------------------------


def test_store_values_tuple_and_injected_run_date():
    source = """
        from airflow.sdk import task

        @task
        def t(task_state_store=None, logical_date=None):
            task_state_store.set("pair", (1, 2))
            task_state_store.set("day", logical_date)
            task_state_store.set("day_text", logical_date.isoformat())
    """
    assert found(source, "RJ008") == [(6, 5, "RJ008"), (7, 5, "RJ008")]


def test_columns_count_characters_not_bytes():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def t():
            label = "é"; Variable.set("job_id", label)
    """
    assert found(source, "RJ001") == [(7, 18, "RJ001")]


def test_rj005_suggestion_uses_the_operator_and_its_wait_argument():
    source = """
        from airflow.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator
        from airflow.providers.google.cloud.sensors.dataproc import DataprocJobSensor
        from airflow.sdk import DAG

        with DAG("d"):
            job = DataprocSubmitJobOperator(task_id="job", job={}, region="eu", asynchronous=True)
            DataprocJobSensor(task_id="sense", dataproc_job_id=job.output, region="eu")
    """
    (finding,) = review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ005"]])
    assert finding.suggestion.startswith("Choose by spec section 6")
    assert 'job = DataprocSubmitJobOperator(task_id="job", asynchronous=True, ...)' in finding.suggestion
    assert 'job = DataprocSubmitJobOperator(task_id="job", asynchronous=False, deferrable=True, ...)' in (
        finding.suggestion
    )


# -- messages name a template read as written ----------------------------------------------------


def test_a_json_template_read_is_named_as_written_in_the_message():
    source = textwrap.dedent(
        """
        from datetime import datetime
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.bash import BashOperator
        from airflow.operators.python import PythonOperator

        def keep(**context):
            Variable.set("sync_checkpoint", {"page": 3}, serialize_json=True)

        with DAG("sync", start_date=datetime(2026, 1, 1), schedule="@daily"):
            PythonOperator(task_id="keep", python_callable=keep) >> BashOperator(
                task_id="use", bash_command="echo {{ var.json.sync_checkpoint.page }}"
            )
        """
    )
    messages = [f.message for f in review_source(source, "dag.py", [RULES_BY_CODE["RJ001"]]) if f.line == 13]
    assert len(messages) == 1
    assert messages[0].startswith("{{ var.json.sync_checkpoint }} reads per-run state")
