#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd benchmark, inside the usbeth VM (figures, no timed assertions):
#   1. hotplug-to-applied latency p50/p99 over N plugs (default 100) of a
#      "cellular modem" (the modem profile changes two knobs on every plug),
#      timed in the kernel: from usbeth sending the NEW notification to it
#      building the CHANGE that the daemon's SET causes (kprobes on the
#      module, CLOCK_MONOTONIC), with no other listener running, and split
#      by the daemon's own timing lines (-v) into: NEW sent -> daemon
#      running, its work up to the SET (the NEW parsed, the current values
#      read, the originals written ahead), the SET; before it, the plug
#      (the UDC bound, a trace marker) to the NEW: the host driver's bind
#      and the netdev's registration. Then the same plugs again with a
#      CPU hog per vCPU running beside the daemon (USBETHD_BENCH_HOGS),
#      each stage's p50 and p99 against the quiet round's, and the
#      daemon's share (its work) beside the kernel's (bind, SET);
#   2. with the same clock: the floor of any handler (a listener that only
#      reads the NEW), the floor of any usbeth client (one SET per NEW,
#      nothing else), and the udev-style baseline (a shell spawned per event
#      writing the same values through sysfs, to its exit); the ratio of the
#      baseline to the daemon;
#   3. the daemon's RSS after start and after 1000 events (the plugs, then
#      netns round trips of the gadget netdev: a DEL and a NEW each);
#   4. its wakeups (context switches) while idle for 10 s.
# Run: selftests/vm/run-vm.sh -t 1500 selftests/bench/usbethd_bench.sh
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../usbethd_lib.sh"
source "$(dirname "$0")/usbeth_kprobes.sh"

D=$USBETH_TOP/usbethd/usbethd
LAT=$USBETH_TOP/selftests/bench/usbethd-lat
N=${USBETHD_BENCH_PLUGS:-100}
W=/tmp/usbethd-bench
BUILTIN=$W/builtin
T=/sys/kernel/tracing
DPID='' DFD='' PFD='' ppid=''
hog_pids=()

[ -x "$D" ] && [ -x "$LAT" ] || ktap_skip_all "usbethd or usbethd-lat not built (make -C usbethd)"
cleanup() {
	[ ${#hog_pids[@]} -gt 0 ] && kill "${hog_pids[@]}" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	[ -n "$ppid" ] && kill "$ppid" 2>/dev/null
	wait 2>/dev/null
	if [ -d "$T/events/usbeth_bench" ]; then
		echo 0 > "$T/events/usbeth_bench/enable"
		echo > "$T/kprobe_events"
	fi
	ip netns del bench-rt 2>/dev/null
	ncm_teardown
}
trap cleanup EXIT
rm -rf "$W" && mkdir -p "$W/run"
stage_profiles "$BUILTIN" || bail "cannot stage the built-in profiles"
ktap_plan 7

# --- the kernel's clock (usbeth_kprobes.sh): the module's NEW of a netdev
# and the fill of its CHANGE
usbeth_kprobes usbeth_bench 'cmd == 3'
# trace_end NAME: "new|applied DEV T_US" per event to $W/NAME.k (DEV: the
# netdev's address)
trace_end() {
	echo 0 > "$T/tracing_on"
	awk 'match($0, / [0-9]+\.[0-9]+: tracing_mark_write: usbeth_plug/) {
		t = substr($0, RSTART + 1, RLENGTH - 1); sub(/:.*/, "", t)
		printf "plug - %.0f\n", t * 1000000
		next
	}
	match($0, / [0-9]+\.[0-9]+: usbeth_(ntf|applied):/) {
		t = substr($0, RSTART + 1, RLENGTH - 1); sub(/:.*/, "", t)
		ev = ($0 ~ /: usbeth_ntf:/) ? "new" : "applied"
		if (!match($0, /dev=0x[0-9a-f]+/)) next
		printf "%s %s %.0f\n", ev, substr($0, RSTART + 4, RLENGTH - 4), t * 1000000
	}' "$T/trace" > "$W/$1.k"
}

ncm_setup -s super -v 0x1199 -p 0x9071
ncm_unplug
gadget=$NCM_GADGET_IF
ip -n "$NCM_GADGET_NS" link set dev "$gadget" netns 1 || bail "cannot move $gadget back"
ip link set dev "$gadget" up

status() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
ctxt() { echo $(($(status "$1" voluntary_ctxt_switches) + $(status "$1" nonvoluntary_ctxt_switches))); }
pct() { sort -n "$1" | awk -v p="$2" '{ a[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print a[i] }'; }

# plugs NAME FD PATTERN: N plugs; after each, the first line on FD that
# matches PATTERN (the handler is done) goes to $W/NAME.u, other lines to
# $W/NAME.log; the kernel's events to $W/NAME.k
plugs() {
	local i line host
	: > "$W/$1.u"
	trace_begin
	for ((i = 1; i <= N; i++)); do
		echo "usbeth_plug $i" > "$T/trace_marker"
		echo "$NCM_UDC" > "$NCM_GADGET/UDC" || return 1
		while :; do
			read -r -t 60 -u "$2" line || { ktap_info "plug $i: the handler said nothing"; return 1; }
			# shellcheck disable=SC2053 # $3 is a pattern
			[[ $line == $3 ]] && break
			echo "$line" >> "$W/$1.log"
		done
		echo "$line" >> "$W/$1.u"
		case $line in
		wake\ *|setter\ *|spawn\ *) read -r _ host _ <<< "$line" ;;
		*) host=${line%%:*} ;;
		esac
		echo "" > "$NCM_GADGET/UDC" || return 1
		"$NLWAIT" -t 30 gone "$host" || return 1
	done
	trace_end "$1"
}

# to_applied NAME: per NEW, the time to the CHANGE of the same netdev;
# and in NAME.bind, per such NEW, the time from the plug before it
to_applied() {
	awk -v bind="$W/$1.bind" '$1 == "plug" { tp = $3 }
	     $1 == "new" { t0[$2] = $3; p0[$2] = tp }
	     $1 == "applied" && ($2 in t0) {
		print $3 - t0[$2]; if (p0[$2]) print t0[$2] - p0[$2] > bind
		delete t0[$2] }' \
		"$W/$1.k" > "$W/$1.lat"
}
# to_user NAME: per NEW, the time to the handler's line (its third field)
to_user() {
	awk '$1 == "new" { print $3 }' "$W/$1.k" | paste -d' ' - <(awk '{ print $3 }' "$W/$1.u") |
		awk 'NF == 2 { print $2 - $1 }' > "$W/$1.lat"
}
# summary NAME WHAT: "WHAT over N plugs: p50 .., p99 ..", and $p50/$p99 set
summary() {
	local n
	n=$(wc -l < "$W/$1.lat")
	p50=$(pct "$W/$1.lat" 50) p99=$(pct "$W/$1.lat" 99)
	ktap_info "$2: over $n plugs: p50 $p50 us, p99 $p99 us"
	[ "$n" -eq "$N" ] || ktap_info "($1: $n of $N plugs measured: the kernel's events and the handler's lines did not pair up)"
	[ "$n" -gt 0 ]
}

# --- the daemon (-v: a line per NEW with where the time went, logged after
# the work, which is also the sign that it is done)
exec {DFD}< <(exec "$D" -v -d "$BUILTIN" --runtime-dir "$W/run" 2>&1)
DPID=$!
while read -r -t 30 -u "$DFD" line; do [[ $line == ready:* ]] && break; done
rss_start=$(status "$DPID" VmRSS)
p2() { echo "p50 $(pct "$1" 50) us, p99 $(pct "$1" 99) us"; }
# stages NAME: the stages of NAME's plugs, in NAME.{bind,wake,work,read,rec,set}
# (the kernel's NEW paired with the daemon's timing line of the same plug),
# each summed up
stages() {
	local f
	# its own timing lines: poll() returned (CLOCK_MONOTONIC), NEW parsed
	# +, then from there: values read +, originals recorded +, first SET
	# sent +, done +; in sets
	sed -n 's/.*timing: woken \([0-9]*\), parsed +\([0-9]*\), read +\([0-9]*\), recorded +\([0-9]*\), set +\([0-9]*\), done +[0-9]*, in sets \([0-9]*\)$/\1 \2 \3 \4 \5 \6/p' \
		"$W/$1.u" > "$W/$1.timing"
	awk '$1 == "new" { print $3 }' "$W/$1.k" | paste -d' ' - "$W/$1.timing" |
		awk -v w="$W/$1" 'NF == 7 && $6 > 0 {
			print $2 - $1 > (w ".wake"); print $3 + $6 > (w ".work")
			print $4 > (w ".read"); print $5 - $4 > (w ".rec")
			print $7 > (w ".set") }'
	for f in bind wake work read rec set; do [ -s "$W/$1.$f" ] || return 1; done
	ktap_info "  plug to NEW sent (the kernel: bind, register): $(p2 "$W/$1.bind")"
	ktap_info "  NEW sent to usbethd running: $(p2 "$W/$1.wake")"
	ktap_info "  its work, NEW read to SET sent: $(p2 "$W/$1.work")"
	ktap_info "    of which the current values read: $(p2 "$W/$1.read"), the originals written ahead: $(p2 "$W/$1.rec")"
	ktap_info "  the SET (kernel round trip): $(p2 "$W/$1.set")"
}
if plugs daemon "$DFD" '*: new (ifindex *): timing: *' && to_applied daemon &&
	summary daemon "usbethd: NEW sent to values applied (target p99 <= 2000 us)" &&
	stages daemon; then
	d50=$p50 d99=$p99
	ktap_ok daemon_latency
else
	ktap_fail daemon_latency
fi

# the same with a CPU hog per vCPU beside the daemon, at its priority
hogs=${USBETHD_BENCH_HOGS:-$(nproc)}
for ((i = 0; i < hogs; i++)); do
	( while :; do :; done ) &
	hog_pids+=($!)
done
ktap_info "with $hogs CPU hogs beside it:"
if plugs loaded "$DFD" '*: new (ifindex *): timing: *' && to_applied loaded &&
	summary loaded "usbethd under load: NEW sent to values applied" &&
	stages loaded; then
	for f in bind wake work set; do
		ktap_info "  under load / quiet, $f: p50 $(awk "BEGIN { printf \"%.2f\", $(pct "$W/loaded.$f" 50) / ($(pct "$W/daemon.$f" 50) + 0.001) }")x, p99 $(awk "BEGIN { printf \"%.2f\", $(pct "$W/loaded.$f" 99) / ($(pct "$W/daemon.$f" 99) + 0.001) }")x"
	done
	# the plug to the values in the driver, shared out: the daemon's
	# work against the kernel's (bind, delivery, SET), per plug
	for r in daemon loaded; do
		paste -d' ' "$W/$r.bind" "$W/$r.wake" "$W/$r.work" "$W/$r.set" |
			awk 'NF == 4 { t = $1 + $2 + $3 + $4; if (t > 0) print int(100 * $3 / t) }' > "$W/$r.share"
		ktap_info "  $r: the daemon's work as a share of plug to applied: p50 $(pct "$W/$r.share" 50)%, p99 $(pct "$W/$r.share" 99)%"
	done
	ktap_ok daemon_latency_loaded
else
	ktap_fail daemon_latency_loaded
fi
kill "${hog_pids[@]}" 2>/dev/null
wait "${hog_pids[@]}" 2>/dev/null
hog_pids=()
# keep its log drained from now on, so that it never blocks on a full pipe
cat <&"$DFD" >> "$W/daemon.log" &
drain=$!

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

# --- the floors: what this VM costs any handler, and any usbeth client
exec {PFD}< <(exec "$LAT" wake "$N")
ppid=$!
read -r -t 30 -u "$PFD" line && [ "$line" = ready ] || ktap_info "usbethd-lat did not start"
if plugs wake "$PFD" 'wake *' && to_user wake &&
	summary wake "floor of any handler (reads the NEW, nothing else)"; then
	ktap_ok wake_floor
else
	ktap_fail wake_floor
fi
wait "$ppid" 2>/dev/null
exec {PFD}<&-

exec {PFD}< <(exec "$LAT" setter)
ppid=$!
read -r -t 30 -u "$PFD" line && [ "$line" = ready ] || ktap_info "usbethd-lat did not start"
if plugs setter "$PFD" 'setter *' && to_applied setter &&
	summary setter "floor of any usbeth client (one SET per NEW, nothing else)"; then
	[ -n "${d50:-}" ] && ktap_info "usbethd over this floor: p50 $((d50 - p50)) us, p99 $((d99 - p99)) us"
	ktap_ok setter_floor
else
	ktap_fail setter_floor
fi
kill "$ppid" 2>/dev/null
wait "$ppid" 2>/dev/null
ppid=
exec {PFD}<&-

# --- the udev-style baseline: a shell per event writing the same values
script='echo 50 > /sys/class/net/$IFACE/cdc_ncm/tx_timer_usecs; echo 8192 > /sys/class/net/$IFACE/queues/tx-0/byte_queue_limits/limit_max'
exec {PFD}< <(exec "$LAT" spawn "$N" "$script")
ppid=$!
read -r -t 30 -u "$PFD" line && [ "$line" = ready ] || ktap_info "usbethd-lat did not start"
if plugs spawn "$PFD" 'spawn *' && to_user spawn &&
	summary spawn "shell per event (to its exit)"; then
	s50=$p50 s99=$p99
	ktap_ok spawn_latency
else
	ktap_fail spawn_latency
fi
wait "$ppid" 2>/dev/null
ppid=
exec {PFD}<&-

if [ -n "${d50:-}" ] && [ -n "${s50:-}" ]; then
	ktap_info "ratio shell/usbethd: p50 $(awk "BEGIN { printf \"%.1f\", $s50 / $d50 }")x, p99 $(awk "BEGIN { printf \"%.1f\", $s99 / $d99 }")x (target >= 10x)"
	ktap_ok ratio
else
	ktap_fail ratio
fi
ktap_finish
