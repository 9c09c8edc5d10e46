#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM runner's kernel-log checker passes a clean boot log and catches
# each kind of failure the harness promises to catch.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
chk=$here/../vm/check-klog.sh
ktap_plan 13
ktap_check clean_log_passes "$chk" "$here/klog/clean.log"
for k in warn warn7 leak oops lockdep hung kasan reftracker kcsan; do
	if out=$("$chk" "$here/klog/$k.log"); then
		ktap_fail "catches_$k" "not caught"
	elif [ -z "$out" ]; then
		ktap_fail "catches_$k" "caught but no offending line shown"
	else
		ktap_ok "catches_$k"
	fi
done
# kmemleak's summary line is left to the guest, which reads the report and
# sets the kernel's known leaks aside (vm/kmemleak-known.sh)
ktap_check kmemleak_summary_left_to_guest "$chk" "$here/klog/kmemleak.log"
# the data-race kernel's reports of races usbeth has no part in are listed,
# not counted
ktap_check kcsan_elsewhere_not_counted "$chk" "$here/klog/kcsan-elsewhere.log"
# nor the kernel's own races that usbeth meets as any caller would
ktap_check kcsan_known_not_counted "$chk" "$here/klog/kcsan-known.log"
ktap_finish
