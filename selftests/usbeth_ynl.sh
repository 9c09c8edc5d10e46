#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The family driven by the kernel's own python YNL library (tools/net/ynl/lib
# of Debian's linux-source-6.12, unpacked by scripts/setup.sh) reading the
# spec, uapi/usbeth.yaml, and nothing else of ours on the client side
# (tools/ynl_usbeth.py only calls the library). On a real USB NCM link:
#   - new-ntf on the monitor group when the link is plugged;
#   - a dump lists every netdev of the netns, the link with its role and
#     caps as the spec names them;
#   - a get by ifname reports what cdc_ncm's own sysfs files hold;
#   - a set of three knobs reaches cdc_ncm's sysfs, and change-ntf on the
#     monitor group carries the new values;
#   - a set with one knob above the device's maximum is refused (ERANGE)
#     with an extack naming that attribute, and changes nothing;
#   - the kernel's own CLI (tools/net/ynl/cli.py), as docs/architecture.md shows it,
#     sets a knob and gets it back.
source "$(dirname "$0")/lib.sh"

YNL_PY=$(ksft_helper ynl_usbeth.py)
USBETH_YNL=${USBETH_YNL:-${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}/ynl}
export USBETH_YNL
[ -f "$USBETH_YNL/tools/net/ynl/lib/ynl.py" ] ||
	env_missing "the kernel's YNL library is not in $USBETH_YNL (USBETH_YNL: a kernel tree's tools/net/ynl parent; scripts/setup.sh unpacks one)"
python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	env_missing "python3-yaml or python3-jsonschema is missing"
[ -r "$USBETH_SPEC" ] || env_missing "no family spec at $USBETH_SPEC"

# yn NETNS ARGS...: ynl_usbeth.py in NETNS ("" = this one)
yn() {
	local ns=$1
	shift
	in_ns "$ns" python3 "$YNL_PY" "$@"
}

# jf JSON KEY...: the values of the keys (a.b: key b of object a) of a JSON
# object, space separated; lists joined by commas, absent keys as "-"
jf() {
	python3 -c '
import json, sys
def get(o, path):
    for k in path.split("."):
        if not isinstance(o, dict) or k not in o:
            return "-"
        o = o[k]
    return ",".join(map(str, o)) if isinstance(o, list) else str(o)
o = json.loads(sys.argv[1])
print(" ".join(get(o, k) for k in sys.argv[2:]))' "$@"
}

# ynl_monitor_start NETNS: a YNL monitor on MON_FD (lib.sh's monitor_expect
# reads it), started once it is subscribed
ynl_monitor_start() {
	exec {MON_FD}< <(exec ip netns exec "${1:-$(__self_ns)}" python3 "$YNL_PY" monitor 120)
	MON_PIDS+=($!)
	local line
	read -r -t 60 -u "$MON_FD" line && [ "$line" = ready ] || bail "the YNL monitor did not start"
}

trap 'monitor_stop_all; ncm_teardown' EXIT
ktap_plan 10

ynl_monitor_start ""
ncm_setup -s super
H=$NCM_HOST_NS D=$NCM_HOST_IF
sys() { sysfs_of "$H" "$D" "cdc_ncm/$1"; }

ntf=$(monitor_expect '^new-ntf .*"role": "usb-host"')
ktap_expect_eq new_ntf_on_plug "$(jf "${ntf#new-ntf }" driver caps)" "cdc_ncm bql,ntb,tx-timer"
monitor_stop_all

dump=$(yn "$H" dump)
printf '%s\n' "$dump" | cut -c1-160 | sed 's/^/# dump: /'
names=$(while read -r l; do jf "$l" ifname; done <<< "$dump" | sort | tr '\n' ' ')
ktap_expect_eq dump_lists_the_netns "$names" "$(printf '%s\n' lo "$D" | sort | tr '\n' ' ')"
dev=$(grep -F "\"ifname\": \"$D\"" <<< "$dump")
ktap_expect_eq dump_role_caps "$(jf "$dev" role caps)" "usb-host bql,ntb,tx-timer"

# usb-vid in hex: the spec's display-hint, which YNL follows
dev=$(yn "$H" get "$D")
ktap_expect_eq get_by_ifname_is_sysfs \
	"$(jf "$dev" ifindex usb-vid ntb-rx-max ntb-tx-max tx-timer-usecs)" \
	"$(sysfs_of "$H" "$D" ifindex) 0x1d6b $(sys rx_max) $(sys tx_max) $(sys tx_timer_usecs)"

# three knobs in one set; 8000 is no multiple of the bulk packet size, so
# cdc_ncm keeps it unpadded
ynl_monitor_start "$H"
out=$(yn "$H" set "{\"ifname\": \"$D\", \"ntb-rx-max\": 8192, \"ntb-tx-max\": 8000, \"tx-timer-usecs\": 1000}")
ktap_info "set: $out"
ktap_expect_eq set_three_knobs_in_sysfs "$(sys rx_max) $(sys tx_max) $(sys tx_timer_usecs)" "8192 8000 1000"
ntf=$(monitor_expect "^change-ntf .*\"ifname\": \"$D\"")
ktap_expect_eq change_ntf_carries_values \
	"$(jf "${ntf#change-ntf }" ntb-rx-max ntb-tx-max tx-timer-usecs)" "8192 8000 1000"

# refused: ntb-tx-max is valid, ntb-rx-max is above the gadget's 16384
out=$(yn "$H" set "{\"ifname\": \"$D\", \"ntb-tx-max\": 4000, \"ntb-rx-max\": 20000}")
ktap_info "refused set: $out"
read -r err attr msg <<< "$(jf "$out" errno extack.bad-attr extack.msg)"
# the message names the limit: formatted from 6.2, static on 6.1
want="above the device's maximum"
extack_formatted && want="ntb-rx-max 20000 is above the maximum of $D: 16384"
grep -qF "$want" <<< "$msg" && msg="names the limit"
ktap_expect_eq refused_set_extack "$err $attr $msg" "ERANGE .ntb-rx-max names the limit"
ktap_expect_eq refused_set_changed_nothing "$(sys rx_max) $(sys tx_max)" "8192 8000"

# the kernel's CLI, with the arguments docs/architecture.md shows
kcli() {
	local ns=$1
	shift
	in_ns "$ns" python3 "$USBETH_YNL/tools/net/ynl/cli.py" --spec "$USBETH_SPEC" \
		--schema "$USBETH_YNL/Documentation/netlink/genetlink-legacy.yaml" "$@"
}
kcli "$H" --do set --json "{\"ifname\": \"$D\", \"tx-timer-usecs\": 400}" > /dev/null
ktap_expect_eq kernel_cli_set_in_sysfs "$(sys tx_timer_usecs)" 400
out=$(kcli "$H" --output-json --do get --json "{\"ifname\": \"$D\"}")
ktap_expect_eq kernel_cli_get_is_sysfs "$(jf "$out" tx-timer-usecs ntb-rx-max ntb-tx-max)" \
	"$(sys tx_timer_usecs) $(sys rx_max) $(sys tx_max)"
ktap_finish
