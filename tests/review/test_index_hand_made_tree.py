"""A tree built by hand (not by ast.parse) lacks optional fields; the index still reads it whole.

The index walk reads fields from each node's ``__dict__`` and fills in missing ones only when a
read fails, once per file: these tests pin that a hand-made tree gives the same records as the
parsed tree it stands for, and that a parsed tree is left as it was.
"""

from __future__ import annotations

import ast

from resumable_jobs.review.index import ModuleIndex

SOURCE = 'from airflow.sdk import Variable\n\ndef load():\n    Variable.set("cursor", 1)\n'


def _hand_made() -> ast.Module:
    call = ast.Call(
        func=ast.Attribute(value=ast.Name(id="Variable", ctx=ast.Load()), attr="set", ctx=ast.Load()),
        args=[ast.Constant(value="cursor"), ast.Constant(value=1)],
        keywords=[],
    )
    # FunctionDef without returns / type_comment, Module without type_ignores
    func = ast.FunctionDef(
        name="load",
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[ast.Expr(value=call)],
        decorator_list=[],
    )
    module = ast.Module(body=[ast.ImportFrom(module="airflow.sdk", names=[ast.alias(name="Variable")], level=0), func])
    return ast.fix_missing_locations(module)


def _summary(index: ModuleIndex) -> tuple:
    return (
        dict(index.aliases),
        [f.name for f in index.functions],
        sorted(index.called_names),
        [(site.node.func.attr, [f.name for f in site.stack]) for site in index.calls],
    )


def test_hand_made_tree_gives_the_records_of_the_parsed_one() -> None:
    tree = _hand_made()
    assert "returns" not in tree.body[1].__dict__  # the case the walk must survive
    parsed = ModuleIndex(ast.parse(SOURCE), SOURCE, "dag.py")
    built = ModuleIndex(tree, SOURCE, "dag.py")
    assert _summary(built) == _summary(parsed)
    assert _summary(built)[3] == [("set", ["load"])]  # one call, recorded once, inside load()


def test_parsed_tree_is_walked_without_filling() -> None:
    tree = ast.parse(SOURCE)
    before = [sorted(node.__dict__) for node in ast.walk(tree)]
    ModuleIndex(tree, SOURCE, "dag.py")
    assert [sorted(node.__dict__) for node in ast.walk(tree)] == before
