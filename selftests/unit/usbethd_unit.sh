#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# usbethd's unit tests (usbethd/test/usbethd_unit.c), built with ASan and
# UBSan: profile parsing with file:line:column errors, schema validation,
# hostile inputs, matching, specificity and priority, "extends", profile
# directories (override by name, masking), on the built-in profiles too.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
top=$USBETH_TOP

if ! out=$(make -s -C "$top/usbethd" check-build 2>&1); then
	ktap_plan 1
	printf '%s\n' "$out" | sed 's/^/# /'
	ktap_fail build "make -C usbethd check-build failed"
	ktap_finish
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
exec "$top/usbethd/test/usbethd_unit" "$top/usbethd/profiles.d" "$top/usbethd/profiles.available"
