#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's main job, run inside the usbeth VM by `make demo`: with the
# module loaded and usbethd running on the shipped profiles (those shipped
# disabled enabled, as an admin does: usbethd.profiles(5)) and the README's
# own example of an admin's profile (my-modem), plug in a SuperSpeed USB
# NCM gadget posing as that Sierra Wireless modem (1199:9071) with qmult 1,
# and show what happens: the daemon applies my-modem to the host side and
# the SuperSpeed-gadget profile to the gadget within the hotplug event,
# `usbeth link show` shows the values, traffic out of the modem shows its
# BQL state (accounting active where the kernel's usbnet does BQL: 7.3,
# the demo's default kernel), and stopping the daemon puts everything
# back.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/usbethd_lib.sh"

D=$USBETH_TOP/usbethd/usbethd
CLI=$USBETH_TOP/ip-extensions/usbeth
BUILTIN=/tmp/usbeth-demo-profiles ADMIN=/tmp/usbeth-demo-admin
DPID= DFD=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 5

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
# the gadget stays down until the host side is up: the host gets carrier
# only from the CONNECT the gadget sends when it opens (lib.sh: ncm_plug)
ip -n "$NCM_GADGET_NS" link set dev "$gadget" netns 1
echo "# --- usbethd starts with the shipped profiles, those shipped disabled"
echo "#     (displaylink, superspeed-gadget, ...) enabled as an admin does,"
echo "#     and the README's own profile for this modem, my-modem.json:"
stage_profiles "$BUILTIN" && rm -rf "$ADMIN" && mkdir -p "$ADMIN" &&
	cat > "$ADMIN/my-modem.json" <<'EOF' && chmod 0755 "$ADMIN" && chmod 0644 "$ADMIN/my-modem.json" ||
{
    "description": "our modem: a shorter cdc_ncm TX timer",
    "match": { "vid": "1199", "pid": "9071", "role": "host" },
    "settings": { "tx-timer-usecs": 100 }
}
EOF
	bail "cannot stage the profiles"
sed 's/^/#   /' "$ADMIN/my-modem.json"
exec {DFD}< <(exec "$D" -d "$BUILTIN" -d "$ADMIN" --runtime-dir /run/usbethd 2>&1)
DPID=$!
dwait '^ready' || bail "usbethd did not start"

echo "# --- plug in (bind the UDC)"
echo "$NCM_UDC" > "$NCM_GADGET/UDC"
host=
dwait "profile my-modem applied" && host=${REPLY%%:*}
if [ -n "$host" ]; then ktap_ok own_profile_applied_on_plug; else ktap_fail own_profile_applied_on_plug; fi
[ -n "$host" ] || bail "no host-side device got my-modem"
echo "# --- both ends up: the gadget connects, at SuperSpeed"
ip link set dev "$host" up
ip link set dev "$gadget" up
if dwait "^$gadget: profile superspeed-gadget: qmult: 1 -> 5"; then
	ktap_ok superspeed_gadget_gets_qmult_5
else
	ktap_fail superspeed_gadget_gets_qmult_5
fi
"$NLWAIT" -t 30 carrier "$host" || bail "$host got no carrier"
echo "# --- usbeth link show dev $host"
"$CLI" link show dev "$host" | sed 's/^/#   /'
echo "# --- usbeth -d link show dev $gadget"
"$CLI" -d link show dev "$gadget" | sed 's/^/#   /'
held=$(modem_held "$host" "$ADMIN/my-modem.json")
echo "# --- the driver's own view (its sysfs files): $held, configfs qmult=$(cat "$NCM_FUNC/qmult")"
ktap_expect_eq driver_holds_profile_values "$held" "$(modem_wanted "$ADMIN/my-modem.json")"

echo "# --- traffic out of the modem (pings to a neighbour nobody answers for)"
ip addr add 10.200.0.1/24 dev "$host"
ip neigh replace 10.200.0.99 lladdr 02:00:00:00:b1:02 dev "$host"
ip -s link show dev "$host" | sed -n '/TX:/,+1p' | sed 's/^/#   before: /'
ping -c 20 -i 0.05 -W 1 10.200.0.99 > /dev/null
ip -s link show dev "$host" | sed -n '/TX:/,+1p' | sed 's/^/#   after:  /'
echo "# --- usbeth -d link show dev $host: its TX queue's BQL state"
"$CLI" -d link show dev "$host" | sed 's/^/#   /'
acct=none
usbnet_does_bql && acct=active
echo "# --- kernel $(uname -r): usbnet $( [ $acct = active ] && echo does || echo 'does no') BQL accounting"
ktap_expect_eq "bql_accounting_$acct" "$("$USBETHCTL" get "$host" | sed -n 's/^bql_accounting=//p')" $acct

echo "# --- stop the daemon: it puts back what it changed"
kill -TERM "$DPID"
while read -r -t 30 -u "$DFD" line; do echo "#   usbethd| $line"; done
wait "$DPID"
DPID=
t=$(cat "/sys/class/net/$host/cdc_ncm/tx_timer_usecs")
echo "# --- cdc_ncm/tx_timer_usecs=$t configfs qmult=$(cat "$NCM_FUNC/qmult")"
ktap_expect_eq restored_on_stop "$t $(cat "$NCM_FUNC/qmult")" "400 1"
ktap_finish
