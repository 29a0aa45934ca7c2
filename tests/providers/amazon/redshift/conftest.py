"""The Redshift Data API for the operator's tests: moto's threaded server with our model installed.

Transport: moto's ``ThreadedMotoServer`` on 127.0.0.1 in this process, with
:mod:`resumable_jobs.local.moto_models.redshift_data` installed, reached by the real
``RedshiftDataHook`` (boto3) and the real ``RedshiftDataTrigger`` (aiobotocore, which moto's
in-process ``mock_aws`` does not serve) through ``AWS_ENDPOINT_URL_REDSHIFT_DATA``. The server
runs in this process, so a test counts the statements moto saw by reading its backend directly.

Pacing (moto's state manager, see the model): by default a statement is FINISHED at its first
DescribeStatement; :meth:`MotoRedshift.hold` keeps statements STARTED until :meth:`release`;
:meth:`MotoRedshift.finish_after` lets each one finish at its Nth DescribeStatement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.providers.amazon.aws_env import fake_aws_env

REGION = "us-east-1"
ACCOUNT = "123456789012"
CLUSTER = "rj-cluster"
DATABASE = "dev"


@dataclass
class MotoRedshift:
    endpoint_url: str

    @property
    def backend(self) -> Any:
        from moto.redshiftdata.models import redshiftdata_backends

        return redshiftdata_backends[ACCOUNT][REGION]

    def statements(self) -> list[Any]:
        """Every statement moto holds, in submission order."""
        return list(self.backend.statements.values())

    def statement_ids(self) -> list[str]:
        return [statement.id for statement in self.statements()]

    def status(self, statement_id: str) -> str:
        return self.backend.statements[statement_id].status

    def hold(self) -> None:
        from resumable_jobs.local.moto_models.redshift_data import hold_statements

        hold_statements()

    def release(self) -> None:
        from resumable_jobs.local.moto_models.redshift_data import release_statements

        release_statements()

    def finish_after(self, describes: int) -> None:
        from moto.moto_api import state_manager

        from resumable_jobs.local.moto_models.redshift_data import MODEL_NAME

        state_manager.set_transition(MODEL_NAME, {"progression": "manual", "times": describes})

    def fail(self, statement_id: str, error: str) -> None:
        from resumable_jobs.local.moto_models.redshift_data import fail_statement

        fail_statement(statement_id, error, account_id=ACCOUNT, region=REGION)


@pytest.fixture(scope="session")
def redshift_server(moto_endpoint):
    """The session's threaded moto server, our models installed (``moto_endpoint`` in emr_fixtures.py)."""
    return moto_endpoint


@pytest.fixture
def moto_redshift(redshift_server, monkeypatch):
    """A clean Redshift Data backend behind ``redshift_server``; fake credentials; pacing reset after."""
    from moto.backends import get_backend
    from moto.moto_api import state_manager

    from resumable_jobs.local.moto_models.redshift_data import MODEL_NAME

    fake_aws_env(
        monkeypatch,
        REGION,
        session_tokens=False,
        endpoints={"AWS_ENDPOINT_URL_REDSHIFT_DATA": redshift_server},
        unset=("AWS_ENDPOINT_URL", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"),
    )
    get_backend("redshift-data").reset()
    state_manager.unset_transition(MODEL_NAME)
    yield MotoRedshift(redshift_server)
    state_manager.unset_transition(MODEL_NAME)
    get_backend("redshift-data").reset()


def operator(**kwargs: Any) -> Any:
    """A ``RedshiftDataOperator`` on the test cluster that polls without sleeping."""
    from resumable_jobs.providers.amazon import RedshiftDataOperator

    kwargs.setdefault("task_id", "load")
    kwargs.setdefault("sql", "INSERT INTO sales SELECT * FROM staging")
    kwargs.setdefault("database", DATABASE)
    if not {"cluster_identifier", "workgroup_name", "session_id"} & set(kwargs):
        kwargs["cluster_identifier"] = CLUSTER
    kwargs.setdefault("aws_conn_id", None)
    kwargs.setdefault("region_name", REGION)
    kwargs.setdefault("poll_interval", 0)
    return RedshiftDataOperator(**kwargs)
