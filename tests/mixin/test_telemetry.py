"""What a resume decision emits: the metrics, span and log events upstream's users search for.

A team that switches from ``airflow.sdk.ResumableJobMixin`` keeps its dashboards (metric names
and tags, ``team_name`` included), its trace queries (span name and attributes) and its log
alerts (event wording, level and fields). Each test stages one retry situation with the fake job
system and checks all three on the retry alone; our extra reasons are reported under the
upstream decision with the same effect and told apart by ``resumable.reason``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import pytest

from resumable_jobs.testing import (
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    SimulatedWorkerCrash,
    crash_at,
    make_context,
    run_try,
)
from resumable_jobs.testing.fake_system import FAILED, FakeJobOperator

pytestmark = pytest.mark.durable_only

STATS_INCR = "airflow.sdk._shared.observability.metrics.stats.incr"
UPSTREAM_TRACER = "airflow.sdk.bases.resumablejobmixin.tracer"
ATTEMPT, SUCCESS = "resumable_job.reconnect_attempt", "resumable_job.reconnect_success"
FRESH, DONE, TERMINAL = "resumable_job.fresh_submit", "resumable_job.already_succeeded", "resumable_job.terminal_resubmit"


@dataclass
class Retry:
    """The try under test: its store and task instance, and the job an earlier try left."""

    store: InMemoryTaskStateStore
    ti: FakeTaskInstance
    prior_job: str | None = None
    payload: Any = None
    spans: list = field(default_factory=list)


def _op(system, payload=None):
    return FakeJobOperator(task_id="job", system=system, payload=payload)


def _after_crash(system, point, *, payload=None) -> Retry:
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=3)
    first = _op(system, payload)
    with crash_at(first, point, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    return Retry(store, ti.next_try(), store.get(FakeJobOperator.external_id_key), payload)


def fresh(system):
    return Retry(InMemoryTaskStateStore(), FakeTaskInstance(max_tries=3))


def still_running(system):
    return _after_crash(system, CrashPoint.MID_POLL)


def already_succeeded(system):
    return _after_crash(system, CrashPoint.AFTER_JOB_SUCCEEDED)


def failed(system):
    retry = _after_crash(system, CrashPoint.MID_POLL)
    system.jobs[retry.prior_job].state = FAILED
    return retry


def forgotten(system):
    retry = _after_crash(system, CrashPoint.MID_POLL)
    system.forget(retry.prior_job)
    return retry


def cleared_after_success(system):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=3)
    result = run_try(_op(system), make_context(store, ti))
    return Retry(store, ti.cleared(), result["job_id"])


def crashed_while_submitting(system):
    return _after_crash(system, CrashPoint.AFTER_SUBMIT)  # not searchable: the id is unknown


def orphan_found_by_token(system):
    system.searchable = True
    retry = _after_crash(system, CrashPoint.AFTER_SUBMIT)
    retry.prior_job = next(iter(system.jobs))
    return retry


def request_changed(system):
    retry = _after_crash(system, CrashPoint.MID_POLL, payload={"partition": 1})
    retry.payload = {"partition": 2}
    return retry


#: scenario -> metrics, resumable.decision, resumable.reason, prior status, generation,
#:             (decision log event fragment, level) or None
SCENARIOS = {
    fresh: ([FRESH], "fresh_submit", "fresh", None, 1, None),  # upstream's DEBUG line: below the task log's level
    still_running: ([ATTEMPT, SUCCESS], "reconnect", "still_active", "RUNNING", 1, ("Reconnecting to existing job", "info")),
    already_succeeded: ([ATTEMPT, DONE], "already_succeeded", "succeeded", "SUCCEEDED", 1, ("already completed", "info")),
    failed: ([ATTEMPT, TERMINAL], "terminal_resubmit", "terminal", "FAILED", 2, ("terminal state", "warning")),
    forgotten: ([ATTEMPT, TERMINAL], "terminal_resubmit", "not_found", None, 2, ("terminal state", "warning")),
    cleared_after_success: (
        [ATTEMPT, TERMINAL], "terminal_resubmit", "rerun_after_success", None, 2, ("was cleared", "info"),
    ),
    crashed_while_submitting: ([FRESH], "fresh_submit", "retry_submission", None, 1, ("No stored external ID", "info")),
    orphan_found_by_token: ([ATTEMPT, SUCCESS], "reconnect", "still_active", "RUNNING", 1, ("Reconnecting", "info")),
    request_changed: ([ATTEMPT, TERMINAL], "terminal_resubmit", "request_changed", None, 2, ("Not reconnecting", "warning")),
}
IDS = [scenario.__name__ for scenario in SCENARIOS]


@pytest.fixture
def spans():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    # The tracer upstream's mixin module holds: configuring (or replacing) it must reach ours too.
    with mock.patch(UPSTREAM_TRACER, provider.get_tracer("airflow.sdk.bases.resumablejobmixin")):
        yield exporter


def _run_retry(retry: Retry, system, *, ti: Any = None) -> tuple[mock.MagicMock, Any]:
    incr = mock.MagicMock()
    with mock.patch(STATS_INCR, incr):
        result = run_try(_op(system, retry.payload), make_context(retry.store, ti or retry.ti))
    return incr, result


def _decision_span(exporter):
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "resumable_job.resume_decision"]
    return span


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_metrics_have_upstream_names_and_operator_tag(system, scenario):
    metrics, *_ = SCENARIOS[scenario]
    incr, _ = _run_retry(scenario(system), system)
    assert incr.call_args_list == [mock.call(name, tags={"operator": "FakeJobOperator"}) for name in metrics]


@pytest.mark.parametrize("scenario", [fresh, still_running, failed], ids=["fresh", "still_running", "failed"])
def test_team_name_of_a_multi_team_deployment_is_a_metric_tag(system, scenario):
    retry = scenario(system)
    team_ti = FakeTaskInstance(**{**vars(retry.ti), "team_name": "team_alpha"})
    incr, _ = _run_retry(retry, system, ti=team_ti)
    assert {tuple(sorted(c.kwargs["tags"].items())) for c in incr.call_args_list} == {
        (("operator", "FakeJobOperator"), ("team_name", "team_alpha"))
    }


def test_a_task_instance_without_stats_tags_still_gets_the_operator_tag(system):
    class BareTaskInstance(FakeTaskInstance):
        stats_tags = None  # an older or hand-made task instance

    incr, _ = _run_retry(Retry(InMemoryTaskStateStore(), BareTaskInstance()), system)
    incr.assert_called_once_with(FRESH, tags={"operator": "FakeJobOperator"})


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_decision_span_has_upstream_attributes_and_ours(system, scenario, spans):
    _, decision, reason, prior_status, generation, _ = SCENARIOS[scenario]
    retry = scenario(system)
    spans.clear()  # the earlier try's span
    _run_retry(retry, system)
    attributes = dict(_decision_span(spans).attributes)

    assert attributes.pop("operator") == "FakeJobOperator"
    assert attributes.pop("resumable.external_id_key") == "fake_job_id"
    assert attributes.pop("resumable.decision") == decision
    if retry.prior_job is not None and scenario is not crashed_while_submitting:
        assert attributes.pop("resumable.external_id") == retry.prior_job
    if prior_status is not None:
        assert attributes.pop("resumable.prior_status") == prior_status
    assert attributes.pop("resumable.reason") == reason
    assert attributes.pop("resumable.generation") == generation
    if scenario is orphan_found_by_token:
        assert attributes.pop("resumable.found_by_submission_token") is True
    assert attributes == {}  # nothing else, and nothing that contradicts upstream's meaning


def test_fresh_submission_span_names_no_external_id(system, spans):
    _run_retry(fresh(system), system)
    assert "resumable.external_id" not in _decision_span(spans).attributes


def test_span_ends_before_the_job_is_submitted(system, spans):
    open_at_submit = []

    class Watching(FakeJobOperator):
        def submit_job(self, context):
            open_at_submit.append([s.name for s in spans.get_finished_spans()])
            return super().submit_job(context)

    run_try(Watching(task_id="job", system=system), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert open_at_submit == [["resumable_job.resume_decision"]]  # already finished: it covers the decision only


def test_missing_store_reports_no_task_state_store(system, spans, task_logs):
    run_try(_op(system), make_context(None, FakeTaskInstance()))
    assert _decision_span(spans).attributes["resumable.decision"] == "no_task_state_store"
    assert "crash recovery is disabled" in task_logs.event("task_state_store not available", "warning")["event"]


def test_durable_false_makes_no_decision_and_no_span(system, spans):
    run_try(FakeJobOperator(task_id="job", system=system, durable=False), make_context(InMemoryTaskStateStore()))
    assert spans.get_finished_spans() == ()


LOGGED = [scenario for scenario, expected in SCENARIOS.items() if expected[-1] is not None]


@pytest.mark.parametrize("scenario", LOGGED, ids=[scenario.__name__ for scenario in LOGGED])
def test_decision_log_event_has_upstream_wording_level_and_fields(system, scenario, task_logs):
    _, _, _, prior_status, generation, (fragment, level) = SCENARIOS[scenario]
    retry = scenario(system)
    task_logs.clear()
    _run_retry(retry, system)
    event = task_logs.event(fragment, level)
    if scenario is request_changed:  # the core mixin's WARNING names both fingerprints instead
        assert retry.prior_job in event["event"]
        return
    assert event["external_id_key"] == "fake_job_id"
    assert event["generation"] == generation
    assert event["reason"]  # the sentence saying why
    if retry.prior_job is not None and scenario is not crashed_while_submitting:
        assert event["external_id"] == retry.prior_job
    else:
        assert "external_id" not in event
    assert event.get("status") == prior_status
    assert event.get("found_by_submission_token", False) is (scenario is orphan_found_by_token)


@pytest.mark.parametrize("scenario", [fresh, failed, cleared_after_success], ids=["fresh", "failed", "cleared"])
def test_the_new_job_is_named_once_it_is_persisted(system, scenario, task_logs):
    retry = scenario(system)
    task_logs.clear()
    _, result = _run_retry(retry, system)
    persisted = task_logs.event("Persisted external ID to task store", "info")
    assert persisted["external_id"] == result["job_id"] != retry.prior_job
    assert persisted.get("replaces") == retry.prior_job


def test_adopted_orphan_is_logged_with_its_generation(system, task_logs):
    retry = orphan_found_by_token(system)
    task_logs.clear()
    _run_retry(retry, system)
    found = task_logs.event("found by its submission token", "info")
    assert found["external_id"] == retry.prior_job
    assert found["generation"] == 1
    assert "submission_token" not in found  # Airflow masks token-named fields: it would only show ***
