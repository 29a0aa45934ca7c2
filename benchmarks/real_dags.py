"""Precision and recall of ``resumable-jobs review`` on public DAG files nobody here wrote.

Why: the test corpus is ours, so it flatters the reviewer. This evaluation runs it on real DAG
folders (Airflow's own system-test DAGs, astronomer-providers' examples, public company and
tutorial repositories) against findings decided by a person who read each file.

How: ``real_dags.json`` lists each file (repository, path, commit, the raw URL of that commit)
and its expected findings (rule and line). No third-party file is kept in this repository:
point the script at a folder holding them as ``<DIR>/<owner>/<repo>/<path>``; ``--fetch``
downloads the missing ones from the listed URLs when the network allows. The reviewer runs
once over the whole folder (so the project index sees each repository's helpers), and a
finding counts as a true positive when file, rule and line match an expected one.

Run: ``python benchmarks/real_dags.py --dir /tmp/real_dags [--fetch]``. It prints a table per
rule and overall, for the whole list and then for each batch of entries added later (an entry's
``batch``: "held-out" batches were read only after the rule changes, so they estimate how the
reviewer does on DAG folders nobody tuned it on); it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.request
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from resumable_jobs.review import ALL_RULES, review_files
from resumable_jobs.review.walker import walk

LIST = os.path.join(HERE, "real_dags.json")


def load(path: str = LIST) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)["files"]


def local_path(root: str, entry: dict) -> str:
    return os.path.join(root, entry["repo"], entry["path"])


def fetch(root: str, entries: list[dict]) -> None:
    for entry in entries:
        target = local_path(root, entry)
        if os.path.exists(target):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        try:
            with urllib.request.urlopen(entry["url"], timeout=30) as response:
                data = response.read()
        except OSError as exc:
            print(f"cannot fetch {entry['url']}: {exc}", file=sys.stderr)
            continue
        with open(target, "wb") as handle:
            handle.write(data)


def measure(root: str, entries: list[dict], findings=None):
    """(code -> (true positives, false positives, false negatives), files missing, false
    positives, false negatives), the last two as sorted (path, code, line).

    ``findings`` are the reviewer's findings over the whole folder, when the caller already has
    them (to score several subsets of the list from one review)."""
    present = [e for e in entries if os.path.exists(local_path(root, e))]
    missing = [local_path(root, e) for e in entries if e not in present]
    listed = {os.path.abspath(local_path(root, e)): e for e in present}
    ideal = {
        (os.path.abspath(local_path(root, e)), item["rule"], item["line"]) for e in present for item in e["expected"]
    }
    if findings is None:
        findings = review_files(walk([root]).files).findings
    actual = {(os.path.abspath(f.path), f.code, f.line) for f in findings if os.path.abspath(f.path) in listed}
    tp = Counter(code for _, code, _ in actual & ideal)
    fp = Counter(code for _, code, _ in actual - ideal)
    fn = Counter(code for _, code, _ in ideal - actual)
    table = {rule.code: (tp[rule.code], fp[rule.code], fn[rule.code]) for rule in ALL_RULES}
    table["all"] = (sum(tp.values()), sum(fp.values()), sum(fn.values()))
    return table, missing, sorted(actual - ideal), sorted(ideal - actual)


def ratio(numerator: int, denominator: int) -> str:
    return f"{numerator / denominator:.3f}" if denominator else "  n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="folder holding <owner>/<repo>/<path> copies of the listed files")
    parser.add_argument("--list", default=LIST, help="the list of files and expected findings")
    parser.add_argument("--fetch", action="store_true", help="download missing files from their URLs first")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every false positive and negative")
    args = parser.parse_args(argv)
    entries = load(args.list)
    if args.fetch:
        fetch(args.dir, entries)
    findings = review_files(walk([args.dir]).files).findings
    # the whole list, then each batch added later on its own: a held-out batch was read only
    # after the rule changes, so it is the honest estimate for DAG folders not seen before
    batches = sorted({e["batch"] for e in entries if e.get("batch")})
    held_out = [e for e in entries if e.get("batch", "").startswith("held-out")]
    groups = [
        ("whole list", entries),
        # the entries the rules were tuned on, and the held-out batches together (each was blind
        # only until the rule changes it led to: the first table of each batch in docs/review.md)
        ("listed while the rules were changed (no held-out batch)", [e for e in entries if e not in held_out]),
        ("held-out batches together", held_out),
    ]
    for title, subset in groups + [(b, [e for e in entries if e.get("batch") == b]) for b in batches]:
        table, missing, false_positives, false_negatives = measure(args.dir, subset, findings)
        repos = {e["repo"] for e in subset if local_path(args.dir, e) not in missing}
        print(f"{title}: {len(subset) - len(missing)} of {len(subset)} files, from {len(repos)} repositories")
        for path in missing:
            print(f"  missing: {path} (run with --fetch, or copy it there)")
        print(f"{'rule':6} {'TP':>3} {'FP':>3} {'FN':>3} {'precision':>10} {'recall':>7}")
        for code, (tp, fp, fn) in table.items():
            if code != "all" and tp + fp + fn == 0:
                continue
            print(f"{code:6} {tp:3} {fp:3} {fn:3} {ratio(tp, tp + fp):>10} {ratio(tp, tp + fn):>7}")
        if args.verbose:
            for label, rows in (("false positive", false_positives), ("false negative", false_negatives)):
                for path, code, line in rows:
                    print(f"{label}: {os.path.relpath(path, args.dir)}:{line} {code}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
