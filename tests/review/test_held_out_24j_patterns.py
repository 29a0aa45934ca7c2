"""Shapes of blind batch "held-out-24j" (our own code, no third-party code), each with a near miss.

Two gaps of the batch, changed generally (see docs/review.md, RJ001 and RJ004):

- a counter one task reads in a helper it calls (``_next_page()`` reads the key, the task writes
  the next value) was reported as a marker one task writes and another reads: a read in a helper
  that only the writing task runs is now that task's own read, and a value the task writes from
  what such a helper returns is moved on by it. ``accessed`` (and ``read``, ``consumed``,
  ``downloaded``, ``scraped``, ``crawled``, ``polled``) now make ``last_<verb>_<thing>`` a position
  in a sequence of things, decided by its use like ``last_processed_<thing>``;
- ``wm``, the short form of watermark, is a watermark as a whole word of a key that one task both
  reads and writes back (``f"wm_{table}"``), not when it is only read (``wm_theme``) nor inside
  another word (``wmata_station``).
"""

from __future__ import annotations

import textwrap

import pytest

from resumable_jobs.review import RULES_BY_CODE, review_files, review_source

from .sources import found, relative, write

_OWN = "the task's own progress"
_MARKER = "a marker one task writes and another reads"
_MOVED_ON = "a value a task moves on from run to run"


def _messages(source: str, *codes: str) -> list[tuple[int, str, str]]:
    rules = [RULES_BY_CODE[c] for c in codes]
    return [(f.line, f.code, f.message) for f in review_source(textwrap.dedent(source), "dag.py", rules)]


# -- a read in a helper the writing task calls is that task's read ---------------------------------

_HELPER_READ = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator


    def _next_page():
        page = int(Variable.get("KEY", default_var=0))
        return page + 1


    def harvest():
        page = _next_page()
        store_page(download(page))
        Variable.set("KEY", page)


    with DAG("harvest") as dag:
        PythonOperator(task_id="harvest", python_callable=harvest)
"""


def test_a_position_read_in_a_helper_the_writing_task_calls_is_its_own_progress():
    messages = _messages(_HELPER_READ.replace("KEY", "last_accessed_page"), "RJ001", "RJ004")
    assert [(line, code) for line, code, _ in messages] == [(8, "RJ001"), (15, "RJ001")]
    assert all(_OWN in m and '"last_accessed_page"' in m for _, _, m in messages)


def test_a_key_naming_nothing_read_in_the_writers_helper_is_a_value_it_moves_on():
    messages = _messages(_HELPER_READ.replace("KEY", "page_no"), "RJ001", "RJ004")
    assert [(line, code) for line, code, _ in messages] == [(8, "RJ001"), (15, "RJ001")]
    assert all(_MOVED_ON in m for _, _, m in messages)


_HAND_OFF = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator


    def _current_page():
        return int(Variable.get("KEY", default_var=0))


    def choose():
        Variable.set("KEY", pick_page())


    def harvest():
        store_page(download(_current_page()))


    with DAG("harvest") as dag:
        PythonOperator(task_id="choose", python_callable=choose) >> PythonOperator(
            task_id="harvest", python_callable=harvest
        )
"""


@pytest.mark.parametrize("key", ["page_no", "last_accessed_page"])
def test_near_miss_a_key_one_task_writes_and_another_reads_through_a_helper_stays_a_marker(key):
    messages = _messages(_HAND_OFF.replace("KEY", key), "RJ001", "RJ004")
    assert [(line, code) for line, code, _ in messages] == [(8, "RJ001"), (12, "RJ001")]
    assert all(_MARKER in m for _, _, m in messages)


def test_near_miss_a_helper_the_writer_and_another_task_both_call_is_read_by_that_other_task():
    source = _HELPER_READ.replace("KEY", "page_no").replace(
        'PythonOperator(task_id="harvest", python_callable=harvest)',
        'PythonOperator(task_id="harvest", python_callable=harvest) >> '
        'PythonOperator(task_id="report", python_callable=report)',
    )
    source += "\n    def report():\n        announce(_next_page())\n"
    messages = _messages(source, "RJ001", "RJ004")
    assert [(line, code) for line, code, _ in messages] == [(8, "RJ001"), (15, "RJ001")]
    assert all(_MARKER in m for _, _, m in messages)


def test_copies_of_one_dag_in_two_files_each_move_their_own_position(tmp_path):
    source = _HELPER_READ.replace("KEY", "last_accessed_element")
    paths = write(tmp_path, {"dags/streaming.py": source, "dags/testing_streaming.py": source})
    result = review_files(paths)
    assert relative(tmp_path, result) == [
        ("dags/streaming.py", 8, "RJ001"),
        ("dags/streaming.py", 15, "RJ001"),
        ("dags/testing_streaming.py", 8, "RJ001"),
        ("dags/testing_streaming.py", 15, "RJ001"),
    ]
    assert all(_OWN in f.message for f in result.findings)


# -- verbs that make last_<verb>_<thing> a position ------------------------------------------------

_VERBS = ["accessed", "read", "consumed", "downloaded", "scraped", "crawled", "polled"]

_MOVED_IN_TASK = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="@hourly")
    def feed():
        @task
        def pull():
            item = int(Variable.get("KEY", default_var=0))
            Variable.set("KEY", handle_after(item))

        pull()

    feed()
"""


@pytest.mark.parametrize("verb", _VERBS)
def test_last_verb_thing_moved_on_by_one_task_is_its_own_progress(verb):
    key = f"last_{verb}_item"
    messages = _messages(_MOVED_IN_TASK.replace("KEY", key), "RJ001", "RJ004")
    assert [(line, code) for line, code, _ in messages] == [(9, "RJ001"), (10, "RJ001")]
    assert all(_OWN in m and key in m for _, _, m in messages)


_READS_BACK = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="@daily")
    def audit():
        @task
        def check():
            compare_with(Variable.get("KEY"))

        check()

    audit()
"""


def _moved_on_and_read_back(tmp_path, key: str) -> list[tuple[str, int, str]]:
    """RJ001 and RJ004 over a DAG file whose task moves ``key`` on and one that reads it back."""
    paths = write(
        tmp_path,
        {"dags/feed.py": _MOVED_IN_TASK.replace("KEY", key), "dags/audit.py": _READS_BACK.replace("KEY", key)},
    )
    return relative(tmp_path, review_files(paths, rules=[RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]]))


@pytest.mark.parametrize("verb", _VERBS)
def test_last_verb_thing_another_dag_file_reads_back_is_a_watermark(verb, tmp_path):
    assert _moved_on_and_read_back(tmp_path, f"last_{verb}_item") == [
        ("dags/audit.py", 9, "RJ004"),
        ("dags/feed.py", 9, "RJ004"),
        ("dags/feed.py", 10, "RJ004"),
    ]


@pytest.mark.parametrize("verb", _VERBS)
def test_near_miss_last_verb_thing_a_task_only_reads_is_configuration(verb):
    source = _MOVED_IN_TASK.replace("KEY", f"last_{verb}_item").replace('Variable.set("last', 'print("last')
    assert found(source, "RJ001", "RJ004") == []


@pytest.mark.parametrize("verb", _VERBS)
def test_near_miss_a_count_of_what_was_handled_is_no_position_others_read(verb, tmp_path):
    # a counter its task moves on (RJ001, as before the change), but no watermark others read
    assert _moved_on_and_read_back(tmp_path, f"last_{verb}_count") == [
        ("dags/feed.py", 9, "RJ001"),
        ("dags/feed.py", 10, "RJ001"),
    ]


# -- wm, the short form of watermark ----------------------------------------------------------------

_WM = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator


    def sync_table(table, column):
        mark_key = f"KEY"
        since = Variable.get(mark_key, default_var="1970-01-01 00:00:00")
        cur = connect().cursor()
        cur.execute(newer_than(table, column), (since,))
        rows = cur.fetchall()
        if rows:
            Variable.set(mark_key, newest(rows, column))


    with DAG("sync") as dag:
        for name in list_tables():
            PythonOperator(task_id=f"sync_{name}", python_callable=sync_table, op_args=[name, "updated_at"])
"""


@pytest.mark.parametrize("key", ["wm_{table}", "{table}_wm", "wm_orders", "ordersWm"])
def test_wm_as_a_whole_word_of_a_key_one_task_reads_and_writes_back_is_a_watermark(key):
    messages = _messages(_WM.replace("KEY", key), "RJ001", "RJ004")
    assert [(line, code) for line, code, _ in messages] == [(9, "RJ004"), (14, "RJ004")]
    assert all("a watermark" in m for _, _, m in messages)


@pytest.mark.parametrize("key", ["swm_{table}", "wmata_{table}", "swm_orders", "wmata_station"])
def test_near_miss_wm_inside_another_word_is_no_watermark(key):
    assert found(_WM.replace("KEY", key), "RJ001", "RJ004") == []


def test_near_miss_a_wm_key_a_task_only_reads_is_configuration():
    source = """
        from airflow.decorators import dag, task
        from airflow.models import Variable

        @dag(schedule="@daily")
        def report():
            @task
            def render():
                draw_report(theme=Variable.get("wm_theme", default_var="light"))

            render()

        report()
    """
    assert found(source, "RJ001", "RJ004") == []


def test_near_miss_a_wm_key_one_task_writes_and_another_reads_is_no_watermark_by_its_name():
    source = """
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator


        def stamp():
            Variable.set("wm_orders", pick_cutoff())


        def load():
            copy_orders(since=Variable.get("wm_orders"))


        with DAG("orders") as dag:
            PythonOperator(task_id="stamp", python_callable=stamp) >> PythonOperator(
                task_id="load", python_callable=load
            )
    """
    messages = _messages(source, "RJ001", "RJ004")
    assert [(line, code) for line, code, _ in messages] == [(8, "RJ001"), (12, "RJ001")]
    assert all(_MARKER in m for _, _, m in messages)


_OVERWRITES = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator


    def _seen_page():
        return int(Variable.get("page_no", default_var=0))


    def harvest():
        log_progress(READ)
        page = choose_page(catalogue())
        Variable.set("page_no", page)


    with DAG("harvest") as dag:
        PythonOperator(task_id="harvest", python_callable=harvest)
"""


@pytest.mark.parametrize("read", ["_seen_page()", 'int(Variable.get("page_no", default_var=0))'])
def test_near_miss_a_key_naming_nothing_its_task_reads_and_overwrites_with_another_value_is_silent(read):
    # the task reads the key (in a helper it calls, or in its body) and writes a value that does
    # not come from that read by assignment: nothing shows a value moved on or handed over
    source = _OVERWRITES.replace("READ", read)
    if read != "_seen_page()":  # no helper left that nothing calls (it would be read when parsed)
        source = source.replace(
            _OVERWRITES[_OVERWRITES.index("    def _seen") : _OVERWRITES.index("    def harvest")], ""
        )
    assert found(source, "RJ001", "RJ004") == []
