"""``DatabricksSubmitRunOperator``: a one-time run (``api/2.2/jobs/runs/submit``), crash-safe."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from resumable_jobs.providers.common import openlineage_default
from resumable_jobs.providers.databricks import payload
from resumable_jobs.providers.databricks.base import DatabricksRunOperatorBase

if TYPE_CHECKING:
    from airflow.sdk import Context

__all__ = ["DatabricksSubmitRunOperator"]

#: Task types whose dict-shaped parameter field receives the DAG params when it is empty.
_PARAM_FIELD_BY_TASK_TYPE = {
    "notebook_task": "base_parameters",
    "python_wheel_task": "named_parameters",
    "sql_task": "parameters",
    "run_job_task": "job_parameters",
}


class DatabricksSubmitRunOperator(DatabricksRunOperatorBase):
    """Submit a one-time Databricks run; a retry after a worker crash follows the same run.

    What it is for: a drop-in for ``airflow.providers.databricks.operators.databricks.
    DatabricksSubmitRunOperator`` - same parameters and template fields - whose retries never
    start a duplicate run: not on the synchronous path, not on the deferrable path, not with
    ``wait_for_termination=False``, and not when the worker died between the POST returning and
    the run id being saved.

    How it works: ``json`` and the named parameters (``tasks``, ``notebook_task``,
    ``new_cluster``, ...) are merged, the named ones winning; DAG params fill empty dict-shaped
    task parameters; the body is normalised the way upstream does it. The mixin persists a
    submission generation before the POST and the run id after it (store key
    ``databricks_run_id``, the upstream key, so a task migrated mid-flight keeps its run). The
    POST carries an ``idempotency_token`` per generation, so a retry that lost the run id gets the
    same run back from Databricks, and a retry after a failed run starts a new one. Extra
    parameters: ``durable`` (None: on where Airflow supports it); ``deferrable`` defaults to
    ``[operators] default_deferrable``.

    What it does not do: it does not wait when ``wait_for_termination=False`` (even with
    ``deferrable=True``, which warns); it does not re-render a request that changed between
    retries into the old run (a changed request starts a new run, with a warning); it returns the
    run id rather than the run's output.
    """

    external_id_key: ClassVar[str] = "databricks_run_id"
    hook_caller: ClassVar[str] = "DatabricksSubmitRunOperator"
    template_fields = (
        "json",
        "tasks",
        "spark_jar_task",
        "notebook_task",
        "spark_python_task",
        "spark_submit_task",
        "pipeline_task",
        "dbt_task",
        "new_cluster",
        "existing_cluster_id",
        "libraries",
        "environments",
        "run_name",
        "timeout_seconds",
        "idempotency_token",
        "access_control_list",
        "git_source",
        "performance_target",
        "databricks_conn_id",
    )

    def __init__(
        self,
        *,
        json: Any | None = None,
        tasks: list[object] | None = None,
        spark_jar_task: dict[str, Any] | None = None,
        notebook_task: dict[str, Any] | None = None,
        spark_python_task: dict[str, Any] | None = None,
        spark_submit_task: dict[str, Any] | None = None,
        pipeline_task: dict[str, Any] | None = None,
        dbt_task: dict[str, Any] | None = None,
        new_cluster: dict[str, object] | None = None,
        existing_cluster_id: str | None = None,
        libraries: list[dict[str, Any]] | None = None,
        environments: list[dict[str, Any]] | None = None,
        run_name: str | None = None,
        timeout_seconds: int | None = None,
        access_control_list: list[dict[str, str]] | None = None,
        git_source: dict[str, str] | None = None,
        performance_target: str | None = None,
        openlineage_inject_parent_job_info: bool | None = None,
        openlineage_inject_transport_info: bool | None = None,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        self.json = json
        self.tasks = tasks
        self.spark_jar_task = spark_jar_task
        self.notebook_task = notebook_task
        self.spark_python_task = spark_python_task
        self.spark_submit_task = spark_submit_task
        self.pipeline_task = pipeline_task
        self.dbt_task = dbt_task
        self.new_cluster = new_cluster
        self.existing_cluster_id = existing_cluster_id
        self.libraries = libraries
        self.environments = environments
        self.run_name = run_name
        self.timeout_seconds = timeout_seconds
        self.access_control_list = access_control_list
        self.git_source = git_source
        self.performance_target = performance_target
        self.openlineage_inject_parent_job_info = openlineage_default(
            openlineage_inject_parent_job_info, "spark_inject_parent_job_info"
        )
        self.openlineage_inject_transport_info = openlineage_default(
            openlineage_inject_transport_info, "spark_inject_transport_info"
        )

    def _request_body(self, context: Context) -> dict[str, Any]:
        body = payload.merge_named(
            self.json,
            {
                "tasks": self.tasks,
                "spark_jar_task": self.spark_jar_task,
                "notebook_task": self.notebook_task,
                "spark_python_task": self.spark_python_task,
                "spark_submit_task": self.spark_submit_task,
                "pipeline_task": self.pipeline_task,
                "dbt_task": self.dbt_task,
                "new_cluster": self.new_cluster,
                "existing_cluster_id": self.existing_cluster_id,
                "libraries": self.libraries,
                "environments": self.environments,
                "run_name": self.run_name,
                "timeout_seconds": self.timeout_seconds,
                "access_control_list": self.access_control_list,
                "git_source": self.git_source,
                "performance_target": self.performance_target,
            },
        )
        body.pop("idempotency_token", None)  # chosen per generation in submit_job
        body.setdefault("run_name", self.task_id)
        if "dbt_task" in body and "git_source" not in body:
            raise ValueError("git_source is required for dbt_task")
        pipeline = body.get("pipeline_task")
        if isinstance(pipeline, Mapping) and "pipeline_id" in pipeline and "pipeline_name" in pipeline:
            raise ValueError("'pipeline_name' is not allowed in conjunction with 'pipeline_id'")
        body = copy.deepcopy(body)  # never write into the rendered template fields
        params = self._params_to_forward()
        if params:
            tasks = body.get("tasks")
            for task in tasks if isinstance(tasks, list) else [body]:
                if isinstance(task, dict):
                    _fill_empty_parameters(task, params)
        return self._normalised(body)

    def _start_run(self, body: dict[str, Any], context: Context) -> int:
        pipeline = body.get("pipeline_task")
        if isinstance(pipeline, Mapping) and not pipeline.get("pipeline_id") and pipeline.get("pipeline_name"):
            resolved = {k: v for k, v in pipeline.items() if k != "pipeline_name"}
            resolved["pipeline_id"] = self.hook.find_pipeline_id_by_name(pipeline["pipeline_name"])
            body["pipeline_task"] = resolved
        if self.openlineage_inject_parent_job_info or self.openlineage_inject_transport_info:
            body = self._with_openlineage(body, context)
        return self.hook.submit_run(body)

    def _with_openlineage(self, body: dict[str, Any], context: Context) -> dict[str, Any]:
        try:
            from airflow.providers.databricks.utils.openlineage import (
                inject_openlineage_context_into_databricks_job_parameters,
                inject_openlineage_properties_into_databricks_job,
            )

            injected = copy.deepcopy(body)
            if self.openlineage_inject_parent_job_info:
                tasks = injected.get("tasks")
                for task in tasks if isinstance(tasks, list) else [injected]:
                    for task_type, field in _PARAM_FIELD_BY_TASK_TYPE.items():
                        if isinstance(task, dict) and isinstance(task.get(task_type), dict):
                            task[task_type][field] = inject_openlineage_context_into_databricks_job_parameters(
                                job_parameters=task[task_type].get(field) or {},
                                context=context,
                            )
            return inject_openlineage_properties_into_databricks_job(
                job=injected,
                context=context,
                inject_parent_job_info=self.openlineage_inject_parent_job_info,
                inject_transport_info=self.openlineage_inject_transport_info,
            )
        except Exception as err:  # noqa: BLE001 - lineage is optional; never fail the run for it
            self.log.warning(
                "OpenLineage information was not injected into the Databricks run: %s",
                err,
            )
            return body


def _fill_empty_parameters(task: dict[str, Any], params: dict[str, Any]) -> None:
    for task_type, field in _PARAM_FIELD_BY_TASK_TYPE.items():
        definition = task.get(task_type)
        if isinstance(definition, dict) and not definition.get(field):
            definition[field] = dict(params)
