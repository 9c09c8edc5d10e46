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
# Rounds are interleaved: every configuration once, then again.
#
# Environment (all optional):
#   USBETH_BENCH_ROUNDS   rounds (default 3)
#   USBETH_BENCH_LINKS    links (default "ncm-full ncm-high ncm-super e1000e
#                         usbnet usbnet-rndis")
#   USBETH_BENCH_SECS     seconds of each iperf3 run after its first (default 4)
#   USBETH_BENCH_CONFIGS  an ERE: only configurations whose name matches
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
LINKS=${USBETH_BENCH_LINKS:-ncm-full ncm-high ncm-super e1000e usbnet usbnet-rndis}
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
VID_MODEM=0x2c7c PID_MODEM=0x0125	# Quectel EC25: cellular-modem's vid list
VID_DL=0x17e9 PID_DL=0x4301		# DisplayLink: the displaylink profile

cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
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
configs_of() {
	local links name knobs l
	while IFS='|' read -r links name knobs; do
		[[ -z $links || $links == \#* ]] && continue
		for l in $links; do [ "$l" = "$1" ] && echo "$name|$knobs"; done
	done < "$CONFIGS"
}

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
	esac
	tc -n "$HOST_NS" qdisc replace dev "$HOST_IF" root fq_codel &&
		tc -n "$PEER_NS" qdisc replace dev "$PEER_IF" root fq_codel
}
link_down() {
	case $1 in
	ncm-*) ncm_unplug ;;
	usbnet*) unet_unplug ;;
	esac
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
		;;
	e1000e) out+=("drv_rx_usecs=$(e1k_coalesce)") ;;
	usbnet*) out+=("drv_txqueuelen=$(sysfs_of "$HOST_NS" "$HOST_IF" tx_queue_len)") ;;
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
	profile:cellular-modem | profile:cellular-modem-full-speed)
		prof=${name#profile:} vid=$VID_MODEM pid=$PID_MODEM ;;
	profile:displaylink) prof=displaylink vid=$VID_DL pid=$PID_DL ;;
	profile:superspeed-gadget) prof=superspeed-gadget ;;
	esac
	[[ $knobs == @* ]] && { read -ra gad <<< "${knobs#@}"; knobs=; }
	if [ "$prof" = superspeed-gadget ]; then
		# the profile's premise: a system default of qmult lowered (to 1);
		# usbethd raises it on the connected gadget, for the next connect
		gad=(qmult 1)
	fi
	if [ ${#gad[@]} -gt 0 ]; then
		ue_set "$NCM_GADGET_NS" "$NCM_GADGET_IF" "${gad[@]}" || err="set"
	fi
	[ -z "$err" ] && { link_up "$lnk" $vid $pid || err=plug; }
	if [ -z "$err" ] && [ -n "$knobs" ]; then
		# shellcheck disable=SC2086 # the knob list splits on purpose
		ue_set "$HOST_NS" "$HOST_IF" $knobs || err="set"
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
		rtts "$HOST_NS" "$PEER_ADDR" 20 "$W/rtt.idle"
		idle=$(pctl "$W/rtt.idle")
		# one more try of a transfer that broke off (seen under TCG)
		if [[ $dirs == *up* ]]; then
			up=$(loaded "$PEER_NS" "$PEER_ADDR" "$HOST_NS" "$HOST_NS" "$PEER_ADDR") ||
				up=$(loaded "$PEER_NS" "$PEER_ADDR" "$HOST_NS" "$HOST_NS" "$PEER_ADDR") || err=upload
		else
			up="- - - - 0"
		fi
	fi
	if [ -z "$err" ] && [[ $dirs != *down* ]]; then
		down="- - - - 0"
	elif [ -z "$err" ]; then
		# a download that fails keeps the cell's other figures
		down=$(loaded "$HOST_NS" "$HOST_ADDR" "$PEER_NS" "$PEER_NS" "$HOST_ADDR") ||
			down=$(loaded "$HOST_NS" "$HOST_ADDR" "$PEER_NS" "$PEER_NS" "$HOST_ADDR") ||
			{ down="- - - - 0"; CELL_ERR=$((CELL_ERR + 1)); ktap_info "$lnk $name round $round: no download figures"; }
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
			"$drv"
	else
		CELL_ERR=$((CELL_ERR + 1))
		echo "# data: kernel=$USBETH_KERNEL link=$lnk config=$name round=$round error=$err"
	fi
	# back to the defaults for the next cell
	[ "$lnk" != e1000e ] && [ "$err" != plug ] && link_down "$lnk"
	[ ${#gad[@]} -gt 0 ] && ue_set "$NCM_GADGET_NS" "$NCM_GADGET_IF" qmult 5
	if [ "$lnk" = e1000e ] && [ -n "$knobs" ]; then
		ue_set "$E1K_A_NS" "$E1K_A_IF" "${E1K_SAVED[@]}"
	fi
	return 0
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
	*) bail "unknown link '$lnk' (ncm-full, ncm-high, ncm-super, e1000e, usbnet, usbnet-rndis)" ;;
	esac
	mapfile -t cfgs < <(configs_of "$lnk")
	if [ -n "$ONLY" ]; then
		local keep=()
		for c in "${cfgs[@]}"; do [[ ${c%%|*} =~ $ONLY ]] && keep+=("$c"); done
		cfgs=("${keep[@]}")
	fi
	total=$((${#cfgs[@]} * ROUNDS))
	[ "$(dirs_of "$lnk")" = up ] && [ -z "$DIRS" ] &&
		ktap_info "bench-data: $lnk: uploads only (gadget -> host stalls at full speed: selftests/bench/stall.sh)"
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in "${cfgs[@]}"; do
			n=$((n + 1))
			ktap_info "bench-data: $USBETH_KERNEL $lnk [$n/$total] round $r ${c%%|*}"
			cell "$lnk" "$c" "$r"
		done
	done
	case $lnk in
	ncm-*) ncm_teardown ;;
	e1000e) e1k_teardown ;;
	usbnet*) unet_teardown ;;
	esac
}

read -ra links <<< "$LINKS"
ktap_plan ${#links[@]}
for l in "${links[@]}"; do
	CELL_ERR=0
	bench_link "$l"
	if [ $CELL_ERR -eq 0 ]; then
		ktap_ok "bench_data_$l"
	else
		ktap_fail "bench_data_$l" "$CELL_ERR cells failed"
	fi
done
ktap_finish
