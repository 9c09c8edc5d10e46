#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd in a storm, inside the usbeth VM (figures, no timed assertions):
# the storm of selftests/usbethd_storm.sh -- N NCM links (default 30, lib.sh
# ncms_*), the host sides posing as cellular modems, the gadget netdevs up
# -- plugged in at once and pulled out at once, R times (default 3), the
# daemon's sockets at their default size. Per round:
#   1. timed in the kernel (kprobes on the module, CLOCK_MONOTONIC, the
#      first bind marked in the same trace): from the first bind to the last
#      host side's NEW notification (the kernel's own enumeration: the floor
#      of any handler), and to the last CHANGE that the daemon's SETs cause
#      (every host side applied), and the daemon's lag: the second less the
#      first;
#   2. from the first unbind to the last host side's DEL notification
#      (kernel), and to the last "record dropped" line of the daemon (read
#      here: wall clock);
# then the daemon's RSS after start, its peak RSS over the storms (VmHWM)
# and the socket overruns (ENOBUFS) it logged.
# Run: selftests/vm/run-vm.sh -t 1500 selftests/bench/usbethd_storm_bench.sh
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../usbethd_lib.sh"
source "$(dirname "$0")/usbeth_kprobes.sh"

D=$USBETH_TOP/usbethd/usbethd
N=${USBETHD_STORM_N:-30}
R=${USBETHD_STORM_ROUNDS:-3}
W=/tmp/usbethd-storm-bench
BUILTIN=$W/builtin ADMIN=$W/admin RUN=$W/run LOG=$W/daemon.log
T=/sys/kernel/tracing
DPID='' DFD=''

[ -x "$D" ] || ktap_skip_all "usbethd not built (make -C usbethd)"
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	if [ -d "$T/events/usbeth_storm" ]; then
		echo 0 > "$T/events/usbeth_storm/enable"
		echo > "$T/kprobe_events"
	fi
	ncms_teardown
}
trap cleanup EXIT
rm -rf "$W" && mkdir -p "$RUN" && : > "$LOG" && storm_profiles 2 321 ||
	bail "cannot stage the profiles in $W"
ktap_plan $((R + 1))

# --- the kernel's clock (as usbethd_bench.sh): the module's NEW and DEL
# notifications, and the fill of a CHANGE; enum usbeth_cmd: NEW_NTF 3,
# DEL_NTF 4, CHANGE_NTF 5. A netdev is told by its struct net_device's
# address (its name is at an offset that differs by kernel); in a plug the
# only NEWs are the host sides' (the gadget netdevs stay across unplugs),
# in a pull the only DELs.
usbeth_kprobes usbeth_storm 'cmd == 3 || cmd == 4'
# trace_span: "FLOOR LAST NTFS CHANGES" from the mark written to the trace:
# us to the last NEW or DEL, us to the last CHANGE of a netdev that had
# one of those (-1: none), how many netdevs had each
trace_span() {
	echo 0 > "$T/tracing_on"
	awk 'match($0, / [0-9]+\.[0-9]+: /) {
		t = substr($0, RSTART + 1, RLENGTH - 3) * 1000000
		if ($0 ~ /tracing_mark_write: storm/) { t0 = t; next }
		if (!match($0, /dev=0x[0-9a-f]+/)) next
		d = substr($0, RSTART + 4, RLENGTH - 4)
		if ($0 ~ /usbeth_ntf:/) { ntf = t; if (!(d in n)) { n[d]; nn++ } }
		else if (d in n) { chg = t; if (!(d in c)) { c[d]; nc++ } }
	} END { printf "%.0f %.0f %d %d\n", ntf - t0, nc ? chg - t0 : -1, nn, nc }' "$T/trace"
}
ms() { awk -v u="$1" 'BEGIN { printf "%.0f", u / 1000 }'; }

ncms_setup "$N" -v 0x1199 -p 0x9071
ncms_hosts "$N" || bail "$N host sides did not appear"
ktap_info "$N links on dummy_hcd ($(ls /sys/class/udc | wc -l) UDCs, high speed; $NCMS_STALE_GLUE binds refused)"
ncms_unplug
ncms_hosts 0 || bail "the host sides did not go"
ncms_gadgets_up

daemon_start
dexpect "^ready: " > /dev/null || bail "the daemon did not start"
status() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$DPID/status"; }
rss_start=$(status VmRSS)

for ((r = 1; r <= R; r++)); do
	dmark
	trace_begin
	echo storm > "$T/trace_marker"
	ncms_plug
	ncms_hosts "$N" || ktap_info "round $r: ${#NCMS_HOST_IFS[@]} host sides of $N appeared"
	if ! dexpect_all '^([^ :]+): profile modem-test applied' "$N" 120 ||
		! dexpect_all '^([^ :]+): profile storm-gadget applied' "$N" 120; then
		ktap_fail "storm_round_$r" "round $r: ${#DSEEN[@]} of $N applied"
		break
	fi
	read -r floor last nn nc < <(trace_span)
	# the trace must hold every host side's NEW and applied CHANGE, or
	# its figures are of something else
	if [ "$nn" -ne "$N" ] || [ "$nc" -ne "$N" ]; then
		ktap_fail "storm_round_$r" "round $r: the kernel's trace has $nn NEWs and $nc applied CHANGEs of $N"
		break
	fi
	ktap_info "round $r, plug: every host side's NEW $(ms "$floor") ms after the first bind (the kernel's enumeration), every host side applied after $(ms "$last") ms, the daemon's lag $(ms $((last - floor))) ms ($nn NEWs, $nc of them applied, in the kernel's trace)"

	dmark
	trace_begin
	echo storm > "$T/trace_marker"
	t0=${EPOCHREALTIME/./}
	ncms_unplug
	if ! dexpect_all '^([^ :]+): gone, record dropped \(profile modem-test\)' "$N" 120; then
		ktap_fail "storm_round_$r" "round $r: ${#DSEEN[@]} of $N records dropped"
		break
	fi
	t1=${EPOCHREALTIME/./}
	ncms_hosts 0 || ktap_info "round $r: ${#NCMS_HOST_IFS[@]} host sides still there"
	read -r floor _ nn _ < <(trace_span)
	if [ "$nn" -ne "$N" ]; then
		ktap_fail "storm_round_$r" "round $r: the kernel's trace has $nn DELs of $N"
		break
	fi
	ktap_info "round $r, pull: every host side's DEL $(ms "$floor") ms after the first unbind ($nn DELs), every record dropped after $(ms $((t1 - t0))) ms (wall clock)"
	ktap_ok "storm_round_$r"
done
ktap_info "usbethd RSS: $rss_start kB after start, peak (VmHWM) $(status VmHWM) kB over $R storms of $N links, $(status VmRSS) kB after"
ktap_info "socket overruns (ENOBUFS): $(grep -c ENOBUFS "$LOG"); errors logged: $(grep -ciE 'error|cannot|failed' "$LOG")"
ktap_ok storm_rss
daemon_stop
ktap_finish
