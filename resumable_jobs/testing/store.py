"""An in-memory ``task_state_store`` that is as strict as Airflow's.

Why strict: a test double that accepts what Airflow rejects hides bugs until production. This
one rejects ``None`` (the SDK does), values that are not plain JSON (the API server validates
them), and values over ``max_value_storage_bytes`` (64 KiB by default, 0 for no limit: the
public REST API refuses them, and so may a custom backend; Airflow 3.3's worker path writes
them with a warning, so this store is the strictest case). It also records every operation, so
a test can assert *how* an operator used the store - how many round trips, which retention, in
which order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

DEFAULT_MAX_VALUE_BYTES = 64 * 1024


@dataclass(frozen=True)
class StoreOperation:
    """One call made on the store: ``("get" | "set" | "delete" | "clear", key, value, retention)``."""

    op: str
    key: str | None = None
    value: Any = None
    retention: timedelta | None = None


def _check_json(value: Any, path: str = "value") -> None:
    if value is None:
        raise ValueError(f"{path}: None cannot be stored (task_state_store rejects None values)")
    if isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{path}: {value!r} is not valid JSON")
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            if item is not None:
                _check_json(item, f"{path}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{path}: dict keys must be strings, got {key!r}")
            if item is not None:
                _check_json(item, f"{path}[{key!r}]")
        return
    raise TypeError(
        f"{path}: {type(value).__name__} is not JSON-serialisable; store str, int, float, bool, "
        "list or dict (for a datetime, store value.isoformat())"
    )


class InMemoryTaskStateStore:
    """A ``task_state_store`` for one task instance, kept in a dict (see module docstring)."""

    def __init__(self, *, max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES) -> None:
        self.max_value_bytes = max_value_bytes
        self._data: dict[str, str] = {}
        self.retention: dict[str, timedelta | None] = {}
        self.operations: list[StoreOperation] = []

    def get(self, key: str, default: Any = None) -> Any:
        self.operations.append(StoreOperation("get", key))
        raw = self._data.get(key)
        return default if raw is None else json.loads(raw)

    def set(self, key: str, value: Any, *, retention: timedelta | None = None) -> None:
        if value is None:
            raise ValueError("Cannot set value as None")
        _check_json(value)
        raw = json.dumps(value, allow_nan=False)
        if self.max_value_bytes and len(raw) > self.max_value_bytes:
            raise ValueError(
                f"value for key {key!r} is {len(raw)} bytes, over max_value_storage_bytes "
                f"({self.max_value_bytes})"
            )
        self.operations.append(StoreOperation("set", key, json.loads(raw), retention))
        self._data[key] = raw
        self.retention[key] = retention

    def delete(self, key: str) -> None:
        self.operations.append(StoreOperation("delete", key))
        self._data.pop(key, None)
        self.retention.pop(key, None)

    def clear(self) -> None:
        self.operations.append(StoreOperation("clear"))
        self._data.clear()
        self.retention.clear()

    # ---------------------------------------------------------------- test helpers
    def snapshot(self) -> dict[str, Any]:
        """A copy of everything stored, decoded."""
        return {key: json.loads(raw) for key, raw in self._data.items()}

    def count(self, op: str) -> int:
        return sum(1 for o in self.operations if o.op == op)

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def __repr__(self) -> str:
        return f"<InMemoryTaskStateStore keys={sorted(self._data)}>"
