"""Building the request body of a Databricks run from the operator's rendered fields.

Both operators accept a ``json`` body plus named parameters that override its top-level keys, as
the upstream operators do. This module merges them, turns a templated ``json`` string back into a
mapping, selects the DAG params worth forwarding, and fingerprints the request so the mixin can
tell a retry of the same request from a changed one (mapped inputs that shifted, an edited DAG).

It does not talk to Databricks and does not normalise values: the operators run the upstream
``normalise_json_content`` on the result (imported when a run is built, not at DAG parse time).
"""

from __future__ import annotations

import ast
import hashlib
import json as json_lib
from collections.abc import Mapping
from typing import Any

__all__ = ["coerce_mapping", "fingerprint", "forwardable_params", "merge_named"]

#: Keys that differ between otherwise identical submissions and must not change the fingerprint.
_VOLATILE_KEYS = ("idempotency_token",)


def coerce_mapping(value: Any, *, name: str = "json") -> dict[str, Any]:
    """``None`` -> ``{}``; a mapping -> a shallow dict copy; a JSON or Python-literal string -> dict."""
    if value is None or value == "":
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        try:
            parsed = json_lib.loads(value)
        except ValueError:
            try:
                parsed = ast.literal_eval(value)
            except (SyntaxError, ValueError, TypeError, MemoryError) as err:
                raise ValueError(f"{name} must render to a JSON object or a Python dict literal") from err
        if isinstance(parsed, Mapping):
            return dict(parsed)
        value = parsed
    raise ValueError(f"{name} must be a mapping, got {type(value).__name__}")


def merge_named(body: Any, named: Mapping[str, Any]) -> dict[str, Any]:
    """Merge the named parameters that are set (not None) over the top-level keys of ``body``."""
    merged = coerce_mapping(body)
    merged.update({key: value for key, value in named.items() if value is not None})
    return merged


def forwardable_params(params: Any) -> dict[str, Any]:
    """The DAG params with a value (a param resolving to None has no place in a Databricks body)."""
    if not params:
        return {}
    resolved = dict(params)  # a ParamsDict resolves its Param objects to values here
    return {key: value for key, value in resolved.items() if value is not None}


def fingerprint(body: Mapping[str, Any]) -> str:
    """A stable hash of the request (without its idempotency token)."""
    stable = {key: value for key, value in body.items() if key not in _VOLATILE_KEYS}
    canonical = json_lib.dumps(stable, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()[:32]
