"""Patterns of the held-out batch "held-out-15h" (Variables kept as state), as positives and near
misses of our own writing. The reviewer found every expected finding blind; the one wrong finding
was a DAG file that only reads, through a template, a counter another DAG file of the tree moves on
under a key whose name says nothing: that DAG reads a value the other one publishes, not its own
run state. A neutral counter is now run state only in the DAG file whose task moves it on (or
the helpers that file's tasks run); keys that name a cursor keep being reported wherever they are
read once some task writes them.
"""

from __future__ import annotations

import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_files, review_source
from tests.review.sources import relative, write


def found(source: str) -> list[tuple[int, str]]:
    rules = [RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]]
    return [(f.line, f.code) for f in review_source(textwrap.dedent(source), "dag.py", rules)]


# A weekly DAG that bumps a round number kept in a Variable and hands it to a script.
_BUMPER = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.bash import BashOperator
    from airflow.operators.python import PythonOperator


    def bump_round():
        week = int(Variable.get("league_round", default_var=0))
        Variable.set("league_round", week + 1)


    with DAG("league_roundly") as dag:
        bump = PythonOperator(task_id="bump", python_callable=bump_round)
        report = BashOperator(task_id="report", bash_command="report.sh {{ var.value.league_round }}")
        bump >> report
"""

_READER = """
    from airflow import DAG
    from airflow.operators.bash import BashOperator

    with DAG("league_fixtures") as dag:
        BashOperator(task_id="fixtures", bash_command="fixtures.sh {{ var.value.get('league_round') }}")
"""


def test_counter_bumped_by_one_task_and_read_by_another_of_the_same_dag():
    assert found(_BUMPER) == [(9, "RJ001"), (10, "RJ001"), (15, "RJ001")]


def test_counter_read_by_a_dag_file_that_never_moves_it_on_is_a_near_miss(tmp_path):
    paths = write(tmp_path, {"dags/weekly.py": _BUMPER, "dags/fixtures.py": _READER})
    assert relative(tmp_path, review_files(paths)) == [
        ("dags/weekly.py", 9, "RJ001"),
        ("dags/weekly.py", 10, "RJ001"),
        ("dags/weekly.py", 15, "RJ001"),
    ]


def test_counter_moved_on_by_a_helper_another_module_keeps_for_the_dag(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/common/__init__.py": "",
            "dags/common/rounds.py": """
                from airflow.models import Variable

                def bump_round():
                    week = int(Variable.get("league_round", default_var=0))
                    Variable.set("league_round", week + 1)
            """,
            "dags/weekly.py": """
                from airflow import DAG
                from airflow.operators.bash import BashOperator
                from airflow.operators.python import PythonOperator
                from common.rounds import bump_round

                with DAG("league_roundly") as dag:
                    bump = PythonOperator(task_id="bump", python_callable=bump_round)
                    report = BashOperator(task_id="report", bash_command="report.sh {{ var.value.league_round }}")
                    bump >> report
            """,
            "dags/fixtures.py": _READER,
        },
    )
    assert relative(tmp_path, review_files(paths)) == [
        ("dags/common/rounds.py", 5, "RJ001"),
        ("dags/common/rounds.py", 6, "RJ001"),
        ("dags/weekly.py", 9, "RJ001"),
    ]


def test_a_cursor_key_is_still_reported_where_another_dag_file_reads_it(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/export.py": """
                from airflow import DAG
                from airflow.models import Variable
                from airflow.operators.python import PythonOperator

                def export_page():
                    Variable.set("orders_cursor", "page-7")

                with DAG("export") as dag:
                    PythonOperator(task_id="export", python_callable=export_page)
            """,
            "dags/audit.py": """
                from airflow import DAG
                from airflow.operators.bash import BashOperator

                with DAG("audit") as dag:
                    BashOperator(task_id="audit", bash_command="audit.sh {{ var.value.orders_cursor }}")
            """,
        },
    )
    assert relative(tmp_path, review_files(paths)) == [("dags/audit.py", 6, "RJ001"), ("dags/export.py", 7, "RJ001")]


def test_flag_and_table_names_read_as_configuration_are_near_misses():
    source = """
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import BranchPythonOperator, PythonOperator

        TARGET = Variable.get("target_table")

        def choose():
            return "full" if Variable.get("full_refresh_enabled") == "yes" else "incremental"

        with DAG("config_only") as dag:
            branch = BranchPythonOperator(task_id="branch", python_callable=choose)
            load = PythonOperator(task_id="full", python_callable=print, op_args=[TARGET])
            branch >> load
    """
    assert found(source) == []
