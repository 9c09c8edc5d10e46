#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Refusals name the device, and the kernel keeps at most 79 characters of
# a formatted extack (NETLINK_MAX_FMTMSG_LEN): a longer one loses its end
# and the kernel logs "truncated extack" for every such refusal. udev names
# USB NICs enx + 12 hex digits, the longest name a netdev can have (15
# characters). With that name on an ifb (BQL) and on a real cdc_ncm host
# side, each refusal below arrives whole, as the text the module formats,
# and the kernel log gains no "truncated extack" line. On a kernel without
# formatted extack (6.1) the static messages are checked instead.
source "$(dirname "$0")/lib.sh"

N=enx001122334455
NS=usbeth-el
trap 'ip netns del "$NS" 2>/dev/null; ncm_teardown' EXIT
ktap_plan 7
klog_start=$(dmesg | wc -l)
modprobe ifb numifbs=0 || bail "modprobe ifb"
ip netns add "$NS" || bail "ip netns add $NS"
ip -n "$NS" link add "$N" numtxqueues 1 numrxqueues 1 type ifb ||
	bail "cannot make an ifb named $N"

# refusal NETNS ARGS...: the extack text of a refused `usbethctl set`
refusal() {
	local ns=$1
	shift
	ue "$ns" set "$@" 2>&1 >/dev/null | sed -n 's/^[^:]*: [^:]*: [^:]*: //p'
}
# expect NAME ACTUAL FORMATTED STATIC
expect() {
	if extack_formatted; then ktap_expect_eq "$1" "$2" "$3"; else ktap_expect_eq "$1" "$2" "$4"; fi
}

expect bql_min_above_max_given_both \
	"$(refusal "$NS" "$N" bql_limit_min=1879048192 bql_limit_max=1879048191)" \
	"bql-limit-min 1879048192 is above bql-limit-max 1879048191 on $N" \
	"bql-limit-min is above bql-limit-max"
ue "$NS" set "$N" bql_limit_max=1000 > /dev/null || bail "set bql_limit_max"
expect bql_min_above_queue_max \
	"$(refusal "$NS" "$N" bql_limit_min=1879048192)" \
	"$N tx-0: bql-limit-min 1879048192 > limit_max 1000" \
	"bql-limit-min is above bql-limit-max"

ncm_setup -s super
H=$NCM_HOST_NS
ip -n "$H" link set "$NCM_HOST_IF" down &&
	ip -n "$H" link set "$NCM_HOST_IF" name "$N" || bail "cannot rename the host side to $N"
NCM_HOST_IF=$N
expect ntb_above_device_max \
	"$(refusal "$H" "$N" ntb_rx_max=20000)" \
	"ntb-rx-max 20000 is above the maximum of $N: 16384" \
	"NTB size above the device's maximum (cdc_ncm/dwNtbInMaxSize, dwNtbOutMaxSize)"
expect knob_not_supported \
	"$(refusal "$H" "$N" qmult=5)" \
	"qmult is not supported by $N (driver cdc_ncm)" \
	"knob not supported by this device"
expect no_such_queue \
	"$(refusal "$H" "$N" bql_limit_max=1000 bql_queue=7)" \
	"bql-queue 7: $N has 1 TX queues" \
	"bql-queue: no such TX queue"
ktap_expect_eq nothing_changed "$(sysfs_of "$H" "$N" cdc_ncm/rx_max)" 16384
ktap_expect_eq no_truncated_extack_logged \
	"$(dmesg | tail -n +$((klog_start + 1)) | grep -c 'truncated extack')" 0
ktap_finish
