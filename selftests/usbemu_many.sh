#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Many emulated USB network devices at once under usbethd: nine devices of
# every personality (three dongles on cdc_ether, two NCM devices, one at
# super speed, and a dock on cdc_ncm, three modems on qmi_wwan), plugged
# together and pulled together while the daemon runs, with a profile per
# driver that sets a driver knob and txqueuelen:
#   - a plug of all nine gets each its profile, read back from the
#     driver's own files;
#   - the daemon's stop puts every value back;
#   - a daemon started with all nine present applies to each;
#   - pulling all nine at once drops every record, in memory and on disk.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/usbethd_lib.sh"
daemon_test /tmp/usbemu-many

cleanup() {
	local rc=$?
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	emu_teardown
	wait 2>/dev/null
	daemon_log_if_failed $rc
}
trap cleanup EXIT

declare -A PERS=([d1]=dongle [d2]=dongle [d3]=dongle [n1]=ncm [n2]=ncm [k1]=dock
	[m1]=modem [m2]=modem [m3]=modem)
declare -A OPTS=([n2]="-s super")
NAMES=(d1 d2 d3 n1 n2 k1 m1 m2 m3)
N=${#NAMES[@]}

ktap_plan $((3 * N + 4))
emu_setup
daemon_dirs || bail "cannot stage the shipped profiles in $W"
# only the test's profiles: shipped ones match some of these devices more
# specifically (the dock's vendor, the modem's IDs)
rm -f "$BUILTIN"/*.json
profile() { # profile NAME DRIVER SETTINGS_JSON
	printf '{\n\t"description": "test: every %s device",\n\t"match": { "driver": "%s", "role": "host" },\n\t"settings": %s\n}\n' \
		"$2" "$2" "$3" > "$ADMIN/$1.json" && chmod 0644 "$ADMIN/$1.json"
}
profile emu-ether cdc_ether '{ "txqueuelen": 321, "bql-limit-max": 30000 }'
profile emu-ncm cdc_ncm '{ "txqueuelen": 322, "ntb-tx-max": 8192 }'
profile emu-qmi qmi_wwan '{ "txqueuelen": 323, "bql-limit-max": 20000 }'

# held NAME: what the driver holds of the device's profile's knobs
held() {
	local if=${EMU_IF[$1]} q k
	read -r q < "/sys/class/net/$if/tx_queue_len"
	case ${PERS[$1]} in
	ncm | dock) read -r k < "/sys/class/net/$if/cdc_ncm/tx_max"
		# cdc_ncm pads a size that is a multiple of the packet size
		[ $((k % 512)) -eq 1 ] && k=$((k - 1)) ;;
	*) read -r k < "/sys/class/net/$if/queues/tx-0/byte_queue_limits/limit_max" ;;
	esac
	echo "$q $k"
}
declare -A WANT=([dongle]="321 30000" [ncm]="322 8192" [dock]="322 8192" [modem]="323 20000")

plug_all() {
	local name
	for name in "${NAMES[@]}"; do
		# shellcheck disable=SC2086 # the options are words
		emu_start "$name" "${PERS[$name]}" ${OPTS[$name]:-}
	done
	for name in "${NAMES[@]}"; do
		emu_wait "$name"
	done
}
APPLIED_RE='^([^ :]+): profile emu-(ether|ncm|qmi) applied'
# applied_all TEST: every device got its profile (the daemon's lines since
# the mark), one result for them all, then one per device as its driver
# holds the values
applied_all() {
	local name
	if dexpect_all "$APPLIED_RE" "$N" 120; then
		ktap_ok "$1"
	else
		ktap_fail "$1" "applied to ${#DSEEN[@]} of $N: ${!DSEEN[*]}"
	fi
	for name in "${NAMES[@]}"; do
		ktap_expect_eq "${1}_$name" "${DSEEN[${EMU_IF[$name]}]:-no} $(held "$name")" \
			"1 ${WANT[${PERS[$name]}]}"
	done
}

# the originals, as the drivers hold them without usbethd
plug_all
declare -A ORIG=()
for name in "${NAMES[@]}"; do
	ORIG[$name]=$(held "$name")
done
ktap_info "originals: d1 ${ORIG[d1]}, n2 ${ORIG[n2]}, k1 ${ORIG[k1]}, m1 ${ORIG[m1]}"

# a daemon started with all of them there applies to each
daemon_start
applied_all start_applies

# all pulled out at once, with the daemon running
dmark
emu_unplug "${NAMES[@]}"
if dexpect_all '^([^ :]+): gone, record dropped' "$N" 120; then
	ktap_ok pulled_together_records_dropped
else
	ktap_fail pulled_together_records_dropped "dropped ${#DSEEN[@]} of $N: ${!DSEEN[*]}"
fi
ktap_expect_eq no_record_on_disk "$(find "$RUN" -name '*dev-*' | wc -l)" 0

# all plugged in at once, with the daemon running
dmark
plug_all
applied_all plugged_together_applied

# the daemon's stop puts every value back
daemon_stop
for name in "${NAMES[@]}"; do
	ktap_expect_eq "restored_$name" "$(held "$name")" "${ORIG[$name]}"
done
ktap_finish
