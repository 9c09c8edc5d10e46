#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# f_ncm: after a failed allocation of a new NTB's NDP, the next datagram
# uses the NTB that the error path freed.
#
# ncm_wrap_ntb() starts an NTB with two GFP_ATOMIC allocations: the skb
# for the NTH and the datagrams (skb_tx_data), then the one for the NDP
# (skb_tx_ndp). When the second fails, its error path frees skb_tx_data
# but leaves the pointer set. The next datagram finds an NTB "being built"
# and reads the freed skb_tx_data and the NULL skb_tx_ndp.
#
# The host pings the gadget, whose replies go through ncm_wrap_ntb(); with
# failslab, the second slab allocation made with ncm_wrap_ntb() on the
# stack fails, once. A new NTB makes these, in order: skb_tx_data's
# sk_buff; its data, max_size (the host's NTB input size, 16384 here) and
# so from the page allocator, which failslab does not see; skb_tx_ndp's
# sk_buff; its data, from the small-head cache (with __GFP_NOWARN, and
# tried again from the reserves when that fails, so failing it once fails
# nothing); kmemleak's allocations for each are set aside (a reject
# range). The second is skb_tx_ndp's sk_buff (interval 2, counted from
# the first NTB after failslab is armed: IPv6 is off and the last reply's
# NTB has gone). Then the host pings again.
#
#   ncm-ntb-alloc-fail.sh    (needs CONFIG_FAILSLAB and
#                             CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)
#
# Exit 0: the fault was injected, the gadget still answers and the kernel
# logged no BUG, KASAN report or oops; 1: one of those failed (the bug);
# 2: it cannot run.
set -u
# shellcheck source=ncm-gadget.sh
cd "$(dirname "$0")" && source ./ncm-gadget.sh
FS=/sys/kernel/debug/failslab
[ "$(id -u)" = 0 ] || die "needs root"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -w "$FS/require-start" ] || die "needs failslab with a stack filter (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"
failslab_off() {
	echo 0 > "$FS/probability"
	echo 0 > "$FS/require-start"
	echo 0 > "$FS/reject-start"
	echo 0 > "$FS/reject-end"
	echo 0xffffffffffffffff > "$FS/require-end"
	echo 1 > "$FS/interval"
	echo 1 > "$FS/times"
}
cleanup() { failslab_off; gadget_teardown; rmmod dummy_hcd 2> /dev/null; }
! lsmod | grep -q '^dummy_hcd ' || rmmod dummy_hcd || die "cannot reload dummy_hcd"
trap cleanup EXIT
udc_load
gadget_make || die "cannot make the gadget"
# no IPv6: nothing but the pings below goes out of the gadget, so no NTB
# is being built when the fault is armed
quiet_link
ip -n repro-g link set "$gif" up && ip -n repro-h link set "$hif" up || die "ip link set up"
wait_for ip netns exec repro-h ping -c 1 -W 1 10.77.0.2 > /dev/null || die "the link does not ping"

# ncm_wrap_ntb()'s text: from its symbol to the next one of the module
read -r start end < <(awk '$4 == "[usb_f_ncm]" && $2 ~ /^[tT]$/ { print $1, $3 }' /proc/kallsyms |
	sort | awk '$2 == "ncm_wrap_ntb" { s = $1; next } s { print s, $1; exit }')
[ -n "${start:-}" ] && [ -n "${end:-}" ] || die "cannot find ncm_wrap_ntb in /proc/kallsyms"
failslab_off
echo N > "$FS/task-filter"
echo Y > "$FS/ignore-gfp-wait"	# GFP_ATOMIC ones only
echo 2 > "$FS/verbose"
# in hex: as decimals, bash's signed arithmetic makes them negative
# Not kmemleak's own allocations, which follow each one it tracks with
# the same stack (and __GFP_NOWARN): its text, from the first of its
# functions that allocate to the symbol after the last
read -r rstart rend < <(awk '$2 ~ /^[tT]$/ && NF == 3 { print $1, $3 }' /proc/kallsyms | sort |
	awk '$2 ~ /^(__alloc_object|__create_object)$/ {
		if (!s) s = $1; last = 1; next } last { e = $1; last = 0 } END { print s, e }')
[ -n "${rstart:-}" ] && [ -n "${rend:-}" ] || die "cannot find kmemleak's allocating functions in /proc/kallsyms"
echo "kmemleak's allocating text: $rstart-$rend ($(( (0x$rend - 0x$rstart) / 1024 )) KiB); ncm_wrap_ntb: $start-$end"
[ $(( (0x$rend - 0x$rstart) / 1024 )) -lt 64 ] || die "kmemleak's functions are not together"
echo "0x$rstart" > "$FS/reject-start" || die "cannot set reject-start"
echo "0x$rend" > "$FS/reject-end" || die "cannot set reject-end"
echo "0x$start" > "$FS/require-start" || die "cannot set require-start"
echo "0x$end" > "$FS/require-end" || die "cannot set require-end"
echo 2 > "$FS/interval"
echo 1 > "$FS/times"
log0=$(dmesg | wc -l)
# the last reply's NTB has gone (the TX timer flushes it within 300 us)
sleep 1
echo 100 > "$FS/probability"
# replies from the gadget, each the first datagram of an NTB, until the
# fault is injected
for i in $(seq 50); do
	ip netns exec repro-h ping -c 1 -W 1 10.77.0.2 > /dev/null
	[ "$(cat "$FS/times")" = 0 ] && break
done
# times falls to 0 when the fault is injected (the log may not say: an
# allocation made with __GFP_NOWARN fails without a word)
injected=$(cat "$FS/times")
failslab_off
[ "$injected" = 0 ] || die "no fault was injected in ncm_wrap_ntb in 50 pings"
echo "a fault was injected in ncm_wrap_ntb (failslab); the kernel's report, if any:"
dmesg | tail -n +"$((log0 + 1))" | grep -A 14 'FAULT_INJECTION' | grep -E 'FAULT|alloc|ncm|skb' | head -n 12
answered=0
ip netns exec repro-h ping -c 5 -i 0.2 -W 2 10.77.0.2 > /dev/null && answered=1
bad=$(dmesg | tail -n +"$((log0 + 1))" | grep -E 'BUG:|KASAN|Oops|general protection|use-after-free' | head -n 3)
if [ -n "$bad" ]; then
	printf '%s\n' "$bad"
	echo "FAIL: after the failed allocation, ncm_wrap_ntb() used the NTB its error path freed"
	exit 1
fi
if [ $answered -eq 0 ]; then
	echo "FAIL: the gadget no longer answers after the failed allocation"
	exit 1
fi
echo "PASS: the gadget answers after the failed allocation, and the kernel logged no error"
exit 0
