"""Variants of the issue's patterns, written the way other teams write them: flags set after
construction on a task that defers by ``default_args``, a helper of another module handing a
state key to an inner helper, ... Our own cases, each with a near miss that must stay silent.
"""

from __future__ import annotations

import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_files, review_source

from .sources import found, relative, write

# -- RJ006: the wait switched off after construction ------------------------------------------

_SERVERLESS = """
    from datetime import datetime

    from airflow import DAG
    from airflow.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator

    default_args = {"deferrable": DEFERS, "retries": 2}

    with DAG("nightly", start_date=datetime(2026, 1, 1), default_args=default_args):
        start = EmrServerlessStartJobOperator(
            task_id="start", application_id="app", execution_role_arn="role", job_driver={}
        )
        start.wait_for_completion = False
        sized = EmrServerlessStartJobOperator(
            task_id="sized", application_id="app", execution_role_arn="role", job_driver={}, deferrable=True
        )
        sized.wait_for_completion = False
"""


def test_wait_switched_off_by_attribute_on_a_task_deferring_by_default_args_or_keyword():
    assert found(_SERVERLESS.replace("DEFERS", "True"), "RJ006") == [(13, "RJ006"), (17, "RJ006")]


def test_near_miss_wait_switched_off_by_attribute_without_deferring():
    # default_args do not defer: only the task that passes deferrable=True itself is reported
    assert found(_SERVERLESS.replace("DEFERS", "False"), "RJ006") == [(17, "RJ006")]


def test_near_miss_wait_switched_back_on_by_attribute():
    source = """
        from datetime import datetime

        from airflow import DAG
        from airflow.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator

        with DAG("nightly", start_date=datetime(2026, 1, 1), default_args={"deferrable": True}):
            start = EmrServerlessStartJobOperator(
                task_id="start", application_id="a", execution_role_arn="r", job_driver={}, wait_for_completion=False
            )
            start.wait_for_completion = True
    """
    assert found(source, "RJ006") == []


# -- RJ001: a key handed from one helper of another module to an inner one ---------------------

_STATE = """
    from airflow.models import Variable


    def _raw(key):
        return Variable.get(key, default_var=None)


    def _write(key, value):
        Variable.set(key, value)


    def load_checkpoint():
        return _raw("orders_checkpoint")


    def save_checkpoint(value):
        _write("orders_checkpoint", value)


    def load_table():
        return _raw("orders_table")
"""


def _orders(body: str) -> str:
    return (
        """
        import pendulum
        from airflow.decorators import dag, task

        from utils.state import load_checkpoint as load_cp, load_table, save_checkpoint


        @dag(start_date=pendulum.datetime(2026, 1, 1), schedule="@daily")
        def orders():
            @task
            def extract():
        """
        + body
        + """
            extract()


        orders()
        """
    )


def _review_orders(tmp_path, body: str):
    paths = write(
        tmp_path, {"dags/utils/__init__.py": "", "dags/utils/state.py": _STATE, "dags/orders.py": _orders(body)}
    )
    return relative(tmp_path, review_files(paths, [RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]]))


def test_a_checkpoint_key_handed_to_inner_helpers_of_another_module(tmp_path):
    body = """
                cp = load_cp()
                save_checkpoint((cp or 0) + 1)
    """
    assert _review_orders(tmp_path, body) == [
        ("dags/utils/state.py", 6, "RJ001"),
        ("dags/utils/state.py", 10, "RJ001"),
    ]


def test_near_miss_the_inner_helper_reads_configuration(tmp_path):
    body = """
                print(load_table())
    """
    assert _review_orders(tmp_path, body) == []


# -- RJ003: reconnect logic without Variables -------------------------------------------------

_FILTERED_LISTING = """
    from airflow.providers.amazon.aws.operators.batch import BatchOperator


    class ReconnectingBatch(BatchOperator):
        def execute(self, context):
            listed = self.hook.client.list_jobs(
                jobQueue=self.job_queue, filters=[{"name": "JOB_NAME", "values": [self.job_name]}]
            )
            running = [j for j in listed["jobSummaryList"] if j["status"] == "RUNNING"]
            if not running:
                NOT_FOUND
            self.job_id = running[0]["jobId"]
            self.monitor_job(context)
"""


def test_a_filtered_listing_picked_over_before_the_parent_execute_submits():
    source = _FILTERED_LISTING.replace("NOT_FOUND", "return super().execute(context)")
    assert found(source, "RJ003") == [(11, "RJ003")]


def test_near_miss_nothing_found_in_the_filtered_listing_raises():
    source = _FILTERED_LISTING.replace("NOT_FOUND", 'raise RuntimeError("no running job")')
    assert found(source, "RJ003") == []


_OWN_PULL = """
    import boto3
    import pendulum
    from airflow.decorators import dag, task


    @dag(start_date=pendulum.datetime(2026, 1, 1), schedule=None)
    def steps():
        @task
        def run_step(ti=None):
            previous = ti.xcom_pull(task_ids="TASK_IDS", key="emr_step")
            if previous is None:
                emr = boto3.client("emr")
                previous = emr.add_job_flow_steps(JobFlowId="j-1", Steps=[])["StepIds"][0]
            return previous

        run_step()


    steps()
"""


def test_a_task_pulling_its_own_xcom_by_its_task_id_before_starting_a_step():
    assert found(_OWN_PULL.replace("TASK_IDS", "run_step"), "RJ003") == [(12, "RJ003")]


def test_near_miss_the_pull_reads_an_upstream_task():
    assert found(_OWN_PULL.replace("TASK_IDS", "plan_step"), "RJ003") == []


def test_a_python_callable_pulling_the_xcom_of_its_operators_task_id():
    source = """
        from datetime import datetime

        from airflow import DAG
        from airflow.operators.python import PythonOperator


        def launch(ti, **context):
            run_id = ti.xcom_pull(task_ids="launch_job", key="databricks_run")
            if not run_id:
                run_id = context["params"]["client"].submit_run(json={})
            return run_id


        with DAG("jobs", start_date=datetime(2026, 1, 1)):
            PythonOperator(task_id="launch_job", python_callable=launch)
    """
    assert found(source, "RJ003") == [(10, "RJ003")]


_OWN_ID_CONSTANT = """
    from datetime import datetime

    from airflow import DAG
    from airflow.operators.python import PythonOperator

    LAUNCH_ID = "launch_job"
    REPORT_ID = "report"


    def launch(ti, **context):
        run_id = ti.xcom_pull(task_ids=PULLED, key="databricks_run")
        if not run_id:
            run_id = context["params"]["client"].submit_run(json={})
        return run_id


    with DAG("jobs", start_date=datetime(2026, 1, 1)):
        PythonOperator(task_id=LAUNCH_ID, python_callable=launch)
"""


def test_a_python_callable_pulling_its_own_xcom_by_a_task_id_constant():
    # the same rule as RJ002's: the pull names the task it runs in, through the constant
    assert found(_OWN_ID_CONSTANT.replace("PULLED", "LAUNCH_ID"), "RJ003") == [(13, "RJ003")]


def test_near_miss_a_python_callable_pulling_another_tasks_xcom_by_a_constant():
    assert found(_OWN_ID_CONSTANT.replace("PULLED", "REPORT_ID"), "RJ003") == []


# -- RJ001 / RJ004: keys built from string constants -------------------------------------------

_MARKER = """
    from datetime import datetime

    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator

    PREFIX = "sales"


    def pick(ds_nodash, **context):
        Variable.set(KEY, ds_nodash)


    def load(ds_nodash, **context):
        print(Variable.get(KEY))


    with DAG("sales", start_date=datetime(2026, 1, 1)):
        PythonOperator(task_id="pick", python_callable=pick) >> PythonOperator(task_id="load", python_callable=load)
"""


def test_a_neutral_marker_key_built_from_a_module_constant_passed_between_tasks():
    assert found(_MARKER.replace("KEY", 'f"{PREFIX}_partition"'), "RJ001") == [(12, "RJ001"), (16, "RJ001")]


def test_near_miss_the_marker_key_holds_the_run_date():
    # a key per run (the date inserted at run time) is not one value shared by every run
    assert found(_MARKER.replace("KEY", 'f"{PREFIX}_{ds_nodash}"'), "RJ001") == []


_PAGER = """
    import pendulum
    from airflow.decorators import dag, task
    from airflow.models import Variable

    TABLE = "orders"


    @dag(start_date=pendulum.datetime(2026, 1, 1), schedule="@hourly")
    def pager():
        @task
        def page(TABLE_PARAM):
            key = "{}_offset".format(TABLE_NAME)
            offset = Variable.get(key, default_var=0)
            Variable.set(key, int(offset) + 1000)

        page("orders")


    pager()
"""


def test_an_offset_key_built_with_format_from_a_constant_is_the_tasks_own_progress():
    source = _PAGER.replace("TABLE_PARAM", "name").replace("TABLE_NAME", "TABLE")
    assert found(source, "RJ001", "RJ004") == [(14, "RJ001"), (15, "RJ001")]


def test_near_miss_the_offset_key_is_built_from_a_parameter():
    source = _PAGER.replace("TABLE_PARAM", "table").replace("TABLE_NAME", "table")
    assert found(source, "RJ001", "RJ004") == []


# -- RJ001 / RJ004: a helper class of the file used through an instance ------------------------

_STORE_CLASS = """
    from datetime import datetime

    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator


    class Offsets:
        KEY = "ledger_offset"

        def current(self):
            return int(Variable.get(self.KEY, default_var=0))

        def store(self, value):
            Variable.set(self.KEY, value)

    """


def test_a_task_moving_an_offset_on_through_a_helper_class_instance():
    source = _STORE_CLASS + """
    def page(**context):
        offsets = Offsets()
        offsets.store(offsets.current() + 500)


    with DAG("ledger", start_date=datetime(2026, 1, 1)):
        PythonOperator(task_id="page", python_callable=page)
    """
    assert found(source, "RJ001", "RJ004") == [(13, "RJ004"), (16, "RJ004")]


def test_a_checkpoint_kept_through_a_module_level_instance():
    source = """
        from datetime import datetime

        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator


        class Checkpointer:
            def load(self):
                return Variable.get("s3_checkpoint", default_var=None)

            def save(self, value):
                Variable.set("s3_checkpoint", value)


        CHECKPOINTS = Checkpointer()


        def run(**context):
            CHECKPOINTS.save(CHECKPOINTS.load())


        with DAG("s3", start_date=datetime(2026, 1, 1)):
            PythonOperator(task_id="run", python_callable=run)
    """
    assert found(source, "RJ001", "RJ004") == [(11, "RJ001"), (14, "RJ001")]


def test_near_miss_the_helper_class_is_used_only_when_the_file_is_parsed():
    source = _STORE_CLASS + """
    START = Offsets().current()


    def page(**context):
        print(START)


    with DAG("ledger", start_date=datetime(2026, 1, 1)):
        PythonOperator(task_id="page", python_callable=page)
    """
    assert found(source, "RJ001", "RJ004") == []


def test_near_miss_a_name_bound_to_something_else_in_the_task():
    source = _STORE_CLASS + """
    def page(offsets, **context):
        offsets.store(offsets.current() + 500)


    with DAG("ledger", start_date=datetime(2026, 1, 1)):
        PythonOperator(task_id="page", python_callable=page, op_args=[None])
    """
    assert found(source, "RJ001", "RJ004") == []


# -- RJ001: a helper class of plugins/ used through an instance --------------------------------

_CURSOR_STORE = """
    from airflow.models import Variable


    class CursorStore:
        def __init__(self, name):
            self.name = name

        def read(self):
            return Variable.get(f"{self.name}_cursor", default_var="0")

        def write(self, value):
            Variable.set(f"{self.name}_cursor", value)


    class Settings:
        def table(self):
            return Variable.get("events_table")
"""


def _review_events(tmp_path, dag: str):
    paths = write(tmp_path, {"plugins/__init__.py": "", "plugins/stores.py": _CURSOR_STORE, "dags/events.py": dag})
    return relative(tmp_path, review_files(paths, [RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]]))


def test_a_cursor_kept_through_an_instance_of_a_plugins_class(tmp_path):
    dag = """
        from datetime import datetime

        from airflow import DAG
        from airflow.operators.python import PythonOperator

        from plugins.stores import CursorStore

        STORE = CursorStore("events")


        def pull(**context):
            print(STORE.read())
            STORE.write(context["ds"])


        with DAG("events", start_date=datetime(2026, 1, 1)):
            PythonOperator(task_id="pull", python_callable=pull)
    """
    assert _review_events(tmp_path, dag) == [("plugins/stores.py", 10, "RJ001"), ("plugins/stores.py", 13, "RJ001")]


def test_near_miss_a_plugins_class_reading_configuration_or_used_at_parse_time(tmp_path):
    dag = """
        from datetime import datetime

        from airflow import DAG
        from airflow.operators.python import PythonOperator

        from plugins.stores import CursorStore, Settings

        START = CursorStore("events").read()


        def pull(**context):
            print(Settings().table(), START)


        with DAG("events", start_date=datetime(2026, 1, 1)):
            PythonOperator(task_id="pull", python_callable=pull)
    """
    assert _review_events(tmp_path, dag) == []


# -- RJ006: an in-house subclass of an operator that always defers ------------------------------

_TEAM_OPERATORS = """
    from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
    from astronomer.providers.databricks.operators.databricks import DatabricksRunNowOperatorAsync


    class TeamRunNow(DatabricksRunNowOperatorAsync):
        ui_color = "#fff"


    class TeamRunNowSync(DatabricksRunNowOperator):
        ui_color = "#fff"
"""


def _review_team(tmp_path, operator: str):
    dag = f"""
        from datetime import datetime

        from airflow import DAG

        from plugins.team_operators import {operator}

        with DAG("team", start_date=datetime(2026, 1, 1)):
            {operator}(task_id="go", job_id=1, wait_for_termination=False)
    """
    paths = write(tmp_path, {"plugins/team_operators.py": _TEAM_OPERATORS, "dags/team.py": dag})
    return relative(tmp_path, review_files(paths, [RULES_BY_CODE["RJ006"]]))


def test_a_plugins_subclass_of_an_async_operator_with_the_wait_switched_off(tmp_path):
    assert _review_team(tmp_path, "TeamRunNow") == [("dags/team.py", 9, "RJ006")]


def test_near_miss_a_plugins_subclass_of_an_operator_that_does_not_defer(tmp_path):
    assert _review_team(tmp_path, "TeamRunNowSync") == []


# -- RJ005: a factory of tasks/ whose task id is a constant of config.py -----------------------

_GLUE_FACTORY = """
    from airflow.providers.amazon.aws.operators.glue import GlueJobOperator

    from config import GLUE_JOB, SUBMIT_ID


    def start_etl():
        return GlueJobOperator(task_id=SUBMIT_ID, job_name=GLUE_JOB, wait_for_completion=False)
"""


def _review_glue(tmp_path, pulled: str):
    dag = f"""
        from datetime import datetime

        from airflow import DAG
        from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor

        from config import GLUE_JOB, SUBMIT_ID
        from tasks.glue import start_etl

        with DAG("etl", start_date=datetime(2026, 1, 1)):
            start = start_etl()
            wait = GlueJobSensor(
                task_id="wait", job_name=GLUE_JOB, run_id=f"{{{{{{{{ ti.xcom_pull(task_ids='{pulled}') }}}}}}}}"
            )
            start >> wait
    """
    config = 'GLUE_JOB = "nightly_etl"\nSUBMIT_ID = "start_etl"\nOTHER_ID = "audit"\n'
    paths = write(
        tmp_path,
        {
            "dags/config.py": config,
            "dags/tasks/__init__.py": "",
            "dags/tasks/glue.py": _GLUE_FACTORY,
            "dags/etl.py": dag,
        },
    )
    return relative(tmp_path, review_files(paths, [RULES_BY_CODE["RJ005"]]))


def test_a_factory_task_id_imported_from_config_joins_the_sensor_pulling_it(tmp_path):
    assert _review_glue(tmp_path, "{SUBMIT_ID}") == [("dags/etl.py", 11, "RJ005")]


def test_near_miss_the_sensor_pulls_another_task(tmp_path):
    assert _review_glue(tmp_path, "{OTHER_ID}") == []


# -- messages: a template read through var.value.get() is shown as written ---------------------


def test_a_template_read_with_a_default_is_named_as_written_in_the_message():
    source = """
        from datetime import datetime

        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.bash import BashOperator
        from airflow.operators.python import PythonOperator


        def bump(data_interval_end, **context):
            Variable.set("orders_last_loaded_at", data_interval_end.isoformat())


        with DAG("orders", start_date=datetime(2026, 1, 1)):
            load = BashOperator(
                task_id="load", bash_command="load.sh {{ var.value.get('orders_last_loaded_at', '1970') }}"
            )
            load >> PythonOperator(task_id="bump", python_callable=bump)
    """
    findings = review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ004"]])
    messages = {f.line: f.message for f in findings}
    assert sorted(messages) == [11, 16]
    assert messages[16].startswith("{{ var.value.get('orders_last_loaded_at') }} reads a watermark")


# -- RJ003: a filtered listing returned by a helper the operator calls --------------------------

_LISTING_HELPER = """
    from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator
    from kubernetes import client


    def _existing(namespace, run_id):
        api = client.BatchV1Api()
        return api.list_namespaced_job(namespace, label_selector=f"airflow-run={run_id}").items


    class IdempotentPodOperator(KubernetesPodOperator):
        def execute(self, context):
            jobs = _existing(self.namespace, context["run_id"])
            if jobs:
                self.log.info("found %s", jobs[0].metadata.name)
                return None
            NOT_FOUND
"""


def test_a_helper_returning_a_filtered_listing_before_the_parent_execute():
    source = _LISTING_HELPER.replace("NOT_FOUND", "return KubernetesPodOperator.execute(self, context)")
    assert found(source, "RJ003") == [(14, "RJ003")]


def test_near_miss_the_helper_listing_only_reports_what_it_found():
    source = _LISTING_HELPER.replace("NOT_FOUND", 'self.log.info("nothing running")')
    assert found(source, "RJ003") == []


# -- RJ005: a SageMaker request built by a helper of the file ----------------------------------

_REQUEST_BUILDER = """
    from datetime import datetime

    from airflow import DAG
    from airflow.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator
    from airflow.providers.amazon.aws.sensors.sagemaker import SageMakerTrainingSensor

    CHURN = "churn-{{ ds_nodash }}"
    UPSELL = "upsell-{{ ds_nodash }}"


    def training_config(name, role="arn:aws:iam::1:role/sm"):
        return {"TrainingJobName": name, "RoleArn": role}


    with DAG("models", start_date=datetime(2026, 1, 1)):
        train = SageMakerTrainingOperator(
            task_id="train", config=training_config(CHURN), wait_for_completion=False
        )
        wait = SageMakerTrainingSensor(task_id="wait", job_name=WAITED)
        train >> wait
"""


def test_a_sagemaker_job_named_through_a_request_builder_joins_its_sensor():
    assert found(_REQUEST_BUILDER.replace("WAITED", "CHURN"), "RJ005") == [(17, "RJ005")]


def test_near_miss_the_sensor_waits_for_another_job_than_the_builder_names():
    assert found(_REQUEST_BUILDER.replace("WAITED", "UPSELL"), "RJ005") == []
