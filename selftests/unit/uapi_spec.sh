#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# uapi/usbeth.yaml is the source of truth of the family; the hand-written
# uapi/linux/usbeth.h must match it name for name and value for value,
# define nothing else, and build in userspace with no kernel or libc headers.
# uapi_spec.py turns the spec into C static asserts and compares the header's
# enum blocks with it; this script compiles and runs the result.
#
# UAPI_SPEC and UAPI_INCLUDE (the directory holding linux/usbeth.h) override
# the tree's files, to try the test on modified copies.
#
# The check functions run through ktap_check, which shellcheck cannot see.
# shellcheck disable=SC2317
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
spec=${UAPI_SPEC:-$USBETH_TOP/uapi/usbeth.yaml}
inc=${UAPI_INCLUDE:-$USBETH_TOP/uapi}
hdr=$inc/linux/usbeth.h
cc=${CC:-cc}
cflags=(-std=c11 -Wall -Wextra -Werror -nostdinc)

py=
for p in /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import yaml' 2>/dev/null; then
		py=$p
		break
	fi
done
[ -n "$py" ] || ktap_skip_all "python3 with the yaml module (python3-yaml) is missing: run scripts/setup.sh"
command -v "$cc" >/dev/null || ktap_skip_all "no C compiler ($cc)"

mkdir -p "$USBETH_TOP/build" 2>/dev/null
work=$(mktemp -d "$USBETH_TOP/build/uapi_spec.XXXXXX" 2>/dev/null) ||
	work=$(mktemp -d) || bail "cannot make a temporary directory"
trap 'rm -rf "$work"' EXIT

spec_py() { "$py" "$here/uapi_spec.py" "$@"; }

# header_matches HEADER_DIR: the generated checks build against
# HEADER_DIR/linux/usbeth.h with -nostdinc, and the string checks pass.
header_matches() {
	spec_py gen "$spec" "$work/check.c" &&
		"$cc" "${cflags[@]}" -I "$1" -o "$work/check" "$work/check.c" &&
		"$work/check"
}

# header_alone: the header on its own, twice (include guard), pedantic.
header_alone() {
	printf '#include <linux/usbeth.h>\n#include <linux/usbeth.h>\n' > "$work/alone.c"
	"$cc" "${cflags[@]}" -pedantic -I "$inc" -fsyntax-only "$work/alone.c"
}

# drift_is_caught: a copy of the header with one attribute dropped (every
# later value shifts) must fail header_matches, and one with an extra define
# must fail the nothing-extra check.
drift_is_caught() {
	local d=$work/drift
	mkdir -p "$d/linux" || return 1
	sed '/^[[:space:]]*USBETH_A_DRIVER,/d' "$hdr" > "$d/linux/usbeth.h"
	if cmp -s "$hdr" "$d/linux/usbeth.h"; then
		echo "could not drop USBETH_A_DRIVER from a copy of the header"
		return 1
	fi
	if header_matches "$d" >/dev/null 2>&1; then
		echo "a header without USBETH_A_DRIVER still matched the spec"
		return 1
	fi
	sed 's/^#endif.*_UAPI_LINUX_USBETH_H.*/#define USBETH_BOGUS 1\n&/' "$hdr" > "$d/linux/usbeth.h"
	if ! grep -q USBETH_BOGUS "$d/linux/usbeth.h"; then
		echo "could not add a define to a copy of the header"
		return 1
	fi
	if spec_py extra "$spec" "$d/linux/usbeth.h" >/dev/null 2>&1; then
		echo "a header with an extra define passed the nothing-extra check"
		return 1
	fi
}

ktap_plan 6
ktap_check spec_is_valid_yaml spec_py validate "$spec"
ktap_check every_doc_present spec_py docs "$spec"
ktap_check header_matches_spec header_matches "$inc"
ktap_check header_has_nothing_extra spec_py extra "$spec" "$hdr"
ktap_check header_compiles_without_kernel_headers header_alone
if [ "$__ktap_fail" -eq 0 ]; then
	ktap_check drift_is_caught drift_is_caught
else
	ktap_skip drift_is_caught "the unmodified header and spec do not pass"
fi
ktap_finish
