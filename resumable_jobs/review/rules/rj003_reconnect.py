"""RJ003: hand-written "reconnect if a job id is stored, else submit" logic on a Variable.

Why: this re-implements what ``ResumableJobMixin`` does, without its guarantees: the Variable
is global (two runs share one job id), it is written after the submit returns (a crash in
between loses the id), and nothing checks the stored job's status the way the mixin's
decision table does.

How: an ``if`` inside a task whose test reads a previous try's job (directly, or through a name
assigned from the lookup), where the branch taken when none is found submits something (a call
named submit/run/start/create/launch/trigger/insert, or the parent operator's ``execute()``)
or writes the Variable. A lookup is a ``Variable.get`` of a job-id key, an ``xcom_pull`` of the
task's own XCom, or a listing of the backend's jobs or pods filtered by label, tag or name
(``list_namespaced_pod(label_selector=...)``, ``list_jobs(filters=...)``). In the methods of an
operator class, also a look-up of the runs of one name (``get_job_runs(JobName=self.job_name)``,
``count_processing_jobs_by_name(name)``; a job *definition* looked up by name is not a run) and
the Kubernetes pod operator's own ``find_pod(namespace, context)``; the operator's own XCom
may be pulled through ``self.xcom_pull(context, task_ids=self.task_id, ...)``. The finding is on
the ``if``. RJ001 stays silent on the Variable calls of a function reported here, so one
pattern gives one finding.

What it does not do: flag ``if job_id: run(job_id) else: raise`` where the id is configuration
(for example a Databricks job definition id read from a Variable): nothing is submitted when
the id is missing, so there is no reconnect logic.
"""

from __future__ import annotations

from collections.abc import Iterator

from resumable_jobs.review.findings import ERROR, Finding
from resumable_jobs.review.index import ModuleIndex
from resumable_jobs.review.keys import words
from resumable_jobs.review.reconnect import reconnect_ifs
from resumable_jobs.review.rules.base import Rule, make_finding

__all__ = ["RULE"]


def check(index: ModuleIndex) -> Iterator[Finding]:
    for found in reconnect_ifs(index):
        yield make_finding(
            index,
            found.node,
            RULE.code,
            RULE.severity,
            _message(found.key),
            _suggestion(found.key),
        )


def _message(key: str) -> str:
    if key.startswith("XCom "):
        return (
            f"hand-written reconnect logic on {key}: XCom is cleared when a new try starts, so "
            "the retry finds nothing and submits a duplicate job; ResumableJobMixin keeps the "
            "id in task_state_store, which survives retries"
        )
    if key.endswith("()"):
        return (
            f"hand-written reconnect logic: {key} looks for a previous try's job and the task "
            "submits when it finds none; a job still being created, or one of another run with "
            "the same labels, makes it resubmit or reconnect to the wrong job. ResumableJobMixin "
            "persists the id it submitted and checks that job's status"
        )
    return (
        f"hand-written reconnect logic on Variable '{key}': the id is global to every "
        "run, written only after the submit returns, and its job's status is never checked "
        "the way ResumableJobMixin does; a crash or a concurrent run submits a duplicate job"
    )


def _suggestion(key: str) -> str:
    if key.startswith("XCom ") or key.endswith("()"):
        lookup = f"previous = {'ti.xcom_pull(key=...)' if key.startswith('XCom ') else key.replace('()', '(...)')}"
        store_key = "job_id"
        before_write = "        job_id = self.hook.submit(...)"
    else:
        lookup = f'job_id = Variable.get("{key}", default_var=None)'
        store_key = _store_key(key)
        before_write = f'        job_id = self.hook.submit(...)\n        Variable.set("{key}", job_id)'
    return (
        "Let ResumableJobMixin decide between reconnect and submit; it keeps the id in the\n"
        "task's own task_state_store and checks the stored job's status on every retry.\n"
        "Before:\n"
        f"    {lookup}\n"
        "    if previous_or_id_found:\n"
        "        self._wait(...)\n"
        "    else:\n"
        f"{before_write}\n"
        "After:\n"
        "    class MyJobOperator(BaseOperator, ResumableJobMixin):\n"
        f'        external_id_key = "{store_key}"\n'
        "        def execute(self, context):\n"
        "            return self.execute_resumable(context)\n"
        "        def submit_job(self, context):\n"
        "            return self.hook.submit(...)\n"
        "        # ...get_job_status, is_job_active, is_job_succeeded, poll_until_complete, get_job_result"
    )


def _store_key(key: str) -> str:
    cleaned = "_".join(words(key))
    return cleaned or "job_id"


RULE = Rule(
    code="RJ003",
    name="hand-written-reconnect",
    severity=ERROR,
    summary="Hand-written 'reconnect if a job id is stored in a Variable, else submit' logic; use ResumableJobMixin.",
    check=check,
)
