"""RJ002: an external job id pushed to XCom so that a retry of the same task can find it.

Why: XCom belongs to one DAG run and a task's own XComs are cleared when a new try starts
(every try gets a new task instance id), so the retry reads nothing back and submits a second
job. ``task_state_store`` is kept across tries of the same task instance; an operator that
submits external jobs gets this from ``ResumableJobMixin``.

How: inside one task (a task function, or the methods of one operator class), an
``xcom_push`` of a key naming a job id or cursor, and an ``xcom_pull`` of the same key from
the task itself (no ``task_ids``, ``task_ids=...task_id``, or the task's own id). The push and
the pull may sit in helpers of the file (``save_progress(ti, n)``, ``load_progress(ti)``) when one
task runs both, or an operator's method calls the helper. The finding is on the push. The
receiver can be anything (``ti``, ``context["ti"]``, ``kwargs["ti"]``, ``task_instance``), since
``xcom_push`` is Airflow's own name.

What it does not do: report a job id pushed for a downstream sensor or task to read: that is
what XCom is for, and spec section 5 treats "submit -> XCom -> sensor" as a valid layout. Keys
holding static configuration (table names, paths) are never reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from resumable_jobs.review.findings import ERROR, Finding
from resumable_jobs.review.index import CallSite, FunctionNode, ModuleIndex, call_name
from resumable_jobs.review.jobstart import returned_by_a_job_start
from resumable_jobs.review.keys import KeyKind, classify
from resumable_jobs.review.own_task import reads_own_task, task_scope, xcom_argument
from resumable_jobs.review.rules.base import Rule, make_finding

__all__ = ["RULE"]

_STATE_KINDS = (KeyKind.JOB_ID, KeyKind.CURSOR)


def check(index: ModuleIndex) -> Iterator[Finding]:
    if "xcom_push" not in index.called_names:
        return
    pushes: list[tuple[CallSite, str, object]] = []
    self_reads: set[tuple[object, str]] = set()
    reading_scopes: dict[str, set[object]] = {}
    for site in index.calls:
        name = call_name(site.node)
        if name not in ("xcom_push", "xcom_pull") or not isinstance(site.node.func, ast.Attribute):
            continue
        if not site.stack:
            continue
        scope = task_scope(index, site.stack)
        if name == "xcom_push" and index.in_runtime(site.stack):
            key_node = xcom_argument(site.node, "key")
            key = index.string_value(key_node, site.stack)
            kind = classify(key)
            value = xcom_argument(site.node, "value")
            if kind in _STATE_KINDS or (
                kind is None and (_holds_job_id(value) or returned_by_a_job_start(index, value, site.stack[-1]))
            ):
                pushes.append((site, _key_identity(key, key_node), scope))
        elif name == "xcom_pull":
            # A helper method of the same operator counts: it runs in the same try.
            key_node = xcom_argument(site.node, "key")
            key = index.string_value(key_node, site.stack)
            if key and reads_own_task(index, site, scope):
                identity = _key_identity(key, key_node)
                self_reads.add((scope, identity))
                reading_scopes.setdefault(identity, set()).add(scope)
    reached: dict[object, set[FunctionNode]] = {}
    for site, key, scope in pushes:
        if (scope, key) in self_reads or any(
            _one_task_runs_both(index, scope, other, reached) for other in reading_scopes.get(key, ())
        ):
            key_node = xcom_argument(site.node, "key")
            built = key_node is not None and key == ast.dump(key_node)  # built at run time
            shown = ast.unparse(key_node) if built else f"'{key}'"
            # a cursor makes the retry start over; a job id makes it submit a second job
            outcome = "starts over" if not built and classify(key) is KeyKind.CURSOR else "submits again"
            key = "job_id" if built else key  # the suggestion names a key that says what it holds
            yield make_finding(
                index,
                site.node,
                RULE.code,
                RULE.severity,
                f"xcom_push(key={shown}) keeps per-try state in XCom and the same task reads it "
                "back to find it on retry: XCom belongs to one DAG run and is cleared when a new "
                f"try starts, so the retry finds nothing and {outcome}",
                _suggestion(key),
            )


def _one_task_runs_both(index: ModuleIndex, first: object, second: object, reached: dict) -> bool:
    """Whether the push in ``first`` and the pull in ``second`` (scopes that differ) run in one
    try: helpers of the file (``save_progress(ti, n)``, ``load_progress(ti)``) that one task
    calls, one of them calling the other, or an operator's method calling a module helper.
    Two tasks that each call one of the helpers share nothing: each reads its own XCom.
    Worked out only for a push whose key the task does not read back in its own scope."""
    if first is second:
        return True
    first_runs = _reaches(index, first, reached)
    second_runs = _reaches(index, second, reached)
    if _functions_of(index, second) & first_runs or _functions_of(index, first) & second_runs:
        return True
    both = _functions_of(index, first) | _functions_of(index, second)
    return any(
        both <= _reaches(index, func, reached)
        for func in index.runtime_functions
        if func not in both and func not in index.owner_class
    )


def _functions_of(index: ModuleIndex, scope: object) -> set[FunctionNode]:
    if isinstance(scope, ast.ClassDef):
        return {func for func, cls in index.owner_class.items() if cls is scope}
    return {scope} if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()


def _reaches(index: ModuleIndex, scope: object, reached: dict) -> set[FunctionNode]:
    """Every function of the file the scope's code calls, transitively (the scope included)."""
    found = reached.get(scope)
    if found is None:
        found = set()
        for func in _functions_of(index, scope):
            found |= index.reached_from(func)
        reached[scope] = found
    return found


def _key_identity(key: str, node: ast.AST | None) -> str:
    """What makes a push and a pull the same key: its text, or for a key built at run time
    (``f"{ti.try_number}"``) the expression that builds it."""
    return ast.dump(node) if "{}" in key and node is not None else key


def _holds_job_id(value: ast.AST | None) -> bool:
    """A pushed value that is a job id by its name: ``job_id``, ``self.run_id``, or a dict with
    such a key (``{"armada_job_id": job_id}``). For keys whose own name gives no hint."""
    if isinstance(value, ast.Name):
        return classify(value.id) is KeyKind.JOB_ID
    if isinstance(value, ast.Attribute):
        return classify(value.attr) is KeyKind.JOB_ID
    if isinstance(value, ast.Dict):
        return any(
            isinstance(k, ast.Constant) and isinstance(k.value, str) and classify(k.value) is KeyKind.JOB_ID
            for k in value.keys
        )
    return False


def _suggestion(key: str) -> str:
    return (
        "Keep the id in task_state_store, which survives retries of this task instance; an\n"
        "operator that submits external jobs can use ResumableJobMixin, which does this for you.\n"
        "Before:\n"
        f'    job_id = ti.xcom_pull(key="{key}")\n'
        "    if not job_id:\n"
        "        job_id = submit()\n"
        f'        ti.xcom_push(key="{key}", value=job_id)\n'
        "After:\n"
        '    store = context["task_state_store"]\n'
        f'    job_id = store.get("{key}")\n'
        "    if not job_id:\n"
        "        job_id = submit()\n"
        f'        store.set("{key}", job_id, retention=NEVER_EXPIRE)'
    )


RULE = Rule(
    code="RJ002",
    name="job-id-in-xcom",
    severity=ERROR,
    summary="External job id kept in XCom so a retry can find it; XCom is cleared between tries, use task_state_store.",
    check=check,
)
