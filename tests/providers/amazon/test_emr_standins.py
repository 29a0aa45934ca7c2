"""The EMR stand-ins: moto's EMR Serverless and EMR on EKS backends plus what AWS documents.

Each behaviour is checked through the real upstream hooks (``EmrServerlessHook``,
``EmrContainerHook``), in-process (ThreadedMotoServer, the fixtures of the amazon tests) and, for
the held run released from another process, in a moto_server subprocess started the way the
production deployments start it.
"""

from __future__ import annotations

import pytest

from resumable_jobs.local.moto_models import emr_containers, emr_serverless, install_all, model_modules
from tests.providers.amazon.emr_fixtures import EKS_DRIVER, REGION, ROLE, SPARK_DRIVER, set_transition_over_http


def _serverless_hook():
    from airflow.providers.amazon.aws.hooks.emr import EmrServerlessHook

    return EmrServerlessHook(aws_conn_id=None, region_name=REGION)


def _containers_hook(cluster_id):
    from airflow.providers.amazon.aws.hooks.emr import EmrContainerHook

    return EmrContainerHook(aws_conn_id=None, region_name=REGION, virtual_cluster_id=cluster_id)


def _start(app, token):
    return _serverless_hook().conn.start_job_run(
        applicationId=app.application_id, clientToken=token, executionRoleArn=ROLE, jobDriver=SPARK_DRIVER
    )["jobRunId"]


def test_the_emr_modules_are_installed_and_install_is_idempotent():
    from moto.emrserverless.models import EMRServerlessBackend

    assert {"emr_serverless", "emr_containers"} <= set(model_modules())
    install_all()
    wrapper = EMRServerlessBackend.start_job_run
    emr_serverless.install()
    emr_containers.install()
    assert EMRServerlessBackend.start_job_run is wrapper  # not wrapped twice


def test_serverless_repeated_client_token_answers_with_the_first_run(serverless_app):
    first, again, other = _start(serverless_app, "t-1"), _start(serverless_app, "t-1"), _start(serverless_app, "t-2")
    assert first == again != other
    assert len(serverless_app.runs()) == 2


def test_serverless_keeps_motos_default_outcome_and_walks_the_documented_states(serverless_app):
    assert serverless_app.run(_start(serverless_app, "now"))["state"] == "SUCCESS"  # moto's answer
    serverless_app.progress(times=1)
    run_id = _start(serverless_app, "walk")
    seen = [serverless_app.run(run_id)["state"] for _ in range(5)]
    assert seen == ["PENDING", "SCHEDULED", "RUNNING", "SUCCESS", "SUCCESS"]


def test_serverless_hold_fail_and_cancel(serverless_app):
    serverless_app.hold()
    held = _start(serverless_app, "held")
    assert [serverless_app.run(held)["state"] for _ in range(3)] == ["RUNNING"] * 3
    _serverless_hook().conn.cancel_job_run(applicationId=serverless_app.application_id, jobRunId=held)
    serverless_app.release()
    assert serverless_app.run(held)["state"] == "CANCELLED"  # moto's cancel is final
    serverless_app.fail()
    failed = serverless_app.run(_start(serverless_app, "failing"))
    assert (failed["state"], failed["stateDetails"]) == ("FAILED", emr_serverless.FAILURE_DETAILS)


def test_containers_repeated_client_token_answers_with_the_first_run(virtual_cluster):
    hook = _containers_hook(virtual_cluster.virtual_cluster_id)
    first, again, other = (
        hook.submit_job("n", ROLE, "emr-6.15.0-latest", EKS_DRIVER, client_request_token=token) for token in "aab"
    )
    assert first == again != other
    assert len(virtual_cluster.runs()) == 2


def test_containers_hold_by_default_then_release_or_fail(virtual_cluster):
    hook = _containers_hook(virtual_cluster.virtual_cluster_id)
    run_id = hook.submit_job("n", ROLE, "emr-6.15.0-latest", EKS_DRIVER, client_request_token="x")
    assert hook.check_query_status(run_id) == "RUNNING"  # moto's behaviour, kept as the default
    virtual_cluster.release()
    assert hook.poll_query_status(run_id, poll_interval=0) == "COMPLETED"
    virtual_cluster.fail()
    failing = hook.submit_job("n", ROLE, "emr-6.15.0-latest", EKS_DRIVER, client_request_token="y")
    assert hook.poll_query_status(failing, poll_interval=0) == "FAILED"
    assert hook.get_job_failure_reason(failing) == f"USER_ERROR - {emr_containers.FAILURE_DETAILS}"


def test_a_held_run_is_released_from_another_process_through_motos_endpoint():
    """What the production drills do: moto_server in its own process, the transition set over HTTP."""
    from resumable_jobs.local.moto_server import LocalMotoServer

    with LocalMotoServer(region=REGION) as moto:
        client = moto.client("emr-serverless")
        app = client.create_application(name="a", releaseLabel="emr-6.15.0", type="SPARK")["applicationId"]
        set_transition_over_http(moto.endpoint_url, emr_serverless.MODEL_NAME, {"progression": "hold"})
        start = {"applicationId": app, "clientToken": "tok", "executionRoleArn": ROLE, "jobDriver": SPARK_DRIVER}
        run_id = client.start_job_run(**start)["jobRunId"]
        assert client.start_job_run(**start)["jobRunId"] == run_id
        assert client.get_job_run(applicationId=app, jobRunId=run_id)["jobRun"]["state"] == "RUNNING"
        set_transition_over_http(moto.endpoint_url, emr_serverless.MODEL_NAME, {"progression": "immediate"})
        assert client.get_job_run(applicationId=app, jobRunId=run_id)["jobRun"]["state"] == "SUCCESS"


@pytest.fixture(autouse=True)
def _region(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
