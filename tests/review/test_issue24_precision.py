"""Issue 24: each rule reports only when the evidence it needs is in the code. Our own cases,
written after the kinds of error the issue lists, each with a near miss:

- a cursor or offset one task reads and moves on is that task's progress (RJ001), decided by
  use: once another task reads it back it describes shared data, a watermark (RJ004);
- a Variable read as a feature switch or configuration is no finding, whatever words its key
  holds; a template read of a key nothing writes is held back as uncertain;
- a DAG folder's own ``get_state(name)``/``set_state(name, value)`` wrappers that build the
  key around the name they are handed.
"""

from __future__ import annotations

import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_files, review_source

from .sources import found, relative, write

# -- RJ001 or RJ004: decided by who reads the position back -----------------------------------

_CONSUMER = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator

    POSITION_KEY = "clicks_stream_offset"


    def consume(**context):
        position = int(Variable.get(POSITION_KEY, default_var=0))
        events = read_events_after(position)
        Variable.set(POSITION_KEY, position + len(events))
    READER

    with DAG("clicks") as dag:
        PythonOperator(task_id="consume", python_callable=consume)
        TASK
"""


def test_an_offset_under_a_constant_key_only_its_own_task_moves_on_is_rj001():
    source = _CONSUMER.replace("READER", "").replace("TASK", "")
    assert found(source, "RJ001", "RJ004") == [(10, "RJ001"), (12, "RJ001")]


def test_near_miss_an_offset_another_task_reads_back_is_a_watermark_rj004():
    reader = """

    def report_lag(**context):
        print("consumed up to", Variable.get(POSITION_KEY))
    """
    source = _CONSUMER.replace("READER", textwrap.indent(textwrap.dedent(reader), "    ")).replace(
        "TASK", 'PythonOperator(task_id="lag", python_callable=report_lag)'
    )
    assert [code for _, code in found(source, "RJ001", "RJ004")] == ["RJ004", "RJ004", "RJ004"]


# -- feature switches and configuration reads --------------------------------------------------


def test_a_switch_compared_with_a_yes_no_literal_is_configuration():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def upload():
            if Variable.get("resume_from_checkpoint").lower() == "true":
                restore()
            mode = Variable.get("checkpoint_every_batch", default_var="no")
            if mode in ("yes", "1"):
                flush()
    """
    assert found(source, "RJ001", "RJ004") == []


def test_a_key_naming_a_switch_is_configuration():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def upload():
            if Variable.get("enable_offset_commit", default_var=False):
                commit()
    """
    assert found(source, "RJ001", "RJ004") == []


def test_near_miss_a_checkpoint_read_as_a_position_is_still_reported():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def upload():
            start = Variable.get("orders_checkpoint")
            if start == "":
                start = None
            load_after(start)
    """
    assert found(source, "RJ001", "RJ004") == [(7, "RJ001")]


_TEMPLATED = """
    from airflow.models import Variable
    from airflow.operators.bash import BashOperator
    from airflow.sdk import DAG, task

    with DAG("export"):
        BashOperator(task_id="sync", bash_command="sync --to {{ var.value.checkpoint_bucket }} --from {{ var.value.orders_cursor }}")
        WRITER
"""


def test_a_template_read_of_a_key_nothing_writes_is_held_back_with_its_reason():
    source = textwrap.dedent(_TEMPLATED.replace("WRITER", ""))
    rules = [RULES_BY_CODE["RJ001"]]
    assert review_source(source, "dag.py", rules) == []
    held = review_source(source, "dag.py", rules, include_uncertain=True)
    assert [(f.line, f.code) for f in held] == [(7, "RJ001")]
    assert "nothing in the reviewed tree writes" in held[0].uncertain
    assert "orders_cursor" in held[0].message


def test_near_miss_a_template_read_of_a_cursor_a_task_writes_is_reported():
    writer = """
        @task
        def advance():
            Variable.set("orders_cursor", fetch_next())

        advance()
    """
    source = _TEMPLATED.replace("WRITER", textwrap.indent(textwrap.dedent(writer), "    "))
    assert found(source, "RJ001") == [(7, "RJ001"), (11, "RJ001")]


# -- a DAG folder's own state wrappers ---------------------------------------------------------

_WRAPPERS = """
    import json
    from airflow.models import Variable


    def get_state(name, default=None):
        raw = Variable.get(f"etl_state__{name}", default_var=None)
        return json.loads(raw) if raw else default


    def set_state(name, value):
        Variable.set(f"etl_state__{name}", json.dumps(value))
"""


def test_state_wrappers_in_utils_keyed_by_the_name_their_callers_pass(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/utils/__init__.py": "",
            "dags/utils/state.py": _WRAPPERS,
            "dags/tickets.py": """
                from airflow import DAG
                from airflow.operators.python import PythonOperator
                from utils.state import get_state, set_state


                def pull_tickets(**context):
                    page = get_state("tickets_next_page", default=1)
                    while fetch_page(page):
                        page += 1
                    set_state("tickets_next_page", page)


                with DAG("tickets") as dag:
                    PythonOperator(task_id="pull", python_callable=pull_tickets)
            """,
        },
    )
    assert relative(tmp_path, review_files(paths)) == [
        ("dags/utils/state.py", 7, "RJ001"),
        ("dags/utils/state.py", 12, "RJ001"),
    ]


def test_near_miss_the_same_wrappers_reading_configuration(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/utils/__init__.py": "",
            "dags/utils/state.py": _WRAPPERS,
            "dags/tickets.py": """
                from airflow import DAG
                from airflow.operators.python import PythonOperator
                from utils.state import get_state


                def notify(**context):
                    send_to(get_state("report_recipients", default=[]))


                with DAG("tickets") as dag:
                    PythonOperator(task_id="notify", python_callable=notify)
            """,
        },
    )
    assert relative(tmp_path, review_files(paths)) == []


# -- RJ005: a wait flag switched off after construction, and the sensor's evidence -------------

_TRAINING = """
    from datetime import datetime

    from airflow.decorators import task
    from airflow.models.baseoperator import chain
    from airflow.models.dag import DAG
    from airflow.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator
    from airflow.providers.amazon.aws.sensors.sagemaker import SageMakerTrainingSensor


    @task
    def plan(model):
        name = f"{model}-fit"
        return {"job": name, "request": {"TrainingJobName": name}}


    with DAG(dag_id="fit", start_date=datetime(2026, 1, 1), schedule=None):
        spec = plan("churn")
        fit = SageMakerTrainingOperator(task_id="fit", config=spec["request"])
        fit.wait_for_completion = False
        watch = SageMakerTrainingSensor(task_id="watch", job_name=WATCHED)
        chain(spec, fit, watch)
"""


def test_sagemaker_wait_switched_off_after_construction_then_its_sensor_right_after():
    assert found(_TRAINING.replace("WATCHED", 'spec["job"]'), "RJ005") == [(19, "RJ005")]


def test_near_miss_the_sensor_right_after_names_another_training_job():
    assert found(_TRAINING.replace("WATCHED", '"upsell-fit"'), "RJ005") == []


_BATCH = """
    from airflow import DAG
    from airflow.providers.amazon.aws.operators.batch import BatchOperator
    from airflow.providers.amazon.aws.sensors.batch import BatchSensor
    from airflow.providers.amazon.aws.sensors.s3 import S3KeySensor

    with DAG("render"):
        render = BatchOperator(task_id="render", job_name="r", job_queue="q", job_definition="d")
        render.wait_for_completion = False
        SENSOR
        render >> watch
"""


def test_batch_wait_switched_off_after_construction_then_its_sensor():
    source = _BATCH.replace("SENSOR", 'watch = BatchSensor(task_id="watch", job_id=render.output)')
    assert found(source, "RJ005") == [(8, "RJ005")]


def test_near_miss_the_sensor_after_the_batch_job_waits_for_a_file_and_is_only_uncertain():
    sensor = 'watch = S3KeySensor(task_id="watch", bucket_key=render.output, bucket_name="frames")'
    source = textwrap.dedent(_BATCH.replace("SENSOR", sensor))
    assert review_source(source, "dag.py", [RULES_BY_CODE["RJ005"]]) == []
    held = review_source(source, "dag.py", [RULES_BY_CODE["RJ005"]], include_uncertain=True)
    assert [(f.line, f.uncertain) for f in held] == [
        (8, "'watch' watches a key, not the job 'render' submits: it may wait on something else")
    ]


_HAND_WRITTEN = """
    from airflow.sdk import dag, task

    @dag(schedule=None)
    def nightly():
        @task
        def NAME():
            return client.start()

        @task.sensor(poke_interval=60)
        def ready(ref):
            return client.state(ref) == "READY"

        ready(NAME())

    nightly()
"""


def test_a_start_task_that_provisions_a_cluster_is_no_submit():
    assert found(_HAND_WRITTEN.replace("NAME", "start_cluster"), "RJ005") == []


def test_near_miss_a_start_task_that_submits_an_export_is_one():
    assert found(_HAND_WRITTEN.replace("NAME", "start_export"), "RJ005") == [(14, "RJ005")]


# -- RJ003: operator subclasses that look a previous try's job up, then skip the submit --------


def test_a_subclass_that_finds_a_run_by_its_job_name_and_skips_the_parents_submit():
    source = """
        from airflow.providers.amazon.aws.operators.glue import GlueJobOperator

        class ResumingCrawlJob(GlueJobOperator):
            def execute(self, context):
                runs = self.hook.conn.get_job_runs(JobName=self.job_name)["JobRuns"]
                live = [r for r in runs if r["JobRunState"] in ("STARTING", "RUNNING")]
                if live:
                    return self.hook.job_completion(self.job_name, live[0]["Id"])
                return super().execute(context)
    """
    assert found(source, "RJ003") == [(8, "RJ003")]


def test_near_miss_a_subclass_that_stops_runs_of_its_name_before_submitting():
    source = """
        from airflow.providers.amazon.aws.operators.glue import GlueJobOperator

        class FreshCrawlJob(GlueJobOperator):
            def execute(self, context):
                for run in self.hook.conn.get_job_runs(JobName=self.job_name)["JobRuns"]:
                    if run["JobRunState"] == "RUNNING":
                        self.hook.conn.batch_stop_job_run(JobName=self.job_name, JobRunIds=[run["Id"]])
                return super().execute(context)
    """
    assert found(source, "RJ003") == []


def test_a_subclass_that_counts_jobs_of_its_name_and_waits_for_the_one_found():
    source = """
        from airflow.providers.amazon.aws.operators.sagemaker import SageMakerProcessingOperator

        class OnceProcessing(SageMakerProcessingOperator):
            def execute(self, context):
                name = self.config["ProcessingJobName"]
                if self.hook.count_processing_jobs_by_name(name) > 0:
                    return self.hook.wait_for_processing_job(name)
                return super().execute(context)
    """
    assert found(source, "RJ003") == [(7, "RJ003")]


def test_near_miss_a_subclass_that_looks_a_job_definition_up_by_name_before_creating_it():
    source = """
        from airflow.providers.amazon.aws.operators.glue import GlueJobOperator

        class EnsuredGlueJob(GlueJobOperator):
            def execute(self, context):
                if not self.hook.get_job_by_name(self.job_name):
                    self.hook.create_job(self.job_name)
                return super().execute(context)
    """
    assert found(source, "RJ003") == []


def test_a_pod_operator_subclass_that_finds_its_pod_by_the_task_instances_labels():
    source = """
        from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator

        class ResumePod(KubernetesPodOperator):
            def execute(self, context):
                pod = self.find_pod(self.namespace, context=context)
                if pod is not None:
                    return self.await_pod_completion(pod)
                return super().execute(context)
    """
    assert found(source, "RJ003") == [(7, "RJ003")]


def test_an_operator_pulling_its_own_xcom_through_self_with_the_context_first():
    source = """
        from airflow.models import BaseOperator

        class TransferJob(BaseOperator):
            def execute(self, context):
                earlier = self.xcom_pull(context, task_ids=self.task_id, key="transfer_run")
                if earlier is not None:
                    return self.hook.wait_for_run(earlier)
                return self.hook.start_transfer_run(self.config)
    """
    assert found(source, "RJ003") == [(7, "RJ003")]


def test_near_miss_an_operator_pulling_an_upstream_tasks_xcom_through_self():
    source = """
        from airflow.models import BaseOperator

        class TransferJob(BaseOperator):
            def execute(self, context):
                earlier = self.xcom_pull(context, task_ids="plan", key="transfer_run")
                if earlier is not None:
                    return self.hook.wait_for_run(earlier)
                return self.hook.start_transfer_run(self.config)
    """
    assert found(source, "RJ003") == []


_PLAIN_WRAPPERS = """
    from airflow.models import Variable


    def get_state(key, default=None):
        return Variable.get(key, default_var=default)


    def set_state(key, value):
        Variable.set(key, value)
"""


def _wrapped(tmp_path, task_body: str) -> list[tuple[str, int, str]]:
    dag = (
        "from airflow import DAG\n"
        "from airflow.operators.python import PythonOperator\n"
        "from utils.state import get_state, set_state\n\n"
        'SYNC_KEY = "crm_sync_cursor"\n'
        'ALERT_KEY = "crm_alert_channel"\n\n\n'
        f"def sync(**context):\n{textwrap.indent(textwrap.dedent(task_body), '    ')}\n\n"
        'with DAG("crm") as dag:\n'
        '    PythonOperator(task_id="sync", python_callable=sync)\n'
    )
    paths = write(tmp_path, {"dags/utils/__init__.py": "", "dags/utils/state.py": _PLAIN_WRAPPERS, "dags/crm.py": dag})
    return relative(tmp_path, review_files(paths))


def test_a_wrapper_handed_a_cursor_key_through_a_module_constant(tmp_path):
    body = """
        cursor = get_state(SYNC_KEY, default=0)
        set_state(SYNC_KEY, pull_after(cursor))
    """
    assert _wrapped(tmp_path, body) == [("dags/utils/state.py", 6, "RJ001"), ("dags/utils/state.py", 10, "RJ001")]


def test_near_miss_a_wrapper_handed_a_configuration_key_through_a_module_constant(tmp_path):
    assert _wrapped(tmp_path, "notify(get_state(ALERT_KEY))") == []


def test_near_miss_a_job_id_key_with_a_switch_word_is_still_run_state():
    source = """
        from airflow.models import Variable
        from airflow.sdk import task

        @task
        def submit():
            previous = Variable.get("use_last_run_id", default_var=None)
            Variable.set("use_last_run_id", start_run(previous))
    """
    assert found(source, "RJ001") == [(7, "RJ001"), (8, "RJ001")]


_JSON_STATE = """
    from airflow.models import Variable

    STATE_KEY = "ingest_state"


    def get_state(source):
        return Variable.get(STATE_KEY, default_var={}, deserialize_json=True).get(source)


    def set_state(source, value):
        state = Variable.get(STATE_KEY, default_var={}, deserialize_json=True)
        state[source] = value
        Variable.set(STATE_KEY, state, serialize_json=True)
"""


def _json_state_tree(tmp_path, body: str):
    dag = (
        "from airflow.decorators import dag, task\n"
        "from utils.state import get_state, set_state\n\n\n"
        '@dag(schedule="@hourly")\n'
        "def pull():\n"
        "    @task\n"
        "    def fetch():\n"
        f"{textwrap.indent(textwrap.dedent(body), '        ')}\n"
        "    fetch()\n\n\npull()\n"
    )
    paths = write(tmp_path, {"dags/utils/__init__.py": "", "dags/utils/state.py": _JSON_STATE, "dags/pull.py": dag})
    return review_files(paths).findings


def test_one_task_reading_and_writing_a_state_dict_through_two_wrappers(tmp_path):
    body = """
        since = get_state("crm")
        set_state("crm", load_since(since))
    """
    findings = _json_state_tree(tmp_path, body)
    assert [(f.line, f.code) for f in findings] == [(8, "RJ001"), (12, "RJ001"), (14, "RJ001")]
    assert all("state a task reads and writes back" in f.message for f in findings)


def test_near_miss_a_task_that_only_reads_the_state_dict(tmp_path):
    assert _json_state_tree(tmp_path, 'report(get_state("crm"))') == []


def test_older_providers_modules_named_per_operator_are_one_service():
    source = """
        from airflow import DAG
        from airflow.providers.amazon.aws.operators.emr_add_steps import EmrAddStepsOperator
        from airflow.providers.amazon.aws.sensors.emr_step import EmrStepSensor

        with DAG("steps"):
            add = EmrAddStepsOperator(task_id="add", job_flow_id="j-1", steps=[])
            watch = EmrStepSensor(
                task_id="watch", job_flow_id="j-1", step_id="{{ ti.xcom_pull(task_ids='add')[0] }}"
            )
            add >> watch
    """
    assert found(source, "RJ005") == [(7, "RJ005")]


def test_an_operator_reading_its_own_xcom_row_through_the_xcom_class():
    source = """
        from airflow.models import BaseOperator, XCom

        class ResumingJob(BaseOperator):
            def execute(self, context):
                prior = XCom.get_one(run_id=context["run_id"], task_id=self.task_id, key="job_id")
                if prior is None:
                    prior = self.hook.submit_job(self.spec)
                return self.hook.wait(prior)
    """
    assert found(source, "RJ003") == [(7, "RJ003")]


def test_near_miss_an_operator_reading_an_upstream_tasks_xcom_row():
    source = """
        from airflow.models import BaseOperator, XCom

        class ResumingJob(BaseOperator):
            def execute(self, context):
                prior = XCom.get_one(run_id=context["run_id"], task_id="plan", key="job_id")
                if prior is None:
                    prior = self.hook.submit_job(self.spec)
                return self.hook.wait(prior)
    """
    assert found(source, "RJ003") == []
