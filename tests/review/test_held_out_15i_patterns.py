"""Patterns the held-out batch "held-out-15i" showed the reviewer had missed, as positives and
near misses of our own writing: DAG files (the kind a low-code tool generates) whose every task
is made by a factory function of another module, one module per factory, gathered by a package
``__init__`` with star imports (``from .submit_step import *``), each factory importing its
operator class inside its own body. The submit's wait flags and the sensor's XCom template are
in those modules, not in the DAG file.
"""

from __future__ import annotations

import os
import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_files


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def review(root, *codes: str) -> list[tuple[str, int, str]]:
    rules = [RULES_BY_CODE[c] for c in codes or ("RJ005",)]
    result = review_files([str(root / "dags" / "pipeline.py")], rules)
    return [(os.path.relpath(f.path, root), f.line, f.code) for f in result.findings]


_PIPELINE = """
    import os
    import sys
    from datetime import datetime

    from airflow import DAG

    sys.path.insert(0, os.path.dirname(__file__))
    from steps import run_report, watch_report

    with DAG("reports", start_date=datetime(2026, 1, 1), schedule="@daily"):
        report = run_report()
        watched = watch_report()
        report >> watched
"""

_PACKAGE = """
    from .run_report import *
    from .watch_report import *
"""


def _submit(flags: str = "") -> str:
    return f"""
        def run_report():
            from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator

            options = {{}}
            return EmrAddStepsOperator(
                task_id="run_report",
                job_flow_id="j-REPORTS",
                steps=[{{"Name": "report", "HadoopJarStep": {{"Jar": "command-runner.jar"}}}}],{flags}
                **options,
            )
    """


def _sensor(pulled: str = "run_report") -> str:
    return f"""
        def watch_report():
            from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor

            return EmrStepSensor(
                task_id="watch_report",
                job_flow_id="j-REPORTS",
                step_id="{{{{ ti.xcom_pull('{pulled}')[0] }}}}",
            )
    """


def _tree(tmp_path, submit: str, sensor: str) -> None:
    write(
        tmp_path,
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "dags/pipeline.py": _PIPELINE,
            "dags/steps/__init__.py": _PACKAGE,
            "dags/steps/run_report.py": submit,
            "dags/steps/watch_report.py": sensor,
        },
    )


def test_factories_gathered_by_star_imports_make_a_submit_and_its_sensor(tmp_path):
    _tree(tmp_path, _submit(), _sensor())
    assert review(tmp_path) == [("dags/pipeline.py", 12, "RJ005")]


def test_a_factory_whose_construction_waits_is_a_near_miss(tmp_path):
    _tree(tmp_path, _submit("\n                wait_for_completion=True,"), _sensor())
    assert review(tmp_path) == []


def test_a_wait_flag_computed_in_the_factory_module_is_not_guessed(tmp_path):
    _tree(tmp_path, _submit("\n                wait_for_completion=bool(options),"), _sensor())
    assert review(tmp_path) == []


def test_a_sensor_factory_that_pulls_another_tasks_xcom_is_a_near_miss(tmp_path):
    _tree(tmp_path, _submit(), _sensor(pulled="make_cluster"))
    assert review(tmp_path) == []


def test_a_star_import_that_does_not_define_the_name_resolves_nothing(tmp_path):
    _tree(tmp_path, _submit(), _sensor())
    (tmp_path / "dags" / "steps" / "__init__.py").write_text("from .run_report import *\n")
    (tmp_path / "dags" / "steps" / "watch_report.py").unlink()
    assert review(tmp_path) == []


_GLUE_FACTORIES = """
    from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
    from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor


    def start_load(task_id):
        return GlueJobOperator(task_id=task_id, job_name="load_orders", wait_for_completion=False{extra})


    def await_load():
        return GlueJobSensor(
            task_id="await_load",
            job_name="load_orders",
            run_id="{{{{ task_instance.xcom_pull(task_ids='load') }}}}",
        )
"""

_GLUE_PIPELINE = """
    from datetime import datetime

    from airflow import DAG
    from helpers.glue_tasks import await_load, start_load

    with DAG("orders", start_date=datetime(2026, 1, 1), schedule="@daily"):
        start_load("load") >> await_load()
"""


def test_wait_flag_inside_an_imported_factory_is_read_from_its_module(tmp_path):
    write(
        tmp_path,
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "dags/pipeline.py": _GLUE_PIPELINE,
            "dags/helpers/__init__.py": "",
            "dags/helpers/glue_tasks.py": _GLUE_FACTORIES.format(extra=""),
        },
    )
    assert review(tmp_path) == [("dags/pipeline.py", 8, "RJ005")]


def test_deferrable_with_the_wait_off_in_a_factory_module_is_reported_there_once(tmp_path):
    write(
        tmp_path,
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "dags/pipeline.py": _GLUE_PIPELINE,
            "dags/helpers/__init__.py": "",
            "dags/helpers/glue_tasks.py": _GLUE_FACTORIES.format(extra=", deferrable=True"),
        },
    )
    paths = [str(tmp_path / "dags" / "pipeline.py"), str(tmp_path / "dags" / "helpers" / "glue_tasks.py")]
    result = review_files(paths, [RULES_BY_CODE["RJ006"]])
    assert [(os.path.relpath(f.path, tmp_path), f.code) for f in result.findings] == [
        ("dags/helpers/glue_tasks.py", "RJ006")
    ]
