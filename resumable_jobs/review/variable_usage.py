"""How the reviewed tree uses each Variable key, from the records of every file.

Why: whether a Variable holds per-run state often shows only in how it is used, not in its
name: a key one task writes and another task of the same DAG reads is a per-run marker passed
through a global; an offset a task reads and then moves on is progress across runs (a
watermark); a job id nobody writes is configuration. RJ001 and RJ004 share these facts.

How: records (see :mod:`.variables`) from every reviewed file are grouped by key. A key whose
name says nothing is run state when one task of a file writes it and another task of the same
DAG reads it, or when a task writes it with a value computed from what it read (it is moved on
from run to run). A key the reviewer cannot resolve at all is grouped, within one file, by the
expression that builds it (``settings.lock_key`` written by one task and read by another).

What it does not do: follow keys built at run time from unknown parts, or Variables written
outside the reviewed tree (the UI, the CLI, other repositories).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from resumable_jobs.review.keys import abbreviates_a_watermark, names_a_date, names_an_offset
from resumable_jobs.review.reconnect import reconnect_ifs
from resumable_jobs.review.taskgraph import tasks_run_before
from resumable_jobs.review.variables import VariableRecord, function_id, runtime_variable_records

__all__ = ["ProjectFacts", "VariableUsage", "facts_of"]


class ProjectFacts:
    """What every file's review reported for the decisions made over the whole tree: its
    Variable records, and the (function id, key) of the reconnect-or-submit ifs reported as
    RJ003."""

    def __init__(
        self, records: list[VariableRecord] | None = None, reconnects: set[tuple[str, str]] | None = None
    ) -> None:
        self.records: list[VariableRecord] = records if records is not None else []
        self.reconnects: set[tuple[str, str]] = reconnects if reconnects is not None else set()

    def merge(self, other: ProjectFacts) -> None:
        self.records.extend(other.records)
        self.reconnects.update(other.reconnects)
        self.__dict__.pop("_usage", None)

    def usage(self) -> VariableUsage:
        """How the tree uses each key, worked out once for the rules that share it (RJ001, RJ004)."""
        usage = self.__dict__.get("_usage")
        if usage is None:
            usage = self.__dict__["_usage"] = VariableUsage(self.records)
        return usage


def facts_of(index) -> ProjectFacts:
    """What one file reports for the rules decided over the whole tree."""
    return ProjectFacts(
        _with_task_order(index, runtime_variable_records(index)),
        {(function_id(index, found.function), found.key) for found in reconnect_ifs(index)},
    )


def _with_task_order(index, records: list[VariableRecord]) -> list[VariableRecord]:
    """Records of keys naming a date or a time, made in tasks of this file, get the tasks the DAG
    runs before theirs (``upstream``), when each of their tasks has one place in the DAG's order."""
    dated = [r for r in records if r.origin == "code" and r.key and "{}" not in r.key and names_a_date(r.key)]
    if not dated or not any(r.op == "set" for r in records):
        return list(records)
    order = tasks_run_before(index)
    if not order:
        return list(records)
    result = []
    for record in records:
        if record in dated:
            befores = [order.get(task) for task in record.tasks or (record.function,)]
            if befores and None not in befores:
                record = record._replace(upstream=tuple(sorted(frozenset.intersection(*befores))))
        result.append(record)
    return result


class VariableUsage:
    def __init__(self, records: Iterable[VariableRecord]) -> None:
        self.records = sorted(set(records), key=lambda r: (r.path, r.line, r.column, r.op))
        self.writers: dict[str, set[str]] = defaultdict(set)
        self.readers: dict[str, set[str]] = defaultdict(set)
        #: the same, per (file, key)
        self._file_writers: dict[tuple[str, str], set[str]] = defaultdict(set)
        self._file_readers: dict[tuple[str, str], set[str]] = defaultdict(set)
        #: the same for keys known only by the expression that builds them, per (file, source)
        self._expression_writers: dict[tuple[str, str], set[str]] = defaultdict(set)
        self._expression_readers: dict[tuple[str, str], set[str]] = defaultdict(set)
        #: function id -> the DAG of the file whose task runs it, when the file defines several
        self._dag_of: dict[str, str] = {}
        #: offset keys -> the tasks that write them, and those that read them (``record.tasks``)
        self._task_writers: dict[str, set[str]] = defaultdict(set)
        self._task_readers: dict[str, set[str]] = defaultdict(set)
        #: keys of the task instance's identity (``record.identity``) -> the tasks that write
        #: them, and those that read them
        self._identity_writers: dict[str, set[str]] = defaultdict(set)
        self._identity_readers: dict[str, set[str]] = defaultdict(set)
        #: (function id, key) -> the tasks that run the function's calls under the key, when known
        self._tasks_of: dict[tuple[str, str], set[str]] = defaultdict(set)
        for record in self.records:
            if record.identity and record.origin == "code":
                table = self._identity_writers if record.op == "set" else self._identity_readers
                table[record.identity].update(record.tasks or (record.function,))
            if record.tasks and record.key:
                (self._task_writers if record.op == "set" else self._task_readers)[record.key].update(record.tasks)
                self._tasks_of[(record.function, record.key)].update(record.tasks)
            if record.dag:
                self._dag_of[record.function] = record.dag
            if _by_expression(record):
                table = self._expression_writers if record.op == "set" else self._expression_readers
                table[(_file_of(record.function), record.shown_key)].add(record.function)
            if record.key:
                write = record.op == "set"
                (self.writers if write else self.readers)[record.key].add(record.function)
                table = self._file_writers if write else self._file_readers
                table[(_file_of(record.function), record.key)].add(record.function)
                if record.task_file:  # a helper of another module run by a task of that file
                    table[(record.task_file, record.key)].add(record.function)
        self._advanced = self._collect_advanced()

    def written(self, key: str | None) -> bool:
        return bool(key) and key in self.writers

    def advanced_across_runs(self, key: str | None) -> bool:
        """An offset-like key (an offset, a position in a sequence of ids) that one function, or
        one task through its helpers, reads and then writes: progress across runs."""
        return names_an_offset(key) and self.read_and_written_by_one_task(key)

    def read_and_written_by_one_task(self, key: str | None) -> bool:
        """One function, or one task through its helpers (``get_state``/``set_state``), both
        reads and writes the key."""
        if not key:
            return False
        if self.writers.get(key, set()) & self.readers.get(key, set()):
            return True
        return not self._task_writers.get(key, set()).isdisjoint(self._task_readers.get(key, ()))

    def kept_by_its_task(self, record: VariableRecord) -> bool:
        """A key built only from the task instance's identity (``f"{ti.task_id}_{ds}"``) that
        the task running ``record`` both reads and writes under the same expression, in its own
        code or through helpers it runs: that task instance's own state (a checkpoint a retry
        resumes from), whatever the key's words."""
        if not record.identity or record.origin != "code":
            return False
        tasks = set(record.tasks or (record.function,))
        writers = self._identity_writers.get(record.identity, ())
        return not tasks.isdisjoint(writers) and not tasks.isdisjoint(self._identity_readers.get(record.identity, ()))

    def abbreviated_watermark(self, key: str | None) -> bool:
        """A key naming a watermark by its short form (``f"wm_{table}"``) that one task reads and
        writes back: the position of the data it loads, moved on from run to run (RJ004). Only
        read, the short form can name anything (``wm_theme``)."""
        return abbreviates_a_watermark(key) and self.read_and_written_by_one_task(key)

    def read_beyond_its_writers(self, key: str | None) -> bool:
        """Something other than the tasks that write the key reads it: another task, another DAG
        file, or a module when the DAG is parsed. A position only its own task reads back is that
        task's progress (RJ001); one that others read describes the data they share: a
        watermark (RJ004)."""
        if not key:
            return False
        outside = self.__dict__.setdefault("_outside_readers", {})
        found = outside.get(key)
        if found is None:
            writers = self.writers.get(key, set())
            task_writers = self._task_writers.get(key, set())
            found = outside[key] = any(
                r.key == key
                and r.op == "get"
                and r.function not in writers
                and (not r.tasks or task_writers.isdisjoint(r.tasks))
                and r.function not in task_writers
                for r in self._records_of(key)
            )
        return found

    def moving_files(self, key: str | None) -> frozenset[str]:
        """The DAG files whose tasks read the key and then write it (in one function, or in one
        task through its helpers): the files a position is moved on in. A helper of another
        module counts for the file of the task that runs it."""
        if not key:
            return frozenset()
        known = self.__dict__.setdefault("_moving_files", {})
        files = known.get(key)
        if files is None:
            movers = self.writers.get(key, set()) & self.readers.get(key, set())
            task_movers = self._task_writers.get(key, set()) & self._task_readers.get(key, set())
            found = {_file_of(task) for task in task_movers}
            for record in self._records_of(key):
                if record.function in movers:
                    found.add(record.task_file or _file_of(record.function))
            files = known[key] = frozenset(found)
        return files

    def moved_on_in_file_of(self, record: VariableRecord) -> bool:
        """A task of the DAG file ``record`` runs in (its own file, the file whose task runs it
        when it is a helper of another module, or the file of a task that reaches it) reads the
        key and moves it on. A write in a DAG file none of whose tasks read the key (a backfill
        copy setting the position another DAG moves on) is not that file's own progress."""
        files = self.moving_files(record.key)
        return (
            _file_of(record.function) in files
            or (record.task_file or "") in files
            or any(_file_of(task) in files for task in record.tasks)
        )

    def position_planned_from(self, key: str | None) -> bool:
        """An offset or a position in a sequence of ids that a task writes and that a module
        reads when it is parsed, or a function of another file reads: the position of data
        others plan from (which pages the next run fetches), a watermark (RJ004), even when
        the writing task does not read it first. A read by another task of the writer's own
        file is a hand-off within the DAG, left to RJ001."""
        if not key or not names_an_offset(key) or not self.writers.get(key):
            return False
        writer_files = {_file_of(function) for function in self.writers.get(key, ())}
        return any(
            r.op == "get" and (r.origin == "parse" or _file_of(r.function) not in writer_files)
            for r in self._records_of(key)
        )

    def _records_of(self, key: str) -> list[VariableRecord]:
        by_key = self.__dict__.get("_by_key")
        if by_key is None:
            by_key = self.__dict__["_by_key"] = defaultdict(list)
            for record in self.records:
                if record.key:
                    by_key[record.key].append(record)
        return by_key.get(key, [])

    def advanced_in_dag_of(self, record: VariableRecord) -> bool:
        """Some task writes the key with a value computed from what it read under it, and that
        task belongs to the DAG file ``record`` belongs to (its own file, or the
        file whose task runs it when it is a helper of another module). A DAG file that only reads
        a counter another DAG file moves on reads a value that DAG publishes, not its own run
        state; a key whose name says nothing has no other evidence to go on."""
        key = record.key
        if not key or key not in self._advanced:
            return False
        files = self._advanced_files.get(key, set())
        return _file_of(record.function) in files or (record.task_file or "") in files

    def _collect_advanced(self) -> set[str]:
        self._advanced_files: dict[str, set[str]] = defaultdict(set)
        for r in self.records:
            if r.advances and r.key:
                self._advanced_files[r.key].add(_file_of(r.function))
                if r.task_file:
                    self._advanced_files[r.key].add(r.task_file)
        return set(self._advanced_files)

    def date_kept_across_runs(self, key: str | None) -> bool:
        """A key naming a date or time that a task writes and that is read back elsewhere: by
        another function, or by the DAG's modules when they are parsed. That is the DAG's
        position in time, moved on from run to run (``current_date`` set to next week's date,
        read by the config module the next run imports): a watermark, whatever the key is called.
        """
        if not key or "{}" in key or not names_a_date(key):
            return False
        writers = self.writers.get(key)
        return (
            bool(writers)
            and any(reader not in writers for reader in self.readers.get(key, ()))
            and not self.handed_downstream(key)
        )

    def handed_downstream(self, key: str) -> bool:
        """A key that tasks write and that only tasks the same DAG runs after every one of them
        read, in code, the writers not reading it themselves: this run's value handed on (RJ001),
        not a position kept from run to run. Known only when every call's task has one place in
        its DAG's order (``upstream``); a read when the DAG is parsed, in a template, or in a task
        whose order is unknown leaves the key as it was."""
        records = self._records_of(key)
        if any(r.origin != "code" or r.upstream is None for r in records):
            return False
        writing = {t for r in records if r.op == "set" for t in r.tasks or (r.function,)}
        reading = [r for r in records if r.op == "get"]
        return (
            bool(writing)
            and bool(reading)
            and all(writing.isdisjoint(r.tasks or (r.function,)) and writing <= set(r.upstream) for r in reading)
        )

    def passed_between_tasks(self, record: VariableRecord) -> bool:
        """Written in one function and read in another of the same file that a task other than
        the writer runs: a per-run marker (a helper only the writing task calls reads for it).

        A key built from parts the reviewer cannot resolve (``config.lock_key``,
        ``lock_key_for(config.pipeline)``) counts when both calls write the same expression in two
        functions of one file. In a file that defines several DAGs, a key one DAG writes and
        another DAG reads is published between DAGs, as between DAG files, not passed between
        one DAG's tasks."""
        key = record.key
        if _by_expression(record):
            place = (_file_of(record.function), record.shown_key)
            return self._between_tasks(self._expression_writers.get(place, ()), self._expression_readers.get(place, ()))
        if not key or "{}" in key:
            return False
        for file in {_file_of(record.function), record.task_file or ""}:
            writers, readers = self._file_writers.get((file, key), ()), self._file_readers.get((file, key), ())
            if self._between_tasks(writers, readers, key):
                return True
        return False

    def _between_tasks(self, writers, readers, key: str | None = None) -> bool:
        """Some reader is not the writer and runs in a task of the writer's DAG. A read in a
        helper that only the writing tasks run (``_next_page()`` called by the task that then
        writes the key) is those tasks' own read, not another task's."""
        dag_of = self._dag_of
        return any(
            w != r
            and (dag_of.get(w) is None or dag_of.get(r) in (None, dag_of[w]))
            and not self._run_by_writer(w, r, key)
            for w in writers
            for r in readers
        )

    def _run_by_writer(self, writer: str, reader: str, key: str | None) -> bool:
        """Every task that runs the reading function (a helper: the functions that reach it, not
        itself) also runs the writing one."""
        if not key:
            return False
        reading = self._tasks_of.get((reader, key), set()) - {reader}
        return bool(reading) and reading <= self._tasks_of.get((writer, key), set())


def _by_expression(record: VariableRecord) -> bool:
    """A key the reviewer cannot resolve at all, written in the file's own code as an expression
    other than a bare name (a bare name can be a parameter or a loop variable: anything)."""
    return (
        record.key is None
        and record.origin == "code"
        and not record.key_from_caller
        and record.via is None
        and not record.shown_key.isidentifier()
        and record.shown_key != "?"
    )


def _file_of(function_id: str) -> str:
    return function_id.rsplit(":", 2)[0]
