"""Shapes of blind batch "held-out-24af" (our own code, no third-party code), each with a near miss.

The batch showed one gap: an in-house sensor (or operator) whose class lives in another module
of the tree (``plugins/``, imported as a module or through Airflow 1's plugin namespace) reads a
Variable in ``poke()``; the DAG file builds it as a task, and another task of that DAG writes the
key. The class's ``poke``/``execute`` is the code of the task built from it, as it is for a class
written in the DAG file, so the read and the write are a marker between two tasks (RJ001).
"""

from __future__ import annotations

from resumable_jobs.review import RULES_BY_CODE, review_files

from .sources import relative, write

_RULES = [RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]]

_SENSOR = """
    from airflow.models import Variable
    from airflow.sensors.base import BaseSensorOperator

    class ExportReadySensor(BaseSensorOperator):
        def poke(self, context):
            return Variable.get("export_status") == "ready"
"""

#: the DAG waits on the sensor, then a task resets the key for the next run
_DAG = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator
    IMPORT

    def rearm():
        Variable.set("export_status", "pending")

    with DAG("export", schedule="@daily"):
        wait = ExportReadySensor(task_id="wait_for_export")
        again = PythonOperator(task_id="rearm", python_callable=rearm)
        wait >> again
"""

#: a DAG that only waits: none of its tasks writes the key
_WAIT_ONLY = """
    from airflow import DAG
    IMPORT

    with DAG("export_watch", schedule="@daily"):
        ExportReadySensor(task_id="wait_for_export")
"""


def _review(tmp_path, dag: str, sensor_path: str, import_line: str):
    files = {"dags/export.py": dag.replace("IMPORT", import_line), sensor_path: _SENSOR}
    return relative(tmp_path, review_files(write(tmp_path, files), _RULES))


def test_a_plugin_sensor_reading_a_key_another_task_writes_is_a_marker(tmp_path):
    found = _review(tmp_path, _DAG, "plugins/export_sensors.py", "from plugins.export_sensors import ExportReadySensor")
    assert found == [("dags/export.py", 8, "RJ001"), ("plugins/export_sensors.py", 7, "RJ001")]


def test_the_same_through_airflow_1_plugin_namespace(tmp_path):
    found = _review(
        tmp_path, _DAG, "plugins/export_sensors.py", "from airflow.sensors.export_plugin import ExportReadySensor"
    )
    assert found == [("dags/export.py", 8, "RJ001"), ("plugins/export_sensors.py", 7, "RJ001")]


def test_a_dag_that_only_waits_on_the_sensor_gives_nothing(tmp_path):
    found = _review(
        tmp_path, _WAIT_ONLY, "plugins/export_sensors.py", "from plugins.export_sensors import ExportReadySensor"
    )
    assert found == []


def test_a_class_built_without_a_task_id_is_no_task(tmp_path):
    # the same class built as a plain object at parse time (no task_id): not a task of the DAG
    dag = _DAG.replace('ExportReadySensor(task_id="wait_for_export")', "ExportReadySensor(poke_interval=30)")
    found = _review(tmp_path, dag, "plugins/export_sensors.py", "from plugins.export_sensors import ExportReadySensor")
    assert found == []
