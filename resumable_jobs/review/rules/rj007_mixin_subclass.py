"""RJ007: a ``ResumableJobMixin`` subclass that does not use the mixin the way it must be used.

Why: the mixin only protects a task when its decision runs and its checkpoint key is stable
(spec sections 5 and 8). Three mistakes silently turn the protection off:

* ``execute()`` does its own thing instead of ``return self.execute_resumable(context)``, so
  nothing is checkpointed and a retry after a crash submits a second job;
* ``external_id_key`` is never set, so the id lands under the mixin's generic default key, and
  giving it a proper name later is a rename that breaks reconnects of in-flight retries;
* the key contains ``.`` or ``/``, which the store's key rules exclude.

How: classes whose bases resolve to ``ResumableJobMixin`` (from ``airflow.sdk``, the common
compat provider or ``resumable_jobs``), directly or through another class in the same file.
The missing key is reported on the most derived class of the file only, and only when every
base is known (Airflow's base operators, the mixin, or classes in the file), because a base
imported from elsewhere may set it.

What it does not do: report an ``execute()`` that delegates to ``super().execute(...)``, or a
class that inherits ``execute()`` (the project's own mixin may supply one).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from resumable_jobs.review.findings import ERROR, Finding
from resumable_jobs.review.index import ModuleIndex, calls_in, class_attribute_assignments, method_of
from resumable_jobs.review.rules.base import Rule, make_finding

__all__ = ["RULE", "mixin_classes"]

_PLAIN_BASES = frozenset({"BaseOperator", "BaseSensorOperator", "BaseAsyncOperator", "LoggingMixin", "ABC"})
_KEY = "external_id_key"


def _is_mixin_name(resolved: str | None) -> bool:
    return (
        bool(resolved)
        and resolved.rsplit(".", 1)[-1] == "ResumableJobMixin"
        and resolved.startswith(("airflow.", "resumable_jobs"))
    )


def mixin_classes(index: ModuleIndex) -> list[ast.ClassDef]:
    """Classes of the file that inherit from ResumableJobMixin, directly or via the file."""
    found: dict[str, ast.ClassDef] = {}
    changed = True
    while changed:
        changed = False
        for cls in index.classes:
            if cls.name in found:
                continue
            for base in cls.bases:
                resolved = index.resolve(base)
                if _is_mixin_name(resolved) or resolved in found:
                    found[cls.name] = cls
                    changed = True
                    break
    return [cls for cls in index.classes if found.get(cls.name) is cls]


def check(index: ModuleIndex) -> Iterator[Finding]:
    classes = mixin_classes(index)
    if not classes:
        return
    used_as_base = {index.resolve(base) for cls in index.classes for base in cls.bases}
    for cls in classes:
        execute = method_of(cls, "execute")
        if execute is not None and not _runs_mixin(execute):
            yield make_finding(
                index,
                execute,
                RULE.code,
                RULE.severity,
                f"{cls.name}.execute() does not call self.execute_resumable(context): the mixin's "
                "checkpoint and reconnect decision never runs, so a retry after a crash submits "
                "a second job",
                _EXECUTE_SUGGESTION,
            )
        for assignment, value in _key_assignments(index, cls):
            if value is not None and ("." in value or "/" in value):
                yield make_finding(
                    index,
                    assignment,
                    RULE.code,
                    RULE.severity,
                    f"external_id_key '{value}' contains '.' or '/': store keys must be short "
                    "names without dots or slashes",
                    _key_char_suggestion(value),
                )
        if cls.name not in used_as_base and not _sets_key_in_chain(index, cls) and _all_bases_known(index, cls):
            yield make_finding(
                index,
                cls,
                RULE.code,
                RULE.severity,
                f"{cls.name} does not set external_id_key: the job id is stored under the "
                "mixin's generic default key, and naming it later is a rename that breaks "
                "reconnects of retries already in flight",
                _missing_key_suggestion(cls.name),
            )


def _runs_mixin(execute: ast.AST) -> bool:
    for node in calls_in(execute):
        if isinstance(node.func, ast.Attribute):
            if node.func.attr == "execute_resumable":
                return True
            if node.func.attr == "execute" and _is_delegation(node):
                return True
    return False


def _is_delegation(call: ast.Call) -> bool:
    """``super().execute(...)`` or ``Base.execute(self, ...)``: the parent's execute() runs."""
    receiver = call.func.value  # type: ignore[attr-defined]
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        return True
    return bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == "self"


def _key_assignments(index: ModuleIndex, cls: ast.ClassDef) -> Iterator[tuple[ast.stmt, str | None]]:
    for node in class_attribute_assignments(cls, _KEY):
        yield node, index.string_value(node.value)
    for attr, node, method in index.self_attribute_sets:  # self.external_id_key = ... in a method
        if attr == _KEY and index.owner_class.get(method) is cls:
            yield node, index.string_value(node.value)


def _sets_key_in_chain(index: ModuleIndex, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
    if any(True for _ in _key_assignments(index, cls)):
        return True
    for base in cls.bases:
        parent = index.classes_by_name.get(index.resolve(base) or "")
        if parent is not None and parent.name not in seen and _sets_key_in_chain(index, parent, seen | {cls.name}):
            return True
    return False


def _all_bases_known(index: ModuleIndex, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
    for base in cls.bases:
        resolved = index.resolve(base)
        if resolved is None:
            return False
        parent = index.classes_by_name.get(resolved)
        if parent is not None:
            if parent.name in seen or not _all_bases_known(index, parent, seen | {cls.name}):
                return False
            continue
        if _is_mixin_name(resolved):
            continue
        last = resolved.rsplit(".", 1)[-1]
        from_known_module = resolved.startswith(("airflow.", "abc.", "resumable_jobs"))
        if not (last in _PLAIN_BASES and from_known_module):
            return False
    return True


_EXECUTE_SUGGESTION = (
    "Let execute() hand over to the mixin; put job-specific code in submit_job() and friends.\n"
    "Before:\n"
    "    def execute(self, context):\n"
    "        job_id = self.hook.submit(...)\n"
    "        self.hook.wait(job_id)\n"
    "After:\n"
    "    def execute(self, context):\n"
    "        return self.execute_resumable(context)\n"
    "    def submit_job(self, context):\n"
    "        return self.hook.submit(...)"
)


def _key_char_suggestion(value: str) -> str:
    fixed = value.replace(".", "_").replace("/", "_")
    return (
        "Use a short name without dots or slashes. If the operator is already deployed, keep\n"
        "reading the old key until in-flight retries are done: a rename loses their job ids.\n"
        "Before:\n"
        f'    external_id_key = "{value}"\n'
        "After:\n"
        f'    external_id_key = "{fixed}"'
    )


def _missing_key_suggestion(name: str) -> str:
    return (
        "Name the key once, before the operator is deployed, and never rename it.\n"
        "Before:\n"
        f"    class {name}(BaseOperator, ResumableJobMixin):\n"
        "        def execute(self, context): ...\n"
        "After:\n"
        f"    class {name}(BaseOperator, ResumableJobMixin):\n"
        '        external_id_key = "my_job_id"\n'
        "        def execute(self, context): ..."
    )


RULE = Rule(
    code="RJ007",
    name="mixin-misuse",
    severity=ERROR,
    summary=(
        "ResumableJobMixin subclass whose execute() skips execute_resumable, that lacks external_id_key, "
        "or whose key has '.' or '/'."
    ),
    check=check,
)
