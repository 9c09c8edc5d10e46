#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# f_ncm: the NTB flush timer is not armed again after NETDEV_TX_BUSY.
#
# A full-speed NCM gadget on dummy_hcd sends to the host (cdc_ncm, same
# machine) for SECS seconds (iperf3, TCP); the host's received bytes are
# read once a second. At full speed u_ether has two IN requests; when the
# flush timer finds both queued, its xmit returns NETDEV_TX_BUSY and the
# pending NTB waits for datagrams that fill it, which TCP does not send
# while it waits for the ACKs of what the NTB holds: the transfer stalls,
# typically for seconds, within the first 20 MB.
#
#   ncm-flush-stall.sh [SECS [USECS]]   (default 20 s; needs iperf3)
#
# USECS sets the host's cdc_ncm tx_timer_usecs (default: the driver's).
#
# Pauses have another cause too (seen on 7.3 with the host's TX timer at
# 0, and with the fix): the kprobe trace of usbeth's bench/stall.sh tells
# this bug's (a refused flush, then no timer run while an NTB is pending).
#
# Prints the host's received bytes per second and the longest time it
# received nothing; exit 1 when that was 2 s or more (the bug), 0 when not,
# 2 when it cannot run.
set -u
# shellcheck source=ncm-gadget.sh
cd "$(dirname "$0")" && source ./ncm-gadget.sh
SECS=${1:-20} USECS=${2:-}
iperf_repro
udc_load is_super_speed=0 is_high_speed=0
gadget_make || die "cannot make the gadget"
bind || die "the bind was refused"
gif=$(cat "$F/ifname") hif=$(host_if)
ip netns add repro-h && ip netns add repro-g || die "ip netns"
ip link set "$hif" netns repro-h && ip link set "$gif" netns repro-g || die "ip link set netns"
ip -n repro-h addr add 10.77.0.1/24 dev "$hif"
ip -n repro-g addr add 10.77.0.2/24 dev "$gif"
[ -z "$USECS" ] || ip netns exec repro-h sh -c "echo $USECS > /sys/class/net/$hif/cdc_ncm/tx_timer_usecs" ||
	die "cannot set the host's tx_timer_usecs"
ip -n repro-h link set "$hif" up
ip -n repro-g link set "$gif" up
wait_for ip netns exec repro-g ping -c 1 -W 1 10.77.0.1 > /dev/null || die "the link does not ping"

ip netns exec repro-h iperf3 -s -1 -D -I $pidf > /dev/null || die "iperf3 -s"
wait_for ip netns exec repro-h sh -c 'ss -ltn | grep -q ":5201 "' || die "iperf3 -s did not listen"
ip netns exec repro-g iperf3 -c 10.77.0.1 -t "$SECS" > /run/repro-iperf3.out 2>&1 &
cli=$!
last=$(ip netns exec repro-h cat "/sys/class/net/$hif/statistics/rx_bytes")
idle=0 worst=0 t=0
# while the transfer runs: a second after it ended, nothing comes, and
# that is no stall (each sample takes more than its second's sleep)
while kill -0 "$cli" 2> /dev/null; do
	sleep 1
	t=$((t + 1))
	now=$(ip netns exec repro-h cat "/sys/class/net/$hif/statistics/rx_bytes")
	kill -0 "$cli" 2> /dev/null || break
	echo "t=${t}s host rx_bytes=$now (+$((now - last)))"
	if [ "$now" -eq "$last" ]; then
		idle=$((idle + 1))
		[ $idle -gt $worst ] && worst=$idle
	else
		idle=0
	fi
	last=$now
done
wait "$cli"
cli=
grep -E 'sender|receiver' /run/repro-iperf3.out
echo "longest time the host received nothing: ${worst}s"
[ $worst -lt 2 ] || { echo "FAIL: the gadget -> host transfer stalled"; exit 1; }
echo "PASS"
