#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A refused first bind: the NCM function's net_device is registered again.
#
# When a function's first bind fails in register_netdev() after the
# net_device was added (reg_state NETREG_UNREGISTERED), the function
# keeps that net_device, and its next bind calls register_netdev() on it
# again: "kernel BUG at net/core/dev.c" in register_netdevice()
# (BUG_ON(dev->reg_state != NETREG_UNINITIALIZED)).
#
# The refused first bind is made the way it happens in the field: through
# the dead glue directory glue-dir-leak.sh shows (so on a kernel with the
# device_move() fix this cannot trigger, and says so). ROUNDS times at most:
# bind, unbind and reload dummy_hcd, then bind a new function; once such a
# first bind is refused, bind again.
#
#   ncm-rebind-bug.sh [ROUNDS]    (default 10)
#
# Exit 0: the second bind either worked or was refused cleanly, no BUG;
# 1: the kernel logged a BUG (if it lives to say so); 2: it cannot run,
# or no first bind was refused in ROUNDS rounds.
set -u
# shellcheck source=ncm-gadget.sh
cd "$(dirname "$0")" && source ./ncm-gadget.sh
ROUNDS=${1:-10}
[ "$(id -u)" = 0 ] || die "needs root"
! lsmod | grep -q '^dummy_hcd ' || rmmod dummy_hcd || die "cannot reload dummy_hcd"
trap 'gadget_teardown; rmmod dummy_hcd 2> /dev/null' EXIT
udc_load
gadget_make || die "cannot make the gadget"
bind || die "the very first bind was refused"
for r in $(seq "$ROUNDS"); do
	unbind
	rmmod dummy_hcd && udc_load || die "cannot reload dummy_hcd"
	func_remove && func_make || die "cannot make a new function"
	if bind; then
		echo "round $r: a new function's first bind worked"
		continue
	fi
	echo "round $r: a new function's first bind was refused:"
	dmesg | grep 'kobject_add_internal failed' | tail -n1
	echo "binding it again"
	bugs=$(dmesg | grep -c 'kernel BUG at')
	bind && echo "the second bind worked" ||
		{ echo "the second bind was refused:"; dmesg | tail -n2; }
	if [ "$(dmesg | grep -c 'kernel BUG at')" -gt "$bugs" ]; then
		echo "FAIL: BUG in register_netdevice"
		exit 1
	fi
	echo "PASS: no BUG"
	exit 0
done
echo "no first bind was refused in $ROUNDS rounds: nothing to show here"
exit 2
