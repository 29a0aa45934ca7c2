"""Which idempotency token a submission carries, per generation."""

from __future__ import annotations

import pytest

from resumable_jobs.mixin.tokens import build_token, one_off_token
from resumable_jobs.providers.databricks.tokens import idempotency_token_for

NONCE = "0123456789abcdef01234567"


def _token(generation):
    return build_token(nonce=NONCE, generation=generation, task_id="run_job")


def test_without_a_user_token_the_mixin_token_is_sent():
    assert idempotency_token_for(None, _token(3), 3) == _token(3)


def test_user_token_is_kept_in_the_first_generation_and_without_a_store():
    assert idempotency_token_for("mine", _token(1), 1) == "mine"
    assert idempotency_token_for("mine", one_off_token(task_id="t"), 0) == "mine"


def test_user_token_moves_on_per_generation_and_is_stable_within_one():
    gen2 = idempotency_token_for("mine", _token(2), 2)
    gen2_again = idempotency_token_for("mine", _token(2), 2)
    gen3 = idempotency_token_for("mine", _token(3), 3)
    other_task = idempotency_token_for("mine", build_token(nonce="f" * 24, generation=2), 2)
    assert gen2 == gen2_again
    assert len({"mine", gen2, gen3, other_task}) == 4
    assert gen2.startswith("mine-g2-")


def test_derived_token_of_a_64_character_user_token_stays_within_64():
    derived = idempotency_token_for("x" * 64, build_token(nonce=NONCE, generation=9, task_id="t" * 80), 9)
    assert len(derived) == 64 and derived.startswith("x")


def test_user_token_over_64_characters_is_rejected():
    with pytest.raises(ValueError, match="at most 64 characters"):
        idempotency_token_for("x" * 65, None, None)
