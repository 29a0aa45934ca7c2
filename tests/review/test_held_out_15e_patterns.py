"""Patterns the held-out batch "held-out-15e" showed the reviewer had missed, as positives and
near misses of our own writing:

- RJ005: more client methods that start a job and return at once (an EMR notebook execution, a
  SageMaker tuning job, a Glue workflow run), also when the task is bound to the name of its own
  callable (``run = PythonOperator(python_callable=run)``);
- RJ001: a key that a helper of another module writes, run as a task of a DAG file, and that
  the DAG file reads when it is parsed: a per-run value passed between the tasks of one DAG;
- a position in a sequence of ids (``from_id``, ``last_loaded_id``) that a task reads and
  moves on from run to run, under a name that says neither offset nor watermark (RJ004 then;
  since issue 24, RJ001 when only that task reads it back: the task's own progress).
"""

from __future__ import annotations

from resumable_jobs.review import review_files
from resumable_jobs.review.keys import names_an_offset
from tests.review.sources import found, relative, write


# -- RJ005: more job-start methods ----------------------------------------------------------

_NOTEBOOK = """
    import time

    import boto3
    from airflow import DAG
    from airflow.operators.python import PythonOperator
    from airflow.providers.amazon.aws.sensors.emr import EmrBaseSensor

    class ReportRunSensor(EmrBaseSensor):
        template_fields = ("execution_id",)

        def __init__(self, execution_id, **kwargs):
            super().__init__(**kwargs)
            self.execution_id = execution_id

        def get_emr_response(self, context=None):
            return boto3.client("emr").describe_notebook_execution(NotebookExecutionId=self.execution_id)

    def run_report(**context):
        emr = boto3.client("emr")
        started = emr.start_notebook_execution(EditorId="e-1", RelativePath="report.ipynb",
                                               ExecutionEngine={{"Id": "j-1"}}, ServiceRole="role")
        {tail}

    with DAG("report") as dag:
        run_report = PythonOperator(task_id="run_report", python_callable=run_report)
        ReportRunSensor(task_id="wait_report",
                        execution_id="{{{{ ti.xcom_pull(task_ids='run_report') }}}}")
"""


def test_notebook_execution_started_in_a_task_and_sensed_in_another():
    source = _NOTEBOOK.format(tail='return started["NotebookExecutionId"]')
    assert found(source, "RJ005") == [(26, "RJ005")]


def test_notebook_execution_polled_by_the_task_that_started_it_is_a_near_miss():
    tail = (
        'run = started["NotebookExecutionId"]\n'
        "        while emr.describe_notebook_execution(NotebookExecutionId=run)['NotebookExecution']"
        "['Status'] != 'FINISHED':\n"
        "            time.sleep(60)\n"
        "        return run"
    )
    assert found(_NOTEBOOK.format(tail=tail), "RJ005") == []


def test_tuning_job_started_in_a_taskflow_task_then_its_sensor():
    source = """
        import boto3
        from airflow.providers.amazon.aws.sensors.sagemaker import SageMakerTuningSensor
        from airflow.sdk import DAG, task

        with DAG("tune"):
            @task
            def tune_model():
                boto3.client("sagemaker").create_hyper_parameter_tuning_job(
                    HyperParameterTuningJobName="churn-tuning", HyperParameterTuningJobConfig={}
                )
                return "churn-tuning"

            SageMakerTuningSensor(task_id="wait_tuning", job_name=tune_model())
    """
    assert found(source, "RJ005") == [(14, "RJ005")]


def test_glue_workflow_run_without_any_sensor_is_a_near_miss():
    source = """
        import boto3
        from airflow.sdk import DAG, task

        with DAG("nightly"):
            @task
            def start_workflow():
                return boto3.client("glue").start_workflow_run(Name="nightly")["RunId"]

            start_workflow()
    """
    assert found(source, "RJ005") == []


# -- RJ001: a helper of another module writes, the DAG file reads at parse time ---------------

_HELPER = """
    from airflow.models import Variable

    def choose_partition(bucket):
        newest = sorted(list_partitions(bucket))[-1]
        Variable.set("chosen_partition", newest)
        return "transform"

    def list_partitions(bucket):
        return ["p=1", "p=2"]
"""


#: a DAG whose only task runs the helper: it writes the key and reads nothing back
_DAILY_RUNS_THE_HELPER = """
    from airflow import DAG
    from airflow.operators.python import PythonOperator
    from helpers.storage import choose_partition

    with DAG("daily") as dag:
        PythonOperator(task_id="pick", python_callable=choose_partition, op_kwargs={"bucket": "raw"})
"""

def test_helper_run_as_a_task_writes_what_the_dag_reads_when_parsed(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/helpers/__init__.py": "",
            "dags/helpers/storage.py": _HELPER,
            "dags/daily.py": """
                from airflow import DAG
                from airflow.models import Variable
                from airflow.operators.python import BranchPythonOperator, PythonOperator
                from helpers.storage import choose_partition

                with DAG("daily") as dag:
                    pick = BranchPythonOperator(task_id="pick", python_callable=choose_partition,
                                                op_kwargs={"bucket": "raw"})
                    partition = Variable.get("chosen_partition")
                    transform = PythonOperator(task_id="transform", python_callable=print,
                                               op_args=[partition])
                    pick >> transform
            """,
        },
    )
    assert relative(tmp_path, review_files(paths)) == [("dags/helpers/storage.py", 6, "RJ001")]


def test_helper_value_nothing_in_the_dag_reads_back_is_a_near_miss(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/helpers/__init__.py": "",
            "dags/helpers/storage.py": _HELPER,
            "dags/daily.py": _DAILY_RUNS_THE_HELPER,
        },
    )
    assert relative(tmp_path, review_files(paths)) == []


def test_key_read_by_a_dag_that_does_not_run_the_helper_is_a_near_miss(tmp_path):
    # the writer is a task of daily.py; report.py only reads the published value
    paths = write(
        tmp_path,
        {
            "dags/helpers/__init__.py": "",
            "dags/helpers/storage.py": _HELPER,
            "dags/daily.py": _DAILY_RUNS_THE_HELPER,
            "dags/report.py": """
                from airflow import DAG
                from airflow.models import Variable
                from airflow.operators.bash import BashOperator

                with DAG("report") as dag:
                    BashOperator(task_id="show", bash_command="echo " + Variable.get("chosen_partition"))
            """,
        },
    )
    assert relative(tmp_path, review_files(paths)) == []


# -- RJ004: an id position moved on from run to run ------------------------------------------


def test_names_an_offset():
    for key in ("send_from_id", "last_loaded_id", "max_id", "since_id", "kafka_offset", "startId"):
        assert names_an_offset(key), key
    for key in ("customer_id", "last_run_id", "spark_job_id", "partner_id", "latest_partition", None):
        assert not names_an_offset(key), key


_EXPORT = """
    from airflow.models import Variable

    def export_new_rows(**kwargs):
        start = int(Variable.get("{key}", default_var=0))
        end = start + 10_000
        copy_rows(start, end)
        Variable.set("{key}", end)

    def copy_rows(first, last):
        pass
"""


def test_id_position_moved_on_by_a_task_function_of_another_module(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/jobs/__init__.py": "",
            "dags/jobs/export.py": _EXPORT.format(key="export_from_id"),
            "dags/export_dag.py": """
                from airflow import DAG
                from airflow.operators.python import PythonOperator
                from jobs.export import export_new_rows

                with DAG("export") as dag:
                    PythonOperator(task_id="export", python_callable=export_new_rows)
            """,
        },
    )
    assert relative(tmp_path, review_files(paths)) == [
        ("dags/jobs/export.py", 5, "RJ001"),
        ("dags/jobs/export.py", 8, "RJ001"),
    ]


def test_id_position_only_its_own_task_moves_on_is_that_tasks_progress_rj001():
    source = """
        from airflow.models import Variable
        from airflow.sdk import DAG, task

        with DAG("export"):
            @task
            def export_new_rows():
                start = int(Variable.get("last_loaded_id", default_var=0))
                Variable.set("last_loaded_id", start + 10_000)

            export_new_rows()
    """
    assert found(source, "RJ001", "RJ004") == [(8, "RJ001"), (9, "RJ001")]


def test_an_id_a_task_only_reads_or_that_is_not_a_position_is_a_near_miss():
    read_only = """
        from airflow.models import Variable
        from airflow.sdk import DAG, task

        with DAG("export"):
            @task
            def export_new_rows():
                return int(Variable.get("export_from_id", default_var=0))

            export_new_rows()
    """
    assert found(read_only, "RJ001", "RJ004") == []
    # an entity id the task writes without reading it first: configuration published for others
    published = """
        from airflow.models import Variable
        from airflow.sdk import DAG, task

        with DAG("export"):
            @task
            def publish():
                Variable.set("default_partner_id", 42)

            publish()
    """
    assert found(published, "RJ001", "RJ004") == []
