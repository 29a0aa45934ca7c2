"""Reviewing source text, files and folders: parse once, run the selected rules, apply noqa.

Why: everything that is not a rule (reading files, reporting files that do not parse,
``# noqa`` comments, choosing rules) lives here, so rules stay pure functions of a module.

How: each file is read as bytes and decoded the way Python does (a coding cookie is
honoured), parsed with :func:`ast.parse`, indexed once, and handed to every selected rule, which
may ask the project index (:mod:`.project`) about names imported from other modules; it also
reports facts (its Variable uses, its reconnect ifs) that the rules decided over the whole
tree (RJ001, RJ004) read once every file is done. Large trees are spread over processes; the
project index and the facts are small plain data, so that costs little. A file that cannot be
read, decoded or parsed, or that a rule fails on, becomes a :class:`FileError`, never an
exception. A finding is dropped when its line carries ``# noqa`` or ``# noqa: <codes>`` naming
its code (the same syntax ruff and flake8 use, so add ``RJ`` to ruff's ``lint.external`` to keep
ruff quiet).

What it does not do: import or execute the reviewed files.
"""

from __future__ import annotations

import ast
import gc
import io
import os
import warnings
from collections.abc import Iterable, Sequence

from resumable_jobs.review.facts import EMPTY_PROJECT, ModuleSummary, ProjectView
from resumable_jobs.review.findings import FileError, Finding, ReviewResult
from resumable_jobs.review.index import ModuleIndex
from resumable_jobs.review.noqa import silences
from resumable_jobs.review.project import ProjectIndex
from resumable_jobs.review.rules import ALL_RULES, Rule
from resumable_jobs.review.summary import summarise_index
from resumable_jobs.review.variable_usage import ProjectFacts, facts_of

__all__ = ["review_file", "review_files", "review_source"]

Analysis = tuple[list[Finding], ProjectFacts]


def review_source(
    source: str, path: str = "<string>", rules: Sequence[Rule] = ALL_RULES, include_uncertain: bool = False
) -> list[Finding]:
    """Findings for one module's source text. Raises SyntaxError if it does not parse.

    ``include_uncertain``: also the findings a rule holds back for want of evidence (each with
    its reason in ``Finding.uncertain``)."""
    findings, facts = analyse_source(source, path, rules)
    return _kept(set(findings) | set(_project_findings(facts, rules)), include_uncertain)


def analyse_source(source: str, path: str, rules: Sequence[Rule], project: ProjectView = EMPTY_PROJECT) -> Analysis:
    """The file's own findings and the facts it reports for the tree-wide rules."""
    tree = _parse(source, path)
    index = ModuleIndex(tree, source, path, project)
    findings = {finding for rule in rules for finding in rule.check(index)}
    facts = facts_of(index) if any(rule.check_project is not None for rule in rules) else ProjectFacts()
    return _without_noqa(findings, source), facts


def review_file(
    path: str, rules: Sequence[Rule] = ALL_RULES, include_uncertain: bool = False
) -> list[Finding] | FileError:
    """Findings for one file, or the reason it could not be reviewed; never raises."""
    outcome = _analyse_file(path, rules, EMPTY_PROJECT)
    if isinstance(outcome, FileError):
        return outcome
    findings, facts = outcome
    return _kept(set(findings) | set(_project_findings(facts, rules)), include_uncertain)


def _kept(findings: Iterable[Finding], include_uncertain: bool) -> list[Finding]:
    """The findings a report shows, sorted: those held back as uncertain only when asked for."""
    return sorted(f for f in findings if include_uncertain or f.uncertain is None)


def _analyse_file(path: str, rules: Sequence[Rule], project: ProjectView) -> Analysis | FileError:
    source = _read(path)
    if isinstance(source, FileError):
        return source
    try:
        return analyse_source(source, path, rules, project)
    except SyntaxError as exc:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        return FileError(path, f"cannot parse: {exc.msg}{where}")
    except (ValueError, RecursionError) as exc:  # null bytes, absurdly deep nesting
        return FileError(path, f"cannot parse: {exc}")
    except Exception as exc:  # noqa: BLE001 - a bug of the reviewer's on code it did not expect
        # One file must not end the review of a whole tree, and must not pass silently either:
        # it is reported as not reviewed (exit code 1), with what to send in a bug report.
        reason = f"{type(exc).__name__}: {exc}"
        return FileError(path, f"not reviewed: the reviewer failed on it ({reason}); please report it")


def _parse(source: str, path: str) -> ast.Module:
    """``ast.parse`` with warnings off: invalid escape sequences in DAG files are not our concern.

    Inside :func:`review_files` the warnings are off for the whole run already (one
    ``catch_warnings`` per run, not one per file).
    """
    if _WARNINGS_OFF:
        return ast.parse(source, filename=path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, filename=path)


#: True while :func:`review_files` holds warnings off for its whole run
_WARNINGS_OFF = False


def _read(path: str) -> str | FileError:
    try:
        raw = _read_bytes(path)
    except OSError as exc:
        return FileError(path, f"cannot read: {exc.strerror or exc}")
    try:
        return _decode(raw)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        # detect_encoding raises SyntaxError for bytes that match no declared encoding
        return FileError(path, f"cannot decode: {getattr(exc, 'msg', None) or exc}")


def _read_bytes(path: str) -> bytes:
    """The file's bytes, through the os module: no buffered file object, a third less time
    per small file than ``open().read()`` (this runs once per reviewed file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        data = os.read(fd, size + 1)
        if len(data) <= size:
            return data
        chunks = [data]  # the file grew since fstat: read on to the end
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _summarise(path: str) -> ModuleSummary | None:
    source = _read(path)
    if isinstance(source, FileError):
        return None
    try:
        tree = _parse(source, path)
        return summarise_index(ModuleIndex(tree, source, path))
    except (SyntaxError, ValueError, RecursionError):
        return None


def review_files(
    paths: Iterable[str], rules: Sequence[Rule] = ALL_RULES, jobs: int = 1, include_uncertain: bool = False
) -> ReviewResult:
    """Review every file; ``jobs`` > 1 spreads large trees over that many processes.

    ``include_uncertain``: also the findings a rule holds back for want of evidence.

    Parallel and serial runs give identical results: each file's findings depend only on the
    file and the project index, and the result is sorted at the end.
    """
    paths = list(paths)
    result = ReviewResult(files_reviewed=len(paths))
    global _WARNINGS_OFF
    thresholds, warnings_were_off = gc.get_threshold(), _WARNINGS_OFF
    # The reviewer allocates many small, short-lived objects (AST nodes) and makes few cycles:
    # collecting rarely saves time, and collecting at all keeps memory bounded.
    gc.set_threshold(_GC_THRESHOLD, *thresholds[1:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # for the whole run: see _parse
        _WARNINGS_OFF = True
        try:
            project = ProjectIndex(paths, _summarise)
            if jobs > 1 and len(paths) >= _PARALLEL_THRESHOLD:
                outcomes: Iterable[Analysis | FileError] = _analyse_in_processes(paths, rules, jobs, project)
            else:
                outcomes = (_analyse_file(path, rules, project) for path in paths)
            facts = ProjectFacts()
            findings: set[Finding] = set()
            for outcome in outcomes:
                if isinstance(outcome, FileError):
                    result.errors.append(outcome)
                else:
                    findings.update(outcome[0])
                    facts.merge(outcome[1])
            findings.update(_project_findings(facts, rules))
            result.findings = _kept(findings, include_uncertain)
        finally:
            _WARNINGS_OFF = warnings_were_off
            gc.set_threshold(*thresholds)
    result.sort()
    return result


def _project_findings(facts: ProjectFacts, rules: Sequence[Rule]) -> list[Finding]:
    return [f for rule in rules if rule.check_project is not None for f in rule.check_project(facts)]


#: Allocations between two youngest-generation collections (CPython's default is 700).
_GC_THRESHOLD = 50_000

#: Below this many files a process pool costs more than it saves.
_PARALLEL_THRESHOLD = 200

#: The project index of the run, inherited by forked workers (or set by their initializer).
_WORKER_PROJECT: ProjectView = EMPTY_PROJECT


def _analyse_in_processes(paths: list[str], rules: Sequence[Rule], jobs: int, project: ProjectView) -> list:
    """Spread the files over ``jobs`` processes, this one included, in the serial order.

    Where ``fork`` exists a child is a bare ``os.fork`` that inherits everything already
    imported and the project index, sends its outcomes back as one pickle through a pipe and
    leaves with ``os._exit`` (no interpreter teardown): no process pool, no pool threads, no
    imports. The files are cut into small batches and every process, this one too, takes the
    next batch when it is done with one (:class:`_BatchQueue`), so a process that other work on
    the machine slows down simply reviews fewer files: a fixed split would make the whole run
    wait for the slowest share. Elsewhere a ``ProcessPoolExecutor`` takes one fixed chunk per
    worker.
    """
    codes = [rule.code for rule in rules]
    if not hasattr(os, "fork"):
        return _analyse_in_pool([paths[i::jobs] for i in range(jobs)], codes, project)
    queue = _BatchQueue(len(paths), jobs)
    global _WORKER_PROJECT
    _WORKER_PROJECT = project
    try:
        try:
            children = [_fork_worker(paths, queue, codes) for _ in range(jobs - 1)]
            done = dict(_analyse_batches(paths, queue, codes))
        finally:
            queue.close()
        for child in children:
            # a child that failed (killed, out of memory) costs time, never results
            done.update(_collect(child) or ())
        for number in range(queue.count):
            if number not in done:  # taken by a child that did not report it
                done[number] = _analyse_chunk(paths[slice(*queue.bounds(number))], codes)
    finally:
        _WORKER_PROJECT = EMPTY_PROJECT
    return [outcome for number in range(queue.count) for outcome in done[number]]


class _BatchQueue:
    """Batch numbers in a pipe, read four bytes at a time by every reviewing process.

    All numbers are written, and the write end closed, before any child is forked, so a read
    returns one whole number (the kernel serialises reads of a pipe) or, once all are taken,
    end of file. About 32 batches per process balance the load; at most 2,048 batches (8 KiB)
    stay within the smallest pipe buffer of the systems that have ``fork``.
    """

    def __init__(self, files: int, jobs: int) -> None:
        self.files = files
        self.size = max(1, -(-files // 2048), min(64, files // (jobs * 32)))
        self.count = -(-files // self.size)
        self._read, write = os.pipe()
        try:
            os.write(write, b"".join(number.to_bytes(4, "little") for number in range(self.count)))
        finally:
            os.close(write)

    def bounds(self, number: int) -> tuple[int, int]:
        return number * self.size, min(self.files, (number + 1) * self.size)

    def take(self) -> int | None:
        raw = os.read(self._read, 4)
        return int.from_bytes(raw, "little") if len(raw) == 4 else None

    def close(self) -> None:
        if self._read >= 0:
            os.close(self._read)
            self._read = -1


def _analyse_batches(paths: list[str], queue: _BatchQueue, codes: list[str]) -> list[tuple[int, list]]:
    """Review batches taken from ``queue`` until none is left: (batch number, outcomes)."""
    done = []
    while (number := queue.take()) is not None:
        done.append((number, _analyse_chunk(paths[slice(*queue.bounds(number))], codes)))
    return done


def _fork_worker(paths: list[str], queue: _BatchQueue, codes: list[str]) -> tuple[int, int] | None:
    """Start a child reviewing batches from ``queue``: (pid, read end of its result pipe), or
    None if fork failed."""
    import pickle

    try:
        read_end, write_end = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:  # the child: review, send, leave without running any cleanup of the parent's
        status = 1
        try:
            os.close(read_end)
            data = memoryview(pickle.dumps(_analyse_batches(paths, queue, codes), protocol=pickle.HIGHEST_PROTOCOL))
            while data:
                data = data[os.write(write_end, data) :]
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _collect(child: tuple[int, int] | None) -> list | None:
    """A child's outcomes, or None when it could not be started or did not finish."""
    import pickle

    if child is None:
        return None
    pid, read_end = child
    chunks = []
    try:
        while block := os.read(read_end, 1 << 20):
            chunks.append(block)
    finally:
        os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        return None
    return pickle.loads(b"".join(chunks))


def _analyse_in_pool(chunks: list[list[str]], codes: list[str], project: ProjectView) -> list:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(
        max_workers=len(chunks) - 1,
        mp_context=multiprocessing.get_context(),
        initializer=_set_worker_project,
        initargs=(project,),
    ) as pool:
        futures = [pool.submit(_analyse_chunk, chunk, codes) for chunk in chunks[1:]]
        global _WORKER_PROJECT
        _WORKER_PROJECT = project
        try:
            parts = [_analyse_chunk(chunks[0], codes), *(future.result() for future in futures)]
        finally:
            _WORKER_PROJECT = EMPTY_PROJECT
    return [outcome for part in parts for outcome in part]


def _set_worker_project(project: ProjectView) -> None:
    global _WORKER_PROJECT
    _WORKER_PROJECT = project


def _analyse_chunk(paths: list[str], codes: list[str]) -> list:
    from resumable_jobs.review.rules import RULES_BY_CODE

    gc.set_threshold(_GC_THRESHOLD, *gc.get_threshold()[1:])
    rules = [RULES_BY_CODE[code] for code in codes]
    return [_analyse_file(path, rules, _WORKER_PROJECT) for path in paths]


def _decode(raw: bytes) -> str:
    """The text of a source file, decoded as Python decodes it.

    Most files are UTF-8 without a coding cookie; for them ``tokenize.detect_encoding`` would
    only confirm the default, so it runs only when the first two lines (where PEP 263 allows a
    cookie) say ``coding``, the file starts with a BOM, or the bytes are not UTF-8.
    """
    first = raw.find(b"\n")
    second = raw.find(b"\n", first + 1) if first >= 0 else -1
    head = raw if second < 0 else raw[:second]
    if b"coding" not in head and not raw.startswith(b"\xef\xbb\xbf"):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            pass  # let detect_encoding give the reason
    import tokenize  # only for files with a cookie, a BOM or bytes that are not UTF-8

    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    text = raw.decode(encoding)
    return text.removeprefix("\ufeff")


def _without_noqa(findings: Iterable[Finding], source: str) -> list[Finding]:
    if "noqa" not in source:
        return list(findings)
    lines = source.splitlines()
    return [
        finding
        for finding in findings
        if not silences(lines[finding.line - 1] if finding.line <= len(lines) else "", finding.code)
    ]
