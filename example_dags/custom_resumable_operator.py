"""Write your own crash-safe operator on ``ResumableJobMixin`` (spec section 5).

Use when: your DAGs call a service that runs jobs - here a report-rendering HTTP API - and no
provider operator exists. Implement the six methods, set ``external_id_key`` once, and make
``execute`` return ``self.execute_resumable(context)``. The optional ``find_job`` closes the window
between submission and checkpoint because the service can list renders by client token; the
optional ``request_fingerprint`` keeps a retry from adopting a render made for other inputs.

``tests/examples/test_custom_operator.py`` runs this operator through the conformance kit
(``resumable_jobs.testing.assert_crash_safe``) against a fake of the service.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import time
from typing import Any

from airflow.sdk import DAG, BaseOperator

from resumable_jobs import ExternalJobFailed, JobNotFoundError, ResumableJobMixin


class ReportRenderOperator(ResumableJobMixin, BaseOperator):
    """Render a report through the (fictional) report service and return its download URL.

    The service API: ``POST /renders`` with ``{"report", "params", "client_token"}`` returns
    ``{"id"}``; ``GET /renders/<id>`` returns ``{"state": QUEUED|RENDERING|DONE|FAILED, "url",
    "error"}`` or 404; ``GET /renders?client_token=<t>`` lists renders made with that token.
    """

    external_id_key = "report_render_id"  # set once; never rename on a deployed operator
    template_fields = ("report", "params_json")

    def __init__(
        self,
        *,
        report: str,
        report_params: dict[str, Any] | None = None,
        base_url: str = "http://reports.internal",
        poll_interval: float = 10.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.report = report
        self.params_json = json.dumps(report_params or {}, sort_keys=True)
        self.base_url = base_url.rstrip("/")
        self.poll_interval = poll_interval

    def execute(self, context: Any) -> Any:
        return self.execute_resumable(context)

    # -- the six methods -------------------------------------------------------------------
    def submit_job(self, context: Any) -> str:
        import requests

        body = {"report": self.report, "params": json.loads(self.params_json), "client_token": self.submission_token}
        response = requests.post(f"{self.base_url}/renders", json=body, timeout=30)
        response.raise_for_status()
        return response.json()["id"]

    def _render(self, render_id: str) -> dict[str, Any]:
        import requests

        response = requests.get(f"{self.base_url}/renders/{render_id}", timeout=30)
        if response.status_code == 404:
            raise JobNotFoundError(render_id, "the report service has no such render")
        response.raise_for_status()
        return response.json()

    def get_job_status(self, external_id: Any, context: Any) -> str:
        return self._render(external_id)["state"]

    def is_job_active(self, status: str) -> bool:
        return status in ("QUEUED", "RENDERING")

    def is_job_succeeded(self, status: str) -> bool:
        return status == "DONE"

    def poll_until_complete(self, external_id: Any, context: Any) -> None:
        while True:
            render = self._render(external_id)
            if render["state"] == "DONE":
                return
            if render["state"] == "FAILED":
                raise ExternalJobFailed(f"render {external_id} failed: {render.get('error')}")
            time.sleep(self.poll_interval)

    def get_job_result(self, external_id: Any, context: Any) -> str:
        return self._render(external_id)["url"]

    # -- optional hooks --------------------------------------------------------------------
    def find_job(self, token: str, context: Any) -> str | None:
        import requests

        response = requests.get(f"{self.base_url}/renders", params={"client_token": token}, timeout=30)
        response.raise_for_status()
        renders = response.json()
        return renders[0]["id"] if renders else None

    def request_fingerprint(self, context: Any) -> str:
        return hashlib.sha256(f"{self.report}|{self.params_json}".encode()).hexdigest()[:32]


with DAG(
    dag_id="example_custom_resumable_operator",
    schedule="@weekly",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "custom-operator"],
):
    ReportRenderOperator(
        task_id="render_weekly_kpis",
        report="weekly_kpis",
        report_params={"week": "{{ ds }}"},
        retries=3,
    )
