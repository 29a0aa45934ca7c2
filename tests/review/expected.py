"""The findings the reviewer must produce on the corpus, and the ones it is known to miss.

``EXPECTED`` is exact: file -> (line, column, code, severity) for every finding, 1-based.
Corpus files not listed must produce no finding at all (the near-miss negatives).
``KNOWN_MISSES`` are findings a human reviewer would make that the reviewer does not; they
count against recall in ``measure_corpus.py`` and are pinned as silent by the tests, so an
improvement shows up as a test to update rather than going unnoticed.
"""

from __future__ import annotations

EXPECTED: dict[str, list[tuple[int, int, str, str]]] = {
    "rj001_positive.py": [
        (19, 14, "RJ001", "error"),  # Variable.get("etl_cursor") in @task
        (22, 5, "RJ001", "error"),  # Variable.set("etl_cursor")
        (27, 13, "RJ001", "error"),  # airflow.sdk Variable alias, key= keyword
        (28, 5, "RJ001", "error"),  # models.Variable.set(key=..., value=...)
        (32, 18, "RJ001", "error"),  # python_callable, module constant key
        (33, 5, "RJ001", "error"),
        (39, 9, "RJ001", "error"),  # airflow.models.variable alias in execute()
        (49, 13, "RJ001", "error"),  # @task inside a factory loop, f-string key
    ],
    "rj002_positive.py": [
        (22, 9, "RJ002", "error"),  # context["ti"] bound to ti
        (30, 9, "RJ002", "error"),  # kwargs["ti"], pull with its own task id
        (39, 5, "RJ002", "error"),  # get_current_context()["task_instance"], constant key
        (47, 13, "RJ002", "error"),  # operator: push in execute(), pull in a helper method
    ],
    "rj003_positive.py": [
        (12, 9, "RJ003", "error"),  # the spec's before-example in execute()
        (28, 5, "RJ003", "error"),  # walrus + early return
        (38, 5, "RJ003", "error"),  # `is None` test, submit in the body
    ],
    "rj004_positive.py": [
        (15, 13, "RJ004", "warning"),
        (17, 5, "RJ004", "warning"),
        (21, 12, "RJ004", "warning"),
        (23, 5, "RJ004", "warning"),
        (28, 12, "RJ004", "warning"),  # read-only, but the key says watermark
    ],
    "rj005_positive.py": [
        (22, 14, "RJ005", "advice"),  # Databricks + PythonSensor pulling its XCom
        (33, 17, "RJ005", "warning"),  # EMR add steps (no wait by default); publish skips the sensor
        (45, 11, "RJ005", "advice"),  # Dataproc asynchronous=True + sensor on job.output
        (70, 14, "RJ005", "warning"),  # TaskFlow submit + @task.sensor + poll loop; publish skips
    ],
    "rj006_positive.py": [
        (12, 9, "RJ006", "error"),
        (15, 19, "RJ006", "error"),
    ],
    "rj007_positive.py": [
        (10, 5, "RJ007", "error"),  # execute() does not call execute_resumable
        (15, 1, "RJ007", "error"),  # no external_id_key (aliased mixin)
        (21, 5, "RJ007", "error"),  # key with '.' and '/'
        (34, 1, "RJ007", "error"),  # most derived in-file class without a key
    ],
    "rj008_positive.py": [
        (21, 5, "RJ008", "error"),  # datetime.now()
        (22, 5, "RJ008", "error"),  # None
        (23, 5, "RJ008", "error"),  # instance of a class of the file
        (24, 5, "RJ008", "error"),  # Decimal
        (25, 5, "RJ008", "error"),  # uuid4(), keyword arguments, subscript receiver
        (26, 5, "RJ008", "error"),  # datetime nested in a dict
        (28, 5, "RJ008", "error"),  # context["data_interval_end"] through a local name
        (34, 5, "RJ008", "error"),  # utcnow() datetime on an asset store
        (35, 21, "RJ008", "warning"),  # utcnow() for a watermark, even as text
    ],
    "rj009_positive.py": [
        (19, 52, "RJ009", "error"),  # {{ ti.try_number }} in an upstream durable operator
        (22, 9, "RJ009", "error"),  # uuid4() at parse time in this project's operator
        (26, 43, "RJ009", "error"),  # now() nested in a dict, in-file ResumableJobMixin subclass
    ],
    "known_misses.py": [
        (17, 5, "RJ001", "error"),  # Variable.set in a helper called from a task
        (33, 58, "RJ006", "error"),  # deferrable=True comes from default_args
    ],
}

KNOWN_MISSES: dict[str, list[tuple[int, int, str, str]]] = {
    "known_misses.py": [
        (28, 5, "RJ008", "error"),  # value from a function returning a datetime
    ],
}
