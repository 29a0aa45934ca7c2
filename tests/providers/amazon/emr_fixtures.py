"""EMR Serverless and EMR on EKS behind moto, reachable by boto3 *and* aiobotocore.

* ``moto_endpoint`` (session): moto's ``ThreadedMotoServer`` on a free 127.0.0.1 port, in this
  process, with :mod:`resumable_jobs.local.moto_models` installed - so the real upstream hooks
  (boto3) and the real upstream triggers (aiobotocore, which moto's in-process mock does not
  serve) reach the same backends, and a test can inspect them directly.
* ``emr_aws``: fake credentials, ``AWS_ENDPOINT_URL`` pointing at that server (boto3 and
  aiobotocore both read it), moto reset, and the job-run progressions back to their defaults.
* ``serverless_app`` / ``virtual_cluster``: one application / virtual cluster and a view of what
  moto saw: ``runs()`` lists every job run (ListJobRuns), ``hold()`` / ``release()`` / ``fail()``
  / ``progress(times)`` set the runs' progression (see ``_job_runs`` in the moto models).
* ``serverless_operator(app, **kwargs)`` / ``container_operator(cluster, **kwargs)``: the operator
  on that application / virtual cluster, reaching moto, polling without sleeping.
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from typing import Any

import pytest

from tests.providers.amazon.aws_env import fake_aws_env

REGION = "eu-west-1"
ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/rj-emr-job"
RELEASE = "emr-6.15.0"
SPARK_DRIVER = {"sparkSubmit": {"entryPoint": "s3://rj-bucket/jobs/etl.py", "entryPointArguments": ["--day", "1"]}}
EKS_DRIVER = {"sparkSubmitJobDriver": {"entryPoint": "s3://rj-bucket/jobs/etl.py"}}


@pytest.fixture(scope="session")
def moto_endpoint():
    from moto.server import ThreadedMotoServer

    from resumable_jobs.local.moto_models import install_all

    install_all()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def emr_aws(moto_endpoint, monkeypatch):
    """Fake credentials, the local endpoint, a reset moto, default progressions."""
    from moto.moto_api import state_manager

    from resumable_jobs.local.moto_models import emr_containers, emr_serverless

    fake_aws_env(monkeypatch, REGION, endpoints={"AWS_ENDPOINT_URL": moto_endpoint})
    urllib.request.urlopen(urllib.request.Request(f"{moto_endpoint}/moto-api/reset", method="POST")).read()
    models = (emr_serverless.MODEL_NAME, emr_containers.MODEL_NAME)
    for model in models:
        state_manager.unset_transition(model)
    yield moto_endpoint
    for model in models:
        state_manager.unset_transition(model)


@dataclass
class _Runs:
    client: Any
    model: str

    def set_progression(self, transition: dict[str, Any]) -> None:
        from moto.moto_api import state_manager

        state_manager.set_transition(self.model, transition)

    def hold(self) -> None:
        self.set_progression({"progression": "hold"})

    def release(self) -> None:
        self.set_progression({"progression": "immediate"})

    def fail(self) -> None:
        self.set_progression({"progression": "fail"})

    def progress(self, times: int) -> None:
        """Runs advance one state every ``times`` status reads."""
        self.set_progression({"progression": "manual", "times": times})


@dataclass
class ServerlessApp(_Runs):
    application_id: str = ""

    def runs(self) -> list[dict[str, Any]]:
        """Every run of the application, oldest first (moto answers ResourceNotFound before the first)."""
        try:
            return self.client.list_job_runs(applicationId=self.application_id)["jobRuns"]
        except self.client.exceptions.ResourceNotFoundException:
            return []

    def run(self, job_run_id: str) -> dict[str, Any]:
        return self.client.get_job_run(applicationId=self.application_id, jobRunId=job_run_id)["jobRun"]


@dataclass
class VirtualCluster(_Runs):
    virtual_cluster_id: str = ""

    def runs(self) -> list[dict[str, Any]]:
        return self.client.list_job_runs(virtualClusterId=self.virtual_cluster_id)["jobRuns"]

    def run(self, job_run_id: str) -> dict[str, Any]:
        return self.client.describe_job_run(virtualClusterId=self.virtual_cluster_id, id=job_run_id)["jobRun"]


@pytest.fixture
def serverless_app(emr_aws):
    import boto3

    from resumable_jobs.local.moto_models.emr_serverless import MODEL_NAME

    client = boto3.client("emr-serverless", region_name=REGION)
    application_id = client.create_application(name="rj-app", releaseLabel=RELEASE, type="SPARK")["applicationId"]
    return ServerlessApp(client, MODEL_NAME, application_id)


@pytest.fixture
def virtual_cluster(emr_aws):
    import boto3

    from resumable_jobs.local.moto_models.emr_containers import MODEL_NAME

    client = boto3.client("emr-containers", region_name=REGION)
    provider = {"id": "rj-eks", "type": "EKS", "info": {"eksInfo": {"namespace": "rj-jobs"}}}
    cluster_id = client.create_virtual_cluster(name="rj-vc", containerProvider=provider)["id"]
    return VirtualCluster(client, MODEL_NAME, cluster_id)


#: What both EMR operators need to reach moto and poll without sleeping (besides their own poll interval).
_TO_MOTO = {"aws_conn_id": None, "region_name": REGION, "execution_role_arn": ROLE}


def serverless_operator(app: ServerlessApp, **kwargs: Any) -> Any:
    from resumable_jobs.providers.amazon import EmrServerlessStartJobOperator

    given = {"task_id": "spark_etl", "job_driver": SPARK_DRIVER, "waiter_delay": 0, **kwargs}
    return EmrServerlessStartJobOperator(**{**_TO_MOTO, "application_id": app.application_id, **given})


def container_operator(cluster: VirtualCluster, **kwargs: Any) -> Any:
    from resumable_jobs.providers.amazon import EmrContainerOperator

    given = {"task_id": "eks_etl", "name": "nightly-etl", "job_driver": EKS_DRIVER, "poll_interval": 0, **kwargs}
    defaults = {**_TO_MOTO, "virtual_cluster_id": cluster.virtual_cluster_id, "release_label": "emr-6.15.0-latest"}
    return EmrContainerOperator(**{**defaults, **given})


def set_transition_over_http(endpoint: str, model: str, transition: dict[str, Any]) -> None:
    """What a drill in another process does: moto's documented state-manager endpoint."""
    body = json.dumps({"model_name": model, "transition": transition}).encode()
    request = urllib.request.Request(f"{endpoint}/moto-api/state-manager/set-transition", data=body, method="POST")
    urllib.request.urlopen(request).read()
