#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The family's strict per-command policies, with a hand-built client (the
# library cannot build these requests): read-only and unknown attributes in
# a SET, both or neither of ifindex/ifname, attributes on a dump, an empty
# SET, a wrongly sized value. Each is refused with EINVAL and an extack,
# and changes nothing.
source "$(dirname "$0")/lib.sh"

RAW=$(ksft_helper genl_raw.py)
trap e1k_teardown EXIT
ktap_plan 9
e1k_setup
A=$E1K_A_NS D=$E1K_A_IF
GET=1 SET=2
A_IFINDEX=1 A_IFNAME=2 A_DRIVER=3 A_QMULT=13 A_COAL_RX_USECS=22
raw() { ip netns exec "$A" "$RAW" "$@"; }
idx=$(ip netns exec "$A" cat "/sys/class/net/$D/ifindex")
rxu() { ip netns exec "$A" ethtool -c "$D" | sed -n 's/^rx-usecs: *//p'; }
before=$(rxu)

expect() { # NAME OUT ERRNO [EXTACK-REGEX]
	if grep -qx "errno=$3" <<< "$2" && { [ -z "${4:-}" ] || grep -qE "^extack=.*$4" <<< "$2"; }; then
		ktap_ok "$1"
	else
		printf '%s\n' "$2" | sed 's/^/# /'
		ktap_fail "$1" "expected errno=$3${4:+ and extack ~ $4}"
	fi
}

expect read_only_attr_refused "$(raw $SET $A_IFNAME:str:"$D" $A_DRIVER:str:x $A_COAL_RX_USECS:u32:50)" EINVAL
expect unknown_attr_refused "$(raw $SET $A_IFNAME:str:"$D" 99:u32:1)" EINVAL
expect both_ifindex_and_ifname "$(raw $SET $A_IFINDEX:u32:"$idx" $A_IFNAME:str:"$D" $A_COAL_RX_USECS:u32:50)" EINVAL "exactly one"
expect neither_ifindex_nor_ifname "$(raw $SET $A_COAL_RX_USECS:u32:50)" EINVAL "exactly one"
expect dump_with_attributes "$(raw $GET --dump $A_IFNAME:str:"$D")" EINVAL "dump takes no attributes"
expect empty_set "$(raw $SET $A_IFNAME:str:"$D")" EINVAL "nothing to set"
expect wrong_size_value "$(raw $SET $A_IFNAME:str:"$D" $A_QMULT:u16:5)" EINVAL
ktap_expect_eq nothing_changed "$(rxu)" "$before"
expect well_formed_raw_set_works "$(raw $SET $A_IFINDEX:u32:"$idx" $A_COAL_RX_USECS:u32:50)" 0
ktap_finish
