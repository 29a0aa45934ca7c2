"""Precision and recall of the reviewer on its test corpus, per rule and overall.

Run: ``python tests/review/measure_corpus.py``. Ideal findings are ``EXPECTED`` plus
``KNOWN_MISSES`` from ``expected.py``; a finding counts as a true positive only when path,
line, column and code all match.
"""

from __future__ import annotations

import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

from expected import EXPECTED, KNOWN_MISSES  # noqa: E402

from resumable_jobs.review import ALL_RULES, review_files  # noqa: E402
from resumable_jobs.review.walker import python_files  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")


def measure() -> dict[str, tuple[int, int, int]]:
    """code -> (true positives, false positives, false negatives); "all" for the total."""
    ideal = {
        (name, line, column, code)
        for table in (EXPECTED, KNOWN_MISSES)
        for name, rows in table.items()
        for line, column, code, _ in rows
    }
    result = review_files(python_files([CORPUS]))
    actual = {(os.path.basename(f.path), f.line, f.column, f.code) for f in result.findings}
    tp = Counter(item[3] for item in actual & ideal)
    fp = Counter(item[3] for item in actual - ideal)
    fn = Counter(item[3] for item in ideal - actual)
    table = {rule.code: (tp[rule.code], fp[rule.code], fn[rule.code]) for rule in ALL_RULES}
    table["all"] = (sum(tp.values()), sum(fp.values()), sum(fn.values()))
    return table


def ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 1.0


def main() -> int:
    print(f"{'rule':6} {'TP':>3} {'FP':>3} {'FN':>3} {'precision':>10} {'recall':>7}")
    for code, (tp, fp, fn) in measure().items():
        print(f"{code:6} {tp:3} {fp:3} {fn:3} {ratio(tp, tp + fp):10.3f} {ratio(tp, tp + fn):7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
