"""A scripted AWS Batch DescribeJobs endpoint (REST-JSON ``POST /v1/describejobs``) for the trigger tests.

Each job answers the next entry of its script per call and then repeats the last one: a status
(``"RUNNING"``...), or an HTTP error as ``(status code, error code)``. An id without a script is
unknown: DescribeJobs answers an empty list, as Batch does for an id it does not know. The answer's
fields are those of the API reference's ``JobDetail`` that our status module reads.
"""

from __future__ import annotations

from typing import Any

FAILED_REASON = "Essential container in task exited"


class FakeBatchApi:
    def __init__(self, scripts: dict[str, list[Any]] | None = None) -> None:
        self.scripts = dict(scripts or {})
        self.calls: dict[str, int] = {}

    def dispatch(self, method: str, target: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        if (method, target) != ("POST", "/v1/describejobs"):
            return 404, {"message": f"no route {method} {target}"}, {}
        jobs = []
        for job_id in (body or {}).get("jobs", []):
            script = self.scripts.get(job_id)
            self.calls[job_id] = self.calls.get(job_id, 0) + 1
            if script is None:
                continue
            answer = script[min(self.calls[job_id], len(script)) - 1]
            if isinstance(answer, tuple):
                code, error = answer
                return code, {"__type": error, "message": f"{error} (scripted)"}, {"x-amzn-ErrorType": error}
            jobs.append(self.job(job_id, answer))
        return 200, {"jobs": jobs}, {}

    @staticmethod
    def job(job_id: str, state: str) -> dict[str, Any]:
        job: dict[str, Any] = {"jobId": job_id, "jobName": "etl", "jobQueue": "q", "status": state,
                               "jobDefinition": "etl:1", "startedAt": 1767225600000}  # fmt: skip
        if state == "FAILED":
            job.update(statusReason=FAILED_REASON, attempts=[{"container": {"exitCode": 1}}])
        return job
