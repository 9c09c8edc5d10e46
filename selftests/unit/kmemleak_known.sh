#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel's kmemleak judge (vm/kmemleak-known.sh): the kernel's own
# known leaks are set aside and counted, anything else fails and is shown.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
judge=$here/../vm/kmemleak-known.sh
ktap_plan 8
out=$("$judge" "$here/klog/kmemleak-known.txt")
ktap_expect_eq known_only_passes $? 0
ktap_check counts_gadget_objects grep -q '^# kmemleak: 3 objects allocated under usb_add_gadget ' <<< "$out"
ktap_check counts_ntb_objects grep -q '^# kmemleak: 1 objects allocated under ncm_wrap_ntb ' <<< "$out"
ktap_expect_eq known_not_shown "$(grep -c '^unreferenced object' <<< "$out")" 0
out=$("$judge" "$here/klog/kmemleak-other.txt")
ktap_expect_eq other_fails $? 1
ktap_check other_shown grep -q 'usbeth_nl_set_doit+' <<< "$out"
ktap_expect_eq only_other_shown "$(grep -c '^unreferenced object' <<< "$out")" 1
: > "${TMPDIR:-/tmp}/kmemleak-empty.$$"
"$judge" "${TMPDIR:-/tmp}/kmemleak-empty.$$" > /dev/null
ktap_expect_eq empty_report_passes $? 0
rm -f "${TMPDIR:-/tmp}/kmemleak-empty.$$"
ktap_finish
