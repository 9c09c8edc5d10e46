#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# f_ncm: a flush of the NTB being built refused for want of an IN request
# is never tried again, and the NTB's datagram is not sent.
#
# At full speed u_ether has two IN requests. The host's interface is set
# down, so usbnet reads nothing and every request the gadget queues stays
# queued. The host has asked for NTBs of 2048 bytes (rx_max). The gadget
# then sends a ping of 64 bytes (its NTB leaves at the timer, in the
# first request), and a ping of 2500 bytes, which leaves in two IP
# fragments handed to the driver one after the other: the first fills an
# NTB, the second does not fit in it, so that NTB goes out in the second
# request and the second fragment starts a new one. With no request left,
# the timer's flush of that one is refused. Then the host's interface
# goes up and reads the two NTBs. The second fragment must follow them
# (the host receives three datagrams); where the refused flush is never
# tried again it waits for more datagrams that do not come (two).
#
# The second fragment must reach the driver within the timer's 300 us of
# the first. Where the guest runs late (a loaded host), the timer sends
# the first fragment's NTB alone, taking the last request; the second
# fragment then waits in the gadget's qdisc, stopped, and goes once a
# request is back: the case does not arise, and an unpatched kernel can
# pass. Run it on a host with nothing else to do. The count is of every
# datagram the host receives once its link is up (one more than three
# has been seen): a pass is three or more.
#
#   ncm-flush-refused.sh
#
# Exit 0: the host received all three datagrams; 1: it received fewer
# (the bug); 2: it cannot run.
set -u
# shellcheck source=ncm-gadget.sh
cd "$(dirname "$0")" && source ./ncm-gadget.sh
[ "$(id -u)" = 0 ] || die "needs root"
cleanup() { gadget_teardown; rmmod dummy_hcd 2> /dev/null; }
! lsmod | grep -q '^dummy_hcd ' || rmmod dummy_hcd || die "cannot reload dummy_hcd"
trap cleanup EXIT
udc_load is_super_speed=0 is_high_speed=0
gadget_make || die "cannot make the gadget"
# nothing but the pings below goes out of the gadget: no IPv6, and each
# end knows the other's address
quiet_link
ip -n repro-g neigh replace 10.77.0.1 lladdr "$(ip -n repro-h -br link show "$hif" | awk '{ print $3 }')" \
	dev "$gif" nud permanent && ip -n repro-h neigh replace 10.77.0.2 \
	lladdr "$(ip -n repro-g -br link show "$gif" | awk '{ print $3 }')" dev "$hif" nud permanent ||
	die "ip neigh"
ip netns exec repro-h sh -c "echo 2048 > /sys/class/net/$hif/cdc_ncm/rx_max" ||
	die "cannot set the host's rx_max"
ip -n repro-g link set "$gif" up && ip -n repro-h link set "$hif" up || die "ip link set up"
wait_for ip netns exec repro-h ping -c 1 -W 1 10.77.0.2 > /dev/null || die "the link does not ping"
[ "$(ip netns exec repro-h cat "/sys/class/net/$hif/cdc_ncm/rx_max")" = 2048 ] ||
	die "the host's rx_max is not 2048"

ip -n repro-h link set "$hif" down
rx0=$(ip netns exec repro-h cat "/sys/class/net/$hif/statistics/rx_packets")
ip netns exec repro-g ping -c 1 -W 1 10.77.0.1 > /dev/null
ip netns exec repro-g ping -c 1 -W 1 -s 2500 10.77.0.1 > /dev/null
ip -n repro-h link set "$hif" up
# the host's count once the two queued NTBs (and what follows) are in
want=$((rx0 + 3))
got=0
for i in $(seq 50); do
	got=$(ip netns exec repro-h cat "/sys/class/net/$hif/statistics/rx_packets")
	[ "$got" -ge "$want" ] && break
	sleep 0.1
done
echo "the host received $((got - rx0)) of the gadget's 3 datagrams (one ping, then two fragments)"
[ "$got" -ge "$want" ] || { echo "FAIL: the refused flush's NTB was not sent"; exit 1; }
echo "PASS"
