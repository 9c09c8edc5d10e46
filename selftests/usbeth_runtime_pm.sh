#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A GET (and a dump) reads; it does not wake a runtime-suspended NIC. Any
# user may GET every netdev of its netns, so a GET that resumed devices
# (ethtool's begin calls pm_runtime_get_sync() on the parent) would let an
# unprivileged dump keep every idle NIC of the netns awake. usbeth leaves
# out the coalesce values of a device whose parent is runtime-suspended,
# and names the driver from the parent's bound driver, without get_drvinfo.
# A SET still wakes the device, as ethtool -C does.
#
# The VM's e1000e NICs cannot runtime-suspend: QEMU's e1000e offers no PME,
# so pci_dev_run_wake() is false and e1000e keeps the usage count it took
# at probe (power/control auto leaves runtime_usage at 1). A USB interface
# can: the NCM link's host side, down, autosuspends (at high speed: the
# super-speed device of dummy_hcd stayed active, seen on 7.3). fake_coal
# (selftests/kmod/fake_coal.c) takes that USB interface for its parent, so
# its coalesce ops run behind a parent that sleeps.
#
#   netns init: $H (cdc_ncm, down) and fakecoal0, both children of the
#   USB interface $IF of USB device $UDEV (power/control auto, delay 0)
source "$(dirname "$0")/lib.sh"

KO=$(ksft_helper fake_coal.ko) || env_missing "no fake_coal.ko (the selftests' helper modules are not built for this kernel)"
cleanup() {
	rmmod fake_coal 2>/dev/null
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 10
ncm_setup -s high
H=$NCM_HOST_IF
ip -n "$NCM_HOST_NS" link set "$H" netns 1 || bail "cannot move $H to the initial netns"
ip link set "$H" down
IF=$(readlink -f "/sys/class/net/$H/device")
UDEV=$(readlink -f "$IF/..")
P=/sys/module/fake_coal/parameters
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
coal() { sed -n 's/^\(tx_usecs\|tx_frames\|rx_usecs\|rx_frames\)=//p' | tr '\n' ' '; }
# the USB device's: an interface has no runtime attributes in sysfs, and
# the device suspends only once its interfaces have
status() { cat "$UDEV/power/runtime_status"; }
# wait_suspended: until the USB device is runtime-suspended (10 s)
wait_suspended() {
	local n=100
	while [ $((n--)) -gt 0 ]; do
		[ "$(status)" = suspended ] && return 0
		sleep 0.1
	done
	return 1
}

echo 0 > "$UDEV/power/autosuspend_delay_ms"
echo auto > "$UDEV/power/control"
wait_suspended || bail "$H's USB device did not runtime-suspend (status $(status))"
insmod "$KO" parent_of="$H" || bail "insmod fake_coal parent_of=$H"
# its NEW notification may have read it while it was awake
wait_suspended || bail "the USB device did not suspend again after fake_coal's registration (status $(status))"
echo 0 > "$P/gets"
echo 0 > "$P/drvinfos"
# from now on a wake keeps it awake for 3 s, long enough to be seen (with 0
# it suspends again before its status can be read)
echo 3000 > "$UDEV/power/autosuspend_delay_ms"

before=$(status)
out=$("${nobody[@]}" "$USBETHCTL" get fakecoal0)
after=$(status)
ktap_info "unprivileged GET: $before before, $after after"
ktap_check unprivileged_get_works grep -q '^ifname=fakecoal0$' <<< "$out"
ktap_expect_eq get_leaves_parent_suspended "$after" suspended
ktap_expect_eq get_calls_no_coalesce_op "$(cat "$P/gets")" 0
ktap_expect_eq get_leaves_out_coalesce "$(coal <<< "$out")" ""
ktap_expect_eq get_names_driver_without_drvinfo \
	"$(sed -n 's/^driver=//p' <<< "$out") $(cat "$P/drvinfos")" "cdc_ncm 0"

"${nobody[@]}" "$USBETHCTL" dump > /dev/null || bail "unprivileged dump failed"
ktap_expect_eq dump_leaves_parent_suspended "$(status) $(cat "$P/gets")" "suspended 0"

# a SET wakes it (as ethtool -C does) and works
ktap_check set_wakes_and_sets "$USBETHCTL" set fakecoal0 tx_usecs=11
ktap_expect_eq set_read_the_driver "$(test "$(cat "$P/gets")" -gt 0 && echo yes)" yes

# awake (its sibling $H open holds the interface awake), a GET reports them
ip link set "$H" up
ktap_expect_eq awake_get_reports_coalesce "$(status) $("$USBETHCTL" get fakecoal0 | coal)" "active 11 20 30 40 "
ip link set "$H" down
echo 0 > "$UDEV/power/autosuspend_delay_ms"
wait_suspended || bail "the USB device did not suspend again (status $(status))"
ktap_expect_eq asleep_again_left_out "$("$USBETHCTL" get fakecoal0 | coal)" ""
ktap_finish
