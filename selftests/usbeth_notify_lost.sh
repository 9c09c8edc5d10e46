#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Notifications that cannot be built reach their listeners as lost. A DEL
# or NEW the module cannot build (no memory for the device's state or for
# the message) is reported to the monitor group as ENOBUFS, as rtnetlink
# does with a link message it cannot build: listeners then read the
# devices back. For N = 1, 2, ... the Nth allocation with usbeth on the
# stack fails in the thread that moves the NCM host side to another netns
# (failslab's fail-nth with a stack filter on usbeth's text), until no
# fault is left to inject. Each time, `usbeth -j monitor list` in the old
# netns must hear the device leave (its DEL, or an overrun) and the one in
# the new netns must hear it come (its NEW, or an overrun and the device in
# the listing after it). Needs FAULT_INJECTION, FAILSLAB and its stack
# filter: the debug kernel (make check-debug), not Debian's.
source "$(dirname "$0")/lib.sh"

FS=/sys/kernel/debug/failslab
B=usbeth-nl-b
NL_MON_PIDS=
cleanup() {
	[ -d "$FS" ] && { echo Y > "$FS/ignore-gfp-wait"; echo 2 > "$FS/verbose"
		echo 0 > "$FS/require-start"; echo 0xffffffffffffffff > "$FS/require-end"; } 2>/dev/null
	kill $NL_MON_PIDS 2>/dev/null
	ip netns del "$B" 2>/dev/null
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 4
[ -e /proc/self/fail-nth ] && [ -d "$FS" ] && [ -e "$FS/require-start" ] ||
	ktap_skip_all "no failslab with a stack filter in this kernel (Debian's has none: make check-debug)"
need_usbeth_prog USBETH_CLI

ncm_setup -s super
H=$NCM_HOST_NS D=$NCM_HOST_IF

# GFP_KERNEL allocations too (failslab skips sleeping ones by default);
# one line per injected fault, no stack dump
echo N > "$FS/ignore-gfp-wait"
echo 1 > "$FS/verbose"
# Faults only where usbeth is on the stack: its module text, from the
# start of .text to past its last text symbol
txt=$(cat /sys/module/usbeth/sections/.text)
last=$(awk '$2 ~ /^[tT]$/ && $4 == "[usbeth]" { print $1 }' /proc/kallsyms | sort | tail -n 1)
[ -n "$txt" ] && [ -n "$last" ] || bail "cannot find usbeth's text (/sys/module/usbeth/sections/.text, /proc/kallsyms)"
# (in hex: as decimals, bash's signed arithmetic makes them negative)
echo "$txt" > "$FS/require-start" || bail "cannot set $FS/require-start to $txt"
end=$(printf '0x%x' $((0x$last + 0x10000)))
echo "$end" > "$FS/require-end" || bail "cannot set $FS/require-end to $end"

ip netns add "$B" || bail "ip netns add $B"
# monitor NETNS: `usbeth -j monitor list` there, into a file; once it has
# listed (it subscribes first), the file's name
monitor() {
	local log
	log=$(mktemp)
	ip netns exec "$1" "$USBETH_CLI" -j monitor list > "$log" 2>&1 &
	NL_MON_PIDS="$NL_MON_PIDS $!"
	wait_line "$log" '"event": ?"existing"' || bail "usbeth monitor in $1 did not list: $(cat "$log")"
	echo "$log"
}
# move_failing N FROM TO: move D with the Nth usbeth allocation of the
# moving thread failed; inj=1 when that fault was injected, 0 when the
# move made fewer than N such allocations. Counted by the thread's own
# fail-nth, read back before it exits (the kernel's log misses faults in
# allocations made with __GFP_NOWARN, as the skb's head is first): ip in
# batch mode moves D, then lists lo, whose line says the move is done.
move_failing() {
	local pid line left
	coproc MV { exec stdbuf -oL ip -n "$2" -force -batch - 2>&1; }
	pid=$MV_PID
	echo "$1" > "/proc/$pid/task/$pid/fail-nth" || bail "cannot set fail-nth of ip ($pid)"
	printf 'link set dev %s netns %s\nlink show dev lo\n' "$D" "$3" >&"${MV[1]}"
	read -r -t 60 line <&"${MV[0]}" || bail "ip -batch did not answer"
	case $line in
	1:\ lo:*) ;;
	*) bail "cannot move $D from $2 to $3: $line" ;;
	esac
	left=$(cat "/proc/$pid/task/$pid/fail-nth")
	eval "exec ${MV[1]}>&-"
	wait "$pid"
	if [ "$left" -eq 0 ]; then inj=1; else inj=0; fi
}
mon_h=$(monitor "$H")
mon_b=$(monitor "$B")
# seen LOG FROM REGEX: a line of LOG after its first FROM lines matches,
# waited for; overrun LOG FROM: one of them is an overrun, not waited for
seen() { timeout 60 tail -n "+$(($2 + 1))" -F "$1" 2>/dev/null | grep -q -m 1 -E "$3"; }
overrun() { tail -n "+$(($2 + 1))" "$1" | grep -q '"overrun"'; }
ev() { echo "\"event\": ?\"$1\".*\"ifname\": ?\"$D\""; }

n=0 inj=1 bad=0 lost_h=0 lost_b=0
while [ "$inj" -gt 0 ] && [ $n -lt 50 ]; do
	n=$((n + 1))
	fh=$(wc -l < "$mon_h") fb=$(wc -l < "$mon_b")
	move_failing "$n" "$H" "$B"
	if seen "$mon_h" "$fh" "$(ev del)|\"overrun\""; then
		overrun "$mon_h" "$fh" && lost_h=$((lost_h + 1))
	else
		bad=$((bad + 1)); ktap_info "n=$n: $H's listener heard nothing of $D leaving"
	fi
	if seen "$mon_b" "$fb" "$(ev new)|$(ev existing)"; then
		overrun "$mon_b" "$fb" && lost_b=$((lost_b + 1))
	else
		bad=$((bad + 1)); ktap_info "n=$n: $B's listener heard nothing of $D coming"
	fi
	fh=$(wc -l < "$mon_h")
	ip -n "$B" link set dev "$D" netns "$H" || bail "cannot move $D back"
	seen "$mon_h" "$fh" "$(ev new)" || bail "$D moved back, and $H's listener did not hear it"
done
ktap_info "$((n - 1 + inj)) fault points, $lost_h DELs and $lost_b NEWs reported lost"
ktap_expect_eq swept_to_the_end "$inj" 0
ktap_check del_lost_heard test "$lost_h" -gt 0
ktap_check new_lost_heard test "$lost_b" -gt 0
ktap_expect_eq every_move_heard "$bad" 0
ktap_finish
