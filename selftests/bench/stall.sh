#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A probe, not a test: what the host side of the NCM link holds while a
# gadget -> host transfer runs, once a second, to find why such transfers
# stall with the host's cdc_ncm TX timer on (make bench-data, 7.3, full
# speed: docs/performance.md). The host only sends the TCP ACKs of that
# direction, so its TX path is the suspect: BQL (usbnet accounts NTBs from
# 6.19 on), the qdisc backlog, the driver's NTB counters.
#
#   run-vm.sh -K KERNEL selftests/bench/stall.sh
#
# Environment: USBETH_STALL_SPEEDS (default "full"), USBETH_STALL_CONFIGS
# (`usbeth link set` argument lists, ";"-separated; default the driver's
# defaults and tx-timer-usecs 0), USBETH_STALL_SECS (default 10).
# What it found (7.3, full speed; docs/performance.md): the gadget's f_ncm.
# Its TX timer flushes the NTB being built by calling u_ether's xmit with no
# skb; when both IN requests (full speed has 2) are out, that returns
# NETDEV_TX_BUSY, the NTB stays, and the timer is armed again only for a new
# NTB, so what is in it waits until later frames fill it. The kprobes on
# ncm_tx_timeout and eth_start_xmit (its skb argument, its return value)
# show it: the longest time the gadget queued nothing on bulk IN starts
# right after a flush that returned 16. And a poke: at the first sample
# without a received byte, 15 pings of 1400 bytes from the gadget; the
# first ones come back together once enough of them fill the NTB.
# Each sample line:
#   # stall: t=S rx_bytes=B tx_bytes=B bql_inflight=N bql_limit=N
#     qdisc=BACKLOG requeues=N host_rx_err=E/D gadget_tx_bytes=B
#     gadget_tx_err=E/D gadget_qdisc=BACKLOG tx_ntbs=N tx_reason_...=N ...
# usbeth-timeout: 1800
source "$(dirname "$0")/../lib.sh"

SPEEDS=${USBETH_STALL_SPEEDS:-full}
SECS=${USBETH_STALL_SECS:-10}
IFS=';' read -ra CONFIGS <<< "${USBETH_STALL_CONFIGS:-;tx-timer-usecs 0}"
[[ $SECS =~ ^[1-9][0-9]?$ ]] || bail "USBETH_STALL_SECS '$SECS' is not 1..99"
trap ncm_teardown EXIT

# sample T: one line of the host side's TX state
sample() {
	local q=queues/tx-0/byte_queue_limits st
	st=$(in_ns "$NCM_HOST_NS" ethtool -S "$NCM_HOST_IF" |
		awk '$1 ~ /^tx_(ntbs|reason_ntb_full|reason_timeout|reason_ndp_full|reason_max_datagram|overhead)|^rx_ntbs/ { sub(/:$/, "", $1); printf " %s=%s", $1, $2 }')
	echo "# stall: t=$1 rx_bytes=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" statistics/rx_bytes)" \
		"tx_bytes=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" statistics/tx_bytes)" \
		"bql_inflight=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" $q/inflight)" \
		"bql_limit=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" $q/limit)" \
		"qdisc=$(tc -n "$NCM_HOST_NS" -s qdisc show dev "$NCM_HOST_IF" |
			awk '/backlog/ { printf "%s/%s", $2, $3 } /requeues/ { for (i = 1; i < NF; i++) if ($i == "requeues") r = $(i + 1) } END { printf " requeues=%s", r }')" \
		"host_rx_err=$(stat_of "$NCM_HOST_NS" "$NCM_HOST_IF" rx_errors)/$(stat_of "$NCM_HOST_NS" "$NCM_HOST_IF" rx_dropped)" \
		"gadget_tx_bytes=$(stat_of "$NCM_GADGET_NS" "$NCM_GADGET_IF" tx_bytes)" \
		"gadget_tx_err=$(stat_of "$NCM_GADGET_NS" "$NCM_GADGET_IF" tx_errors)/$(stat_of "$NCM_GADGET_NS" "$NCM_GADGET_IF" tx_dropped)" \
		"gadget_qdisc=$(tc -n "$NCM_GADGET_NS" -s qdisc show dev "$NCM_GADGET_IF" | awk '/backlog/ { printf "%s/%s", $2, $3 }')$st"
}
stat_of() { sysfs_of "$1" "$2" "statistics/$3"; }

ktap_plan $(( $(wc -w <<< "$SPEEDS") * ${#CONFIGS[@]} ))
for speed in $SPEEDS; do
	ncm_create -s "$speed"
	for cfg in "${CONFIGS[@]}"; do
		ncm_plug
		tc -n "$NCM_HOST_NS" qdisc replace dev "$NCM_HOST_IF" root fq_codel
		tc -n "$NCM_GADGET_NS" qdisc replace dev "$NCM_GADGET_IF" root fq_codel
		if [ -n "$cfg" ]; then
			# shellcheck disable=SC2086 # the knob list splits on purpose
			"$USBETH_CLI" -n "$NCM_HOST_NS" link set dev "$NCM_HOST_IF" $cfg ||
				bail "usbeth link set $cfg"
		fi
		ktap_info "$speed, ${cfg:-defaults}: tx_timer_usecs $(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" cdc_ncm/tx_timer_usecs)," \
			"tx_max $(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" cdc_ncm/tx_max)"
		ip netns exec "$NCM_HOST_NS" iperf3 -s -1 -D -B "$NCM_HOST_ADDR" > /dev/null 2>&1
		tries=0
		until ip netns exec "$NCM_GADGET_NS" iperf3 -c "$NCM_HOST_ADDR" -t 1 > /dev/null 2>&1; do
			tries=$((tries + 1))
			[ $tries -lt 50 ] || bail "iperf3 to $NCM_HOST_ADDR never connected"
			sleep 0.1	# the server has no "listening" event to wait on
		done
		ip netns exec "$NCM_HOST_NS" iperf3 -s -1 -D -B "$NCM_HOST_ADDR" > /dev/null 2>&1
		# usbmon on the link's bus: whether the host still has a bulk IN
		# URB out (then the gadget holds the data) or none (the host's
		# RX path stopped asking)
		mon=
		bus=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" device/../busnum)
		if modprobe usbmon 2>/dev/null && [ -r "/sys/kernel/debug/usb/usbmon/${bus}u" ]; then
			cat "/sys/kernel/debug/usb/usbmon/${bus}u" > /tmp/stall.usbmon &
			mon=$!
		fi
		# the gadget's side of the same endpoints: every request u_ether
		# queues on the UDC and every one the UDC gives back
		tr=/sys/kernel/debug/tracing
		if [ -w $tr/events/gadget/usb_ep_queue/enable ]; then
			echo 0 > $tr/tracing_on
			echo > $tr/trace
			echo 4096 > $tr/buffer_size_kb
			echo 1 > $tr/events/gadget/usb_ep_queue/enable
			echo 1 > $tr/events/gadget/usb_gadget_giveback_request/enable
			# the flush timer, and what u_ether's xmit returns (16:
			# NETDEV_TX_BUSY) when called with no skb
			kp=$tr/kprobe_events
			echo 'p:stall/tmo ncm_tx_timeout' >> $kp 2>/dev/null &&
				echo 'p:stall/xin eth_start_xmit skb=$arg1' >> $kp 2>/dev/null &&
				echo 'r:stall/xret eth_start_xmit ret=$retval' >> $kp 2>/dev/null &&
				echo 1 > $tr/events/stall/enable || ktap_info "no kprobes on f_ncm/u_ether"
			echo 1 > $tr/tracing_on
		else
			tr=
		fi
		sleep 0.5
		ip netns exec "$NCM_GADGET_NS" timeout $((SECS + 20)) iperf3 -c "$NCM_HOST_ADDR" \
			-t "$SECS" -i 1 -f m > "/tmp/stall.iperf" 2>&1 &
		ipid=$!
		sample 0
		stalled=0 last='' poke=''
		for ((t = 1; t <= SECS + 5; t++)); do
			sleep 1	# the sampling period, not a wait for an event
			line=$(sample "$t")
			echo "$line"
			rx=${line#*rx_bytes=} rx=${rx%% *}
			[ -n "$last" ] && [ "$rx" = "$last" ] && kill -0 $ipid 2>/dev/null && stalled=$((stalled + 1))
			if [ $stalled -eq 1 ] && [ -z "$poke" ]; then
				ip netns exec "$NCM_GADGET_NS" ping -c 15 -s 1400 -i 0.2 -W 10 "$NCM_HOST_ADDR" \
					> /tmp/stall.poke 2>&1 &
				poke=$t pokepid=$!
				echo "# stall: t=$t poke: 15 pings of 1400 bytes from the gadget"
			fi
			last=$rx
			kill -0 $ipid 2>/dev/null || break
		done
		wait $ipid
		rc=$?
		if [ -n "$mon" ]; then
			kill $mon
			wait $mon 2>/dev/null
			ktap_info "usbmon bus $bus: $(wc -l < /tmp/stall.usbmon) events; bulk URBs still out at the end:"
			# S(ubmit) without its C(omplete), by URB tag
			awk '$3 == "S" && $4 ~ /^B/ { out[$1] = $0 } $3 == "C" { delete out[$1] }
				END { for (u in out) print out[u] }' /tmp/stall.usbmon | cut -c1-100 | sed 's/^/#   /'
			ktap_info "the last bulk events:"
			grep -E '^[0-9a-f]+ [0-9]+ [SC] B' /tmp/stall.usbmon | tail -n 6 | cut -c1-100 | sed 's/^/#   /'
		fi
		if [ -n "$tr" ]; then
			echo 0 > $tr/tracing_on
			echo 0 > $tr/events/gadget/usb_ep_queue/enable
			echo 0 > $tr/events/gadget/usb_gadget_giveback_request/enable
			[ -d $tr/events/stall ] && echo 0 > $tr/events/stall/enable
			cat $tr/trace > /tmp/stall.trace
			[ -d $tr/events/stall ] && echo > $tr/kprobe_events
			# per CPU, an xmit with no skb (the timer's) and the return
			# that follows it
			ktap_info "f_ncm flush timer: $(grep -c ' tmo: ' /tmp/stall.trace) fired;" \
				"its xmits (no skb) returned: $(awk '{ c = $2 } / xin: / { nul[c] = ($NF == "skb=0x0") }
					/ xret: / && nul[c] { r[$NF]++; nul[c] = 0 }
					END { for (k in r) printf "%s x%d ", k, r[k] }' /tmp/stall.trace)"
			# the longest time the gadget queued nothing on its bulk IN
			# endpoint, and what its flush timer did just before and in it
			awk 'function ts() { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+[.][0-9]+:$/) return $i + 0; return -1 }
				NR == FNR { if (/ usb_ep_queue: ep[0-9]+in-bulk/) { t = ts()
						if (p != "" && t - p > gap) { gap = t - p; gs = p; ge = t }
						p = t }
					next }
				/ (tmo|xin|xret|usb_ep_queue|usb_gadget_giveback_request): / { t = ts()
					sub(/^ */, ""); l = "#   " substr($0, 1, 150)
					if (t <= gs) b[m++ % 12] = l
					else if (t < ge && a < 12) w[a++] = l
					if (t > gs && t < ge && / tmo: /) n++ }
				END { printf "# the gadget queued nothing on bulk IN for %.3f s (%.6f to %.6f); around its start:\n", gap, gs, ge
					for (i = (m > 12 ? m - 12 : 0); i < m; i++) print b[i % 12]
					for (i = 0; i < a; i++) print w[i]
					printf "# flush-timer runs inside it: %d\n", n }' /tmp/stall.trace /tmp/stall.trace
			ktap_info "gadget requests: $(grep -cE 'usb_ep_queue: ep[0-9]+in-bulk' /tmp/stall.trace) queued on the bulk IN endpoint," \
				"$(grep -cE 'usb_gadget_giveback_request: ep[0-9]+in-bulk' /tmp/stall.trace) given back; the last of its events:"
			grep -E '(usb_ep_queue|usb_gadget_giveback_request): ep[0-9]+in-bulk' /tmp/stall.trace | tail -n 6 |
				sed 's/^ *//' | cut -c1-160 | sed 's/^/#   /'
		fi
		sed 's/^/#   /' /tmp/stall.iperf | grep -E 'sec|error|unable' | tail -n 4
		if [ -n "$poke" ]; then
			wait "$pokepid"
			ktap_info "the poke at t=$poke:"
			grep -E 'bytes from|transmitted' /tmp/stall.poke | sed 's/^/#   /' | tail -n 16
		fi
		ip netns exec "$NCM_HOST_NS" pkill -x iperf3
		if [ $rc -eq 0 ] && [ $stalled -eq 0 ]; then
			ktap_ok "${speed}_${cfg:-defaults}"
		else
			ktap_fail "${speed}_${cfg:-defaults}" "iperf3 rc=$rc, $stalled seconds without a received byte"
		fi
		ncm_unplug
	done
	ncm_teardown
done
ktap_finish
