#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the README and the pages beside it claim about the shipped profiles
# and the kernels is what the files say:
#   - the README's table of shipped profiles names every profile of
#     usbethd/profiles.d and usbethd/profiles.available, and says "yes"
#     under "enabled" exactly for those of profiles.d; usbethd.profiles(5)
#     and usbethd/README.md name the same ones, enabled and disabled;
#   - the kernels the README calls built and tested are the rows of
#     docs/kernels.md's matrix that `make check` runs (as many as
#     scripts/kernels.conf marks), with the same Debian release, and the
#     kernels in between are named as docs/kernels.md names them;
#   - the version from which usbnet does BQL accounting is the one
#     docs/kernels.md gives;
#   - usbeth(8) quotes the module-missing message usbeth prints.
here=$(cd "$(dirname "$0")" && pwd)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
[ -x /usr/bin/python3 ] || ktap_skip_all "no /usr/bin/python3 (Debian: apt-get install python3)"
exec /usr/bin/python3 - "$USBETH_TOP" "$here" <<'EOF'
import os
import re
import sys

top = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import ktap  # noqa: E402
results = []


def check(name, ok, diag=""):
    results.append((ok, name, diag))


def read(p):
    return open(os.path.join(top, p)).read()


def names(d):
    return sorted(f[:-5] for f in os.listdir(os.path.join(top, d))
                  if f.endswith(".json"))


enabled, disabled = names("usbethd/profiles.d"), names("usbethd/profiles.available")
readme = read("README.md")

# the README's table of shipped profiles: | `name` | ... | yes/no |
sec = readme.split("## Shipped profiles", 1)[1].split("\n## ", 1)[0]
rows = re.findall(r"^\| `([^`]+)` \|.*\| (yes|no) \|$", sec, re.M)
check("readme_table_names_every_shipped_profile",
      sorted(n for n, _ in rows) == sorted(enabled + disabled),
      f"table: {sorted(n for n, _ in rows)}; files: {sorted(enabled + disabled)}")
check("readme_table_enabled_column",
      sorted(n for n, e in rows if e == "yes") == enabled,
      f"table says enabled: {[n for n, e in rows if e == 'yes']}; profiles.d: {enabled}")
# its prose: "the only one enabled is `default`"
m = re.search(r"the\s+only\s+one\s+enabled\s+is\s+`([^`]+)`", readme)
check("readme_prose_names_the_enabled_profile",
      m is not None and [m.group(1)] == enabled,
      f"prose: {m.group(1) if m else None}; profiles.d: {enabled}")

# usbethd.profiles(5), SHIPPED PROFILES: enabled ones before "Shipped
# disabled", the disabled ones as .TP entries after it
man5 = read("usbethd/usbethd.profiles.5").replace("\\-", "-")
sp = man5.split(".SH SHIPPED PROFILES", 1)[1].split("\n.SH ", 1)[0]
en_part, dis_part = sp.split("Shipped disabled", 1)
man_en = sorted(re.findall(r"^\.B (\S+)$", en_part, re.M))
man_dis = sorted(re.findall(r"^\.TP\n\.B (\S+)$", dis_part, re.M))
check("profiles5_shipped_enabled", man_en == enabled, f"page: {man_en}; files: {enabled}")
check("profiles5_shipped_disabled", man_dis == disabled, f"page: {man_dis}; files: {disabled}")

# usbethd/README.md's rows for the two directories
ur = read("usbethd/README.md")
for d, want in (("profiles.d/", enabled), ("profiles.available/", disabled)):
    m = re.search(r"^\| `" + re.escape(d) + r"` \| (.*) \|$", ur, re.M)
    got = sorted(re.findall(r"`([a-z0-9.+@_-]+)`", m.group(1).split(":", 1)[1]
                            .split("(")[0])) if m else None
    check(f"usbethd_readme_{d.rstrip('/').replace('.', '_')}", got == want,
          f"usbethd/README.md: {got}; files: {want}")

# kernels: the matrix rows docs/kernels.md runs in make check
km = read("docs/kernels.md")
matrix = re.findall(r"^\| (\d+\.\d+) \| (\d+) [a-z-]+ \|[^|]*\| yes", km, re.M)
conf = [x for x in read("scripts/kernels.conf").splitlines()
        if x.strip() and not x.startswith("#") and x.split()[-1] == "yes"]
check("kernels_md_matrix_is_kernels_conf", len(matrix) == len(conf),
      f"kernels.md rows in make check: {matrix}; kernels.conf: {conf}")
m = re.search(r"^Kernels: (.*?)\s+are\s+built\s+and\s+tested", readme, re.M | re.S)
claimed = re.findall(r"(\d+\.\d+) \(Debian (\d+)", m.group(1)) if m else []
check("readme_kernels_built_and_tested", sorted(claimed) == sorted(matrix),
      f"README: {claimed}; docs/kernels.md: {matrix}")
between_km = re.search(r"matrix\s+\(([0-9., -]+)\)", km)
between_rd = re.search(r"between them\s+\(([0-9., -]+)\)", readme)
check("readme_kernels_between", between_km is not None and between_rd is not None
      and between_km.group(1) == between_rd.group(1)
      and re.search(r"neither built nor tested", readme) is not None,
      f"README: {between_rd and between_rd.group(1)}; "
      f"docs/kernels.md: {between_km and between_km.group(1)}")
bk = re.search(r"usbnet does BQL accounting from (\d+\.\d+)", km)
br = re.findall(r"BQL accounting before (\d+\.\d+)", readme)
check("readme_usbnet_bql_version", bk is not None and br and
      all(v == bk.group(1) for v in br),
      f"README: {br}; docs/kernels.md: {bk and bk.group(1)}")

# usbeth(8) quotes what usbeth prints without the module
src = read("ip-extensions/usbeth.c")
m = re.search(r'static int module_missing\(void\)\n\{\n\tfprintf\(stderr, "%s: ((?:[^"]|"\s*")+)\\n", prog\)',
              src)
msg = re.sub(r'"\s*"', "", m.group(1)) if m else None
man8 = read("ip-extensions/usbeth.8").replace("\\-", "-").replace("\n", " ")
check("usbeth8_quotes_module_missing", msg is not None and
      f"usbeth: {msg}" in man8, f"usbeth.c: {msg}")

sys.exit(ktap.finish(results))
EOF
