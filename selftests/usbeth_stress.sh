#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifetime: 100 plug/unplug cycles (USBETH_STRESS_CYCLES; 200 on the debug
# kernel, make check-debug) while another process keeps doing get,
# set and dump on whatever USB netdevs exist, then module unload while a
# monitor listens and dumps run. The runner fails the run on any oops,
# WARNING or netdev that cannot unregister (a leaked reference), and checks
# that the module unloads at the end.
source "$(dirname "$0")/lib.sh"

CYCLES=${USBETH_STRESS_CYCLES:-100}
cleanup() {
	[ -n "${loop:-}" ] && kill "$loop" 2>/dev/null
	[ -n "${mon:-}" ] && kill "$mon" 2>/dev/null
	wait 2>/dev/null
	rm -f "${stop:-}" "${counts:-}"
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 7
ncm_setup -s super
ncm_unplug
gadget=$NCM_GADGET_IF G=$NCM_GADGET_NS

# the gadget netdev goes back to the initial netns so that plug/unplug here
# does nothing but bind and unbind the UDC
ip -n "$G" link set dev "$gadget" netns 1
ip link set dev "$gadget" up

# The loop counts its requests on host netdevs, so the test knows it really
# raced the plugs (most find the netdev gone: a clean ENODEV). It stops at
# the end of a round once told to, and only then writes its counts: a loop
# killed while writing them left the file empty (CI, 7.3).
stop=$(mktemp -u /tmp/stress-stop.XXXXXX)
counts=$(mktemp /tmp/stress-counts.XXXXXX)
(
	n=0 hostsets=0 hostreqs=0
	until [ -e "$stop" ]; do
		"$USBETHCTL" dump > /dev/null 2>&1
		"$USBETHCTL" set "$gadget" qmult=$((n % 5 + 1)) > /dev/null 2>&1
		host=$("$USBETHCTL" dump 2>/dev/null | sed -n 's/.*ifname=\([^ ]*\) .*role=usb-host.*/\1/p' | head -n1)
		if [ -n "$host" ]; then
			hostreqs=$((hostreqs + 1))
			"$USBETHCTL" get "$host" > /dev/null 2>&1
			"$USBETHCTL" set "$host" ntb_tx_max=$((4096 + (n % 3) * 4096)) \
				tx_timer_usecs=$((n % 2 * 400)) > /dev/null 2>&1 && hostsets=$((hostsets + 1))
		fi
		n=$((n + 1))
	done
	echo "$n $hostreqs $hostsets" > "$counts"
) &
loop=$!

ok=0 applied=0
slow=0
for i in $(seq 1 "$CYCLES"); do
	t0=$(date +%s%N)
	echo "$NCM_UDC" > "$NCM_GADGET/UDC" || break
	host=$("$NLWAIT" -t 30 driver cdc_ncm) || { ktap_info "cycle $i: no host netdev"; break; }
	# every plug gets a set, racing the loop's requests
	"$USBETHCTL" set "$host" ntb_rx_max=$((8192 + i % 2 * 8192)) > /dev/null && applied=$((applied + 1))
	echo "" > "$NCM_GADGET/UDC" || break
	"$NLWAIT" -t 30 gone "$host" || { ktap_info "cycle $i: $host stayed"; break; }
	ok=$i
	t=$((($(date +%s%N) - t0) / 1000000))
	[ $t -gt 2000 ] && { slow=$((slow + 1)); [ $slow -le 3 ] && ktap_info "cycle $i took ${t} ms"; }
done
ktap_info "$slow of $ok cycles took more than 2 s"
ktap_expect_eq plug_unplug_cycles "$ok" "$CYCLES"
ktap_expect_eq set_on_every_plug "$applied" "$CYCLES"
touch "$stop"
wait "$loop"
loop=
read -r rounds hostreqs hostsets < "$counts"
rm -f "$stop" "$counts"
ktap_info "concurrent loop: $rounds rounds, $hostreqs on host netdevs, $hostsets sets applied"
ktap_check loop_raced_the_plugs test "${hostreqs:-0}" -gt 0
ktap_check module_still_works "$USBETHCTL" get "$gadget"

# unload with a monitor subscribed and dumps running
"$USBETHCTL" monitor -t 120 > /dev/null 2>&1 &
mon=$!
( for _ in $(seq 1 50); do "$USBETHCTL" dump > /dev/null 2>&1; done ) &
dumps=$!
tries=0
until rmmod usbeth 2>/dev/null; do
	tries=$((tries + 1))
	[ $tries -lt 200 ] || break
done
ktap_check unload_with_monitor_and_dumps test ! -d /sys/module/usbeth
wait "$dumps" 2>/dev/null
ktap_check reload usbeth_load
ktap_check family_back "$USBETHCTL" family
ktap_finish
