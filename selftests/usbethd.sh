#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd on the real drivers: the NCM gadget poses as a DisplayLink dock
# and as a cellular modem, the daemon applies the built-in profiles (and an
# admin's, from a second directory) on hotplug and at start, restores on
# profile removal (SIGHUP) and on stop, keeps its configuration on a broken
# reload, and survives plug/unplug cycles with flat memory and no errors.
#
# Topology: the NCM link of lib.sh, but with both netdevs left in the
# initial netns (the gadget netdev is moved back, as usbeth_stress.sh does),
# where the daemon runs: a plug is a UDC bind, the host netdev appears there
# with its NEW notification. Every wait is on an event: a line the daemon
# logs (read from its stderr), nlwait, or the daemon exiting.
source "$(dirname "$0")/lib.sh"

D=$USBETH_TOP/usbethd/usbethd
BUILTIN=$USBETH_TOP/usbethd/profiles.d
W=/tmp/usbethd-test
ADMIN=$W/admin RUN=$W/run LOG=$W/daemon.log
CYCLES=${USBETHD_CYCLES:-30}
DPID= DFD=

[ -x "$D" ] || ktap_skip_all "usbethd not built (make -C usbethd)"
cleanup() {
	local rc=$?
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	# a failure shows what the daemon said
	if [ $rc -ne 0 ] || [ "$__ktap_fail" -gt 0 ]; then
		sed 's/^/# usbethd: /' "$LOG"
	fi
	ncm_teardown
}
trap cleanup EXIT
rm -rf "$W" && mkdir -p "$ADMIN" "$RUN"
: > "$LOG"

daemon_start() {
	exec {DFD}< <(exec "$D" -d "$BUILTIN" -d "$ADMIN" --runtime-dir "$RUN" 2>&1)
	DPID=$!
}
# dmark: later dexpects look only at lines from here on.
MARK=0
dmark() { MARK=$(wc -l < "$LOG"); }
# dexpect ERE [SECONDS]: the first line since the mark matching ERE, from
# what was read already or, failing that, from the daemon's next lines
# (every line is kept in $LOG, so waits may come in any order); prints it.
dexpect() {
	local line end=$((SECONDS + ${2:-20}))
	line=$(tail -n +$((MARK + 1)) "$LOG" | grep -m1 -E -- "$1") &&
		{ printf '%s\n' "$line"; return 0; }
	while [ $SECONDS -lt $end ]; do
		read -r -t $((end - SECONDS)) -u "$DFD" line || return 1
		printf '%s\n' "$line" >> "$LOG"
		if grep -qE -- "$1" <<< "$line"; then
			printf '%s\n' "$line"
			return 0
		fi
	done
	return 1
}
# daemon_stop: SIGTERM, read its last lines until it exits; its status.
daemon_stop() {
	local line rc
	kill -TERM "$DPID"
	while read -r -t 30 -u "$DFD" line; do printf '%s\n' "$line" >> "$LOG"; done
	wait "$DPID"
	rc=$?
	exec {DFD}<&-
	DPID=
	return $rc
}
uf() { "$USBETHCTL" get "$1" | sed -n "s/^$2=//p" | head -n1; }
sysnet() { cat "/sys/class/net/$1/$2"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status"; }
plug() { echo "$NCM_UDC" > "$NCM_GADGET/UDC"; }
unplug() { echo "" > "$NCM_GADGET/UDC"; }
# applied PROFILE: wait for a device to get PROFILE; prints the ifname
applied() {
	local l
	l=$(dexpect "^([^ :]+): profile $1 applied" "${2:-30}") || return 1
	echo "${l%%:*}"
}

ktap_plan 38

ncm_setup -s super -v 0x17e9 -p 0x4301 -q 1
ncm_unplug
gadget=$NCM_GADGET_IF
ip -n "$NCM_GADGET_NS" link set dev "$gadget" netns 1 || bail "cannot move $gadget back"
ip link set dev "$gadget" up

ktap_check check_builtin_profiles "$D" --check -d "$BUILTIN"

# --- start: the gadget is present but unbound, its speed unknown; the
# default applies until it connects
ktap_expect_eq gadget_qmult_before "$(uf "$gadget" qmult)" 1
daemon_start
ktap_check start_covers_present_gadget dexpect "^$gadget: profile default applied"
ktap_check daemon_ready dexpect "^ready: 4 profiles, 1 devices recorded"

# --- plug the "DisplayLink dock": NTB sizes to the device maximum; the
# gadget connects at SuperSpeed: qmult 5, in effect from the next connect
dmark
plug
host=$(applied displaylink) || bail "the host side did not get the displaylink profile"
ktap_ok displaylink_profile_on_plug
ktap_expect_eq displaylink_rx_max_is_device_max "$(sysnet "$host" cdc_ncm/rx_max)" \
	"$(sysnet "$host" cdc_ncm/dwNtbInMaxSize)"
ktap_expect_eq displaylink_tx_max_is_device_max "$(uf "$host" ntb_tx_max)" "$(uf "$host" ntb_dev_tx_max)"
ktap_check gadget_connect_gets_qmult_5 dexpect "^$gadget: profile superspeed-gadget: qmult: 1 -> 5$"
ktap_expect_eq gadget_qmult_configured "$(cat "$NCM_FUNC/qmult")" 5

out=$("$D" --explain "$host" -d "$BUILTIN" -d "$ADMIN" 2>&1)
printf '%s\n' "$out" | sed 's/^/#   /'
ktap_check explain_names_winner_and_why grep -q "^winner: displaylink .*more specific than default" <<< "$out"
ktap_check explain_no_diff grep -q "(nothing to change)" <<< "$out"

# --- an admin profile, more specific, extending the built-in; SIGHUP
t0=$(sysnet "$host" cdc_ncm/tx_timer_usecs) q0=$(sysnet "$host" tx_queue_len)
m0=$(sysnet "$host" mtu)
cat > "$ADMIN/dl-lowlat.json" <<'EOF'
{
	"description": "test: a DisplayLink model with a short timer",
	"extends": "displaylink",
	"match": { "vid": "17e9", "pid": ["4300", "4301"], "driver": "cdc_ncm",
		   "role": "host" },
	"settings": { "tx-timer-usecs": 100, "txqueuelen": 500, "mtu": 1400,
		      "gso": true, "qmult": 3 }
}
EOF
dmark
kill -HUP "$DPID"
ktap_check reload_applies_admin_profile applied dl-lowlat
ktap_expect_eq admin_tx_timer "$(sysnet "$host" cdc_ncm/tx_timer_usecs)" 100
ktap_expect_eq admin_txqueuelen_rtnl "$(sysnet "$host" tx_queue_len)" 500
ktap_expect_eq admin_mtu_rtnl "$(sysnet "$host" mtu)" 1400
# cdc_ncm here has gso off and cannot turn it on: set, or skipped and said
gso0=$(grep -E "^$host: profile dl-lowlat: gso: " "$LOG")
ktap_info "gso: ${gso0#*gso: }"
ktap_check admin_gso_set_or_skipped grep -qE "gso: (off -> on|skipped)" <<< "$gso0"
ktap_expect_eq unsupported_knob_logged_once "$(grep -c "^$host: profile dl-lowlat: qmult: skipped" "$LOG")" 1
dmark
kill -HUP "$DPID"
ktap_check reload_again_is_idempotent dexpect "^$host: profile dl-lowlat applied \(0 changed\)"
ktap_expect_eq unsupported_knob_still_logged_once "$(grep -c "qmult: skipped" "$LOG")" 1
ktap_check oneshot_apply_defers_to_daemon \
	sh -c "'$D' --apply '$host' -d '$BUILTIN' --runtime-dir '$RUN' 2>&1 | grep -q 'usbethd is running'"

# --- a broken profile on reload: error with line and column, old config kept
printf '{\n\t"match": {},\n\t"settings": { "qmult": 2 ]\n}\n' > "$ADMIN/broken.json"
sed -i 's/"tx-timer-usecs": 100/"tx-timer-usecs": 200/' "$ADMIN/dl-lowlat.json"
dmark
kill -HUP "$DPID"
ktap_check broken_reload_error_line_col dexpect "^$ADMIN/broken.json:3:27: "
ktap_check broken_reload_keeps_config dexpect "reload failed: keeping the previous configuration"
if "$D" --check -d "$BUILTIN" -d "$ADMIN" > /dev/null 2>&1; then
	ktap_fail check_fails_on_broken_profile
else
	ktap_ok check_fails_on_broken_profile
fi
# old behaviour: a new plug still gets the old dl-lowlat (100, not 200)
dmark
unplug
dexpect "^$host: gone, record dropped" > /dev/null || bail "no record dropped on unplug"
dmark
plug
host=$(applied dl-lowlat) || bail "replug: no profile applied"
ktap_expect_eq broken_reload_old_profile_in_use "$(sysnet "$host" cdc_ncm/tx_timer_usecs)" 100
# this is the gadget's next connect: the qmult 5 set at the last one is in effect
"$NLWAIT" -t 30 carrier "$gadget" || bail "gadget got no carrier"
ktap_expect_eq gadget_qmult_active_next_connect "$(uf "$gadget" qmult_active)" 5

# --- the admin profile removed + SIGHUP: the originals come back
rm -f "$ADMIN/broken.json" "$ADMIN/dl-lowlat.json"
dmark
kill -HUP "$DPID"
ktap_check removal_falls_back_to_builtin applied displaylink
ktap_expect_eq removal_restores_tx_timer "$(sysnet "$host" cdc_ncm/tx_timer_usecs)" "$t0"
ktap_expect_eq removal_restores_rtnl "$(sysnet "$host" tx_queue_len) $(sysnet "$host" mtu)" "$q0 $m0"

# --- a cellular modem's VID gets the modem profile
dmark
unplug
dexpect "^$host: gone, record dropped" > /dev/null || bail "no record dropped on unplug"
echo 0x1199 > "$NCM_GADGET/idVendor"
dmark
plug
host=$(applied cellular-modem) || bail "the modem did not get the cellular-modem profile"
ktap_expect_eq modem_tx_timer "$(sysnet "$host" cdc_ncm/tx_timer_usecs)" 50
ktap_expect_eq modem_bql_limit_max "$(sysnet "$host" queues/tx-0/byte_queue_limits/limit_max)" 8192

# --- plug/unplug cycles: every plug applied, records dropped, memory flat
rss0=$(rss_kb)
ok=0
for i in $(seq 1 "$CYCLES"); do
	dmark
	unplug
	dexpect "^$host: gone, record dropped" > /dev/null || { ktap_info "cycle $i: no drop"; break; }
	dmark
	plug
	host=$(applied cellular-modem) || { ktap_info "cycle $i: not applied"; break; }
	ok=$i
done
rss1=$(rss_kb)
ktap_info "RSS ${rss0} kB before $CYCLES cycles, ${rss1} kB after"
ktap_expect_eq every_plug_applied "$ok" "$CYCLES"
ktap_check memory_flat test -n "$rss0" -a -n "$rss1" -a $((rss1 - rss0)) -le 64
# the only error lines are the broken reload's
errs=$(grep -iE 'error|cannot|failed|lost' "$LOG" | grep -vE 'broken.json|reload failed')
[ -n "$errs" ] && printf '%s\n' "$errs" | sed 's/^/#   /'
ktap_expect_eq no_errors_logged "$(printf '%s' "$errs" | grep -c .)" 0

# --- stop restores what the daemon changed
daemon_stop
ktap_expect_eq stop_exit_status $? 0
ktap_expect_eq stop_restores_host_tx_timer "$(sysnet "$host" cdc_ncm/tx_timer_usecs)" "$t0"
ktap_expect_eq stop_restores_gadget_qmult "$(cat "$NCM_FUNC/qmult")" 1

# --- without the daemon: the one-shot udev path, idempotent
out=$("$D" --apply "$host" -d "$BUILTIN" --runtime-dir "$RUN" 2>&1 &&
      "$D" --apply "$host" -d "$BUILTIN" --runtime-dir "$RUN" 2>&1)
printf '%s\n' "$out" | sed 's/^/#   /'
ktap_check oneshot_apply_then_idempotent grep -q "profile cellular-modem applied (0 changed)" <<< "$out"
ktap_expect_eq oneshot_apply_tx_timer "$(sysnet "$host" cdc_ncm/tx_timer_usecs)" 50
ktap_finish
