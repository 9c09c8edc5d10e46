#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate the tables of docs/performance.md from the committed data.

    docs-tables.py [--check]

Each block of the page between
    <!-- generated: bench-report.py MODE -->
and
    <!-- end generated -->
is replaced by `scripts/bench-report.py MODE docs/performance/*.txt` (MODE:
--summary or --across; the boots in docs/performance/archive/ and late/
are read by nothing). With --check nothing is written: the exit status is
1, with a diff, when the page differs from what the data gives (make check
runs it so).
"""
import difflib
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.environ.get("USBETH_DOCS_PAGE") or os.path.join(TOP, "docs", "performance.md")
BLOCK = re.compile(r"(<!-- generated: bench-report\.py (--summary|--across) -->\n)"
                   r"(.*?)(<!-- end generated -->)", re.S)


def generate(mode):
    data = sorted(glob.glob(os.path.join(TOP, "docs", "performance", "*.txt")))
    env = dict(os.environ)
    for v in ("USBETH_BENCH_TABLE", "USBETH_BENCH_PROFILES"):
        env.pop(v, None)
    out = subprocess.run(["/usr/bin/python3", os.path.join(TOP, "scripts", "bench-report.py"),
                          mode] + [os.path.relpath(d, TOP) for d in data],
                         cwd=TOP, env=env, check=True, capture_output=True, text=True)
    return out.stdout.rstrip("\n") + "\n"


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] and not check:
        sys.exit("usage: docs-tables.py [--check]")
    with open(PAGE, encoding="utf-8") as f:
        old = f.read()
    if not BLOCK.search(old):
        sys.exit(f"docs-tables: no generated block in {PAGE}")
    new = BLOCK.sub(lambda m: m.group(1) + generate(m.group(2)) + m.group(4), old)
    if check:
        if new != old:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), "docs/performance.md (committed)",
                "docs/performance.md (from the data)"))
            print("docs-tables: docs/performance.md differs from its data: "
                  "run scripts/docs-tables.py", file=sys.stderr)
            sys.exit(1)
        return
    if new != old:
        with open(PAGE, "w", encoding="utf-8") as f:
            f.write(new)
        print("docs-tables: docs/performance.md regenerated")


if __name__ == "__main__":
    main()
