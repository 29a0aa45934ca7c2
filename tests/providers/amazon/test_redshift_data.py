"""RedshiftDataOperator behind the real RedshiftDataHook and RedshiftDataTrigger, against moto + our model.

See ``redshift_fixtures`` for the transport. Statements are counted in moto's backend: the
number the Data API really started.
"""

from __future__ import annotations

import pytest

from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_try
from tests.providers.amazon.redshift_fixtures import moto_redshift, operator, redshift_server  # noqa: F401

ID_KEY = "redshift_statement_id"


def test_fresh_run_starts_one_statement_and_returns_its_id_in_a_list(moto_redshift):
    ti = FakeTaskInstance()
    result = run_try(operator(), make_context(InMemoryTaskStateStore(), ti))
    (statement_id,) = moto_redshift.statement_ids()
    assert result == [statement_id]
    assert ti.xcom[ID_KEY] == statement_id
    assert moto_redshift.status(statement_id) == "FINISHED"
