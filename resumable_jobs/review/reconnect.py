"""Reconnect-or-submit logic written by hand: which ``if`` in task code looks a previous try's
job up and submits when it finds none.

Why: RJ003 reports these, and RJ001 stays silent on the Variable calls of a function RJ003
reports (one pattern, one finding), so the tree-wide Variable facts need them too. Reading them
here, beside the other per-file readers, keeps facts from depending on a rule.

How: see :mod:`.rules.rj003_reconnect` for what counts as the lookup and as the submit.

What it does not do: report anything; the rule turns what it finds into findings.
"""

from __future__ import annotations

import ast
from itertools import pairwise
from operator import methodcaller

from resumable_jobs.review.index import CallSite, FunctionNode, ModuleIndex, call_name, subnodes
from resumable_jobs.review.jobstart import JOB_START_METHODS
from resumable_jobs.review.keys import KeyKind, words
from resumable_jobs.review.own_task import reads_own_task, task_scope, xcom_argument
from resumable_jobs.review.variables import argument, is_variable_call, runtime_variable_accesses

__all__ = ["ReconnectIf", "reconnect_ifs"]

_SUBMIT_WORDS = frozenset({"submit", "launch", "start", "create", "trigger", "insert", "run", "kick", "spawn"})
#: a call named for looking something up submits nothing, whatever nouns follow the verb:
#: ``get_job_run``, ``find_job_run_by_tag``, ``describe_run``, ``list_runs``
_LOOKUP_VERBS = frozenset({"get", "find", "describe", "list", "search", "lookup", "fetch", "query", "is", "has"})
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
    job_gets.update(_other_lookups(index))
    if job_gets:
        job_gets.update(_helpers_returning(index, job_gets))
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


_LISTING = frozenset({"list", "find", "search"})
#: a call name whose first word is a listing verb (``list_jobs``), as prefixes for a cheap test
_LISTING_PREFIXES = tuple(f"{verb}_" for verb in sorted(_LISTING))
#: that test as one C-level call per name (it runs over every called name of every file)
_starts_a_listing = methodcaller("startswith", _LISTING_PREFIXES)
#: what a listing must be about: jobs, runs, pods and the like, not files or search results
_JOB_NOUNS = frozenset(
    {"job", "jobs", "run", "runs", "pod", "pods", "application", "applications", "step", "steps"}
    | {"batch", "batches", "execution", "executions", "submission", "submissions", "workflow", "workflows"}
)
_FILTERS = frozenset({"label_selector", "labels", "label", "tags", "tag", "filters", "filter", "name", "job_name"})


def _other_lookups(index: ModuleIndex) -> dict[ast.Call, str]:
    """Lookups of a previous try's job that are not Variables: own XCom, or a filtered listing."""
    names = index.called_names
    named = (
        {n for n in names if n.startswith(_NAMED_LOOKUP_PREFIXES) and _named_lookup_name(n)}
        if index.owner_class and "execute" in index.functions_by_name
        else ()
    )
    in_operators = bool(named)
    if (
        "xcom_pull" not in names
        and names.isdisjoint(_XCOM_READS)
        and names.isdisjoint(_LISTING)
        and not any(map(_starts_a_listing, names))
        and not in_operators
    ):
        return {}
    found: dict[ast.Call, str] = {}
    for site in index.calls_in_runtime():
        call = site.node
        name = call_name(call) or ""
        if name == "xcom_pull" and _pulls_own_xcom(index, site):
            key = index.string_value(xcom_argument(call, "key"), site.stack)
            if not _pushes(index, site.stack[-1], key):  # pull-then-push of one key is RJ002's
                found[call] = f"XCom {key or 'return_value'}"
        elif name in _XCOM_READS and _reads_own_xcom_class(index, call):
            key = index.string_value(argument(call, 99, "key"), site.stack)
            if not _pushes(index, site.stack[-1], key):
                found[call] = f"XCom {key or 'return_value'}"
        elif (_is_job_listing(name) and any(kw.arg in _FILTERS for kw in call.keywords)) or (
            name in named and _in_operator_method(index, site.stack) and _looks_up_by_name(call, name)
        ):
            found[call] = f"{name}()"
    return found


#: lookups of the task instance's own job that providers' operators offer (the Kubernetes pod
#: operator's ``find_pod(namespace, context)`` lists pods by the task instance's labels)
_OWN_JOB_LOOKUPS = frozenset({"find_pod"})
#: verbs of a call that looks one named job up (``get_job_runs``, ``describe_training_job``,
#: ``count_processing_jobs_by_name``)
_NAMED_LOOKUP_VERBS = frozenset({"get", "describe", "list", "find", "search", "count"})
#: the same verbs as name prefixes, and the own-job lookups, for a cheap test of a call's name
_NAMED_LOOKUP_PREFIXES = tuple(sorted(f"{verb}_" for verb in _NAMED_LOOKUP_VERBS)) + ("find_pod",)


#: nouns of one run of a job (a Glue or Databricks "job" is a definition: looking one up by name
#: before creating it is no reconnect)
_RUN_NOUNS = frozenset({"run", "runs", "pod", "pods", "execution", "executions", "submission", "submissions"})
#: SageMaker's job kinds, whose "jobs" are runs
_RUN_JOB_KINDS = frozenset({"training", "processing", "transform", "tuning", "labeling", "compilation"})


def _names_runs(parts: list[str]) -> bool:
    if not _RUN_NOUNS.isdisjoint(parts):
        return True
    return any(kind in _RUN_JOB_KINDS and nxt in ("job", "jobs") for kind, nxt in pairwise(parts))


def _in_operator_method(index: ModuleIndex, stack) -> bool:
    """Task code of an operator class: its ``execute()``, or a method of the class it calls."""
    return any(func in index.owner_class for func in stack)


def _named_lookup_name(name: str) -> bool:
    """A call name that may look the runs of one name up (see :func:`_looks_up_by_name`)."""
    if name in _OWN_JOB_LOOKUPS:
        return True
    parts = words(name)
    return bool(parts) and parts[0] in _NAMED_LOOKUP_VERBS and _names_runs(parts[1:])


def _looks_up_by_name(call: ast.Call, name: str) -> bool:
    """A call that looks up the jobs of one name or label (``get_job_runs(JobName=self.job_name)``,
    ``count_processing_jobs_by_name(name)``, ``find_pod(ns, context)``): in an operator's own
    methods, that is a look for a previous try's job before submitting."""
    if name in _OWN_JOB_LOOKUPS:
        return True
    parts = words(name)
    if not _named_lookup_name(name):
        return False
    if parts[-2:] == ["by", "name"] or parts[-2:] == ["by", "label"]:
        return True
    return any(kw.arg and words(kw.arg)[-1:] in (["name"], ["names"]) for kw in call.keywords)


def _helpers_returning(index: ModuleIndex, job_gets: dict[ast.Call, str]) -> dict[ast.Call, str]:
    """Calls, in task code, of a helper of this file that returns a filtered listing
    (``return api.list_namespaced_job(ns, label_selector=...).items``, or a name bound to one):
    the call is that lookup. Plain functions by name, methods through ``self``. Variable and XCom
    lookups are not followed into helpers: their calls are RJ001's and RJ002's to report."""
    listings = {call: key for call, key in job_gets.items() if key.endswith("()")}
    returning: dict[FunctionNode, str] = {}
    for func in {site.stack[-1] for site in index.calls_in_runtime() if site.node in listings}:
        names = _names_bound_to(func, listings)
        for node in subnodes(func):
            if isinstance(node, ast.Return) and node.value is not None:
                key = _refers(node.value, listings, names)
                if key is not None:
                    returning[func] = key
                    break
    found: dict[ast.Call, str] = {}
    if not returning:
        return found
    for site in index.calls_in_runtime():
        keys = {returning[f] for f in index.called_functions(site.node, site.stack[-1]) if f in returning}
        if len(keys) == 1 and site.node not in job_gets:
            found[site.node] = keys.pop()
    return found


#: class methods that read XCom rows directly (``XCom.get_one(task_id=self.task_id, key=...)``)
_XCOM_READS = frozenset({"get_one", "get_many", "get_value"})
_XCOM_CLASSES = frozenset(
    {"airflow.models.XCom", "airflow.models.xcom.XCom", "airflow.sdk.XCom", "airflow.sdk.execution_time.xcom.XCom"}
)


def _reads_own_xcom_class(index: ModuleIndex, call: ast.Call) -> bool:
    """``XCom.get_one(..., task_id=self.task_id)``: a read of the task's own XCom through the
    XCom class itself (an attribute ``.task_id`` names the running task)."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if receiver is None or index.resolve(receiver) not in _XCOM_CLASSES:
        return False
    task_id = argument(call, 99, "task_id") or argument(call, 99, "task_ids")
    return isinstance(task_id, ast.Attribute) and task_id.attr == "task_id"


def _is_job_listing(name: str) -> bool:
    """``list_namespaced_pod``, ``list_jobs``, ``find_job_runs``: a listing of jobs or pods."""
    parts = words(name)
    return bool(parts) and parts[0] in _LISTING and bool(set(parts[1:]) & _JOB_NOUNS)


def _pushes(index: ModuleIndex, func: FunctionNode, key: str | None) -> bool:
    return any(
        call_name(site.node) == "xcom_push" and index.string_value(xcom_argument(site.node, "key"), site.stack) == key
        for site in index.calls_by_function.get(func, ())
    )


def _pulls_own_xcom(index: ModuleIndex, site: CallSite) -> bool:
    """A pull of the task's own XCom (:func:`reads_own_task`: ``task_ids=self.task_id``, or the
    task's own id, ``task_ids="run_job"`` in the ``@task`` ``run_job``); with no ``task_ids``,
    only a pull by key: a bare ``xcom_pull()`` is a read of upstream data."""
    task_ids = xcom_argument(site.node, "task_ids")
    if task_ids is None or (isinstance(task_ids, ast.Constant) and task_ids.value is None):
        return xcom_argument(site.node, "key") is not None
    return reads_own_task(index, site, task_scope(index, site.stack))


def _names_bound_to(func: FunctionNode, job_gets: dict[ast.Call, str]) -> dict[str, str]:
    """Local names assigned from a lookup (``job_id = Variable.get(...)``), and names picked out
    of such a name (``running = [j for j in jobs["jobSummaryList"] if ...]``, ``pods = found.items``)."""
    names: dict[str, str] = {}
    assignments = []
    for node in subnodes(func):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        key = next((job_gets[c] for c in subnodes(value) if c in job_gets), None)
        if key is not None:
            names.update({t.id: key for t in targets if isinstance(t, ast.Name)})
        else:
            assignments.append((targets, value))
    for _ in range(3):  # a name picked out of a name picked out of the lookup, at most
        added = False
        for targets, value in assignments:
            root = _picked_from(value)
            if root is not None and root in names:
                for target in targets:
                    if isinstance(target, ast.Name) and target.id not in names:
                        names[target.id] = names[root]
                        added = True
        if not added:
            break
    return names


def _picked_from(value: ast.AST) -> str | None:
    """The name ``value`` picks items out of: a subscript or attribute of it, or a comprehension
    over it (a filter of the listing); anything computed from it by a call is not followed."""
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) and value.generators:
        value = value.generators[0].iter
    while isinstance(value, (ast.Subscript, ast.Attribute)):
        value = value.value
    return value.id if isinstance(value, ast.Name) else None


def _refers(node: ast.AST, job_gets: dict[ast.Call, str], names: dict[str, str]) -> str | None:
    for child in subnodes(node):
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
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and not _is_len_of(test.left, job_gets, names):
        if _refers(test.left, job_gets, names) is None:
            return None
        other = test.comparators[0]
        if isinstance(other, ast.Constant) and other.value in (None, "") and other.value is not False:
            if isinstance(test.ops[0], (ast.Is, ast.Eq)):
                return False
            if isinstance(test.ops[0], (ast.IsNot, ast.NotEq)):
                return True
            return None
        if not (isinstance(other, ast.Constant) and other.value == 0 and other.value is not False):
            return None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:  # len(found) > 0, count_runs(...) != 0
        other = test.comparators[0]
        if isinstance(other, ast.Constant) and other.value == 0:
            if isinstance(test.ops[0], (ast.Gt, ast.NotEq)):
                return True
            if isinstance(test.ops[0], ast.Eq):
                return False
        return None
    if isinstance(test, (ast.Name, ast.Call, ast.NamedExpr, ast.Attribute, ast.Subscript)):
        return True if _refers(test, job_gets, names) is not None else None
    return None


def _is_len_of(node: ast.AST, job_gets, names) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and _refers(node.args[0], job_gets, names) is not None
    )


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
    for node in subnodes(func):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and target in block:
                return block[block.index(target) + 1 :]
    return []


def _submits(index: ModuleIndex, statements: list[ast.stmt], key: str, stack) -> bool:
    for statement in statements:
        for node in subnodes(statement):
            if not isinstance(node, ast.Call):
                continue
            if is_variable_call(index, node) == "set":
                if index.string_value(argument(node, 0, "key"), stack) == key:
                    return True
                continue
            name = call_name(node)
            if name and (_names_a_submit(name) or name in JOB_START_METHODS):
                return True
            if name == "execute" and _is_parent_execute(node):
                return True
    return False


def _names_a_submit(name: str) -> bool:
    """``submit_run``, ``start_job_run``, ``run``: yes; ``get_job_run``, ``find_run_by_tag``: no
    (a second lookup in the "nothing found" branch is a fallback, not a submit)."""
    parts = words(name)
    return bool(parts) and parts[0] not in _LOOKUP_VERBS and not _SUBMIT_WORDS.isdisjoint(parts)


def _is_parent_execute(call: ast.Call) -> bool:
    """``super().execute(context)`` or ``Base.execute(self, context)``: the parent submits."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        return True
    return bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == "self"
