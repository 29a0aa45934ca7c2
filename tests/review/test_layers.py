"""The analysis core imports in one direction: facts <- reading <- project facts <- rules.

Issue 24 asked for the circle between the index, the project index, the Variable reader, the
task graph and the job-start reader to go. These tests read the import statements of the
reviewer's own modules (nothing is imported) and fail on any cycle, and on a module of a lower
layer that reaches into a higher one.
"""

from __future__ import annotations

import ast
import os

from resumable_jobs import review

ROOT = os.path.dirname(review.__file__)
PACKAGE = "resumable_jobs.review"

#: each module of the core, by layer; a module may import from its own layer or a lower one
LAYERS = [
    {"facts", "keys", "noqa", "operators", "findings"},  # plain data and word lists
    {"index"},  # reading one file
    {"jobstart", "taskgraph", "variables", "own_task", "reconnect"},  # per-file readers built on it
    {"summary", "project", "variable_usage"},  # what the tree knows: summaries, resolution, usage
]


def _imports() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for folder, _, files in os.walk(ROOT):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            module = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".").removesuffix(".__init__")
            deps: set[str] = set()
            with open(path, encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            for node in ast.walk(tree):  # imports inside functions count: a lazy import hides a cycle
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PACKAGE + "."):
                    target = node.module[len(PACKAGE) + 1 :]
                    deps.add(target)
                    deps.update(
                        f"{target}.{alias.name}"
                        for alias in node.names
                        if os.path.exists(os.path.join(ROOT, *target.split("."), alias.name + ".py"))
                    )
            found[module] = deps - {module}
    return found


def test_the_reviewers_modules_import_each_other_without_a_cycle():
    graph = _imports()
    state: dict[str, int] = {}
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for dep in sorted(graph.get(module, ())):
            if dep not in graph:
                continue
            if state.get(dep) == 1:
                cycles.append(path[path.index(dep) :] + [dep] if dep in path else path + [dep])
            elif dep not in state:
                visit(dep, path + [dep])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_each_core_module_imports_only_its_own_layer_or_lower_ones():
    graph = _imports()
    level = {module: n for n, layer in enumerate(LAYERS) for module in layer}
    upward = sorted(
        (module, dep)
        for module, deps in graph.items()
        if module in level
        for dep in deps
        if dep.startswith("rules") or level.get(dep, -1) > level[module]
    )
    assert upward == []


def test_the_project_index_and_the_file_index_know_each_other_only_through_the_facts():
    graph = _imports()
    assert graph["index"] == {"facts"}
    assert graph["project"] == {"facts"}
