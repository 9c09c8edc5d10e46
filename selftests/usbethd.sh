#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd on the real drivers: the NCM gadget poses as a DisplayLink dock
# and as a cellular modem, the daemon applies the built-in profiles (and an
# admin's, from a second directory) on hotplug and at start, restores on
# profile removal (SIGHUP) and on stop, keeps its configuration on a broken
# reload, and survives 100 plug/unplug cycles with flat memory and no
# errors. Then: an overrun of its notification sockets (--rcvbuf 1, the
# daemon SIGSTOPped while a CHANGE, a DEL and a NEW come) ends in a resync
# that drops the vanished device's record and applies the unseen plug;
# an admin's change kept through a reload, a gadget's reconnect and an
# overrun; an overrun with a stale NEW queued, which the recovery drops;
# sd_notify (READY, RELOADING, STOPPING) to a socket of the test's own, as
# systemd's; an e1000e NIC opted in by a role "other" profile gets its
# offloads through ethtool netlink (checked with ethtool -k) and every
# feature back on stop; veths show records of netdevs not on USB coming
# and going; the udev rule through `udevadm test` (if installed).
#
# Topology: the NCM link of lib.sh, but with both netdevs left in the
# initial netns (the gadget netdev is moved back, as usbeth_stress.sh does),
# where the daemon runs: a plug is a UDC bind, the host netdev appears there
# with its NEW notification. The e1000e NIC and the veths get a netns of
# their own, with a second daemon. Every wait is on an event: a line the
# daemon logs (read from its stderr), nlwait, a message on the notify
# socket, or the daemon exiting.
source "$(dirname "$0")/lib.sh"

D=$USBETHD
W=/tmp/usbethd-test
BUILTIN=$W/builtin
ADMIN=$W/admin RUN=$W/run LOG=$W/daemon.log
CYCLES=${USBETHD_CYCLES:-100}
DPID= DFD= NPID= NFD= NIC= ENS=usbethd-nic

need_usbeth_prog USBETHD
cleanup() {
	local rc=$?
	[ -n "$DPID" ] && kill -CONT "$DPID" 2>/dev/null && kill "$DPID" 2>/dev/null
	[ -n "$NPID" ] && kill "$NPID" 2>/dev/null
	wait 2>/dev/null
	if [ -n "$NIC" ]; then
		ip -n "$ENS" link set dev "$NIC" netns 1 2>/dev/null
		ip netns del "$ENS" 2>/dev/null
	fi
	# a failure shows what the daemon said
	if [ $rc -ne 0 ] || [ "$__ktap_fail" -gt 0 ]; then
		sed 's/^/# usbethd: /' "$LOG"
	fi
	ncm_teardown
}
trap cleanup EXIT
source "$(dirname "$0")/usbethd_lib.sh"
rm -rf "$W" && mkdir -p "$ADMIN" "$RUN"
stage_profiles "$BUILTIN" && modem_test_profile "$BUILTIN" ||
	bail "cannot stage the built-in profiles"
: > "$LOG"

ktap_plan 88

ncm_setup -s super -v 0x17e9 -p 0x4301 -q 1
ncm_unplug
gadget=$NCM_GADGET_IF
ip -n "$NCM_GADGET_NS" link set dev "$gadget" netns 1 || bail "cannot move $gadget back"
ip link set dev "$gadget" up

ktap_check check_builtin_profiles "$D" --check -d "$BUILTIN"
NB=$(find "$BUILTIN" -name '*.json' | wc -l)	# what the daemon must load

# --- start: the gadget is present but unbound, its speed unknown; the
# default applies until it connects
ktap_expect_eq gadget_qmult_before "$(uf "$gadget" qmult)" 1
daemon_start
ktap_check start_covers_present_gadget dexpect "^$gadget: profile default applied"
ktap_check daemon_ready dexpect "^ready: $NB profiles, 1 devices recorded"

# --- plug the "DisplayLink dock": NTB sizes to the device maximum; the
# gadget connects at SuperSpeed: qmult 5, in effect from the next connect
dmark
plug
applied displaylink || bail "the host side did not get the displaylink profile"
host=$APPLIED
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
# without a DEV: every USB network device, the host side and the gadget
out=$("$D" --explain -d "$BUILTIN" -d "$ADMIN" 2>&1)
ktap_check explain_all_has_host grep -q "^device $host (ifindex" <<< "$out"
ktap_check explain_all_has_gadget grep -q "^device $gadget (ifindex" <<< "$out"

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
applied dl-lowlat || bail "replug: no profile applied"
host=$APPLIED
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

# --- a modem vendor's VID gets the tests' modem profile
dmark
unplug
dexpect "^$host: gone, record dropped" > /dev/null || bail "no record dropped on unplug"
echo 0x1199 > "$NCM_GADGET/idVendor"
dmark
plug
applied modem-test || bail "the modem did not get the modem-test profile"
host=$APPLIED
ktap_expect_eq modem_profile_in_driver "$(modem_held "$host")" "$(modem_wanted)"

# --- the same modem on a full-speed link (the gadget's max_speed: dummy_hcd
# then connects it at full speed): the full-speed profile, the more specific
dmark
unplug
dexpect "^$host: gone, record dropped" > /dev/null || bail "no record dropped on unplug"
echo full-speed > "$NCM_GADGET/max_speed" || bail "cannot set the gadget's max_speed"
dmark
plug
applied cellular-modem-full-speed || bail "the full-speed modem did not get its profile"
host=$APPLIED
ktap_expect_eq fullspeed_modem_speed "$(uf "$host" usb_speed)" full
ktap_expect_eq fullspeed_modem_profile_in_driver "$(modem_held "$host" cellular-modem-full-speed)" \
	"$(modem_wanted cellular-modem-full-speed)"
# its ntb-tx-max 8192 is held as 8193 (cdc_ncm pads a multiple of the
# 64-byte packet): the daemon killed right after that set (usbethd-hooks,
# USBETHD_TEST_KILL_AT), then the daemon tested started with the profile
# masked (an empty file of its name), puts the original back instead of
# taking 8193 for an admin's value; unmasked, it is set again. Without
# usbethd-hooks (the usbeth-tests package) the two checks skip, and fail
# under USBETH_STRICT=1.
if [ -x "$USBETHD_HOOKS" ]; then
	daemon_stop
	tx0=$(sysnet "$host" cdc_ncm/tx_max)
	dmark
	USBETHD_TEST_KILL_AT=after-first-set daemon_start
	dexpect "USBETHD_TEST_KILL_AT=after-first-set: killed" > /dev/null
	daemon_stop
	ktap_expect_eq fullspeed_killed_after_set_padded "$(sysnet "$host" cdc_ncm/tx_max)" 8193
	: > "$ADMIN/cellular-modem-full-speed.json"
	dmark
	daemon_start
	dexpect "^ready: " > /dev/null || bail "the daemon did not start again"
	ktap_expect_eq fullspeed_crash_then_masked_restores "$(sysnet "$host" cdc_ncm/tx_max)" "$tx0"
	rm -f "$ADMIN/cellular-modem-full-speed.json"
	dmark
	kill -HUP "$DPID"
	applied cellular-modem-full-speed || bail "unmasked: not the full-speed profile"
else
	for t in fullspeed_killed_after_set_padded fullspeed_crash_then_masked_restores; do
		if [ "${USBETH_STRICT:-0}" = 1 ]; then
			ktap_fail "$t" "no usbethd-hooks ($USBETHD_HOOKS; USBETH_STRICT=1)"
		else
			ktap_skip "$t" "no usbethd-hooks ($USBETHD_HOOKS)"
		fi
	done
fi
dmark
unplug
dexpect "^$host: gone, record dropped" > /dev/null || bail "no record dropped on unplug"
echo super-speed > "$NCM_GADGET/max_speed" || bail "cannot set the gadget's max_speed"
dmark
plug
applied modem-test || bail "back at super speed: not the modem-test profile"
host=$APPLIED
ktap_expect_eq superspeed_modem_back_to_modem_profile "$(modem_held "$host")" "$(modem_wanted)"

# --- plug/unplug cycles: every plug applied, records dropped, memory flat
rss0=$(rss_kb)
ok=0 tc=$SECONDS
for i in $(seq 1 "$CYCLES"); do
	dmark
	unplug
	dexpect "^$host: gone, record dropped" > /dev/null || { ktap_info "cycle $i: no drop"; break; }
	dmark
	plug
	applied modem-test || { ktap_info "cycle $i: not applied"; break; }
	host=$APPLIED
	ok=$i
done
rss1=$(rss_kb)
ktap_info "RSS ${rss0} kB before $CYCLES cycles, ${rss1} kB after; the cycles took $((SECONDS - tc)) s"
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
ktap_check oneshot_apply_then_idempotent grep -q "profile modem-test applied (0 changed)" <<< "$out"
ktap_expect_eq oneshot_apply_profile_in_driver "$(modem_held "$host")" "$(modem_wanted)"

# --- sd_notify without systemd: a listener on a unix datagram socket (what
# systemd gives a Type=notify service in NOTIFY_SOCKET) prints each message
# with the sender's pid (SCM_CREDENTIALS, what NotifyAccess=main checks)
notify_start() {
	exec {NFD}< <(exec python3 -u -c '
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(sys.argv[1])
print("listening")
while True:
    msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
    pid = [struct.unpack("iII", d[:12])[0] for l, t, d in anc
           if l == socket.SOL_SOCKET and t == socket.SCM_CREDENTIALS]
    print("pid=%s %s" % (pid[0] if pid else "?", msg.decode().replace("\n", " ")))
' "$1")
	NPID=$!
	local line
	read -r -t 30 -u "$NFD" line && [ "$line" = listening ] || bail "notify listener did not start"
}
# notified: the next message the daemon sent to NOTIFY_SOCKET
notified() { local line; read -r -t 30 -u "$NFD" line && printf '%s\n' "$line"; }

# --- overrun: a receive buffer of one notification (--rcvbuf 1: the
# kernel's floor); the daemon is stopped (SIGSTOP) while a CHANGE fills the
# buffer and the DEL of an unplug and the NEW of a plug overflow it. Woken
# (SIGCONT), it must see the overrun, resync by dump, drop the vanished
# device's record and apply the profile to the device it was never told of.
# Both of its sockets overflow (the plug's RTM_NEWLINKs too): whichever
# it reads first names the overrun, and the recovery drains the other
# with its error (a daemon stopped in the middle of reading link events
# goes on with them when woken).
OVERRUN="^(notifications|link events) lost \(ENOBUFS\): resync"
notify_start "$W/notify.sock"
dmark
NOTIFY_SOCKET=$W/notify.sock daemon_start --rcvbuf 1
n=$(notified) || bail "no sd_notify message"
ktap_info "sd_notify: $n"
ktap_expect_eq notify_ready_from_main_pid "$n" "pid=$DPID READY=1 STATUS=applying profiles"
ktap_check small_rcvbuf_ready dexpect "^ready: $NB profiles, 2 devices recorded"
old=$host oldidx=$(cat "/sys/class/net/$host/ifindex")
kill -STOP "$DPID"
"$USBETHCTL" set "$old" tx_timer_usecs=300 > /dev/null || bail "usbethctl set $old"
unplug
"$NLWAIT" -t 30 gone "$old" || bail "$old did not go on unplug"
plug
host=$("$NLWAIT" -t 30 driver cdc_ncm) || bail "no cdc_ncm netdev on plug"
ktap_info "stopped daemon: CHANGE + DEL of $old (ifindex $oldidx), NEW of $host (ifindex $(cat "/sys/class/net/$host/ifindex"))"
kill -CONT "$DPID"
ktap_check overrun_logged dexpect "$OVERRUN" &&
	ktap_info "the daemon: $(grep -E "$OVERRUN" "$LOG" | tail -n 1)"
ktap_check overrun_resync_drops_vanished dexpect "^$old: gone, record dropped"
ktap_check overrun_resync_applies_unseen_plug dexpect "^$host: profile modem-test applied \($(wc -w <<< "$(modem_wanted)") changed\)"
ktap_check overrun_no_record_leaked dexpect "^resync \((link )?overrun\): [0-9]+ netdevs, 2 devices recorded"
ktap_expect_eq overrun_plug_profile_in_driver "$(modem_held "$host")" "$(modem_wanted)"
ktap_expect_eq overrun_plug_tx_timer_in_usbeth "$(uf "$host" tx_timer_usecs)" \
	"$(sysnet "$host" cdc_ncm/tx_timer_usecs)"
# after the resync it hears of devices again
dmark
kill -HUP "$DPID"
# (MONOTONIC_USEC: CLOCK_MONOTONIC, as Type=notify-reload wants it)
ktap_check notify_reloading grep -qE "^pid=$DPID RELOADING=1 MONOTONIC_USEC=[0-9]+$" <<< "$(notified)"
ktap_expect_eq notify_ready_after_reload "$(notified)" "pid=$DPID READY=1"
ktap_check resync_on_reload dexpect "^resync \(reload\): [0-9]+ netdevs, 2 devices recorded"

# --- an admin's change is theirs on every evaluation, not only on stop
# (usbethd(8)): qmult set by hand on the gadget (its profile's is 5) and
# tx-timer-usecs on the host (its profile's is 50) stay through a reload,
# the gadget's reconnect (evaluated again on carrier) and, below, an
# overrun's resync
dmark
"$USBETHCTL" set "$gadget" qmult=2 > /dev/null || bail "usbethctl set $gadget"
"$USBETHCTL" set "$host" tx_timer_usecs=123 > /dev/null || bail "usbethctl set $host"
kill -HUP "$DPID"
dexpect "^resync \(reload\): " > /dev/null || bail "no reload"
notified > /dev/null && notified > /dev/null	# RELOADING, READY
ktap_expect_eq admin_change_kept_on_reload "$(cat "$NCM_FUNC/qmult") $(sysnet "$host" cdc_ncm/tx_timer_usecs)" "2 123"
ktap_check admin_change_said dexpect "^$gadget: [^:]+: qmult: left alone: someone changed it to 2 since usbethd set 5"
unplug
dexpect "^$host: gone, record dropped" > /dev/null || bail "no record dropped on unplug"
dmark
plug
ktap_check reconnect_gadget_evaluated dexpect "^$gadget: profile superspeed-gadget applied"
"$NLWAIT" -t 30 carrier "$gadget" || bail "gadget got no carrier"
ktap_expect_eq admin_change_kept_on_reconnect "$(cat "$NCM_FUNC/qmult") $(uf "$gadget" qmult_active)" "2 2"

# --- an overrun with a stale NEW queued: the daemon stopped while the
# host's NEW fills its buffer and CHANGEs overflow it. Its recovery
# drops what is queued, then resyncs once: the host is applied from the
# dump, not a second time from the NEW's snapshot of it as it registered
# (counted up to a second reload: a loop turn after the stale NEW's)
host=$("$NLWAIT" -t 30 driver cdc_ncm) || bail "no cdc_ncm netdev on plug"
applied modem-test || bail "replug: not the modem-test profile"
dmark
unplug
dexpect "^$host: gone, record dropped" > /dev/null || bail "no record dropped on unplug"
dmark
m0=$MARK
kill -STOP "$DPID"
plug
host=$("$NLWAIT" -t 30 driver cdc_ncm) || bail "no cdc_ncm netdev on plug"
for v in $(seq 100 107); do
	"$USBETHCTL" set "$host" bql_limit_min="$v" > /dev/null || bail "usbethctl set $host"
done
kill -CONT "$DPID"
ktap_check stale_overrun_seen dexpect "$OVERRUN" &&
	ktap_info "the daemon: $(grep -E "$OVERRUN" "$LOG" | tail -n 1)"
ktap_check stale_overrun_resync_applies dexpect "^$host: profile modem-test applied \($(wc -w <<< "$(modem_wanted)") changed\)"
for i in 1 2; do
	dmark
	kill -HUP "$DPID"
	dexpect "^resync \(reload\): " > /dev/null || bail "no reload ($i)"
	notified > /dev/null && notified > /dev/null
done
mapfile -t -s "$m0" seen < "$LOG"
n=0
for l in "${seen[@]}"; do
	[[ $l =~ ^$host:\ profile\ modem-test\ applied\ \([1-9] ]] && n=$((n + 1))
done
ktap_expect_eq stale_new_not_applied_again "$n" 1
ktap_expect_eq admin_change_kept_on_overrun "$(cat "$NCM_FUNC/qmult")" 2
# the admin puts it back by hand; the stop leaves it theirs
"$USBETHCTL" set "$gadget" qmult=1 > /dev/null || bail "usbethctl set $gadget"
kill -TERM "$DPID"
ktap_expect_eq notify_stopping "$(notified)" "pid=$DPID STOPPING=1"
daemon_stop
ktap_expect_eq stop_after_overrun_restores "$(sysnet "$host" cdc_ncm/tx_timer_usecs) $(cat "$NCM_FUNC/qmult")" "400 1"
kill "$NPID" 2>/dev/null

# --- netdevs not on USB, opted in by a profile with role "other" and a
# driver: the offloads through ethtool netlink on e1000e (it can toggle sg,
# tso and gso), in a netns of their own where the daemon sees the NIC
# arrive (RTM_NEWLINK); veths for the record's lifetime (RTM_DELLINK)
modprobe e1000e && NIC=$(__e1k_by_mac "$E1K_A_MAC") || bail "no e1000e NIC (run in the usbeth VM)"
ip netns add "$ENS" || bail "ip netns add $ENS"
ip -n "$ENS" link set lo up
# offl NETNS: sg tso gso of the NIC as `ethtool -k` shows them
offl() {
	in_ns "$1" ethtool -k "$NIC" | awk -F': ' '
		$1 == "scatter-gather" { sg = $2 }
		$1 == "tcp-segmentation-offload" { tso = $2 }
		$1 == "generic-segmentation-offload" { gso = $2 }
		END { print "sg " sg ", tso " tso ", gso " gso }'
}
k0=$(ethtool -k "$NIC")
ktap_info "$NIC before: $(offl "")"
printf '%s\n' '{ "match": { "driver": "e1000e", "role": "other" },' \
	'  "settings": { "sg": false, "tso": false, "gso": false, "mtu": 65000 } }' > "$ADMIN/nic-offloads.json"
printf '%s\n' '{ "match": { "driver": "veth", "role": "other" },' \
	'  "settings": { "txqueuelen": 321 } }' > "$ADMIN/veth.json"
ktap_check default_profile_leaves_nic_alone \
	sh -c "'$D' --explain '$NIC' -d '$BUILTIN' 2>&1 | grep -q 'leaves it alone'"
dmark
DNS=$ENS daemon_start
ktap_check nic_netns_ready dexpect "^ready: $((NB + 2)) profiles, 0 devices recorded"
ip link set dev "$NIC" netns "$ENS" || bail "cannot move $NIC into $ENS"
ktap_check nic_appears_gets_profile dexpect "^$NIC: profile nic-offloads applied \(3 changed\)"
ktap_expect_eq nic_offloads_off_ethtool_k "$(offl "$ENS")" "sg off, tso off, gso off"
ktap_check nic_log_old_new grep -qE "^$NIC: profile nic-offloads: tso: on -> off$" "$LOG"
# a refused request: the kernel's extended ACK message is in the log
ktap_check nic_mtu_refused_extack grep -qE "^$NIC: profile nic-offloads: mtu: cannot set 65000: .*: mtu greater than device maximum$" "$LOG"
out=$(ip netns exec "$ENS" "$D" --explain "$NIC" -d "$BUILTIN" -d "$ADMIN" 2>&1)
printf '%s\n' "$out" | sed 's/^/#   /'
# the diff left: only the MTU the NIC refuses
ktap_expect_eq nic_explain_winner_diff "$(sed -n 's/^winner: \([^ ]*\).*/\1/p; /^diff/,$ { /^diff/d; s/  */ /gp }' <<< "$out")" \
	"nic-offloads
 mtu 1500 -> 65000"
# a change: sg and gso no longer set: both restored, in one request (gso
# needs sg: one at a time, gso first, the kernel would keep it off)
printf '%s\n' '{ "match": { "driver": "e1000e", "role": "other" },' \
	'  "settings": { "tso": false } }' > "$ADMIN/nic-offloads.json"
dmark
kill -HUP "$DPID"
ktap_check nic_reload_applied dexpect "^resync \(reload\): [0-9]+ netdevs, 1 devices recorded"
ktap_check nic_sg_gso_restored grep -qzE "$NIC: restore \(profile nic-offloads no longer sets it\): sg: off -> on.$NIC: restore \(profile nic-offloads no longer sets it\): gso: off -> on" "$LOG"
ktap_expect_eq nic_offloads_after_reload "$(offl "$ENS")" "sg on, tso off, gso on"
# tso wanted on, sg off: tso needs sg, the kernel keeps it off: skipped,
# and its wanted state put back (no "[requested on]" left behind)
printf '%s\n' '{ "match": { "driver": "e1000e", "role": "other" },' \
	'  "settings": { "sg": false, "tso": true } }' > "$ADMIN/nic-offloads.json"
dmark
kill -HUP "$DPID"
ktap_check nic_tso_refused_skipped dexpect "^$NIC: profile nic-offloads: tso: skipped \(the device keeps it off\)$"
ktap_check nic_reload_again dexpect "^$NIC: profile nic-offloads applied \(1 changed\)"
ktap_expect_eq nic_offloads_after_skip "$(offl "$ENS")" "sg off, tso off, gso off [requested on]"
ktap_expect_eq nic_tso_wanted_put_back "$(ip netns exec "$ENS" ethtool -k "$NIC" | grep -cE 'tcp.*segmentation.*requested on')" 0
# veths: created (both ends applied), deleted (both records dropped)
dmark
modprobe veth && ip -n "$ENS" link add ue-v0 type veth peer name ue-v1 || bail "cannot add a veth pair"
dexpect "^ue-v1: profile veth applied \(1 changed\)" > /dev/null &&
	dexpect "^ue-v0: profile veth applied \(1 changed\)" > /dev/null
ktap_expect_eq veth_appears_gets_profile "$?/$(ip netns exec "$ENS" cat /sys/class/net/ue-v0/tx_queue_len)" "0/321"
ip -n "$ENS" link del ue-v0
dexpect "^ue-v0: gone, record dropped" > /dev/null && dexpect "^ue-v1: gone, record dropped" > /dev/null
ktap_expect_eq veth_gone_records_dropped $? 0
# stop: sg and tso back on together, in one request; every feature as before
daemon_stop
ktap_expect_eq nic_stop_restores "$(offl "$ENS")" "sg on, tso on, gso on"
ip -n "$ENS" link set dev "$NIC" netns 1 || bail "cannot move $NIC back"
ktap_check nic_every_feature_as_before diff <(printf '%s\n' "$k0") <(ethtool -k "$NIC")
ip netns del "$ENS"

# --- the udev rule, without udevd: `udevadm test` simulates an add event
# with the rule installed (in the guest's /run) and prints the RUN+= it
# would run; with 80-net-setup-link.rules and 99-default.link masked, so
# that the simulation renames and reconfigures no netdev
if command -v udevadm > /dev/null; then
	mkdir -p /run/udev/rules.d /run/systemd/network
	ln -sf /dev/null /run/udev/rules.d/80-net-setup-link.rules
	ln -sf /dev/null /run/systemd/network/99-default.link
	usbeth_udev_rule > /run/udev/rules.d/90-usbeth.rules || bail "no installed udev rule 90-usbeth.rules"
	# urun DEV: what udev would run for DEV's add, our rule's part
	urun() {
		udevadm test --action=add "/sys/class/net/$1" > "$W/udev.$1" 2>&1
		grep -F "run: '$D --apply $1'" "$W/udev.$1"
	}
	ktap_check udev_rule_runs_apply_for_usb_host urun "$host"
	ktap_check udev_rule_runs_apply_for_gadget urun "$gadget"
	if urun "$NIC" > /dev/null; then
		ktap_fail udev_rule_leaves_nic_alone
	else
		ktap_ok udev_rule_leaves_nic_alone
	fi
	# udev logs what it cannot parse as "FILE:LINE message" (a rule that
	# runs is traced as "DEV: FILE:LINE ..."): none for ours, while a
	# broken rule beside it shows the check would see one
	ktap_check udev_rule_parses_clean sh -c "! grep -h '^/run/udev/rules.d/90-usbeth.rules:' '$W'/udev.*"
	printf '%s\n' 'ACTION=="add", NOSUCHKEY=="x", RUN+="/bin/true"' 'SUBSYSTEM=="net" GOTO' \
		> /run/udev/rules.d/91-usbethd-selftest-broken.rules
	udevadm test --action=add "/sys/class/net/$host" > "$W/udevbroken.out" 2>&1
	rm -f /run/udev/rules.d/91-usbethd-selftest-broken.rules
	ktap_check udev_parse_check_sees_broken_rule grep -q '^/run/udev/rules.d/91-usbethd-selftest-broken.rules:' "$W/udevbroken.out"
	rm -f /run/udev/rules.d/90-usbeth.rules /run/udev/rules.d/80-net-setup-link.rules \
		/run/systemd/network/99-default.link
else
	for t in udev_rule_runs_apply_for_usb_host udev_rule_runs_apply_for_gadget \
		 udev_rule_leaves_nic_alone udev_rule_parses_clean \
		 udev_parse_check_sees_broken_rule; do
		ktap_skip $t "no udevadm (Debian: apt-get install udev)"
	done
fi
NIC=
ktap_info "usbethd.sh took $SECONDS s"
ktap_finish
