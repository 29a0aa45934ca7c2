import re

import pytest

from resumable_jobs.mixin.tokens import MAX_TOKEN_LENGTH, build_token, new_nonce, one_off_token

TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_token_is_short_safe_and_carries_generation_and_nonce():
    nonce = new_nonce()
    token = build_token(nonce=nonce, generation=3, task_id="load.orders/daily", map_index=7)
    assert TOKEN.match(token)
    assert token.endswith(f"-g3-{nonce}")
    assert token.startswith("load_orders_daily-m7-")


def test_long_task_ids_are_cut_never_the_nonce():
    nonce = new_nonce()
    token = build_token(nonce=nonce, generation=12345, task_id="x" * 300, map_index=99999)
    assert len(token) <= MAX_TOKEN_LENGTH
    assert token.endswith(f"g12345-{nonce}")


def test_same_inputs_give_the_same_token_and_a_new_generation_a_new_one():
    nonce = new_nonce()
    assert build_token(nonce=nonce, generation=1, task_id="t") == build_token(nonce=nonce, generation=1, task_id="t")
    assert build_token(nonce=nonce, generation=1, task_id="t") != build_token(nonce=nonce, generation=2, task_id="t")


def test_nonces_are_random():
    assert len({new_nonce() for _ in range(1000)}) == 1000
    assert len(new_nonce()) == 24


def test_one_off_tokens_differ_every_call():
    assert one_off_token(task_id="t") != one_off_token(task_id="t")


@pytest.mark.parametrize("nonce", ["", "has space", "dot.ted"])
def test_unsafe_nonce_is_rejected(nonce):
    with pytest.raises(ValueError):
        build_token(nonce=nonce, generation=1)
