#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# BQL and ethtool coalescing through usbeth on e1000e (a driver that does
# BQL accounting and has coalesce ops), checked through byte_queue_limits/
# and `ethtool -c`:
#   - bql-limit-max holds the dynamic limit down under iperf3 load;
#   - limit-min, hold-time, one queue by index; min above max is refused;
#   - rx-usecs round trip; tx-usecs (not in e1000e's supported_coalesce_params)
#     refused with EOPNOTSUPP naming the driver;
#   - a set whose last knob the driver refuses puts back the knobs before it.
source "$(dirname "$0")/lib.sh"

trap e1k_teardown EXIT
ktap_plan 18
e1k_setup
A=$E1K_A_NS D=$E1K_A_IF
bql() { sysfs_of "$A" "$D" "queues/tx-0/byte_queue_limits/$1"; }
rx_usecs() { ip netns exec "$A" ethtool -c "$D" | sed -n 's/^rx-usecs: *//p'; }

ktap_check set_bql_limit_max ue "$A" set "$D" bql_limit_max=20000
ktap_expect_eq bql_limit_max_in_sysfs "$(bql limit_max)" 20000
iperf_bytes "$E1K_B_NS" "$A" "$E1K_B_ADDR" -n 16M > /dev/null
lim=$(bql limit)
ktap_info "BQL limit after 16 MiB with limit_max 20000: $lim"
ktap_check limit_held_under_load test "$lim" -le 20000 -a "$lim" -gt 0
ktap_expect_eq get_reports_accounting_active "$(ue_field "$A" "$D" bql_accounting)" active
ktap_expect_eq get_reports_limit "$(ue_field "$A" "$D" bql.0.limit)" "$(bql limit)"

ktap_check set_min_and_hold ue "$A" set "$D" bql_limit_min=3000 bql_hold_time=1000
ktap_expect_eq min_hold_in_sysfs "$(bql limit_min) $(bql hold_time)" "3000 1000"
# BQL keeps the hold time in jiffies: a value that rounds to what it holds
# (1001 ms again, read back as 1004 at HZ=250) changes nothing: no rewrite,
# no echo, no CHANGE
ktap_check set_hold_1001 ue "$A" set "$D" bql_hold_time=1001
out=$(ue "$A" set -e "$D" bql_hold_time=1001)
if grep -q '^ifname=' <<< "$out"; then
	ktap_fail hold_time_rounding_is_no_change "echoed: a rewrite and a CHANGE"
else
	ktap_ok hold_time_rounding_is_no_change
fi
ue "$A" set "$D" bql_hold_time=1000 > /dev/null
ktap_check set_one_queue ue "$A" set "$D" bql_queue=0 bql_limit_max=40000
ktap_expect_eq one_queue_in_sysfs "$(bql limit_max)" 40000
out=$(ue "$A" set "$D" bql_limit_min=50000 2>&1)
ktap_check min_above_max_refused grep -q '^errno=EINVAL' <<< "$out"

orig=$(rx_usecs)
ktap_check set_rx_usecs ue "$A" set "$D" rx_usecs=100
ktap_expect_eq rx_usecs_in_ethtool "$(rx_usecs)" 100
out=$(ue "$A" set "$D" tx_usecs=10 2>&1)
ktap_info "refusal: $(grep -v '^errno' <<< "$out")"
ktap_check tx_usecs_unsupported grep -q '^errno=EOPNOTSUPP' <<< "$out"
# the driver named where the kernel keeps formatted extack (lib.sh); the
# knob is pointed at by the attribute on every kernel
if extack_formatted; then drv_re=e1000e; else drv_re="knob not supported by this device"; fi
ktap_check tx_usecs_refusal_names_driver grep -q "$drv_re" <<< "$out"

# rollback: bql-limit-max is applied first, then e1000e refuses rx-usecs 2
before="$(bql limit_max) $(bql limit_min) $(rx_usecs)"
out=$(ue "$A" set "$D" bql_limit_max=90000 rx_usecs=2 2>&1)
ktap_info "refusal: $(grep -v '^errno' <<< "$out")"
if grep -q '^errno=' <<< "$out" && grep -q '^err_attr=rx_usecs$' <<< "$out" &&
   { ! extack_formatted || grep -q 'rx-usecs 2: ' <<< "$out"; }; then
	ktap_ok driver_refusal_names_knob
else
	ktap_fail driver_refusal_names_knob "$out"
fi
ktap_expect_eq failed_set_rolled_back "$(bql limit_max) $(bql limit_min) $(rx_usecs)" "$before"
ue "$A" set "$D" rx_usecs="$orig" > /dev/null
ktap_finish
