#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data-plane measurements the benchmarks share (data.sh, floor.sh),
# sourced after lib.sh. They use the caller's $W (a scratch directory) and
# $SECS (seconds of each iperf3 run after its first).

# pctl FILE: "p50 p90 p99 n" of the RTTs (ms, one per line) in FILE,
# nearest-rank; "- - - 0" when it holds none.
pctl() {
	sort -g "$1" | awk '{ v[NR] = $1 }
		function r(p,  i) { i = int(p * NR / 100 + 0.999999); if (i < 1) i = 1; return v[i] }
		END { if (NR == 0) print "- - - 0"; else printf "%s %s %s %d\n", r(50), r(90), r(99), NR }'
}
# rtts NS ADDR COUNT FILE: COUNT pings PROBE_INT seconds apart (default
# 50 ms), the RTTs into FILE; lost probes count as missing samples (n shows
# them).
PROBE_INT=${PROBE_INT:-0.05}
rtts() {
	ip netns exec "$1" ping -n -i "$PROBE_INT" -W 2 -c "$3" "$2" 2>/dev/null |
		sed -n 's/.* time=\([0-9.]*\) ms$/\1/p' > "$4"
}

# __wire SECONDS: "MBIT IDLE LATE" over SECONDS (a measurement window:
# sleep is its length, not a wait for an event): the received Mbit/s of
# WIRE_IF and, with WIRE_CTL ("SOCKET up|down", an emulated device's
# control socket), the percentages of the window its egress that way sat
# idle with nothing to send, and that the emulator woke late for what was
# due (usbemu's late-us; "-" without)
__wire() {
	local b i0=0 i1=0 l0=0 l1=0
	[ -n "${WIRE_CTL:-}" ] && read -r i0 l0 < <(__idle_late_us)
	b=$(bytes_over "${WIRE_IF% *}" "${WIRE_IF#* }" rx "$1")
	[ -n "${WIRE_CTL:-}" ] && read -r i1 l1 < <(__idle_late_us)
	# t in microseconds; idle-us and late-us too
	awk -v b="${b% *}" -v t="${b#* }" -v i="$((i1 - i0))" -v l="$((l1 - l0))" \
		-v c="${WIRE_CTL:-}" 'BEGIN {
		if (c == "") printf "%.2f - -\n", b * 8 / t
		else printf "%.2f %.1f %.1f\n", b * 8 / t, i * 100 / t, l * 100 / t }'
}
__idle_late_us() {
	"$USBEMU" ctl "${WIRE_CTL% *}" stats | tr ' ' '\n' |
		awk -F= -v k="${WIRE_CTL#* }-idle-us" '$1 == k { i = $2 } $1 == "late-us" { l = $2 }
			END { print i + 0, l + 0 }'
}

# loaded SRV_NS SRV_ADDR CLI_NS PING_NS PING_ADDR: an iperf3 run from
# CLI_NS to the server at SRV_ADDR with pings from PING_NS to PING_ADDR
# once the first OMIT seconds (default 1) are over; prints "MBIT_S p50 p90
# p99 n" (MBIT_S: what the receiver got over the SECS after them). One TCP
# flow, or with UDP_BPS set, UDP sent at that many bit/s.
loaded() {
	local sns=$1 saddr=$2 cns=$3 pns=$4 paddr=$5 tries=0 line got ifd ipid mbit=
	ip netns exec "$sns" iperf3 -s -1 -D -B "$saddr" > /dev/null 2>&1 || return 1
	while :; do
		exec {ifd}< <(exec ip netns exec "$cns" iperf3 -c "$saddr" -f m -i 1 \
			${UDP_BPS:+-u -b "$UDP_BPS"} --forceflush -O "${OMIT:-1}" -t "$SECS" 2>&1)
		ipid=$!
		got=0
		while read -r -t 30 -u "$ifd" line; do
			case $line in
			*"unable to"*) got=0; break ;;
			*" sec "*) got=$((got + 1)); [ $got -lt "${OMIT:-1}" ] || break ;;
			esac
		done
		[ $got -ge "${OMIT:-1}" ] || got=
		[ -n "$got" ] && break
		exec {ifd}<&-
		wait "$ipid"
		tries=$((tries + 1))
		[ $tries -lt 50 ] || { ktap_info "iperf3 to $saddr: $line" >&2; return 1; }
		sleep 0.1	# the server has no "listening" event to wait on
	done
	# probes over the run less its last half second; with WIRE_IF ("NETNS
	# IFNAME", the receiving side) set, that netdev's received bytes over a
	# window of SECS - 1.5 s from the probes' start, well inside the
	# transfer, as Mbit/s into $W/wire: the rate on the wire under load
	local wpid=
	if [ -n "${WIRE_IF:-}" ]; then
		: > "$W/wire"
		__wire "$((SECS - 2)).5" > "$W/wire" &
		wpid=$!
	fi
	rtts "$pns" "$paddr" "$(awk -v s="$SECS" -v i="$PROBE_INT" 'BEGIN { printf "%d", (s - 0.5) / i }')" "$W/rtt.load"
	[ -n "$wpid" ] && wait "$wpid"
	: > "$W/iperf.out"
	# a transfer that stalls (gadget -> host under TCG, seen) is cut off
	# SECS + 15 s after its first second, not left to iperf3's own timeout
	local end=$((SECONDS + SECS + 15))
	while [ $SECONDS -lt $end ] && read -r -t $((end - SECONDS)) -u "$ifd" line; do
		printf '%s\n' "$line" >> "$W/iperf.out"
		case $line in
		*" receiver"*) mbit=$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") print $i }' <<< "$line") ;;
		esac
	done
	[ -n "$mbit" ] || kill "$ipid" 2>/dev/null
	exec {ifd}<&-
	if ! wait "$ipid" || [ -z "$mbit" ]; then
		{
			ktap_info "iperf3 $cns -> $saddr failed; its last lines:"
			tail -n 5 "$W/iperf.out" | sed 's/^/#   /'
		} >&2
		return 1
	fi
	echo "$mbit $(pctl "$W/rtt.load")"
}
