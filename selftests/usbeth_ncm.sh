#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cdc_ncm knobs through usbeth on a real USB NCM link, checked through the
# driver's own sysfs and its `ethtool -S` counters:
#   - ntb-tx-max: a smaller NTB means more NTBs for the same bytes; the
#     value cdc_ncm pads by one byte is the same NTB size in either form;
#   - ntb-rx-max: reaches the driver (which sends SET_NTB_INPUT_SIZE), and a
#     value above the gadget's advertised 16384 is refused naming the max;
#   - tx-timer-usecs: 0 sends every frame at once (no timer flushes), a
#     timer value makes sparse traffic wait for the timer;
#   - an invalid last knob leaves the device exactly as it was.
source "$(dirname "$0")/lib.sh"

trap ncm_teardown EXIT
ktap_plan 18
ncm_setup -s super
H=$NCM_HOST_NS D=$NCM_HOST_IF
sys() { sysfs_of "$H" "$D" "cdc_ncm/$1"; }
st() { ethtool_stat "$H" "$D" "$1"; }
sys_stat() { sysfs_of "$H" "$D" "statistics/$1"; }

# ntb-tx-max: bulk host->gadget traffic at the default and at 4 KiB NTBs.
# Prints "NTBS BYTES": the NTBs and the payload bytes the host's driver
# sent, both its own counters, so a transfer that did not complete, or
# one iperf_bytes ran again, still compares per byte (CI once saw 447
# NTBs for a "4 MiB" that cannot have been 4 MiB at 4 KiB an NTB).
ntbs_for_4m() {
	local n0 b0 n1 b1
	n0=$(st tx_ntbs) b0=$(sys_stat tx_bytes)
	iperf_bytes "$NCM_GADGET_NS" "$H" "$NCM_GADGET_ADDR" -n 4M > /dev/null
	n1=$(st tx_ntbs) b1=$(sys_stat tx_bytes)
	echo "$((n1 - n0)) $((b1 - b0))"
}
ktap_check set_ntb_tx_max_16384 ue "$H" set "$D" ntb_tx_max=16384
ktap_expect_eq ntb_tx_max_16384_in_sysfs "$(sys tx_max)" 16384
big=$(ntbs_for_4m)
ktap_check set_ntb_tx_max_4096 ue "$H" set "$D" ntb_tx_max=4096
tx=$(sys tx_max)
# cdc_ncm adds a pad byte to a multiple of the bulk packet (1024 at super
# speed), unless it is dwNtbOutMaxSize (16384 here, hence unpadded above)
ktap_expect_eq ntb_tx_max_4096_padded_in_sysfs "$tx" 4097
ktap_expect_eq get_reports_driver_tx_max "$(ue_field "$H" "$D" ntb_tx_max)" "$tx"
# the same NTB size in the user's form or the driver's is no change (no
# CHANGE, so no echo) and is written as the driver's store takes it
out=$(ue "$H" set -e "$D" ntb_tx_max=4096)
ktap_expect_eq same_size_unpadded_no_change "$(grep -c '^ifname=' <<< "$out")" 0
out=$(ue "$H" set -e "$D" ntb_tx_max=4097)
ktap_expect_eq same_size_padded_no_change "$(grep -c '^ifname=' <<< "$out") $(sys tx_max)" "0 4097"
small=$(ntbs_for_4m)
read -r bn bb <<< "$big"
read -r sn sb <<< "$small"
ktap_info "NTBs (tx_ntbs): $bn for $bb bytes sent at tx_max 16384, $sn for $sb bytes at tx_max $tx"
# at least 1.5 times the NTBs per byte (4 times, were every NTB full),
# over at least 1 MiB each (a transfer, not its handshake). That needs a
# sender that fills the larger NTBs beyond the smaller size before the TX
# timer sends them: a KASAN kernel under TCG does not (its 16 KiB NTBs
# went out at about 4 KiB, the timer's share, as its 4 KiB ones did)
if [ "$bn" -gt 0 ] && [ $((bb / bn)) -le "$tx" ] && kasan_kernel; then
	ktap_skip smaller_ntb_means_more_ntbs \
		"NTBs at tx_max 16384 averaged $((bb / bn)) bytes, no more than $tx: the TX timer, not the size, ended them (KASAN under TCG)"
else
	ktap_check smaller_ntb_means_more_ntbs test "$bb" -ge 1048576 -a "$sb" -ge 1048576 -a \
		$((sn * bb * 2)) -gt $((bn * sb * 3))
fi

# ntb-rx-max: within the gadget's maximum it reaches the driver ...
ktap_check set_ntb_rx_max_8192 ue "$H" set "$D" ntb_rx_max=8192
ktap_expect_eq ntb_rx_max_in_sysfs "$(sys rx_max)" 8192
# ... above it is refused, naming the maximum (6.1: a static message)
err=$(ue "$H" set "$D" ntb_rx_max=20000 2>&1 >/dev/null)
ktap_info "refusal: $err"
if extack_formatted; then
	ktap_check over_max_names_max grep -q "maximum of $D: 16384" <<< "$err"
else
	ktap_check over_max_static_message grep -q "above the device's maximum" <<< "$err"
fi
ktap_expect_eq over_max_left_rx_max "$(sys rx_max)" 8192

# tx-timer-usecs: sparse pings wait for the timer only when it is on
timeouts_for_pings() {
	local before after
	before=$(st tx_reason_timeout)
	ip netns exec "$H" ping -c 5 -i 0.2 -W 5 "$NCM_GADGET_ADDR" > /dev/null
	after=$(st tx_reason_timeout)
	echo $((after - before))
}
ktap_check set_tx_timer_0 ue "$H" set "$D" tx_timer_usecs=0
ktap_expect_eq timer_off_no_timeouts "$(timeouts_for_pings)" 0
ue "$H" set "$D" tx_timer_usecs=400
ktap_expect_eq tx_timer_in_sysfs "$(sys tx_timer_usecs)" 400
# (a cdc_ncm with upstream/'s adaptive TX coalescing sends them at once
# only when that is on: usbeth_ncm_ethtool.sh)
ktap_check timer_on_timeouts test "$(timeouts_for_pings)" -gt 0

# atomic: valid knobs then an invalid last one: nothing changes
before="$(sys rx_max) $(sys tx_max) $(sys tx_timer_usecs)"
out=$(ue "$H" set "$D" ntb_rx_max=4096 ntb_tx_max=8192 tx_timer_usecs=3 2>&1)
ktap_info "refusal: $(grep -v '^errno' <<< "$out")"
ktap_check invalid_last_knob_refused grep -q '^errno=ERANGE' <<< "$out"
ktap_expect_eq invalid_last_knob_changed_nothing "$(sys rx_max) $(sys tx_max) $(sys tx_timer_usecs)" "$before"
ktap_finish
