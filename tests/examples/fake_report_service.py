"""A stateful fake of the report service behind requests-mock, for the custom operator example."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field


@dataclass
class FakeReportService:
    base_url: str = "http://reports.test"
    renders: dict[str, dict] = field(default_factory=dict)
    posts: int = 0
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def install(self, requests_mock) -> None:
        requests_mock.post(f"{self.base_url}/renders", json=self._create)
        requests_mock.get(re.compile(rf"{re.escape(self.base_url)}/renders\?"), json=self._list)
        requests_mock.get(re.compile(rf"{re.escape(self.base_url)}/renders/[^/?]+$"), json=self._get)

    def _create(self, request, context):
        self.posts += 1
        body = json.loads(request.body)
        render_id = f"r-{next(self._ids)}"
        self.renders[render_id] = {"state": "QUEUED", "token": body["client_token"], "checks": 0}
        return {"id": render_id}

    def _get(self, request, context):
        render_id = request.path.rsplit("/", 1)[1]
        render = self.renders.get(render_id)
        if render is None:
            context.status_code = 404
            return {"error": "not found"}
        render["checks"] += 1  # a render finishes after a few status checks
        if render["state"] in ("QUEUED", "RENDERING"):
            render["state"] = "DONE" if render["checks"] >= 3 else "RENDERING"
        return {"state": render["state"], "url": f"{self.base_url}/files/{render_id}.pdf", "error": None}

    def _list(self, request, context):
        token = request.qs["client_token"][0]
        return [{"id": rid} for rid, r in self.renders.items() if r["token"].lower() == token.lower()]
