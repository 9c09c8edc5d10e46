#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A SET of several coalesce knobs is one ethtool set, as `ethtool -C` makes
# it: the driver gets the whole new setting in one set_coalesce() call (so a
# driver that validates the whole struct, like stmmac refusing tx-usecs 0
# with tx-frames 0, never sees an intermediate one) and ethtool listeners
# get one COALESCE_NTF. On netdevsim, which supports all four fields: the
# notifications `ethtool --monitor` sees for (tx-usecs 1000, tx-frames 0)
# -> (0, 32) are exactly one, and none shows (0, 0); values read back with
# `ethtool -c`. netdevsim is in the debug kernel (make check-debug), not in
# Debian's.
source "$(dirname "$0")/lib.sh"

NS=nsim-coal ID=7
MON=
cleanup() {
	[ -n "$MON" ] && kill "$MON" 2>/dev/null
	[ -e /sys/bus/netdevsim/del_device ] && echo "$ID" > /sys/bus/netdevsim/del_device 2>/dev/null
	ip netns del "$NS" 2>/dev/null
}
trap cleanup EXIT
ktap_plan 9
modprobe netdevsim 2>/dev/null || ktap_skip_all "no netdevsim in this kernel (Debian's has none: make check-debug)"

ip netns add "$NS" || bail "ip netns add"
echo "$ID 1" > /sys/bus/netdevsim/new_device || bail "netdevsim new_device"
N=$("$NLWAIT" -t 30 driver netdevsim) || bail "no netdevsim netdev appeared"
ip link set dev "$N" netns "$NS" || bail "cannot move $N"
ip -n "$NS" link set dev "$N" up
ktap_expect_eq caps_all_four "$(ue "$NS" get "$N" | sed -n 's/^caps=0x[0-9a-f]* //p' | tr ',' '\n' |
	grep -cE '^(tx|rx)-(usecs|frames)$')" 4

ip netns exec "$NS" ethtool -C "$N" tx-usecs 1000 tx-frames 0 rx-usecs 10 rx-frames 1 ||
	bail "ethtool -C (initial)"

# the monitor: ethtool's own, listening before the SET
out=$(mktemp)
ip netns exec "$NS" stdbuf -oL ethtool --monitor -C "$N" > "$out" 2>&1 &
MON=$!
# wait_lines N ERE: until the monitor's output has N lines matching ERE
wait_lines() {
	timeout 30 tail -n +1 -f "$out" | grep -m "$1" -E "$2" > /dev/null
}
wait_lines 1 '^listening' || bail "ethtool --monitor did not start"

ktap_check set_tx_pair ue "$NS" set "$N" tx_usecs=0 tx_frames=32
ktap_check set_all_four ue "$NS" set "$N" tx_usecs=50 tx_frames=8 rx_usecs=20 rx_frames=4
# a sync point: ethtool's own set, the last notification
ip netns exec "$NS" ethtool -C "$N" rx-frames 5 || bail "ethtool -C (sync)"
wait_lines 1 '^rx-frames:[[:space:]]+5$'
kill "$MON" 2>/dev/null; wait "$MON" 2>/dev/null; MON=
# one "tx-usecs tx-frames rx-usecs rx-frames" line per notification
ntfs=$(awk '/^Coalesce parameters/ { if (n++) print t, f, r, g; t = f = r = g = "" }
	/^tx-usecs:/ { t = $2 } /^tx-frames:/ { f = $2 }
	/^rx-usecs:/ { r = $2 } /^rx-frames:/ { g = $2 }
	END { if (n) print t, f, r, g }' "$out")
ktap_info "notifications (tx-usecs tx-frames rx-usecs rx-frames):" $ntfs
ktap_expect_eq three_notifications "$(wc -l <<< "$ntfs")" 3
ktap_expect_eq pair_one_notification "$(sed -n 1p <<< "$ntfs")" "0 32 10 1"
ktap_expect_eq four_one_notification "$(sed -n 2p <<< "$ntfs")" "50 8 20 4"
ktap_expect_eq never_0_0 "$(awk '$1 == 0 && $2 == 0' <<< "$ntfs" | wc -l)" 0
ktap_expect_eq ethtool_reads_back "$(ip netns exec "$NS" ethtool -c "$N" |
	awk '/^(tx|rx)-(usecs|frames):/ { printf "%s ", $2 }')" "20 5 50 8 "
ktap_expect_eq usbeth_reads_back "$(ue "$NS" get "$N" | sed -n 's/^\(tx\|rx\)_\(usecs\|frames\)=//p' | tr '\n' ' ')" "50 8 20 5 "
rm -f "$out"
ktap_finish
