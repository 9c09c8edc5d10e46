#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The emulated USB network devices (tools/usbemu.c, lib.sh: emu_*), each a
# device the stock host driver binds over vhci_hcd, with a link behind it
# that the device models:
#   - each personality is bound by the driver its descriptors name
#     (dongle: cdc_ether, ncm and dock: cdc_ncm, modem: qmi_wwan) and usbeth
#     reports it as a USB host-side netdev;
#   - frames go through intact both ways, byte for byte and counted, at
#     sizes around every multiple of the bulk packet size (where usbnet pads,
#     as on cdc_ether, or asks for a zero-length packet, as on qmi_wwan) at
#     full, high and super speed;
#     the modem also in raw-IP mode;
#   - the rate and the delay hold: the receiving side's byte counters over
#     a window of a saturating transfer against the emulated rate, the
#     minimum ping RTT with a base delay against the same link without;
#   - nak mode leaves URBs waiting on the host, bloat mode accepts them
#     and drops;
#   - plug, unplug and plug again at run time: NEW and DEL reach usbeth's
#     monitor, and usbethd applies a profile on each plug and drops the
#     record on each unplug.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/usbethd_lib.sh"
daemon_test /tmp/usbemu-test

cleanup() {
	local rc=$?
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	monitor_stop_all
	emu_teardown
	wait 2>/dev/null
	[ -s "$LOG" ] && daemon_log_if_failed $rc
}
trap cleanup EXIT

ktap_plan 34
emu_setup

SIZES=60,511,512,513,1023,1024,1025,1514
PER=5
NSIZES=8

# relay NAME DIR: frames of every size in SIZES from one side to the
# other, each checked byte for byte at the receiver; "intact=N bad=N ..."
relay() {
	local name=$1 dir=$2 rx_ns rx_if tx_ns tx_if dst fd line out
	if [ "$dir" = up ]; then
		tx_ns="" tx_if=${EMU_IF[$name]} rx_ns=emu-$name rx_if=far0
	else
		tx_ns=emu-$name tx_if=far0 rx_ns="" rx_if=${EMU_IF[$name]}
	fi
	dst=$(in_ns "$rx_ns" cat "/sys/class/net/$rx_if/address")
	exec {fd}< <(exec ip netns exec "${rx_ns:-$(__self_ns)}" python3 "$FRAMES" recv "$rx_if" $((PER * NSIZES)) 60)
	read -r -t 30 -u "$fd" line && [ "$line" = ready ] || { echo "receiver did not start"; return 1; }
	in_ns "$tx_ns" python3 "$FRAMES" send "$tx_if" "$dst" "$SIZES" "$PER" || return 1
	read -r -t 90 -u "$fd" out
	exec {fd}<&-
	echo "$out"
	[ "${out%% *}" = "intact=$((PER * NSIZES))" ] && return 0
	echo "usbemu: $(emu_ctl "$name" stats)"
	return 1
}

# relay_both NAME TAG: relay both ways, one result each
relay_both() {
	local r
	if r=$(relay "$1" up 2>&1); then ktap_ok "relay_up_$2"; else ktap_fail "relay_up_$2" "$r"; fi
	if r=$(relay "$1" down 2>&1); then ktap_ok "relay_down_$2"; else ktap_fail "relay_down_$2" "$r"; fi
}

# --- each personality, bound by its driver; frames through intact --------
declare -A WANT_DRIVER=([dongle]=cdc_ether [ncm]=cdc_ncm [dock]=cdc_ncm [modem]=qmi_wwan)
for p in dongle ncm dock modem; do
	emu_plug "$p" "$p"
	drv=$(link_driver "${EMU_IF[$p]}")
	role=$(uf "${EMU_IF[$p]}" role)
	ktap_expect_eq "bound_$p" "$drv role=$role" "${WANT_DRIVER[$p]} role=usb-host"
	emu_up "$p"
	relay_both "$p" "$p"
	if [ "$p" = dongle ]; then
		# usbnet pads a frame that fills its last packet, cdc_ether
		# asking for no ZLP: the device saw (and dropped) those bytes
		ktap_expect_eq zlp_pad_seen_dongle "$(( $(emu_stat dongle pads) >= PER * 2 ))" 1
	fi
	emu_unplug "$p"
done
ktap_info "dock: $(grep -h . /tmp/usbemu-dock.out | tail -n 1 | grep -o 'ntbs-out=[0-9]* ntbs-in=[0-9]*')"

# the other speeds: full (64-byte packets) and super (1024)
emu_plug fs dongle -s full
emu_up fs
relay_both fs dongle_full_speed
emu_unplug fs
emu_plug ss ncm -s super
ktap_expect_eq super_speed_bound "$(cat "/sys/class/net/${EMU_IF[ss]}/device/../speed")" 5000
emu_up ss
relay_both ss ncm_super_speed
emu_unplug ss

# the modem in raw-IP mode: IP packets only, a TUN far side
emu_plug raw modem --raw-ip
echo Y > "/sys/class/net/${EMU_IF[raw]}/qmi/raw_ip" || bail "cannot set raw_ip on ${EMU_IF[raw]}"
ip addr add "$(emu_addr raw host)/24" dev "${EMU_IF[raw]}"
ip link set dev "${EMU_IF[raw]}" up
ip -n emu-raw addr add "$(emu_addr raw far)/24" dev far0
ip -n emu-raw link set far0 up
out=$(ping -c 20 -i 0.05 -s 1400 -W 5 "$(emu_addr raw far)" 2>&1 | grep -o '[0-9]* received')
ktap_expect_eq raw_ip_ping "$out" "20 received"
emu_unplug raw

# --- the rate and the delay -----------------------------------------------
# iperf_listen NETNS ADDR: an iperf3 server there, once it listens (it
# signals nothing: its socket is looked for, a bounded number of times)
iperf_listen() {
	local i
	ip netns exec "$1" iperf3 -s -D -B "$2" > /dev/null 2>&1 || bail "iperf3 server in $1"
	for i in $(seq 100); do
		ip netns exec "$1" ss -Hltn "sport = :5201" | grep -q . && return 0
		sleep 0.05
	done
	bail "the iperf3 server in $1 does not listen"
}
# rate_of NETNS IFNAME rx|tx SECONDS: bit/s through a netdev's byte counter
# over a window (a measurement interval, not a wait on an event)
rate_of() {
	local b
	b=$(bytes_over "$@")
	echo $(( ${b% *} * 8 * 1000000 / ${b#* } ))
}
# within5 NAME MEASURED WANTED: one result, MEASURED within 5% of WANTED
# (on a KASAN kernel a rate_* below it skips: the host cannot offer that
# rate there, so the device has nothing to hold it against)
within5() {
	local lo=$(( $3 * 95 / 100 )) hi=$(( $3 * 105 / 100 ))
	if [[ $1 == rate_* ]] && [ "$2" -lt "$lo" ] && kasan_kernel; then
		ktap_skip "$1" "$2 bit/s: a KASAN kernel under TCG offers less than $3"
	elif [ "$2" -ge "$lo" ] && [ "$2" -le "$hi" ]; then
		ktap_ok "$1"
		ktap_info "$1: $2 against $3"
	else
		ktap_fail "$1" "$2, not within 5% of $3"
	fi
}

emu_plug rate dongle rate-up=4M rate-down=6M buf-up=65536 buf-down=65536
emu_up rate
iperf_listen emu-rate "$(emu_addr rate far)"
# the peer counts what the device sent it (far0's rx); the host counts what
# the device gave it (rx of the host netdev)
iperf3 -c "$(emu_addr rate far)" -t 9 > /dev/null 2>&1 &
ipid=$!
sleep 3
up=$(rate_of emu-rate far0 rx 5)
wait $ipid
within5 rate_up_holds "$up" 4000000
iperf3 -c "$(emu_addr rate far)" -t 9 -R > /dev/null 2>&1 &
ipid=$!
sleep 3
dn=$(rate_of "" "${EMU_IF[rate]}" rx 5)
wait $ipid
within5 rate_down_holds "$dn" 6000000
ip netns exec emu-rate pkill -x iperf3

# minimum RTT: the same link without, then with a 40 ms one-way delay
minrtt_us() {
	ping -c 30 -i 0.05 -W 5 "$(emu_addr rate far)" |
		awk -F'[/ =]+' '/^rtt/ { printf "%d\n", $6 * 1000 }'
}
emu_ctl rate set rate-up=0 rate-down=0 > /dev/null
r0=$(minrtt_us)
emu_ctl rate set delay-us=40000 > /dev/null
r1=$(minrtt_us)
ktap_info "min RTT: $r0 us without delay, $r1 us with 40 ms each way"
within5 delay_holds "$(( r1 - r0 ))" 80000
emu_unplug rate

# --- nak and bloat --------------------------------------------------------
# an upload into a 4 Mbit/s uplink with a 16 KiB device buffer: in nak mode
# the device stops taking OUT transfers and URBs wait on the host, nothing
# is dropped; in bloat mode it takes every transfer and drops what does not
# fit. A download through either drops what does not fit (usbemu.c,
# dn_room())
for mode in nak bloat; do
	emu_plug "$mode" dongle "mode=$mode" rate-up=4M buf-up=16384 rate-down=4M buf-down=16384
	emu_up "$mode"
	iperf_bytes "emu-$mode" "$(__self_ns)" "$(emu_addr "$mode" far)" -t 4 > /dev/null ||
		bail "no upload through the $mode dongle"
	iperf_bytes "$(__self_ns)" "emu-$mode" "$(emu_addr "$mode" host)" -t 4 > /dev/null ||
		bail "no download through the $mode dongle"
	held=$(emu_stat "$mode" urbs-held-max) drops=$(emu_stat "$mode" up-drops)
	ddrops=$(emu_stat "$mode" down-drops)
	ktap_info "$mode: at most $held URBs held on the host, $drops frames dropped up, $ddrops down"
	if [ "$held" = 0 ] && [ "$drops" = 0 ] && kasan_kernel; then
		# the host never offered more than the device's rate
		ktap_skip "$([ "$mode" = nak ] && echo nak_holds_urbs_on_host || echo bloat_takes_and_drops)" \
			"nothing held or dropped up: a KASAN kernel under TCG offers less than 4 Mbit/s"
	elif [ "$mode" = nak ]; then
		ktap_expect_eq nak_holds_urbs_on_host "$(( held >= 4 )) drops=$drops" "1 drops=0"
	else
		ktap_expect_eq bloat_takes_and_drops "held=$held $(( drops > 0 ))" "held=0 1"
	fi
	ktap_expect_eq "${mode}_drops_down" "$(( ddrops > 0 ))" 1
	emu_unplug "$mode"
done

# --- plug, unplug, plug again: usbeth's monitor and usbethd ---------------
daemon_dirs || bail "cannot stage the shipped profiles in $W"
cat > "$ADMIN/emu-dongle.json" <<'EOF'
{
	"description": "test: the emulated dongle",
	"match": { "driver": "cdc_ether", "role": "host" },
	"settings": { "txqueuelen": 321 }
}
EOF
chmod 0644 "$ADMIN/emu-dongle.json"
monitor_start
daemon_start
dexpect "^ready: " > /dev/null || bail "the daemon did not start"
for round in 1 2; do
	dmark
	emu_plug hot dongle
	ev=$(monitor_expect "^new .*ifname=${EMU_IF[hot]} ") || ev=
	idx=$(sed -n 's/.*ifindex=\([0-9]*\).*/\1/p' <<< "$ev")
	ktap_expect_eq "plug${round}_new_seen" "${ev:+new} role=$(sed -n 's/.*role=\([^ ]*\).*/\1/p' <<< "$ev")" "new role=usb-host"
	if applied emu-dongle; then
		ktap_expect_eq "plug${round}_profile_applied" "$APPLIED $(sysnet "$APPLIED" tx_queue_len)" "${EMU_IF[hot]} 321"
	else
		ktap_fail "plug${round}_profile_applied" "no 'profile emu-dongle applied'"
	fi
	gone=${EMU_IF[hot]}
	dmark
	emu_unplug hot
	ktap_check "unplug${round}_del_seen" monitor_expect "^del ifindex=$idx "
	ktap_check "unplug${round}_record_dropped" dexpect "^$gone: gone, record dropped \(profile emu-dongle\)"
done
daemon_stop
ktap_finish
