#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbeth calls a driver's ethtool ops the way ethtool does: the coalesce
# knobs of a GET (and the old values a SET remembers) come from one
# get_coalesce() call, one moment, not one call per knob; get_drvinfo()
# runs inside the ops' begin/complete bracket (with the device awake and
# present). fake_coal (selftests/kmod/fake_coal.c) takes all four coalesce
# parameters and counts its calls. A SET of two coalesce knobs reads four
# times: its old values, the read-modify-write of set_coalesce() (as
# ethtool -C does), ethtool's own COALESCE_NTF that the SET sends, and
# usbeth's CHANGE notification. A SET of the values the driver holds reads
# once (the old values) and writes and tells nothing: no set_coalesce(), no
# COALESCE_NTF (whose message would read again), no CHANGE (no echo).
source "$(dirname "$0")/lib.sh"

KO=$(ksft_helper fake_coal.ko) || env_missing "no fake_coal.ko (the selftests' helper modules are not built for this kernel)"
trap 'rmmod fake_coal 2>/dev/null' EXIT
ktap_plan 9
insmod "$KO" || bail "insmod fake_coal"
F=fakecoal0
P=/sys/module/fake_coal/parameters
restart() { local p; for p in gets drvinfos drvinfo_unbracketed; do echo 0 > "$P/$p"; done; }
coal() { sed -n 's/^\(tx_usecs\|tx_frames\|rx_usecs\|rx_frames\)=//p' | tr '\n' ' '; }

restart
out=$(ue get "$F")
ktap_expect_eq get_values "$(coal <<< "$out")" "10 20 30 40 "
ktap_expect_eq get_reads_coalesce_once "$(cat "$P/gets")" 1
ktap_check get_asks_drvinfo test "$(cat "$P/drvinfos")" -gt 0
ktap_expect_eq drvinfo_inside_begin "$(cat "$P/drvinfo_unbracketed")" 0

restart
ktap_check set_two_knobs ue set "$F" tx_usecs=11 rx_frames=41
ktap_expect_eq set_reads_coalesce_four_times "$(cat "$P/gets")" 4
ktap_expect_eq set_values "$(ue get "$F" | coal)" "11 20 30 41 "

restart
out=$(ue set -e "$F" tx_usecs=11 rx_frames=41)
ktap_expect_eq unchanged_set_reads_once "$(cat "$P/gets")" 1
if grep -q '^ifname=' <<< "$out"; then
	ktap_fail unchanged_set_no_change "echoed: a CHANGE was sent"
else
	ktap_ok unchanged_set_no_change
fi
ktap_finish
