"""The EMR operators' own construction: bad input by name, templates, tokens (shared: test_shared_construction)."""

from __future__ import annotations

import pytest

from tests.providers.amazon.builders import emr_containers as _containers
from tests.providers.amazon.builders import emr_serverless as _serverless

BUILDERS = [pytest.param(_serverless, id="EmrServerless"), pytest.param(_containers, id="EmrContainer")]


@pytest.mark.parametrize("build", BUILDERS)
def test_a_client_request_token_longer_than_emrs_limit_is_rejected_by_name(build):
    with pytest.raises(ValueError, match=r"client_request_token is at most 64 characters"):
        build(client_request_token="x" * 65)


def test_blank_client_request_token_is_rejected_for_emr_on_eks():
    with pytest.raises(ValueError, match="client_request_token must be a non-blank string"):
        _containers(client_request_token="  ")


@pytest.mark.parametrize("value", [0, -1, 2.5, True])
def test_waiter_max_attempts_must_be_a_whole_number_of_at_least_one(value):
    with pytest.raises(ValueError, match=rf"waiter_max_attempts must be a whole number >= 1, got {value!r}"):
        _serverless(waiter_max_attempts=value)


@pytest.mark.parametrize("value", [0, -3, "5"])
def test_max_polling_attempts_must_be_a_whole_number_of_at_least_one(value):
    with pytest.raises(ValueError, match=r"max_polling_attempts must be a whole number >= 1 or None"):
        _containers(max_polling_attempts=value)


def test_config_must_be_a_dict():
    with pytest.raises(TypeError, match="config must be a dict of StartJobRun arguments"):
        _serverless(config=["name", "x"])


def test_upstream_template_fields_render():
    from airflow.sdk.definitions.context import Context

    op = _serverless(name="{{ params.day }}-etl", config={"executionTimeoutMinutes": "{{ params.minutes }}"})
    op.render_template_fields(Context(params={"day": "2026-01-01", "minutes": 60}))
    assert op.name == "2026-01-01-etl" and op.config == {"executionTimeoutMinutes": "60"}


def test_fingerprint_follows_the_request_and_ignores_the_token_and_generated_name():
    a, b = _serverless(config={"name": "x"}), _serverless(config={"name": "x"})
    b.submission_token = "another-token"
    assert a.request_fingerprint({}) == b.request_fingerprint({})
    assert _serverless().request_fingerprint({}) == _serverless(client_request_token="t").request_fingerprint({})
    assert a.request_fingerprint({}) != _serverless(config={"name": "y"}).request_fingerprint({})
    assert _containers().request_fingerprint({}) != _containers(tags={"a": "b"}).request_fingerprint({})


@pytest.mark.parametrize("build", BUILDERS)
@pytest.mark.parametrize(("generation", "expected"), [(0, "users"), (1, "users"), (2, "ours-g2")])
def test_a_users_token_is_the_first_generations_only(build, generation, expected):
    op = build(client_request_token="users")
    op.submission_token, op.submission_generation = "ours-g2", generation
    assert op.client_token() == expected


@pytest.mark.parametrize("build", BUILDERS)
def test_cancel_on_kill_false_disables_cancellation_in_deferrable_mode_only(build):
    assert build(cancel_on_kill=False, deferrable=True)._cancellation_disabled_reason() == (
        "cancel_on_kill=False (deferrable mode)"
    )
    assert build(cancel_on_kill=False, deferrable=False)._cancellation_disabled_reason() is None
