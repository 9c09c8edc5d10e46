#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The usbeth CLI's host unit tests (ip-extensions/test/cli_unit.c), built
# with ASan and UBSan: option, command and value parsing (every knob, every
# unit form, every error path), batch parsing, "did you mean", and the text
# and JSON output of canned kernel replies checked against the documented
# schema. The test program prints its own KTAP; this passes it and its exit
# code on.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
top=$USBETH_TOP

if ! out=$(make -s -C "$top/ip-extensions" check-build 2>&1); then
	ktap_plan 1
	printf '%s\n' "$out" | sed 's/^/# /'
	ktap_fail build "make -C ip-extensions check-build failed"
	ktap_finish
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
exec "$top/ip-extensions/test/cli_unit"
