"""BigQuery job ids derived from the submission, so that a resubmission is recognised.

What it is for: BigQuery refuses a second job with an id it already knows (HTTP 409 "Already
Exists"). Deriving the job id from the mixin's ``submission_token`` turns that refusal into
deduplication: a retry that lost the id of the job its predecessor inserted inserts the *same* id
again, gets the 409, and follows the existing job instead of starting a second one.

How it works: ``<prefix>_<token>``, where the prefix is the user's ``job_id`` (upstream's meaning:
a prefix that gets a unique suffix) or ``airflow_<dag_id>``. The token already names the task and
carries the generation and a random nonce, so ids are stable across the retries of one generation,
new for every generation and unguessable. Without a store and with ``force_rerun=False`` the
suffix is a hash of the configuration instead (upstream's "identical request, same job").

What it does not do: it never rewrites a ``job_id`` the user gave - an id BigQuery would reject is
reported here, before anything is sent; it never shortens the token or the hash (only the
readable part of a default prefix is cut to fit 1,024 characters).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

__all__ = ["MAX_JOB_ID_LENGTH", "job_id_for_configuration", "job_id_for_token", "validate_job_id_prefix"]

#: BigQuery's limit on a job id.
MAX_JOB_ID_LENGTH = 1024
_VALID = re.compile(r"[A-Za-z0-9_-]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_HASH_CHARS = 32


def validate_job_id_prefix(prefix: str) -> None:
    """Raise ``ValueError`` when ``prefix`` holds characters BigQuery does not allow in a job id."""
    if not isinstance(prefix, str) or not _VALID.fullmatch(prefix):
        raise ValueError(
            f"job_id={prefix!r} cannot start a BigQuery job id: use only letters, digits, '_' and '-' "
            f"(the operator appends '_<submission token>' to it, up to {MAX_JOB_ID_LENGTH} characters in all)"
        )


def _default_prefix(dag_id: str | None, *parts: str | None) -> str:
    readable = "_".join(_UNSAFE.sub("_", p) for p in (dag_id, *parts) if p)
    return f"airflow_{readable}".rstrip("_") if readable else "airflow"


def _join(prefix: str, suffix: str, *, user_prefix: bool) -> str:
    room = MAX_JOB_ID_LENGTH - len(suffix) - 1
    if len(prefix) > room:
        if user_prefix:
            raise ValueError(
                f"job_id is {len(prefix)} characters long; with the '_{suffix}' suffix the BigQuery job id "
                f"would exceed {MAX_JOB_ID_LENGTH} characters. Use a prefix of at most {room} characters."
            )
        prefix = prefix[:room].rstrip("_-") or "airflow"
    return f"{prefix}_{suffix}"


def job_id_for_token(token: str, *, prefix: str | None = None, dag_id: str | None = None) -> str:
    """The job id of one submission generation: ``<prefix or airflow_<dag_id>>_<token>``."""
    if not token or not _VALID.fullmatch(token):
        raise ValueError(f"submission token {token!r} is not usable in a BigQuery job id")
    if prefix:
        validate_job_id_prefix(prefix)
        return _join(prefix, token, user_prefix=True)
    return _join(_default_prefix(dag_id), token, user_prefix=False)


def configuration_hash(configuration: Any) -> str:
    """A stable hash of a job configuration (key order does not matter)."""
    canonical = json.dumps(configuration, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:_HASH_CHARS]


def job_id_for_configuration(
    configuration: Any,
    *,
    prefix: str | None = None,
    dag_id: str | None = None,
    task_id: str | None = None,
    run_id: str | None = None,
) -> str:
    """The same id for the same configuration within one task run (store-less ``force_rerun=False``)."""
    suffix = configuration_hash(configuration)
    if prefix:
        validate_job_id_prefix(prefix)
        return _join(prefix, suffix, user_prefix=True)
    return _join(_default_prefix(dag_id, task_id, run_id), suffix, user_prefix=False)
