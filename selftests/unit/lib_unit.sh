#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libusbeth's unit tests (lib/test/lib_unit.c), built with ASan and UBSan:
# parsing of canned replies and notifications (hostile ones included),
# request building, extack decoding, the receive logic, the name tables.
# The test program prints its own KTAP; this passes it and its exit code on.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
top=$USBETH_TOP

if ! out=$(make -s -C "$top/lib" check-build 2>&1); then
	ktap_plan 1
	printf '%s\n' "$out" | sed 's/^/# /'
	ktap_fail build "make -C lib check-build failed"
	ktap_finish
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
exec "$top/lib/test/lib_unit"
