#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd in a storm: N USB NICs (default 30; lib.sh ncms_*: NCM gadgets on
# dummy_hcd, a UDC each) plugged in at once and pulled out at once, three
# times, with the daemon's notification sockets at the kernel's default
# size. The host sides pose as cellular modems (the tests' own
# modem-test profile: cdc_ncm's TX timer, a BQL cap), the gadget sides
# get a profile of the test's own that matches once they connect at high
# speed (qmult and txqueuelen); every netdev stays in the initial
# netns, the gadget ones up, so that each plug also brings N carriers,
# each a GET of the daemon's.
#   - every round: every host side gets its profile (cdc_ncm's and BQL's
#     sysfs files read back), every gadget side is evaluated on its
#     connect and holds its own (configfs qmult, tx_queue_len); after the
#     pull, every host side's record is dropped (the daemon's line, and the
#     files of the runtime directory: the gadgets' only);
#   - the second round with the daemon stopped (SIGSTOP) through the plug
#     and again through the pull, resumed once every host side is there
#     (gone). Stopped, its rtnetlink socket is nearly full after the
#     plug (30 links: 157-198 KiB of the default 208); the host sides are
#     brought up and down, as a network manager does, until the socket
#     overflows (its drop count in /proc/net/netlink): the daemon must see
#     the overrun (ENOBUFS) and the resync that follows must miss nothing;
#   - the third round, all plugged: the daemon's stop puts back every
#     original of all 2N netdevs (the values read before it ran) and leaves
#     no record; started again, it applies to all 2N at once, then sees the
#     pull;
#   - in the other rounds an overrun is allowed, counted and reported.
# usbeth-timeout: 600
source "$(dirname "$0")/lib.sh"

D=$USBETHD
N=${USBETHD_STORM_N:-30}
W=/tmp/usbethd-storm
BUILTIN=$W/builtin ADMIN=$W/admin RUN=$W/run LOG=$W/daemon.log
DPID= DFD=
GQMULT=2 GQLEN=321

need_usbeth_prog USBETHD
cleanup() {
	local rc=$?
	[ -n "$DPID" ] && kill -CONT "$DPID" 2>/dev/null && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	daemon_log_if_failed $rc
	ncms_teardown
}
trap cleanup EXIT
source "$(dirname "$0")/usbethd_lib.sh"

rm -rf "$W" && mkdir -p "$RUN" && : > "$LOG" && storm_profiles $GQMULT $GQLEN ||
	bail "cannot stage the profiles in $W"

ktap_plan 30
WANT=$(modem_wanted)
records() { find "$RUN" -name '*dev-*' | wc -l; }
# gadget_held I: "qmult txqueuelen" of gadget I, from configfs and sysfs
gadget_held() {
	local q l
	read -r q < "$(ncms_gadget "$1")/functions/ncm.s$1/qmult"
	read -r l < "/sys/class/net/${NCMS_GADGET_IF[$1]}/tx_queue_len"
	echo "$q $l"
}
# hosts_holding VALUES: how many host sides hold VALUES (knobs_held),
# naming the first few that do not
hosts_holding() {
	local h v ok=0 bad=0
	for h in "${NCMS_HOST_IFS[@]}"; do
		v=$(knobs_held "$h" "$WANT")
		if [ "$v" = "$1" ]; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
			[ $bad -le 3 ] && ktap_info "$h holds $v" >&2
		fi
	done
	echo $ok
}
# gadgets_holding VALUES: the same for the gadget sides (gadget_held)
gadgets_holding() {
	local i v ok=0 bad=0
	for ((i = 1; i <= N; i++)); do
		v=$(gadget_held "$i")
		if [ "$v" = "$1" ]; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
			[ $bad -le 3 ] && ktap_info "${NCMS_GADGET_IF[i]} holds $v" >&2
		fi
	done
	echo $ok
}
# same_set WORD...: the keys of DSEEN are exactly the WORDs
same_set() {
	local w
	[ ${#DSEEN[@]} -eq $# ] || return 1
	for w in "$@"; do [ -n "${DSEEN[$w]:-}" ] || return 1; done
}
# since ROUND [stopped] WHAT: what the round's time is counted from
since() { if [ "${2:-}" = stopped ]; then echo "the daemon resumed"; else echo "${*: -1}"; fi; }
ms() { echo $(( (${EPOCHREALTIME/./} - $1) / 1000 )); }
HOST_APPLIED='^([^ :]+): profile modem-test applied'
GADGET_APPLIED='^([^ :]+): profile storm-gadget applied'
HOST_DROPPED='^([^ :]+): gone, record dropped \(profile modem-test\)'

# --- before the daemon: every link once, for the originals (all host sides
# alike, as cdc_ncm and BQL make them; the gadgets as u_ether does)
ncms_setup "$N" -v 0x1199 -p 0x9071
ncms_hosts "$N" || bail "$N host sides did not appear"
ktap_info "$N links on $N of $(ls /sys/class/udc | wc -l) UDCs ($NCMS_STALE_GLUE binds refused)"
ORIG_HOST=$(knobs_held "${NCMS_HOST_IFS[0]}" "$WANT")
ORIG_GADGET=$(gadget_held 1)
n=$(hosts_holding "$ORIG_HOST")
[ "$n" -eq "$N" ] || bail "the host sides differ before the daemon ($n of $N hold $ORIG_HOST)"
n=$(gadgets_holding "$ORIG_GADGET")
[ "$n" -eq "$N" ] || bail "the gadget sides differ before the daemon ($n of $N hold $ORIG_GADGET)"
[ "$ORIG_HOST" != "$WANT" ] || bail "the host sides hold $WANT already: the test would show nothing"
ktap_info "host sides: $ORIG_HOST before, $WANT wanted; gadget sides (qmult txqueuelen): $ORIG_GADGET before, $GQMULT $GQLEN wanted"
ncms_unplug
ncms_hosts 0 || bail "the host sides did not go"
ncms_gadgets_up

daemon_start
dexpect "^ready: " > /dev/null || bail "the daemon did not start"
ktap_info "daemon ready, $(records) records (the gadgets, unbound, match no profile yet)"

# overflow: the host sides up and down (an rtnetlink event each) until the
# stopped daemon's rtnetlink socket dropped one; how many in OVERFLOW_UPS
rtnl_drops() { nl_socks "$DPID" | awk '$1 == "rtnetlink" { d += $3 } END { print d + 0 }'; }
overflow() {
	local k h
	OVERFLOW_UPS=0
	for ((k = 0; k < 20; k++)); do
		[ "$(rtnl_drops)" -eq 0 ] || return 0
		for h in "${NCMS_HOST_IFS[@]}"; do
			echo "link set dev $h $( ((k % 2)) && echo down || echo up)"
		done | ip -batch - || bail "cannot bring the host sides up or down"
		OVERFLOW_UPS=$((OVERFLOW_UPS + ${#NCMS_HOST_IFS[@]}))
	done
	bail "the stopped daemon's rtnetlink socket took $OVERFLOW_UPS link changes and dropped none"
}
# stopped ROUND [stopped], resumed ROUND [stopped]: with "stopped", the
# daemon stops (SIGSTOP), goes on (SIGCONT)
stopped() { [ "${2:-}" != stopped ] || kill -STOP "$DPID"; }
resumed() { [ "${2:-}" != stopped ] || kill -CONT "$DPID"; }
# overruns: the socket overruns the daemon logged since the mark
overruns() {
	local seen
	mapfile -t -s "$MARK" seen < "$LOG"
	printf '%s\n' "${seen[@]}" | grep -c ENOBUFS
}
# plugged ROUND [stopped]: the whole storm plugged in; every side gets its
# profile
plugged() {
	local t0 hosts i
	dmark
	t0=${EPOCHREALTIME/./}
	stopped "$@"
	ncms_plug
	ncms_hosts "$N" || ktap_info "round $1: ${#NCMS_HOST_IFS[@]} host sides of $N appeared"
	hosts=("${NCMS_HOST_IFS[@]}")
	if [ "${2:-}" = stopped ]; then
		for ((i = 1; i <= N; i++)); do
			"$NLWAIT" -t 60 carrier "${NCMS_GADGET_IF[i]}" ||
				ktap_info "round $1: ${NCMS_GADGET_IF[i]} got no carrier"
		done
		ktap_info "round $1: queued on the daemon's sockets, stopped, after the plug: $(nl_queued "$DPID") (rmem_default $(cat /proc/sys/net/core/rmem_default))"
		overflow
		ktap_info "round $1: and after $OVERFLOW_UPS host sides up/down: $(nl_queued "$DPID")"
		t0=${EPOCHREALTIME/./}
		resumed "$@"
		if dexpect "^resync \(link overrun\): [0-9]+ netdevs" 120 > /dev/null; then
			ktap_ok "round${1}_overrun_resync"
		else
			ktap_fail "round${1}_overrun_resync" "no resync after the overrun"
		fi
	fi
	if dexpect_all "$HOST_APPLIED" "$N" 120 && same_set "${hosts[@]}"; then
		ktap_ok "round${1}_hosts_all_applied"
	else
		ktap_fail "round${1}_hosts_all_applied" "${#DSEEN[@]} of $N hosts applied: ${!DSEEN[*]}"
	fi
	ktap_info "round $1: plugged, every host side applied $(ms "$t0") ms after $(since "$@" "the first bind")"
	ktap_expect_eq "round${1}_hosts_hold_profile" "$(hosts_holding "$WANT")" "$N"
	if dexpect_all "$GADGET_APPLIED" "$N" 120; then
		ktap_ok "round${1}_gadgets_evaluated"
	else
		ktap_fail "round${1}_gadgets_evaluated" "${#DSEEN[@]} of $N gadgets: ${!DSEEN[*]}"
	fi
	ktap_expect_eq "round${1}_gadgets_hold_profile" "$(gadgets_holding "$GQMULT $GQLEN")" "$N"
	ktap_info "round $1: socket overruns on the plug: $(overruns)"
}
# unplugged ROUND [stopped]: the whole storm pulled out; every host record
# dropped
unplugged() {
	local t0 hosts=("${NCMS_HOST_IFS[@]}")
	dmark
	t0=${EPOCHREALTIME/./}
	stopped "$@"
	ncms_unplug
	ncms_hosts 0 || ktap_info "round $1: ${#NCMS_HOST_IFS[@]} host sides still there"
	if [ "${2:-}" = stopped ]; then
		ktap_info "round $1: queued on the daemon's sockets, stopped, after the pull: $(nl_queued "$DPID")"
		t0=${EPOCHREALTIME/./}
	fi
	resumed "$@"
	if dexpect_all "$HOST_DROPPED" "$N" 120 && same_set "${hosts[@]}"; then
		ktap_ok "round${1}_unplug_records_dropped"
	else
		ktap_fail "round${1}_unplug_records_dropped" "${#DSEEN[@]} of $N dropped: ${!DSEEN[*]}"
	fi
	ktap_info "round $1: pulled, every host record dropped $(ms "$t0") ms after $(since "$@" "the first unbind")"
	ktap_expect_eq "round${1}_records_on_disk" "$(records)" "$N"
	ktap_info "round $1: socket overruns on the pull: $(overruns)"
}

plugged 1
unplugged 1
plugged 2 stopped
unplugged 2 stopped
plugged 3
# --- the stop, all plugged: every original back
daemon_stop
ktap_expect_eq stop_exit_status $? 0
ktap_expect_eq stop_restores_hosts "$(hosts_holding "$ORIG_HOST")" "$N"
ktap_expect_eq stop_restores_gadgets "$(gadgets_holding "$ORIG_GADGET")" "$N"
ktap_expect_eq stop_leaves_no_record "$(records)" 0
# --- started again among all 2N: each gets its profile at start
dmark
t0=${EPOCHREALTIME/./}
daemon_start
dexpect "^ready: " 120 > /dev/null || bail "the daemon did not start again"
ktap_info "restart: ready, every netdev evaluated, $(ms "$t0") ms after the start"
if dexpect_all "$HOST_APPLIED" "$N" 120 && same_set "${NCMS_HOST_IFS[@]}"; then
	ktap_ok restart_hosts_all_applied
else
	ktap_fail restart_hosts_all_applied "${#DSEEN[@]} of $N hosts: ${!DSEEN[*]}"
fi
ktap_expect_eq restart_hosts_hold_profile "$(hosts_holding "$WANT")" "$N"
if dexpect_all "$GADGET_APPLIED" "$N" 120; then
	ktap_ok restart_gadgets_all_applied
else
	ktap_fail restart_gadgets_all_applied "${#DSEEN[@]} of $N gadgets: ${!DSEEN[*]}"
fi
ktap_expect_eq restart_gadgets_hold_profile "$(gadgets_holding "$GQMULT $GQLEN")" "$N"
unplugged 3
# --- the last stop: the gadgets (still there, unbound) back as they were
daemon_stop
ktap_expect_eq final_stop_exit_status $? 0
ktap_expect_eq final_stop_restores_gadgets "$(gadgets_holding "$ORIG_GADGET")" "$N"
ktap_expect_eq final_stop_leaves_no_record "$(records)" 0
ktap_info "socket overruns (ENOBUFS) the daemon recovered from: $(grep -c 'ENOBUFS' "$LOG")"
ktap_info "resyncs: $(grep -c 'resync (' "$LOG"); errors logged: $(grep -ciE 'error|cannot|failed' "$LOG")"
ktap_finish
