#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# More TX queues than one attribute can carry: a queue's BQL nest is 52
# bytes and an attribute's length is 16 bits, so from about 1261 queues one
# bql-queues nest would wrap its length and a parser would read the rest of
# the queues as top-level attributes. The family splits them over several
# bql-queues attributes (uapi/usbeth.yaml: bql-queues-per-nest). With ifb
# netdevs of 2048 and 4096 TX queues (4095 is the largest index
# bql-queue-index takes), GET, a dump, a SET's echo and its CHANGE
# notification carry every queue once, in order, as read by libusbeth
# (usbethctl) and by the kernel's python YNL library reading the spec.
source "$(dirname "$0")/lib.sh"

YNL_PY=$(ksft_helper ynl_usbeth.py)
USBETH_YNL=${USBETH_YNL:-${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}/ynl}
export USBETH_YNL
[ -f "$USBETH_YNL/tools/net/ynl/lib/ynl.py" ] ||
	env_missing "the kernel's YNL library is not in $USBETH_YNL (USBETH_YNL: a kernel tree's tools/net/ynl parent; scripts/setup.sh unpacks one)"
python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	env_missing "python3-yaml or python3-jsonschema is missing"
[ -r "$USBETH_SPEC" ] || env_missing "no family spec at $USBETH_SPEC"

NS=usbeth-qn
trap 'monitor_stop_all; ip netns del "$NS" 2>/dev/null' EXIT
ktap_plan 12
modprobe ifb numifbs=0 || bail "modprobe ifb"
ip netns add "$NS" || bail "ip netns add $NS"
ip -n "$NS" link add q2048 numtxqueues 2048 numrxqueues 1 type ifb &&
	ip -n "$NS" link add q4096 numtxqueues 4096 numrxqueues 1 type ifb ||
	bail "cannot make ifb netdevs with 2048 and 4096 TX queues"

# queues_summary: reads queue indices, one a line; prints "N queues" when
# they are 0..N-1 once each and in order, else what is wrong with them
queues_summary() {
	awk 'BEGIN { n = 0; bad = "" }
	     { if ($1 != n && bad == "") bad = " (index " $1 " at position " n ")"; n++ }
	     END { print n " queues" bad }'
}
# shown NAME TEXT: TEXT's first lines as diagnostics (for a failed check)
shown() { printf '%s\n' "$2" | head -n 8 | cut -c1-200 | sed "s/^/# $1: /"; }
# lib_q NETNS ARGS...: usbethctl's output (queue indices summarised)
lib_q() {
	local out
	out=$(ue "$@" 2>&1)
	sed -n 's/^bql\.\([0-9]*\)\.limit_max=.*/\1/p' <<< "$out" | queues_summary
	grep -q '^bql\.' <<< "$out" || shown usbethctl "$out" >&2
}

# YNL, with a receive buffer that holds the largest reply (4096 queues:
# about 213 KB; YNL's default is 128 KiB)
yn() { ip netns exec "$NS" env USBETH_YNL_RECV=1048576 python3 "$YNL_PY" "$@" 2>&1; }
# ynl_q [KEY] < JSON: a device as YNL decoded it (a JSON line on stdin; a
# reply is too long for an argument): its queue indices summarised, then
# the top-level keys that are not the spec's dev attributes (a wrapped
# nest's queues read as top-level attributes); with KEY, the set of that
# key's values over the queues instead
ynl_q() {
	python3 -c '
import json, sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
dev = next(s for s in spec["attribute-sets"] if s["name"] == "dev")
known = {a["name"] for a in dev["attributes"]}
raw = sys.stdin.read()
try:
    o = json.loads(raw)
except ValueError:
    print("not decoded:", raw[-300:].replace("\n", " | "))
    sys.exit(0)
nests = o.get("bql-queues", [])
if isinstance(nests, dict):
    nests = [nests]
qs = [q for n in nests for q in n.get("bql-queue", [])]
if len(sys.argv) > 2:
    print(sorted({q.get(sys.argv[2]) for q in qs}))
    sys.exit(0)
idx = [q["index"] for q in qs]
bad = next((f" (index {v} at position {i})" for i, v in enumerate(idx) if v != i), "")
print(f"{len(idx)} queues{bad} stray:", ",".join(sorted(set(o) - known)) or "-")
' "$USBETH_SPEC" "$@"
}

ktap_expect_eq lib_get_2048 "$(lib_q "$NS" get q2048)" "2048 queues"
ktap_expect_eq lib_get_4096 "$(lib_q "$NS" get q4096)" "4096 queues"
out=$(ue "$NS" dump 2>&1)
got=$(grep -o 'ifname=q[0-9]* .* bql_queues=[0-9]*' <<< "$out" | sed 's/^ifname=\(q[0-9]*\) .*bql_queues=/\1:/' | sort | tr '\n' ' ')
[ "$got" = "q2048:2048 q4096:4096 " ] || shown dump "$out"
ktap_expect_eq lib_dump "$got" "q2048:2048 q4096:4096 "

ktap_expect_eq ynl_get_2048 "$(yn get q2048 | ynl_q)" "2048 queues stray: -"
ktap_expect_eq ynl_get_4096 "$(yn get q4096 | ynl_q)" "4096 queues stray: -"
dump=$(yn dump)
got=$(while read -r l; do
	case $l in *'"ifname": "q'*) ;; *) continue ;; esac
	n=$(sed 's/.*"ifname": "\(q[0-9]*\)".*/\1/' <<< "$l")
	echo "$n: $(ynl_q <<< "$l")"
done <<< "$dump" | sort | tr '\n' ' ')
want="q2048: 2048 queues stray: - q4096: 4096 queues stray: - "
[ "$got" = "$want" ] || shown ynl-dump "$dump"
ktap_expect_eq ynl_dump "$got" "$want"

monitor_start "$NS"
ktap_expect_eq set_echo_every_queue "$(lib_q "$NS" set -e q4096 bql_limit_max=12345)" "4096 queues"
ktap_expect_eq every_queue_in_sysfs "$(ip netns exec "$NS" sh -c \
	'cat /sys/class/net/q4096/queues/tx-*/byte_queue_limits/limit_max' | grep -cx 12345)" 4096
ktap_check change_notified monitor_expect '^change .*ifname=q4096'
ktap_expect_eq ynl_get_after_set "$(yn get q4096 | ynl_q limit-max)" "[12345]"
ktap_check set_last_queue ue "$NS" set q4096 bql_limit_max=777 bql_queue=4095
ktap_expect_eq last_queue_in_sysfs "$(sysfs_of "$NS" q4096 queues/tx-4095/byte_queue_limits/limit_max)" 777
ktap_finish
