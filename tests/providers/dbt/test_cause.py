"""The cause that carries the submission token, and finding a run by it."""

from __future__ import annotations

import json

import pytest

from resumable_jobs.providers.dbt.cause import (
    CAUSE_MAX_LENGTH,
    TOKEN_KEY,
    cause_with_token,
    find_run_by_token,
    lineage_cause_with_token,
    token_in,
)

TOKEN = "transform-m3-g2-" + "a" * 24


@pytest.mark.parametrize("reason", ["", "short", "x" * 1000, "multi\nline   reason"])
def test_the_cause_fits_and_the_token_survives_whole(reason):
    cause = cause_with_token(reason, TOKEN)
    assert len(cause) <= CAUSE_MAX_LENGTH
    assert token_in(cause) == TOKEN


def test_a_token_is_matched_exactly_not_as_a_prefix():
    assert token_in(cause_with_token("r", TOKEN + "b")) != TOKEN
    assert token_in("Kicked off from the dbt Cloud UI") is None
    assert token_in(None) is None


def test_the_openlineage_json_cause_keeps_its_keys_and_gains_the_token():
    parent = {"parent": {"job": {"namespace": "default", "name": "dag.task"}, "run": {"runId": "0" * 36}}}
    with_token = lineage_cause_with_token(json.dumps(parent), TOKEN)
    parsed = json.loads(with_token)
    assert parsed["parent"] == parent["parent"] and parsed[TOKEN_KEY] == TOKEN
    assert token_in(with_token) == TOKEN and len(with_token) <= CAUSE_MAX_LENGTH
    big = {**parent, "root": {"job": {"namespace": "n" * 60, "name": "r" * 60}, "run": {"runId": "1" * 36}}}
    shortened = json.loads(lineage_cause_with_token(json.dumps(big), TOKEN))
    assert "root" not in shortened and shortened["parent"] == parent["parent"]
    assert lineage_cause_with_token("not json", TOKEN) is None


def test_find_run_by_token_reads_bounded_pages_newest_first(dbt_cloud):
    from airflow.providers.dbt.cloud.hooks.dbt import DbtCloudHook

    for _ in range(3):
        dbt_cloud.add_run(job_id=101)
    ours = dbt_cloud.add_run(job_id=101, cause=cause_with_token("mine", TOKEN))
    dbt_cloud.add_run(job_id=102, cause=cause_with_token("other job", TOKEN))

    found = find_run_by_token(DbtCloudHook(), account_id=None, job_id=101, token=TOKEN)

    assert found["id"] == ours
    assert find_run_by_token(DbtCloudHook(), account_id=None, job_id=101, token="g1-" + "b" * 24) is None
    listed = [r["query"] for r in dbt_cloud.requests if r["path"].endswith("/runs/")]
    assert {q["order_by"] for q in listed} == {"-id"} and {q["limit"] for q in listed} == {"100"}
