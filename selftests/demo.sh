#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's main job, run inside the usbeth VM by `make demo`: with the
# module loaded and usbethd running on the built-in profiles, plug in a
# SuperSpeed USB NCM gadget posing as a Sierra Wireless modem (VID 1199)
# with qmult 1, and show what happens: the daemon applies the cellular-modem
# profile to the host side and the SuperSpeed-gadget profile to the gadget
# within the hotplug event, `usbeth link show` shows the values, and
# stopping the daemon puts them back.
source "$(dirname "$0")/lib.sh"

D=$USBETH_TOP/usbethd/usbethd
CLI=$USBETH_TOP/ip-extensions/usbeth
BUILTIN=$USBETH_TOP/usbethd/profiles.d
DPID= DFD=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 4

# dwait ERE: print the daemon's lines until one matches ERE (30 s at most)
dwait() {
	local line end=$((SECONDS + 30))
	while [ $SECONDS -lt $end ]; do
		read -r -t $((end - SECONDS)) -u "$DFD" line || return 1
		echo "#   usbethd| $line"
		if [[ $line =~ $1 ]]; then
			REPLY=$line
			return 0
		fi
	done
	return 1
}

echo "# --- the usbeth generic netlink family"
genl ctrl get name usbeth | sed -n 's/^/#   /p' | head -n 3
echo "# --- a gadget posing as a Sierra Wireless modem (1199:9071), qmult 1,"
echo "#     on dummy_hcd at SuperSpeed; cable out for now"
ncm_setup -s super -v 0x1199 -p 0x9071 -q 1
ncm_unplug
gadget=$NCM_GADGET_IF
ip -n "$NCM_GADGET_NS" link set dev "$gadget" netns 1 && ip link set dev "$gadget" up
echo "# --- usbethd starts on the built-in profiles"
exec {DFD}< <(exec "$D" -d "$BUILTIN" --runtime-dir /run/usbethd 2>&1)
DPID=$!
dwait '^ready' || bail "usbethd did not start"

echo "# --- plug in (bind the UDC)"
echo "$NCM_UDC" > "$NCM_GADGET/UDC"
# both sides get a profile, in whatever order the events come
host= gq=
while [ -z "$host" ] || [ -z "$gq" ]; do
	dwait "profile cellular-modem applied|^$gadget: profile superspeed-gadget: qmult: 1 -> 5" || break
	case $REPLY in
	*cellular-modem*) host=${REPLY%%:*} ;;
	*) gq=1 ;;
	esac
done
if [ -n "$host" ]; then ktap_ok modem_profile_applied_on_plug; else ktap_fail modem_profile_applied_on_plug; fi
if [ -n "$gq" ]; then ktap_ok superspeed_gadget_gets_qmult_5; else ktap_fail superspeed_gadget_gets_qmult_5; fi
[ -n "$host" ] || bail "no host-side device got the modem profile"
echo "# --- usbeth link show dev $host"
"$CLI" link show dev "$host" | sed 's/^/#   /'
echo "# --- usbeth -d link show dev $gadget"
"$CLI" -d link show dev "$gadget" | sed 's/^/#   /'
t=$(cat "/sys/class/net/$host/cdc_ncm/tx_timer_usecs")
l=$(cat "/sys/class/net/$host/queues/tx-0/byte_queue_limits/limit_max")
echo "# --- the driver's own view: cdc_ncm/tx_timer_usecs=$t byte_queue_limits/limit_max=$l configfs qmult=$(cat "$NCM_FUNC/qmult")"
ktap_expect_eq driver_holds_profile_values "$t $l" "50 8192"

echo "# --- stop the daemon: it puts back what it changed"
kill -TERM "$DPID"
while read -r -t 30 -u "$DFD" line; do echo "#   usbethd| $line"; done
wait "$DPID"
DPID=
t=$(cat "/sys/class/net/$host/cdc_ncm/tx_timer_usecs")
echo "# --- cdc_ncm/tx_timer_usecs=$t configfs qmult=$(cat "$NCM_FUNC/qmult")"
ktap_expect_eq restored_on_stop "$t $(cat "$NCM_FUNC/qmult")" "400 1"
ktap_finish
