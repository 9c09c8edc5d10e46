#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The family's contract, checked with the kernel's own YNL tooling (Debian's
# linux-source-6.12, unpacked by scripts/setup.sh; scripts/ynl-gen.sh runs
# it):
#   - uapi/usbeth.yaml validates against the kernel's schema of the
#     protocol it declares (Documentation/netlink/PROTOCOL.yaml);
#   - uapi/linux/usbeth.h is exactly what ynl-gen-c.py --mode uapi --header
#     makes of it (`make uapi` regenerates it);
#   - kmod/netlink.c's policies, op table and multicast groups, kept by
#     hand (6.1 has no split ops), are what ynl-gen-c.py --mode kernel
#     --source makes of it, both read in one canonical form (ynl_tables.py
#     says what is normalised);
#   - what the kernel's tools do not check: every definition, enum entry,
#     attribute and operation has a doc;
#   - the header builds alone in userspace, with no kernel or libc headers;
#   - the checks see drift: a policy changed in a copy of netlink.c, a
#     spec declaring a protocol whose schema it fails.
#
# USBETH_YNL overrides where the kernel's tools are (scripts/ynl-gen.sh).
#
# The check functions run through ktap_check, which shellcheck cannot see.
# shellcheck disable=SC2317
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
top=$USBETH_TOP
cache=${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}
ynl=${USBETH_YNL:-$cache/ynl}
spec=$top/uapi/usbeth.yaml
hdr=$top/uapi/linux/usbeth.h
cc=${CC:-cc}

[ -f "$ynl/tools/net/ynl/ynl-gen-c.py" ] ||
	ktap_skip_all "the kernel's YNL tools are not in $ynl: run scripts/setup.sh"
python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	ktap_skip_all "python3-yaml or python3-jsonschema is missing: run scripts/setup.sh"

mkdir -p "$top/build"
work=$(mktemp -d "$top/build/uapi_ynl.XXXXXX") || bail "cannot make a temporary directory"
trap 'rm -rf "$work"' EXIT

# spec_valid SPEC: the kernel's spec loader (tools/net/ynl/lib/nlspec.py)
# takes it, validated against the schema of the protocol it declares.
spec_valid() {
	python3 - "$1" "$ynl" <<-'EOF'
	import sys, yaml
	spec, ynl = sys.argv[1], sys.argv[2]
	sys.path.insert(0, ynl + '/tools/net/ynl')
	from lib import SpecFamily
	proto = yaml.safe_load(open(spec)).get('protocol', 'genetlink')
	SpecFamily(spec, f'{ynl}/Documentation/netlink/{proto}.yaml')
	print(f'valid {proto}')
	EOF
}

header_is_generated() {
	"$top/scripts/ynl-gen.sh" --mode uapi --header -o "$work/usbeth.h" &&
		diff -u --label uapi/linux/usbeth.h --label generated "$hdr" "$work/usbeth.h"
}

# tables_match C_FILE: C_FILE's netlink tables are the generator's.
tables_match() {
	[ -f "$work/gen-kernel.c" ] ||
		"$top/scripts/ynl-gen.sh" --mode kernel --source -o "$work/gen-kernel.c" || return 1
	python3 "$here/ynl_tables.py" "$hdr" "$work/gen-kernel.c" > "$work/gen.tables" &&
		python3 "$here/ynl_tables.py" "$hdr" "$1" > "$work/kmod.tables" &&
		[ -s "$work/gen.tables" ] &&
		diff -u --label generated --label "${1#"$top"/}" "$work/gen.tables" "$work/kmod.tables"
}

every_doc_present() {
	python3 - "$spec" <<-'EOF'
	import sys, yaml
	y = yaml.safe_load(open(sys.argv[1]))
	missing = []
	def need(what, node):
	    if not str(node.get('doc', '')).strip():
	        missing.append(what)
	need('the family', y)
	for d in y.get('definitions', []):
	    need(f"definition {d['name']}", d)
	    for e in d.get('entries', []):
	        if isinstance(e, dict):
	            need(f"entry {d['name']}.{e['name']}", e)
	for s in y['attribute-sets']:
	    need(f"attribute-set {s['name']}", s)
	    for a in s['attributes']:
	        need(f"attribute {s['name']}.{a['name']}", a)
	for o in y['operations']['list']:
	    need(f"operation {o['name']}", o)
	for m in missing:
	    print(f'no doc: {m}')
	sys.exit(1 if missing else 0)
	EOF
}

header_alone() {
	printf '#include <linux/usbeth.h>\n#include <linux/usbeth.h>\n' > "$work/alone.c"
	"$cc" -std=c11 -Wall -Wextra -Werror -pedantic -nostdinc -I "$top/uapi" \
		-fsyntax-only "$work/alone.c"
}

# drift_is_caught: a copy of netlink.c whose qmult range is off by one must
# not match the generator; a copy of the spec claiming the genetlink
# protocol (whose schema has no uns-admin-perm) must be refused.
drift_is_caught() {
	sed 's/USBETH_QMULT_MIN,/USBETH_QMULT_MIN + 1,/' "$top/kmod/netlink.c" > "$work/drift.c"
	if cmp -s "$top/kmod/netlink.c" "$work/drift.c"; then
		echo "could not change the qmult policy in a copy of netlink.c"
		return 1
	fi
	if tables_match "$work/drift.c" > /dev/null 2>&1; then
		echo "a netlink.c with another qmult range still matched the generator"
		return 1
	fi
	sed 's/^protocol: genetlink-legacy$/protocol: genetlink/' "$spec" > "$work/drift.yaml"
	if cmp -s "$spec" "$work/drift.yaml"; then
		echo "could not change the protocol in a copy of the spec"
		return 1
	fi
	if spec_valid "$work/drift.yaml" > /dev/null 2>&1 ||
	   "$top/scripts/ynl-gen.sh" -s "$work/drift.yaml" --mode uapi --header \
		-o "$work/drift.h" > /dev/null 2>&1; then
		echo "a spec declaring genetlink, with uns-admin-perm, passed that schema"
		return 1
	fi
}

ktap_plan 6
ktap_info "the kernel's YNL tools: $(readlink -f "$ynl") ($(cat "$ynl/VERSION" 2>/dev/null))"
ktap_check spec_validates_against_its_protocol spec_valid "$spec"
ktap_check header_is_the_generators header_is_generated
ktap_check kmod_tables_are_the_generators tables_match "$top/kmod/netlink.c"
ktap_check every_doc_present every_doc_present
ktap_check header_compiles_without_kernel_headers header_alone
if [ "$__ktap_fail" -eq 0 ]; then
	ktap_check drift_is_caught drift_is_caught
else
	ktap_skip drift_is_caught "the unmodified spec, header and tables do not pass"
fi
ktap_finish
