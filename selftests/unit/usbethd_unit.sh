#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# usbethd's unit tests (usbethd/test/usbethd_unit.c), built with ASan and
# UBSan: profile parsing with file:line:column errors, schema validation,
# hostile inputs, matching, specificity and priority, "extends", profile
# directories (override by name, masking), on the built-in profiles too.
# Then the test hooks (usbethd/testhooks.h): the daemon as shipped,
# usbethd, has none of their strings; usbethd-hooks, the tests' build, has
# every one.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
top=$USBETH_TOP

if ! out=$(make -s -C "$top/usbethd" check-build usbethd usbethd-hooks 2>&1); then
	ktap_plan 1
	printf '%s\n' "$out" | sed 's/^/# /'
	ktap_fail build "make -C usbethd check-build failed"
	ktap_finish
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
out=$("$top/usbethd/test/usbethd_unit" "$top/usbethd/profiles.d" "$top/usbethd/profiles.available" 2>&1)
rc=$?

# hook_strings BINARY: the hooks' variables named in BINARY, in a line (as
# `strings BINARY | grep USBETHD_TEST_` finds them)
hook_strings() { grep -ao 'USBETHD_TEST_[A-Z_]*' "$1" | sort -u | paste -sd' '; }
# the hooks' variables, as testhooks.h reads them
hooks=$(grep -o 'getenv("USBETHD_TEST_[A-Z_]*")' "$top/usbethd/testhooks.h" |
	sed 's/getenv("//; s/")//' | sort -u | paste -sd' ')
prod=$(hook_strings "$top/usbethd/usbethd")
test=$(hook_strings "$top/usbethd/usbethd-hooks")

# the unit binary's KTAP, with the two checks of the binaries after its
# own: its plan and totals grown by two
n=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<< "$out" | head -n1)
printf '%s\n' "$out" | sed -e "s/^1\.\.${n:-0}\$/1..$((${n:-0} + 2))/" -e '/^# totals: /d'
__ktap_plan=$((${n:-0} + 2)) __ktap_n=${n:-0}
__ktap_pass=$(grep -c '^ok [0-9]' <<< "$out") __ktap_fail=$(grep -c '^not ok [0-9]' <<< "$out")
ktap_expect_eq usbethd_has_no_test_hooks "$prod" ""
[ -n "$hooks" ] || ktap_info "no getenv(\"USBETHD_TEST_...\") in usbethd/testhooks.h"
ktap_expect_eq usbethd_hooks_has_test_hooks "$test" "${hooks:-none found}"
[ "$rc" -eq 0 ] || { echo "# usbethd_unit exited $rc"; __ktap_fail=$((__ktap_fail + 1)); }
ktap_finish
