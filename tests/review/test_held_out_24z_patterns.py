"""Shapes of blind batch "held-out-24z" (our own code, no third-party code), each with a near miss.

Probing the batch's themes showed one gap: a function handed to an operator as ``post_execute=``
(or ``pre_execute=``) runs in that operator's task on every try, like a ``python_callable``, but
its Variable calls were not read as task code. A watermark written there and read back by the
operator's own template was then held back as "nothing in the reviewed tree writes it".
"""

from __future__ import annotations

from .sources import found

_HOOKED = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator

    def remember(context, result):
        HOOK_BODY

    with DAG("invoices", schedule="@hourly"):
        SQLExecuteQueryOperator(
            task_id="load_invoices",
            conn_id="billing",
            sql="select * from invoices where changed_at > '{{ var.value.invoices_high_watermark }}'",
            KEYWORD=remember,
        )
"""

_SAVES = 'Variable.set("invoices_high_watermark", str(max(r[0] for r in result)))'


def _dag(body: str, keyword: str) -> str:
    return _HOOKED.replace("HOOK_BODY", body).replace("KEYWORD", keyword)


def test_a_watermark_written_in_post_execute_and_read_by_the_template_is_reported():
    assert found(_dag(_SAVES, "post_execute"), "RJ001", "RJ004") == [(7, "RJ004"), (13, "RJ004")]


def test_pre_execute_runs_in_the_task_too():
    assert found(_dag(_SAVES, "pre_execute"), "RJ001", "RJ004") == [(7, "RJ004"), (13, "RJ004")]


def test_a_post_execute_that_only_logs_gives_nothing():
    assert found(_dag('print("loaded", len(result))', "post_execute"), "RJ001", "RJ004") == []


def test_a_callback_that_is_not_run_in_the_task_is_not_task_code():
    # a made-up keyword: the operator does not run it as part of the task
    assert found(_dag(_SAVES, "on_render"), "RJ001", "RJ004") == []
