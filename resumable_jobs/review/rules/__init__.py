"""The reviewer's rules, one module each, registered in code order.

Each rule module defines ``RULE``; adding a rule means adding its module here. Codes are stable:
a code is never reused for a different check, so ``--select``, ``--ignore`` and ``# noqa``
comments written against one release keep meaning the same thing.
"""

from __future__ import annotations

from resumable_jobs.review.rules import (
    rj001_variable_state,
    rj002_xcom_job_id,
    rj003_reconnect,
    rj004_watermark,
    rj005_submit_then_sensor,
    rj006_deferrable_nowait,
    rj007_mixin_subclass,
    rj008_store_values,
    rj009_per_try_request,
)
from resumable_jobs.review.rules.base import Rule

__all__ = ["ALL_RULES", "RULES_BY_CODE", "Rule"]

ALL_RULES: tuple[Rule, ...] = (
    rj001_variable_state.RULE,
    rj002_xcom_job_id.RULE,
    rj003_reconnect.RULE,
    rj004_watermark.RULE,
    rj005_submit_then_sensor.RULE,
    rj006_deferrable_nowait.RULE,
    rj007_mixin_subclass.RULE,
    rj008_store_values.RULE,
    rj009_per_try_request.RULE,
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in ALL_RULES}
