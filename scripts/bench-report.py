#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the "# data:" lines of selftests/bench/data.sh into a report.

    bench-report.py [--title TEXT] DATA OUTDIR
    bench-report.py --across DATA...
    bench-report.py --summary DATA...
    bench-report.py --verdicts DATA...
    bench-report.py --emulated-verdicts DATA...
    bench-report.py --profile-verdict NAME DATA...
    bench-report.py --targets DATA...
    bench-report.py --boots [--link-dir PATH] [--write-plots DIR] DATA...
    bench-report.py --across-plot OUTDIR DATA...
    bench-report.py --kernels [--write-plots DIR] DATA...
    bench-report.py --paired DATA...
    bench-report.py --verify LINK CONFIG [drv_FIELD=VALUE...]

DATA holds the lines (as scripts/bench-data.sh collects them, one VM boot
per kernel). OUTDIR gets report.md and one PNG per kernel and link:
latency under load against throughput, one point per configuration (the
median over the rounds, bars from the lowest to the highest round), upload
and download side by side. Every ratio is against the "defaults" cell of
the same kernel and link, i.e. of the same boot.

With --across, each DATA file is a set of boots (one per kernel, as
scripts/bench-data.sh writes them) and the Markdown on stdout gives, per
link and configuration, each ratio's median over the boots that measured
it, with the lowest and highest boot: the figure to quote when single
boots on a shared machine disagree; the lines refused are counted, and
listed by --boots under their data file.

With --summary, the same over DATA... but per kernel: first the noise
band of each link and kernel (the "defaults-again" configuration, the
defaults measured a second time in every round, against "defaults"), then
each built-in profile as usbethd applied it. The tables docs/performance.md
shows are this output (scripts/docs-tables.py).

With --verdicts, per shipped profile (usbethd/profiles.d and
profiles.available, those that set a knob) and per link it was measured
on: helps, costs, helps and costs, or no result. A latency or throughput
counts where the profile has five boots or more on the link and every
one of them lies beyond the A/A band of its link and kernel (as far from
1 as any boot's defaults-again ratio came, either way), on the same side.
The verdicts at the top of docs/performance.md are this output;
--profile-verdict NAME gives one profile's, a line per link, for its JSON
comment. --emulated-verdicts judges the same way every other
configuration of the emulated links, per link and kernel.

With --boots, the Markdown on stdout gives, per DATA file and per kernel
and link in it, the table the report above writes for that boot, then the
file's refused lines and failed cells: docs/performance-boots.md.
It links each boot's plot as LINK-DIR/STEM-KERNEL-LINK.png (STEM: the data
file's name without .txt), which --write-plots DIR draws, and first each
link's across-boots plot, LINK-DIR/across-LINK.png, which --across-plot
OUTDIR draws: per configuration the median over the boots of the up and
down lat and tput ratios, bars from the lowest to the highest boot.

With --paired, per link, kernel and configuration, each boot's ratios
against the defaults of that boot beside that boot's A/A (defaults against
defaults-again), and how many boots lie beyond their own A/A: the pair by
pair reading of boots whose noise differs from boot to boot (the same
table ends --kernels' output).

With --kernels, DATA... are boots of two or more kernels measured side by
side (a stock kernel and one with upstream/'s series, booted in pairs at
the same time), and the Markdown on stdout compares the kernels' own
defaults, untouched by anyone ("defaults" and "defaults-again" cells):
per link and direction, each kernel's median over its boots of the
per-boot median throughput and ping under load, then each other kernel
against the stock one: how many times lower its ping under load is, its
throughput change, and the floor a ping under load cannot go below (the
kernel's idle RTT plus one full NTB's time on the wire at the stock
throughput); then the same pair by pair (each DATA file a pair of boots
run at the same time) and in how many pairs the ping under load is
lower. The "# floor:" lines of selftests/bench/floor.sh in the same
files give a last table: per kernel and link, the ping with the link idle,
with the CPUs loaded and nothing on the link, and under an upload.
--write-plots DIR draws DIR/kernels.png: per link and direction one point
per boot and kernel.

Every plot's legend says what its points and bars are and which point is
the defaults, and a cue which way is better; a direction with nothing
measured says "not measured".

A cell counts only if it held what its configuration declares: the knobs
of its line in selftests/bench/configs.txt, or a profile's settings (its
JSON in usbethd/profiles.d or profiles.available), against the driver's own state recorded in
the line (drv_*). A line that differs, or lacks a value it should show, is
refused by name on stderr and left out of every table (listed under
"Refused lines"). --verify checks one state the same way (data.sh calls it
before and after each transfer) and exits 1 naming what differs.
"""
import argparse
import glob
import json
import math
import os
import re
import statistics
import sys

FIELDS = ("idle_p50", "idle_p90", "idle_p99",
          "up_mbit", "up_p50", "up_p90", "up_p99",
          "down_mbit", "down_p50", "down_p90", "down_p99")
# on the emulated links: the share of the upload's window (%) the device's
# egress sat idle with nothing to send (usbemu's count; optional)
IDLE_FIELDS = ("up_idle",)
LINK_ORDER = ("ncm-full", "ncm-high", "ncm-super", "e1000e", "usbnet", "usbnet-rndis",
              "dongle", "dongle-udp", "modem", "modem-step", "modem-ncm", "dock", "dock-busy")
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the grid's configuration table (USBETH_BENCH_TABLE: another one)
CONFIGS = os.environ.get("USBETH_BENCH_TABLE") or os.path.join(TOP, "selftests", "bench", "configs.txt")
# the shipped profiles, enabled and not (USBETH_BENCH_PROFILES: another
# directory)
PROFILES = ([os.environ["USBETH_BENCH_PROFILES"]] if os.environ.get("USBETH_BENCH_PROFILES")
            else [os.path.join(TOP, "usbethd", d) for d in ("profiles.d", "profiles.available")])
# the profiles no longer shipped, kept for their committed data (a
# "retired" row of the configuration table)
RETIRED = os.path.join(TOP, "docs", "performance", "retired")
# each knob a configuration may set, and the drv_* field that records what
# the driver holds for it
KNOB_FIELD = {"ntb-tx-max": "drv_tx_max", "ntb-rx-max": "drv_rx_max",
              "tx-timer-usecs": "drv_tx_timer_usecs", "bql-limit-max": "drv_limit_max",
              "rx-usecs": "drv_rx_usecs", "txqueuelen": "drv_txqueuelen",
              "qmult": "drv_qmult", "shaper-up": "drv_shaper_up",
              "shaper-down": "drv_shaper_down", "adaptive-tx": "drv_adaptive_tx"}
# cdc_ncm holds an NTB size that is a multiple of the endpoint's packet
# size as one byte more; a profile's "device-max" is the device's own
DEVICE_MAX = {"drv_tx_max": "drv_dev_tx_max", "drv_rx_max": "drv_dev_rx_max"}
# the knobs a link's driver does not have, which a profile that sets them
# leaves alone there (cdc_ether and qmi_wwan have no NTB, no TX timer)
LINK_LACKS = {link: ("drv_tx_max", "drv_rx_max", "drv_tx_timer_usecs", "drv_qmult")
              for link in ("dongle", "dongle-udp", "modem", "modem-step")}
KEY_RE = re.compile(r"^[a-z0-9_]+$")
VAL_RE = re.compile(r"^[A-Za-z0-9_.:+@-]{1,64}$")


def load_configs(path=CONFIGS):
    """{(link, name): knobs} of the configuration table."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("|")
            if len(parts) != 3:
                sys.exit(f"bench-report: {path}:{n}: not LINKS|NAME|KNOBS")
            for link in parts[0].split():
                out[(link, parts[1])] = parts[2]
    return out


def profile_settings(name, pdirs, depth=0):
    """A shipped profile's settings, those it extends first."""
    paths = [os.path.join(d, name + ".json") for d in pdirs]
    path = next((p for p in paths if os.path.exists(p)), paths[0])
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    out = {}
    if doc.get("extends") and depth < 8:
        out.update(profile_settings(doc["extends"], pdirs, depth + 1))
    out.update({k: v for k, v in doc.get("settings", {}).items() if k != "comment"})
    return out


def declared(link, config, configs, pdir):
    """{drv_field: value} the configuration declares; None if unknown."""
    want = {}
    if (link, config) not in configs:
        return None
    if config.startswith("profile:"):
        if configs[(link, config)].strip() == "retired":
            pdir = [RETIRED]
        try:
            settings = profile_settings(config[len("profile:"):], pdir)
        except (OSError, ValueError):
            return None
        for k, v in settings.items():
            if k in KNOB_FIELD and KNOB_FIELD[k] not in LINK_LACKS.get(link, ()):
                want[KNOB_FIELD[k]] = str(v).lower() if isinstance(v, bool) else str(v)
        return want
    words = configs[(link, config)].lstrip("@").split()
    for k, v in zip(words[0::2], words[1::2]):
        if k in KNOB_FIELD:
            want[KNOB_FIELD[k]] = v
    return want


def differences(rec, want):
    """What the line's driver state shows against what was declared."""
    out = []
    # adaptive TX coalescing is off (or absent) wherever it is not declared
    if "drv_adaptive_tx" not in want and rec.get("drv_adaptive_tx") == "on":
        out.append("drv_adaptive_tx=on, declared off")
    for f, v in sorted(want.items()):
        held = rec.get(f)
        if v == "device-max":
            v = rec.get(DEVICE_MAX.get(f, ""))
            if v is None:
                out.append(f"{DEVICE_MAX.get(f, f)} not recorded")
                continue
        if held is None:
            out.append(f"{f} not recorded (declared {v})")
        elif held != v and not (f in DEVICE_MAX and v.isdigit() and held == str(int(v) + 1)):
            out.append(f"{f}={held}, declared {v}")
    return out


REFUSED = []


def tagged(path, tag):
    """Each line of path holding "# TAG: ", as (the line, stripped; its
    key=value pairs that pass KEY_RE and VAL_RE)."""
    mark = f"# {tag}: "
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            at = line.find(mark)
            if at < 0:
                continue
            rec = {}
            for tok in line[at + len(mark):].split():
                k, sep, v = tok.partition("=")
                if sep and KEY_RE.match(k) and VAL_RE.match(v):
                    rec[k] = v
            yield line, rec


# parse()'s results with the shipped table and profiles, per path: a
# report reads a file once, and refuses each line once
PARSED = {}


def parse(path, configs=None, pdir=PROFILES):
    """{(kernel, link): {config: [round dict, ...]}}, errors per cell.
    Lines whose driver state differs from their configuration are refused
    (REFUSED, and a line on stderr). Callers do not change what it returns."""
    if configs is None and pdir is PROFILES:
        if path not in PARSED:
            PARSED[path] = parse(path, load_configs(), pdir)
        return PARSED[path]
    if configs is None:
        configs = load_configs()
    cells, errors, order = {}, [], {}
    for _, rec in tagged(path, "data"):
        if not all(k in rec for k in ("kernel", "link", "config", "round")):
            continue
        key = (rec["kernel"], rec["link"])
        if "error" in rec:
            errors.append(rec)
            continue
        vals = {}
        try:
            for k in FIELDS + IDLE_FIELDS:
                vals[k] = None if rec.get(k, "-") == "-" else float(rec[k])
            vals["up_n"] = int(rec.get("up_n", "0"))
            vals["down_n"] = int(rec.get("down_n", "0"))
        except ValueError:
            continue
        if any(v is not None and not (math.isfinite(v) and 0 <= v < 1e9)
               for v in vals.values()):
            continue
        want = declared(rec["link"], rec["config"], configs, pdir)
        why = ([f"no configuration {rec['config']} of link {rec['link']} in "
                + os.path.relpath(CONFIGS, TOP)]
               if want is None else differences(rec, want))
        if why:
            REFUSED.append((path, rec, why))
            print(f"bench-report: refused {path}: kernel={rec['kernel']} "
                  f"link={rec['link']} config={rec['config']} round={rec['round']}: "
                  + "; ".join(why), file=sys.stderr)
            continue
        per = cells.setdefault(key, {})
        if rec["config"] not in per:
            order.setdefault(key, []).append(rec["config"])
        per.setdefault(rec["config"], []).append(vals)
    return cells, errors, order


def agg(rounds, field):
    """(median, lowest, highest) of a field over the rounds, or None."""
    v = [r[field] for r in rounds if r[field] is not None]
    if not v:
        return None
    return statistics.median(v), min(v), max(v)


def fmt(a, digits=1):
    if a is None:
        return "-"
    med, lo, hi = a
    return f"{med:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def ratio_of(a, b):
    """Median of a over median of b (agg tuples), or None."""
    if a is None or b is None or b[0] == 0:
        return None
    return a[0] / b[0]


def ratio(a, b, digits=2):
    r = ratio_of(a, b)
    return "-" if r is None else f"{r:.{digits}f}"


def kernel_sort(k):
    return [int(x) if x.isdigit() else x for x in re.split(r"[.-]", k)]


def legend_and_cue(ax, point, bars, better, defaults="defaults", noise=False):
    """The legend every plot carries: what a point and a bar are, which
    point is the defaults, and which way is better."""
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], marker="o", color="C0", linestyle="", label=point),
               Line2D([], [], marker="o", color="C3", linestyle="", label=defaults)]
    if noise:
        handles.append(Line2D([], [], marker="o", color="C2", linestyle="",
                              label="defaults-again: the defaults measured again (noise)"))
    handles.append(Line2D([], [], marker="|", color="0.3", linestyle="-", markersize=10,
                          label=bars))
    ax.legend(handles=handles, loc="best", fontsize=7, framealpha=0.85)
    ax.text(0.99, 0.01, "better is: " + better, transform=ax.transAxes,
            ha="right", va="bottom", fontsize=8, style="italic",
            bbox=dict(boxstyle="round", fc="lightyellow", ec="0.6"))


def point_color(cfg):
    return {"defaults": "C3", "defaults-again": "C2"}.get(cfg, "C0")


def not_measured(ax):
    ax.text(0.5, 0.5, "not measured", transform=ax.transAxes, ha="center",
            va="center", fontsize=14, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def plot(key, per, order, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, d, what in ((axes[0], "up", "upload (host -> peer)"),
                        (axes[1], "down", "download (peer -> host)")):
        ax.set_title(f"{key[1]} on {key[0]}: {what}")
        drawn = 0
        for cfg in order:
            t = agg(per[cfg], d + "_mbit")
            p = agg(per[cfg], d + "_p50")
            if t is None or p is None:
                continue
            ax.errorbar(t[0], p[0], xerr=[[t[0] - t[1]], [t[2] - t[0]]],
                        yerr=[[p[0] - p[1]], [p[2] - p[0]]], fmt="o",
                        capsize=3, color=point_color(cfg),
                        zorder=3 if cfg == "defaults" else 2)
            ax.annotate(cfg, (t[0], p[0]), textcoords="offset points",
                        xytext=(4, 4), fontsize=7)
            drawn += 1
        if not drawn:
            not_measured(ax)
            continue
        ax.set_xlabel("throughput, Mbit/s (median of rounds)")
        ax.set_ylabel("ping under load p50, ms")
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
        legend_and_cue(ax, "configuration: median over the rounds",
                       "bars: lowest to highest round", "lower and to the right",
                       noise="defaults-again" in order)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def boot_ratios(per):
    """{config: {"up_lat", "up_tput", "down_lat", "down_tput"}} of one boot."""
    base = per.get("defaults")
    if not base:
        return {}
    out = {}
    for cfg, rounds in per.items():
        if cfg == "defaults":
            continue
        r = {}
        for d in ("up", "down"):
            # the same ratios as the per-boot report's lat and tput columns
            for name, v in ((d + "_lat", ratio_of(agg(base, d + "_p50"), agg(rounds, d + "_p50"))),
                            (d + "_tput", ratio_of(agg(rounds, d + "_mbit"), agg(base, d + "_mbit")))):
                if v is not None:
                    r[name] = v
        out[cfg] = r
    return out


def collect_across(paths):
    """{link: {config: [(kernel, ratios)]}}, configurations in the order
    first seen; each boot's ratios against its own defaults."""
    seen = {}
    for path in paths:
        cells, _, order = parse(path)
        for key in cells:
            ratios = boot_ratios(cells[key])
            per = seen.setdefault(key[1], {})
            for cfg in order[key]:
                if cfg in ratios:
                    per.setdefault(cfg, []).append((key[0], ratios[cfg]))
    return seen


def link_sorted(links):
    return sorted(links, key=lambda k: LINK_ORDER.index(k) if k in LINK_ORDER else 99)


def across(paths):
    """Markdown: per link and configuration, each ratio over the boots."""
    # link -> config -> [(kernel, ratios)], in the order first seen
    seen = collect_across(paths)
    if not seen:
        sys.exit("bench-report: no boot with a 'defaults' cell in " + " ".join(paths))
    out = ["Each cell: the median over the boots of that boot's ratio against",
           "its own defaults, (lowest-highest) boot. lat above 1: lower ping",
           "under load; tput: throughput against the defaults.", ""]
    for link in link_sorted(seen):
        out += [f"### {link}, across boots", "",
                "| configuration | boots | up lat | up tput | down lat | down tput |",
                "| --- | --- | --- | --- | --- | --- |"]
        for cfg, boots in seen[link].items():
            row = [cfg, f"{len(boots)} ({kernels_of(boots)})"]
            for f in ("up_lat", "up_tput", "down_lat", "down_tput"):
                v = [r[f] for _, r in boots if f in r]
                row.append(f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
                           if v else "-")
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    if REFUSED:
        # the list itself is --boots', under each data file
        out.append(f"Left out of every table: {len(REFUSED)} data lines whose driver did not "
                   "hold what their configuration declares, each listed under its data file "
                   "with that boot's table (`--boots`).")
    print("\n".join(out))


def across_plot(outdir, paths):
    """--across-plot: OUTDIR/across-LINK.png per link, each configuration's
    median lat and tput ratio over the boots, bars lowest to highest boot."""
    seen = {k: v for k, v in collect_across(paths).items() if v}
    if not seen:
        sys.exit("bench-report: no boot with a 'defaults' cell in " + " ".join(paths))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(outdir, exist_ok=True)
    for link in link_sorted(seen):
        fig, axes = plt.subplots(1, 2, figsize=(13, 6))
        for ax, d, what in ((axes[0], "up", "upload (host -> peer)"),
                            (axes[1], "down", "download (peer -> host)")):
            ax.set_title(f"{link}, every boot against its own defaults: {what}")
            drawn = 0
            for cfg, boots in seen[link].items():
                lat = [r[d + "_lat"] for _, r in boots if d + "_lat" in r]
                tput = [r[d + "_tput"] for _, r in boots if d + "_tput" in r]
                if not lat or not tput:
                    continue
                x, y = statistics.median(tput), statistics.median(lat)
                ax.errorbar(x, y, xerr=[[x - min(tput)], [max(tput) - x]],
                            yerr=[[y - min(lat)], [max(lat) - y]], fmt="o", capsize=3,
                            color=point_color(cfg), alpha=0.8)
                ax.annotate(f"{cfg} ({len(boots)})", (x, y), textcoords="offset points",
                            xytext=(4, 4), fontsize=7)
                drawn += 1
            if not drawn:
                not_measured(ax)
                continue
            ax.plot([1], [1], "o", color="C3", markersize=8)
            ax.annotate("defaults", (1, 1), textcoords="offset points",
                        xytext=(4, -10), fontsize=7, color="C3")
            ax.axhline(1, color="C3", lw=0.8, ls="--")
            ax.axvline(1, color="C3", lw=0.8, ls="--")
            ax.set_xlabel("tput: throughput / the defaults' (median over boots)")
            ax.set_ylabel("lat: defaults' ping under load p50 / the configuration's")
            ax.grid(True, alpha=0.3)
            legend_and_cue(ax, "configuration (boots): median over the boots",
                           "bars: lowest to highest boot", "higher and to the right",
                           defaults="defaults (1, 1 by definition)",
                           noise="defaults-again" in seen[link])
        fig.tight_layout()
        path = os.path.join(outdir, f"across-{link}.png")
        fig.savefig(path, dpi=90)
        plt.close(fig)
        print(f"bench-report: {path}")


def per_boot(paths):
    """[(kernel, link, config, ratios)] over every boot of every file."""
    out = []
    for path in paths:
        cells, _, order = parse(path)
        for key in cells:
            ratios = boot_ratios(cells[key])
            for cfg in order[key]:
                if cfg in ratios:
                    out.append((key[0], key[1], cfg, ratios[cfg]))
    return out


def spread(v):
    return f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" if v else "-"


def summary(paths):
    """Markdown: noise band and profiles, per link and kernel, over boots."""
    boots = per_boot(paths)
    links = sorted({b[1] for b in boots},
                   key=lambda k: LINK_ORDER.index(k) if k in LINK_ORDER else 99)
    kernels = sorted({b[0] for b in boots}, key=kernel_sort)
    cols = ("up_lat", "up_tput", "down_lat", "down_tput")

    def rows(want):
        out = []
        for cfg in sorted({b[2] for b in boots if want(b[2])}):
            for link in links:
                for k in kernels:
                    got = [r for kk, ll, cc, r in boots if (kk, ll, cc) == (k, link, cfg)]
                    if not got:
                        continue
                    row = [cfg, link, k, str(len(got))]
                    row += [spread([r[c] for r in got if c in r]) for c in cols]
                    out.append("| " + " | ".join(row) + " |")
        return out
    head = ["| configuration | link | kernel | boots | up lat | up tput | down lat | down tput |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    out = ["Ratios against the defaults of the same boot: lat = ping under load",
           "p50 of the defaults / of the configuration (above 1: lower latency);",
           "tput = throughput of the configuration / of the defaults. Each cell:",
           "the median over the boots (lowest-highest boot); \"-\": not measured.", "",
           "### Noise: the defaults against themselves", "",
           "A ratio inside this band for its link and kernel is no result.", ""]
    noise = rows(lambda c: c == "defaults-again")
    out += head + noise if noise else ["Not measured yet in the committed data."]
    out += ["", "### The built-in profiles, as usbethd applied them", ""]
    prof = rows(lambda c: c.startswith("profile:"))
    out += head + prof if prof else ["Not measured."]
    out.append("")
    print("\n".join(out))


VERDICT_BOOTS = 5	# the fewest boots of a profile on a link that make a verdict
METRICS = (("up_lat", "upload latency"), ("up_tput", "upload throughput"),
           ("down_lat", "download latency"), ("down_tput", "download throughput"))


def shipped_profiles(pdirs=PROFILES):
    """The shipped profiles that set a knob, in name order."""
    names = set()
    for d in pdirs:
        for path in glob.glob(os.path.join(d, "*.json")):
            name = os.path.splitext(os.path.basename(path))[0]
            try:
                if profile_settings(name, pdirs):
                    names.add(name)
            except (OSError, ValueError):
                continue
    return sorted(names)


def aa_bands(boots):
    """{(link, kernel, metric): band}: as far from 1 as any boot's
    defaults-again ratio of that link and kernel came, either way."""
    band = {}
    for k, link, cfg, r in boots:
        if cfg == "defaults-again":
            for m, _ in METRICS:
                if r.get(m):
                    b = band.get((link, k, m), 1.0)
                    band[(link, k, m)] = max(b, r[m], 1 / r[m])
    return band


def judge(mine, link, band):
    """(verdict, why) of a configuration's boots on a link, [(kernel,
    ratios)]: a metric counts where VERDICT_BOOTS boots or more have it and
    each lies beyond the A/A band of its link and kernel, on the same side."""
    better, worse = [], []
    for m, what in METRICS:
        v = [(k, r[m]) for k, r in mine if m in r]
        if len(v) < VERDICT_BOOTS:
            continue
        lo, hi = min(x for _, x in v), max(x for _, x in v)
        b = [band.get((link, k, m)) for k, _ in v]
        if all(bb and x > bb for bb, (_, x) in zip(b, v)):
            better.append(f"{what} {'lower' if m.endswith('lat') else 'higher'} "
                          f"({lo:.2f}-{hi:.2f})")
        elif all(bb and x < 1 / bb for bb, (_, x) in zip(b, v)):
            worse.append(f"{what} {'higher' if m.endswith('lat') else 'lower'} "
                         f"({lo:.2f}-{hi:.2f})")
    if len(mine) < VERDICT_BOOTS:
        return "no result", f"{len(mine)} boot{'s' if len(mine) > 1 else ''}, fewer than {VERDICT_BOOTS}"
    if better and worse:
        return "helps and costs", "; ".join(better + worse)
    if better:
        return "helps", "; ".join(better)
    if worse:
        return "costs", "; ".join(worse)
    if not any(len([1 for _, r in mine if m in r]) >= VERDICT_BOOTS for m, _ in METRICS):
        return "no result", f"no metric with figures in {VERDICT_BOOTS} boots (transfers refused)"
    return "no result", "nothing beyond the A/A band in every boot"


def kernels_of(mine):
    """"6.1 x2, 7.3" of [(kernel, ...)]: the kernels, each with its count."""
    kern = {}
    for k, _ in mine:
        kern[k] = kern.get(k, 0) + 1
    return ", ".join(f"{k} x{n}" if n > 1 else k
                     for k, n in sorted(kern.items(), key=lambda x: kernel_sort(x[0])))


def profile_rows(boots, band):
    """[(profile, link, kernels, boots, verdict, why)] of every shipped
    profile, a row per link it was measured on (link "-": none), then of
    every retired one ("NAME (retired)")."""
    rows = []
    retired = sorted(os.path.splitext(os.path.basename(p))[0]
                     for p in glob.glob(os.path.join(RETIRED, "*.json")))
    for name, label in ([(n, n) for n in shipped_profiles()]
                        + [(n, n + " (retired)") for n in retired]):
        cfg = "profile:" + name
        got = [(k, link, r) for k, link, c, r in boots if c == cfg]
        if not got:
            rows.append((label, "-", "-", 0, "not measured", "-"))
            continue
        for link in link_sorted({link for _, link, _ in got}):
            mine = [(k, r) for k, ll, r in got if ll == link]
            rows.append((label, link, kernels_of(mine), len(mine)) + judge(mine, link, band))
    return rows


def verdicts(paths):
    """--verdicts DATA...: per shipped profile and link it was measured on,
    whether it helps, costs, or gives no result (judge())."""
    boots = per_boot(paths)
    band = aa_bands(boots)
    out = ["Each shipped profile, and each retired one, as usbethd applied it,",
           "against the defaults of the same boot. A latency or throughput counts",
           "where the profile has %d boots or more on the link and each lies beyond" % VERDICT_BOOTS,
           "the A/A band of its link and kernel, on the same side; the band reaches",
           "as far from 1, either way, as `defaults-again` came in any boot there",
           "(the noise rows of performance-boots.md's Summary). Figures: the",
           "profile's lowest-highest boot, as lat and tput ratios."]
    rows = ["| profile | link | kernels (boots) | verdict | why |",
            "| --- | --- | --- | --- | --- |"]
    emu = []
    for name, link, where, n, verdict, why in profile_rows(boots, band):
        if link in EMU_LINKS:
            emu.append(name)
        rows.append(f"| {name} | {link} | {where}{f' ({n})' if n else ''} | {verdict} | {why} |")
    out += [""] + rows + [""]
    emu = sorted(set(emu))
    out.append("On the emulated links with a bottleneck of their own ("
               + ", ".join(f"`{x}`" for x in EMU_LINKS) + "): "
               + (("measured: " + ", ".join(emu)) if emu else "no profile measured") + ".")
    print("\n".join(out))


def profile_verdict(name, paths):
    """--profile-verdict NAME DATA...: the profile's verdicts as the lines
    of its JSON comment that scripts/docs-tables.py keeps in step."""
    boots = per_boot(paths)
    rows = [r for r in profile_rows(boots, aa_bands(boots)) if r[0] == name]
    if not rows:
        sys.exit(f"bench-report: no shipped profile {name}")
    out = []
    for _, link, where, n, verdict, why in rows:
        if link == "-":
            out.append("not measured")
        else:
            out.append(f"{link} ({where}; {n} boot{'s' if n != 1 else ''}): {verdict}"
                       + ("" if why == "-" else f": {why}"))
    print("\n".join(out))


def emulated_verdicts(paths):
    """--emulated-verdicts DATA...: on the emulated links, each configuration
    that is not a profile (--verdicts has those) against the defaults of
    the same boot, per link and kernel, judged as the profiles are."""
    boots = [b for b in per_boot(paths) if b[1] in EMU_LINKS]
    band = aa_bands(boots)
    out = ["Each configuration against the defaults of the same boot, per link and",
           "kernel: the median of the boots' ratios (lowest-highest boot); lat =",
           "ping under load p50 of the defaults / of the configuration, tput = its",
           "throughput / the defaults'. The verdict as for the profiles above: a",
           f"metric counts where {VERDICT_BOOTS} boots or more lie beyond the link's and kernel's",
           "A/A band, on the same side.", "",
           "| link | kernel | configuration | boots | up lat | up tput | down lat | down tput | verdict |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    keys = sorted({(link, k, c) for k, link, c, _ in boots
                   if c != "defaults" and not c.startswith("profile:")},
                  key=lambda x: (EMU_LINKS.index(x[0]), kernel_sort(x[1]),
                                 x[2] != "defaults-again", x[2]))
    for link, k, cfg in keys:
        mine = [(kk, r) for kk, ll, cc, r in boots if (kk, ll, cc) == (k, link, cfg)]
        cols = [spread([r[m] for _, r in mine if m in r]) for m, _ in METRICS]
        verdict = ("(the band)" if cfg == "defaults-again"
                   else "%s: %s" % judge(mine, link, band))
        out.append(f"| {link} | {k} | {cfg} | {len(mine)} | " + " | ".join(cols)
                   + f" | {verdict} |")
    print("\n".join(out))


def boot_table(per, order):
    """The Markdown table of one boot (kernel and link), a blank line after."""
    base = per.get("defaults")
    out = ["| configuration | idle p50 | up Mbit/s | up p50 | up p90 | up p99 "
           "| up lat | up tput | down Mbit/s | down p50 | down p99 "
           "| down lat | down tput |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
           "| --- | --- | --- |"]
    for cfg in order:
        r = per[cfg]
        g = {f: agg(r, f) for f in FIELDS}
        b = {f: agg(base, f) for f in FIELDS} if base else {}
        out.append(
            f"| {cfg} | {fmt(g['idle_p50'], 2)} | {fmt(g['up_mbit'])} "
            f"| {fmt(g['up_p50'])} | {fmt(g['up_p90'])} | {fmt(g['up_p99'])} "
            f"| {ratio(b.get('up_p50'), g['up_p50'])} "
            f"| {ratio(g['up_mbit'], b.get('up_mbit'))} "
            f"| {fmt(g['down_mbit'])} | {fmt(g['down_p50'])} "
            f"| {fmt(g['down_p99'])} "
            f"| {ratio(b.get('down_p50'), g['down_p50'])} "
            f"| {ratio(g['down_mbit'], b.get('down_mbit'))} |")
    out.append("")
    return out


def boot_keys(cells):
    return sorted(cells, key=lambda k: (kernel_sort(k[0]),
                  LINK_ORDER.index(k[1]) if k[1] in LINK_ORDER else 99))


def boots(paths, link_dir, write_dir=None):
    """--boots: Markdown, per DATA file and per (kernel, link), the table the
    report writes for one boot, the file's refused lines and failed cells,
    and links to the plots: LINK_DIR/across-LINK.png (--across-plot) first,
    then LINK_DIR/STEM-KERNEL-LINK.png per boot (written into WRITE_DIR when
    given)."""
    files = []
    for path in paths:
        before = len(REFUSED)
        cells, errors, order = parse(path)
        files.append((path, cells, errors, order, REFUSED[before:]))
    seen = {k: v for k, v in collect_across(paths).items() if v}
    out = ["Every ratio against the `defaults` of the same boot; each cell the",
           "median over the rounds, (lowest-highest) round; RTTs in ms, throughput",
           "in Mbit/s; \"-\": not measured.", ""]
    if seen:
        out += ["### Across boots, per link", ""]
        for link in link_sorted(seen):
            out += [f"![{link}, every boot against its own defaults]"
                    f"({link_dir}/across-{link}.png)", ""]
    for path, cells, errors, order, refused in files:
        name = os.path.basename(path)
        stem = os.path.splitext(name)[0]
        out += [f"### {name}", ""]
        if not cells and not refused and not errors:
            out += ["No `# data:` lines: not a benchmark boot.", ""]
            continue
        for key in boot_keys(cells):
            per = cells[key]
            nr = max(len(v) for v in per.values())
            png = f"{stem}-{key[0]}-{key[1]}.png"
            out += [f"#### {key[1]} on {key[0]} ({nr} rounds)", "",
                    f"![{key[1]} on {key[0]}, {name}]({link_dir}/{png})", ""]
            if write_dir:
                os.makedirs(write_dir, exist_ok=True)
                plot(key, per, order[key], os.path.join(write_dir, png))
            out += boot_table(per, order[key])
        if refused:
            out += ["Refused lines (the driver did not hold what the configuration "
                    "declares; left out of every table):", ""]
            for _, rec, why in refused:
                out.append(f"- {rec['kernel']} {rec['link']} {rec['config']} "
                           f"round {rec['round']}: {'; '.join(why)}")
            out.append("")
        if errors:
            out += ["Cells that failed:", ""]
            for e in errors:
                out.append(f"- {e['kernel']} {e['link']} {e['config']} round "
                           f"{e['round']}: {e['error']}")
            out.append("")
    print("\n".join(out).rstrip("\n"))


def refused_md():
    if not REFUSED:
        return []
    out = ["## Refused lines", "",
           "Cells whose driver did not hold what their configuration declares,",
           "left out of every figure above:", ""]
    for path, rec, why in REFUSED:
        out.append(f"- {os.path.basename(path)}: {rec['kernel']} {rec['link']} "
                   f"{rec['config']} round {rec['round']}: {'; '.join(why)}")
    return out + [""]


def verify(link, config, state):
    """--verify: exit 0 if STATE (drv_*=v words) holds what CONFIG declares."""
    rec = {}
    for tok in state:
        k, sep, v = tok.partition("=")
        if sep:
            rec[k] = v
    want = declared(link, config, load_configs(), PROFILES)
    if want is None:
        print(f"{link} {config}: no such configuration of that link", file=sys.stderr)
        sys.exit(1)
    why = differences(rec, want)
    if why:
        print(f"{link} {config}: " + "; ".join(why), file=sys.stderr)
        sys.exit(1)


KERNEL_CONFIGS = ("defaults", "defaults-again")
NTB_BYTES = 16384	# the NTB the stock defaults fill (tx_max, dwNtbInMaxSize)


def kernel_boots(paths):
    """{(link, dir): {kernel: [(mbit, p50, idle_p50) of each boot]}}: per
    boot, the median over its defaults cells."""
    out = {}
    for path in paths:
        cells, _, _ = parse(path)
        for (kernel, link), per in cells.items():
            rounds = [r for c in KERNEL_CONFIGS for r in per.get(c, [])]
            for d in ("up", "down"):
                mb = [r[f"{d}_mbit"] for r in rounds if r[f"{d}_mbit"] is not None]
                lat = [r[f"{d}_p50"] for r in rounds if r[f"{d}_p50"] is not None]
                idle = [r["idle_p50"] for r in rounds if r["idle_p50"] is not None]
                if mb and lat and idle:
                    out.setdefault((link, d), {}).setdefault(kernel, []).append(
                        (statistics.median(mb), statistics.median(lat),
                         statistics.median(idle)))
    return out


def floor_lines(paths):
    """{(kernel, link): [record]} from the "# floor:" lines."""
    out = {}
    for path in paths:
        for line, rec in tagged(path, "floor"):
            try:
                vals = {k: float(rec[k]) for k in
                        ("idle_p50", "cpu_p50", "up_mbit", "up_p50", "ntb_ms")}
            except (KeyError, ValueError):
                continue
            if rec.get("drv_tx_timer_usecs") != "400" or rec.get("drv_tx_max") != "16384":
                print(f"bench-report: refused {path}: a floor line without the "
                      f"defaults' state: {line}", file=sys.stderr)
                continue
            out.setdefault((rec.get("kernel", "?"), rec.get("link", "?")), []).append(vals)
    return out


EMU_LINKS = ("dongle", "dongle-udp", "modem", "modem-step", "modem-ncm", "dock", "dock-busy")
# no fixed rate, so no floor: the rates step (the dock has none)
EMU_STEPPED = ("modem-step",)


AA_BAND = (0.90, 1.10)	# the A/A band a boot's noise must stay within


def emu_boots(paths):
    """Per boot (data file) of the emulated links: {(kernel, link):
    {config: [rounds]}}, the transfers refused below the emulated rate per
    (kernel, link), and each (kernel, link)'s uplink rate."""
    boots, refused, rates = [], {}, {}
    for path in paths:
        ran = {}	# link: the kernels whose boot in this file ran it
        for _, rec in tagged(path, "data"):
            if rec.get("link") not in EMU_LINKS or "kernel" not in rec:
                continue
            key = (rec["kernel"], rec["link"])
            ran.setdefault(rec["link"], set()).add(rec["kernel"])
            if rec.get("error") == "below-rate":
                refused[key] = refused.get(key, 0) + 2
            elif rec.get("refused") in ("up", "down"):
                refused[key] = refused.get(key, 0) + 1
            if rec.get("rate_up", "").isdigit():
                rates[key] = int(rec["rate_up"])
        cells, _, _ = parse(path)
        boots.append((os.path.basename(path),
                      {k: v for k, v in cells.items() if k[1] in EMU_LINKS}, ran))
    return boots, refused, rates


AA_FIELDS = (("up_p50", False), ("up_mbit", True), ("down_p50", False), ("down_mbit", True))


def aa_of(per):
    """A boot's A/A ratios, (upload ping, upload Mbit/s, download ping,
    download Mbit/s), each None where a side has no figure: ping p50 as
    defaults over defaults-again, Mbit/s as defaults-again over defaults."""
    d, a = per.get("defaults"), per.get("defaults-again")
    if not d or not a:
        return None
    return tuple(ratio_of(agg(a, f), agg(d, f)) if up else ratio_of(agg(d, f), agg(a, f))
                 for f, up in AA_FIELDS)


def band(vals):
    """"lowest-highest (k of n within the band)" of a list of ratios."""
    v = [x for x in vals if x is not None]
    if not v:
        return "-"
    k = sum(AA_BAND[0] <= x <= AA_BAND[1] for x in v)
    return f"{min(v):.2f}-{max(v):.2f} ({k} of {len(v)})"


def emulated(paths):
    """--emulated DATA...: the emulated links (data.sh), per link, kernel
    and configuration over every boot: idle RTT, ping under upload beside
    its floor (the idle RTT plus one 1514-byte frame at the uplink's
    emulated rate, rate_up of the data line), throughput, the download's
    ping; then per link and kernel the A/A band of its boots (defaults
    against defaults-again), the kernels compared pair by pair where a data
    file holds boots of two, and the transfers refused as below the
    emulated rate (a refused cell: both)."""
    boots, refused, _ = emu_boots(paths)
    rows, aa, pairs = emu_rows(boots), {}, {}
    for _, cells, ran in boots:
        for key, per in cells.items():
            r = aa_of(per)
            if r:
                aa.setdefault(key, []).append(r)
        # boots of several kernels in one file, a set run together
        # (bench-kernels.sh): each kernel against the newest, pair by pair
        # (none where the newest kept no defaults cell)
        for link in {lk for _, lk in cells}:
            kernels = sorted(ran[link], key=kernel_sort)
            have = [k for k in kernels if cells.get((k, link), {}).get("defaults")]
            if not have or have[-1] != kernels[-1]:
                continue
            for k in have[:-1]:
                a, b = cells[(k, link)]["defaults"], cells[(have[-1], link)]["defaults"]
                pairs.setdefault((link, k, have[-1]), []).append(
                    (ratio_of(agg(a, "up_p50"), agg(b, "up_p50")),
                     ratio_of(agg(a, "up_mbit"), agg(b, "up_mbit"))))
    order = sorted(rows, key=lambda k: (EMU_LINKS.index(k[1]), kernel_sort(k[0])))
    out = ["The figures of every link, kernel and configuration (idle RTT, the "
           "floor, ping under load p50, p90 and p99, throughput), and each boot's "
           "own A/A ratios: [performance-boots.md](performance-boots.md#emulated-links-aa-per-boot)."]
    out += ["", f"The A/A band: per boot, defaults against defaults-again (ping p50: "
            f"defaults over defaults-again; Mbit/s: defaults-again over defaults), "
            f"lowest-highest over the boots and how many of them stay within "
            f"{AA_BAND[0]:.2f}-{AA_BAND[1]:.2f}.", "",
            "| link | kernel | boots | upload ping | upload Mbit/s | download ping | download Mbit/s |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for key in order:
        if key in aa:
            cols = [band([r[i] for r in aa[key]]) for i in range(4)]
            out.append(f"| {key[1]} | {key[0]} | {len(aa[key])} | " + " | ".join(cols) + " |")
    if pairs:
        out += ["", "Kernels pair by pair: in each set of boots run together, a kernel's "
                "defaults over the newest kernel's (ping under upload p50, upload Mbit/s).", "",
                "| link | kernels | pairs | upload ping, per pair | upload Mbit/s, per pair |",
                "| --- | --- | --- | --- | --- |"]
        for (link, ka, kb), v in sorted(pairs.items(), key=lambda p: (EMU_LINKS.index(p[0][0]),
                                                                        kernel_sort(p[0][1]))):
            per = lambda i: " ".join("-" if x[i] is None else f"{x[i]:.2f}" for x in v)
            out.append(f"| {link} | {ka} / {kb} | {len(v)} | {per(0)} | {per(1)} |")
    if refused:
        out += ["", "Transfers refused as below the emulated rate: " + ", ".join(
            f"{k[1]} on {k[0]}: {n}" for k, n in sorted(refused.items())) + "."]
    print("\n".join(out))


def emu_rows(boots):
    """{(kernel, link): {config: [rounds of every boot]}}"""
    rows = {}
    for _, cells, _ in boots:
        for key, per in cells.items():
            for cfg, rounds in per.items():
                rows.setdefault(key, {}).setdefault(cfg, []).extend(rounds)
    return rows


def emu_table(rows, rates, leave_out=None):
    """The emulated links' figures per link, kernel and configuration."""
    out = ["Each figure: the median over every round of every boot, "
           "(lowest-highest) round; RTTs in ms, throughput in Mbit/s. "
           "Floor: the idle p50 plus one 1514-byte frame at the uplink's rate.", "",
           "| link | kernel | configuration | rounds | idle p50 | floor | upload: ping p50 | p90 | p99 "
           "| Mbit/s | download: ping p50 | Mbit/s |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for key in sorted(rows, key=lambda k: (EMU_LINKS.index(k[1]), kernel_sort(k[0]))):
        for cfg in sorted(rows[key], key=lambda c: (c != "defaults", c != "defaults-again", c)):
            if cfg == leave_out:
                continue
            r = rows[key][cfg]
            idle = agg(r, "idle_p50")
            floor = (f"{idle[0] + 1514 * 8 * 1000 / rates[key]:.1f}"
                     if idle and rates.get(key) and key[1] not in EMU_STEPPED else "-")
            out.append(f"| {key[1]} | {key[0]} | {cfg} | {len(r)} | {fmt(idle)} | {floor} | "
                       f"{fmt(agg(r, 'up_p50'))} | {fmt(agg(r, 'up_p90'))} | {fmt(agg(r, 'up_p99'))} | "
                       f"{fmt(agg(r, 'up_mbit'), 2)} | {fmt(agg(r, 'down_p50'))} | "
                       f"{fmt(agg(r, 'down_mbit'), 2)} |")
    return out


# the bench's targets on the emulated links: (link, what, the test)
TARGET_FLOOR_MS, TARGET_FLOOR_TPUT = 2.0, 0.95
TARGET_LAT, TARGET_LAT_TPUT = 10.0, 0.90


def targets(paths):
    """--targets DATA...: each configuration of the emulated links against
    the bench's targets, boot by boot (each against the defaults of its
    own boot): on the dongle, the ping under upload within TARGET_FLOOR_MS
    of the floor (the boot's idle p50 plus one 1514-byte frame at the
    uplink's rate) at TARGET_FLOOR_TPUT of the defaults' upload throughput
    or more; on the modems, the ping under upload TARGET_LAT times lower
    than the defaults' at TARGET_LAT_TPUT of their throughput or more; on
    the docks, the throughput each way."""
    boots, _, rates = emu_boots(paths)
    per = {}	# (link, kernel, config): [per-boot dict]
    for _, cells, _ in boots:
        for (k, link), cfgs in cells.items():
            base = cfgs.get("defaults")
            if not base:
                continue
            for cfg, rounds in cfgs.items():
                b = {"idle": agg(rounds, "idle_p50"), "up": agg(rounds, "up_p50"),
                     "up_egress_idle": agg(rounds, "up_idle")}
                for d in ("up", "down"):
                    b[d + "_lat"] = ratio_of(agg(base, d + "_p50"), agg(rounds, d + "_p50"))
                    b[d + "_tput"] = ratio_of(agg(rounds, d + "_mbit"), agg(base, d + "_mbit"))
                per.setdefault((link, k, cfg), []).append(b)
    keys = sorted(per, key=lambda x: (EMU_LINKS.index(x[0]), kernel_sort(x[1]),
                                      x[2] != "defaults", x[2] != "defaults-again", x[2]))

    def span(v, digits=2):
        return spread(v) if digits == 2 else (
            f"{statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})" if v else "-")
    out = ["Boot by boot, each configuration against the defaults of its own boot;",
           "a goal is met where every boot with figures meets it (k of n: how",
           "many do). Distances and ratios: median (lowest-highest boot).", "",
           f"**The dongle**: ping under upload within {TARGET_FLOOR_MS:g} ms of the floor "
           "(the boot's idle p50 plus one 1514-byte frame at the uplink's rate) "
           f"at {TARGET_FLOOR_TPUT:.2f} of the defaults' upload throughput or more. "
           "Beside it, the share of the upload the dongle's egress sat idle with "
           "nothing to send (%): what the sender left unused.", "",
           "| link | kernel | configuration | boots | ms above the floor | upload tput | met "
           "| egress idle % |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for link, k, cfg in keys:
        if not link.startswith("dongle") or not rates.get((k, link)):
            continue
        frame = 1514 * 8 * 1000 / rates[(k, link)]
        got = [b for b in per[(link, k, cfg)] if b["idle"] and b["up"] and b["up_tput"]]
        dist = [b["up"][0] - b["idle"][0] - frame for b in got]
        ok = sum(d <= TARGET_FLOOR_MS and b["up_tput"] >= TARGET_FLOOR_TPUT
                 for d, b in zip(dist, got))
        met = ("-" if not got else "yes" if ok == len(got) else "no") + f" ({ok} of {len(got)})"
        idle = [b["up_egress_idle"][0] for b in got if b["up_egress_idle"]]
        out.append(f"| {link} | {k} | {cfg} | {len(per[(link, k, cfg)])} | {span(dist, 1)} | "
                   f"{span([b['up_tput'] for b in got])} | {met} | {span(idle, 1)} |")
    out += ["", f"**The modems**: ping under upload {TARGET_LAT:g} times lower than the "
            f"defaults' or more, at {TARGET_LAT_TPUT:.2f} of their upload throughput or more; "
            "the download beside it.", "",
            "| link | kernel | configuration | boots | up lat | up tput | met | down lat | down tput |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    def rows(prefix):
        """(the row's head, its boots) of each configuration of those links"""
        for link, k, cfg in keys:
            if link.startswith(prefix) and cfg not in KERNEL_CONFIGS:
                bs = per[(link, k, cfg)]
                yield f"| {link} | {k} | {cfg} | {len(bs)} |", bs

    def cols(bs, fields):
        return " | ".join(span([b[f] for b in bs if b[f]]) for f in fields)
    for head, bs in rows("modem"):
        got = [b for b in bs if b["up_lat"] and b["up_tput"]]
        ok = sum(b["up_lat"] >= TARGET_LAT and b["up_tput"] >= TARGET_LAT_TPUT for b in got)
        met = ("-" if not got else "yes" if ok == len(got) else "no") + f" ({ok} of {len(got)})"
        out.append(f"{head} {cols(bs, ('up_lat', 'up_tput'))} | {met} | "
                   f"{cols(bs, ('down_lat', 'down_tput'))} |")
    out += ["", "**The docks**: throughput against the defaults, each way.", "",
            "| link | kernel | configuration | boots | up tput | down tput | up lat | down lat |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for head, bs in rows("dock"):
        out.append(f"{head} {cols(bs, ('up_tput', 'down_tput', 'up_lat', 'down_lat'))} |")
    print("\n".join(out))


def emulated_boots(paths):
    """--emulated-boots DATA...: the emulated links' figures with every
    configuration, then each boot's A/A ratios, a row per boot, link and
    kernel."""
    boots, _, rates = emu_boots(paths)
    out = emu_table(emu_rows(boots), rates) + [""]
    out += ["Per boot: defaults against defaults-again (ping p50: defaults over "
           "defaults-again; Mbit/s: defaults-again over defaults).", "",
           "| boot | link | kernel | upload ping | upload Mbit/s | download ping | download Mbit/s |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, cells, _ in boots:
        for key in sorted(cells, key=lambda k: (EMU_LINKS.index(k[1]), kernel_sort(k[0]))):
            r = aa_of(cells[key])
            if r:
                out.append(f"| {name} | {key[1]} | {key[0]} | " + " | ".join(
                    "-" if x is None else f"{x:.2f}" for x in r) + " |")
    print("\n".join(out))


def base_kernel(kernels):
    """The kernel the others are compared with, as a one-item list (or
    none): the control kernel (the patched kernel's source, configuration
    and compiler without the patches) where there is one, else the first
    kernel that carries no patches."""
    return ([k for k in kernels if k.endswith("-control")]
            or [k for k in kernels if "fixed" not in k])[:1]


def config_rows(paths):
    """Every configuration but the defaults against the defaults of its own
    boot, boot by boot, beside that boot's A/A (defaults against
    defaults-again): the idle RTT, and the ping under load and the
    throughput each way."""
    per = {}
    for path in paths:
        cells, _, _ = parse(path)
        for (kernel, link), cfgs in cells.items():
            d, a = cfgs.get("defaults"), cfgs.get("defaults-again")
            if not d:
                continue
            for cfg, rounds in cfgs.items():
                if cfg in KERNEL_CONFIGS:
                    continue
                for what, lat, mbit in (("idle", "idle_p50", None),
                                        ("upload", "up_p50", "up_mbit"),
                                        ("download", "down_p50", "down_mbit")):
                    got = (ratio_of(agg(d, lat), agg(rounds, lat)),
                           ratio_of(agg(rounds, mbit), agg(d, mbit)) if mbit else None,
                           ratio_of(agg(d, lat), agg(a, lat)) if a else None,
                           ratio_of(agg(a, mbit), agg(d, mbit)) if a and mbit else None)
                    if got[0] is not None:
                        per.setdefault((link, kernel, cfg, what), []).append(got)
    if not per:
        return []
    out = ["", "Each configuration against the defaults of its own boot, boot by boot:",
           "how many times lower the RTT is (idle, or the ping under an upload or a",
           "download), the throughput against the defaults', and the same boot's",
           "A/A (defaults against defaults-again, the same two figures): a boot's",
           "noise.", "",
           "The last two columns count the boots whose RTT was lower than the",
           "defaults' by more than their A/A, and whose throughput lay beyond",
           "their A/A, below or above.", "",
           "| link | kernel | configuration | RTT | boots | times lower, per boot | throughput, per boot "
           "| A/A RTT, per boot | A/A throughput, per boot | RTT lower beyond the A/A "
           "| throughput beyond the A/A |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    show = lambda v: " ".join("-" if x is None else f"{x:.2f}" for x in v)
    for (link, kernel, cfg, what), v in sorted(per.items(), key=lambda x: (
            LINK_ORDER.index(x[0][0]) if x[0][0] in LINK_ORDER else 99,
            kernel_sort(x[0][1]), x[0][2], ("idle", "upload", "download").index(x[0][3]))):
        beyond = sum(x[2] is not None and x[0] > max(x[2], 1 / x[2]) for x in v)
        tput = [x for x in v if x[1] is not None and x[3] is not None]
        below = sum(x[1] < min(x[3], 1 / x[3]) for x in tput)
        above = sum(x[1] > max(x[3], 1 / x[3]) for x in tput)
        out.append(f"| {link} | {kernel} | {cfg} | {what} | {len(v)} | {show(x[0] for x in v)} | "
                   f"{show(x[1] for x in v) if what != 'idle' else '-'} | "
                   f"{show(x[2] for x in v)} | "
                   f"{show(x[3] for x in v) if what != 'idle' else '-'} | {beyond} of {len(v)} | "
                   + (f"{below} below, {above} above, of {len(tput)}" if what != "idle" else "-")
                   + " |")
    return out


def kernels_md(paths):
    seen = kernel_boots(paths)
    if not seen:
        sys.exit("bench-report: no defaults cell in " + " ".join(paths))
    out = ["Each kernel's own defaults: per boot the median over its `defaults` and",
           "`defaults-again` cells, then the median over the boots (lowest-highest",
           "boot). Ping under load: p50 in ms; throughput: iperf3 TCP, Mbit/s.", "",
           "| link | direction | kernel | boots | Mbit/s | ping under load | idle RTT |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    cmp_rows = []
    for link in link_sorted({k[0] for k in seen}):
        for d in ("up", "down"):
            per = seen.get((link, d))
            if not per:
                continue
            ks = sorted(per, key=kernel_sort)
            for k in ks:
                v = per[k]
                cols = [agg([{"x": b[i]} for b in v], "x") for i in range(3)]
                out.append(f"| {link} | {d}load | {k} | {len(v)} | {fmt(cols[0])} | "
                           f"{fmt(cols[1], 2)} | {fmt(cols[2], 2)} |")
            base = base_kernel(ks)
            if not base:
                continue
            b = per[base[0]]
            bm = statistics.median(x[0] for x in b)
            bl = statistics.median(x[1] for x in b)
            bi = statistics.median(x[2] for x in b)
            for k in ks:
                if k == base[0]:
                    continue
                v = per[k]
                km = statistics.median(x[0] for x in v)
                kl = statistics.median(x[1] for x in v)
                ki = statistics.median(x[2] for x in v)
                floor = ki + NTB_BYTES * 8 / (bm * 1000.0)
                cmp_rows.append(
                    f"| {link} | {d}load | {k} vs {base[0]} | {bl / kl:.2f} | "
                    f"{(km / bm - 1) * 100:+.0f}% | {kl:.2f} | {floor:.2f} | "
                    f"{bi / ki:.2f} |")
    out += ["", "Against the kernel without the patches, on the medians above: how many",
            "times lower the ping under load is, the throughput change, the ping under",
            "load and the floor no ping under load goes below (the kernel's idle RTT",
            "plus one 16 KiB NTB on the wire at the unpatched kernel's throughput), in",
            "ms; and how many times lower the idle RTT is.", "",
            "| link | direction | kernels | ping under load, times lower | throughput | ping under load | floor | idle RTT, times lower |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    out += cmp_rows
    # pair by pair: each data file a pair of boots run at the same time
    pairs = {}
    for path in paths:
        for (link, d), per in kernel_boots([path]).items():
            base = base_kernel(sorted(per, key=kernel_sort))
            if not base:
                continue
            b = per[base[0]][0]
            for k in per:
                if k != base[0]:
                    v = per[k][0]
                    pairs.setdefault((link, d, k, base[0]), []).append((b[1] / v[1], v[0] / b[0]))
    if pairs:
        out += ["", "Pair by pair (one boot of each kernel, in one set of boots): how many",
                "times lower the ping under load is, the throughput against the unpatched",
                "kernel's, and in how many pairs the ping under load is lower.", "",
                "| link | direction | kernels | ping under load, times lower, per pair | throughput, per pair | pairs with a lower ping |",
                "| --- | --- | --- | --- | --- | --- |"]
        for (link, d, k, b), v in sorted(pairs.items(), key=lambda x: (
                LINK_ORDER.index(x[0][0]) if x[0][0] in LINK_ORDER else 99, x[0][1] != "up")):
            out.append(f"| {link} | {d}load | {k} vs {b} | "
                       + " ".join(f"{x[0]:.2f}" for x in v) + " | "
                       + " ".join(f"{x[1]:.2f}" for x in v) + " | "
                       + f"{sum(x[0] > 1 for x in v)} of {len(v)} |")
    out += config_rows(paths)
    floors = floor_lines(paths)
    if floors:
        out += ["", "What bounds it on the test bed (`selftests/bench/floor.sh`, the",
                "drivers' defaults, median over its boots): the ping host -> gadget",
                "with everything idle, with both vCPUs busy with an iperf3 over the",
                "host netns' loopback and nothing on the link, and under an upload",
                "over the link; one 16 KiB NTB's time on the wire at that upload's rate.", "",
                "| link | kernel | boots | idle | CPUs loaded, link idle | upload | upload Mbit/s | one NTB on the wire |",
                "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for k, link in sorted(floors, key=lambda x: (LINK_ORDER.index(x[1])
                                                     if x[1] in LINK_ORDER else 99,
                                                     kernel_sort(x[0]))):
            v = floors[(k, link)]
            med = {f: statistics.median(r[f] for r in v) for f in v[0]}
            out.append(f"| {link} | {k} | {len(v)} | {med['idle_p50']:.2f} | "
                       f"{med['cpu_p50']:.2f} | {med['up_p50']:.2f} | {med['up_mbit']:.1f} | "
                       f"{med['ntb_ms']:.2f} |")
    print("\n".join(out))


def kernels_plot(outdir, paths):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    seen = kernel_boots(paths)
    links = link_sorted({k[0] for k in seen})
    fig, axes = plt.subplots(2, len(links), figsize=(4.2 * len(links), 7.5), squeeze=False)
    marks = "os^Dv"
    for c, link in enumerate(links):
        for r, d in enumerate(("up", "down")):
            ax = axes[r][c]
            per = seen.get((link, d), {})
            if not per:
                not_measured(ax)
            for i, k in enumerate(sorted(per, key=kernel_sort)):
                ax.scatter([b[0] for b in per[k]], [b[1] for b in per[k]],
                           marker=marks[i % len(marks)], label=f"{k} ({len(per[k])} boots)")
            ax.set_title(f"{link}, {d}load", fontsize=10)
            ax.set_xlabel("throughput, Mbit/s (right: better)")
            ax.set_ylabel("ping under load p50, ms (down: better)")
            ax.set_ylim(bottom=0)
            ax.set_xlim(left=0)
            if per:
                ax.legend(fontsize=8)
    fig.suptitle("Driver defaults: one point per boot and kernel", fontsize=11)
    fig.tight_layout()
    os.makedirs(outdir, exist_ok=True)
    fig.savefig(os.path.join(outdir, "kernels.png"), dpi=90)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--title", default="usbeth data-plane benchmark")
    ap.add_argument("--header", help="a Markdown file put under the title")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--across", action="store_true",
                    help="DATA... are boots: each ratio's median over them, on stdout")
    ap.add_argument("--summary", action="store_true",
                    help="DATA... are boots: noise band and profiles per link and kernel")
    ap.add_argument("--boots", action="store_true",
                    help="DATA...: per file and boot the report's table, on stdout")
    ap.add_argument("--link-dir", default="performance",
                    help="with --boots: the Markdown's path to the plots (performance)")
    ap.add_argument("--write-plots", metavar="DIR",
                    help="with --boots: write each boot's plot into DIR")
    ap.add_argument("--across-plot", action="store_true",
                    help="OUTDIR DATA...: OUTDIR/across-LINK.png, the --across ratios")
    ap.add_argument("--kernels", action="store_true",
                    help="DATA...: boots of two kernels, their defaults compared, on stdout")
    ap.add_argument("--verdicts", action="store_true",
                    help="DATA...: per shipped profile and link, helps, costs or no result")
    ap.add_argument("--emulated-verdicts", action="store_true",
                    help="DATA...: the emulated links' configurations judged, on stdout")
    ap.add_argument("--targets", action="store_true",
                    help="DATA...: the emulated links' configurations against the bench's targets")
    ap.add_argument("--profile-verdict", metavar="NAME",
                    help="DATA...: the profile's verdicts, a line per link, on stdout")
    ap.add_argument("--emulated", action="store_true",
                    help="DATA...: the emulated links over every boot, on stdout")
    ap.add_argument("--emulated-boots", action="store_true",
                    help="DATA...: the emulated links' A/A ratios per boot, on stdout")
    ap.add_argument("--paired", action="store_true",
                    help="DATA...: each configuration against its own boot's defaults and A/A, boot by boot")
    ap.add_argument("--verify", action="store_true",
                    help="LINK CONFIG drv_FIELD=VALUE...: the state holds what CONFIG declares")
    ap.add_argument("paths", nargs="+", metavar="DATA [OUTDIR]")
    a = ap.parse_args()
    if a.verify:
        if len(a.paths) < 2:
            ap.error("--verify LINK CONFIG [drv_FIELD=VALUE...]")
        verify(a.paths[0], a.paths[1], a.paths[2:])
        return
    if a.across:
        across(a.paths)
        return
    if a.kernels:
        if a.write_plots:
            kernels_plot(a.write_plots, a.paths)
        else:
            kernels_md(a.paths)
        return
    if a.summary:
        summary(a.paths)
        return
    if a.paired:
        rows = config_rows(a.paths)
        if not rows:
            sys.exit("bench-report: no boot with a defaults cell in " + " ".join(a.paths))
        print("\n".join(rows[1:]))
        return
    if a.verdicts:
        verdicts(a.paths)
        return
    if a.emulated_verdicts:
        emulated_verdicts(a.paths)
        return
    if a.profile_verdict:
        profile_verdict(a.profile_verdict, a.paths)
        return
    if a.targets:
        targets(a.paths)
        return
    if a.emulated:
        emulated(a.paths)
        return
    if a.emulated_boots:
        emulated_boots(a.paths)
        return
    if a.boots:
        boots(a.paths, a.link_dir.rstrip("/"), a.write_plots)
        return
    if a.across_plot:
        if len(a.paths) < 2:
            ap.error("--across-plot OUTDIR DATA...")
        across_plot(a.paths[0], a.paths[1:])
        return
    if len(a.paths) != 2:
        ap.error("DATA OUTDIR, or --across DATA...")
    a.data, a.outdir = a.paths
    cells, errors, order = parse(a.data)
    if not cells:
        sys.exit(f"bench-report: no '# data:' lines in {a.data}")
    os.makedirs(a.outdir, exist_ok=True)
    out = [f"# {a.title}", ""]
    if a.header:
        with open(a.header, encoding="utf-8") as f:
            out += [f.read().rstrip(), ""]
    out += ["Each cell: the median over the rounds, (lowest-highest) round.",
            "RTTs in ms (ping, 50 ms apart), throughput in Mbit/s (iperf3 TCP).",
            "Ratios against `defaults` of the same boot: lat = ping under load",
            "p50 of defaults / of the configuration (above 1: lower latency),",
            "tput = throughput of the configuration / of defaults.", ""]
    for key in boot_keys(cells):
        per = cells[key]
        nr = max(len(v) for v in per.values())
        out += [f"## {key[1]} on {key[0]} ({nr} rounds)", ""]
        if not a.no_plots:
            png = f"{key[0]}-{key[1]}.png"
            plot(key, per, order[key], os.path.join(a.outdir, png))
            out += [f"![{key[1]} on {key[0]}]({png})", ""]
        out += boot_table(per, order[key])
    out += refused_md()
    if errors:
        out += ["## Cells that failed", ""]
        for e in errors:
            out.append(f"- {e['kernel']} {e['link']} {e['config']} round "
                       f"{e['round']}: {e['error']}")
        out.append("")
    with open(os.path.join(a.outdir, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    print(f"bench-report: {os.path.join(a.outdir, 'report.md')}: "
          f"{sum(len(v) for v in cells.values())} configurations, "
          f"{len(errors)} failed cells")


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        sys.exit(f"bench-report: {e}")
