#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Dumps that race device changes. A dump of many netdevs goes out in several
# chunks; when devices come or go between two of them, the kernel flags the
# first message built after it with NLM_F_DUMP_INTR, and every message stays
# well formed. libusbeth redoes such a dump, so a device is never silently
# lost.
#   - a hand-built client reads the dump one datagram (of at most 8 KiB) at
#     a time and adds a device after the first: the flag is seen, no
#     framing breaks;
#   - usbethctl adds a device between the first datagram of its dump and
#     the rest (dumpcount -b): libusbeth redoes the dump, once, and the
#     result holds the new device. (Churn in another process alone once
#     left 30 dumps on one CPU uninterrupted: the redo path needs a test
#     that does not hang on the scheduler.)
#   - usbethctl dumps while devices are added and removed all along: each
#     dump is whole (or -EAGAIN after 5 interrupted tries, as documented).
source "$(dirname "$0")/lib.sh"

RAW=$(ksft_helper genl_raw.py)
NS=usbeth-dump CHURN=
cleanup() {
	[ -n "$CHURN" ] && kill "$CHURN" 2>/dev/null
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
}
trap cleanup EXIT
ktap_plan 8
modprobe dummy numdummies=0 || bail "modprobe dummy"
ip netns add "$NS" || bail "ip netns add $NS"
# 1200 dummies: their dump takes several datagrams, even of 32 KiB
for i in $(seq 1 1200); do echo "link add d$i type dummy"; done |
	ip -n "$NS" -batch - || bail "cannot make 1200 dummy netdevs"

out=$(ip netns exec "$NS" "$RAW" --dump-between "ip -n $NS link add extra type dummy")
ktap_info "raw dump, a device added after the first datagram: $out"
ktap_check raw_dump_completes grep -q 'errno=0$' <<< "$out"
ktap_check every_message_well_formed grep -q ' malformed=0 ' <<< "$out"
dg=$(sed -n 's/.*datagrams=\([0-9]*\).*/\1/p' <<< "$out")
ktap_check dump_in_several_datagrams test "${dg:-0}" -ge 3
intr=$(sed -n 's/.* intr=\([0-9]*\).*/\1/p' <<< "$out")
ktap_check intr_flag_seen test "${intr:-0}" -ge 1

# usbethctl, a device added in the middle of its dump
before=$(ip -n "$NS" -o link | wc -l)
r=$(ip netns exec "$NS" "$USBETHCTL" dumpcount -b "ip link add between type dummy" 2>&1)
ktap_info "a device added after the dump's first datagram: $r"
ktap_expect_eq redo_exercised "$(sed -n 's/.* redone=\([0-9]*\).*/\1/p' <<< "$r")" 1
ktap_expect_eq redone_dump_has_new_device \
	"$(sed -n 's/^count=\([0-9]*\).*/\1/p' <<< "$r")" $((before + 1))

# usbethctl against churn: one device coming and going all along
base=$(ip -n "$NS" -o link | wc -l)
# (one ip reading commands, a few hundred changes a second: a dump is
# interrupted often, but not every try of it)
while :; do echo "link add churn type dummy"; echo "link del churn"; sleep 0.002; done |
	ip -n "$NS" -batch - > /dev/null 2>&1 &
CHURN=$!
whole=0 lost=0 again=0 redone=0
for i in $(seq 1 30); do
	r=$(ip netns exec "$NS" "$USBETHCTL" dumpcount 2>&1)
	case $r in
	count=*)
		c=$(sed -n 's/^count=\([0-9]*\).*/\1/p' <<< "$r")
		redone=$((redone + $(sed -n 's/.* redone=\([0-9]*\).*/\1/p' <<< "$r")))
		if [ "$c" -ge "$base" ] && [ "$c" -le $((base + 1)) ]; then
			whole=$((whole + 1))
		else
			lost=$((lost + 1))
			ktap_info "dump $i: count $c, expected $base or $((base + 1))"
		fi ;;
	*EAGAIN*) again=$((again + 1)) ;;
	*) lost=$((lost + 1)); ktap_info "dump $i: $r" ;;
	esac
done
ktap_info "30 dumps under churn: $whole whole, $again EAGAIN, $lost short or failed; redone $redone times"
ktap_expect_eq no_device_lost "$lost" 0
ktap_check some_dump_whole test "$whole" -gt 0
ktap_finish
