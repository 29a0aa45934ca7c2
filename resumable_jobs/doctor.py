"""``resumable-jobs doctor``: what the installed Airflow and its settings mean for crash safety.

Why: whether a worker crash can duplicate or lose an external job depends on things outside
the DAG: the Airflow version (the state stores and durable recovery exist from 3.3, spec
"version check"), which provider packages are installed for this project's extras, and the
``[state_store]`` settings. Users otherwise have to piece this together from three places.

How: versions come from package metadata (no import). Settings are read through Airflow's own
configuration object, so ``airflow.cfg`` and ``AIRFLOW__STATE_STORE__...`` environment
variables both count; Airflow is imported only inside :func:`collect`. Each check carries a
status (``ok``, ``info``, ``warning``, ``unavailable``) and a one-line recommendation.

What it does not do: connect to the metadata database or any external system, or change
anything. The exit code is 1 when a check is a ``warning``, 0 otherwise (a pre-3.3 Airflow is
reported as ``unavailable``, a limitation rather than a misconfiguration), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict, dataclass, field
from functools import partial
from importlib import metadata

__all__ = ["AIP_103", "add_arguments", "collect", "run"]

#: The AIP page that tracks the state stores and durable job recovery.
AIP_103 = "https://cwiki.apache.org/confluence/display/AIRFLOW/AIP-103"
DURABLE_SINCE = (3, 3)

OK, INFO, WARNING, UNAVAILABLE = "ok", "info", "warning", "unavailable"

#: family -> (distribution, minimum version); mirrors the extras in pyproject.toml
PROVIDER_FAMILIES = {
    "databricks": ("apache-airflow-providers-databricks", "7.0"),
    "amazon": ("apache-airflow-providers-amazon", "9.0"),
    "google": ("apache-airflow-providers-google", "15.0"),
    "spark": ("apache-airflow-providers-apache-spark", "5.0"),
    "snowflake": ("apache-airflow-providers-snowflake", "6.0"),
    "dbt-cloud": ("apache-airflow-providers-dbt-cloud", "4.0"),
    "kubernetes": ("apache-airflow-providers-cncf-kubernetes", "10.0"),
}


@dataclass
class Setting:
    section: str
    option: str
    value: str | None
    status: str
    recommendation: str


@dataclass
class Report:
    airflow: dict[str, object]
    providers: list[dict[str, object]]
    state_store: dict[str, object] = field(default_factory=dict)

    def statuses(self) -> list[str]:
        found = [str(self.airflow["status"])] + [str(p["status"]) for p in self.providers]
        found += [s["status"] for s in self.state_store.get("settings", [])]  # type: ignore[union-attr]
        return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument(
        "--longest-job-hours",
        type=float,
        default=None,
        metavar="HOURS",
        help="your longest external job, retries included; checks default_retention_days against it",
    )


def run(args: argparse.Namespace) -> int:
    if args.longest_job_hours is not None and args.longest_job_hours <= 0:
        print("resumable-jobs doctor: error: --longest-job-hours must be positive", file=sys.stderr)
        return 2
    report = collect(args.longest_job_hours)
    if args.format == "json":
        sys.stdout.write(json.dumps(asdict(report), indent=2) + "\n")
    else:
        sys.stdout.write(render_text(report))
    return 1 if WARNING in report.statuses() else 0


def collect(longest_job_hours: float | None = None) -> Report:
    version = _installed("apache-airflow")
    airflow = _airflow_check(version)
    providers = [_provider_check(family, dist, minimum) for family, (dist, minimum) in PROVIDER_FAMILIES.items()]
    report = Report(airflow=airflow, providers=providers)
    if airflow["durable_available"]:
        report.state_store = {
            "available": True,
            "settings": [asdict(s) for s in _state_store_settings(longest_job_hours)],
        }
    else:
        report.state_store = {
            "available": False,
            "message": "the [state_store] settings exist from Airflow 3.3; "
            f"not available on {version or 'this installation'}",
            "settings": [],
        }
    return report


# -- Airflow ------------------------------------------------------------------------------------


def _airflow_check(version: str | None) -> dict[str, object]:
    base = {"version": version, "task_sdk_version": _installed("apache-airflow-task-sdk"), "link": AIP_103}
    if version is None:
        return {
            **base,
            "durable_available": False,
            "status": WARNING,
            "message": "Airflow is not installed in this environment; install apache-airflow 3.3 or later",
        }
    if _version_tuple(version) < DURABLE_SINCE:
        return {
            **base,
            "durable_available": False,
            "status": UNAVAILABLE,
            "message": (
                f"Airflow {version} is below 3.3: task_state_store, asset_state_store and durable crash "
                "recovery are not available; operators fall back to the pre-3.3 shim, which submits a new "
                "job on every try, and durable=True has no effect. Upgrade to 3.3+ to get them; "
                f"AIP-103 (the AIP page) tracks this: {AIP_103}. The advice on one task or two "
                "(Triggerer vs mode=\"reschedule\") and 'submit succeeded is not job succeeded' apply on any version."
            ),
        }
    has_mixin = _sdk_has_mixin()
    if not has_mixin:
        return {
            **base,
            "durable_available": False,
            "status": WARNING,
            "message": f"Airflow {version} should ship airflow.sdk.ResumableJobMixin but it cannot be imported; "
            "reinstall apache-airflow-task-sdk to match the Airflow version",
        }
    return {
        **base,
        "durable_available": True,
        "status": OK,
        "message": (
            f"Airflow {version}: task_state_store, asset_state_store and durable crash recovery are "
            "available (airflow.sdk.ResumableJobMixin found)"
        ),
    }


def _sdk_has_mixin() -> bool:
    try:
        import airflow.sdk as sdk
    except Exception:  # a broken installation is a finding, not a crash
        return False
    return hasattr(sdk, "ResumableJobMixin")


# -- providers -----------------------------------------------------------------------------------


def _provider_check(family: str, distribution: str, minimum: str) -> dict[str, object]:
    version = _installed(distribution)
    entry = {"family": family, "distribution": distribution, "version": version, "minimum": minimum}
    if version is None:
        return {
            **entry,
            "status": INFO,
            "message": f"not installed; pip install 'airflow-provider-resumable-jobs[{family}]' "
            f"to use the {family} operators",
        }
    if _version_tuple(version) < _version_tuple(minimum):
        return {
            **entry,
            "status": WARNING,
            "message": f"{version} is older than {minimum}; upgrade {distribution} for the {family} operators",
        }
    return {**entry, "status": OK, "message": f"{version} installed; the {family} operators can be used"}


# -- [state_store] -------------------------------------------------------------------------------


def _state_store_settings(longest_job_hours: float | None) -> list[Setting]:
    from airflow.configuration import conf

    def read(section: str, option: str) -> str | None:
        return conf.get(section, option, fallback=None)

    return [
        _retention(read("state_store", "default_retention_days"), longest_job_hours),
        _clear_on_success(read("state_store", "clear_on_success")),
        _max_value(read("state_store", "max_value_storage_bytes")),
        _backend("state_store", "backend", read("state_store", "backend")),
        _backend("workers", "state_store_backend", read("workers", "state_store_backend")),
    ]


def _retention(raw: str | None, longest_job_hours: float | None) -> Setting:
    days = _as_int(raw)
    make = partial(Setting, "state_store", "default_retention_days", raw)
    if days is None:
        return make(WARNING, "not a whole number: task_state_store.set fails; set a number of days (0 = never expire)")
    if days < 0:
        return make(
            WARNING, "negative: task_state_store.set raises on every write; use 0 (never expire) or a positive number"
        )
    if days == 0:
        return make(
            OK, "keys never expire by age; clear or delete them yourself so the table does not grow without end"
        )
    if longest_job_hours is not None and longest_job_hours > days * 24:
        return make(
            WARNING,
            f"shorter than your longest job ({longest_job_hours:g} h): ids written without retention= expire while "
            "the job runs and a retry submits a duplicate; raise it, or write ids with retention=NEVER_EXPIRE",
        )
    return make(
        OK,
        f"keys written without retention= expire {days} days after their last update; keep this longer than "
        "your longest job plus its retries (ids written with retention=NEVER_EXPIRE are unaffected)",
    )


def _clear_on_success(raw: str | None) -> Setting:
    value = (raw or "").strip().lower()
    make = partial(Setting, "state_store", "clear_on_success", raw)
    if value in ("true", "1", "t", "yes"):
        return make(
            INFO,
            "keys are deleted when a task succeeds: crash recovery is unaffected (retries come before success), "
            "but nothing is left to inspect afterwards",
        )
    if value in ("false", "0", "f", "no", ""):
        return make(
            OK,
            "job ids stay after success for inspection; a cleared task that already succeeded then returns the "
            "old result with upstream operators, while this project's operators submit a new job",
        )
    return make(WARNING, "not a boolean; set True or False")


def _max_value(raw: str | None) -> Setting:
    size = _as_int(raw)
    make = partial(Setting, "state_store", "max_value_storage_bytes", raw)
    if size is None or size < 0:
        return make(WARNING, "not a non-negative whole number; use a size in bytes (default 65535, 0 = no limit)")
    if size == 0:
        return make(
            INFO,
            "no size limit: large values land in the metadata database; keep a limit and route large "
            "payloads through [workers] state_store_backend",
        )
    if size < 1024:
        return make(
            WARNING,
            f"{size} bytes is small enough for checkpoint records (id plus bookkeeping) to exceed; "
            "REST API writes above it are rejected and worker writes log a warning; use 65535",
        )
    return make(
        OK,
        f"values over {size} bytes are rejected through the REST API (workers log a warning and write); "
        "job ids and cursors are far below it",
    )


def _backend(section: str, option: str, raw: str | None) -> Setting:
    if not raw:
        text = (
            "not set: state store writes go straight to [state_store] backend"
            if section == "workers"
            else "not set; Airflow's metadata database is used"
        )
        return Setting(section, option, raw, OK, text)
    if raw.startswith("airflow.state."):
        return Setting(
            section,
            option,
            raw,
            OK,
            "Airflow's built-in backend: job ids live in the metadata database and survive worker crashes",
        )
    return Setting(
        section,
        option,
        raw,
        INFO,
        "a custom backend: make sure it keeps values when a worker dies "
        "(not local disk or process memory), or crash recovery loses job ids",
    )


# -- helpers and text output ---------------------------------------------------------------------


def _installed(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _version_tuple(version: str) -> tuple[int, ...]:
    """``"3.3.0rc1"`` -> ``(3, 3, 0)``: enough to compare release numbers."""
    numbers = []
    for part in version.split(".")[:3]:
        match = re.match(r"\d+", part)
        if match is None:
            break
        numbers.append(int(match.group()))
    return tuple(numbers)


def _as_int(raw: str | None) -> int | None:
    try:
        return int(str(raw).strip())
    except (TypeError, ValueError):
        return None


def render_text(report: Report) -> str:
    lines = ["Airflow", f"  [{report.airflow['status']}] {report.airflow['message']}"]
    if report.airflow.get("task_sdk_version"):
        lines.append(f"  task SDK: {report.airflow['task_sdk_version']}")
    lines += ["", "Provider families"]
    for provider in report.providers:
        lines.append(
            f"  [{provider['status']}] {provider['family']} ({provider['distribution']}): {provider['message']}"
        )
    lines += ["", "[state_store] settings"]
    if not report.state_store.get("available"):
        lines.append(f"  [{UNAVAILABLE}] {report.state_store.get('message')}")
    for setting in report.state_store.get("settings", []):  # type: ignore[union-attr]
        lines.append(
            f"  [{setting['status']}] [{setting['section']}] {setting['option']} = {setting['value']!s}: "
            f"{setting['recommendation']}"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    _parser = argparse.ArgumentParser(prog="resumable-jobs doctor")
    add_arguments(_parser)
    sys.exit(run(_parser.parse_args()))
