"""RJ004: a watermark or last-processed timestamp kept in a Variable.

Why: a watermark belongs to the data it describes. In a Variable it is global: any DAG or task
can overwrite it, two DAGs loading different tables can collide on one key, and nothing ties it
to the asset. ``asset_state_store`` is scoped to the asset and kept across DAG runs, and every
DAG that declares the asset as an inlet or outlet can read it (spec section 4).

How: inside a task body, ``execute()`` or a ``python_callable``: a ``Variable.set`` whose key
names a watermark (``watermark``, ``hwm``, ``last_processed_at``, ``last_sync_ts``, ...), and a
``Variable.get`` of such a key when a task in the file also writes it or the key says
``watermark`` outright.

What it does not do: report date-like configuration that a task only reads (``max_date``,
``start_date_override``), or anything at module level.
"""

from __future__ import annotations

from collections.abc import Iterator

from resumable_jobs.review.findings import WARNING, Finding
from resumable_jobs.review.index import ModuleIndex
from resumable_jobs.review.keys import KeyKind, is_strong
from resumable_jobs.review.rules.base import Rule, make_finding
from resumable_jobs.review.variables import runtime_variable_accesses, written_keys

__all__ = ["RULE"]


def check(index: ModuleIndex) -> Iterator[Finding]:
    written = written_keys(index)
    for access in runtime_variable_accesses(index):
        if access.kind is not KeyKind.WATERMARK:
            continue
        if access.op == "get" and access.key not in written and not is_strong(access.key):
            continue
        verb = "stores" if access.op == "set" else "reads"
        yield make_finding(
            index,
            access.node,
            RULE.code,
            RULE.severity,
            f"Variable.{access.op}({access.shown_key}) {verb} a watermark in a global Variable: any "
            "DAG or task can overwrite it and it is not tied to the asset it describes",
            _suggestion(access.shown_key),
        )


def _suggestion(key: str) -> str:
    return (
        "Keep it in asset_state_store, scoped to the asset and kept across DAG runs.\n"
        "Before:\n"
        f"    Variable.set({key}, new_watermark)\n"
        "After:\n"
        "    @task(inlets=[ORDERS], outlets=[ORDERS])\n"
        "    def load(asset_state_store=None):\n"
        "        store = asset_state_store[ORDERS]\n"
        '        store.set("watermark", datetime.now(tz=timezone.utc).isoformat())'
    )


RULE = Rule(
    code="RJ004",
    name="watermark-in-variable",
    severity=WARNING,
    summary="Watermark or last-processed timestamp kept in a Variable; use asset_state_store.",
    check=check,
)
