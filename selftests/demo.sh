#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's main job, run inside the usbeth VM by `make demo`: with the
# module loaded, plug in a USB NCM gadget posing as a DisplayLink dock and
# show what there is to tune: the usbeth family, both ends of the link, and
# the driver knobs usbeth manages.
source "$(dirname "$0")/lib.sh"
trap ncm_teardown EXIT
ktap_plan 1

echo "# --- usbeth generic netlink family"
genl ctrl get name usbeth | sed 's/^/# /'
echo "# --- plugging in a SuperSpeed NCM gadget as 17e9:4301 (DisplayLink)"
ncm_setup -s super -v 0x17e9 -p 0x4301
echo "# --- host side (cdc_ncm), netns $NCM_HOST_NS"
ip -n "$NCM_HOST_NS" -d link show dev "$NCM_HOST_IF" | sed 's/^/# /'
ip netns exec "$NCM_HOST_NS" sh -c "cd /sys/class/net/$NCM_HOST_IF/cdc_ncm &&
	for k in rx_max tx_max tx_timer_usecs dwNtbInMaxSize dwNtbOutMaxSize; do echo \"\$k: \$(cat \$k)\"; done" |
	sed 's/^/#   cdc_ncm\//'
echo "# --- gadget side (u_ether), netns $NCM_GADGET_NS"
ip -n "$NCM_GADGET_NS" -d link show dev "$NCM_GADGET_IF" | sed 's/^/# /'
echo "#   configfs qmult: $(cat "$NCM_FUNC/qmult")"
echo "# --- usbeth get, host side"
ue "$NCM_HOST_NS" get "$NCM_HOST_IF" | sed 's/^/#   /'
echo "# --- usbeth get, gadget side"
ue "$NCM_GADGET_NS" get "$NCM_GADGET_IF" | sed 's/^/#   /'
echo "# --- a conservative system default: 8 KiB NTBs"
ue "$NCM_HOST_NS" set "$NCM_HOST_IF" ntb_rx_max=8192 ntb_tx_max=8192
echo "#   cdc_ncm sysfs now: rx_max=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" cdc_ncm/rx_max) tx_max=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" cdc_ncm/tx_max)"
echo "# --- one atomic usbeth set: NTBs to the device's maximum, as the"
echo "#     DisplayLink profile does on hotplug; the echoed new state:"
max=$(ue_field "$NCM_HOST_NS" "$NCM_HOST_IF" ntb_dev_rx_max)
ue "$NCM_HOST_NS" set -e "$NCM_HOST_IF" ntb_rx_max="$max" ntb_tx_max="$max" tx_timer_usecs=400 |
	grep -E '^(ntb_|tx_timer)' | sed 's/^/#   /'
echo "#   cdc_ncm sysfs now: rx_max=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" cdc_ncm/rx_max) tx_max=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" cdc_ncm/tx_max)"
if ip netns exec "$NCM_HOST_NS" ping -c 3 -i 0.2 -W 5 "$NCM_GADGET_ADDR" | sed 's/^/# /'; then
	ktap_ok ncm_link_up_and_family_registered
else
	ktap_fail ncm_link_up_and_family_registered
fi
ktap_finish
