#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Which kernels the test library takes to carry upstream/'s fixes (lib.sh
# kernel_fixed): only those scripts/build-debug-kernel.sh builds with the
# patches, by their release; and the kmemleak judge, which stops setting
# the gadget/UDC leak aside on them.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
judge=$here/../vm/kmemleak-known.sh
ktap_plan 12
fixed() { kernel_fixed "$1" && echo yes || echo no; }
ktap_expect_eq stock_6_1 "$(fixed 6.1.0-57-amd64)" no
ktap_expect_eq stock_7_3 "$(fixed 7.3.4+deb13-amd64)" no
ktap_expect_eq stock_7_3_rt "$(fixed 7.3.4+deb13-rt-amd64)" no
ktap_expect_eq debug "$(fixed 7.3.4-usbeth-debug)" no
ktap_expect_eq fixed "$(fixed 7.3.4-usbeth-fixed)" yes
ktap_expect_eq debug_fixed "$(fixed 7.3.4-usbeth-debug-fixed)" yes
ktap_expect_eq kcsan "$(fixed 7.3.4-usbeth-kcsan)" no
ktap_expect_eq kcsan_fixed "$(fixed 7.3.4-usbeth-kcsan-fixed)" yes
ktap_expect_eq fixed_elsewhere "$(fixed 7.3.4-usbeth-fixed-foo)" no
"$judge" "$here/klog/kmemleak-known.txt" 7.3.4-usbeth-debug > /dev/null
ktap_expect_eq debug_sets_gadget_leak_aside $? 0
out=$("$judge" "$here/klog/kmemleak-known.txt" 7.3.4-usbeth-debug-fixed)
ktap_expect_eq debug_fixed_fails_on_gadget_leak $? 1
ktap_expect_eq debug_fixed_shows_gadget_and_ntb_objects \
	"$(grep -c '^unreferenced object' <<< "$out")" 4
ktap_finish
