"""Shapes of blind batch "held-out-24k" (our own code, no third-party code), each with a near miss.

The batch's DAG folder kept a retry checkpoint in a Variable through its own helper classes: a
task built an extractor, whose ``__init__`` held a state handler in ``self.state`` and read the
checkpoint through it, and whose methods wrote it back through it, under a key made of the task
id and the run's date. The reviewer missed all four reads and writes, for three independent
reasons, each changed generally (see docs/review.md, issue 24, "held-out-24k"):

- a key built only from the task instance's identity (``f"{ti.task_id}_{ds}"``) has only run-time
  parts, so it was never matched: read and written by the same task under the same expression it
  is that task instance's own state (RJ001);
- a helper class that task code builds runs its ``__init__``: its reads were not followed;
- a helper held in an attribute (``self.state = Keeper(context)`` in ``__init__``, then
  ``self.state.save(...)``) was not followed, in one module or across modules.
"""

from __future__ import annotations

import textwrap

import pytest

from resumable_jobs.review import RULES_BY_CODE, review_files, review_source

from .sources import found, relative, write


def _messages(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ001"]])]


# -- a key of the task instance's identity, read and written by one task ----------------------------

_IDENTITY_IN_TASK = """
    from airflow.sdk import Variable, dag, task

    @dag(schedule="@daily")
    def invoices():
        @task
        def export(ti=None, ds=None):
            resume_key = f"{ti.task_id}_{ds}"
            page = int(Variable.get(resume_key, default=0))
            for page in fetch_pages(start=page):
                Variable.set(resume_key, str(page))

        export()

    invoices()
"""


def test_a_key_of_the_task_instance_s_identity_read_and_written_by_its_task_is_its_own_state():
    messages = _messages(_IDENTITY_IN_TASK)
    assert [line for line, _ in messages] == [9, 11]
    assert all("a key of the task instance's identity ({task_id}_{ds})" in m for _, m in messages)
    [suggestion, *_] = [f.suggestion for f in review_source(textwrap.dedent(_IDENTITY_IN_TASK), "dag.py")]
    assert "the key needs no task id" in suggestion and 'store.get("checkpoint")' in suggestion
    assert "XCom" not in suggestion


@pytest.mark.parametrize(
    "key",
    [
        'context["ti"].task_id + "_" + context["run_id"]',
        '"{}-{}".format(context["task_instance"].task_id, context["logical_date"].strftime("%Y%m%d"))',
        "f\"{context['ti'].task_id}.{context['ti'].map_index}.{context['ds_nodash']}\"",
    ],
)
def test_the_identity_parts_may_come_from_the_context_in_any_spelling(key):
    source = """
        from airflow.decorators import dag, task
        from airflow.models import Variable
        from airflow.operators.python import get_current_context

        @dag(schedule="@daily")
        def invoices():
            @task
            def export():
                context = get_current_context()
                page = Variable.get(KEY, default_var=0)
                for page in fetch_pages(start=page):
                    Variable.set(KEY, str(page))

            export()

        invoices()
    """.replace("KEY", key)
    messages = _messages(source)
    assert [line for line, _ in messages] == [11, 13]
    assert all("a key of the task instance's identity" in m for _, m in messages)


def test_an_operator_s_own_task_id_and_a_helper_it_runs_count_as_its_task():
    source = """
        from airflow.models import BaseOperator, Variable

        def load_page(ti, ds):
            return Variable.get(f"{ti.task_id}__{ds}", default_var=0)

        class PagedExport(BaseOperator):
            def execute(self, context):
                ds = context["ds"]
                page = load_page(context["ti"], ds)
                Variable.set(f"{self.task_id}__{ds}", export_from(page))
    """
    assert found(source, "RJ001") == [(5, "RJ001"), (11, "RJ001")]


def test_near_miss_a_date_keyed_report_a_task_writes_and_nothing_reads_is_silent():
    source = _IDENTITY_IN_TASK.replace('f"{ti.task_id}_{ds}"', 'f"report_{ds}"').replace(
        "page = int(Variable.get(resume_key, default=0))", "page = 0"
    )
    assert _messages(source) == []


@pytest.mark.parametrize(
    "read",
    [
        'Variable.get(f"holidays_{ds}", default=None)',  # the run's date alone: configuration per day
        'Variable.get(f"{ti.task_id}_settings", default=None)',  # the task id alone, read only
    ],
)
def test_near_miss_a_key_of_the_run_s_date_or_the_task_id_that_is_only_read_is_configuration(read):
    source = """
        from airflow.sdk import Variable, dag, task

        @dag(schedule="@daily")
        def invoices():
            @task
            def export(ti=None, ds=None):
                settings = READ
                upload(settings)

            export()

        invoices()
    """.replace("READ", read)
    assert _messages(source) == []


@pytest.mark.parametrize(
    "key",
    [
        'f"{ti.task_id}_{ti.try_number}"',  # a try number: the next try reads another key
        'f"{source}_{ds}"',  # a parameter the caller passes: not the task instance's identity
    ],
)
def test_near_miss_a_key_with_a_part_that_is_not_the_task_instance_s_identity_is_silent(key):
    source = _IDENTITY_IN_TASK.replace('f"{ti.task_id}_{ds}"', key).replace("ti=None", "ti=None, source=None")
    assert _messages(source) == []


def test_near_miss_one_task_writes_and_another_reads_under_a_task_id_key_their_keys_differ():
    source = """
        from airflow.sdk import Variable, dag, task

        @dag(schedule="@daily")
        def invoices():
            @task
            def export(ti=None, ds=None):
                Variable.set(f"{ti.task_id}_{ds}", "done")

            @task
            def report(ti=None, ds=None):
                return Variable.get(f"{ti.task_id}_{ds}", default=None)

            export() >> report()

        invoices()
    """
    assert _messages(source) == []


# -- a helper class task code builds: its __init__ runs in the task ---------------------------------

_INIT_READS = """
    from airflow.sdk import Variable, dag, task

    class Pager:
        def __init__(self):
            self.page = int(Variable.get("invoice_pages_checkpoint", default=0))

        def advance(self):
            self.page += 1
            Variable.set("invoice_pages_checkpoint", str(self.page))

    @dag(schedule="@daily")
    def invoices():
        @task
        def export():
            Pager().advance()

        export()

    invoices()
"""


def test_the_init_of_a_helper_class_a_task_builds_runs_in_the_task():
    assert found(_INIT_READS, "RJ001") == [(6, "RJ001"), (10, "RJ001")]


def test_near_miss_an_init_reading_configuration_is_silent():
    source = _INIT_READS.replace('"invoice_pages_checkpoint", default=0', '"invoice_api_page_size", default=50')
    source = source.replace('Variable.set("invoice_pages_checkpoint", str(self.page))', "upload(self.page)")
    assert found(source, "RJ001") == []


def test_near_miss_an_instance_built_when_the_file_is_parsed_reads_at_parse_time():
    source = _INIT_READS.replace("Pager().advance()", "PAGER.advance()").replace(
        "    @dag(", "    PAGER = Pager()\n\n    @dag("
    )
    # the write runs in the task; the read ran when the DAG file was parsed, not in the task
    assert found(source, "RJ001") == [(10, "RJ001")]


def test_the_init_of_a_helper_class_of_another_module_runs_in_the_task(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/include/__init__.py": "",
            "dags/include/pager.py": _INIT_READS.split("@dag(")[0],
            "dags/invoices.py": """
                from airflow.sdk import dag, task
                from include.pager import Pager

                @dag(schedule="@daily")
                def invoices():
                    @task
                    def export():
                        pager = Pager()
                        pager.advance()

                    export()

                invoices()
            """,
        },
    )
    result = review_files(paths)
    assert relative(tmp_path, result) == [("dags/include/pager.py", 6, "RJ001"), ("dags/include/pager.py", 10, "RJ001")]


# -- a helper held in an attribute that __init__ binds once -------------------------------------------

_KEEPER = """
    from airflow.models import Variable

    class Keeper:
        def __init__(self, context):
            self.context = context
            self.run_date = context.get("ds")

        def load(self):
            ti = self.context["task_instance"]
            key = f"{ti.task_id}_{self.run_date}"
            return int(Variable.get(key, default_var=0))

        def save(self, page):
            ti = self.context["task_instance"]
            key = f"{ti.task_id}_{self.run_date}"
            Variable.set(key, str(page))
"""

_PAGER = """
    class Pager:
        def __init__(self, context):
            self.state = Keeper(context)
            self.page = self.state.load()

        def run(self):
            for self.page in fetch_pages(start=self.page):
                self.state.save(self.page)
"""

_DAG = """
    from airflow.sdk import dag, get_current_context, task
    from include.pager import Pager

    @dag(schedule="@daily")
    def invoices():
        @task
        def export():
            Pager(get_current_context()).run()

        export()

    invoices()
"""


def test_a_helper_held_in_an_attribute_is_followed_in_one_module(tmp_path):
    pager = textwrap.dedent(_KEEPER) + textwrap.dedent(_PAGER)
    paths = write(tmp_path, {"dags/include/__init__.py": "", "dags/include/pager.py": pager, "dags/invoices.py": _DAG})
    result = review_files(paths)
    assert relative(tmp_path, result) == [
        ("dags/include/pager.py", 12, "RJ001"),
        ("dags/include/pager.py", 17, "RJ001"),
    ]
    assert all("({task_id}_{ds})" in f.message for f in result.findings)


def test_a_helper_held_in_an_attribute_is_followed_across_modules(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/include/__init__.py": "",
            "dags/include/state.py": _KEEPER,
            "dags/include/pager.py": "from include.state import Keeper\n" + textwrap.dedent(_PAGER),
            "dags/invoices.py": _DAG,
        },
    )
    assert relative(tmp_path, review_files(paths)) == [
        ("dags/include/state.py", 12, "RJ001"),
        ("dags/include/state.py", 17, "RJ001"),
    ]


@pytest.mark.parametrize(
    "change",
    [
        # bound again elsewhere: which helper the attribute holds is not known
        ("    def run(self):", "    def reset(self):\n        self.state = Keeper(None)\n\n    def run(self):"),
        # bound outside __init__ only
        ("        self.state = Keeper(context)\n        self.page = self.state.load()\n", "        self.page = 0\n"),
    ],
)
def test_near_miss_an_attribute_not_bound_once_in_init_is_not_followed(tmp_path, change):
    pager = textwrap.dedent(_KEEPER).replace("{ti.task_id}_{self.run_date}", "pages_checkpoint")
    pager += textwrap.dedent(_PAGER).replace(*change)
    if "self.page = 0" in pager:
        pager = pager.replace("    def run(self):\n", "    def run(self):\n        self.state = Keeper(None)\n")
    paths = write(tmp_path, {"dags/include/__init__.py": "", "dags/include/pager.py": pager, "dags/invoices.py": _DAG})
    assert relative(tmp_path, review_files(paths)) == []
