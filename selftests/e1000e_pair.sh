#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM's two e1000e NICs, wired by a qemu hub and each in its own netns,
# pass traffic both ways, and e1000e does BQL accounting on them (which the
# BQL tests rely on): after bulk traffic the queue's limit has moved.
source "$(dirname "$0")/lib.sh"

trap e1k_teardown EXIT
ktap_plan 6
e1k_setup

ktap_expect_eq driver "$(link_driver "$E1K_A_NS" "$E1K_A_IF")" e1000e
ktap_check ping_a_to_b ip netns exec "$E1K_A_NS" ping -c 3 -i 0.2 -W 5 "$E1K_B_ADDR"
ktap_check ping_b_to_a ip netns exec "$E1K_B_NS" ping -c 3 -i 0.2 -W 5 "$E1K_A_ADDR"
bytes=$(iperf_bytes "$E1K_B_NS" "$E1K_A_NS" "$E1K_B_ADDR" -n 8M)
ktap_check iperf_a_to_b test "${bytes:-0}" -gt 0
bytes=$(iperf_bytes "$E1K_B_NS" "$E1K_A_NS" "$E1K_B_ADDR" -n 4M -R)
ktap_check iperf_b_to_a test "${bytes:-0}" -gt 0

# BQL accounting: the dynamic limit starts at 0 and only grows when the
# driver reports completions through netdev_tx_completed_queue().
limit=$(ip netns exec "$E1K_A_NS" cat "/sys/class/net/$E1K_A_IF/queues/tx-0/byte_queue_limits/limit")
ktap_info "BQL limit on $E1K_A_IF tx-0 after traffic: $limit"
ktap_check bql_accounting test "${limit:-0}" -gt 0
ktap_finish
