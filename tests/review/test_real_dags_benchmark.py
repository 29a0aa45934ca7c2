"""benchmarks/real_dags.py: fetching listed files, matching findings, counting per rule."""

from __future__ import annotations

import importlib.util
import json
import os
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_script():
    spec = importlib.util.spec_from_file_location("real_dags", os.path.join(ROOT, "benchmarks", "real_dags.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fetch_then_measure_per_rule(tmp_path):
    source = tmp_path / "upstream" / "dag.py"
    source.parent.mkdir()
    source.write_text(
        textwrap.dedent(
            """
            from airflow.models import Variable
            from airflow.sdk import task

            @task
            def load():
                Variable.set("etl_cursor", 1)
                Variable.set("job_id", 2)
            """
        )
    )
    entries = [
        {
            "repo": "someone/dags",
            "path": "dags/dag.py",
            "commit": "0" * 40,
            "url": source.as_uri(),
            "expected": [{"rule": "RJ001", "line": 7}, {"rule": "RJ004", "line": 7}],
        }
    ]
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps({"files": entries}))
    script = load_script()
    folder = tmp_path / "copies"
    script.fetch(str(folder), script.load(str(listing)))
    assert (folder / "someone" / "dags" / "dags" / "dag.py").read_text() == source.read_text()
    table, missing, false_positives, false_negatives = script.measure(str(folder), script.load(str(listing)))
    assert missing == []
    assert table["RJ001"] == (1, 1, 0)  # line 7 expected and found; line 8 found, not expected
    assert table["RJ004"] == (0, 0, 1)
    assert table["all"] == (1, 1, 1)
    assert [(os.path.basename(p), code, line) for p, code, line in false_positives] == [("dag.py", "RJ001", 8)]
    assert [(os.path.basename(p), code, line) for p, code, line in false_negatives] == [("dag.py", "RJ004", 7)]


def test_the_list_names_a_commit_and_a_url_for_every_file():
    script = load_script()
    entries = script.load()
    assert len(entries) >= 40
    for entry in entries:
        assert len(entry["commit"]) == 40
        assert entry["url"] == f"https://raw.githubusercontent.com/{entry['repo']}/{entry['commit']}/{entry['path']}"
        assert all(set(item) == {"rule", "line"} for item in entry["expected"])
