"""RJ003: hand-written "reconnect if a job id is stored, else submit" logic on a Variable.

Why: this re-implements what ``ResumableJobMixin`` does, without its guarantees: the Variable
is global (two runs share one job id), it is written after the submit returns (a crash in
between loses the id), and nothing checks the stored job's status the way the mixin's
decision table does.

How: an ``if`` inside a task whose test reads a job-id Variable (directly, or through a name
assigned from ``Variable.get``), where the branch taken when no id is stored submits something
(a call named submit/run/start/create/launch/trigger/insert) or writes the Variable. The
finding is on the ``if``. RJ001 stays silent on the Variable calls of a function reported here,
so one pattern gives one finding.

What it does not do: flag ``if job_id: run(job_id) else: raise`` where the id is configuration
(for example a Databricks job definition id read from a Variable): nothing is submitted when
the id is missing, so there is no reconnect logic.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from resumable_jobs.review.findings import ERROR, Finding
from resumable_jobs.review.index import FunctionNode, ModuleIndex, call_name
from resumable_jobs.review.keys import KeyKind, words
from resumable_jobs.review.rules.base import Rule, make_finding
from resumable_jobs.review.variables import argument, is_variable_call, runtime_variable_accesses

__all__ = ["RULE", "ReconnectIf", "reconnect_ifs"]

_SUBMIT_WORDS = frozenset({"submit", "launch", "start", "create", "trigger", "insert", "run", "kick", "spawn"})
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


class ReconnectIf:
    """One detected reconnect-or-submit ``if``: where, in which function, on which key."""

    __slots__ = ("function", "key", "node")

    def __init__(self, node: ast.If, function: FunctionNode, key: str) -> None:
        self.node, self.function, self.key = node, function, key


def reconnect_ifs(index: ModuleIndex) -> list[ReconnectIf]:
    cached = getattr(index, "_reconnect_ifs", None)
    if cached is not None:
        return cached
    found: list[ReconnectIf] = []
    job_gets = {
        a.node: a.key for a in runtime_variable_accesses(index) if a.op == "get" and a.kind is KeyKind.JOB_ID and a.key
    }
    if job_gets:
        names_by_function: dict[FunctionNode, dict[str, str]] = {}
        for if_node, stack in index.ifs:
            if not stack or not index.in_runtime(stack):
                continue
            func = stack[-1]
            if func not in names_by_function:
                names_by_function[func] = _names_bound_to(func, job_gets)
            names = names_by_function[func]
            key = _refers(if_node.test, job_gets, names)
            if key is None:
                continue
            present = _true_when_present(if_node.test, job_gets, names)
            if present is None:
                continue
            absent_branch = _absent_branch(func, if_node, present)
            if _submits(index, absent_branch, key, stack):
                found.append(ReconnectIf(if_node, func, key))
    index._reconnect_ifs = found  # type: ignore[attr-defined]
    return found


def _names_bound_to(func: FunctionNode, job_gets: dict[ast.Call, str]) -> dict[str, str]:
    """Local names assigned from a job-id ``Variable.get`` (``job_id = Variable.get(...)``)."""
    names: dict[str, str] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        key = next((job_gets[c] for c in ast.walk(value) if c in job_gets), None)
        if key is not None:
            names.update({t.id: key for t in targets if isinstance(t, ast.Name)})
    return names


def _refers(node: ast.AST, job_gets: dict[ast.Call, str], names: dict[str, str]) -> str | None:
    for child in ast.walk(node):
        if child in job_gets:
            return job_gets[child]  # type: ignore[index]
        if isinstance(child, ast.Name) and child.id in names:
            return names[child.id]
    return None


def _true_when_present(test: ast.AST, job_gets: dict[ast.Call, str], names: dict[str, str]) -> bool | None:
    """Whether ``test`` holds when a job id is stored (True), when none is (False), or unclear."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _true_when_present(test.operand, job_gets, names)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        parts = [_true_when_present(v, job_gets, names) for v in test.values]
        wanted = isinstance(test.op, ast.And)
        return wanted if wanted in parts else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        if _refers(test.left, job_gets, names) is None:
            return None
        other = test.comparators[0]
        if not (isinstance(other, ast.Constant) and other.value in (None, "")):
            return None
        if isinstance(test.ops[0], (ast.Is, ast.Eq)):
            return False
        if isinstance(test.ops[0], (ast.IsNot, ast.NotEq)):
            return True
        return None
    if isinstance(test, (ast.Name, ast.Call, ast.NamedExpr)):
        return True if _refers(test, job_gets, names) is not None else None
    return None


def _absent_branch(func: FunctionNode, if_node: ast.If, present: bool) -> list[ast.stmt]:
    """The statements that run when no job id is stored."""
    if not present:
        return if_node.body
    if if_node.orelse:
        return if_node.orelse
    if if_node.body and isinstance(if_node.body[-1], _EXITS):
        return _statements_after(func, if_node)
    return []


def _statements_after(func: FunctionNode, target: ast.stmt) -> list[ast.stmt]:
    for node in ast.walk(func):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and target in block:
                return block[block.index(target) + 1 :]
    return []


def _submits(index: ModuleIndex, statements: list[ast.stmt], key: str, stack) -> bool:
    for statement in statements:
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            if is_variable_call(index, node) == "set":
                if index.string_value(argument(node, 0, "key"), stack) == key:
                    return True
                continue
            name = call_name(node)
            if name and set(words(name)) & _SUBMIT_WORDS:
                return True
    return False


def check(index: ModuleIndex) -> Iterator[Finding]:
    for found in reconnect_ifs(index):
        yield make_finding(
            index,
            found.node,
            RULE.code,
            RULE.severity,
            f"hand-written reconnect logic on Variable '{found.key}': the id is global to every "
            "run, written only after the submit returns, and its job's status is never checked "
            "the way ResumableJobMixin does; a crash or a concurrent run submits a duplicate job",
            _suggestion(found.key),
        )


def _suggestion(key: str) -> str:
    return (
        "Let ResumableJobMixin decide between reconnect and submit; it keeps the id in the\n"
        "task's own task_state_store and checks the stored job's status on every retry.\n"
        "Before:\n"
        f'    job_id = Variable.get("{key}", default_var=None)\n'
        "    if job_id and self._is_running(job_id):\n"
        "        self._wait(job_id)\n"
        "    else:\n"
        "        job_id = self.hook.submit(...)\n"
        f'        Variable.set("{key}", job_id)\n'
        "After:\n"
        "    class MyJobOperator(BaseOperator, ResumableJobMixin):\n"
        f'        external_id_key = "{_store_key(key)}"\n'
        "        def execute(self, context):\n"
        "            return self.execute_resumable(context)\n"
        "        def submit_job(self, context):\n"
        "            return self.hook.submit(...)\n"
        "        # ...get_job_status, is_job_active, is_job_succeeded, poll_until_complete, get_job_result"
    )


def _store_key(key: str) -> str:
    cleaned = "_".join(words(key))
    return cleaned or "job_id"


RULE = Rule(
    code="RJ003",
    name="hand-written-reconnect",
    severity=ERROR,
    summary="Hand-written 'reconnect if a job id is stored in a Variable, else submit' logic; use ResumableJobMixin.",
    check=check,
)
