#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbeth on a USB NIC that is not NCM: QEMU's usb-net, plugged in and
# pulled out at run time through the VM's own monitor (lib.sh: unet_*), in
# both of its configurations: CDC-ECM (driven by cdc_ether) and RNDIS
# (rndis_host), each over usbnet. For each driver:
#   - NEW on the plug and DEL on the unplug reach a monitor;
#   - GET and dump give its identity: role, driver, VID:PID, speed and USB
#     path, as sysfs has them;
#   - traffic passes both ways to the e1000e peer;
#   - BQL knobs set through usbeth are read back from byte_queue_limits/;
#     accounting is what the kernel's usbnet does (active from 6.19: 7.3
#     here; none on 6.1 and 6.12), and where it is active the capped limit
#     holds under iperf3;
#   - the NTB and TX timer knobs, which only cdc_ncm has, are refused with
#     EOPNOTSUPP naming the knob (and, where the kernel keeps formatted
#     messages, the device and the driver).
source "$(dirname "$0")/lib.sh"

trap 'monitor_stop_all; unet_teardown' EXIT
ktap_plan 34
unet_setup
acct=none
usbnet_does_bql && acct=active
ktap_info "usbnet BQL accounting on this kernel: $acct"

nic() { # nic ecm|rndis DRIVER
	local conf=$1 drv=$2 H=$UNET_HOST_NS out usbdir idx bql lim
	monitor_start ""
	unet_attach -c "$conf"
	usbdir=$(readlink -f "/sys/class/net/$UNET_IF/device/..")
	idx=$(cat "/sys/class/net/$UNET_IF/ifindex")
	ktap_check "${drv}_new_on_plug" monitor_expect "^new ifindex=$idx ifname=$UNET_IF role=usb-host\$"
	ktap_expect_eq "${drv}_driver" "$UNET_DRIVER" "$drv"
	unet_up

	out=$(ue "$H" get "$UNET_IF")
	f() { sed -n "s/^$1=//p" <<< "$out" | head -n1; }
	ktap_expect_eq "${drv}_get_identity" "$(f role) $(f driver) $(f usb_vid):$(f usb_pid)" \
		"usb-host $drv $UNET_VID:$UNET_PID"
	ktap_expect_eq "${drv}_get_speed_as_sysfs" "$(f usb_speed)" \
		"$(case $(cat "$usbdir/speed") in 12) echo full ;; 480) echo high ;; 5000) echo super ;; *) echo "?" ;; esac)"
	ktap_expect_eq "${drv}_get_usb_path" "$(f usb_path)" "$(basename "$usbdir")"
	ktap_expect_eq "${drv}_in_dump" "$(ue "$H" dump | grep -c "^ifindex=$idx ifname=$UNET_IF .*role=usb-host")" 1
	if grep -qE '^caps=.*(ntb|tx-timer)' <<< "$out"; then
		ktap_fail "${drv}_caps_no_ntb_timer" "$(grep '^caps=' <<< "$out")"
	else
		ktap_ok "${drv}_caps_no_ntb_timer"
	fi

	ktap_check "${drv}_ping" ip netns exec "$H" ping -c 3 -i 0.2 -W 5 "$UNET_PEER_ADDR"
	bql() { sysfs_of "$H" "$UNET_IF" "queues/tx-0/byte_queue_limits/$1"; }
	ktap_check "${drv}_set_bql" ue "$H" set "$UNET_IF" bql_limit_max=4096 bql_limit_min=1000 bql_hold_time=500
	ktap_expect_eq "${drv}_bql_in_sysfs" "$(bql limit_max) $(bql limit_min)" "4096 1000"
	iperf_bytes "$UNET_PEER_NS" "$H" "$UNET_PEER_ADDR" -n 8M > /dev/null
	bytes=$(iperf_bytes "$UNET_PEER_NS" "$H" "$UNET_PEER_ADDR" -n 4M -R)
	ktap_check "${drv}_traffic_both_ways" test "${bytes:-0}" -gt 0
	lim=$(bql limit)
	ktap_info "$drv: BQL limit after 8 MiB up with limit_max 4096: $lim ($acct)"
	ktap_expect_eq "${drv}_bql_accounting_$acct" "$(ue_field "$H" "$UNET_IF" bql_accounting)" $acct
	if [ $acct = active ]; then
		ktap_check "${drv}_cap_held_under_load" test "$lim" -le 4096 -a "$lim" -gt 0
	else
		ktap_expect_eq "${drv}_no_accounting_limit_unmoved" "$lim" 0
	fi

	for k in ntb_tx_max=8192 tx_timer_usecs=100; do
		out=$(ue "$H" set "$UNET_IF" "$k" 2>&1)
		ktap_info "$drv ${k%%=*}: $(grep -v '^errno' <<< "$out" | head -n1)"
		if grep -q '^errno=EOPNOTSUPP' <<< "$out" && grep -q "^err_attr=${k%%=*}\$" <<< "$out" &&
		   { ! extack_formatted || grep -q "is not supported by $UNET_IF (driver $drv)" <<< "$out"; }; then
			ktap_ok "${drv}_${k%%=*}_refused"
		else
			ktap_fail "${drv}_${k%%=*}_refused" "$out"
		fi
	done
	ktap_expect_eq "${drv}_refusals_left_bql" "$(bql limit_max)" 4096

	unet_unplug
	ktap_check "${drv}_del_on_unplug" monitor_expect "^del ifindex=$idx ifname="
	monitor_stop_all
}

nic ecm cdc_ether
nic rndis rndis_host
ktap_finish
