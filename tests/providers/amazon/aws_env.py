"""Fake AWS credentials for the AWS test fixtures, so that no test can reach a real AWS account."""

from __future__ import annotations

from typing import Any


def fake_aws_env(
    monkeypatch: Any,
    region: str,
    *,
    session_tokens: bool = True,
    endpoints: dict[str, str] | None = None,
    unset: tuple[str, ...] = (),
) -> None:
    """Set "testing" credentials, ``region`` and ``endpoints``; unset ``AWS_PROFILE`` and ``unset``."""
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    if session_tokens:
        env.update(AWS_SECURITY_TOKEN="testing", AWS_SESSION_TOKEN="testing")
    env.update(AWS_DEFAULT_REGION=region, **(endpoints or {}))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", *unset):
        monkeypatch.delenv(name, raising=False)
