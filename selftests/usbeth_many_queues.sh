#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Netdevs with many TX queues: usbeth sizes each message from the device
# (a nest of BQL state per queue) instead of one fixed size, so GET, a dump,
# a SET on every queue, its echo and its CHANGE notification all carry
# every queue. ifb is the stock driver used: not lockless, so each of its
# queues has BQL limits; 256 queues overflow a page-sized reply, 1024 a
# 32 KiB dump chunk.
source "$(dirname "$0")/lib.sh"

NS=usbeth-mq
trap 'monitor_stop_all; ip netns del "$NS" 2>/dev/null' EXIT
ktap_plan 10
modprobe ifb numifbs=0 || bail "modprobe ifb"
ip netns add "$NS" || bail "ip netns add $NS"
ip -n "$NS" link add q256 numtxqueues 256 numrxqueues 1 type ifb &&
	ip -n "$NS" link add q1024 numtxqueues 1024 numrxqueues 1 type ifb ||
	bail "cannot make ifb netdevs with 256 and 1024 TX queues"

queues_in() { grep -c '^bql\.[0-9]*\.limit_max='; }
ktap_expect_eq get_256_queues "$(ue "$NS" get q256 | queues_in)" 256
ktap_expect_eq get_1024_queues "$(ue "$NS" get q1024 | queues_in)" 1024
out=$(ue "$NS" dump 2>&1)
ktap_expect_eq dump_whole "$(sed -n 's/^count=\([0-9]*\).*/\1/p' <<< "$out")" \
	"$(ip -n "$NS" -o link | wc -l)"
ktap_expect_eq dump_has_every_queue \
	"$(grep -o 'ifname=q[0-9]* .* bql_queues=[0-9]*' <<< "$out" | sed 's/^ifname=\(q[0-9]*\) .*bql_queues=/\1:/' | sort | tr '\n' ' ')" \
	"q1024:1024 q256:256 "

monitor_start "$NS"
out=$(ue "$NS" set -e q1024 bql_limit_max=12345)
ktap_check set_every_queue grep -q '^ifname=q1024$' <<< "$out"
ktap_expect_eq echo_has_every_queue "$(queues_in <<< "$out")" 1024
ktap_expect_eq every_queue_in_sysfs "$(ip netns exec "$NS" sh -c \
	'cat /sys/class/net/q1024/queues/tx-*/byte_queue_limits/limit_max' | grep -cx 12345)" 1024
ktap_check change_notified monitor_expect '^change .*ifname=q1024'
ktap_check set_one_queue ue "$NS" set q256 bql_limit_max=777 bql_queue=255
ktap_expect_eq last_queue_in_sysfs "$(sysfs_of "$NS" q256 queues/tx-255/byte_queue_limits/limit_max)" 777
ktap_finish
