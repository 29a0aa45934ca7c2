"""Shapes of blind batch "held-out-24t" (our own code, no third-party code), each with a near miss.

The batch showed one wrong reason: an id position that one DAG file's task reads and moves on (its
own progress, RJ001) was also reported as "the task's own progress, read and moved on by that task"
in a second DAG file whose task only writes it (a backfill copy), because own progress was decided
per key over the whole tree. It is now decided per DAG file: a write in a file none of whose tasks
read the key, and not in a helper that such a moving task runs, is held back at the uncertain level
with what is known (which file's task moves it on), unless another clause reports it on its own
evidence.
"""

from __future__ import annotations

from resumable_jobs.review import RULES_BY_CODE, review_files

from .sources import relative, write

_RULES = [RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]]

#: one task reads the position and moves it on: its own progress
_MOVER = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="@hourly")
    def feed():
        @task
        def pull():
            start = Variable.get("KEY", default_var=0)
            Variable.set("KEY", fetch_after(start))

        pull()

    feed()
"""

#: another DAG file's task only writes it (a backfill setting the position)
_BACKFILL = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule=None)
    def feed_backfill():
        @task
        def pull_window():
            Variable.set("KEY", fetch_window("2024-01-01", "2024-02-01"))

        pull_window()

    feed_backfill()
"""

#: the mover reads the position, and a helper module it runs writes it
_MOVER_WITH_HELPER = _MOVER.replace(
    "from airflow.models import Variable\n",
    "from airflow.models import Variable\n\n    from utils.state import save_position\n",
).replace('Variable.set("KEY", fetch_after(start))', "save_position(fetch_after(start))")

_HELPER = """
    from airflow.models import Variable

    def save_position(value):
        Variable.set("KEY", value)
"""


def _review(tmp_path, files, key, include_uncertain=False):
    paths = write(tmp_path, {name: text.replace("KEY", key) for name, text in files.items()})
    return review_files(paths, _RULES, include_uncertain=include_uncertain)


def _found(tmp_path, result):
    return [
        (path, line, code, f.uncertain) for (path, line, code), f in zip(relative(tmp_path, result), result.findings)
    ]


def test_a_position_one_task_moves_on_is_its_own_progress(tmp_path):
    result = _review(tmp_path, {"a.py": _MOVER}, "feed_last_id")
    assert relative(tmp_path, result) == [("a.py", 9, "RJ001"), ("a.py", 10, "RJ001")]
    assert all("the task's own progress, read and moved on by that task" in f.message for f in result.findings)


def test_a_backfill_file_that_only_writes_it_is_not_reported_by_default(tmp_path):
    result = _review(tmp_path, {"a.py": _MOVER, "b_backfill.py": _BACKFILL}, "feed_last_id")
    assert relative(tmp_path, result) == [("a.py", 9, "RJ001"), ("a.py", 10, "RJ001")]
    assert all("own progress" in f.message for f in result.findings)


def test_the_backfill_write_is_uncertain_with_the_file_that_moves_it_on(tmp_path):
    result = _review(tmp_path, {"a.py": _MOVER, "b_backfill.py": _BACKFILL}, "feed_last_id", include_uncertain=True)
    found = _found(tmp_path, result)
    assert [(p, line, code, reason is not None) for p, line, code, reason in found] == [
        ("a.py", 9, "RJ001", False),
        ("a.py", 10, "RJ001", False),
        ("b_backfill.py", 9, "RJ001", True),
    ]
    backfill = result.findings[2]
    assert backfill.uncertain.startswith("written here; a task of a.py reads it and moves it on")
    assert "a position a task of a.py reads and moves on" in backfill.message
    assert "own progress" not in backfill.message


def test_a_key_whose_name_says_nothing_is_decided_alike(tmp_path):
    # "latest_id": no kind of its own, an id position by its words
    files = {"a.py": _MOVER, "b_backfill.py": _BACKFILL}
    assert relative(tmp_path, _review(tmp_path, files, "latest_id")) == [("a.py", 9, "RJ001"), ("a.py", 10, "RJ001")]
    result = _review(tmp_path, files, "latest_id", include_uncertain=True)
    assert [(p, line, reason is not None) for p, line, _, reason in _found(tmp_path, result)] == [
        ("a.py", 9, False),
        ("a.py", 10, False),
        ("b_backfill.py", 9, True),
    ]


def test_a_write_in_a_helper_the_moving_task_runs_is_still_its_progress(tmp_path):
    files = {"a.py": _MOVER_WITH_HELPER, "utils/state.py": _HELPER, "b_backfill.py": _BACKFILL}
    result = _review(tmp_path, files, "feed_last_id", include_uncertain=True)
    found = [(p, line, code, reason is not None) for p, line, code, reason in _found(tmp_path, result)]
    assert found == [
        ("a.py", 11, "RJ001", False),
        ("b_backfill.py", 9, "RJ001", True),
        ("utils/state.py", 5, "RJ001", False),
    ]
    assert "own progress" in result.findings[2].message


def test_a_strong_cursor_key_written_by_the_backfill_is_still_reported_by_its_name(tmp_path):
    # "cursor" names per-run state by itself: a write of it in a task is reported on that evidence
    result = _review(tmp_path, {"a.py": _MOVER, "b_backfill.py": _BACKFILL}, "cursor")
    assert relative(tmp_path, result) == [("a.py", 9, "RJ001"), ("a.py", 10, "RJ001"), ("b_backfill.py", 9, "RJ001")]
    assert "own progress" not in result.findings[2].message
