"""How fast ``resumable-jobs review`` is, next to ``ruff check --select AIR`` on the same files.

Why: a reviewer that runs in pre-commit and CI on every DAG folder has to be cheap. Ruff's
Airflow rules are the linter teams already run, so they are the yardstick.

How: writes a tree of 2,000 generated DAG files (five shapes: TaskFlow ETL, Databricks submit
and sensor, a custom ResumableJobMixin operator, an asset watermark DAG, a DAG factory) into a
temporary folder, then times each tool as a user runs it, as a fresh process over the whole
tree. Runs are interleaved (one of each per round, ``--repeat`` rounds) so that load from other
work on the machine hits every tool alike, and the median is reported. The reviewer runs in one
process (``-j1``), in two (``-j2``) and with ``-j0`` (one per CPU, its default); ruff always
uses every CPU and runs with ``--no-cache`` so it does the same work each time. Prints files per
second for each, the CPU seconds all its processes used (steadier than wall time when other work
loads the machine), the ratio to ruff, the peak memory of the largest process, and memory against
source size: one generated file of about 1 MB reviewed alone, next
to Python's own ``ast.parse`` of that file (the floor for any AST-based tool). The reviewer runs
from bytecode, as an installed package does (see ``main``), after one untimed run of each tool,
in a fresh venv that sees only this package (see ``clean_interpreter``); one more row times
``-j2`` in the interpreter running the script, start-up hooks of its other packages included.

Run: ``python benchmarks/review_speed.py [--files 2000] [--repeat 5] [--ruff PATH]``. This is a
benchmark, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

_TASKFLOW = """\
from datetime import datetime

from airflow.sdk import Variable, dag, task

TABLE_{n} = "orders_{n}"


@dag(dag_id="taskflow_{n}", schedule="@daily", start_date=datetime(2026, 1, 1), catchup=False)
def taskflow_{n}():
    @task(retries=2)
    def extract(**context):
        bucket = Variable.get("landing_bucket")
        cursor = Variable.get("etl_cursor_{n}", default=0)
        rows = [{{"id": i}} for i in range(int(cursor), int(cursor) + {rows})]
        Variable.set("etl_cursor_{n}", rows[-1]["id"])
        return {{"bucket": bucket, "rows": rows}}

    @task
    def transform(payload):
        return [dict(row, doubled=row["id"] * 2) for row in payload["rows"]]

    @task
    def load(rows):
        target = Variable.get("warehouse_schema", default="analytics")
        return f"{{target}}.{{TABLE_{n}}}: {{len(rows)}} rows"

    load(transform(extract()))


taskflow_{n}()
"""

_DATABRICKS = """\
from datetime import datetime

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.operators.python import PythonOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG

NOTEBOOK = "/Shared/job_{n}"


def run_done(ti):
    return ti.xcom_pull(task_ids="submit_{n}") is not None


def notify(**context):
    return context["ti"].xcom_pull(task_ids="submit_{n}")


with DAG(dag_id="databricks_{n}", schedule="@hourly", start_date=datetime(2026, 1, 1), catchup=False):
    submit = DatabricksSubmitRunOperator(
        task_id="submit_{n}",
        tasks=[{{"task_key": "main", "notebook_task": {{"notebook_path": NOTEBOOK}}}}],
        wait_for_termination={wait},
    )
    wait = PythonSensor(task_id="wait_{n}", python_callable=run_done, mode="reschedule", poke_interval=60)
    done = PythonOperator(task_id="notify_{n}", python_callable=notify)
    submit >> wait >> done
"""

_MIXIN = """\
from airflow.sdk import BaseOperator, ResumableJobMixin


class Batch{n}Operator(BaseOperator, ResumableJobMixin):
    external_id_key = "batch_{n}_job_id"

    def __init__(self, *, queue: str, **kwargs):
        super().__init__(**kwargs)
        self.queue = queue

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return self.hook.submit(queue=self.queue)

    def get_job_status(self, external_id, context):
        return self.hook.status(external_id)

    def is_job_active(self, status):
        return status in ("RUNNING", "QUEUED")

    def is_job_succeeded(self, status):
        return status == "SUCCEEDED"

    def poll_until_complete(self, external_id, context):
        self.hook.wait(external_id)

    def get_job_result(self, external_id, context):
        return {{"job_id": external_id}}
"""

_ASSET = """\
from datetime import datetime, timezone

from airflow.sdk import DAG, Asset, task

ORDERS_{n} = Asset(name="orders_{n}", uri="s3://warehouse/orders_{n}")

with DAG(dag_id="asset_{n}", schedule=None, start_date=datetime(2026, 1, 1), catchup=False):

    @task(inlets=[ORDERS_{n}], outlets=[ORDERS_{n}])
    def load(asset_state_store=None):
        store = asset_state_store[ORDERS_{n}]
        since = store.get("watermark", default="2026-01-01T00:00:00+00:00")
        now = datetime.now(tz=timezone.utc).isoformat()
        store.set("watermark", now)
        store.set("summary", {{"since": since, "until": now, "rows": {rows}}})

    @task
    def report(**context):
        store = context["task_state_store"]
        store.set("reported_at", now_text())

    def now_text():
        return datetime.now(tz=timezone.utc).isoformat()

    load() >> report()
"""

_FACTORY = """\
from datetime import datetime

from airflow.providers.standard.operators.bash import BashOperator
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, Variable, chain


def make_dag(name):
    with DAG(dag_id=f"factory_{n}_{{name}}", schedule=None, start_date=datetime(2026, 1, 1)) as dag:
        steps = []
        for i in range({rows}):
            steps.append(BashOperator(task_id=f"step_{{i}}", bash_command=f"echo {{i}}"))

        def finish(**context):
            context["ti"].xcom_push(key="table", value=Variable.get("target_table", default="t"))

        chain(*steps, PythonOperator(task_id="finish", python_callable=finish))
    return dag


for team in ("a", "b", "c"):
    globals()[f"dag_{{team}}"] = make_dag(team)
"""

_SHAPES = (_TASKFLOW, _DATABRICKS, _MIXIN, _ASSET, _FACTORY)


def generate(root: str, count: int) -> None:
    for n in range(count):
        shape = _SHAPES[n % len(_SHAPES)]
        folder = os.path.join(root, f"team_{n % 20:02d}")
        os.makedirs(folder, exist_ok=True)
        text = shape.format(n=n, rows=3 + n % 7, wait="False" if n % 2 else "True")
        with open(os.path.join(folder, f"dag_{n:04d}.py"), "w", encoding="utf-8") as handle:
            handle.write(text)


def generate_big_file(path: str, size: int) -> int:
    """One module of about ``size`` bytes made of the same shapes: memory against source size."""
    parts, total, n = [], 0, 0
    while total < size:
        text = _SHAPES[n % len(_SHAPES)].format(n=n, rows=3, wait="False")
        parts.append(text)
        total += len(text) + 1
        n += 1
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(parts))
    return os.path.getsize(path)


#: Runs a command; prints its wall time, the peak RSS (KiB) of its largest process and the CPU
#: seconds of all its processes. The clock runs inside this small wrapper, around the command
#: alone, so the wrapper's own interpreter start-up is not charged to the tool measured.
_RUSAGE = (
    "import resource, subprocess, sys, time; "
    "start = time.perf_counter(); "
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
    "elapsed = time.perf_counter() - start; "
    "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(elapsed, u.ru_maxrss, u.ru_utime + u.ru_stime)"
)


def timed_run(command: list[str], env: dict[str, str] | None = None) -> tuple[float, int, float]:
    """Wall time of one fresh run, the peak RSS in KiB of its largest process, its CPU seconds."""
    out = subprocess.run(
        [sys.executable, "-c", _RUSAGE, *command], capture_output=True, text=True, check=False, env=env
    )
    elapsed, peak, cpu = (out.stdout.split() + ["0", "0", "0"])[:3]
    return float(elapsed), int(peak), float(cpu)


def clean_interpreter(folder: str) -> str:
    """A fresh venv at ``folder`` that sees only this package: the reviewer's interpreter.

    Why: a user's reviewer is an installed package, in pre-commit's own environment or a
    team's. The development venv this script usually runs in starts slower than either: its
    editable install adds an import hook (pathlib, re, ...) and the Airflow providers add
    ``.pth`` files, about 40 ms of start-up per run that no installed reviewer pays. The venv
    is made from the base interpreter of this one, without pip, and finds the package through a
    path file naming the folder that holds ``resumable_jobs`` (a path entry's own ``.pth`` files
    are not run). The reviewer imports nothing outside the standard library.
    """
    import resumable_jobs

    subprocess.run(
        [getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", folder], check=True
    )
    python = os.path.join(folder, "bin", "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with open(os.path.join(site, "resumable_jobs_under_review.pth"), "w", encoding="utf-8") as handle:
        handle.write(os.path.dirname(os.path.dirname(os.path.abspath(resumable_jobs.__file__))) + "\n")
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ruff", default=shutil.which("ruff") or os.path.join(os.path.dirname(sys.executable), "ruff"))
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="review-bench-") as root:
        tree = os.path.join(root, "dags")
        generate(tree, args.files)
        # An installed reviewer starts from bytecode (pip compiles a wheel on install); a
        # checkout run with PYTHONDONTWRITEBYTECODE would compile every module on each run
        # instead. The reviewer's runs get a bytecode cache of their own, in the temp folder,
        # filled by one untimed run.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(root, "pycache")
        load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        python = clean_interpreter(os.path.join(root, "venv"))
        review = [python, "-m", "resumable_jobs.review", tree, "--format", "json"]
        commands = {
            "resumable-jobs review -j1": [*review, "--jobs", "1"],
            "resumable-jobs review -j2": [*review, "--jobs", "2"],
            "resumable-jobs review -j0": [*review, "--jobs", "0"],
            # the same run in the interpreter running this script (a development venv: its
            # start-up imports an editable-install hook and other packages' .pth files)
            "review -j2, this venv": [sys.executable, *review[1:], "--jobs", "2"],
        }
        version = ""
        if os.path.exists(args.ruff):
            version = subprocess.run(
                [args.ruff, "--version"], capture_output=True, text=True, check=False
            ).stdout.strip()
            commands["ruff check --select AIR"] = [
                args.ruff,
                "check",
                "--select",
                "AIR",
                "--no-cache",
                "--isolated",
                "--exit-zero",
                tree,
            ]
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        peaks: dict[str, int] = dict.fromkeys(commands, 0)
        for command in commands.values():  # untimed: bytecode cache and page cache
            timed_run(command, env)
        for _ in range(args.repeat):
            for name, command in commands.items():
                elapsed, peak, cpu = timed_run(command, env)
                times[name].append(elapsed)
                cpus[name].append(cpu)
                peaks[name] = max(peaks[name], peak)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"files: {args.files} generated DAG files, median of {args.repeat} interleaved runs, fresh process each")
        print(f"CPUs: {os.cpu_count()}, load average before: {load_before:.2f}, at the end: {load:.2f}")
        for name, values in times.items():
            median = statistics.median(values)
            cpu = statistics.median(cpus[name])
            extra = f"  ({version})" if name.startswith("ruff") else ""
            print(
                f"{name + ':':27} {median:7.3f} s  {args.files / median:7.0f} files/s"
                f"  CPU {cpu:6.3f} s ({cpu / args.files * 1000:.3f} ms/file)  peak {peaks[name] / 1024:5.1f} MiB"
                f"  (best {args.files / min(values):.0f} files/s){extra}"
            )
        if version:
            ruff = statistics.median(times["ruff check --select AIR"])
            best = min(statistics.median(times[name]) for name in commands if name.startswith("resumable"))
            print(
                f"ratio (review / ruff):      {ruff / best:.3f} (review's best median files/s as a fraction of ruff's)"
            )

        big = os.path.join(root, "big.py")
        size = generate_big_file(big, 1024 * 1024)
        _, baseline, _ = timed_run([python, "-c", "import resumable_jobs.review.engine"], env)
        _, ours, _ = timed_run([python, "-m", "resumable_jobs.review", big, "--format", "json"], env)
        _, parse, _ = timed_run([python, "-c", f"import ast; ast.parse(open({big!r}).read())"], env)
        mib = size / (1024 * 1024)
        print(
            f"memory per MiB of source ({mib:.2f} MiB file): review {(ours - baseline) / 1024 / mib:.0f} MiB, "
            f"ast.parse alone {(parse - baseline) / 1024 / mib:.0f} MiB (above an idle interpreter)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
