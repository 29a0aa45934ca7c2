"""The SQL API ``requestId`` a submission carries, derived from the mixin's submission token.

Snowflake remembers the ``requestId`` (a UUID) of a POST to ``/api/v2/statements``; a request
resubmitted with the same id and ``retry=true`` is answered with the statement handles of the
first one, and its statements do not run again. That closes the window between the POST
returning and the handles being persisted: a retry in the same submission generation derives the
same request id from the same token and gets the same statements back.

The id is a name-based UUID (version 5) of the token, so it is stable across the retries of one
generation, new for each generation (the token carries it), and as unguessable as the token's
random nonce.
"""

from __future__ import annotations

import uuid

__all__ = ["NAMESPACE", "request_id_for"]

#: Fixed namespace of this package's Snowflake request ids (never change it: retries in flight
#: derive their request id under it).
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/airflow-provider-resumable-jobs/snowflake/requestId")


def request_id_for(submission_token: str) -> str:
    """The ``requestId`` for ``submission_token``: the same token always gives the same UUID."""
    if not submission_token:
        raise ValueError("a submission token is needed to derive a Snowflake requestId")
    return str(uuid.uuid5(NAMESPACE, submission_token))
