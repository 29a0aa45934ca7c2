"""The EMR Serverless links: URLs built at run time, and the one-time UI URLs asked for at render time."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.amazon import emr_links

WHERE = {"application_id": "app1", "job_run_id": "run1", "aws_conn_id": "aws_default", "region_name": "eu-west-1"}


@pytest.fixture
def xcom(monkeypatch):
    from airflow.sdk.execution_time.xcom import XCom

    values: dict[str, object] = {}
    monkeypatch.setattr(XCom, "get_value", staticmethod(lambda *, ti_key, key: values.get(key)))
    return values


def test_the_dashboard_links_ask_emr_serverless_when_rendered(xcom, monkeypatch):
    asked = []

    def dashboard(where):
        asked.append(where)
        return "https://p-app1.emrappui-prod.eu-west-1.amazonaws.com/shs/history/run1/jobs/?authToken=abc"

    monkeypatch.setattr(emr_links, "serverless_dashboard_url", dashboard)
    xcom[emr_links.DASHBOARD_XCOM_KEY] = WHERE
    assert (
        emr_links.EmrServerlessDashboardLink()
        .get_link(None, ti_key=None)
        .endswith("/shs/history/run1/jobs/?authToken=abc")
    )
    assert emr_links.EmrServerlessLogsLink().get_link(None, ti_key=None) == (
        "https://p-app1.emrappui-prod.eu-west-1.amazonaws.com/logs/SPARK_DRIVER/stdout.gz?authToken=abc"
    )
    assert asked == [WHERE, WHERE]  # asked on every render: the URLs expire


def test_no_coordinates_or_a_failing_lookup_render_no_link(xcom, monkeypatch):
    assert emr_links.EmrServerlessDashboardLink().get_link(None, ti_key=None) == ""

    def failing(where):
        raise RuntimeError("AccessDenied")

    monkeypatch.setattr(emr_links, "serverless_dashboard_url", failing)
    xcom[emr_links.DASHBOARD_XCOM_KEY] = WHERE
    assert emr_links.EmrServerlessLogsLink().get_link(None, ti_key=None) == ""


@pytest.mark.parametrize(
    ("log_uri", "prefix"),
    [("s3://logs", ""), ("s3://logs/", ""), ("s3://logs/emr/x/", "emr/x/"), ("s3a://logs/a", "a/")],
)
def test_s3_logs_url(log_uri, prefix):
    assert emr_links.serverless_s3_logs_url(
        "aws", region="eu-west-1", log_uri=log_uri, application_id="a", job_run_id="r"
    ) == (f"https://console.aws.amazon.com/s3/buckets/logs?region=eu-west-1&prefix={prefix}applications/a/jobs/r/")


def test_no_url_for_an_unknown_partition_or_a_non_s3_uri():
    assert (
        emr_links.serverless_s3_logs_url("aws-iso", region="r", log_uri="s3://b", application_id="a", job_run_id="j")
        is None
    )
    assert (
        emr_links.serverless_s3_logs_url("aws", region="r", log_uri="hdfs://b/x", application_id="a", job_run_id="j")
        is None
    )
    assert emr_links.serverless_cloudwatch_url("aws-cn", region="cn-north-1", group="/g", stream_prefix="p").startswith(
        "https://console.amazonaws.cn/cloudwatch/home?region=cn-north-1#logsV2:log-groups/log-group/%2Fg$3F"
    )
