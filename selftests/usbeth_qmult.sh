#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qmult of a u_ether gadget through usbeth: the value reaches u_ether (read
# back through the function's configfs qmult, which asks u_ether), takes
# effect at the next connect (QMULT_ACTIVE), and knobs of the other side are
# refused naming the driver.
source "$(dirname "$0")/lib.sh"

trap ncm_teardown EXIT
ktap_plan 13
ncm_setup -s super -q 1
G=$NCM_GADGET_NS D=$NCM_GADGET_IF

ktap_expect_eq qmult_initial "$(ue_field "$G" "$D" qmult)" 1
ktap_expect_eq active_since_connect "$(ue_field "$G" "$D" qmult_active)" 1
ktap_check set_qmult_5 ue "$G" set "$D" qmult=5
ktap_expect_eq qmult_in_configfs "$(cat "$NCM_FUNC/qmult")" 5
ktap_expect_eq get_configured_5 "$(ue_field "$G" "$D" qmult)" 5
ktap_expect_eq not_in_effect_before_reconnect "$(ue_field "$G" "$D" qmult_active)" 1
ncm_unplug
ktap_expect_eq no_active_while_unplugged "$(ue_field "$G" "$D" qmult_active)" ""
ncm_plug
ktap_expect_eq in_effect_after_reconnect "$(ue_field "$G" "$D" qmult_active)" 5
ktap_check traffic_after_reconnect ip netns exec "$NCM_HOST_NS" ping -c 3 -i 0.2 -W 5 "$NCM_GADGET_ADDR"
# 6.1's u_ether exposes no counter of its request pools or queue stops, so
# the TX path effect of qmult is measured as throughput by `make bench`,
# not asserted here.
ktap_info "u_ether on 6.1 exposes no per-request counters: qmult's TX effect is a benchmark, not a test"

ktap_expect_eq qmult_0_refused "$(ue "$G" set "$D" qmult=0 2>/dev/null | sed -n 's/^errno=//p')" ERANGE
ktap_expect_eq qmult_101_refused "$(ue "$G" set "$D" qmult=101 2>/dev/null | sed -n 's/^errno=//p')" ERANGE
out=$(ue "$NCM_HOST_NS" set "$NCM_HOST_IF" qmult=5 2>&1)
# the driver named where the kernel keeps formatted extack (lib.sh)
if extack_formatted; then drv_re='qmult.*cdc_ncm'; else drv_re='knob not supported by this device'; fi
if grep -q '^errno=EOPNOTSUPP' <<< "$out" && grep -q '^err_attr=qmult$' <<< "$out" &&
   grep -q "$drv_re" <<< "$out"; then
	ktap_ok qmult_on_host_side_refused
else
	ktap_fail qmult_on_host_side_refused "$out"
fi
out=$(ue "$G" set "$D" ntb_tx_max=8192 2>&1)
ktap_check ntb_on_gadget_refused grep -q '^errno=EOPNOTSUPP' <<< "$out"
ktap_finish
