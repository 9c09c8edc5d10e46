#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd on a system as Debian installs it: systemd-udevd runs with
# Debian's own rules and .link files, so the USB NIC that appears as eth0
# (usbnet's name for one with a universal MAC) is renamed enx<MAC>
# (73-usb-net-by-mac.link) right after the NEW notification that named it,
# and our udev rule runs `usbethd --apply` on every add.
#
#  1. rename: a profile that matches only the new name ("ifname": "enx*")
#     applies after the rename (udev's --apply left it to the daemon: it
#     changed the value itself); a second rename under the daemon, a resync
#     (SIGHUP), and the stop still restores the original.
#  2. boot order: no daemon; udev's --apply applies and records the
#     originals; the daemon starts, finds the record, and its stop restores.
#  3. kill -9: the restarted daemon restores what the killed one changed.
#  4. module reload under the daemon and `usbeth monitor`: both follow, and
#     a plug after the reload still gets its profile; again with both
#     stopped behind a CHANGE flood, the reload hidden by the overrun.
#  5. untrusted files: a FIFO, a broken profile, a bad name, a world-
#     writable file are skipped at start (the rest applies; --check fails);
#     a profile key with a newline and "<0>" cannot forge a journal line;
#     the lock is 0600, so another user cannot hold it.
#
# Every wait is on an event: a daemon line, `udevadm settle` (udev's queue
# empty), nlwait, a monitor line.
source "$(dirname "$0")/lib.sh"

D=$USBETHD	# USBETHD=...: another build, to compare
CLI=$USBETH_CLI
W=/tmp/usbethd-udev
BUILTIN=$W/builtin ADMIN=$W/admin RUN=$W/run LOG=$W/daemon.log
UDEVD=/lib/systemd/systemd-udevd
MAC=00:00:5e:00:53:01		# universal (IANA documentation): renamed
ENX=enx00005e005301
DPID='' DFD='' MPID='' MFD='' UPID=''

need_usbeth_prog USBETHD
need_usbeth_prog USBETH_CLI
[ -x "$UDEVD" ] && command -v udevadm > /dev/null ||
	env_missing "no systemd-udevd (Debian: apt-get install udev)"
[ -e /lib/systemd/network/73-usb-net-by-mac.link ] ||
	env_missing "no 73-usb-net-by-mac.link (Debian's udev renames USB NICs with it)"
# The tests' root is not PID 1's (vm/init keeps the initramfs as its own):
# udevadm and udevd would take that for a chroot and ignore their requests.
export SYSTEMD_IGNORE_CHROOT=1
source "$(dirname "$0")/usbethd_lib.sh"

cleanup() {
	local rc=$?
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	[ -n "$MPID" ] && kill "$MPID" 2>/dev/null
	[ -n "$UPID" ] && kill "$UPID" 2>/dev/null
	wait 2>/dev/null
	rm -f /run/udev/rules.d/90-usbeth.rules
	[ -d /sys/module/usbeth ] || usbeth_load 2>/dev/null
	if [ $rc -ne 0 ] || [ "$__ktap_fail" -gt 0 ]; then
		sed 's/^/# usbethd: /' "$LOG"
		[ -e "$W/monitor.log" ] && sed 's/^/# monitor: /' "$W/monitor.log"
	fi
	ncm_teardown
}
trap cleanup EXIT
rm -rf "$W" && mkdir -p "$ADMIN" "$RUN" && chmod 0755 "$W" "$ADMIN" "$RUN"
stage_profiles "$BUILTIN" || bail "cannot stage the built-in profiles"
: > "$LOG"

sysnet() { cat "/sys/class/net/$1/$2"; }
timer() { sysnet "$1" cdc_ncm/tx_timer_usecs; }
plug() { echo "$NCM_UDC" > "$NCM_GADGET/UDC"; }
unplug() { echo "" > "$NCM_GADGET/UDC"; }
# plugged NAME: the host side appeared and udev has done with it (renamed,
# RUN done: its queue is empty); its name is NAME
plugged() {
	"$NLWAIT" -t 30 driver cdc_ncm > /dev/null && udevadm settle -t 60 &&
		[ -d "/sys/class/net/$1" ]
}
unplugged() { "$NLWAIT" -t 30 gone "$1" && udevadm settle -t 60; }
ifindex() { cat "/sys/class/net/$1/ifindex"; }
# the one profile of these tests: a "cellular modem" by name only
profile_by_name() {
	cat > "$ADMIN/enx-modem.json" <<'EOF'
{
	"description": "test: every USB NIC udev named by its MAC",
	"match": { "ifname": "enx*", "role": "host" },
	"settings": { "tx-timer-usecs": 100 }
}
EOF
}

ktap_plan 41

# --- udevd, as on a Debian system: its rules and .link files, and ours
# (the installed rule, or the tree's, with RUN pointed at $D and the
# test's directories; in /run it takes the place of an installed one)
mkdir -p /run/udev/rules.d
rule=$(usbeth_udev_rule) || bail "no installed udev rule 90-usbeth.rules"
sed -E "s|RUN\+=\"[^\" ]*/usbethd |RUN+=\"$D -d $BUILTIN -d $ADMIN --runtime-dir $RUN |" \
	<<< "$rule" > /run/udev/rules.d/90-usbeth.rules
grep -qF "RUN+=\"$D -d $BUILTIN" /run/udev/rules.d/90-usbeth.rules ||
	bail "the udev rule has no RUN+= of usbethd to point at the test's daemon"
# --daemon: the parent exits once the control socket listens
"$UDEVD" --daemon || bail "systemd-udevd did not start"
UPID=$(pidof systemd-udevd)
udevadm control --ping -t 30 || bail "systemd-udevd does not answer"

# a gadget no built-in profile knows, whose host side has a universal MAC
ncm_create -s super -v 0x1234 -p 0x5678 -m "$MAC"
profile_by_name

# --- 1. rename under the daemon
daemon_start
dexpect "^ready: " > /dev/null || bail "the daemon did not start"
dmark
plug
plugged "$ENX" || bail "udev did not rename the host side to $ENX"
ktap_ok udev_renamed_usb_nic
ktap_check daemon_follows_rename dexpect "^$ENX: renamed \(was [^)]+\)$"
ktap_check ifname_profile_applies_after_rename \
	dexpect "^$ENX: profile enx-modem applied \(1 changed\)$"
ktap_expect_eq timer_set_after_rename "$(timer "$ENX")" 100
# --explain names the profile the daemon applied
ktap_check explain_winner_matches_daemon sh -c \
	"'$D' -d '$BUILTIN' -d '$ADMIN' --explain $ENX | grep -q '^winner: enx-modem '"
# a second rename (an admin's), then a resync: the record must survive
dmark
ip link set dev "$ENX" name modem0 || bail "cannot rename $ENX"
ktap_check daemon_follows_second_rename dexpect "^modem0: renamed \(was $ENX\)$"
dmark
kill -HUP "$DPID"
ktap_check resync_keeps_renamed_record \
	dexpect "^resync \(reload\): [0-9]+ netdevs, 2 devices recorded"
ktap_check no_record_dropped sh -c "! grep -q 'record dropped' '$LOG'"
daemon_stop
ktap_expect_eq stop_restores_renamed "$(timer modem0)" 400
ktap_check stop_removes_record sh -c "! ls '$RUN'/dev-* 2>/dev/null"
ip link set dev modem0 name "$ENX"

# --- 2. boot order: udev applies first, the daemon starts later
unplug
unplugged "$ENX" || bail "the host side did not go"
plug
plugged "$ENX" || bail "no $ENX on replug"
idx=$(ifindex "$ENX")
ktap_expect_eq udev_apply_sets_timer "$(timer "$ENX")" 100
ktap_check udev_apply_records_original grep -qx "orig tx-timer-usecs 400" "$RUN/dev-$idx"
ktap_expect_eq record_is_0600 "$(stat -c %a "$RUN/dev-$idx")" 600
: > "$LOG"
dmark
daemon_start
ktap_check daemon_finds_udev_record dexpect "^1 records of originals found in $RUN$"
ktap_check daemon_keeps_udev_record dexpect "^ready: [0-9]+ profiles, 2 devices recorded"
daemon_stop
ktap_expect_eq stop_restores_what_udev_set "$(timer "$ENX")" 400

# --- 3. kill -9, then a restart
dmark
daemon_start
dexpect "^$ENX: profile enx-modem applied \(1 changed\)$" > /dev/null ||
	bail "the daemon did not apply on start"
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
exec {DFD}<&-
DPID=
ktap_expect_eq killed_daemon_left_timer "$(timer "$ENX")" 100
dmark
daemon_start
ktap_check restarted_daemon_finds_record dexpect "^1 records of originals found"
dexpect "^ready: " > /dev/null
daemon_stop
ktap_expect_eq restart_then_stop_restores "$(timer "$ENX")" 400

# --- 4. module reload under the daemon and the CLI monitor
dmark
daemon_start
dexpect "^ready: " > /dev/null || bail "the daemon did not start"
exec {MFD}< <(exec "$CLI" monitor list 2>&1)
MPID=$!
# the monitor lists before it waits: the loopback's line says it listens
mon() { # mon ERE: the monitor's next line matching ERE
	local line end=$((SECONDS + 60))
	while read -r -t $((end - SECONDS)) -u "$MFD" line; do
		printf '%s\n' "$line" >> "$W/monitor.log"
		[[ $line =~ $1 ]] && return 0
	done
	return 1
}
mon "^\[existing\] [0-9]+: lo:" || bail "usbeth monitor did not list"
unplug
unplugged "$ENX" || bail "the host side did not go"
rmmod usbeth || bail "cannot unload usbeth under the daemon"
ktap_check daemon_sees_unload dexpect "the usbeth module was unloaded"
ktap_check monitor_sees_unload mon "^\[unloaded\]"
# meanwhile, a daemon starting says so and exits 2 (usbethd(8))
out=$("$D" -d "$BUILTIN" --runtime-dir "$W/run2" 2>&1)
ktap_expect_eq no_module_daemon_exits_2 "$?" 2
ktap_check no_module_daemon_says_why grep -q "the usbeth kernel module is not loaded (modprobe usbeth)" <<< "$out"
usbeth_load || bail "cannot load the usbeth module back"
ktap_check daemon_sees_reload dexpect "the usbeth module is back: resync"
ktap_check monitor_sees_reload mon "^\[loaded\]"
dmark
plug
plugged "$ENX" || bail "no $ENX after the reload"
ktap_check plug_after_reload_gets_profile \
	dexpect "^$ENX: profile enx-modem applied \(1 changed\)$"
ktap_expect_eq timer_after_reload "$(timer "$ENX")" 100
ktap_check monitor_sees_plug_after_reload mon "^\[new\] [0-9]+: [^:]+: driver cdc_ncm "
kill "$MPID"
MPID=
daemon_stop
ktap_expect_eq reload_then_stop_restores "$(timer "$ENX")" 400

# --- 4b. a module reload hidden by an overrun: the daemon (--rcvbuf 1)
# and the CLI monitor, both stopped, miss nlctrl's DELFAMILY and NEWFAMILY
# behind a flood of CHANGEs; each must resolve the family again and join
# its new group after the overrun, or stay deaf to the plug that follows
dmark
daemon_start --rcvbuf 1
dexpect "^ready: " > /dev/null || bail "the daemon did not start"
: > "$W/monitor.log"
exec {MFD}< <(exec "$CLI" monitor list 2>&1)
MPID=$!
mon "^\[existing\] [0-9]+: lo:" || bail "usbeth monitor did not list"
kill -STOP "$DPID" "$MPID"
# flood until the kernel says both have lost notifications (nl_drops:
# the Drops of their netlink sockets; how many a buffer holds depends on
# the kernel's skb sizes, so no fixed count does)
for i in $(seq 1 200); do echo "link set dev $ENX tx-timer-usecs $((200 + i % 2))"; done > "$W/flood"
for round in $(seq 1 50); do
	"$CLI" -b "$W/flood" > /dev/null || bail "the CHANGE flood failed"
	[ "$(nl_drops "$DPID")" -gt 0 ] && [ "$(nl_drops "$MPID")" -gt 0 ] && break
done
ktap_info "flood: $((round * 200)) CHANGEs, drops: daemon $(nl_drops "$DPID"), monitor $(nl_drops "$MPID")"
unplug
unplugged "$ENX" || bail "the host side did not go"
rmmod usbeth || bail "cannot unload usbeth under the stopped daemon"
usbeth_load || bail "cannot load the usbeth module back"
kill -CONT "$DPID" "$MPID"
ktap_check hidden_reload_resync dexpect "^resync \(overrun\): [0-9]+ netdevs"
ktap_check hidden_reload_monitor_overrun mon "^\[overrun\]"
dmark
plug
plugged "$ENX" || bail "no $ENX after the reload"
ktap_check plug_after_hidden_reload_gets_profile \
	dexpect "^$ENX: profile enx-modem applied \(1 changed\)$"
ktap_check monitor_hears_plug_after_hidden_reload mon "^\[new\] [0-9]+: [^:]+: driver cdc_ncm "
kill "$MPID"
MPID=
daemon_stop
ktap_expect_eq hidden_reload_then_stop_restores "$(timer "$ENX")" 400

# --- 5. untrusted files
mkfifo "$ADMIN/fifo.json"
printf '{ "match": { "vid": 17e9 } }\n' > "$ADMIN/broken.json"
printf '{ "match": {} }\n' > "$ADMIN/my profile.json"
printf '{ "match": {} }\n' > "$ADMIN/ww.json"
chmod 0666 "$ADMIN/ww.json"
# a key that would be a journal line of its own, at priority 0
printf '{ "match": {}, "settings": { "x\\n<0>forged": 1 } }\n' > "$ADMIN/forge.json"
: > "$LOG"
dmark
JOURNAL_STREAM=8:1 daemon_start
ktap_check bad_files_skipped_rest_applies \
	dexpect "^<5>$ENX: profile enx-modem: tx-timer-usecs: 400 -> 100$"
for f in fifo broken "my profile" ww forge; do
	grep -q "^<3>$ADMIN/$f.json.*: skipped$" "$LOG" || { ktap_info "no skip line for $f.json"; f=; break; }
done
ktap_check each_bad_file_named test -n "$f"
ktap_check forged_line_escaped grep -qF 'x\x0a<0>forged' "$LOG"
ktap_check no_forged_line sh -c "! grep -q '^<0>' '$LOG'"
ktap_expect_eq lock_is_0600 "$(stat -c %a "$RUN/daemon.lock")" 600
ktap_check other_user_cannot_hold_lock sh -c \
	"! setpriv --reuid=65534 --regid=65534 --clear-groups flock -n '$RUN/daemon.lock' true 2>/dev/null"
daemon_stop
ktap_check check_refuses_bad_files sh -c "! '$D' -d '$BUILTIN' -d '$ADMIN' --check > /dev/null 2>&1"

ktap_info "usbethd_udev.sh took $SECONDS s"
ktap_finish
