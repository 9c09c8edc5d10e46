#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A probe, not a test: the gadget/UDC leak that the debug kernel's kmemleak
# reports after usbeth_plug_cycles.sh, shown with usbeth unloaded. u_ether
# moves its netdev off the gadget at unbind with device_move(), which leaves
# the old parent's "net" glue directory behind (drivers/base/core.c, 6.1 to
# 7.3); the directory holds a reference to the gadget, so once the UDC is
# removed neither the gadget device nor its UDC's is released.
#   - control: the UDC removed (rmmod dummy_hcd) ROUNDS times with no
#     gadget bound;
#   - then ROUNDS times: an NCM gadget bound, its host netdev seen, unbound,
#     the UDC removed.
# kmemleak counts the objects allocated under usb_add_gadget after each
# phase: none after the control, five per round after the second (7.3).
#   run-vm.sh -K 7.3-debug selftests/bench/glue_leak.sh
# Environment: USBETH_GLUE_ROUNDS (default 3).
# usbeth-timeout: 900
source "$(dirname "$0")/../lib.sh"

ROUNDS=${USBETH_GLUE_ROUNDS:-3}
[[ $ROUNDS =~ ^[1-9]$ ]] || bail "USBETH_GLUE_ROUNDS '$ROUNDS' is not 1..9"
kml=/sys/kernel/debug/kmemleak
[ -w $kml ] || ktap_skip_all "no kmemleak here (the debug kernel has it: run-vm.sh -K 7.3-debug)"
kmod=${USBETH_KMOD:-}
cleanup() {
	ncm_teardown
	[ -n "$kmod" ] && [ ! -d /sys/module/usbeth ] && insmod "$kmod"
}
trap cleanup EXIT
ktap_plan 3

# gadget_objects: the objects kmemleak reports allocated under
# usb_add_gadget (two scans: a fresh one is reported at the second), as
# the harness's judge counts them
gadget_objects() {
	echo scan > $kml
	echo scan > $kml
	"$(dirname "$0")/../vm/kmemleak-known.sh" $kml |
		sed -n 's/^# kmemleak: \([0-9]*\) objects allocated under usb_add_gadget .*/\1/p' |
		grep . || echo 0
}
udc_reload() {
	rmmod dummy_hcd && modprobe dummy_hcd is_super_speed=Y is_high_speed=Y
}

rmmod usbeth || bail "cannot unload usbeth (the probe runs without it)"
ncm_create -s super
before=$(gadget_objects)
for ((r = 0; r < ROUNDS; r++)); do
	udc_reload || bail "control round $r: the UDC reload"
done
control=$(gadget_objects)
ktap_info "the UDC removed $ROUNDS times, no gadget bound: $((control - before)) new objects"
ktap_expect_eq no_leak_without_bind $((control - before)) 0

refused=0
for ((r = 0; r < ROUNDS; r++)); do
	if ! echo "$NCM_UDC" > "$NCM_GADGET/UDC"; then
		refused=$((refused + 1))
		ktap_info "round $r: bind refused (a stale glue directory: the stock kernels' face of it)"
		break
	fi
	h=$("$NLWAIT" -t 60 driver cdc_ncm) || bail "round $r: no host netdev"
	echo "" > "$NCM_GADGET/UDC" || bail "round $r: unbind"
	"$NLWAIT" -t 60 gone "$h" || bail "round $r: $h did not go"
	udc_reload || bail "round $r: the UDC reload"
done
after=$(gadget_objects)
ktap_info "an NCM bind and unbind, then the UDC removed, $ROUNDS times: $((after - control)) new objects"
ktap_expect_eq every_bind_binds $refused 0
ktap_expect_eq five_objects_per_udc_removed $((after - control)) $((5 * ROUNDS))
ktap_finish
