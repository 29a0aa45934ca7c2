"""``DatabricksRunNowOperator``: a run of an existing job (``api/2.2/jobs/run-now``), crash-safe."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, ClassVar

from resumable_jobs.providers.common import openlineage_default
from resumable_jobs.providers.databricks import payload
from resumable_jobs.providers.databricks.base import DatabricksRunOperatorBase

if TYPE_CHECKING:
    from airflow.sdk import Context

__all__ = ["DatabricksRunNowOperator"]

#: Parameter slots Databricks refuses to combine with ``job_parameters``.
_LEGACY_PARAMETER_SLOTS = (
    "notebook_params",
    "python_params",
    "jar_params",
    "spark_submit_params",
    "python_named_params",
    "dbt_commands",
)
#: Suffix of the store key recording the generation whose ``cancel_previous_runs`` already ran.
_CANCELLED_SUFFIX = "_previous_runs_cancelled"


class DatabricksRunNowOperator(DatabricksRunOperatorBase):
    """Trigger a run of an existing Databricks job; a retry after a worker crash follows the same run.

    What it is for: a drop-in for ``airflow.providers.databricks.operators.databricks.
    DatabricksRunNowOperator`` - same parameters and template fields - whose retries never start
    a duplicate run of the job on any path (sync, deferrable, ``wait_for_termination=False``), and
    never cancel the run they reconnect to.

    How it works: ``json`` and the named parameters (``job_id`` or ``job_name``,
    ``job_parameters``, ``notebook_params``, ...) are merged, the named ones winning; DAG params
    become ``job_parameters`` when none are given and no legacy parameter slot is used
    (``forward_dag_params``). The run id is stored under ``databricks_run_now_id`` (the upstream
    key). ``cancel_previous_runs`` cancels the job's active runs only when this try really starts
    a run - never on a reconnect - and only once per submission generation, so a retry that lost
    the run id does not cancel the run Databricks is about to hand back for the same
    ``idempotency_token``. ``repair_run`` repairs a failed run once per try (sync) or once per
    deferral chain (deferrable) and keeps following the same run id.

    What it does not do: it does not re-resolve ``job_name`` on a reconnect (the stored run is
    followed as it is); it does not cancel runs started by others between a crashed try's
    cancellation and its retry's submission.
    """

    external_id_key: ClassVar[str] = "databricks_run_now_id"
    hook_caller: ClassVar[str] = "DatabricksRunNowOperator"
    template_fields = (
        "json",
        "job_id",
        "job_name",
        "job_parameters",
        "dbt_commands",
        "notebook_params",
        "python_params",
        "python_named_params",
        "jar_params",
        "spark_submit_params",
        "idempotency_token",
        "performance_target",
        "databricks_conn_id",
    )

    def __init__(
        self,
        *,
        job_id: str | int | None = None,
        job_name: str | None = None,
        job_parameters: dict[str, Any] | None = None,
        json: Any | None = None,
        dbt_commands: list[str] | None = None,
        notebook_params: dict[str, str] | None = None,
        python_params: list[str] | None = None,
        jar_params: list[str] | None = None,
        spark_submit_params: list[str] | None = None,
        python_named_params: dict[str, str] | None = None,
        performance_target: str | None = None,
        openlineage_inject_parent_job_info: bool | None = None,
        repair_run: bool = False,
        databricks_repair_reason_new_settings: dict[str, Any] | None = None,
        cancel_previous_runs: bool = False,
        forward_dag_params: bool = True,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        self.json = json
        self.job_id = job_id
        self.job_name = job_name
        self.job_parameters = job_parameters
        self.dbt_commands = dbt_commands
        self.notebook_params = notebook_params
        self.python_params = python_params
        self.jar_params = jar_params
        self.spark_submit_params = spark_submit_params
        self.python_named_params = python_named_params
        self.performance_target = performance_target
        self.openlineage_inject_parent_job_info = openlineage_default(
            openlineage_inject_parent_job_info, "spark_inject_parent_job_info"
        )
        self.repair_run = repair_run
        self.databricks_repair_reason_new_settings = databricks_repair_reason_new_settings or {}
        self.cancel_previous_runs = cancel_previous_runs
        self.forward_dag_params = forward_dag_params

    # ----------------------------------------------------------------- request
    def _request_body(self, context: Context) -> dict[str, Any]:
        body = payload.merge_named(
            self.json,
            {
                "job_id": self.job_id,
                "job_name": self.job_name,
                "job_parameters": self.job_parameters,
                "dbt_commands": self.dbt_commands,
                "notebook_params": self.notebook_params,
                "python_params": self.python_params,
                "python_named_params": self.python_named_params,
                "jar_params": self.jar_params,
                "spark_submit_params": self.spark_submit_params,
                "performance_target": self.performance_target,
            },
        )
        body.pop("idempotency_token", None)  # chosen per generation in submit_job
        if "job_id" in body and "job_name" in body:
            raise ValueError("Argument 'job_name' is not allowed with argument 'job_id'")
        body = copy.deepcopy(body)
        if (
            self.forward_dag_params
            and not body.get("job_parameters")
            and not any(slot in body for slot in _LEGACY_PARAMETER_SLOTS)
        ):
            params = self._params_to_forward()
            if params:
                body["job_parameters"] = params
        return self._normalised(body)

    def _start_run(self, body: dict[str, Any], context: Context) -> int:
        if "job_name" in body:
            job_id = self.hook.find_job_id_by_name(body["job_name"])
            if job_id is None:
                raise ValueError(f"No Databricks job is named {body['job_name']!r}")
            body = {k: v for k, v in body.items() if k != "job_name"}
            body["job_id"] = job_id
        if self.cancel_previous_runs:
            self._cancel_previous_runs(body.get("job_id"), context)
        if self.openlineage_inject_parent_job_info:
            body = self._with_openlineage(body, context)
        return self.hook.run_now(body)

    def _cancel_previous_runs(self, job_id: Any, context: Context) -> None:
        if job_id is None:
            raise ValueError("cancel_previous_runs=True requires job_id or job_name")
        store = context.get("task_state_store") if getattr(self, "durable", False) else None
        marker_key = f"{self.external_id_key}{_CANCELLED_SUFFIX}"
        if store is not None and self.submission_token and store.get(marker_key) == self.submission_token:
            self.log.info(
                "Not cancelling the runs of job %s again: an earlier try of this submission already did, "
                "and may have started the run this try is about to be handed back",
                job_id,
            )
            return
        self.hook.cancel_all_runs(job_id)
        self.log.info("Cancelled the active runs of job %s (cancel_previous_runs=True)", job_id)
        if store is not None and self.submission_token:
            from airflow.sdk import NEVER_EXPIRE

            store.set(marker_key, self.submission_token, retention=NEVER_EXPIRE)

    def _with_openlineage(self, body: dict[str, Any], context: Context) -> dict[str, Any]:
        if any(slot in body for slot in _LEGACY_PARAMETER_SLOTS):
            self.log.info("OpenLineage context not injected: legacy parameter slots cannot carry job_parameters")
            return body
        try:
            from airflow.providers.databricks.utils.openlineage import (
                inject_openlineage_context_into_databricks_job_parameters,
            )

            return {
                **body,
                "job_parameters": inject_openlineage_context_into_databricks_job_parameters(
                    job_parameters=dict(body.get("job_parameters") or {}),
                    context=context,
                ),
            }
        except Exception as err:  # noqa: BLE001 - lineage is optional; never fail the run for it
            self.log.warning("OpenLineage context was not injected into the Databricks run: %s", err)
            return body

    # ----------------------------------------------------------------- repair
    def _trigger_repair_flag(self) -> bool:
        return bool(self.repair_run)

    def _repair_matches(self, state: dict[str, Any]) -> bool:
        if not self.databricks_repair_reason_new_settings:
            return True
        message = state.get("state_message") or ""
        return any(reason in message for reason in self.databricks_repair_reason_new_settings)

    def _repair(self, run_id: Any, state: dict[str, Any], context: Context) -> None:
        message = state.get("state_message") or ""
        reason = next(
            (r for r in self.databricks_repair_reason_new_settings if r in message),
            None,
        )
        if reason is not None:
            job_id = self.hook.get_job_id(run_id)
            self.hook.update_job(
                job_id=job_id,
                json=self._normalised(self.databricks_repair_reason_new_settings[reason]),
            )
        request: dict[str, Any] = {"run_id": run_id, "rerun_all_failed_tasks": True}
        latest = self.hook.get_latest_repair_id(run_id)
        if latest is not None:
            request["latest_repair_id"] = latest
        job_parameters = self._request_body(context).get("job_parameters")
        if job_parameters:
            request["job_parameters"] = job_parameters
        self.hook.repair_run(request)
        self.log.warning(
            "Databricks run %s failed (%s); repairing its failed tasks (repair_run=True)",
            run_id,
            message,
        )

    def _repair_failed_run(self, run_id: Any, run_info: dict[str, Any], context: Context) -> bool:
        state = run_info.get("state") or {}
        if not self.repair_run or not self._repair_matches(state):
            return False
        self.repair_run = False  # once per try
        self._repair(run_id, state, context)
        return True

    def _repair_after_deferral(self, run_id: Any, event: dict[str, Any], context: Context) -> bool:
        state = payload.coerce_mapping(event.get("run_state"), name="run_state")
        if not event.get("repair_run") or not self._repair_matches(state):
            return False
        self._repair(run_id, state, context)
        self.defer(
            trigger=self._trigger(run_id, repair_run=False),
            method_name="execute_complete",
        )
        return True  # pragma: no cover - defer() raises
