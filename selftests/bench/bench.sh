#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`, inside the usbeth VM: figures and ratios from one boot, no
# timed assertions.
#   1. one usbeth SET of 6 knobs on the NCM host netdev vs the shell way (a
#      udev RUN rule: sh -c with six echos) vs raw sysfs writes from C;
#   2. dump cost per device over 64 and over 4096 netdevs (dummy).
source "$(dirname "$0")/../lib.sh"
BENCH=$USBETH_TOP/selftests/bench/usbeth-bench

cleanup() {
	ncm_teardown
	ip netns del bench64 2>/dev/null
	ip netns del bench4096 2>/dev/null
}
trap cleanup EXIT
ktap_plan 2

ncm_setup -s super
if ip netns exec "$NCM_HOST_NS" "$BENCH" set "$NCM_HOST_IF" 7 200; then
	ktap_ok set_bench
else
	ktap_fail set_bench
fi
ncm_teardown

modprobe dummy numdummies=0 || bail "modprobe dummy"
per_dev() { # NETNS N -> ns per device of a dump over N netdevs (lo included)
	local i
	ip netns add "$1"
	for ((i = 1; i < $2; i++)); do echo "link add d$i type dummy"; done > /tmp/links
	ip -n "$1" -batch /tmp/links || return 1
	ip netns exec "$1" "$BENCH" dump "${@:3}"
}
out64=$(per_dev bench64 64 7 100) && out4k=$(per_dev bench4096 4096 5 3)
if [ -n "$out64" ] && [ -n "$out4k" ]; then
	ns64=${out64##*ns_per_device=} ns4k=${out4k##*ns_per_device=}
	echo "# dump: $out64"
	echo "# dump: $out4k"
	echo "# ratio per-device 4096/64 = $(awk "BEGIN { printf \"%.3f\", $ns4k / $ns64 }") (target <= 1.5)"
	ktap_ok dump_bench
else
	ktap_fail dump_bench
fi
ktap_finish
