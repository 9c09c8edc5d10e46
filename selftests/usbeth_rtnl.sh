#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A SET or GET of a USB host-side netdev does not wait for the rtnl lock,
# which a hotplug keeps busy (registration, the peer's link watch, IPv6
# autoconf): the values go straight to the driver's own sysfs-style paths.
# Devices that need rtnl (a gadget: u_ether reparents it under rtnl; a
# cdc_ncm whose knobs are ethtool settings, upstream/features/0001) still take it.
# A helper module, selftests/kmod/rtnl_hold.ko, has a kernel thread hold
# rtnl; what is checked is the order of events, not times.
source "$(dirname "$0")/lib.sh"

KO=$(ksft_helper rtnl_hold.ko)
HOLD=/sys/module/rtnl_hold/parameters/hold
gpid=
cleanup() {
	[ -w "$HOLD" ] && echo 0 > "$HOLD"
	[ -n "$gpid" ] && wait "$gpid" 2>/dev/null
	rmmod rtnl_hold 2>/dev/null
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 10
[ -r "$KO" ] || env_missing "no helper module $KO (make, or the kselftest install)"

# waits_for_rtnl PID: wait until task PID sleeps in usbeth_hold(), where the
# only thing that sleeps is its rtnl_lock(): the first frame of its kernel
# stack that is not the lock's own (none are shown for a mutex; PREEMPT_RT
# makes rtnl an rt_mutex, whose frames are; rtnl_lock() itself shows where
# instrumentation, KCSAN's, keeps it from tail-calling the mutex) is
# usbeth_hold. A task blocking on a mutex sends no event: this polls,
# bounded.
waits_for_rtnl() {
	local i
	for ((i = 0; i < 600; i++)); do
		grep -vE '\] (__)?(rt_mutex|mutex|schedule|rwbase|rtnl_lock)' "/proc/$1/stack" 2>/dev/null |
			head -n1 | grep -q ' usbeth_hold+.*\[usbeth\]' && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	echo "task $1 ($(cat "/proc/$1/comm" 2>/dev/null)) kernel stack:"
	sed 's/^/  /' "/proc/$1/stack" 2>/dev/null
	return 1
}

ncm_setup -s super -q 1
H=$NCM_HOST_NS HD=$NCM_HOST_IF G=$NCM_GADGET_NS GD=$NCM_GADGET_IF
insmod "$KO" || bail "insmod $KO"
tmp=$(mktemp -d)

# whether the host side's driver offers its NTB knobs through ethtool
ETHTOOL_NEW=${USBETH_ETHTOOL:-${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}/ethtool/usr/sbin/ethtool}
host_ethtool=0
[ -x "$ETHTOOL_NEW" ] &&
	ip netns exec "$H" "$ETHTOOL_NEW" -c "$HD" 2>/dev/null | grep -q '^tx-aggr-max-bytes:' &&
	host_ethtool=1

echo 1 > "$HOLD"	# returns once the helper's thread holds rtnl
ktap_expect_eq rtnl_held "$(cat "$HOLD")" 1

# the gadget's SET must wait for rtnl
ip netns exec "$G" "$USBETHCTL" set "$GD" qmult=3 > "$tmp/gadget" 2>&1 &
gpid=$!
ktap_check gadget_set_waits_for_rtnl waits_for_rtnl "$gpid"

gadget_still_waiting() {
	if kill -0 "$gpid" 2>/dev/null && [ "$(cat "$HOLD")" = 1 ]; then
		ktap_ok gadget_set_still_waiting
	else
		ktap_fail gadget_set_still_waiting "the gadget's SET ended while rtnl was held: $(cat "$tmp/gadget")"
	fi
}

ip netns exec "$H" "$USBETHCTL" set "$HD" tx_timer_usecs=123 bql_limit_max=50000 \
	> "$tmp/host" 2>&1 &
hpid=$!
if [ "$host_ethtool" = 1 ]; then
	# A cdc_ncm whose NTB knobs are ethtool settings (upstream/features/0001; told
	# by what its driver answers to ethtool -c, read before rtnl was
	# taken: ethtool's request would wait for it too) is worked on
	# through ethtool's operations, under rtnl as ethtool calls them:
	# its SET waits like the gadget's, and completes once rtnl is let go.
	ktap_info "$HD's NTB knobs are ethtool settings: its requests take rtnl"
	ktap_check host_set_waits_for_rtnl waits_for_rtnl "$hpid"
	gadget_still_waiting
	echo 0 > "$HOLD"
	wait "$hpid" || bail "the host side's SET failed once rtnl was let go: $(cat "$tmp/host")"
	ktap_expect_eq host_get_after_release \
		"$(ip netns exec "$H" "$USBETHCTL" get "$HD" | sed -n 's/^tx_timer_usecs=//p')" 123
else
	# Otherwise the host side's SET and GET complete while rtnl is still
	# held. A waiting task cannot be killed, so a watchdog lets go of rtnl
	# after 60 s: a regression then fails here instead of hanging the run.
	release_rtnl() { echo 0 > "$HOLD"; }
	watchdog 60 release_rtnl > /dev/null 2>&1 &
	wd=$!
	wait "$hpid"
	rc=$?
	held=$(cat "$HOLD")
	ktap_expect_eq host_set_while_rtnl_held "rc=$rc held=$held" "rc=0 held=1"
	ktap_expect_eq host_get_while_rtnl_held \
		"$(ip netns exec "$H" "$USBETHCTL" get "$HD" | sed -n 's/^tx_timer_usecs=//p') held=$(cat "$HOLD")" "123 held=1"
	gadget_still_waiting
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	echo 0 > "$HOLD"
fi
ktap_expect_eq host_tx_timer_in_sysfs "$(sysfs_of "$H" "$HD" cdc_ncm/tx_timer_usecs)" 123
ktap_expect_eq host_bql_limit_max_in_sysfs \
	"$(sysfs_of "$H" "$HD" queues/tx-0/byte_queue_limits/limit_max)" 50000

wait "$gpid"
rc=$?
gpid=
ktap_expect_eq gadget_set_after_release "$rc" 0
ktap_expect_eq gadget_qmult_in_configfs "$(cat "$NCM_FUNC/qmult")" 3

# put the host side back; the module goes
ue "$H" set "$HD" tx_timer_usecs=400 bql_limit_max=1879048192 > /dev/null
ktap_check helper_unloads rmmod rtnl_hold
rm -rf "$tmp"
ktap_finish
