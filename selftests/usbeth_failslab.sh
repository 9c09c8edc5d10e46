#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SETs with allocation failures injected: every failed SET leaves the device
# exactly as it was. For N = 1, 2, ... the Nth fault point the SET request
# meets in the kernel fails (fail-nth, through failslab: every slab
# allocation of the request's own thread, in netlink, usbeth and the driver
# alike), until a SET goes through with no fault left to inject. A SET that
# fails must leave every knob as it was, read through usbeth and through the
# driver's own files; one that succeeds must have set them all (and is then
# undone). A SET whose answer is lost (ENOBUFS: the kernel could not
# allocate the ACK after the handler succeeded) must be whole. Multi-knob SETs on cdc_ncm (NTB sizes, timer, BQL) and on e1000e
# (coalesce, BQL). Needs FAULT_INJECTION and FAILSLAB: the debug kernel
# (make check-debug), not Debian's.
source "$(dirname "$0")/lib.sh"

FS=/sys/kernel/debug/failslab
cleanup() {
	[ -d "$FS" ] && { echo Y > "$FS/ignore-gfp-wait"; echo 2 > "$FS/verbose"; } 2>/dev/null
	ncm_teardown
	e1k_teardown
}
trap cleanup EXIT
ktap_plan 4
[ -e /proc/self/fail-nth ] && [ -d "$FS" ] ||
	ktap_skip_all "no failslab in this kernel (Debian's has none: make check-debug)"
# GFP_KERNEL allocations too (failslab skips sleeping ones by default), and
# no stack dump per injected fault
echo N > "$FS/ignore-gfp-wait"
echo 0 > "$FS/verbose"

# sweep NAME NETNS DEV STATE_FN "KNOBS TO" "KNOBS BACK"
sweep() {
	local name=$1 ns=$2 dev=$3 state=$4 to=$5 back=$6
	local n=0 before after target out rc fault failed=0 bad=0 ok_seen=0 lost=0
	# shellcheck disable=SC2086
	ue "$ns" set "$dev" $to > /dev/null || bail "$name: cannot set the target values"
	target=$($state)
	# shellcheck disable=SC2086
	ue "$ns" set "$dev" $back > /dev/null || bail "$name: cannot set the start values"
	before=$($state)
	[ "$target" != "$before" ] || bail "$name: the target is the start"
	while [ $n -lt 2000 ]; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		out=$(ue "$ns" set -f "$n" "$dev" $to 2>&1)
		rc=$?
		fault=$(sed -n 's/^fault=//p' <<< "$out")
		after=$($state)
		if [ $rc -eq 0 ]; then
			ok_seen=$((ok_seen + 1))
			# shellcheck disable=SC2086
			[ "$after" = "$target" ] || { bad=$((bad + 1)); ktap_info "$name n=$n: succeeded but did not set it all"; }
			ue "$ns" set "$dev" $back > /dev/null || bail "$name: cannot undo n=$n"
			[ "$($state)" = "$before" ] || bail "$name: undo of n=$n left another state"
			[ "$fault" = not-injected ] && break
		elif grep -q '^errno=ENOBUFS' <<< "$out"; then
			# the request was done, its answer lost: netlink could
			# not allocate the ACK once the handler had returned 0
			# (af_netlink reports ENOBUFS on the socket instead).
			# The SET is then whole, never partial.
			lost=$((lost + 1))
			if [ "$after" != "$before" ]; then
				[ "$after" = "$target" ] ||
					{ bad=$((bad + 1)); ktap_info "$name n=$n: answer lost, and the device is half set"; }
				# shellcheck disable=SC2086
				ue "$ns" set "$dev" $back > /dev/null
			fi
		else
			failed=$((failed + 1))
			if [ "$after" != "$before" ]; then
				bad=$((bad + 1))
				ktap_info "$name n=$n: failed ($(grep -o 'errno=[A-Z]*' <<< "$out")) and left:"
				diff <(echo "$before") <(echo "$after") | sed 's/^/#   /'
				# shellcheck disable=SC2086
				ue "$ns" set "$dev" $back > /dev/null
			fi
			[ "$fault" = injected ] || { bad=$((bad + 1)); ktap_info "$name n=$n: failed with no fault injected: $out"; }
		fi
	done
	ktap_info "$name: $n fault points swept, $failed SETs failed, $ok_seen went through, $lost answers lost (ENOBUFS)"
	ktap_expect_eq "${name}_swept_to_the_end" "$fault" not-injected
	ktap_check "${name}_failed_sets_left_it_as_it_was" test "$bad" -eq 0 -a "$failed" -gt 0
}

# cdc_ncm: usbeth's view and the driver's own files
ncm_setup -s super
H=$NCM_HOST_NS D=$NCM_HOST_IF
ncm_state() {
	ue "$H" get "$D" | grep -E '^(ntb_rx_max|ntb_tx_max|tx_timer_usecs|bql\.[0-9]+\.(limit_min|limit_max|hold_time))='
	ip netns exec "$H" sh -c "cd /sys/class/net/$D && cat cdc_ncm/rx_max cdc_ncm/tx_max cdc_ncm/tx_timer_usecs \
		queues/tx-*/byte_queue_limits/limit_max 2>/dev/null"
}
ncm_to="ntb_rx_max=8192 ntb_tx_max=8192 tx_timer_usecs=300"
ncm_back="ntb_rx_max=16384 ntb_tx_max=16384 tx_timer_usecs=400"
if ue "$H" get "$D" | grep -q '^caps=.*bql'; then
	ncm_to="$ncm_to bql_limit_max=60000" ncm_back="$ncm_back bql_limit_max=1879048192"
fi
sweep ncm "$H" "$D" ncm_state "$ncm_to" "$ncm_back"
ncm_teardown

# e1000e: coalesce and BQL, read back with ethtool -c and sysfs
e1k_setup
A=$E1K_A_NS E=$E1K_A_IF
e1k_state() {
	ue "$A" get "$E" | grep -E '^(rx_usecs|bql\.[0-9]+\.(limit_min|limit_max|hold_time))='
	ip netns exec "$A" ethtool -c "$E" | grep '^rx-usecs:'
	ip netns exec "$A" sh -c "cd /sys/class/net/$E/queues && cat tx-*/byte_queue_limits/limit_max tx-*/byte_queue_limits/hold_time"
}
sweep e1000e "$A" "$E" e1k_state "rx_usecs=100 bql_limit_max=30000 bql_hold_time=500" \
	"rx_usecs=3 bql_limit_max=1879048192 bql_hold_time=1000"
ktap_finish
