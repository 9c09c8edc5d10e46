# SPDX-License-Identifier: GPL-2.0
"""KTAP output of the Python host checks (selftests/unit/*.py)."""
import re


def finish(results):
    """Prints results, a list of (ok, name, diagnostics), as KTAP (the
    diagnostics of a failed check before its line); returns the exit
    status: 0 when every check passed, else 1."""
    print("KTAP version 1")
    print(f"1..{len(results)}")
    failed = 0
    for i, (ok, name, diag) in enumerate(results, 1):
        if not ok:
            failed += 1
            for x in (diag or "").splitlines():
                print(f"# {x}")
        name = re.sub(r"[^A-Za-z0-9_.:-]+", "_", name).strip("_")
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
    print(f"# totals: pass:{len(results) - failed} fail:{failed} skip:0")
    return 1 if failed else 0
