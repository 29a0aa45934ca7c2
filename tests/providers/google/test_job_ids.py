"""Job ids derived from the submission: stable per generation, valid for BigQuery, never cut short."""

from __future__ import annotations

import re

import pytest

from resumable_jobs.mixin.tokens import build_token
from resumable_jobs.providers.google.job_ids import (
    MAX_JOB_ID_LENGTH,
    job_id_for_configuration,
    job_id_for_token,
)

VALID = re.compile(r"[A-Za-z0-9_-]{1,1024}")


def test_same_token_same_id_and_a_new_generation_a_new_id():
    g1 = build_token(nonce="abc123", generation=1, task_id="load")
    g2 = build_token(nonce="abc123", generation=2, task_id="load")
    assert job_id_for_token(g1, dag_id="orders") == job_id_for_token(g1, dag_id="orders") == f"airflow_orders_{g1}"
    assert job_id_for_token(g2, dag_id="orders") != job_id_for_token(g1, dag_id="orders")


def test_users_job_id_is_a_prefix():
    assert job_id_for_token("load-g1-abc", prefix="nightly") == "nightly_load-g1-abc"


def test_dag_ids_with_dots_become_valid_ids():
    job_id = job_id_for_token("load-g1-abc", dag_id="team.orders v2")
    assert VALID.fullmatch(job_id) and job_id.endswith("_load-g1-abc")


def test_a_long_default_prefix_is_cut_but_never_the_token():
    token = build_token(nonce="f" * 24, generation=7, task_id="t")
    job_id = job_id_for_token(token, dag_id="d" * 2000)
    assert len(job_id) == MAX_JOB_ID_LENGTH and job_id.endswith(f"_{token}")


def test_a_user_prefix_that_cannot_fit_is_refused():
    with pytest.raises(ValueError, match="at most"):
        job_id_for_token("load-g1-abc", prefix="p" * 1020)


@pytest.mark.parametrize("prefix", ["has space", "dot.ted", "col:on", ""])
def test_invalid_user_prefix_is_refused_or_ignored(prefix):
    if prefix:
        with pytest.raises(ValueError, match="letters, digits"):
            job_id_for_token("load-g1-abc", prefix=prefix)
    else:
        assert job_id_for_token("load-g1-abc", prefix=prefix, dag_id="d") == "airflow_d_load-g1-abc"


def test_configuration_ids_ignore_key_order_and_follow_the_content():
    a = job_id_for_configuration(
        {"query": {"query": "SELECT 1", "useLegacySql": False}}, dag_id="d", task_id="t", run_id="r:1+0"
    )
    b = job_id_for_configuration(
        {"query": {"useLegacySql": False, "query": "SELECT 1"}}, dag_id="d", task_id="t", run_id="r:1+0"
    )
    c = job_id_for_configuration(
        {"query": {"query": "SELECT 2", "useLegacySql": False}}, dag_id="d", task_id="t", run_id="r:1+0"
    )
    assert a == b != c
    assert VALID.fullmatch(a) and a.startswith("airflow_d_t_r_1_0_")
