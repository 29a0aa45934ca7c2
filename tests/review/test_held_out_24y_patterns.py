"""Shapes of blind batch "held-out-24y" (our own code, no third-party code), each with a near miss.

The batch showed one gap in the key vocabulary: a key naming the last minute a feed was fetched
up to (``feed_last_minute_utc``), read and moved on by one task, is a last-processed time like
``last_report_hour``; "minute" was not a calendar unit, so the key was reported as the task's own
progress (RJ001) rather than a watermark (RJ004). A count of minutes (``max_catchup_minutes``)
stays configuration.
"""

from __future__ import annotations

from .sources import found

_FEED = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="*/15 * * * *")
    def feed():
        @task
        def pull():
            since = Variable.get("KEY", default_var=None)
            newest = fetch_minutes_after(since)
            Variable.set("KEY", newest)

        pull()

    feed()
"""

_LIMIT = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="*/15 * * * *")
    def feed():
        @task
        def pull():
            limit = int(Variable.get("KEY", default_var=60))
            return fetch_minutes(limit)

        pull()

    feed()
"""


def test_the_last_minute_fetched_is_a_watermark():
    assert found(_FEED.replace("KEY", "feed_last_minute_utc"), "RJ001", "RJ004") == [(9, "RJ004"), (11, "RJ004")]


def test_the_last_hour_was_one_already():
    assert found(_FEED.replace("KEY", "feed_last_hour_utc"), "RJ001", "RJ004") == [(9, "RJ004"), (11, "RJ004")]


def test_a_count_of_minutes_read_as_a_limit_is_configuration():
    assert found(_LIMIT.replace("KEY", "feed_max_catchup_minutes"), "RJ001", "RJ004") == []


def test_a_minute_setting_only_read_is_configuration():
    assert found(_LIMIT.replace("KEY", "feed_max_wait_minute"), "RJ001", "RJ004") == []
