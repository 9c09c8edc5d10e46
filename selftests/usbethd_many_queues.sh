#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd on a netdev with 1024 TX queues (ifb, opted in by a role "other"
# profile that sets bql-limit-max; ifb has no get_drvinfo, so its driver
# name is "", which the profile names, with its ifname): the daemon's stop
# puts every queue's original back with a bounded number of usbeth SETs.
# A SET sends a CHANGE notification that carries every queue (about 53 KB
# at 1024 queues), so one SET per queue sent 1024 of them (about 54 MB of
# multicast) and overran every monitor. One queue starts with an original
# of its own (tx-5), so the restore has a queue that differs from the rest:
#   - every queue holds the profile's value once applied;
#   - after the stop, every queue holds its original again (tx-5 its own);
#   - a `usbeth monitor` running during the stop saw no overrun, and at
#     most 3 CHANGE notifications of the device (2: every queue, then tx-5).
source "$(dirname "$0")/lib.sh"

NS=usbethd-mq
MON='' MONPID=''
need_usbeth_prog USBETHD
need_usbeth_prog USBETH_CLI
source "$(dirname "$0")/usbethd_lib.sh"
daemon_test /tmp/usbethd-many-queues
MON=$W/monitor.json
cleanup() {
	local rc=$?
	[ -n "$MONPID" ] && kill "$MONPID" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	daemon_log_if_failed $rc
	ip netns del "$NS" 2>/dev/null
}
trap cleanup EXIT
daemon_dirs || bail "cannot stage the shipped profiles in $W"
cat > "$ADMIN/many-queues.json" <<'EOF'
{
	"description": "test: an ifb netdev with many TX queues",
	"match": { "driver": "", "role": "other", "ifname": "q1024" },
	"settings": { "bql-limit-max": 100000 }
}
EOF
chmod 0644 "$ADMIN/many-queues.json"

ktap_plan 9
modprobe ifb numifbs=0 || env_missing "no ifb driver (modprobe ifb)"
ip netns add "$NS" || bail "ip netns add $NS"
ip -n "$NS" link add q1024 numtxqueues 1024 numrxqueues 1 type ifb ||
	bail "cannot make an ifb netdev with 1024 TX queues"
# mark0: a CHANGE of its own after the stop's, to know the monitor read
# everything before it
ip -n "$NS" link add mark0 type ifb || bail "cannot make ifb mark0"
ip netns exec "$NS" sh -c 'echo 77777 > /sys/class/net/q1024/queues/tx-5/byte_queue_limits/limit_max' ||
	bail "cannot set tx-5's limit_max"

# limits: "QUEUE LIMIT_MAX" of every TX queue of q1024, in queue order (read
# in one process of the netns, whose sysfs shows its devices)
limits() {
	ip netns exec "$NS" sh -c 'cd /sys/class/net/q1024/queues || exit 1
		for q in tx-*; do read -r v < "$q/byte_queue_limits/limit_max"; echo "${q#tx-} $v"; done' |
		sort -n
}
# differ A B: how many queues of listing B differ from listing A
differ() { diff <(echo "$1") <(echo "$2") | grep -c '^>'; }
records() { find "$RUN" -name 'dev-*' | wc -l; }

orig=$(limits)
ktap_expect_eq queues_before "$(wc -l <<< "$orig") $(grep -c ' 77777$' <<< "$orig")" "1024 1"

DNS=$NS
daemon_start
if applied many-queues 60; then ktap_ok applied; else ktap_fail applied; fi
ktap_expect_eq every_queue_set "$(limits | grep -c ' 100000$')" 1024

# the monitor, as an admin would run it, subscribed before the stop (its
# first "existing" line says so)
ip netns exec "$NS" "$USBETH_CLI" -j monitor list > "$MON" 2>&1 &
MONPID=$!
for _ in $(seq 100); do grep -q '"existing"' "$MON" && break; sleep 0.1; done
grep -q '"existing"' "$MON" || bail "usbeth monitor did not start"

t0=$(date +%s%N)
daemon_stop
rc=$?
t1=$(date +%s%N)
ktap_expect_eq stop_status "$rc" 0
ktap_info "stop took $(((t1 - t0) / 1000000)) ms"
now=$(limits)
ktap_expect_eq every_queue_restored "$(differ "$orig" "$now")" 0
ktap_expect_eq own_original_restored "$(grep '^5 ' <<< "$now")" "5 77777"
ktap_expect_eq no_record_left "$(records)" 0

ue "$NS" set mark0 bql_limit_max=4321 > /dev/null || bail "cannot set mark0"
for _ in $(seq 200); do
	grep -qE '"event": ?"change".*"ifname": ?"mark0"' "$MON" && break
	sleep 0.1
done
kill "$MONPID" 2>/dev/null
wait "$MONPID" 2>/dev/null
MONPID=
overruns=$(grep -cE '"event": ?"overrun"' "$MON")
changes=$(grep -cE '"event": ?"change".*"ifname": ?"q1024"' "$MON")
ktap_info "the monitor saw $changes CHANGE notifications of q1024, $overruns overruns, $(wc -c < "$MON") bytes"
ktap_expect_eq monitor_no_overrun "$overruns" 0
if [ "$changes" -ge 1 ] && [ "$changes" -le 3 ]; then
	ktap_ok monitor_few_changes
else
	ktap_fail monitor_few_changes "$changes CHANGE notifications of q1024, not 1 to 3"
fi
ktap_finish
