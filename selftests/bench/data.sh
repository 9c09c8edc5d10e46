#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-data`, inside the usbeth VM: the data plane under each
# configuration of the knobs, on the real links. No timed assertions: it
# prints one "# data:" line per measured cell, which the host turns into
# build/bench/report.md and plots (scripts/bench-report.py).
#
# Links: the USB NCM link (dummy_hcd + configfs NCM gadget, cdc_ncm on the
# host side) at full, high and super speed, the e1000e pair, and QEMU's
# usb-net USB NIC wired to an e1000e (lib.sh: unet_*; "usbnet" drives it
# with cdc_ether, "usbnet-rndis" with rndis_host; both over usbnet, which
# does BQL accounting from 6.19 on: 7.3 here). fq_codel
# on every interface, as Debian's systemd sets it (net.core.default_qdisc).
#
# And the emulated devices with a bottleneck behind the USB link (lib.sh:
# emu_*, tools/usbemu.c; docs/testing.md says what each models), at high
# speed, the host side in netns emu-bhost, the peer on the device's far
# side:
#   dongle      CDC ECM (cdc_ether), a 16 KiB buffer that NAKs, 4 Mbit/s
#               each way: at most a third of what the same link carries
#               unlimited in the same boot, which is measured first (the
#               link fails when it carries less than three times that);
#               at 10 Mbit/s, two boots side by side left the egress idle
#               in most cells (the guests' CPUs did not keep it busy)
#   dongle-udp  the same device under a UDP upload at twice its rate
#               (iperf3 -u) instead of one TCP flow: a load that keeps
#               every queue before the bottleneck full, as several flows
#               or a sender without TCP's small queues do. Uploads only:
#               a download's queue would be the far side's TAP ring
#   modem       a QMI modem (qmi_wwan, 2c7c:0125), 5 Mbit/s up, 10 down,
#               20 ms each way, 512 KiB buffers that accept and drop
#               (bloat): 0.84 s at 5 Mbit/s, as 1 MiB at 10. Its figures
#               come from after the first 6 s of a transfer, once TCP's
#               slow start has overshot the buffer and recovered. An LTE
#               modem's 10 up and 40 down are beyond two guests at once
#               here: 10/20 carried 9.57/16.5 Mbit/s, the egress idle
#               16%/28% (the senders' CPU; 6.1 beside 7.3)
#   modem-step  the same, its rates stepping between 5/10 and 1/2 Mbit/s
#               every 2 s, so that a fixed rate is wrong half the time
#   modem-ncm   a modem on cdc_ncm (2c7c:0900, the product ID made up),
#               64 KiB NTBs, 64 KiB buffers that NAK, the modem's rates
#               and delay
#   dock        CDC NCM posing as a DisplayLink dock (17e9, cdc_ncm), 64 KiB
#               NTBs, each bulk transfer costing the device 1 ms: a model,
#               not a measured dock
#   dock-busy   the same dock, each transfer costing it 4 ms: its rate is
#               set by the NTB size (a 16 KiB NTB per 4 ms is 33 Mbit/s),
#               not by the guest's CPU, as with the 1 ms dock
# On these, ping probes go 20 ms apart (at least 200 per figure), the rate
# on the wire is read off the receiving netdev's byte counter while they
# run (up_wire, down_wire: Mbit/s of frames), with the share of that window
# the device's egress sat idle with nothing to send (up_idle, down_idle:
# %, usbemu's count), and a direction whose wire rate is not the emulated
# rate within 5% is refused: its figures are left out ("-", refused=up or
# down), and a cell with neither is error=below-rate, not counted as a
# failure of the run: something other than the emulated link set them, the
# CPU (the emulator woke late for what was due over 5% of the window:
# up_late, down_late, usbemu's late-us; the guest was starved, and the
# sender with it), the sender (an idle egress on time: TCP after a tail
# drop in a bloated buffer, say) or the emulator (a busy egress behind its
# rate); modem-step and dock have no fixed rate to hold.
#
# Per cell (one configuration, one round): a fresh plug (so every cell
# starts from the driver's defaults: the host netdev is new; on the usbnet
# links the USB NIC is plugged into the VM anew), the knobs set
# through usbeth (or the profile applied by usbethd itself, the gadget posing
# as a matching device: the daemon's log is marked first, so only this
# cell's apply counts), the driver's own state (sysfs, configfs) checked
# against what the configuration declares (configs.txt, or the profile's
# JSON; bench-report.py --verify), then
#   idle RTT: ping host -> gadget, 20 probes 50 ms apart;
#   upload: iperf3 host -> gadget, with ping host -> gadget alongside;
#   download: iperf3 gadget -> host, with ping gadget -> host alongside.
# The pings under load start once iperf3 reports its first (omitted) second,
# so they measure a full queue, not the ramp. Ping goes from the sender, so
# its probe waits behind the sender's queue: the one the knobs size.
# The driver's state is checked again after the transfers; a cell whose
# driver held anything else at either point fails (error=state), with both
# states printed, and gives no figures.
# Rounds are interleaved: every configuration once, then again, each round
# in a random order (USBETH_BENCH_SEED, printed, repeats one); "defaults"
# and "defaults-again" are the A/A pair of every round.
#
# Environment (all optional):
#   USBETH_BENCH_ROUNDS   rounds (default 3)
#   USBETH_BENCH_LINKS    links (default "ncm-full ncm-high ncm-super e1000e
#                         usbnet usbnet-rndis dongle dongle-udp modem modem-step
#                         modem-ncm dock dock-busy")
#   USBETH_BENCH_SEED     the seed of the random order (default: the clock)
#   USBETH_BENCH_SECS     seconds of each iperf3 run after its first (default 4)
#   USBETH_BENCH_CONFIGS  an ERE: only configurations whose name, or
#                         LINK:NAME, matches
#   USBETH_BENCH_DIRS     "up down", "up" or "down": the transfers measured
#                         (a direction left out is "-" in its line). Default
#                         "up down", but "up" on ncm-full: there gadget ->
#                         host stalls within seconds on every stock kernel,
#                         whatever the host's knobs (selftests/bench/stall.sh
#                         traces it: f_ncm's flush timer is refused while
#                         both IN requests are out and is not armed again, so
#                         an NTB waits to be filled), so a download cell
#                         would measure the stall, not the configuration. A
#                         kernel with upstream/'s fix (7.3-fixed) measures
#                         both there too.
# usbeth-timeout: 10800
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../usbethd_lib.sh"

ROUNDS=${USBETH_BENCH_ROUNDS:-3}
LINKS=${USBETH_BENCH_LINKS:-ncm-full ncm-high ncm-super e1000e usbnet usbnet-rndis dongle dongle-udp modem modem-step modem-ncm dock dock-busy}
SEED=${USBETH_BENCH_SEED:-$(date +%s)}
[[ $SEED =~ ^[0-9]{1,10}$ ]] || bail "USBETH_BENCH_SEED '$SEED' is not a number"
RANDOM=$SEED
SECS=${USBETH_BENCH_SECS:-4}
ONLY=${USBETH_BENCH_CONFIGS:-}
DIRS=${USBETH_BENCH_DIRS:-}
D=$USBETHD
W=/tmp/usbeth-bench-data
BUILTIN=$W/builtin ADMIN=$W/admin RUN=$W/run LOG=$W/daemon.log
DPID='' DFD=''
[[ $ROUNDS =~ ^[1-9][0-9]?$ ]] || bail "USBETH_BENCH_ROUNDS '$ROUNDS' is not 1..99"
[[ $SECS =~ ^[1-9][0-9]?$ ]] || bail "USBETH_BENCH_SECS '$SECS' is not 1..99"
[[ -z $DIRS || $DIRS =~ ^(up|down|up\ down|down\ up)$ ]] ||
	bail "USBETH_BENCH_DIRS '$DIRS' is not \"up down\", up or down"
command -v iperf3 > /dev/null && command -v ping > /dev/null ||
	env_missing "iperf3 and ping are needed (scripts/setup.sh installs them)"

# The gadget's default USB IDs, and the ones the profile cells pose as.
VID_PLAIN=0x1d6b PID_PLAIN=0x0104
VID_MODEM=0x2c7c PID_MODEM=0x0125	# Quectel EC25: a modem vendor's id
VID_DL=0x17e9 PID_DL=0x4301		# DisplayLink: the displaylink profile

cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	emu_teardown
	ip netns del "$EMU_HOST_NS" 2>/dev/null
	wait 2>/dev/null
	ncm_teardown
	e1k_teardown
	unet_teardown
}
trap cleanup EXIT
rm -rf "$W" && mkdir -p "$RUN" "$ADMIN" && : > "$LOG"
stage_profiles "$BUILTIN" || bail "cannot stage the built-in profiles"
chmod 0755 "$ADMIN"

# Configurations: selftests/bench/configs.txt, the one table of what each
# configuration sets, which bench-report.py checks every data line against.
CONFIGS=$(dirname "$0")/configs.txt
REPORT=$USBETH_TOP/scripts/bench-report.py
[ -r "$CONFIGS" ] || bail "no configuration table $CONFIGS"
# configs_of LINK: "NAME|KNOBS" of every configuration LINK runs, in order
# (a retired profile's none: configs.txt)
configs_of() {
	local links name knobs l
	while IFS='|' read -r links name knobs; do
		[[ -z $links || $links == \#* || $knobs == retired ]] && continue
		for l in $links; do [ "$l" = "$1" ] && echo "$name|$knobs"; done
	done < "$CONFIGS"
}

# The emulated links: usbemu's personality and options, and the rates a
# cell must carry (bit/s, up and down; empty: none to hold)
EMU_HOST_NS=emu-bhost
declare -A EMU_ARGS=(
	[dongle]="dongle mode=nak buf-up=16384 buf-down=16384 rate-up=4M rate-down=4M"
	[dongle-udp]="dongle mode=nak buf-up=16384 buf-down=16384 rate-up=4M rate-down=4M"
	[modem]="modem mode=bloat buf-up=524288 buf-down=524288 rate-up=5M rate-down=10M delay-us=20000"
	[modem-step]="modem mode=bloat buf-up=524288 buf-down=524288 delay-us=20000 --steps 2000:5M:10M,2000:1M:2M"
	[modem-ncm]="ncm --id 2c7c:0900 --ntb 65536 mode=nak buf-up=65536 buf-down=65536 rate-up=5M rate-down=10M delay-us=20000"
	[dock]="dock mode=nak buf-up=131072 buf-down=131072 service-us=1000"
	[dock-busy]="dock mode=nak buf-up=131072 buf-down=131072 service-us=4000"
)
declare -A EMU_RATE=([dongle]="4000000 4000000" [dongle-udp]="4000000 4000000" [modem]="5000000 10000000"
	[modem-ncm]="5000000 10000000")
is_emu() { [ -n "${EMU_ARGS[$1]:-}" ]; }

# pctl, rtts, loaded: the measurements (measure.sh)
source "$(dirname "$0")/measure.sh"

# Side handles of the current link: HOST_NS HOST_IF HOST_ADDR, PEER_*.
link_up() { # link_up LINK [VID PID]
	case $1 in
	ncm-*)
		echo "${2:-$VID_PLAIN}" > "$NCM_GADGET/idVendor" &&
			echo "${3:-$PID_PLAIN}" > "$NCM_GADGET/idProduct" || return 1
		ncm_plug
		HOST_NS=$NCM_HOST_NS HOST_IF=$NCM_HOST_IF HOST_ADDR=$NCM_HOST_ADDR
		PEER_NS=$NCM_GADGET_NS PEER_IF=$NCM_GADGET_IF PEER_ADDR=$NCM_GADGET_ADDR
		;;
	e1000e)
		HOST_NS=$E1K_A_NS HOST_IF=$E1K_A_IF HOST_ADDR=$E1K_A_ADDR
		PEER_NS=$E1K_B_NS PEER_IF=$E1K_B_IF PEER_ADDR=$E1K_B_ADDR
		;;
	usbnet | usbnet-rndis)
		if [ "$1" = usbnet ]; then unet_plug; else unet_plug -c rndis; fi
		HOST_NS=$UNET_HOST_NS HOST_IF=$UNET_IF HOST_ADDR=$UNET_HOST_ADDR
		PEER_NS=$UNET_PEER_NS PEER_IF=$UNET_PEER_IF PEER_ADDR=$UNET_PEER_ADDR
		;;
	*)
		local a
		read -ra a <<< "${EMU_ARGS[$1]}"
		# the personality first: its IDs are the ones a profile matches
		emu_plug bench "${a[0]}" "${a[@]:1}"
		emu_up bench "$EMU_HOST_NS"
		HOST_NS=$EMU_HOST_NS HOST_IF=${EMU_IF[bench]} HOST_ADDR=$(emu_addr bench host)
		PEER_NS=emu-bench PEER_IF=far0 PEER_ADDR=$(emu_addr bench far)
		;;
	esac
	tc -n "$HOST_NS" qdisc replace dev "$HOST_IF" root fq_codel &&
		tc -n "$PEER_NS" qdisc replace dev "$PEER_IF" root fq_codel
}
link_down() {
	case $1 in
	ncm-*) ncm_unplug ;;
	usbnet*) unet_unplug ;;
	e1000e) ;;
	*)
		emu_unplug bench
		ip -n "$EMU_HOST_NS" link del "$SHAPER_IFB" 2>/dev/null
		;;
	esac
	return 0
}

# A shaper on the host side of an emulated link: no knob of usbeth's, the
# ecosystem's remedy for a queue in the device (docs/performance.md): cake
# at RATE bit/s on the host's egress (shaper-up) and on its ingress, through
# an ifb the ingress is redirected to (shaper-down, cake's ingress mode),
# each with cake's defaults otherwise, as systemd-networkd's [CAKE]
# Bandwidth= sets it up.
SHAPER_IFB=ifb-bench
shaper_on() { # shaper_on NS IF UP_BPS DOWN_BPS ("-": that side left alone)
	local ns=$1 dev=$2 up=$3 down=$4
	if [ "$up" != - ]; then
		tc -n "$ns" qdisc replace dev "$dev" root cake bandwidth "${up}bit" || return 1
	fi
	[ "$down" = - ] && return 0
	ip -n "$ns" link add "$SHAPER_IFB" type ifb &&
		ip -n "$ns" link set "$SHAPER_IFB" up &&
		tc -n "$ns" qdisc replace dev "$SHAPER_IFB" root cake bandwidth "${down}bit" ingress &&
		tc -n "$ns" qdisc add dev "$dev" handle ffff: ingress &&
		tc -n "$ns" filter add dev "$dev" parent ffff: matchall \
			action mirred egress redirect dev "$SHAPER_IFB"
}
# cake_rate NS IF: the bandwidth (bit/s) of the cake at IF's root, as tc
# reads it back from the kernel, or "none"
cake_rate() {
	tc -n "$1" -j qdisc show dev "$2" root 2>/dev/null | /usr/bin/python3 -c '
import json, sys
try:
    q = [x for x in json.load(sys.stdin) if x.get("root")]
except ValueError:
    q = []
print(q[0]["options"]["bandwidth"] * 8 if q and q[0].get("kind") == "cake" else "none")' ||
		echo none
}
# shaper_redirect NS IF: "ifb" when IF's ingress goes to the shaper's ifb
shaper_redirect() {
	tc -n "$1" filter show dev "$2" ingress 2>/dev/null | grep -q "Redirect to device $SHAPER_IFB" &&
		echo ifb || echo none
}

# e1000e netdevs live on: what a cell changes is put back after it.
E1K_SAVED=()
e1k_coalesce() { in_ns "$E1K_A_NS" ethtool -c "$E1K_A_IF" | awk '$1 == "rx-usecs:" { print $2 }'; }
e1k_save() {
	local lm q
	lm=$(sysfs_of "$E1K_A_NS" "$E1K_A_IF" queues/tx-0/byte_queue_limits/limit_max) &&
		q=$(e1k_coalesce) && [ -n "$q" ] ||
		bail "cannot read the e1000e defaults (limit_max, rx-usecs)"
	E1K_SAVED=(bql-limit-max "$lm" rx-usecs "$q")
	ktap_info "e1000e defaults: ${E1K_SAVED[*]}"
}

# adaptive_tx: cdc_ncm's adaptive TX coalescing on the host netdev, as
# ethtool reads it (on or off), or "none" where the driver has no
# coalescing through ethtool (every kernel without upstream/features/0001
# and 0002)
adaptive_tx() {
	local v
	v=$(ip netns exec "$HOST_NS" ethtool -c "$HOST_IF" 2>/dev/null |
		sed -n 's/^Adaptive RX: *[a-z/]* *TX: *\([a-z]*\).*/\1/p')
	echo "${v:-none}"
}

# drv_state LINK: what the driver itself holds (its sysfs files, ethtool)
# once the cell's knobs are set, for the data line: the figures belong to
# these values, not to what was asked for
drv_state() {
	local f out=() q=queues/tx-0/byte_queue_limits/limit_max
	out+=("drv_limit_max=$(sysfs_of "$HOST_NS" "$HOST_IF" $q)")
	case $1 in
	ncm-*)
		for f in tx_max rx_max tx_timer_usecs; do
			out+=("drv_$f=$(sysfs_of "$HOST_NS" "$HOST_IF" "cdc_ncm/$f")")
		done
		out+=("drv_dev_rx_max=$(sysfs_of "$HOST_NS" "$HOST_IF" cdc_ncm/dwNtbInMaxSize)")
		out+=("drv_dev_tx_max=$(sysfs_of "$HOST_NS" "$HOST_IF" cdc_ncm/dwNtbOutMaxSize)")
		out+=("drv_qmult=$(cat "$NCM_FUNC/qmult")")
		out+=("drv_adaptive_tx=$(adaptive_tx)")
		;;
	e1000e) out+=("drv_rx_usecs=$(e1k_coalesce)") ;;
	usbnet* | dongle* | modem*) out+=("drv_txqueuelen=$(sysfs_of "$HOST_NS" "$HOST_IF" tx_queue_len)") ;;
	esac
	if is_emu "$1"; then
		out+=("drv_shaper_up=$(cake_rate "$HOST_NS" "$HOST_IF")")
		if [ "$(shaper_redirect "$HOST_NS" "$HOST_IF")" = ifb ]; then
			out+=("drv_shaper_down=$(cake_rate "$HOST_NS" "$SHAPER_IFB")")
		else
			out+=("drv_shaper_down=none")
		fi
	fi
	case $1 in
	modem-ncm | dock*)
		for f in tx_max rx_max tx_timer_usecs; do
			out+=("drv_$f=$(sysfs_of "$HOST_NS" "$HOST_IF" "cdc_ncm/$f")")
		done
		out+=("drv_dev_rx_max=$(sysfs_of "$HOST_NS" "$HOST_IF" cdc_ncm/dwNtbInMaxSize)")
		out+=("drv_dev_tx_max=$(sysfs_of "$HOST_NS" "$HOST_IF" cdc_ncm/dwNtbOutMaxSize)")
		out+=("drv_adaptive_tx=$(adaptive_tx)")
		;;
	esac
	echo "${out[*]}"
}

ue_set() { # ue_set NS IF KNOB... : usbeth link set, its error shown
	local out
	out=$("$USBETH_CLI" -n "$1" link set dev "$2" "${@:3}" 2>&1) ||
		{ ktap_info "usbeth -n $1 link set dev $2 ${*:3}: $out"; return 1; }
}

# dirs_of LINK: the transfers a cell of LINK measures (USBETH_BENCH_DIRS,
# or by default both but on ncm-full, see the header, unless the kernel has
# the fix of that stall: lib.sh kernel_fixed)
dirs_of() {
	if [ -n "$DIRS" ]; then echo "$DIRS"
	elif [ "$1" = ncm-full ] && [ $NCM_KERNEL_FIXED -eq 0 ]; then echo up
	elif [ "$1" = dongle-udp ]; then echo up
	else echo "up down"
	fi
}

# cell LINK CONFIG ROUND: one measurement, one "# data:" line.
CELL_ERR=0
cell() {
	local lnk=$1 name=${2%%|*} knobs=${2#*|} round=$3 vid='' pid='' prof='' err=''
	local gad=() idle up down drv='' after why dirs
	dirs=$(dirs_of "$lnk")
	case $name in
	profile:cellular-modem-full-speed)
		prof=${name#profile:} vid=$VID_MODEM pid=$PID_MODEM ;;
	profile:displaylink) prof=displaylink vid=$VID_DL pid=$PID_DL ;;
	profile:superspeed-gadget) prof=superspeed-gadget ;;
	esac
	# an emulated device poses by its personality's own IDs (usbemu)
	is_emu "$lnk" && vid='' pid=''
	# and its figures come from at least 200 probes, 20 ms apart (a run
	# of at least 5 s)
	local SECS=$SECS idle_n=20 WIRE_IF='' WIRE_CTL='' UDP_BPS='' OMIT=1 up_wire=- down_wire=- up_idle=- down_idle=-
	local up_late=- down_late=-
	if is_emu "$lnk"; then
		PROBE_INT=0.02 idle_n=200
		[ "$SECS" -ge 5 ] || SECS=5
		# past the slow start's overshoot of a bloated buffer
		[[ ${EMU_ARGS[$lnk]} == *mode=bloat* ]] && OMIT=6
	else
		PROBE_INT=0.05
	fi
	[[ $knobs == @* ]] && { read -ra gad <<< "${knobs#@}"; knobs=; }
	# the shaper's words are for tc, not usbeth (shaper_on); adaptive-tx
	# is ethtool's (cdc_ncm with upstream/features/0002)
	local shp_up=- shp_down=- atx='' w rest=() i
	read -ra w <<< "$knobs"
	for ((i = 0; i < ${#w[@]}; i++)); do
		case ${w[i]} in
		shaper-up) shp_up=${w[i + 1]}; i=$((i + 1)) ;;
		shaper-down) shp_down=${w[i + 1]}; i=$((i + 1)) ;;
		adaptive-tx) atx=${w[i + 1]}; i=$((i + 1)) ;;
		*) rest+=("${w[i]}") ;;
		esac
	done
	knobs=${rest[*]}
	if [ "$prof" = superspeed-gadget ]; then
		# the profile's premise: a system default of qmult lowered (to 1);
		# usbethd raises it on the connected gadget, for the next connect
		gad=(qmult 1)
	fi
	if [ ${#gad[@]} -gt 0 ]; then
		ue_set "$NCM_GADGET_NS" "$NCM_GADGET_IF" "${gad[@]}" || err="set"
	fi
	[ -z "$err" ] && { link_up "$lnk" $vid $pid || err=plug; }
	if [ -z "$err" ] && [ -n "$atx" ] && [ "$(adaptive_tx)" = none ]; then
		# a knob this kernel's driver lacks: no cell, not a failed one
		ktap_info "$lnk $name round $round: skipped: cdc_ncm here has no adaptive-tx"
		link_down "$lnk"
		return 0
	fi
	if [ -z "$err" ] && [ -n "$knobs" ]; then
		# shellcheck disable=SC2086 # the knob list splits on purpose
		ue_set "$HOST_NS" "$HOST_IF" $knobs || err="set"
	fi
	if [ -z "$err" ] && [ -n "$atx" ]; then
		ip netns exec "$HOST_NS" ethtool -C "$HOST_IF" adaptive-tx "$atx" ||
			{ err="set"; ktap_info "$lnk $name: ethtool -C adaptive-tx $atx refused"; }
	fi
	if [ -z "$err" ] && [ "$shp_up$shp_down" != -- ]; then
		shaper_on "$HOST_NS" "$HOST_IF" "$shp_up" "$shp_down" ||
			{ err="set"; ktap_info "$lnk $name: the shaper ($shp_up/$shp_down bit/s) not set"; }
	fi
	if [ -z "$err" ] && [ -n "$prof" ]; then
		if [ "$prof" = superspeed-gadget ]; then
			dmark	# this cell's apply, not an earlier cell's line
			DNS=$PEER_NS daemon_start
			applied "$prof" || err=profile
			if [ -z "$err" ]; then	# the qmult it set, in effect
				link_down "$lnk"
				link_up "$lnk" || err=plug
			fi
		else
			dmark
			DNS=$HOST_NS daemon_start
			applied "$prof" || err=profile
		fi
		ktap_info "$lnk $name: ${DLINE:-no profile applied}"
	fi
	if [ -z "$err" ]; then
		# the cell measures what its configuration declares, or fails
		drv=$(drv_state "$lnk")
		# shellcheck disable=SC2086 # the state's words on purpose
		why=$(/usr/bin/python3 "$REPORT" --verify "$lnk" "$name" $drv 2>&1) ||
			{ err=state; ktap_info "$lnk $name round $round: before the transfers: $why"; ktap_info "  held: $drv"; }
	fi
	if [ -z "$err" ]; then
		rtts "$HOST_NS" "$PEER_ADDR" "$idle_n" "$W/rtt.idle"
		idle=$(pctl "$W/rtt.idle")
		# one more try of a transfer that broke off (seen under TCG)
		if [[ $dirs == *up* ]]; then
			is_emu "$lnk" && WIRE_IF="$PEER_NS $PEER_IF" WIRE_CTL="/tmp/usbemu-bench.sock up"
			[ "$lnk" = dongle-udp ] && UDP_BPS=$((2 * ${EMU_RATE[$lnk]%% *}))
			up=$(loaded "$PEER_NS" "$PEER_ADDR" "$HOST_NS" "$HOST_NS" "$PEER_ADDR") ||
				up=$(loaded "$PEER_NS" "$PEER_ADDR" "$HOST_NS" "$HOST_NS" "$PEER_ADDR") || err=upload
			is_emu "$lnk" && read -r up_wire up_idle up_late < "$W/wire"
		else
			up="- - - - 0"
		fi
	fi
	if [ -z "$err" ] && [[ $dirs != *down* ]]; then
		down="- - - - 0"
	elif [ -z "$err" ]; then
		# a download that fails keeps the cell's other figures
		is_emu "$lnk" && WIRE_IF="$HOST_NS $HOST_IF" WIRE_CTL="/tmp/usbemu-bench.sock down"
		down=$(loaded "$HOST_NS" "$HOST_ADDR" "$PEER_NS" "$PEER_NS" "$HOST_ADDR") ||
			down=$(loaded "$HOST_NS" "$HOST_ADDR" "$PEER_NS" "$PEER_NS" "$HOST_ADDR") ||
			{ down="- - - - 0"; CELL_ERR=$((CELL_ERR + 1)); ktap_info "$lnk $name round $round: no download figures"; }
		[ "${down%% *}" != - ] && is_emu "$lnk" && read -r down_wire down_idle down_late < "$W/wire"
	fi
	local refused=''
	if [ -z "$err" ] && [ -n "${EMU_RATE[$lnk]:-}" ]; then
		# the emulated rate, or something else set that direction's
		# figures: they are dropped ("-"), the other direction's kept
		# shellcheck disable=SC2086
		set -- ${EMU_RATE[$lnk]}
		# behind a shaper: any rate up to the device's (what the shaper
		# costs is a figure), but for a guest that ran late
		[ "$shp_up" != - ] && set -- "0:$1" "$2"
		[ "$shp_down" != - ] && set -- "$1" "0:$2"
		if ! why=$(below_rate "$1" - "$up_wire" - "$up_idle" - "$up_late" -); then
			ktap_info "$lnk $name round $round: $why"
			up="- - - - 0" refused+=" up"
		fi
		if ! why=$(below_rate - "$2" - "$down_wire" - "$down_idle" - "$down_late"); then
			ktap_info "$lnk $name round $round: $why"
			down="- - - - 0" refused+=" down"
		fi
		[ "${up%% *}" = - ] && [ "${down%% *}" = - ] && err=below-rate
	fi
	if [ -z "$err" ]; then
		# and still held it after them
		after=$(drv_state "$lnk")
		# shellcheck disable=SC2086
		why=$(/usr/bin/python3 "$REPORT" --verify "$lnk" "$name" $after 2>&1) ||
			{ err=state; ktap_info "$lnk $name round $round: after the transfers: $why"; ktap_info "  before: $drv"; ktap_info "  after:  $after"; }
	fi
	if [ -n "$DPID" ]; then
		daemon_stop > /dev/null || ktap_info "$lnk $name: usbethd did not stop cleanly"
	fi
	if [ -z "$err" ]; then
		# shellcheck disable=SC2086 # fields on purpose
		set -- $idle $up $down
		echo "# data: kernel=$USBETH_KERNEL link=$lnk config=$name round=$round" \
			"idle_p50=$1 idle_p90=$2 idle_p99=$3" \
			"up_mbit=$5 up_p50=$6 up_p90=$7 up_p99=$8 up_n=$9" \
			"down_mbit=${10} down_p50=${11} down_p90=${12} down_p99=${13} down_n=${14}" \
			$(is_emu "$lnk" && echo "up_wire=$up_wire up_idle=$up_idle up_late=$up_late" \
				"down_wire=$down_wire down_idle=$down_idle down_late=$down_late" \
				"rate_up=$(emu_stat bench rate-up) rate_down=$(emu_stat bench rate-down)") \
			$([ -n "$refused" ] && echo "refused=${refused# }" | tr ' ' ,) "$drv"
	else
		[ "$err" = below-rate ] || CELL_ERR=$((CELL_ERR + 1))
		echo "# data: kernel=$USBETH_KERNEL link=$lnk config=$name round=$round error=$err"
	fi
	# back to the defaults for the next cell
	[ "$err" != plug ] && link_down "$lnk"
	[ ${#gad[@]} -gt 0 ] && ue_set "$NCM_GADGET_NS" "$NCM_GADGET_IF" qmult 5
	if [ "$lnk" = e1000e ] && [ -n "$knobs" ]; then
		ue_set "$E1K_A_NS" "$E1K_A_IF" "${E1K_SAVED[@]}"
	fi
	return 0
}

# below_rate UP_BPS DOWN_BPS UP_WIRE DOWN_WIRE UP_IDLE DOWN_IDLE [UP_LATE
# DOWN_LATE]: fails, saying why, when the rate on the wire (frame bytes at
# the receiving netdev while the probes ran, Mbit/s; "-": not measured) is
# not the emulated rate within 5% (a rate 0:HIGH, behind a shaper: up to
# 5% above HIGH, unless the emulator ran late over 5% of the window); the percentages of that window the
# device's egress sat idle and the emulator woke late tell who set the
# figures: the CPU (the emulator late over 5% of it: the guest starved,
# the sender with it), the sender (idle: it did not keep the link busy,
# TCP after a loss, say) or the emulator (busy, yet behind its rate)
below_rate() {
	awk -v ru="$1" -v rd="$2" -v u="$3" -v d="$4" -v iu="$5" -v id="$6" \
		-v lu="${7:--}" -v ld="${8:--}" '
	function why(dir, w, r, i, l,  who, lo, hi, n, b) {
		n = split(r, b, ":")
		lo = b[1]; hi = n > 1 ? b[2] : b[1]
		if (w == "-" || (lo > 0 && w >= 0.95 * lo / 1e6 && w <= 1.05 * hi / 1e6))
			return ""
		# behind a shaper (LOW 0), what the shaper and TCP leave unused
		# is the figure, not a fault: only a late emulator refuses it
		if (lo == 0 && w <= 1.05 * hi / 1e6 && (l == "-" || l <= 5))
			return ""
		if (l != "-" && l > 5)
			who = "the CPU"
		else if (i != "-" && i > 5)
			who = "the sender"
		else
			who = "the emulator"
		return sprintf("%s %.2f Mbit/s of %.2f, the egress idle %s%%, the emulator late %s%% (%s); ",
			dir, w, (lo > 0 ? lo : hi) / 1e6, i, l, who)
	}
	BEGIN {
		bad = why("up", u, ru, iu, lu) why("down", d, rd, id, ld)
		if (bad != "") { print "not the emulated rate within 5%: " bad; exit 1 }
	}'
}

# shuffle: the words of the array CFGS in a random order (bash's RANDOM,
# seeded by USBETH_BENCH_SEED)
shuffle() {
	local i j t
	for ((i = ${#CFGS[@]} - 1; i > 0; i--)); do
		j=$((RANDOM % (i + 1)))
		t=${CFGS[i]} CFGS[i]=${CFGS[j]} CFGS[j]=$t
	done
}

# emu_calibrate LINK: the dongle's emulated rate is at most a third of what
# the same link carries unlimited in this boot; fails otherwise
emu_calibrate() {
	local a free rate
	read -ra a <<< "${EMU_ARGS[$1]}"
	emu_plug bench "${a[0]}" "${a[@]:1}" rate-up=0 rate-down=0
	emu_up bench "$EMU_HOST_NS"
	free=$(loaded emu-bench "$(emu_addr bench far)" "$EMU_HOST_NS" "$EMU_HOST_NS" "$(emu_addr bench far)") ||
		{ emu_unplug bench; return 1; }
	emu_unplug bench
	rate=${EMU_RATE[$1]%% *}
	ktap_info "bench-data: $1 unlimited: ${free%% *} Mbit/s up; emulated: $((rate / 1000000)) Mbit/s"
	awk -v f="${free%% *}" -v r="$rate" 'BEGIN { exit !(f >= 3 * r / 1e6) }' ||
		{ ktap_info "bench-data: $1: the link carries less than three times its emulated rate"; return 1; }
}

bench_link() { # bench_link LINK: every configuration, ROUNDS times, interleaved
	local lnk=$1 cfgs=() c r n=0 total
	case $lnk in
	ncm-full | ncm-high | ncm-super)
		ncm_create -s "${lnk#ncm-}" || return 1
		# u_ether registers the gadget netdev at the first bind: a plug
		# names it, so that gadget-side knobs can be set while unplugged
		ncm_plug
		ncm_unplug
		;;
	e1000e)
		e1k_setup
		e1k_save
		;;
	usbnet | usbnet-rndis)
		unet_setup
		;;
	*)
		is_emu "$lnk" ||
			bail "unknown link '$lnk' (ncm-full, ncm-high, ncm-super, e1000e, usbnet, usbnet-rndis, ${!EMU_ARGS[*]})"
		emu_setup
		# the shaper's (shaper_on): the kernel does not load them itself here
		modprobe -a sch_cake sch_ingress ifb act_mirred cls_matchall ||
			bail "cannot load sch_cake, sch_ingress, ifb, act_mirred and cls_matchall"
		ip netns del "$EMU_HOST_NS" 2>/dev/null
		ip netns add "$EMU_HOST_NS" && ip -n "$EMU_HOST_NS" link set lo up ||
			bail "cannot make netns $EMU_HOST_NS"
		if [ "${lnk%-udp}" = dongle ]; then
			PROBE_INT=0.05
			emu_calibrate "$lnk" || return 1
		fi
		;;
	esac
	mapfile -t cfgs < <(configs_of "$lnk")
	if [ -n "$ONLY" ]; then
		local keep=()
		for c in "${cfgs[@]}"; do
			[[ ${c%%|*} =~ $ONLY || $lnk:${c%%|*} =~ $ONLY ]] && keep+=("$c")
		done
		cfgs=("${keep[@]}")
	fi
	total=$((${#cfgs[@]} * ROUNDS))
	[ "$(dirs_of "$lnk")" = up ] && [ -z "$DIRS" ] &&
		ktap_info "bench-data: $lnk: uploads only (gadget -> host stalls at full speed: selftests/bench/stall.sh)"
	ktap_info "bench-data: random order, USBETH_BENCH_SEED=$SEED"
	for ((r = 1; r <= ROUNDS; r++)); do
		CFGS=("${cfgs[@]}")
		shuffle
		for c in "${CFGS[@]}"; do
			n=$((n + 1))
			ktap_info "bench-data: $USBETH_KERNEL $lnk [$n/$total] round $r ${c%%|*}"
			cell "$lnk" "$c" "$r"
		done
	done
	case $lnk in
	ncm-*) ncm_teardown ;;
	e1000e) e1k_teardown ;;
	usbnet*) unet_teardown ;;
	*) emu_teardown; ip netns del "$EMU_HOST_NS" 2>/dev/null ;;
	esac
}

read -ra links <<< "$LINKS"
ktap_plan ${#links[@]}
for l in "${links[@]}"; do
	CELL_ERR=0
	bench_link "$l" || CELL_ERR=$((CELL_ERR + 1))
	if [ $CELL_ERR -eq 0 ]; then
		ktap_ok "bench_data_$l"
	else
		ktap_fail "bench_data_$l" "$CELL_ERR cells failed"
	fi
done
ktap_finish
