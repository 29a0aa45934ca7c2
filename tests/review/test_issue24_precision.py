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
