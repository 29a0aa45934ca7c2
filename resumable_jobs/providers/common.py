"""Pieces of the common operator model that every provider family shares.

Kept deliberately small: the defaults for ``deferrable`` (Airflow's ``[operators]
default_deferrable``) and the ``openlineage_inject_*`` flags, and a link class that shows a URL
the operator stored in XCom. Everything about *when* to submit, reconnect or defer lives in the
mixin, not here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperatorLink

from resumable_jobs.mixin.parameters import default_deferrable

if TYPE_CHECKING:
    from airflow.models.taskinstancekey import TaskInstanceKey
    from airflow.sdk import BaseOperator

__all__ = ["XComUrlLink", "default_deferrable", "openlineage_default", "push_xcom"]


def openlineage_default(value: bool | None, option: str) -> bool:
    """An explicit ``openlineage_inject_*`` argument, else ``[openlineage] <option>`` (default False).

    Upstream reads the option when its operator module is imported; reading it when the operator
    is built gives the same value without importing anything at DAG-parse time.
    """
    if value is not None:
        return value
    from resumable_jobs.shims.sdk_names import airflow_conf

    return airflow_conf().getboolean("openlineage", option, fallback=False)


class XComUrlLink(BaseOperatorLink):
    """An extra link whose URL the operator pushed to XCom under ``xcom_key`` on every path.

    Subclasses set ``name`` (the button label) and ``xcom_key``. Pushing the URL at run time -
    fresh submission, reconnect, already succeeded or deferred - means the link is right even
    when the task reconnected to a job an earlier try submitted.
    """

    name: ClassVar[str] = "External job"
    xcom_key: ClassVar[str] = "job_url"

    def get_link(self, operator: BaseOperator, *, ti_key: TaskInstanceKey) -> str:
        from airflow.sdk.execution_time.xcom import XCom

        return XCom.get_value(ti_key=ti_key, key=self.xcom_key) or ""


def push_xcom(context: Any, key: str, value: Any) -> None:
    """Push ``value`` when the context has a task instance (unit tests may leave it out)."""
    ti = context.get("ti") if hasattr(context, "get") else None
    if ti is not None and value is not None:
        ti.xcom_push(key=key, value=value)
