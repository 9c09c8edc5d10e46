#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# BQL on the USB NCM link's host side (cdc_ncm over usbnet), through usbeth,
# checked in the TX queue's byte_queue_limits while iperf3 fills the link.
# What is true depends on the kernel, and the test asserts each kernel's
# truth: usbnet does BQL accounting from 6.19 (Debian 13 backports' 7.3),
# not before (6.1, 6.12), as usbnet.ko itself shows (lib.sh:
# usbnet_does_bql).
#   - with accounting, bql-limit-max caps the dynamic limit: under load the
#     limit never exceeds it, GET says "active". Inflight may pass the cap
#     (by up to 73 KB measured on 7.3 with 16 KiB NTBs): BQL stops the
#     queue only once the limit is crossed, and the segments of one GSO
#     packet go out together, so it is reported, not bounded;
#   - without it, the cap reaches the same files and changes nothing:
#     inflight stays 0 under load, GET says "none".
source "$(dirname "$0")/lib.sh"

trap ncm_teardown EXIT
ktap_plan 8
ncm_setup -s super
H=$NCM_HOST_NS D=$NCM_HOST_IF
bql=queues/tx-0/byte_queue_limits
cap=8192

# sample_bql_under_load: one iperf3 upload host -> gadget while a sampler
# in the host's netns reads limit and inflight as fast as it can; prints
# "MAX_LIMIT MAX_INFLIGHT SAMPLES".
sample_bql_under_load() {
	local stop
	stop=$(mktemp -u /tmp/bql-stop.XXXXXX)
	ip netns exec "$H" bash -c '
		d=/sys/class/net/$1/$2 stop=$3 ml=0 mi=0 n=0
		until [ -e "$stop" ]; do
			read -r l < "$d/limit"; read -r i < "$d/inflight"
			[ "$l" -gt $ml ] && ml=$l
			[ "$i" -gt $mi ] && mi=$i
			n=$((n + 1))
		done
		echo "$ml $mi $n"' sh "$D" "$bql" "$stop" > "$stop.out" &
	local sampler=$!
	iperf_bytes "$NCM_GADGET_NS" "$H" "$NCM_GADGET_ADDR" -n 16M > /dev/null
	local rc=$?
	touch "$stop"
	wait $sampler
	cat "$stop.out"
	rm -f "$stop" "$stop.out"
	return $rc
}

# The cap first, on a fresh link: BQL applies limit_max when it recomputes
# the limit at a TX completion, so a limit grown larger before the cap was
# set would show until the next completion (net-sysfs's limit_max acts the
# same way).
ktap_check set_bql_limit_max ue "$H" set "$D" bql_limit_max=$cap
ktap_expect_eq limit_max_in_sysfs "$(sysfs_of "$H" "$D" "$bql/limit_max")" $cap
ktap_expect_eq get_reports_limit_max "$(ue_field "$H" "$D" bql.0.limit_max)" $cap
if capped=$(sample_bql_under_load); then
	ktap_ok traffic_with_cap
else
	ktap_fail traffic_with_cap "iperf3 over the NCM link failed"
fi
read -r cap_limit cap_inflight cap_n <<< "$capped"
ntb=$(sysfs_of "$H" "$D" cdc_ncm/tx_max)
ktap_info "cap $cap: limit up to $cap_limit, inflight up to $cap_inflight ($cap_n samples, NTB $ntb bytes)"
acct=$(ue_field "$H" "$D" bql_accounting)

if usbnet_does_bql; then
	ktap_info "kernel $(uname -r): usbnet does BQL accounting"
	ktap_expect_eq bql_accounting_active "$acct" active
	ktap_check inflight_seen_under_load test "${cap_inflight:-0}" -gt 0
	ktap_check limit_never_above_cap test "${cap_limit:-0}" -le $cap
else
	ktap_info "kernel $(uname -r): usbnet does no BQL accounting"
	ktap_expect_eq bql_accounting_none "$acct" none
	ktap_expect_eq no_inflight_under_load "${cap_inflight:-x}" 0
	ktap_expect_eq limit_never_moved "${cap_limit:-x}" 0
fi

ue "$H" set "$D" bql_limit_max=1879048192 > /dev/null
ktap_expect_eq limit_max_put_back "$(sysfs_of "$H" "$D" "$bql/limit_max")" 1879048192
# The driver's own limit, with no cap, under the same load (for the record).
if free=$(sample_bql_under_load); then
	read -r free_limit free_inflight free_n <<< "$free"
	ktap_info "no cap: limit up to $free_limit, inflight up to $free_inflight ($free_n samples)"
fi
ktap_finish
