#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbeth GET and dump report identity, capabilities and every knob as the
# driver holds it, on the real drivers: cdc_ncm (USB host side), u_ether
# (gadget side) and e1000e. Device lookup is by ifname or ifindex in the
# caller's netns only; GET needs no privilege, SET does.
source "$(dirname "$0")/lib.sh"

cleanup() { ncm_teardown; e1k_teardown; }
trap cleanup EXIT
ktap_plan 29
ncm_setup -s super -v 0x17e9 -p 0x4301 -q 3
e1k_setup
H=$NCM_HOST_NS G=$NCM_GADGET_NS

ktap_check family_resolves_via_lib ue family
out=$(ue "$H" get "$NCM_HOST_IF")
f() { sed -n "s/^$1=//p" <<< "$out" | head -n1; }
usbdir=$(ip netns exec "$H" sh -c "readlink -f /sys/class/net/$NCM_HOST_IF/device/..")
ktap_expect_eq host_role "$(f role)" usb-host
ktap_expect_eq host_driver "$(f driver)" cdc_ncm
ktap_expect_eq host_vid_pid "$(f usb_vid):$(f usb_pid)" 17e9:4301
ktap_expect_eq host_speed "$(f usb_speed)" super
ktap_expect_eq host_usb_path "$(f usb_path)" "$(basename "$usbdir")"
ktap_expect_eq host_busnum "$(f usb_busnum)" "$(cat "$usbdir/busnum")"
ktap_check host_caps_ntb_timer grep -qE '^caps=0x[0-9a-f]+ .*ntb.*tx-timer' <<< "$out"
for k in rx_max tx_max tx_timer_usecs; do
	key=$k
	case $k in rx_max) key=ntb_rx_max ;; tx_max) key=ntb_tx_max ;; esac
	ktap_expect_eq "host_${key}_matches_sysfs" "$(f "$key")" "$(sysfs_of "$H" "$NCM_HOST_IF" "cdc_ncm/$k")"
done
ktap_expect_eq host_dev_rx_max "$(f ntb_dev_rx_max)" "$(sysfs_of "$H" "$NCM_HOST_IF" cdc_ncm/dwNtbInMaxSize)"
ktap_expect_eq host_dev_tx_max "$(f ntb_dev_tx_max)" "$(sysfs_of "$H" "$NCM_HOST_IF" cdc_ncm/dwNtbOutMaxSize)"
# after traffic, BQL accounting is what the kernel's usbnet does: none
# before 6.19 (6.1, 6.12), active from it (7.3); see lib.sh
acct=none
usbnet_does_bql && acct=active
ip netns exec "$H" ping -c 2 -i 0.2 -W 5 "$NCM_GADGET_ADDR" > /dev/null
ktap_expect_eq "host_bql_accounting_$acct" "$(ue_field "$H" "$NCM_HOST_IF" bql_accounting)" $acct

out=$(ue "$G" get "$NCM_GADGET_IF")
ktap_expect_eq gadget_role "$(f role)" usb-gadget
ktap_expect_eq gadget_udc "$(f gadget_udc)" "$NCM_UDC"
ktap_expect_eq gadget_speed "$(f usb_speed)" super
ktap_expect_eq gadget_qmult_matches_configfs "$(f qmult)" "$(cat "$NCM_FUNC/qmult")"
ktap_check gadget_caps_qmult grep -qE '^caps=0x[0-9a-f]+ .*qmult' <<< "$out"

out=$(ue "$E1K_A_NS" get "$E1K_A_IF")
rxu=$(ip netns exec "$E1K_A_NS" ethtool -c "$E1K_A_IF" | sed -n 's/^rx-usecs: *//p')
ktap_expect_eq e1000e_role "$(f role)" other
ktap_expect_eq e1000e_rx_usecs_matches_ethtool "$(f rx_usecs)" "$rxu"
ktap_expect_eq e1000e_bql_limit_max_matches_sysfs "$(f bql.0.limit_max)" \
	"$(sysfs_of "$E1K_A_NS" "$E1K_A_IF" queues/tx-0/byte_queue_limits/limit_max)"
if grep -q '^tx_usecs=' <<< "$out"; then ktap_fail e1000e_no_tx_usecs_cap; else ktap_ok e1000e_no_tx_usecs_cap; fi

# lookup: by ifindex too; exactly one of ifindex/ifname; caller's netns only
idx=$(ip netns exec "$E1K_A_NS" cat "/sys/class/net/$E1K_A_IF/ifindex")
ktap_expect_eq get_by_ifindex "$(ue_field "$E1K_A_NS" "$idx" ifname)" "$E1K_A_IF"
ktap_expect_eq other_netns_invisible "$(ue get "$E1K_A_IF" 2>/dev/null | sed -n 's/^errno=//p')" ENODEV
n=$(ue "$E1K_A_NS" dump | sed -n 's/^count=\([0-9]*\).*/\1/p')
ktap_expect_eq dump_sees_own_netns_only "$n" "$(ip -n "$E1K_A_NS" -o link | wc -l)"

# privilege: get allowed, set refused with EPERM for an unprivileged user
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
ktap_check unprivileged_get ip netns exec "$E1K_A_NS" "${nobody[@]}" "$USBETHCTL" get "$E1K_A_IF"
ktap_expect_eq unprivileged_set_eperm \
	"$(ip netns exec "$E1K_A_NS" "${nobody[@]}" "$USBETHCTL" set "$E1K_A_IF" rx_usecs=50 2>/dev/null | sed -n 's/^errno=//p')" EPERM
ktap_expect_eq unprivileged_set_changed_nothing \
	"$(ip netns exec "$E1K_A_NS" ethtool -c "$E1K_A_IF" | sed -n 's/^rx-usecs: *//p')" "$rxu"
ktap_finish
