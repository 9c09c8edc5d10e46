#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# device_move() leaks the old parent's class glue directory.
#
# u_ether moves the NCM function's net_device to no parent at unbind
# (gether_detach_gadget(): device_move(dev, NULL)) and back under the
# gadget at the next bind. device_move() never drops the reference on the
# "net" glue directory the net_device lived in under the gadget, so that
# directory outlives the gadget (a reference on it, i.e. on the gadget
# device, and through it the UDC's, never released). dummy_hcd frees its
# gadget at unload regardless; when a new one is allocated at the same
# address, get_device_parent() finds the dead directory by its parent
# pointer and the bind is refused:
#   kobject_add_internal failed for usb0 (error: -2 parent: net)
#
# ROUNDS times: bind the NCM gadget, unbind it, reload dummy_hcd. Exit 1
# when a bind is refused (stock kernels, usually at the second or third
# round) or, with kmemleak, when objects allocated under usb_add_gadget
# leak (5 per round on 7.3); 0 when neither; 2 when it cannot run.
#
#   glue-dir-leak.sh [ROUNDS]     (default 5)
set -u
# shellcheck source=ncm-gadget.sh
cd "$(dirname "$0")" && source ./ncm-gadget.sh
ROUNDS=${1:-5}
kml=/sys/kernel/debug/kmemleak
[ "$(id -u)" = 0 ] || die "needs root"
! lsmod | grep -q '^dummy_hcd ' || rmmod dummy_hcd || die "cannot reload dummy_hcd"
trap 'gadget_teardown; rmmod dummy_hcd 2> /dev/null' EXIT
leaks() { # objects kmemleak reports allocated under usb_add_gadget
	echo scan > $kml && echo scan > $kml &&
		grep -c 'usb_add_gadget+' $kml || true
}
[ -w $kml ] && before=$(leaks)
udc_load
gadget_make || die "cannot make the gadget"
fail=0
for r in $(seq "$ROUNDS"); do
	if ! bind; then
		echo "round $r: the bind was refused:"
		dmesg | tail -n3
		fail=1
		break
	fi
	unbind
	rmmod dummy_hcd && udc_load || die "cannot reload dummy_hcd"
	echo "round $r: bound, unbound, UDC removed and added again"
done
gadget_teardown
if [ -w $kml ]; then
	n=$(($(leaks) - before))
	echo "kmemleak: $n new objects allocated under usb_add_gadget"
	[ $n -eq 0 ] || fail=1
fi
[ $fail -eq 0 ] && echo PASS || echo "FAIL: the gadget's glue directory outlived it"
exit $fail
