"""An in-memory external job system, and a complete resumable operator built on it.

Why it ships: it is the smallest complete implementation of the contract - six methods,
``find_job``, ``build_trigger``, ``request_fingerprint`` - to read before writing your own, and
the backend our own contract tests run against. Its knobs reproduce the behaviours real systems
differ on: deduplication by token (Databricks ``idempotency_token``), search by token (AWS Batch
tags), jobs that fail, and ids the system forgets (expired history).
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ResumableJobMixin
from resumable_jobs.mixin.errors import ExternalJobFailed, JobNotFoundError

try:  # the trigger base class moved into the Task SDK in 3.x; both paths serve the triggerer
    from airflow.triggers.base import BaseTrigger, TriggerEvent
except ImportError:  # pragma: no cover
    from airflow.sdk.bases.trigger import BaseTrigger, TriggerEvent  # type: ignore[no-redef]

PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED = "PENDING", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"


@dataclass
class FakeJob:
    job_id: str
    payload: Any
    token: str | None
    state: str = RUNNING
    will_fail: bool = False


@dataclass
class FakeJobSystem:
    """Jobs in a dict. Every submitted job starts RUNNING; :meth:`run_to_completion` ends it."""

    name: str = "default"
    deduplicate_tokens: bool = False
    searchable: bool = False
    jobs: dict[str, FakeJob] = field(default_factory=dict)
    fail_next: int = 0

    _registry: ClassVar[dict[str, FakeJobSystem]] = {}
    _ids: ClassVar[itertools.count] = itertools.count(1)
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __post_init__(self) -> None:
        FakeJobSystem._registry[self.name] = self

    @classmethod
    def named(cls, name: str) -> FakeJobSystem:
        return cls._registry[name]

    def submit(self, payload: Any, token: str | None = None) -> str:
        with self._lock:
            if self.deduplicate_tokens and token is not None:
                for job in self.jobs.values():
                    if job.token == token:
                        return job.job_id
            job = FakeJob(f"job-{next(self._ids)}", payload, token, will_fail=self.fail_next > 0)
            self.fail_next = max(0, self.fail_next - 1)
            self.jobs[job.job_id] = job
            return job.job_id

    def status(self, job_id: str) -> str:
        if job_id not in self.jobs:
            raise JobNotFoundError(job_id, f"no such job in fake system {self.name!r}")
        return self.jobs[job_id].state

    def run_to_completion(self, job_id: str) -> str:
        job = self.jobs[job_id]
        if job.state in (PENDING, RUNNING):
            job.state = FAILED if job.will_fail else SUCCEEDED
        return job.state

    def cancel(self, job_id: str) -> None:
        job = self.jobs[job_id]
        if job.state in (PENDING, RUNNING):
            job.state = CANCELLED

    def find_by_token(self, token: str) -> str | None:
        return next((j.job_id for j in self.jobs.values() if j.token == token), None)

    def forget(self, job_id: str) -> None:
        """Drop a job, as a system whose history expired does."""
        self.jobs.pop(job_id, None)

    @property
    def submissions(self) -> int:
        return len(self.jobs)


class FakeJobTrigger(BaseTrigger):
    """Waits for a fake job; fires the mixin's event shape."""

    def __init__(self, system_name: str, job_id: str, poll_interval: float = 0.0) -> None:
        super().__init__()
        self.system_name = system_name
        self.job_id = job_id
        self.poll_interval = poll_interval

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {"system_name": self.system_name, "job_id": self.job_id, "poll_interval": self.poll_interval},
        )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        system = FakeJobSystem.named(self.system_name)
        await asyncio.sleep(self.poll_interval)
        state = system.run_to_completion(self.job_id)
        if state == SUCCEEDED:
            yield TriggerEvent({"status": "success", "external_id": self.job_id, "message": "job succeeded"})
        else:
            yield TriggerEvent({"status": "error", "external_id": self.job_id, "message": f"job ended {state}"})


class FakeJobOperator(ResumableJobMixin, BaseOperator):
    """A resumable operator on :class:`FakeJobSystem`; every mode of the mixin works with it."""

    external_id_key = "fake_job_id"
    template_fields = ("payload",)

    def __init__(
        self,
        *,
        system: FakeJobSystem,
        payload: Any = None,
        deferrable: bool = False,
        wait_for_termination: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.system_name = system.name
        self.payload = payload
        self.deferrable = deferrable
        self.wait_for_termination = wait_for_termination

    @property
    def system(self) -> FakeJobSystem:
        return FakeJobSystem.named(self.system_name)

    def execute(self, context: Any) -> Any:
        return self.execute_resumable(context)

    def submit_job(self, context: Any) -> str:
        return self.system.submit(self.payload, token=self.submission_token)

    def get_job_status(self, external_id: Any, context: Any) -> str:
        return self.system.status(external_id)

    def is_job_active(self, status: str) -> bool:
        return status in (PENDING, RUNNING)

    def is_job_succeeded(self, status: str) -> bool:
        return status == SUCCEEDED

    def poll_until_complete(self, external_id: Any, context: Any) -> None:
        state = self.system.run_to_completion(external_id)
        if state != SUCCEEDED:
            raise ExternalJobFailed(f"fake job {external_id} ended {state}")

    def get_job_result(self, external_id: Any, context: Any) -> Any:
        return {"job_id": external_id, "state": self.system.status(external_id)}

    def find_job(self, token: str, context: Any) -> Any:
        return self.system.find_by_token(token) if self.system.searchable else None

    def build_trigger(self, external_id: Any, context: Any) -> FakeJobTrigger:
        return FakeJobTrigger(self.system_name, external_id)

    def request_fingerprint(self, context: Any) -> str | None:
        return None if self.payload is None else repr(self.payload)

    def cancel_job(self, external_id: Any, context: Any) -> None:
        self.system.cancel(external_id)
