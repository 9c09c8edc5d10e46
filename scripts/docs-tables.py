#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate the tables and plots of docs/performance.md and of its per-boot
appendix, docs/performance-boots.md, from the committed data.

    docs-tables.py [--check | --no-plots]

Each block of the page between
    <!-- generated: bench-report.py MODE -->
and
    <!-- end generated -->
is replaced by `scripts/bench-report.py MODE docs/performance/*.txt` (MODE:
--summary, --across or --boots; the boots in docs/performance/archive/ and
late/ are read by nothing), for MODE --verdicts over those and
docs/performance/emulated/*.txt, or, for MODE --kernels, by its output over
docs/performance/kernels/*.txt: pairs of boots of a stock kernel and one
with upstream/'s series (scripts/bench-kernels.sh), whose plot is
docs/performance/kernels/kernels.png; for MODE --paired, over the files
of docs/performance/ named *-set-*.txt and of docs/performance/emulated/
named *-knobs-*.txt (sets of boots, each with an A/A cell, read pair by
pair); for MODE --emulated and
--emulated-boots, --emulated-verdicts and --targets, over
docs/performance/emulated/*.txt,
boots of the emulated links. In each shipped profile's JSON
(usbethd/profiles.available), the comment lines between "Verdicts on the
test bed ..." and "End of the verdicts." are its verdicts
(`bench-report.py --profile-verdict NAME`), kept in step the same way. Then the plots the page links are drawn into
docs/performance/ (each boot's, `bench-report.py --boots --write-plots`,
and each link's across boots, `bench-report.py --across-plot`), and the
PNGs there that the page no longer links are removed (--no-plots: the
blocks only).

With --check nothing is written: the exit status is 1, with a diff, when
the page differs from what the data gives, or when a PNG it links is
missing or one in docs/performance/ is linked by nothing (make check runs
it so).
"""
import difflib
import glob
import json
import os
import re
import subprocess
import sys
import textwrap

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.environ.get("USBETH_DOCS_PAGE") or os.path.join(TOP, "docs", "performance.md")
# the per-boot appendix, a generated page of its own
BOOTS_PAGE = os.environ.get("USBETH_DOCS_BOOTS") or os.path.join(TOP, "docs", "performance-boots.md")
DOCS = os.path.join(TOP, "docs")
PERF = os.path.join(DOCS, "performance")
BLOCK = re.compile(r"(<!-- generated: bench-report\.py (--verdicts|--summary|--across|--boots|--kernels|--paired|--emulated|--emulated-boots|--emulated-verdicts|--targets) -->\n)"
                   r"(.*?)(<!-- end generated -->)", re.S)
# an image the page links: ![...](performance/NAME.png)
IMAGE = re.compile(r"!\[[^\]]*\]\((performance/[^)\s]+\.png)\)")


KERNELS = os.path.join(PERF, "kernels")
# boots of the emulated links (data.sh's dongle, modem, ...), for --emulated
EMULATED = os.path.join(PERF, "emulated")


def data(sub=PERF):
    return [os.path.relpath(d, TOP) for d in sorted(glob.glob(os.path.join(sub, "*.txt")))]


def bench_report(args):
    env = dict(os.environ)
    for v in ("USBETH_BENCH_TABLE", "USBETH_BENCH_PROFILES"):
        env.pop(v, None)
    return subprocess.run(["/usr/bin/python3", os.path.join(TOP, "scripts", "bench-report.py")]
                          + args, cwd=TOP, env=env, check=True, capture_output=True,
                          text=True).stdout


def generate(mode):
    if mode == "--verdicts":
        # every boot that may hold a profile: the grid's and the emulated links'
        return bench_report([mode] + data() + data(EMULATED)).rstrip("\n") + "\n"
    if mode == "--paired":
        # the sets of boots measured for a pair by pair reading: the NCM
        # links' and the emulated links' knobs, each alone
        return bench_report([mode] + [d for d in data() if "-set-" in os.path.basename(d)]
                            + [d for d in data(EMULATED) if "-knobs-" in os.path.basename(d)]
                            ).rstrip("\n") + "\n"
    sub = {"--kernels": KERNELS, "--emulated": EMULATED, "--emulated-boots": EMULATED,
           "--emulated-verdicts": EMULATED, "--targets": EMULATED}.get(mode, PERF)
    return bench_report([mode] + data(sub)).rstrip("\n") + "\n"


PROFILES = (os.environ.get("USBETH_DOCS_PROFILES")
            or os.path.join(TOP, "usbethd", "profiles.available"))
# the lines of a profile's JSON comment that hold its verdicts, from the
# first marker to the second; each verdict line a string of its own
VERDICT_FIRST = "Verdicts on the test bed (emulated links in a VM; scripts/docs-tables.py"
VERDICT_LAST = "End of the verdicts."
VERDICT_LINES = re.compile(r'(\n(\t+)"' + re.escape(VERDICT_FIRST) + r'",\n)(.*?)(\t+"'
                           + re.escape(VERDICT_LAST) + r'")', re.S)


def profile_json(text, name):
    """A profile's JSON text with its verdict lines as the data gives them."""
    m = VERDICT_LINES.search(text)
    if not m:
        return text
    lines = ["writes them from docs/performance/, where each figure is explained):"]
    for v in bench_report(["--profile-verdict", name] + data() + data(EMULATED)).splitlines():
        wrapped = textwrap.wrap(v, 68)
        lines += ["- " + wrapped[0]] + ["  " + w for w in wrapped[1:]]
    inner = "".join(m.group(2) + json.dumps(x, ensure_ascii=False) + ",\n" for x in lines)
    return text[:m.start(3)] + inner + text[m.end(3):]


def linked(page):
    """The PNGs the page links, as paths under docs/."""
    return sorted({os.path.join(DOCS, m) for m in IMAGE.findall(page)})


def unlinked(page):
    pngs = glob.glob(os.path.join(PERF, "*.png")) + glob.glob(os.path.join(KERNELS, "*.png"))
    return sorted(set(pngs) - set(linked(page)))


def main():
    args = sys.argv[1:]
    if args not in ([], ["--check"], ["--no-plots"]):
        sys.exit("usage: docs-tables.py [--check | --no-plots]")
    check = args == ["--check"]
    olds, news = {}, {}
    for page in (PAGE, BOOTS_PAGE):
        with open(page, encoding="utf-8") as f:
            olds[page] = f.read()
        if not BLOCK.search(olds[page]):
            sys.exit(f"docs-tables: no generated block in {page}")
        news[page] = BLOCK.sub(lambda m: m.group(1) + generate(m.group(2)) + m.group(4), olds[page])
    old, new = "".join(olds.values()), "".join(news.values())
    # and each shipped profile's verdict lines in its JSON comment
    for path in sorted(glob.glob(os.path.join(PROFILES, "*.json"))):
        with open(path, encoding="utf-8") as f:
            olds[path] = f.read()
        news[path] = profile_json(olds[path], os.path.splitext(os.path.basename(path))[0])
    if check:
        rc = 0
        for page in olds:
            if news[page] != olds[page]:
                name = {PAGE: "docs/performance.md",
                        BOOTS_PAGE: "docs/performance-boots.md"}.get(page, os.path.relpath(page, TOP))
                sys.stdout.writelines(difflib.unified_diff(
                    olds[page].splitlines(True), news[page].splitlines(True),
                    f"{name} (committed)", f"{name} (from the data)"))
                print(f"docs-tables: {name} differs from its data: "
                      "run scripts/docs-tables.py", file=sys.stderr)
                rc = 1
        for png in linked(new):
            if not os.path.exists(png):
                print(f"docs-tables: {os.path.relpath(png, TOP)} is linked but missing: "
                      "run scripts/docs-tables.py", file=sys.stderr)
                rc = 1
        # the pages as they are: a plot they do not link is not shipped with them
        for png in unlinked(old):
            print(f"docs-tables: {os.path.relpath(png, TOP)} is linked by nothing: "
                  "run scripts/docs-tables.py", file=sys.stderr)
            rc = 1
        sys.exit(rc)
    for page in olds:
        if news[page] != olds[page]:
            with open(page, "w", encoding="utf-8") as f:
                f.write(news[page])
            print(f"docs-tables: {os.path.relpath(page, TOP)} regenerated")
    if args == ["--no-plots"]:
        return
    bench_report(["--boots", "--write-plots", os.path.relpath(PERF, TOP)] + data())
    if "(performance/kernels/kernels.png)" in new:
        bench_report(["--kernels", "--write-plots", os.path.relpath(KERNELS, TOP)] + data(KERNELS))
    if "(performance/across-" in new:
        bench_report(["--across-plot", os.path.relpath(PERF, TOP)] + data())
    for png in unlinked(new):
        os.remove(png)
        print(f"docs-tables: removed {os.path.relpath(png, TOP)} (linked by nothing)")
    print("docs-tables: plots drawn")


if __name__ == "__main__":
    main()
