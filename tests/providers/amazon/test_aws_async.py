"""The shared aiobotocore client of the AWS triggers: what it is built with, when it is renewed, what is transient."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.providers.amazon.aws_env import fake_aws_env


@pytest.fixture
def aws(monkeypatch):
    fake_aws_env(monkeypatch, "eu-west-1", unset=("AWS_ENDPOINT_URL",))


def _clients(botocore_config: dict | None, uses: int, monkeypatch, max_age: float | None = None) -> list[Any]:
    """The client each of ``uses`` calls in one loop got (``max_age``: the renewal age for the test)."""
    from resumable_jobs.providers.amazon import aws_async

    if max_age is not None:
        monkeypatch.setattr(aws_async, "CLIENT_MAX_AGE", max_age)
    connection = aws_async.AwsConnection.of(None, "eu-west-1", None, botocore_config)

    async def use() -> list[Any]:
        seen = []
        async with aws_async.aws_client(connection, "batch") as lease:
            for _ in range(uses):
                async with lease.use() as client:
                    seen.append(client)
                await asyncio.sleep(0.01)
        return seen

    return asyncio.run(use())


def test_a_shared_client_may_open_many_connections_unless_the_config_says_otherwise(aws, monkeypatch):
    from resumable_jobs.providers.amazon.aws_async import MAX_POOL_CONNECTIONS

    (default,) = _clients(None, 1, monkeypatch)
    (given,) = _clients({"max_pool_connections": 7, "read_timeout": 5}, 1, monkeypatch)
    assert default.meta.config.max_pool_connections == MAX_POOL_CONNECTIONS
    assert (given.meta.config.max_pool_connections, given.meta.config.read_timeout) == (7, 5)
    assert default.meta.region_name == "eu-west-1"


def test_a_client_older_than_max_age_is_replaced_by_a_fresh_one(aws, monkeypatch):
    kept = _clients(None, 3, monkeypatch)
    renewed = _clients(None, 3, monkeypatch, max_age=0.0)
    assert len({id(c) for c in kept}) == 1
    assert len({id(c) for c in renewed}) == 3


def _client_error(code: str, http_status: int) -> Exception:
    from botocore.exceptions import ClientError

    return ClientError(
        {"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": http_status}}, "Op"
    )


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (lambda: _client_error("ThrottlingException", 400), True),
        (lambda: _client_error("TooManyRequestsException", 429), True),
        (lambda: _client_error("Whatever", 429), True),
        (lambda: _client_error("InternalServerException", 500), True),
        (lambda: _client_error("Whatever", 503), True),
        (lambda: _client_error("AccessDeniedException", 403), False),
        (lambda: _client_error("ResourceNotFoundException", 400), False),
        (lambda: _client_error("ValidationException", 400), False),
        (lambda: asyncio.TimeoutError(), True),
        (lambda: __import__("botocore.exceptions").exceptions.EndpointConnectionError(endpoint_url="http://x"), True),
        (lambda: __import__("botocore.exceptions").exceptions.ReadTimeoutError(endpoint_url="http://x"), True),
        (lambda: __import__("botocore.exceptions").exceptions.NoCredentialsError(), False),
        (lambda: ValueError("bad connection extra"), False),
    ],
)
def test_what_is_read_again_at_the_next_poll(error, transient):
    from resumable_jobs.providers.amazon.aws_async import is_transient

    assert is_transient(error()) is transient
