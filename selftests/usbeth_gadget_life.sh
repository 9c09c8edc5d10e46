#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The life of a gadget netdev as u_ether gives it and usbeth reports it,
# which usbethd builds on (a rebound gadget gets no NEW: it is re-evaluated
# on carrier-up). Measured alike on every kernel of the matrix (6.1, 6.12,
# 7.3), and asserted on each:
#   - the configfs mkdir makes no netdev: u_ether registers it at the first
#     bind to a UDC, and usbeth sends NEW then;
#   - unbind (cable out) leaves it registered, moved to /sys/devices/virtual,
#     with no DEL; the host side's netdev goes (DEL);
#   - rebind brings it back under the gadget with the same ifindex and no
#     NEW; usbeth reports the UDC again;
#   - removing the function from configfs unregisters it: DEL.
# "No event" is checked against a sync point: a SET on the gadget, whose
# CHANGE must come before any such event.
source "$(dirname "$0")/lib.sh"

trap 'monitor_stop_all; ncm_teardown' EXIT
ktap_plan 14

# until_change IFINDEX FORBIDDEN_ERE: read events until the CHANGE of
# IFINDEX; fails if a line matching FORBIDDEN_ERE comes first.
until_change() {
	local line end=$((SECONDS + 30))
	while [ $SECONDS -lt $end ]; do
		read -r -t $((end - SECONDS)) -u "$MON_FD" line || return 1
		[[ $line =~ $2 ]] && { echo "# unexpected: $line"; return 1; }
		[[ $line =~ ^change\ ifindex=$1\  ]] && return 0
	done
	return 1
}
gadget_dev() { readlink -f "/sys/class/net/$1"; }

monitor_start ""
ncm_create -s super
name=$(cat "$NCM_FUNC/ifname")
ktap_info "configfs ifname before the first bind: '$name'"
ktap_check no_netdev_before_bind test ! -e "/sys/class/net/$name"

echo "$NCM_UDC" > "$NCM_GADGET/UDC"
ev=$(monitor_expect '^new .*role=usb-gadget')
ktap_check new_at_first_bind test -n "$ev"
g=$(sed -n 's/.* ifname=\([^ ]*\).*/\1/p' <<< "$ev")
gidx=$(sed -n 's/.* ifindex=\([0-9]*\).*/\1/p' <<< "$ev")
ktap_expect_eq configfs_names_it "$(cat "$NCM_FUNC/ifname")" "$g"
ktap_check under_the_gadget_when_bound grep -q "/$NCM_UDC/gadget" <<< "$(gadget_dev "$g")"
hev=$(monitor_expect '^new .*role=usb-host')
hidx=$(sed -n 's/.* ifindex=\([0-9]*\).*/\1/p' <<< "$hev")

echo "" > "$NCM_GADGET/UDC"
ktap_check host_del_on_unbind monitor_expect "^del ifindex=$hidx "
ktap_expect_eq gadget_stays_on_unbind "$(cat "/sys/class/net/$g/ifindex" 2>/dev/null)" "$gidx"
ktap_check moved_to_virtual grep -q '^/sys/devices/virtual/net/' <<< "$(gadget_dev "$g")"
ktap_check set_unbound ue set "$g" qmult=4
ktap_check no_gadget_del_on_unbind until_change "$gidx" "^del ifindex=$gidx "

echo "$NCM_UDC" > "$NCM_GADGET/UDC"
ktap_check host_new_on_rebind monitor_expect '^new .*role=usb-host'
ktap_expect_eq same_ifindex_on_rebind "$(cat "/sys/class/net/$g/ifindex")" "$gidx"
ktap_expect_eq udc_reported_again "$(ue get "$g" | sed -n "s/^gadget_udc=//p")" "$NCM_UDC"
ue set "$g" qmult=2 > /dev/null
ktap_check no_gadget_new_on_rebind until_change "$gidx" "^new ifindex=$gidx "

echo "" > "$NCM_GADGET/UDC"
rm -f "$NCM_GADGET/configs/c.1/ncm.usb0"
rmdir "$NCM_FUNC"
ktap_check del_on_function_removal monitor_expect "^del ifindex=$gidx "
ktap_finish
