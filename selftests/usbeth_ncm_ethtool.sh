#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The standard ethtool interface of cdc_ncm and u_ether, and which path
# usbeth takes, on a real USB NCM link.
#
# A kernel with the series in upstream/ (kernel_fixed: 7.3-fixed), or
# cdc_ncm and u_ether built from it and loaded out of tree (taint O), gives
# cdc_ncm ethtool coalesce (tx-aggr-max-bytes, tx-aggr-max-frames,
# tx-aggr-time-usecs, adaptive-tx) and ringparam (rx-buf-len), and u_ether
# ringparam (its request queues). There:
#   - `ethtool -c/-g` read what cdc_ncm's sysfs shows, `ethtool -C/-G`
#     change it; sysfs writes show in ethtool, and its monitor hears of
#     them; refusals keep the value;
#   - tx-aggr-max-frames 1 makes every NTB carry one datagram;
#   - adaptive-tx is off by default, and pings then wait for the TX timer
#     as on any kernel; on, a ping on an idle link leaves as soon as it is
#     handed over (tx_reason_idle);
#   - usbeth sets ntb-tx-max, tx-timer-usecs and ntb-rx-max through those
#     operations: ethtool's monitor hears of each change;
#   - `ethtool -g` on the gadget shows the request queues qmult sizes,
#     refuses a change while a host is connected and makes it otherwise.
# Any other kernel: cdc_ncm and u_ether answer "not supported" to ethtool,
# usbeth sets the same knobs through sysfs, and ethtool's monitor hears
# nothing of it.
#
# ethtool 6.14 (Debian 13's, which scripts/setup.sh unpacks): bookworm's
# 6.1 knows no tx-aggr-*.
source "$(dirname "$0")/lib.sh"

ETHTOOL=${USBETH_ETHTOOL:-${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}/ethtool/usr/sbin/ethtool}
{ [ -x "$ETHTOOL" ] && "$ETHTOOL" -h 2>&1 | grep -q tx-aggr-max-bytes; } ||
	env_missing "no ethtool with tx-aggr-* at $ETHTOOL (USBETH_ETHTOOL; scripts/setup.sh unpacks Debian 13's)"

trap 'kill "$ETM_PID" 2>/dev/null; ncm_teardown' EXIT
ETM_PID=
# cdc_ncm built from upstream/'s series and loaded out of tree
ncm_patched() { grep -qs O /sys/module/cdc_ncm/taint; }
if kernel_fixed || ncm_patched; then ktap_plan 30; else ktap_plan 7; fi
ncm_setup -s super
H=$NCM_HOST_NS D=$NCM_HOST_IF G=$NCM_GADGET_NS GD=$NCM_GADGET_IF
et() { in_ns "$H" "$ETHTOOL" "$@"; }
sys() { sysfs_of "$H" "$D" "cdc_ncm/$1"; }
st() { ethtool_stat "$H" "$D" "$1"; }
# coal FIELD / ring FIELD: one value of `ethtool -c` / `ethtool -g` of D
coal() { et -c "$D" | sed -n "s/^$1:[[:space:]]*//p"; }
ring() { et -g "$D" | sed -n "/^Current/,\$s/^$1:[[:space:]]*//p"; }
gring() { in_ns "$G" "$ETHTOOL" -g "$GD" | sed -n "/^Current/,\$s/^$1:[[:space:]]*//p"; }

# ethtool's monitor in the host netns, its lines in a file (line-buffered:
# it is killed, not ended). A change of usbnet's message level (a standard
# ethtool setting, notified by ethtool core) is the barrier: once the
# monitor shows it, it has shown everything notified before it.
ETM_LOG=$(mktemp)
ip netns exec "$H" stdbuf -oL "$ETHTOOL" --monitor > "$ETM_LOG" 2>&1 &
ETM_PID=$!
wait_line "$ETM_LOG" '^listening' || bail "ethtool --monitor did not start: $(cat "$ETM_LOG")"
DBG_RE="Current message level:"
msglvl=$(et "$D" | sed -n 's/.*Current message level: 0x[0-9a-f]* (\([0-9]*\)).*/\1/p')
[ -n "$msglvl" ] || bail "ethtool $D shows no message level"
bar=0
et_barrier() {
	msglvl=$((msglvl ^ 1))
	et -s "$D" msglvl "$msglvl" || bail "ethtool -s $D msglvl $msglvl: refused"
	bar=$((bar + 1))
	wait_line "$ETM_LOG" "$DBG_RE" "$bar" ||
		bail "ethtool --monitor did not hear the barrier: $(cat "$ETM_LOG")"
}
heard() { grep -c -E "$1" "$ETM_LOG"; }

if ! kernel_fixed && ! ncm_patched; then
	ktap_check host_ethtool_c_no_tx_aggr sh -c "! ip netns exec '$H' '$ETHTOOL' -c '$D' 2>&1 | grep -q tx-aggr"
	ktap_check host_ethtool_g_no_rx_buf_len sh -c "! ip netns exec '$H' '$ETHTOOL' -g '$D' 2>&1 | grep -q 'RX Buf Len'"
	ktap_check gadget_ethtool_g_not_supported sh -c "! ip netns exec '$G' '$ETHTOOL' -g '$GD' > /dev/null 2>&1"
	et_barrier
	n=$(heard "^Coalesce|^Ring")
	ktap_check usbeth_sets_tx_max_via_sysfs ue "$H" set "$D" ntb_tx_max=4096 tx_timer_usecs=250 ntb_rx_max=8192
	ktap_expect_eq sysfs_holds_it "$(sys tx_max) $(sys tx_timer_usecs) $(sys rx_max)" "4097 250 8192"
	et_barrier
	ktap_expect_eq ethtool_heard_nothing "$(heard "^Coalesce|^Ring")" "$n"
	ktap_expect_eq get_agrees "$(ue_field "$H" "$D" ntb_tx_max) $(ue_field "$H" "$D" ntb_rx_max)" "4097 8192"
	ktap_finish
fi

# ---- a kernel with the series: cdc_ncm through ethtool
ktap_expect_eq ethtool_c_is_sysfs "$(coal tx-aggr-max-bytes) $(coal tx-aggr-time-usecs)" \
	"$(sys tx_max) $(sys tx_timer_usecs)"
ktap_expect_eq ethtool_g_is_sysfs "$(ring 'RX Buf Len')" "$(sys rx_max)"
frames=$(coal tx-aggr-max-frames)
ktap_check tx_aggr_max_frames_reported test "${frames:-0}" -ge 1 -a "${frames:-0}" -le 40
ktap_check ethtool_C_tx_aggr et -C "$D" tx-aggr-max-bytes 8192 tx-aggr-time-usecs 250
# a multiple of the bulk packet (1024 at super speed) is padded, as a
# write of tx_max is
ktap_expect_eq ethtool_C_reaches_sysfs "$(sys tx_max) $(sys tx_timer_usecs)" "8193 250"
# a sysfs write shows in ethtool, and its monitor hears of it as of a
# change made through ethtool
et_barrier
c0=$(heard "^Coalesce") r0=$(heard "^Ring")
in_ns "$H" sh -c "echo 300 > /sys/class/net/$D/cdc_ncm/tx_timer_usecs"
ktap_expect_eq sysfs_write_shows_in_ethtool "$(coal tx-aggr-time-usecs) $(coal tx-aggr-max-bytes)" "300 8193"
ktap_check ethtool_G_rx_buf_len et -G "$D" rx-buf-len 8192
ktap_expect_eq ethtool_G_reaches_sysfs "$(sys rx_max) $(ring 'RX Buf Len')" "8192 8192"
in_ns "$H" sh -c "echo 300 > /sys/class/net/$D/cdc_ncm/tx_timer_usecs"
in_ns "$H" sh -c "echo 4096 > /sys/class/net/$D/cdc_ncm/rx_max"
et_barrier
ktap_expect_eq sysfs_writes_heard "$(($(heard "^Coalesce") - c0)) $(($(heard "^Ring") - r0))" "1 2"
# above what the gadget advertises (16384), below an NTB's minimum: refused
ktap_check rx_buf_len_above_device_refused sh -c "! ip netns exec '$H' '$ETHTOOL' -G '$D' rx-buf-len 32768"
ktap_check tx_aggr_bytes_below_min_refused sh -c "! ip netns exec '$H' '$ETHTOOL' -C '$D' tx-aggr-max-bytes 100"
ktap_check tx_aggr_frames_zero_refused sh -c "! ip netns exec '$H' '$ETHTOOL' -C '$D' tx-aggr-max-frames 0"
ktap_expect_eq refusals_keep_values "$(sys rx_max) $(sys tx_max) $(coal tx-aggr-max-frames)" "4096 8193 $frames"

# tx-aggr-max-frames 1: one datagram an NTB, under bulk traffic too
ktap_check ethtool_C_frames_1 et -C "$D" tx-aggr-max-frames 1
n0=$(st tx_ntbs) p0=$(sysfs_of "$H" "$D" statistics/tx_packets)
iperf_bytes "$G" "$H" "$NCM_GADGET_ADDR" -n 1M > /dev/null
n1=$(st tx_ntbs) p1=$(sysfs_of "$H" "$D" statistics/tx_packets)
ktap_info "frames 1: $((n1 - n0)) NTBs for $((p1 - p0)) datagrams"
ktap_check one_datagram_per_ntb test $((n1 - n0)) -eq $((p1 - p0)) -a $((p1 - p0)) -ge 100
ktap_check ethtool_C_frames_back et -C "$D" tx-aggr-max-frames "$frames"

# adaptive TX coalescing: off by default, when pings wait for the timer
# (set long); on, a lone ping on an idle link leaves at once
adaptive() { et -c "$D" | sed -n 's/^Adaptive RX:.*TX:[[:space:]]*//p'; }
ktap_expect_eq adaptive_tx_off_by_default "$(adaptive)" off
in_ns "$H" sh -c "echo 4000 > /sys/class/net/$D/cdc_ncm/tx_timer_usecs"
# pings_sent_by NAME: 20 pings on the idle link; the NTBs sent at once
# in m, by the timer in t
pings_sent_by() {
	local m0 t0
	m0=$(st tx_reason_idle) t0=$(st tx_reason_timeout)
	in_ns "$H" ping -q -c 20 -i 0.05 "$NCM_GADGET_ADDR" > /dev/null
	m=$(($(st tx_reason_idle) - m0)) t=$(($(st tx_reason_timeout) - t0))
	ktap_info "20 pings, adaptive-tx $1: $m NTBs sent at once on the idle link, $t by the timer"
}
pings_sent_by off
ktap_check adaptive_off_pings_wait_for_the_timer test "$m" -eq 0 -a "$t" -ge 15
ktap_check ethtool_C_adaptive_tx_on et -C "$D" adaptive-tx on
pings_sent_by on
ktap_check adaptive_on_pings_leave_at_once test "$m" -ge 20 -a "$t" -lt 5
ktap_check ethtool_C_adaptive_tx_off et -C "$D" adaptive-tx off

# usbeth takes the ethtool path: ethtool's listeners hear of each change
et_barrier
c0=$(heard "^Coalesce") r0=$(heard "^Ring")
ktap_check usbeth_set_tx_knobs ue "$H" set "$D" ntb_tx_max=4096 tx_timer_usecs=250
ktap_check usbeth_set_rx_max ue "$H" set "$D" ntb_rx_max=16384
et_barrier
ktap_expect_eq ethtool_heard_usbeth "$(($(heard "^Coalesce") - c0)) $(($(heard "^Ring") - r0))" "2 1"
ktap_expect_eq usbeth_values_in_ethtool_and_sysfs \
	"$(coal tx-aggr-max-bytes) $(coal tx-aggr-time-usecs) $(ring 'RX Buf Len') $(sys tx_max) $(sys rx_max)" \
	"4097 250 16384 4097 16384"

# u_ether: the request queues, qmult * 2 per endpoint at super speed
q=$(cat "$NCM_FUNC/qmult")
ktap_expect_eq gadget_ethtool_g_in_effect "$(gring RX) $(gring TX)" "$((q * 2)) $((q * 2))"
ktap_check gadget_ethtool_G_refused_connected \
	sh -c "! ip netns exec '$G' '$ETHTOOL' -G '$GD' rx 8 tx 8"
ncm_unplug
ktap_check gadget_ethtool_G_unplugged in_ns "$G" "$ETHTOOL" -G "$GD" rx 8 tx 8
ktap_expect_eq configfs_qmult_follows "$(cat "$NCM_FUNC/qmult")" 4
ncm_plug
ktap_expect_eq gadget_ethtool_g_after_connect "$(gring RX) $(gring TX)" "8 8"
ktap_finish
