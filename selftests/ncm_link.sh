#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The USB NCM test link is real and passes traffic both ways: a configfs NCM
# gadget on dummy_hcd (SuperSpeed) against the host's cdc_ncm, each side in
# its own netns. Unplug takes the host netdev away; plug brings the link back.
# Also checks the gadget's identity (VID:PID, speed) and qmult parameter reach
# the drivers, since later tests rely on them.
source "$(dirname "$0")/lib.sh"

trap ncm_teardown EXIT
ktap_plan 14
ncm_setup -s super -v 0x17e9 -p 0x4301 -q 3

host_dev() { readlink -f "/sys/class/net/$NCM_HOST_IF/device/.."; }
# The host netdev lives in another netns: read its sysfs through that netns.
in_host() { ip netns exec "$NCM_HOST_NS" "$@"; }
in_gadget() { ip netns exec "$NCM_GADGET_NS" "$@"; }

ktap_expect_eq host_driver "$(link_driver "$NCM_HOST_NS" "$NCM_HOST_IF")" cdc_ncm
ktap_expect_eq gadget_driver "$(link_driver "$NCM_GADGET_NS" "$NCM_GADGET_IF")" g_ether
usbdev=$(in_host sh -c "readlink -f /sys/class/net/$NCM_HOST_IF/device/..")
ktap_expect_eq host_sees_vid_pid "$(cat "$usbdev/idVendor"):$(cat "$usbdev/idProduct")" 17e9:4301
ktap_expect_eq usb_speed_super "$(cat "$usbdev/speed")" 5000
ktap_expect_eq gadget_qmult "$(cat "$NCM_FUNC/qmult")" 3

ktap_check ping_host_to_gadget in_host ping -c 3 -i 0.2 -W 5 "$NCM_GADGET_ADDR"
ktap_check ping_gadget_to_host in_gadget ping -c 3 -i 0.2 -W 5 "$NCM_HOST_ADDR"

# Bulk traffic each way, bounded by bytes (TCG is slow and noisy): the
# transfer must complete (iperf_bytes fails otherwise) with bytes counted at
# the receiver. (Its count is taken when the sender finishes, so under load
# it trails what TCP delivered: no threshold on it.)
bytes=$(iperf_bytes "$NCM_GADGET_NS" "$NCM_HOST_NS" "$NCM_GADGET_ADDR" -n 4M)
ktap_check iperf_host_to_gadget test "${bytes:-0}" -gt 0
bytes=$(iperf_bytes "$NCM_GADGET_NS" "$NCM_HOST_NS" "$NCM_GADGET_ADDR" -n 2M -R)
ktap_check iperf_gadget_to_host test "${bytes:-0}" -gt 0

old_if=$NCM_HOST_IF
ncm_unplug
ktap_check unplug_removes_host_netdev sh -c "! ip -n $NCM_HOST_NS link show dev $old_if"
ktap_check ping_fails_unplugged sh -c "! ip netns exec $NCM_GADGET_NS ping -c 1 -W 1 $NCM_HOST_ADDR"
ncm_plug
ktap_expect_eq replug_host_driver "$(link_driver "$NCM_HOST_NS" "$NCM_HOST_IF")" cdc_ncm
ktap_check replug_ping in_host ping -c 3 -i 0.2 -W 5 "$NCM_GADGET_ADDR"
ncm_unplug
ncm_plug
ktap_check second_replug_ping in_gadget ping -c 3 -i 0.2 -W 5 "$NCM_HOST_ADDR"
ktap_finish
