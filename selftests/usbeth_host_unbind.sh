#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cdc_ncm unbound (/sys/bus/usb/drivers/cdc_ncm/unbind) while SETs and GETs
# of its netdev run back to back: usbeth calls the driver's show and store
# functions itself, so it must keep them inside the device's registered life
# as kernfs does for sysfs. What is seen from outside: every SET and GET
# either works or finds no device (ENODEV), and a monitor in the netdev's
# netns never gets a CHANGE for it after its DEL. Each round binds the
# driver again and races a new netdev; the guest kernel log is checked for
# oopses and warnings by the harness.
#
#   netns ncm-host: usbethctl loop (SET ntb_rx_max, tx_timer_usecs; GET)
#                   usbethctl monitor
#   initial netns:  echo INTF > .../cdc_ncm/unbind, then bind
# usbeth-timeout: 900
source "$(dirname "$0")/lib.sh"

# cdc_ncm logs every rx_max it sets at info level: thousands of lines, which
# a serial console takes minutes to print. The console keeps warnings and
# worse (what the harness looks for); the kernel log keeps everything.
loglevel=$(cut -f1 /proc/sys/kernel/printk)
dmesg -n 5

ROUNDS=${USBETH_UNBIND_ROUNDS:-12}
DRV=/sys/bus/usb/drivers/cdc_ncm
tmp=$(mktemp -d)
lpid='' mpid=''
cleanup() {
	dmesg -n "$loglevel"
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null
	wait 2>/dev/null
	[ -n "${INTF:-}" ] && [ ! -e "$DRV/$INTF" ] && echo "$INTF" > "$DRV/bind" 2>/dev/null
	ncm_teardown
	rm -rf "$tmp"
}
trap cleanup EXIT
ktap_plan 6

ncm_setup -s super
H=$NCM_HOST_NS
INTF=$(basename "$(ip netns exec "$H" readlink -f "/sys/class/net/$NCM_HOST_IF/device")")
[ -e "$DRV/$INTF" ] || bail "cdc_ncm does not drive $INTF"

ip netns exec "$H" "$USBETHCTL" monitor -t 1800 > "$tmp/mon" &
mpid=$!
wait_line "$tmp/mon" '^ready$' || bail "usbethctl monitor did not start"

ok_rounds=0
for ((r = 1; r <= ROUNDS; r++)); do
	D=$NCM_HOST_IF
	idx=$(ip -n "$H" -o link show dev "$D" | cut -d: -f1)
	ip netns exec "$H" "$USBETHCTL" loop "$idx" \
		ntb_rx_max=8192/16384 tx_timer_usecs=300/500 > "$tmp/loop.$r" &
	lpid=$!
	# the unbind goes in once a SET went through: the race is on
	wait_line "$tmp/loop.$r" '^set 0' ||
		bail "round $r: no SET of $D went through: $(tail -n 3 "$tmp/loop.$r")"
	echo "$INTF" > "$DRV/unbind" || bail "round $r: cannot unbind $INTF"
	"$NLWAIT" -N "$H" -t 30 gone "$D" || bail "round $r: $D did not go on unbind"
	kill "$lpid"
	wait "$lpid"
	lpid=''
	sed "s/^/$r /" "$tmp/loop.$r" >> "$tmp/loop"
	echo "$INTF" > "$DRV/bind" || bail "round $r: cannot bind $INTF again"
	NCM_HOST_IF=$("$NLWAIT" -t 30 driver cdc_ncm) || bail "round $r: no cdc_ncm netdev after the bind"
	ip link set dev "$NCM_HOST_IF" netns "$H" || bail "round $r: cannot move $NCM_HOST_IF into $H"
	ok_rounds=$r
done
ktap_expect_eq rounds_done "$ok_rounds" "$ROUNDS"

# every request worked or found no device
other=$(awk '$2 ~ /^(set|get)$/ && $3 != "0" && $3 != "ENODEV"' "$tmp/loop")
ktap_expect_eq only_ok_or_enodev "$(head -n 3 <<< "$other")" ""
sets=$(grep -c ' set 0' "$tmp/loop")
gone=$(grep -c ' set ENODEV' "$tmp/loop")
ktap_info "$sets SETs went through, $gone found no device, in $ROUNDS rounds"
if [ "$sets" -ge "$ROUNDS" ] && [ "$gone" -ge "$ROUNDS" ]; then
	ktap_ok sets_before_and_after_each_unbind
else
	ktap_fail sets_before_and_after_each_unbind "$sets SETs went through, $gone found no device"
fi

# the monitor's view: the last device's NEW comes after everything the
# rounds sent; no CHANGE of a device after its DEL
ue "$H" set "$NCM_HOST_IF" tx_timer_usecs=123 > /dev/null || bail "SET on the last netdev"
last=$(ip -n "$H" -o link show dev "$NCM_HOST_IF" | cut -d: -f1)
ktap_check monitor_saw_the_end wait_line "$tmp/mon" "^change ifindex=$last "
kill "$mpid"
wait "$mpid"
mpid=''
ktap_expect_eq no_change_after_del "$(changes_after_del "$tmp/mon")" ""
grep -q overrun "$tmp/mon" && ktap_info "the monitor lost events (overrun)"
ktap_expect_eq last_netdev_works \
	"$(ue "$H" get "$NCM_HOST_IF" | sed -n 's/^tx_timer_usecs=//p')" 123
ktap_finish
