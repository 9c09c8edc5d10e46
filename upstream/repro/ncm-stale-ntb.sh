#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# f_ncm: the NTB being built when the link goes down is kept, and the
# next connect never sends it.
#
# f_ncm starts its flush timer only when it starts a new NTB. A disconnect
# (the UDC unbound, or the host resetting the data interface) leaves the
# NTB it was building in place; the timer, if it fires after the
# disconnect, finds no net_device and does nothing. After the next
# connect, datagrams are added to that old NTB and no timer is started:
# nothing reaches the host until they fill it (16 KiB).
#
# ROUNDS times at most: the gadget sends a UDP flood to the host (so an
# NTB is nearly always being built), the UDC is unbound in the middle of
# it, bound again, and the host pings the gadget. A failed ping is the
# bug; the script then shows that the link comes back once the gadget
# has sent enough to fill the NTB.
#
#   ncm-stale-ntb.sh [ROUNDS]    (default 20; needs iperf3)
#
# Exit 0: every ping after a rebind was answered; 1: one was not (the
# bug); 2: it cannot run.
set -u
# shellcheck source=ncm-gadget.sh
cd "$(dirname "$0")" && source ./ncm-gadget.sh
ROUNDS=${1:-20}
iperf_repro
udc_load
gadget_make || die "cannot make the gadget"
ip netns add repro-h && ip netns add repro-g || die "ip netns"
gif=

# link_up: bind, each end into its netns with its address, both up
link_up() {
	local hif
	bind || die "the bind was refused"
	if [ -z "$gif" ]; then
		gif=$(cat "$F/ifname")
		ip link set "$gif" netns repro-g || die "ip link set netns"
		ip -n repro-g addr add 10.77.0.2/24 dev "$gif"
	fi
	hif=$(host_if)
	ip link set "$hif" netns repro-h || die "ip link set netns"
	ip -n repro-h addr add 10.77.0.1/24 dev "$hif"
	ip -n repro-h link set "$hif" up
	ip -n repro-g link set "$gif" up
}
link_up
wait_for ip netns exec repro-h ping -c 1 -W 1 10.77.0.2 > /dev/null ||
	die "the link does not ping after the first bind"
ip netns exec repro-h iperf3 -s -D -I $pidf > /dev/null || die "iperf3 -s"
wait_for ip netns exec repro-h sh -c 'ss -ltn | grep -q ":5201 "' || die "iperf3 -s did not listen"

for r in $(seq "$ROUNDS"); do
	# datagrams of 1000 bytes: the NTB left behind holds a few; the
	# handful the link sends after the rebind do not fill it
	ip netns exec repro-g iperf3 -c 10.77.0.1 -u -b 0 -l 1000 -t 30 > /dev/null 2>&1 &
	cli=$!
	sleep 1
	echo "" > "$G/UDC"	# the gadget still sending
	kill "$cli" 2> /dev/null
	wait "$cli" 2> /dev/null
	cli=
	wait_for no_host_if || die "unbound, but the cdc_ncm interface stayed"
	link_up
	if ip netns exec repro-h ping -c 3 -i 0.2 -W 5 10.77.0.2 > /dev/null; then
		echo "round $r: the gadget answers after the rebind"
		continue
	fi
	echo "round $r: the gadget does not answer after the rebind"
	# ~20 KiB from the gadget: more than an NTB holds
	ip netns exec repro-g ping -c 16 -i 0.05 -s 1300 -W 1 10.77.0.1 > /dev/null
	if ip netns exec repro-h ping -c 3 -i 0.2 -W 5 10.77.0.2 > /dev/null; then
		echo "it answers again once it has sent more than an NTB holds:"
		echo "what it sent before was held in an NTB that was never sent"
	else
		echo "it still does not answer after sending 20 KiB"
	fi
	echo "FAIL: the NTB being built at the unbind was kept"
	exit 1
done
echo "PASS: the gadget answered after each of $ROUNDS rebinds"
exit 0
