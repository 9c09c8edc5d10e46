#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What bounds ping under load on the test bed, inside the VM, on the USB
# NCM link at each speed with the drivers' defaults (no knob set), in one
# boot, fq_codel on both ends as in data.sh:
#   idle:     ping host -> gadget, the link and the CPUs idle;
#   cpu load: the same ping while iperf3 runs over the host netns' own
#             loopback: both vCPUs busy, nothing queued on the link;
#   upload:   the same ping while iperf3 runs host -> gadget over the link
#             (data.sh's upload cell).
# Both ends of the link live in this one guest, so a transfer loads the
# CPUs that also answer the ping: "cpu load" shows how much of the ping
# under load that alone costs, with no queue on the link at all. One
# "# floor:" line per speed (bench-report.py --kernels reads them), with
# the wire time of one 16 KiB NTB at the measured upload rate. The
# driver's state is checked before and after as data.sh does.
#
#   USBETH_BENCH_SECS  seconds of each iperf3 run after its first (default 8)
#   USBETH_BENCH_LINKS the links (default "ncm-full ncm-high ncm-super")
# usbeth-timeout: 1800
source "$(dirname "$0")/../lib.sh"
SECS=${USBETH_BENCH_SECS:-8}
LINKS=${USBETH_BENCH_LINKS:-ncm-full ncm-high ncm-super}
W=/tmp/usbeth-bench-floor
[[ $SECS =~ ^[1-9][0-9]?$ ]] || bail "USBETH_BENCH_SECS '$SECS' is not 1..99"
command -v iperf3 > /dev/null && command -v ping > /dev/null ||
	env_missing "iperf3 and ping are needed (scripts/setup.sh installs them)"
source "$(dirname "$0")/measure.sh"
rm -rf "$W" && mkdir -p "$W"
trap ncm_teardown EXIT

# the defaults' state, as data.sh records it
state() {
	local f out=()
	for f in tx_max rx_max tx_timer_usecs; do
		out+=("drv_$f=$(sysfs_of "$NCM_HOST_NS" "$NCM_HOST_IF" "cdc_ncm/$f")")
	done
	echo "${out[*]}"
}

ktap_plan "$(wc -w <<< "$LINKS")"
for lnk in $LINKS; do
	case $lnk in
	ncm-full | ncm-high | ncm-super) ;;
	*) bail "unknown link '$lnk' (ncm-full, ncm-high, ncm-super)" ;;
	esac
	ncm_setup -s "${lnk#ncm-}"
	H=$NCM_HOST_NS G=$NCM_GADGET_NS A=$NCM_GADGET_ADDR
	tc -n "$H" qdisc replace dev "$NCM_HOST_IF" root fq_codel &&
		tc -n "$G" qdisc replace dev "$NCM_GADGET_IF" root fq_codel || bail "no fq_codel"
	before=$(state)
	rtts "$H" "$A" 40 "$W/idle"
	read -r i50 _ _ _ <<< "$(pctl "$W/idle")"
	cpu=$(loaded "$H" 127.0.0.1 "$H" "$H" "$A") || bail "$lnk: iperf3 over loopback failed"
	up=$(loaded "$G" "$A" "$H" "$H" "$A") || bail "$lnk: iperf3 upload failed"
	after=$(state)
	read -r _ c50 _ _ cn <<< "$cpu"
	read -r umb u50 _ _ un <<< "$up"
	if [ "$before" != "$after" ] || [ "$before" != "drv_tx_max=16384 drv_rx_max=16384 drv_tx_timer_usecs=400" ]; then
		ktap_fail "$lnk" "the driver did not hold its defaults: before '$before', after '$after'"
	else
		ntb=$(awk -v m="$umb" 'BEGIN { printf "%.2f", 16384 * 8 / (m * 1000) }')
		echo "# floor: kernel=$USBETH_KERNEL link=$lnk idle_p50=$i50 cpu_p50=$c50 cpu_n=$cn" \
			"up_mbit=$umb up_p50=$u50 up_n=$un ntb_ms=$ntb $after"
		ktap_ok "$lnk"
	fi
	ncm_teardown
done
ktap_finish
