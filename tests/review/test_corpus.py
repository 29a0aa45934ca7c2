"""The reviewer on its corpus: exact findings for every file, positives and near misses."""

from __future__ import annotations

import os

import pytest

from resumable_jobs.review import ALL_RULES, review_file
from tests.review.expected import EXPECTED, KNOWN_MISSES
from tests.review.measure_corpus import measure

CORPUS = os.path.join(os.path.dirname(__file__), "corpus")
FILES = sorted(name for name in os.listdir(CORPUS) if name.endswith(".py"))


@pytest.mark.parametrize("name", FILES)
def test_exact_findings(name):
    findings = review_file(os.path.join(CORPUS, name))
    assert not isinstance(findings, Exception), findings
    actual = [(f.line, f.column, f.code, f.severity) for f in findings]
    assert actual == EXPECTED.get(name, [])
    assert all(f.path == os.path.join(CORPUS, name) for f in findings)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_every_rule_has_positives_and_near_misses(rule):
    stem = rule.code.lower()
    positives = EXPECTED.get(f"{stem}_positive.py", [])
    assert positives and all(code == rule.code for _, _, code, _ in positives)
    assert f"{stem}_negative.py" in FILES
    assert f"{stem}_negative.py" not in EXPECTED


def test_known_misses_stay_silent():
    # If the reviewer learns one of these, move it from KNOWN_MISSES to EXPECTED.
    for name, misses in KNOWN_MISSES.items():
        findings = review_file(os.path.join(CORPUS, name))
        found = {(f.line, f.column, f.code) for f in findings}
        assert found.isdisjoint({(line, column, code) for line, column, code, _ in misses})


def test_precision_and_recall_on_the_corpus():
    table = measure()
    tp, fp, fn = table["all"]
    assert fp == 0  # precision 1.0
    assert (tp, fn) == (sum(map(len, EXPECTED.values())), sum(map(len, KNOWN_MISSES.values())))
