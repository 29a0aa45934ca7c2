"""Operators that submit an external job, and how each one is told to wait for it.

Why: RJ005 needs to know whether a submit task returns before its job finishes. That depends on
the operator: most wait by default and take ``wait_for_termination``/``wait_for_completion``,
some Google operators take ``asynchronous=True`` to stop waiting, and a few (EMR add steps, Step
Functions) do not wait unless asked. Keeping the table here, with the reason for each entry,
makes it easy to review and extend.

What it does not do: list operators that trigger Airflow's own DAG runs
(``TriggerDagRunOperator``, ``MwaaTriggerDagRunOperator``): a DAG run is not an external job
this project makes crash-safe, and "trigger without waiting" is their normal, intended use.
"""

from __future__ import annotations

from collections import namedtuple

__all__ = [
    "SUBMIT_OPERATORS",
    "THIRD_PARTY_SUBMIT_OPERATORS",
    "WaitModel",
    "flagged_wait_model",
    "is_sensor_name",
    "submit_operator",
]


class WaitModel(namedtuple("WaitModel", "keyword wait_value default")):
    """How an operator decides whether to wait for its job.

    ``keyword`` is the argument that switches waiting (``None`` when there is none),
    ``wait_value`` the value of that argument that means "wait", ``default`` whether the
    operator waits when the argument is not given.
    """

    __slots__ = ()

    def describe_no_wait(self) -> str:
        """Why it does not wait, for "'x' does not wait (...)": no parentheses of its own."""
        if self.keyword is None:
            return "it has no wait argument"
        return f"{self.keyword}={not self.wait_value}"

    def describe_wait(self) -> str:
        if self.keyword is None:
            return "deferrable=True"
        return f"{self.keyword}={self.wait_value}"


_TERMINATION = WaitModel("wait_for_termination", True, True)
_COMPLETION = WaitModel("wait_for_completion", True, True)
_COMPLETION_OFF = WaitModel("wait_for_completion", True, False)
_ASYNCHRONOUS = WaitModel("asynchronous", False, True)
_NEVER = WaitModel(None, True, False)

SUBMIT_OPERATORS: dict[str, WaitModel] = {
    # Databricks, dbt Cloud, Azure Data Factory, and this project's own operators
    "DatabricksSubmitRunOperator": _TERMINATION,
    "DatabricksRunNowOperator": _TERMINATION,
    "DatabricksNotebookOperator": _TERMINATION,
    "DatabricksTaskOperator": _TERMINATION,
    "DatabricksSQLStatementsOperator": _TERMINATION,
    "DbtCloudRunJobOperator": _TERMINATION,
    "AzureDataFactoryRunPipelineOperator": _TERMINATION,
    "BigQueryInsertJobOperator": _TERMINATION,  # resumable_jobs' variant takes the common model
    "SparkSubmitOperator": _TERMINATION,  # resumable_jobs' variant takes the common model
    # AWS: wait by default
    "BatchOperator": _COMPLETION,
    "GlueJobOperator": _COMPLETION,
    "GlueDataBrewStartJobOperator": _COMPLETION,
    "EmrServerlessStartJobOperator": _COMPLETION,
    "EmrContainerOperator": _COMPLETION,
    "EcsRunTaskOperator": _COMPLETION,
    "RedshiftDataOperator": _COMPLETION,
    "SageMakerTrainingOperator": _COMPLETION,
    "SageMakerProcessingOperator": _COMPLETION,
    "SageMakerTransformOperator": _COMPLETION,
    "SageMakerTuningOperator": _COMPLETION,
    "SageMakerAutoMLOperator": _COMPLETION,
    "GlueDataQualityRuleSetEvaluationRunOperator": _COMPLETION,
    "ComprehendStartPiiEntitiesDetectionJobOperator": _COMPLETION,
    "ComprehendCreateDocumentClassifierOperator": _COMPLETION,
    "BedrockCustomizeModelOperator": _COMPLETION,
    "BedrockIngestDataOperator": _COMPLETION,
    "BedrockBatchInferenceOperator": _COMPLETION,
    "QuickSightCreateIngestionOperator": _COMPLETION,
    # Kubernetes: creating the SparkApplication returns at once in the versions DAGs pair with
    # SparkKubernetesSensor
    "SparkKubernetesOperator": _NEVER,
    # AWS: do not wait unless asked
    "EmrAddStepsOperator": _COMPLETION_OFF,
    # (EmrCreateJobFlowOperator is not here: it provisions a cluster, and a sensor waiting for
    # the cluster reports the cluster's state, not a job's outcome.)
    "EmrStartNotebookExecutionOperator": _COMPLETION_OFF,
    "SageMakerStartPipelineOperator": _COMPLETION_OFF,
    "StepFunctionStartExecutionOperator": _NEVER,
    # Azure Synapse: like Data Factory
    "AzureSynapseRunPipelineOperator": _TERMINATION,
    "AzureSynapseRunSparkBatchOperator": _TERMINATION,
    # Dataflow: wait_until_finished=False returns once the job is launched (batch jobs wait
    # by default)
    "DataflowTemplatedJobStartOperator": WaitModel("wait_until_finished", True, True),
    "DataflowStartFlexTemplateOperator": WaitModel("wait_until_finished", True, True),
    # Google and Airbyte: asynchronous=True returns right after submitting
    "DataprocSubmitJobOperator": _ASYNCHRONOUS,
    "DataprocCreateBatchOperator": _ASYNCHRONOUS,
    "DataformCreateWorkflowInvocationOperator": _ASYNCHRONOUS,
    "CloudDataFusionStartPipelineOperator": _ASYNCHRONOUS,
    "AirbyteTriggerSyncOperator": _ASYNCHRONOUS,
}


#: packages whose operators keep the names (and wait arguments) of the table above
_KNOWN_PACKAGES = ("airflow.providers.", "airflow.contrib.", "resumable_jobs", "astronomer.providers.")

#: vendors' own provider packages (not ``airflow.providers.*``), by top-level package and class
#: name: the same class name means different things in different packages
THIRD_PARTY_SUBMIT_OPERATORS: dict[tuple[str, str], WaitModel] = {
    # airflow-provider-fivetran: execute() starts the connector's sync and returns at once
    ("fivetran_provider", "FivetranOperator"): _NEVER,
    # airflow-provider-fivetran-async: defers and waits unless wait_for_completion=False
    ("fivetran_provider_async", "FivetranOperator"): _COMPLETION,
    # airflow-provider-census: execute() triggers the sync and returns the sync run's id
    ("airflow_provider_census", "CensusOperator"): _NEVER,
    # airflow-provider-hightouch: waits only with synchronous=True
    ("airflow_provider_hightouch", "HightouchTriggerSyncOperator"): WaitModel("synchronous", True, False),
}

#: old names still found in DAGs
_ALIASES = {"AwsGlueJobOperator": "GlueJobOperator", "AwsBatchOperator": "BatchOperator"}


def submit_operator(qualified_name: str | None) -> WaitModel | None:
    """The wait model of a submit operator, if ``qualified_name`` is one from a known package.

    astronomer-providers' ``*Async`` operators are the deferrable form of the operator of the
    same name: they defer (and so wait) unless told not to wait.
    """
    if not qualified_name:
        return None
    if not qualified_name.startswith(_KNOWN_PACKAGES):
        package, _, rest = qualified_name.partition(".")
        return THIRD_PARTY_SUBMIT_OPERATORS.get((package, rest.rsplit(".", 1)[-1])) if rest else None
    name = qualified_name.rsplit(".", 1)[-1]
    deferrable = name.endswith("Async")
    if deferrable:
        name = name[: -len("Async")]
    name = _ALIASES.get(name, name)
    model = SUBMIT_OPERATORS.get(name)
    if model is not None and deferrable:
        return WaitModel(model.keyword, model.wait_value, True)
    return model


def flagged_wait_model(qualified_name: str | None, flag: str) -> WaitModel | None:
    """The wait model of a known package's operator that the table above does not list, when
    the DAG switches its wait off with ``flag`` (``wait_for_completion``/``wait_for_termination``).

    Providers add job operators faster than any table follows, and they share the two wait
    flags: ``SsmRunCommandOperator(wait_for_completion=False)`` submits a command and returns.
    Not for operators that provision or remove a resource (``EmrCreateJobFlowOperator``,
    ``EksCreateClusterOperator``, ``RdsStartDbOperator``: a sensor on them reports the resource,
    not a job's outcome) nor for ones that trigger Airflow DAG runs.
    """
    if flag not in _WAIT_FLAGS or not qualified_name or not qualified_name.startswith(_KNOWN_PACKAGES):
        return None
    name = qualified_name.rsplit(".", 1)[-1]
    if not name.endswith("Operator") or name.endswith(("TriggerDagRunOperator", "SensorAsync")):
        return None
    if any(word in name for word in _RESOURCE_WORDS):
        return None
    return WaitModel(flag, True, True)


_WAIT_FLAGS = ("wait_for_completion", "wait_for_termination")

#: words in an operator's name that say it provisions, changes or removes a resource
_RESOURCE_WORDS = (
    "Create",
    "Delete",
    "Terminate",
    "Stop",
    "Cluster",
    "JobFlow",
    "Instance",
    "Application",
    "Environment",
    "Endpoint",
    "Nodegroup",
    "Fargate",
    "StartDb",
    "Database",
    "Snapshot",
    "Stack",
    "Bucket",
    "Table",
    "Notebook",
    "Workspace",
    "Warehouse",
)


def is_sensor_name(qualified_name: str | None) -> bool:
    """``...Sensor`` or astronomer-providers' ``...SensorAsync``."""
    return bool(qualified_name) and qualified_name.endswith(("Sensor", "SensorAsync"))
