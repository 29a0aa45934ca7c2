"""Shapes of blind batch "held-out-24l" (our own code, no third-party code), each with a near miss.

The batch missed one RJ005 finding: a helper that builds a job submit and its sensor, where the
submit's task id is a name bound once to an f-string around a parameter (``submit_id =
f"{stage}-submit"``, ``task_id=submit_id``) and the sensor's template inserts that same name into
an ``xcom_pull`` (``f"{{{{ ti.xcom_pull(task_ids='{submit_id}') }}}}"``). Neither id is known as
text, so the pull named no task. One binding is one value, so the two are now the same task when
the name is bound once in its scope (a function's local or a module name) and not in a loop of it;
a template held in a name bound once is read as that template (see docs/review.md, RJ005).
"""

from __future__ import annotations

import textwrap

import pytest

from resumable_jobs.review import RULES_BY_CODE, review_source

from .sources import found


def _rj005(source: str, include_uncertain: bool = False):
    return review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ005"]], include_uncertain)


# -- a helper whose submit's task id is a local name the sensor's template inserts ----------------

_STAGE = """
    from airflow import DAG
    from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
    from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor

    def nightly_stage(dag, stage, cluster):
        submit_id = f"{stage}-submit"
        submit = EmrAddStepsOperator(dag=dag, task_id=submit_id, job_flow_id=cluster, steps=[])
        done = EmrStepSensor(
            dag=dag,
            task_id=f"{stage}-done",
            job_flow_id=cluster,
            step_id=f"{{{{ ti.xcom_pull(task_ids='PULLED')[0] }}}}",
        )
        submit >> done
        return done
"""


def test_a_sensor_pulling_the_name_a_local_task_id_is_bound_to_is_on_that_submit():
    [finding] = _rj005(_STAGE.replace("PULLED", "{submit_id}"))
    assert (finding.line, finding.code) == (8, "RJ005")
    assert finding.message.startswith("'{}-submit' does not wait") and "'{}-done' waits" in finding.message


_LOCAL_ID = '        submit_id = f"{stage}-submit"\n'


@pytest.mark.parametrize(
    "edits",
    [
        # the template inserts another name, bound once too
        [("PULLED", "{probe_id}"), (_LOCAL_ID, _LOCAL_ID + '        probe_id = f"{stage}-probe"\n')],
        # the name is only part of the pulled id: another task
        [("PULLED", "{submit_id}-retry")],
        # the name is the XCom key, not the task id
        [("task_ids='PULLED'", "task_ids='{stage}-probe', key='{submit_id}'")],
        # the name is bound twice: no one value, no one task
        [
            ("PULLED", "{submit_id}"),
            (_LOCAL_ID, _LOCAL_ID + '        if stage == "late":\n            submit_id = f"{stage}-late"\n'),
        ],
        # a parameter given as the task id is not followed (the caller decides it)
        [("PULLED", "{submit_id}"), ("stage, cluster):", "stage, cluster, submit_id):"), (_LOCAL_ID, "")],
    ],
    ids=["another-name", "part-of-the-id", "the-key", "bound-twice", "a-parameter"],
)
def test_near_miss_of_a_pull_of_a_local_name(edits):
    source = _STAGE
    for old, new in edits:
        assert old in source
        source = source.replace(old, new)
    assert found(source, "RJ005") == []


# -- a module name bound to an f-string of constants -------------------------------------------------

_MODULE = """
    from airflow import DAG
    from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
    from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor

    JOB = "orders_compaction"
    RUN_ID = f"{JOB}_run"

    with DAG("compaction", schedule="@daily"):
        run = GlueJobOperator(task_id=RUN_ID, job_name=JOB, wait_for_completion=False)
        ran = GlueJobSensor(task_id="ran", job_name=JOB, run_id=f"{{{{ ti.xcom_pull(task_ids='{RUN_ID}') }}}}")
        run >> ran
"""


def test_a_module_name_bound_to_an_f_string_of_constants_links_the_pull():
    [finding] = _rj005(_MODULE)
    assert (finding.line, finding.code) == (10, "RJ005")
    assert finding.message.startswith("'{}_run' does not wait (wait_for_completion=False)")


_LOOPED = """
    from airflow import DAG
    from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
    from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor

    with DAG("compaction", schedule="@daily"):
        for table in ("orders", "refunds"):
            step_id = f"{table}_step"
            add = EmrAddStepsOperator(task_id=step_id, job_flow_id="j-compact", steps=[])
        done = EmrStepSensor(task_id="done", job_flow_id="j-compact", step_id=f"{{{{ ti.xcom_pull(task_ids='{step_id}') }}}}")
        add >> done
"""


def test_the_same_pair_with_the_name_bound_once_outside_the_loop_is_linked():
    source = _LOOPED.replace('for table in ("orders", "refunds"):', 'if True:\n            table = "orders"')
    assert found(source, "RJ005") == [(10, "RJ005")]


def test_near_miss_a_module_name_bound_in_a_loop_is_bound_again_on_every_pass():
    assert found(_LOOPED, "RJ005") == []


def test_near_miss_a_loop_variable_given_as_the_task_id():
    source = """
        from airflow import DAG
        from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
        from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor

        with DAG("compaction", schedule="@daily"):
            for step_id in ("orders_step", "refunds_step"):
                add = EmrAddStepsOperator(task_id=step_id, job_flow_id="j-compact", steps=[])
                done = EmrStepSensor(
                    task_id=f"{step_id}_done",
                    job_flow_id="j-compact",
                    step_id=f"{{{{ ti.xcom_pull(task_ids='{step_id}') }}}}",
                )
                add >> done
    """
    assert found(source, "RJ005") == []


# -- the template held in a name, inside a task group ----------------------------------------------

_GROUPED = """
    from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
    from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
    from airflow.utils.task_group import TaskGroup

    def transform_group(dag, name, cluster):
        submit_id = f"{name}_add"
        with TaskGroup(group_id=f"{name}_transform", dag=dag) as group:
            add = EmrAddStepsOperator(dag=dag, task_id=submit_id, job_flow_id=cluster, steps=[])
            pulled = f"{{{{ ti.xcom_pull(task_ids='{submit_id}')[0] }}}}"
            watch = EmrStepSensor(dag=dag, task_id=f"{name}_watch", job_flow_id=cluster, step_id=pulled)
            add >> watch
        return group
"""


def test_a_template_held_in_a_name_pulling_the_bare_name_inside_a_task_group():
    assert found(_GROUPED, "RJ005") == [(9, "RJ005")]


def test_near_miss_a_template_name_bound_twice_says_nothing():
    source = _GROUPED.replace(
        "            watch =",
        '            if name == "raw":\n                pulled = "{{ params.step }}"\n            watch =',
    )
    assert found(source, "RJ005") == []


def test_a_bare_literal_pull_inside_a_task_group_is_still_linked_as_before():
    # unchanged behaviour (passes before this change too): a pull of the id as written, inside the
    # group, names the submit; a group id that is not a literal gives no qualified id to match
    inline = _GROUPED.replace("task_id=submit_id", 'task_id="add"').replace("step_id=pulled", "step_id=PULLED")
    inline = inline.replace("            pulled = f\"{{{{ ti.xcom_pull(task_ids='{submit_id}')[0] }}}}\"\n", "")
    assert found(inline.replace("PULLED", "\"{{ ti.xcom_pull(task_ids='add')[0] }}\""), "RJ005") == [(9, "RJ005")]
    assert found(inline.replace("PULLED", "\"{{ ti.xcom_pull(task_ids='raw_transform.add')[0] }}\""), "RJ005") == []


def test_a_literal_template_held_in_a_name_is_read_as_written_in_the_call():
    source = _GROUPED.replace("task_id=submit_id", 'task_id="add"').replace(
        "pulled = f\"{{{{ ti.xcom_pull(task_ids='{submit_id}')[0] }}}}\"",
        "pulled = \"{{ ti.xcom_pull(task_ids='add')[0] }}\"",
    )
    assert found(source, "RJ005") == [(9, "RJ005")]
    assert found(source.replace("task_ids='add'", "task_ids='other'"), "RJ005") == []


# -- a sensor of another service stays at the uncertain level ----------------------------------------


def test_a_sensor_of_another_service_pulling_the_name_is_held_back_with_its_reason():
    source = """
        from airflow import DAG
        from airflow.providers.amazon.aws.operators.batch import BatchOperator
        from airflow.providers.amazon.aws.sensors.s3 import S3KeySensor

        def export_stage(dag, table):
            submit_id = f"export_{table}"
            export = BatchOperator(
                dag=dag, task_id=submit_id, job_name=table, job_queue="q", job_definition="d",
                wait_for_completion=False,
            )
            landed = S3KeySensor(
                dag=dag,
                task_id=f"landed_{table}",
                bucket_key=f"s3://exports/{{{{ ti.xcom_pull(task_ids='{submit_id}') }}}}/_SUCCESS",
            )
            export >> landed
    """
    assert _rj005(source) == []
    [held] = _rj005(source, include_uncertain=True)
    assert (held.line, held.code) == (8, "RJ005")
    assert "'landed_{}' watches a key, not the job 'export_{}' submits" in held.uncertain


def test_near_miss_a_factory_local_name_is_not_the_dag_scope_name_of_the_same_spelling():
    source = """
        from airflow import DAG
        from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
        from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor

        PREFIX = "ledger"

        def add_step(dag):
            step_name = f"{PREFIX}_add"
            return EmrAddStepsOperator(dag=dag, task_id=step_name, job_flow_id="j-1", steps=[])

        with DAG("ledger", schedule=None) as dag:
            step_name = f"{PREFIX}_other"
            add = add_step(dag)
            watch = EmrStepSensor(task_id="watch", job_flow_id="j-1", step_id=f"{{{{ ti.xcom_pull(task_ids='{step_name}') }}}}")
            add >> watch
    """
    assert found(source, "RJ005") == []
