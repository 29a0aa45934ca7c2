"""``find_job_by_token`` on ListJobs pages and DescribeJobs tags (transport: botocore ``Stubber``).

The moto tests cover the lookup end to end; these pin the parts moto cannot show: a second
ListJobs page, and the choice when several jobs carry the same token.
"""

from __future__ import annotations

from resumable_jobs.providers.amazon.lookup import TOKEN_TAG_KEY, find_job_by_token
from tests.providers.amazon.conftest import JOB_NAME, QUEUE, job_detail

TOKEN = "batch-g1-0123456789abcdef01234567"
FILTER = [{"name": "JOB_NAME", "values": [JOB_NAME]}]


def _summary(job_id, name=JOB_NAME):
    return {"jobId": job_id, "jobArn": f"arn:aws:batch:eu-west-1:123456789012:job/{job_id}", "jobName": name, "status": "SUCCEEDED"}


def _tagged(job_id, status, token, created):
    return {**job_detail(job_id, status), "tags": {TOKEN_TAG_KEY: token}, "createdAt": created}


def test_follows_next_token_and_matches_the_tag(stubbed_batch):
    stub = stubbed_batch.stubber
    stub.add_response("list_jobs", {"jobSummaryList": [_summary("a")], "nextToken": "p2"}, {"jobQueue": QUEUE, "filters": FILTER})
    stub.add_response("list_jobs", {"jobSummaryList": [_summary("b")]}, {"jobQueue": QUEUE, "filters": FILTER, "nextToken": "p2"})
    stub.add_response(
        "describe_jobs",
        {"jobs": [_tagged("a", "SUCCEEDED", "other-token", 1), _tagged("b", "RUNNING", TOKEN, 2)]},
        {"jobs": ["a", "b"]},
    )
    assert find_job_by_token(stubbed_batch.client, job_queue=QUEUE, job_name=JOB_NAME, token=TOKEN) == "b"
    stub.assert_no_pending_responses()


def test_no_job_with_the_token_gives_none_and_other_names_are_not_described(stubbed_batch):
    stub = stubbed_batch.stubber
    # The JOB_NAME filter is case-insensitive on AWS; a differently-cased name is another request.
    stub.add_response("list_jobs", {"jobSummaryList": [_summary("c", name=JOB_NAME.upper())]}, {"jobQueue": QUEUE, "filters": FILTER})
    assert find_job_by_token(stubbed_batch.client, job_queue=QUEUE, job_name=JOB_NAME, token=TOKEN) is None
    stub.assert_no_pending_responses()


def test_several_matches_prefer_a_job_that_did_not_fail_then_the_newest(stubbed_batch):
    stub = stubbed_batch.stubber
    ids = ["old-ok", "new-failed", "new-ok"]
    stub.add_response("list_jobs", {"jobSummaryList": [_summary(i) for i in ids]}, {"jobQueue": QUEUE, "filters": FILTER})
    stub.add_response(
        "describe_jobs",
        {"jobs": [_tagged("old-ok", "SUCCEEDED", TOKEN, 1), _tagged("new-failed", "FAILED", TOKEN, 3), _tagged("new-ok", "RUNNING", TOKEN, 2)]},
        {"jobs": ids},
    )
    assert find_job_by_token(stubbed_batch.client, job_queue=QUEUE, job_name=JOB_NAME, token=TOKEN) == "new-ok"
