#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Plug/unplug cycles (default 1000) of a USB NCM gadget while GET, SET, dump
# and monitor run against it all along, and every 100th cycle the UDC itself
# goes (rmmod dummy_hcd: the gadget device is deleted while GETs read the
# gadget netdev's UDC and speeds, kmod/gadget_rec.c). Meant for the
# debug kernel (make check-debug), where KASAN, lockdep, kmemleak and the
# reference trackers watch every one of those paths; it runs on any kernel.
# Each cycle waits for the host's cdc_ncm netdev to come and to go (rtnetlink
# events, tools/nlwait), and sets its TX timer, read back from sysfs. Every
# request must get a well-formed answer: a device, or an error naming it;
# the monitor must see every host netdev come and go, in order.
#
# On the debug kernel under TCG a cycle costs about 3.5 s: the 1000 took
# 3519 s on 2026-12-03 (another VM beside them most of the time), and
# passed, with no kernel report; the suite's 30-minute limit per test would
# cut them off:
# usbeth-timeout: 4500
source "$(dirname "$0")/lib.sh"

CYCLES=${USBETH_CYCLES:-1000}
stop=$(mktemp -u /tmp/cycles-stop.XXXXXX)
PIDS=()
cleanup() {
	touch "$stop"
	[ ${#PIDS[@]} -gt 0 ] && wait "${PIDS[@]}" 2>/dev/null
	[ -n "${MON:-}" ] && kill "$MON" 2>/dev/null
	rm -f "$stop" "$stop".*
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 8

ncm_create -s super
ncm_bind || bail "bind ($NCM_STALE_GLUE refused)"
G=$(cat "$NCM_FUNC/ifname")
"$NLWAIT" -t 60 driver cdc_ncm > /dev/null || bail "no host netdev at the first bind"

# worker NAME CMD...: run CMD until told to stop; count answers: ok,
# an error answer naming its errno (the device is gone), anything else malformed
worker() {
	local name=$1 ok=0 err=0 bad=0 out rc
	shift
	# below the plugs: they go ahead when both want the CPU (a single
	# TCG thread here), the requests fill every wait of theirs
	renice -n 19 -p "$BASHPID" > /dev/null
	until [ -e "$stop" ]; do
		out=$("$@" 2>&1)
		rc=$?
		if [ $rc -eq 0 ]; then
			ok=$((ok + 1))
		elif [ $rc -ne 0 ] && grep -q "^errno=E" <<< "$out"; then
			err=$((err + 1))
		else
			bad=$((bad + 1))
			[ $bad -le 3 ] && echo "# $name: rc=$rc: $out" >> "$stop.bad"
		fi
	done
	echo "$name ok=$ok err=$err bad=$bad" >> "$stop.counts"
}
host_dev() { # the host's cdc_ncm netdev now, or a name that is none
	local d
	for d in /sys/bus/usb/drivers/cdc_ncm/*/net/*; do
		[ -e "$d" ] && { basename "$d"; return; }
	done
	echo usb-gone
}
get_host() { "$USBETHCTL" get "$(host_dev)"; }
# (not the TX timer: each cycle sets that itself, and reads it back)
set_host() { "$USBETHCTL" set "$(host_dev)" ntb_rx_max=$((RANDOM % 2 * 8192 + 8192)); }
set_gadget() { "$USBETHCTL" set "$G" qmult=$((RANDOM % 5 + 1)); }

# the monitor writes to a file (thousands of events: no pipe to fill)
"$USBETHCTL" monitor -t 86400 > "$stop.mon" 2>&1 & MON=$!
timeout 30 tail -n +1 -f "$stop.mon" | grep -qm1 '^ready' || bail "usbethctl monitor did not start"
worker get_gadget "$USBETHCTL" get "$G" & PIDS+=($!)
worker get_host get_host & PIDS+=($!)
worker set_host set_host & PIDS+=($!)
worker set_gadget set_gadget & PIDS+=($!)
worker dump "$USBETHCTL" dump & PIDS+=($!)

# The UDC goes every USBETH_CYCLES_UDC_EVERY cycles (ncm_udc_reload, lib.sh:
# the gadget device deleted and freed under the GETs, and the kernel's stale
# glue directory worked around there; refused binds in NCM_STALE_GLUE).
udc_gone=0 done_cycles=0 failed=
for i in $(seq "$CYCLES"); do
	h=$("$NLWAIT" -t 60 driver cdc_ncm) || { failed="cycle $i: no host netdev"; break; }
	# one SET per plug that must reach the driver (the workers' may all
	# land between plugs): the host netdev is there until we unplug it
	t=$((i % 2 * 100 + 300))
	"$USBETHCTL" set "$h" tx_timer_usecs=$t > /dev/null || { failed="cycle $i: SET on $h"; break; }
	[ "$(cat "/sys/class/net/$h/cdc_ncm/tx_timer_usecs")" = $t ] ||
		{ failed="cycle $i: $h holds no tx_timer_usecs $t"; break; }
	echo "" > "$NCM_GADGET/UDC" || { failed="cycle $i: unbind"; break; }
	"$NLWAIT" -t 60 gone "$h" || { failed="cycle $i: $h did not go"; break; }
	if [ $((i % ${USBETH_CYCLES_UDC_EVERY:-100})) -eq 0 ]; then
		ncm_udc_reload || { failed="cycle $i: the UDC reload and bind ($NCM_STALE_GLUE stale)"; break; }
		udc_gone=$((udc_gone + 1))
		ktap_info "cycle $i of $CYCLES at ${SECONDS}s (the UDC removed $udc_gone times," \
			"$NCM_STALE_GLUE binds refused by a stale glue directory)"
	else
		echo "$NCM_UDC" > "$NCM_GADGET/UDC" || { failed="cycle $i: bind"; break; }
	fi
	done_cycles=$i
done
"$NLWAIT" -t 60 driver cdc_ncm > /dev/null
touch "$stop"
wait "${PIDS[@]}"
PIDS=()
ktap_check all_cycles test -z "$failed" -a "$done_cycles" -eq "$CYCLES" || ktap_info "$failed"
while read -r line; do ktap_info "$line"; done < "$stop.counts"
[ -f "$stop.bad" ] && while read -r line; do ktap_info "$line"; done < "$stop.bad"
ktap_expect_eq no_malformed_answer "$(grep -o 'bad=[0-9]*' "$stop.counts" | grep -vc 'bad=0$')" 0
ktap_check gets_answered grep -qE '^get_gadget ok=[1-9]' "$stop.counts"
ktap_check sets_answered grep -qE '^set_gadget ok=[1-9]' "$stop.counts"
ktap_check dumps_answered grep -qE '^dump ok=[1-9]' "$stop.counts"
# the monitor: every host netdev that came, unless it said it lost events
kill "$MON"; wait "$MON" 2>/dev/null; MON=
news=$(grep -c '^new .*role=usb-host' "$stop.mon")
dels=$(grep -c '^del ' "$stop.mon")
overruns=$(grep -c '^overrun' "$stop.mon")
ktap_info "monitor: $news host netdevs came, $dels netdevs went, $overruns overruns"
ktap_check monitor_saw_every_plug test "$news" -ge "$CYCLES" -o "$overruns" -gt 0
ktap_expect_eq monitor_well_formed "$(grep -c '^badmsg' "$stop.mon")" 0
ktap_expect_eq family_still_works "$("$USBETHCTL" dumpcount | sed -n 's/^count=\([0-9]*\).*/\1/p')" \
	"$(ip -o link | wc -l)"
ktap_finish
