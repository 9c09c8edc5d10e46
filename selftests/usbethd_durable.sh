#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd's promises under crashes, bursts and other people's changes,
# on netdevs not on USB (veths, opted in by role "other"
# profiles: the daemon's paths are the same, and no USB is needed):
#   - write-ahead originals: the daemon killed with SIGKILL right after its
#     first change (USBETHD_TEST_KILL_AT=after-first-set) or right before it
#     leaves the record on disk; a restarted daemon restores on stop;
#   - restore only what still holds the value the daemon set: an admin's
#     later `ip link set mtu` is left alone on stop, and said so;
#   - a veth renamed into an "enp*" glob gets that profile (no record
#     before the rename);
#   - 40 veths appearing while the daemon is stopped (SIGSTOP): each one
#     evaluated, none lost to a fixed number of GETs in flight;
#   - a dump that fails at start is retried, as usbethd(8) promises,
#     instead of exiting;
#   - --explain reads the records; a rename in an RTM_NEWLINK over 4 KiB is
#     seen; records are written under state.lock (the daemon waits for
#     another holder before its first change); a SIGHUP before the
#     profiles load is a reload; with its log's reader gone (SIGPIPE) the
#     daemon still stops and restores;
#   - a value the driver rounds (the BQL hold time, on e1000e) through both kill
#     points, a restart, a reload and a stop: left as the driver holds it,
#     and its original put back;
#   - an ifindex reused after a crash: the record, another device's, is
#     not taken for the new device's;
#   - one GET pending per ifindex: a device renamed four times while the
#     daemon is stopped is evaluated once.
# The values are read back from the kernel (ip link); every wait is on a
# line the daemon logs, or on its exit.
source "$(dirname "$0")/lib.sh"

D=$USBETHD
W=/tmp/usbethd-durable
BUILTIN=$W/builtin ADMIN=$W/admin RUN=$W/run LOG=$W/daemon.log
NS=usbethd-dur PEERS=usbethd-dur-peers HNS=usbethd-dur-hold
DPID= DFD= LPID= NIC=

need_usbeth_prog USBETHD
cleanup() {
	local rc=$?
	[ -n "$LPID" ] && kill "$LPID" 2>/dev/null
	[ -n "$DPID" ] && kill -CONT "$DPID" 2>/dev/null && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	if [ $rc -ne 0 ] || [ "$__ktap_fail" -gt 0 ]; then
		sed 's/^/# usbethd: /' "$LOG"
	fi
	ip netns del "$NS" 2>/dev/null
	ip netns del "$PEERS" 2>/dev/null
	[ -n "$NIC" ] && ip -n "$HNS" link set dev "$NIC" netns 1 2>/dev/null
	ip netns del "$HNS" 2>/dev/null
}
trap cleanup EXIT
source "$(dirname "$0")/usbethd_lib.sh"
# the crashes and failed dumps are usbethd-hooks's (USBETHD_TEST_*), every
# restart after them the daemon tested, $D
need_usbethd_hooks
rm -rf "$W" && mkdir -p "$ADMIN" "$RUN" && chmod 0755 "$ADMIN"
stage_profiles "$BUILTIN" || bail "cannot stage the built-in profiles"
: > "$LOG"
modprobe veth || env_missing "no veth driver (modprobe veth)"
modprobe e1000e && NIC=$(__e1k_by_mac "$E1K_A_MAC") ||
	env_missing "no e1000e NIC with MAC $E1K_A_MAC (the usbeth VM has it: make check)"
ip netns add "$NS" && ip netns add "$PEERS" || bail "ip netns add"
ip -n "$NS" link set lo up
DNS=$NS

profile() { # profile NAME IFNAME-GLOB SETTINGS-JSON
	printf '{ "match": { "driver": "veth", "role": "other", "ifname": "%s" },\n  "settings": %s }\n' \
		"$2" "$3" > "$ADMIN/$1.json" && chmod 0644 "$ADMIN/$1.json"
}
profile vd vd\* '{ "mtu": 1400, "txqueuelen": 321 }'
profile enp enp\* '{ "txqueuelen": 654 }'
profile many vm\* '{ "txqueuelen": 777 }'
# lk DEV FIELD: mtu or qlen of DEV in the test's netns, as the kernel has it
lk() { ip -n "$NS" -o link show dev "$1" | grep -o "$2 [0-9]*" | cut -d' ' -f2; }
ifindex() { ip -n "$NS" -o link show dev "$1" | cut -d: -f1; }

ktap_plan 51

ip -n "$NS" link add vd0 type veth peer name xp0 netns "$PEERS" || bail "cannot make veth vd0"
vd0=$(ifindex vd0)

# --- 1. killed right after the first change: the record is on disk
USBETHD_TEST_KILL_AT=after-first-set daemon_start
dexpect "USBETHD_TEST_KILL_AT=after-first-set: killed" > /dev/null
daemon_stop
ktap_expect_eq killed_after_first_set_status $? 137
ktap_expect_eq killed_after_first_set_mtu_changed "$(lk vd0 mtu)" 1400
ktap_check killed_after_first_set_record_on_disk grep -qx "orig mtu 1500" "$RUN/dev-$vd0"
# 8. --explain reads the records: with the admin's profiles gone, --apply
# would put the recorded original back, and --explain says so
out=$(ip netns exec "$NS" "$D" --explain vd0 -d "$BUILTIN" --runtime-dir "$RUN" 2>&1)
printf '%s\n' "$out" | sed 's/^/#   /'
ktap_check explain_shows_restore_from_record grep -qE "^ +mtu +1400 -> 1500 \(restore\)$" <<< "$out"
dmark
daemon_start
ktap_check restart_applies_rest dexpect "^vd0: profile vd applied"
ktap_expect_eq restart_txqueuelen "$(lk vd0 qlen)" 321
daemon_stop
ktap_expect_eq restart_stop_restores_mtu "$(lk vd0 mtu) $(lk vd0 qlen)" "1500 1000"

# --- 1. killed before the first change: the record is there already (a
# veth of its own, whatever became of vd0)
ip -n "$NS" link del vd0
ip -n "$NS" link add vd2 type veth peer name xp2 netns "$PEERS" || bail "cannot make veth vd2"
vd2=$(ifindex vd2)
dmark
USBETHD_TEST_KILL_AT=before-first-set daemon_start
dexpect "USBETHD_TEST_KILL_AT=before-first-set: killed" > /dev/null
daemon_stop
ktap_expect_eq killed_before_first_set_mtu_unchanged "$(lk vd2 mtu)" 1500
ktap_check killed_before_first_set_record_on_disk grep -qx "orig mtu 1500" "$RUN/dev-$vd2"

# the daemon for the rest: large receive buffers (no overrun resync hides
# a GET that was never sent)
dmark
daemon_start --rcvbuf 4194304
ktap_check daemon_ready dexpect "^ready: "
ktap_expect_eq applied_mtu_txqueuelen "$(lk vd2 mtu) $(lk vd2 qlen)" "1400 321"

# --- 4. a veth with no profile and no record, renamed into "enp*"
dmark
ip -n "$NS" link add eth7 type veth peer name xp7 netns "$PEERS" || bail "cannot make veth eth7"
ip -n "$NS" link set dev eth7 name enp0s7 || bail "cannot rename eth7"
ktap_check renamed_veth_gets_enp_profile dexpect "^enp0s7: profile enp applied"
ktap_expect_eq renamed_veth_txqueuelen "$(lk enp0s7 qlen)" 654

# --- 3. 40 veths at once, the daemon stopped while they appear
dmark
kill -STOP "$DPID"
for i in $(seq 1 40); do echo "link add vm$i type veth peer name xq$i netns $PEERS"; done |
	ip -n "$NS" -batch - || bail "cannot make 40 veths"
kill -CONT "$DPID"
end=$((SECONDS + 60)) seen=0
for i in $(seq 1 40); do
	left=$((end - SECONDS))
	dexpect "^vm$i: profile many applied" $((left > 1 ? left : 1)) > /dev/null &&
		seen=$((seen + 1))
done
ktap_expect_eq forty_veths_all_evaluated "$seen" 40
held=0
for i in $(seq 1 40); do [ "$(lk "vm$i" qlen)" = 777 ] && held=$((held + 1)); done
ktap_expect_eq forty_veths_txqueuelen "$held" 40

# --- 11. a device renamed four times while the daemon is stopped: four
# RTM_NEWLINKs, four GETs sent on waking; the kernel answers each as it is
# sent, so the last supersedes the others (one GET pending per ifindex),
# and the device is evaluated once (counted up to the reload that follows:
# every reply was read in the turn that evaluated it)
dmark
ip -n "$NS" link add vdr0 type veth peer name xpr netns "$PEERS" || bail "cannot make veth vdr0"
dexpect "^vdr0: profile vd applied \(2 changed\)" > /dev/null || bail "vdr0 not applied"
dmark
kill -STOP "$DPID"
for i in 1 2 3 4; do ip -n "$NS" link set dev "vdr$((i - 1))" name "vdr$i" || bail "cannot rename vdr$((i - 1))"; done
kill -CONT "$DPID"
dexpect "^vdr4: profile vd applied \(0 changed\)" > /dev/null || bail "vdr4 not evaluated"
kill -HUP "$DPID"
dexpect "^reloading profiles" > /dev/null || bail "no reload"
mapfile -t -s "$MARK" seen < "$LOG"
n=0
for l in "${seen[@]}"; do
	[[ $l == "reloading profiles" ]] && break
	[[ $l =~ ^vdr4:\ profile\ vd\ applied ]] && n=$((n + 1))
done
ktap_expect_eq renamed_four_times_evaluated_once "$n" 1

# --- 7. an admin changes what the daemon set: left alone on stop (a veth
# the daemon saw appear at 1500)
dmark
ip -n "$NS" link add vd3 type veth peer name xp3 netns "$PEERS" || bail "cannot make veth vd3"
ktap_check vd3_applied dexpect "^vd3: profile vd applied \(2 changed\)"
ip -n "$NS" link set dev vd3 mtu 1300 || bail "cannot set vd3's mtu"
daemon_stop
ktap_expect_eq stop_status $? 0
ktap_expect_eq admin_mtu_left_alone "$(lk vd3 mtu)" 1300
ktap_expect_eq untouched_txqueuelen_restored "$(lk vd3 qlen)" 1000
ktap_check left_alone_logged grep -qE "^vd3: restore: mtu: left alone" "$LOG"
ktap_expect_eq vd2_restored "$(lk vd2 mtu) $(lk vd2 qlen)" "1500 1000"

# --- 5. the first dump fails (USBETHD_TEST_DUMP_FAIL: as a dump that
# churn interrupted six times in a row; real churn, 1200 dummies and a
# device added and removed all along, interrupted none of 10 starts under
# TCG): retried every 100 ms, not an exit
dmark
USBETHD_TEST_DUMP_FAIL=3 daemon_start
ktap_check start_dump_failed_said dexpect "^resync \(start\): dump failed: .*retrying every 100 ms"
ktap_check start_dump_retried dexpect "^resync \(retry\): the dump succeeded"
ktap_check ready_after_retry dexpect "^ready: "
ktap_expect_eq applied_after_retry "$(lk vd2 mtu)" 1400
daemon_stop
ktap_expect_eq stop_after_retry_status $? 0

# --- 8. a rename in an RTM_NEWLINK larger than 4 KiB (40 altnames of 100
# bytes): read whole, not taken for the end of the queue
dmark
daemon_start
dexpect "^ready: " > /dev/null || bail "the daemon did not start"
ip -n "$NS" link add eth8 type veth peer name xp8 netns "$PEERS" || bail "cannot make veth eth8"
for i in $(seq 10 49); do
	echo "link property add dev eth8 altname a${i}$(printf 'x%.0s' $(seq 1 96))"
done | ip -n "$NS" -batch - || bail "cannot give eth8 its altnames"
ip -n "$NS" link set dev eth8 name enp0s8 || bail "cannot rename eth8"
ktap_check big_newlink_rename_evaluated dexpect "^enp0s8: profile enp applied"

# --- 8. records written under state.lock, as --apply writes them: with the
# lock held by another, the daemon waits before its first change
lockwait() { # lockwait PID: PID is blocked in flock(), as /proc/locks shows
	local locks end=$((SECONDS + 20))
	# (no event says so: /proc/locks is read, by the shell itself, until
	# it does)
	while [ $SECONDS -lt $end ]; do
		mapfile -t locks < /proc/locks
		[[ "${locks[*]}" =~ [0-9]+:\ -\>\ FLOCK\ +ADVISORY\ +WRITE\ +$1\  ]] && return 0
	done
	return 1
}
mkfifo "$W/lockctl" "$W/lockout"
exec {LCTL}<> "$W/lockctl" {LOUT}<> "$W/lockout"
lock_take() { # another process holds state.lock until lock_drop
	local l
	flock "$RUN/state.lock" sh -c 'echo held; read -r x' < "$W/lockctl" > "$W/lockout" &
	LPID=$!
	read -r -t 30 -u "$LOUT" l && [ "$l" = held ] || bail "cannot take state.lock"
}
lock_drop() { echo go >&"$LCTL"; wait "$LPID"; }
lock_take
ip -n "$NS" link add vd7 type veth peer name xp7b netns "$PEERS" || bail "cannot make veth vd7"
ktap_check daemon_waits_for_state_lock lockwait "$DPID"
ktap_expect_eq nothing_changed_under_foreign_lock "$(lk vd7 mtu)" 1500
lock_drop
ktap_check applied_after_lock_released dexpect "^vd7: profile vd applied \(2 changed\)"
daemon_stop

# --- 8. signals blocked from the start: a SIGHUP while the daemon waits
# for state.lock (before its profiles load) is a reload once it runs, not
# its death
dmark
lock_take
daemon_start
ktap_check start_waits_for_state_lock lockwait "$DPID"
kill -HUP "$DPID"
lock_drop
ktap_check early_sighup_survived dexpect "^ready: "
ktap_check early_sighup_is_a_reload dexpect "^reloading profiles"
daemon_stop
ktap_expect_eq early_sighup_stop_status $? 0

# --- 8. SIGPIPE ignored: its log's reader gone, the daemon still stops
# cleanly (and restores) instead of dying of SIGPIPE on its next line
mkfifo "$W/errpipe"
exec {EFD}<> "$W/errpipe"
# (the daemon must not inherit the test's read end: {EFD}<&-)
ip netns exec "$NS" "$D" -d "$BUILTIN" -d "$ADMIN" --runtime-dir "$RUN" 2> "$W/errpipe" {EFD}<&- &
DPID=$!
while read -r -t 30 -u "$EFD" line; do [[ $line == ready:* ]] && break; done
exec {EFD}<&-
kill -TERM "$DPID"
wait "$DPID"
ktap_expect_eq no_reader_stop_status $? 0
DPID=
ktap_expect_eq no_reader_stop_restored "$(lk vd7 mtu)" 1500

# --- 9. a value the driver rounds: BQL keeps the hold time in jiffies, so
# at HZ=250 (Debian's) a bql-hold-time of 10 ms is held as 12. On the VM's
# e1000e NIC (a driver with BQL, opted in by a role "other" profile), in a
# netns and runtime directory of its own (the kill points hit the first
# device changed): killed before and after the
# first set, restarted, reloaded, stopped. Each evaluation that finds the
# driver's 12 leaves it (0 changed), and the stop puts the original back
# instead of taking 12 for an admin's value.
ip netns add "$HNS" && ip link set dev "$NIC" netns "$HNS" || bail "cannot move $NIC into $HNS"
hold() { ip netns exec "$HNS" cat "/sys/class/net/$NIC/queues/tx-0/byte_queue_limits/hold_time"; }
printf '{ "match": { "driver": "e1000e", "role": "other" },\n  "settings": { "bql-hold-time": 10 } }\n' \
	> "$ADMIN/hold.json" && chmod 0644 "$ADMIN/hold.json"
h0=$(hold) RUN=$W/run-hold DNS=$HNS
mkdir -p "$RUN"
dmark
USBETHD_TEST_KILL_AT=before-first-set daemon_start
dexpect "USBETHD_TEST_KILL_AT=before-first-set: killed" > /dev/null
daemon_stop; rc=$?
ktap_expect_eq hold_killed_before_set "$rc $(hold)" "137 $h0"
dmark
USBETHD_TEST_KILL_AT=after-first-set daemon_start
dexpect "USBETHD_TEST_KILL_AT=after-first-set: killed" > /dev/null
daemon_stop; rc=$?
ktap_expect_eq hold_killed_after_set_driver_rounds "$rc $(hold)" "137 12"
dmark
daemon_start
ktap_check hold_restart_leaves_rounded dexpect "^$NIC: profile hold applied \(0 changed\)"
dmark
kill -HUP "$DPID"
ktap_check hold_reload_leaves_rounded dexpect "^$NIC: profile hold applied \(0 changed\)"
daemon_stop; rc=$?
ktap_expect_eq hold_stop_restores_after_crash "$rc $(hold)" "0 $h0"
# and without a crash: set once, left on reload, restored on stop
dmark
daemon_start
ktap_check hold_applied dexpect "^$NIC: profile hold applied \(1 changed\)"
ktap_expect_eq hold_applied_driver_rounds "$(hold)" 12
dmark
kill -HUP "$DPID"
ktap_check hold_reload_leaves_it dexpect "^$NIC: profile hold applied \(0 changed\)"
daemon_stop; rc=$?
ktap_expect_eq hold_stop_restores "$rc $(hold)" "0 $h0"
ktap_check hold_never_left_alone bash -c "! grep -q '$NIC: restore: .*left alone' '$LOG'"
ip -n "$HNS" link set dev "$NIC" netns 1 && NIC= || bail "cannot move the NIC back"

# --- 10. an ifindex reused after a crash (`ip link add ... index N`): the
# record on disk names another device, which must not inherit it. A veth
# killed after its first set (mtu 1400, original 1500), then deleted, and
# its ifindex given to a device at 1400 too: of another name (the record
# is dropped at load), then of the same name and another driver (dropped
# when the device is evaluated). Neither is "restored" to 1500 on stop.
RUN=$W/run-reuse
mkdir -p "$RUN"
modprobe dummy numdummies=0 || env_missing "no dummy driver (modprobe dummy)"
hlk() { ip -n "$HNS" -o link show dev "$1" | grep -o "mtu [0-9]*" | cut -d' ' -f2; }
for dev in vd8 vd9; do
	ip -n "$HNS" link add "$dev" type veth peer name "xr${dev#vd}" netns "$PEERS" ||
		bail "cannot make veth $dev"
	idx=$(ip -n "$HNS" -o link show dev "$dev" | cut -d: -f1)
	dmark
	USBETHD_TEST_KILL_AT=after-first-set daemon_start
	dexpect "USBETHD_TEST_KILL_AT=after-first-set: killed" > /dev/null
	daemon_stop
	grep -qx "ifname $dev" "$RUN/dev-$idx" || bail "no record of $dev"
	ip -n "$HNS" link del "$dev"
	if [ "$dev" = vd8 ]; then
		ip -n "$HNS" link add zz8 index "$idx" mtu 1400 type veth peer name xs8 netns "$PEERS" &&
			new=zz8 why="record dropped: ifindex $idx is zz8 now, not vd8"
	else
		ip -n "$HNS" link add vd9 index "$idx" mtu 1400 type dummy &&
			new=vd9 why="the record of ifindex $idx names another device \(vd9, driver veth\)"
	fi || bail "cannot add a netdev of ifindex $idx"
	dmark
	daemon_start
	ktap_check "reused_ifindex_${new}_record_dropped" dexpect "$why"
	dexpect "^ready: " > /dev/null
	daemon_stop
	ktap_expect_eq "reused_ifindex_${new}_left_alone" "$(hlk "$new")" 1400
done
ip netns del "$HNS"
ktap_finish
