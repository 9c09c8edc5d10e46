#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd on a USB NIC that is not NCM: QEMU's usb-net, plugged in and
# pulled out at run time through the VM's monitor (lib.sh: unet_*), with a
# profile that matches it by driver (cdc_ether or rndis_host) and sets BQL
# knobs, which every usbnet driver has. In the initial netns, where the
# daemon runs:
#   - a NIC present at start gets the profile; the daemon's stop puts every
#     value back (read from byte_queue_limits/ and the netdev's sysfs);
#   - a NIC plugged while the daemon runs gets it on the hotplug, in each
#     configuration (cdc_ether, then rndis_host);
#   - pulling the NIC out drops its record, in memory and on disk;
#   - the daemon's stop restores a NIC it configured on a hotplug.
source "$(dirname "$0")/lib.sh"

D=$USBETHD
W=/tmp/usbethd-usbnet
BUILTIN=$W/builtin ADMIN=$W/admin RUN=$W/run LOG=$W/daemon.log
DPID= DFD=

need_usbeth_prog USBETHD
cleanup() {
	local rc=$?
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	daemon_log_if_failed $rc
	unet_teardown
}
trap cleanup EXIT
source "$(dirname "$0")/usbethd_lib.sh"
daemon_dirs || bail "cannot stage the shipped profiles in $W"
cat > "$ADMIN/usbnet-nic.json" <<'EOF'
{
	"description": "test: a usbnet NIC by its driver",
	"match": { "driver": ["cdc_ether", "rndis_host"], "role": "host" },
	"settings": { "bql-limit-max": 6000, "bql-limit-min": 1500, "txqueuelen": 300 }
}
EOF
chmod 0644 "$ADMIN/usbnet-nic.json"

ktap_plan 15
unet_setup
q() { sysnet "$UNET_IF" "queues/tx-0/byte_queue_limits/$1"; }
held() { echo "$(q limit_max) $(q limit_min) $(sysnet "$UNET_IF" tx_queue_len)"; }
records() { find "$RUN" -name '*dev-*' | wc -l; }
WANT="6000 1500 300"

# --- present at start
unet_attach
orig=$(held)
ktap_info "$UNET_DRIVER $UNET_IF before the daemon: $orig"
daemon_start
if applied usbnet-nic; then ktap_ok start_covers_present_nic; else ktap_fail start_covers_present_nic; fi
ktap_expect_eq start_applied_to_the_nic "$APPLIED" "$UNET_IF"
ktap_expect_eq start_values_in_sysfs "$(held)" "$WANT"
ktap_expect_eq start_record_on_disk "$(records)" 1
daemon_stop
ktap_expect_eq stop_restores_present_nic "$(held)" "$orig"
ktap_expect_eq stop_leaves_no_record "$(records)" 0

# --- hotplug, cdc_ether: pulled out, then plugged in with the daemon running
unet_unplug
daemon_start
dexpect "^ready: " > /dev/null || bail "the daemon did not start"
dmark
unet_attach
if applied usbnet-nic; then ktap_ok hotplug_cdc_ether; else ktap_fail hotplug_cdc_ether; fi
ktap_expect_eq hotplug_cdc_ether_values "$APPLIED $(held)" "$UNET_IF $WANT"
dmark
gone=$UNET_IF
unet_unplug
ktap_check unplug_drops_record dexpect "^$gone: gone, record dropped \(profile usbnet-nic\)"
ktap_expect_eq unplug_record_off_disk "$(records)" 0

# --- hotplug, rndis_host: the kernel binds cdc_ether first (configuration
# 1), which gets the profile; selecting the RNDIS one (2) unbinds it,
# its record goes, and rndis_host's netdev is a new device
dmark
unet_attach
applied usbnet-nic || bail "the replugged cdc_ether NIC got no profile"
dmark
gone=$UNET_IF
unet_select_rndis
dexpect "^$gone: gone, record dropped \(profile usbnet-nic\)" > /dev/null ||
	bail "no record dropped for the cdc_ether netdev the configuration change removed"
dmark
if applied usbnet-nic; then ktap_ok hotplug_rndis_host; else ktap_fail hotplug_rndis_host; fi
ktap_expect_eq hotplug_rndis_host_values "$APPLIED $(held)" "$UNET_IF $WANT"
ktap_expect_eq rndis_host_driver "$(link_driver "$UNET_IF")" rndis_host
daemon_stop
ktap_expect_eq stop_restores_hotplugged_nic "$(held)" "$orig"
ktap_expect_eq stop_after_hotplug_leaves_no_record "$(records)" 0
ktap_finish
