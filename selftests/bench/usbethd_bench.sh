#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd benchmark, inside the usbeth VM (figures, no timed assertions):
#   1. hotplug-to-applied latency p50/p99 over N plugs (default 100) of a
#      "cellular modem" (the modem profile changes two knobs on every plug):
#      from the NEW notification to the CHANGE the daemon's set causes, both
#      seen by selftests/bench/usbethd-lat;
#   2. the same values written by a udev-style handler that spawns a shell
#      per event (sh -c with two sysfs writes), NEW to the shell's exit;
#      and, as the floor, a client doing only the one usbeth SET per NEW;
#   3. the daemon's RSS after start and after 1000 events (the plugs, then
#      netns round trips of the gadget netdev: a DEL and a NEW each);
#   4. its wakeups (context switches) while idle for 10 s.
# Run: selftests/vm/run-vm.sh -t 1500 selftests/bench/usbethd_bench.sh
source "$(dirname "$0")/../lib.sh"

D=$USBETH_TOP/usbethd/usbethd
LAT=$USBETH_TOP/selftests/bench/usbethd-lat
BUILTIN=$USBETH_TOP/usbethd/profiles.d
N=${USBETHD_BENCH_PLUGS:-100}
W=/tmp/usbethd-bench
DPID= DFD= LFD=

[ -x "$D" ] && [ -x "$LAT" ] || ktap_skip_all "usbethd or usbethd-lat not built (make -C usbethd)"
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	ip netns del bench-rt 2>/dev/null
	ncm_teardown
}
trap cleanup EXIT
rm -rf "$W" && mkdir -p "$W/run"
ktap_plan 5

ncm_setup -s super -v 0x1199 -p 0x9071
ncm_unplug
gadget=$NCM_GADGET_IF
ip -n "$NCM_GADGET_NS" link set dev "$gadget" netns 1 || bail "cannot move $gadget back"
ip link set dev "$gadget" up

status() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
ctxt() { echo $(($(status "$1" voluntary_ctxt_switches) + $(status "$1" nonvoluntary_ctxt_switches))); }

# plugs MODE [SCRIPT]: N plugs measured by usbethd-lat; latencies (us) to
# $W/MODE (or $W/$OUT), when it saw each NEW to $W/MODE.t0
OUT=
plugs() {
	local mode=${OUT:-$1} line i host
	exec {LFD}< <(exec "$LAT" "$1" "$N" "${@:2}")
	read -r -t 30 -u "$LFD" line && [ "$line" = ready ] || return 1
	: > "$W/$mode"
	: > "$W/$mode.t0"
	for ((i = 1; i <= N; i++)); do
		echo "$NCM_UDC" > "$NCM_GADGET/UDC" || return 1
		read -r -t 60 -u "$LFD" line || { ktap_info "plug $i: no measurement"; return 1; }
		set -- $line
		host=$2
		echo "$3" >> "$W/$mode"
		echo "$4" >> "$W/$mode.t0"
		echo "" > "$NCM_GADGET/UDC" || return 1
		"$NLWAIT" -t 30 gone "$host" || return 1
	done
	exec {LFD}<&-
}
pct() { sort -n "$1" | awk -v p="$2" '{ a[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print a[i] }'; }

# --- the daemon
# -v: a line per NEW with where the time went, logged after the work
exec {DFD}< <(exec "$D" -v -d "$BUILTIN" --runtime-dir "$W/run" 2>&1)
DPID=$!
while read -r -t 30 -u "$DFD" line; do [[ $line == ready:* ]] && break; done
# keep its log drained, so that it never blocks on a full pipe
cat <&"$DFD" > "$W/daemon.log" &
drain=$!
rss_start=$(status "$DPID" VmRSS)

if plugs daemon; then
	d50=$(pct "$W/daemon" 50) d99=$(pct "$W/daemon" 99)
	ktap_info "usbethd: hotplug-to-applied over $N plugs: p50 ${d50} us, p99 ${d99} us (target p99 <= 2000 us)"
	# the daemon's own view, from its timing lines (-v): when it parsed
	# the NEW relative to usbethd-lat (both CLOCK_MONOTONIC; > 0: later),
	# then to its first usbeth set, and the time in those sets (kernel
	# round trips, the rtnl lock included)
	sed -n 's/.*: new (ifindex [0-9]*): timing: woken \([0-9]*\), parsed +\([0-9]*\), set +\([0-9]*\), done +[0-9]*, in sets \([0-9]*\)$/\1 \2 \3 \4/p' \
		"$W/daemon.log" | tail -n "$N" > "$W/dtiming"
	paste -d' ' "$W/dtiming" "$W/daemon.t0" | awk '{ print $1 + $2 - $5 }' > "$W/col"
	ktap_info "usbethd: parsed the NEW after usbethd-lat did: p50 $(pct "$W/col" 50) us, p99 $(pct "$W/col" 99) us"
	awk '{ print $3 }' "$W/dtiming" > "$W/col"
	ktap_info "usbethd: NEW parsed to its usbeth set sent: p50 $(pct "$W/col" 50) us, p99 $(pct "$W/col" 99) us"
	awk '{ print $4 }' "$W/dtiming" > "$W/col"
	ktap_info "usbethd: in the usbeth set: p50 $(pct "$W/col" 50) us, p99 $(pct "$W/col" 99) us"
	ktap_ok daemon_latency
else
	ktap_fail daemon_latency
fi

# more events: netns round trips of the gadget netdev (DEL + NEW each)
ip netns add bench-rt
ev=$((N * 3))
while [ $ev -lt 1000 ]; do
	ip link set dev "$gadget" netns bench-rt && ip -n bench-rt link set dev "$gadget" netns 1 || break
	ev=$((ev + 2))
done
ip link set dev "$gadget" up
rss_1000=$(status "$DPID" VmRSS)
c0=$(ctxt "$DPID")
sleep 10	# a benchmark of idleness: nothing to wait on but time
c1=$(ctxt "$DPID")
ktap_info "usbethd RSS: ${rss_start} kB after start, ${rss_1000} kB after $ev events (target <= 2048 kB)"
ktap_info "usbethd wakeups while idle for 10 s: $((c1 - c0)) (target 0)"
ktap_info "usbethd errors logged: $(grep -ciE 'error|cannot|failed|lost' "$W/daemon.log")"
ktap_ok daemon_rss_wakeups
kill -TERM "$DPID"
wait "$DPID" 2>/dev/null
DPID=
kill "$drain" 2>/dev/null

# --- the floor: a client doing only the usbeth SET of the same two values
# on each NEW, nothing else (no profiles, no records, no logs): what the
# kernel path and the scheduling of this VM cost any client
exec {SFD}< <(exec "$LAT" setter)
setter=$!
read -r -t 30 -u "$SFD" line && [ "$line" = ready ] || ktap_info "the setter did not start"
if OUT=floor plugs daemon; then
	f50=$(pct "$W/floor" 50) f99=$(pct "$W/floor" 99)
	ktap_info "floor (one SET per NEW, nothing else): over $N plugs: p50 ${f50} us, p99 ${f99} us"
	[ -n "${d50:-}" ] && ktap_info "usbethd over the floor: p50 $((d50 - f50)) us, p99 $((d99 - f99)) us"
	ktap_ok floor_latency
else
	ktap_fail floor_latency
fi
kill "$setter" 2>/dev/null
exec {SFD}<&-

# --- the udev-style baseline: a shell per event writing the same values
script='echo 50 > /sys/class/net/$IFACE/cdc_ncm/tx_timer_usecs; echo 8192 > /sys/class/net/$IFACE/queues/tx-0/byte_queue_limits/limit_max'
if plugs spawn "$script"; then
	s50=$(pct "$W/spawn" 50) s99=$(pct "$W/spawn" 99)
	ktap_info "shell per event: over $N plugs: p50 ${s50} us, p99 ${s99} us"
	ktap_ok spawn_latency
else
	ktap_fail spawn_latency
fi
if [ -n "${d50:-}" ] && [ -n "${s50:-}" ]; then
	ktap_info "ratio shell/usbethd: p50 $(awk "BEGIN { printf \"%.1f\", $s50 / $d50 }")x, p99 $(awk "BEGIN { printf \"%.1f\", $s99 / $d99 }")x (target >= 10x)"
	ktap_ok ratio
else
	ktap_fail ratio
fi
ktap_finish
