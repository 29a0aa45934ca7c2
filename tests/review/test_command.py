"""The ``review`` command: arguments, exit codes, output formats, unreadable files."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pytest

from resumable_jobs.review import command
from resumable_jobs.review.engine import review_files
from resumable_jobs.review.walker import python_files

CORPUS = os.path.join(os.path.dirname(__file__), "corpus")
POSITIVE = os.path.join(CORPUS, "rj006_positive.py")
NEGATIVE = os.path.join(CORPUS, "rj006_negative.py")


def invoke(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return command.run(parser.parse_args(list(argv)))


def test_exit_codes(capsys, tmp_path):
    assert invoke(NEGATIVE) == 0
    assert invoke(POSITIVE) == 1
    assert invoke(str(tmp_path / "missing.py")) == 2
    assert "path does not exist" in capsys.readouterr().err
    assert invoke(POSITIVE, "--select", "RJ999") == 2
    assert "unknown rule code 'RJ999'" in capsys.readouterr().err
    assert invoke(POSITIVE, "--ignore", "XX") == 2


def test_select_and_ignore(capsys):
    assert invoke(POSITIVE, "--select", "RJ001,RJ002") == 0
    assert invoke(POSITIVE, "--ignore", "RJ006") == 0
    assert invoke(POSITIVE, "--select", "rj00", "--ignore", "RJ001") == 1  # prefixes, any case
    assert invoke(POSITIVE, "--select", "RJ001", "--select", "RJ006") == 1  # repeatable


def test_json_output(capsys):
    assert invoke(POSITIVE, "--format", "json") == 1
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"findings", "errors"}
    first = document["findings"][0]
    assert first == {
        "path": POSITIVE,
        "line": 12,
        "column": 9,
        "code": "RJ006",
        "severity": "error",
        "message": first["message"],
        "suggestion": first["suggestion"],
    }
    assert "wait_for_termination=False" in first["message"]
    assert "Before:" in first["suggestion"] and "After:" in first["suggestion"]


def test_text_output(capsys):
    invoke(POSITIVE)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{POSITIVE}:12:9: RJ006 [error] deferrable=True has no effect")
    assert lines[1].startswith("    ")
    assert lines[-1] == "2 findings (2 error) in 1 file."


def test_sarif_output(capsys, tmp_path):
    out = tmp_path / "review.sarif"
    assert invoke(POSITIVE, "--format", "sarif", "--output", str(out)) == 1
    assert capsys.readouterr().out == ""
    document = json.loads(out.read_text())
    assert document["version"] == "2.1.0"
    run = document["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [f"RJ00{i}" for i in range(1, 10)]
    result = run["results"][0]
    assert result["ruleId"] == "RJ006" and result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 12, "startColumn": 9}
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in run["tool"]["driver"]["rules"]}
    assert levels["RJ005"] == "note" and levels["RJ004"] == "warning"


def test_unparsable_and_undecodable_files_are_reported_not_raised(tmp_path, capsys):
    (tmp_path / "broken.py").write_text("def oops(:\n    pass\n")
    (tmp_path / "latin.py").write_bytes(b"x = '\xff'\n")
    (tmp_path / "fine.py").write_text("x = 1\n")
    assert invoke(str(tmp_path), "--format", "json") == 1
    document = json.loads(capsys.readouterr().out)
    assert document["findings"] == []
    assert [(os.path.basename(e["path"]), e["message"].split(":")[0]) for e in document["errors"]] == [
        ("broken.py", "cannot parse"),
        ("latin.py", "cannot decode"),
    ]


def test_a_rule_failing_on_one_file_reports_that_file_and_reviews_the_others(tmp_path, capsys, monkeypatch):
    from resumable_jobs.review import engine

    real = engine.ModuleIndex

    def index_failing_on_odd(tree, source, path, project=None):
        if path.endswith("odd.py"):
            raise AttributeError("'NoneType' object has no attribute 'id'")
        return real(tree, source, path, project)

    monkeypatch.setattr(engine, "ModuleIndex", index_failing_on_odd)
    (tmp_path / "odd.py").write_text("x = 1\n")
    with open(POSITIVE) as handle:
        (tmp_path / "dag.py").write_text(handle.read())
    assert invoke(str(tmp_path), "--format", "json") == 1
    document = json.loads(capsys.readouterr().out)
    assert {os.path.basename(f["path"]) for f in document["findings"]} == {"dag.py"}
    assert [(os.path.basename(e["path"]), e["message"]) for e in document["errors"]] == [
        (
            "odd.py",
            (
                "not reviewed: the reviewer failed on it (AttributeError: 'NoneType' object has no attribute 'id');"
                " please report it"
            ),
        )
    ]


def test_folders_recurse_and_skip_hidden_and_cache_dirs(tmp_path):
    for folder in ("dags/sub", "dags/.hidden", "dags/__pycache__"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "x.py").write_text("")
    (tmp_path / "dags" / "notes.txt").write_text("")
    assert python_files([str(tmp_path / "dags")]) == [str(tmp_path / "dags" / "sub" / "x.py")]


def _copies_of_positive(tmp_path, count: int) -> list[str]:
    """A tree of ``count`` copies of one positive case (two findings each), large enough to fork."""
    with open(POSITIVE) as handle:
        source = handle.read()
    for i in range(count):
        (tmp_path / f"d{i:03d}.py").write_text(source)
    return python_files([str(tmp_path)])


def test_parallel_review_matches_serial(tmp_path):
    files = _copies_of_positive(tmp_path, 210)
    serial, parallel = review_files(files, jobs=1), review_files(files, jobs=2)
    assert parallel.findings == serial.findings and len(serial.findings) == 420


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the bare fork path exists only where fork does")
def test_parallel_review_survives_a_child_that_fails(tmp_path, monkeypatch):
    from resumable_jobs.review import engine

    files = _copies_of_positive(tmp_path, 210)
    serial = review_files(files, jobs=1)
    parent, real = os.getpid(), engine._analyse_chunk

    def chunk_failing_in_children(paths, codes):
        if os.getpid() != parent:
            raise MemoryError("a child that runs out of memory")
        return real(paths, codes)

    monkeypatch.setattr(engine, "_analyse_chunk", chunk_failing_in_children)
    parallel = review_files(files, jobs=3)
    assert parallel.findings == serial.findings and len(serial.findings) == 420


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the batch queue exists only where fork does")
def test_a_slowed_process_reviews_fewer_batches_and_the_result_is_unchanged(tmp_path, monkeypatch):
    """Other work on the machine slows one process down: the other takes the batches it leaves."""
    import time

    from resumable_jobs.review import engine

    files = _copies_of_positive(tmp_path, 400)
    serial = review_files(files, jobs=1)
    parent, real, reviewed_here = os.getpid(), engine._analyse_chunk, []

    def child_is_slow(paths, codes):
        if os.getpid() != parent:
            time.sleep(0.2)
        else:
            reviewed_here.extend(paths)
        return real(paths, codes)

    monkeypatch.setattr(engine, "_analyse_chunk", child_is_slow)
    parallel = review_files(files, jobs=2)
    assert parallel.findings == serial.findings and len(serial.findings) == 800
    assert len(reviewed_here) > 300  # a fixed split would have left 200 to the slow child


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("x = 'caf\u00e9'\n".encode("utf-8"), "x = 'caf\u00e9'\n"),
        # bytes that are valid UTF-8 too (C3 A9): only the cookie says they are two latin-1 characters
        (
            "# -*- coding: latin-1 -*-\nx = '\u00c3\u00a9'\n".encode("latin-1"),
            "# -*- coding: latin-1 -*-\nx = '\u00c3\u00a9'\n",
        ),
        (
            "#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\nx = '\u00c3\u00a9'\n".encode("latin-1"),
            "#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\nx = '\u00c3\u00a9'\n",
        ),
        (
            "#!/usr/bin/env python\n# coding=cp1252\nx = '\u20ac'\n".encode("cp1252"),
            "#!/usr/bin/env python\n# coding=cp1252\nx = '\u20ac'\n",
        ),
        (b"\xef\xbb\xbfx = 1\n", "x = 1\n"),
    ],
)
def test_files_are_decoded_as_python_decodes_them(tmp_path, raw, text):
    from resumable_jobs.review.engine import _read

    (tmp_path / "m.py").write_bytes(raw)
    assert _read(str(tmp_path / "m.py")) == text


def test_warnings_of_the_parser_stay_quiet_and_are_restored(tmp_path):
    import warnings

    (tmp_path / "escapes.py").write_text('PATTERN = "\\d+"\n')  # an invalid escape sequence
    before = list(warnings.filters)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning that got out would fail the review
        result = review_files([str(tmp_path / "escapes.py")])
        assert result.errors == [] and result.findings == []
    assert warnings.filters == before


def test_review_does_not_import_airflow():
    code = (
        "import sys, resumable_jobs.review.command as c, resumable_jobs.review.engine as e;"
        f"e.review_file({POSITIVE!r});"
        "print(sorted(m for m in sys.modules if m == 'airflow' or m.startswith('airflow.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_module_entry_point(fmt):
    result = subprocess.run(
        [sys.executable, "-m", "resumable_jobs.review", NEGATIVE, "--format", fmt], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_package_cli_runs_the_reviewer(capsys):
    from resumable_jobs.cli import main

    assert main(["review", NEGATIVE]) == 0
    assert capsys.readouterr().out == "No findings in 1 file.\n"
    assert main(["review", POSITIVE, "--format", "json"]) == 1
    assert [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["RJ006", "RJ006"]
    assert main(["review", POSITIVE, "--select", "RJ1"]) == 2


def test_pre_commit_hooks_call_the_review_command():
    yaml = pytest.importorskip("yaml")
    root = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    with open(os.path.join(root, ".pre-commit-hooks.yaml")) as handle:
        hooks = yaml.safe_load(handle)
    assert {hook["id"] for hook in hooks} == {"resumable-jobs-review", "resumable-jobs-review-system"}
    for hook in hooks:
        assert hook["entry"] == "resumable-jobs review" and hook["types"] == ["python"]


def test_symlinked_folders_are_followed_and_loops_named(tmp_path, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "team.py").write_text("x = 1\n")
    dags = tmp_path / "dags"
    dags.mkdir()
    (dags / "team").symlink_to(shared, target_is_directory=True)
    (dags / "loop").symlink_to(dags, target_is_directory=True)
    (dags / "gone.py").symlink_to(tmp_path / "missing.py")
    assert python_files([str(dags)]) == [str(dags / "team" / "team.py")]
    assert invoke(str(dags), "--format", "json") == 1
    errors = json.loads(capsys.readouterr().out)["errors"]
    messages = sorted(e["message"] for e in errors)
    assert messages[0].startswith(f"broken symlink: {dags / 'gone.py'} -> ")
    assert messages[1] == f"symlink loop: {dags / 'loop'} -> {dags}, not followed"
    assert invoke(str(dags)) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "0 findings in 1 file; 2 paths could not be reviewed."


def test_path_errors_on_the_command_line_say_what_is_wrong(tmp_path, capsys):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    broken = tmp_path / "broken.py"
    broken.symlink_to(tmp_path / "nowhere.py")
    assert invoke(str(loop)) == 2
    assert f"symlink loop: {loop}" in capsys.readouterr().err
    assert invoke(str(broken)) == 2
    assert f"broken symlink: {broken} -> {tmp_path / 'nowhere.py'}" in capsys.readouterr().err
    assert invoke(str(tmp_path / "absent")) == 2
    assert f"path does not exist: {tmp_path / 'absent'}" in capsys.readouterr().err


def test_the_command_uses_every_cpu_by_default_and_j1_keeps_one_process(monkeypatch, tmp_path):
    from resumable_jobs.review.findings import ReviewResult

    asked = []
    monkeypatch.setattr(command, "available_cpus", lambda: 4)
    monkeypatch.setattr(
        command, "review_files", lambda files, rules, jobs, **options: asked.append(jobs) or ReviewResult()
    )
    invoke(str(tmp_path))
    invoke(str(tmp_path), "-j1")
    assert asked == [4, 1]


def test_jobs_zero_uses_every_cpu_this_process_may_run_on(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 0.0, 0.0))
    assert command.available_cpus() == 4  # a busy machine too: the batches balance the processes
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    assert command.available_cpus() == 1


def test_uncertain_findings_are_shown_only_when_asked_for_with_their_reason(tmp_path, capsys):
    dag = tmp_path / "dag.py"
    dag.write_text(
        "from airflow import DAG\n"
        "from airflow.operators.bash import BashOperator\n\n"
        'with DAG("x"):\n'
        '    BashOperator(task_id="b", bash_command="run --from {{ var.value.orders_cursor }}")\n'
    )
    assert invoke(str(dag), "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    assert invoke(str(dag), "--format", "json", "--include-uncertain") == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert (finding["line"], finding["code"]) == (5, "RJ001")
    assert finding["uncertain"].startswith("a template read of a key nothing in the reviewed tree writes")
    assert invoke(str(dag), "--include-uncertain") == 1
    assert "    uncertain: a template read" in capsys.readouterr().out
