"""The analysis core imports in one direction: facts <- reading <- project facts <- rules.

Issue 24 asked for the circle between the index, the project index, the Variable reader, the
task graph and the job-start reader to go. These tests read the import statements of the
reviewer's own modules (nothing is imported) and fail on any cycle, and on a module of a lower
layer that reaches into a higher one. Issue 24 also asked that rules ask questions of what the
reading layer found instead of walking trees themselves: a rule module that walks a tree, or
steps through statement bodies, fails the last test.
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
    {"jobstart", "taskgraph", "variables", "own_task", "reconnect", "job_requests"},  # per-file readers built on it
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


#: what walking a tree looks like in a module: the walkers, and the statement lists a walk steps through
_WALKERS = frozenset({"walk", "subnodes", "iter_child_nodes", "iter_fields"})
_STATEMENT_LISTS = frozenset({"body", "orelse", "finalbody", "handlers"})


def _tree_walks(path: str) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _WALKERS:
                found.append(f"{node.lineno}: {name}()")
        elif isinstance(node, ast.Attribute) and node.attr in _STATEMENT_LISTS:
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ClassDef) and any(
            getattr(base, "attr", getattr(base, "id", "")) in ("NodeVisitor", "NodeTransformer") for base in node.bases
        ):
            found.append(f"{node.lineno}: class {node.name}({ast.unparse(node.bases[0])})")
    return found


def test_rules_ask_the_reading_layer_and_walk_no_tree_themselves():
    rules = os.path.join(ROOT, "rules")
    walks = {
        name: _tree_walks(os.path.join(rules, name))
        for name in sorted(os.listdir(rules))
        if name.endswith(".py") and _tree_walks(os.path.join(rules, name))
    }
    assert walks == {}


def test_the_walk_check_sees_a_walk(tmp_path):
    """The check above can fail: a rule that walked a tree would be seen."""
    sample = tmp_path / "rj999_walks.py"
    sample.write_text(
        "import ast\n\ndef check(index):\n    for node in ast.walk(index.tree):\n        pass\n"
        "    for statement in index.tree.body:\n        pass\n"
    )
    assert _tree_walks(str(sample)) == ["4: walk()", "6: .body"]
