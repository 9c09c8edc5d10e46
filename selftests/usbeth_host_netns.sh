#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A USB host-side netdev (cdc_ncm) moved between netns and renamed while a
# caller with CAP_NET_ADMIN over one netns only runs SETs and GETs on it
# back to back. usbeth works on such a device without rtnl, so what it
# checked when the request began must hold until the request ends:
#
#   - no SET lands on the device while it is in a netns where the caller
#     lacks CAP_NET_ADMIN: there a request finds no device (ENODEV), and
#     the value the caller writes does not move while the device is there;
#   - a SET's CHANGE goes to the netns the device is in: the caller's
#     monitor never gets a CHANGE of the device between its DEL (moved
#     out) and its NEW (moved back in);
#   - every name in a reply or notification is one the device really had,
#     whole, though renames race the requests.
#
#   netns U, in a user ns of its own (the caller: that user ns's root,
#   CAP_NET_ADMIN over U only; where none can be made, in a chroot or with
#   user namespaces turned off, the caller is root in a plain netns, and
#   what is checked is the same: nothing it sends lands on the device while
#   the device is out of U)
#     usbethctl loop IFINDEX (SET ntb_rx_max, tx_timer_usecs; GET)
#     usbethctl monitor
#   netns ncm-host (owned by the initial user ns)
#   initial user ns: moves the netdev U <-> ncm-host, renames it in both
# usbeth-timeout: 900
source "$(dirname "$0")/lib.sh"

# cdc_ncm logs every rx_max it sets at info level: thousands of lines, which
# a serial console takes minutes to print. The console keeps warnings and
# worse (what the harness looks for); the kernel log keeps everything.
loglevel=$(cut -f1 /proc/sys/kernel/printk)
dmesg -n 5

# rounds of moves and renames: some 7 s each on 7.3 under TCG; the debug
# kernel (make check-debug) runs 15
ROUNDS=${USBETH_NETNS_ROUNDS:-6}
NAMES=(ue-a usbeth-long-n15 ue-b x1)
tmp=$(mktemp -d)
upid='' lpid='' mpid=''
cleanup() {
	dmesg -n "$loglevel"
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null
	if [ -n "$upid" ] && [ -n "${cur:-}" ]; then
		nsenter -t "$upid" -n ip link set dev "$cur" netns "$NCM_HOST_NS" 2>/dev/null
	fi
	[ -n "$upid" ] && kill "$upid" 2>/dev/null
	wait 2>/dev/null
	ncm_teardown
	rm -rf "$tmp"
}
trap cleanup EXIT
ktap_plan 8

if ! command -v unshare > /dev/null || ! command -v nsenter > /dev/null; then
	env_missing "no unshare or nsenter (util-linux)"
fi

ncm_setup -s super
H=$NCM_HOST_NS
cur=$NCM_HOST_IF
ip -n "$H" link set dev "$cur" down	# renames want it down
idx=$(ip -n "$H" -o link show dev "$cur" | cut -d: -f1)

# the caller's netns (and user ns), kept by a process that waits
userns=(-U)
if ! unshare -U -r -n true 2> /dev/null; then
	ktap_info "no user namespace here (unshare -U: $(unshare -U -r -n true 2>&1)): the caller is root in U"
	userns=()
fi
unshare ${userns[@]:+"${userns[@]}" -r} -n sh -c 'echo ready; exec sleep 100000' > "$tmp/userns" &
upid=$!
wait_line "$tmp/userns" '^ready$' || bail "cannot make the caller's netns (unshare -n)"
# root, in U's netns; the caller is nsenter -t "$upid" "${userns[@]}" -n,
# started as a command of its own so that $! is its pid
in_u() { nsenter -t "$upid" -n "$@"; }

rename() { # rename in_u|in_h NEW
	local new=$2
	if [ "$1" = in_u ]; then in_u ip link set dev "$cur" name "$new"; else ip -n "$H" link set dev "$cur" name "$new"; fi ||
		bail "cannot rename $cur to $new"
	cur=$new
}
n=0
next_name() { n=$(((n + 1) % ${#NAMES[@]})); echo "${NAMES[$n]}"; }
to_u() {
	ip -n "$H" link set dev "$cur" netns "$upid" || bail "cannot move $cur into U"
	[ "$(in_u ip -o link show dev "$cur" | cut -d: -f1)" = "$idx" ] ||
		bail "$cur changed ifindex on the move into U"
}
to_h() {
	in_u ip link set dev "$cur" netns "$H" || bail "cannot move $cur into $H"
	[ "$(ip -n "$H" -o link show dev "$cur" | cut -d: -f1)" = "$idx" ] ||
		bail "$cur changed ifindex on the move into $H"
}

rename in_h "${NAMES[0]}"
to_u
nsenter -t "$upid" "${userns[@]}" -n "$USBETHCTL" monitor -t 1800 > "$tmp/mon" &
mpid=$!
wait_line "$tmp/mon" '^ready$' || bail "usbethctl monitor did not start in U"
nsenter -t "$upid" "${userns[@]}" -n "$USBETHCTL" loop "$idx" \
	ntb_rx_max=8192/16384 tx_timer_usecs=300/500 > "$tmp/loop" &
lpid=$!
wait_line "$tmp/loop" '^set 0' || bail "no SET of $cur went through in U: $(tail -n 3 "$tmp/loop")"

moved=0 r=0
for ((r = 1; r <= ROUNDS; r++)); do
	rename in_u "$(next_name)"
	rename in_u "$(next_name)"
	to_h
	v1=$(sysfs_of "$H" "$cur" cdc_ncm/tx_timer_usecs)
	rename in_h "$(next_name)"
	v2=$(sysfs_of "$H" "$cur" cdc_ncm/tx_timer_usecs)
	[ "$v1" = "$v2" ] || echo "round $r: tx_timer_usecs went from $v1 to $v2 in $H" >> "$tmp/moved"
	[ "$v1" = "$v2" ] || moved=$((moved + 1))
	c=$(grep -c '^set 0' "$tmp/loop")
	to_u
	# the next round starts once a SET went through in U again
	wait_line "$tmp/loop" '^set 0' "$((c + 1))" ||
		bail "round $r: no SET went through after the move back into U"
done
ktap_expect_eq rounds_done "$((r - 1))" "$ROUNDS"
kill "$lpid"
wait "$lpid"
lpid=''
ktap_expect_eq no_set_landed_outside_u "$moved" 0
[ -s "$tmp/moved" ] && sed 's/^/# /' "$tmp/moved"

other=$(awk '$1 ~ /^(set|get)$/ && $2 != "0" && $2 != "ENODEV"' "$tmp/loop")
ktap_expect_eq only_ok_or_enodev "$(head -n 3 <<< "$other")" ""
sets=$(grep -c '^set 0' "$tmp/loop")
refused=$(grep -c '^set ENODEV' "$tmp/loop")
ktap_info "$sets SETs went through in U, $refused found no device (it was out of U)"
if [ "$sets" -ge "$ROUNDS" ] && [ "$refused" -ge 1 ]; then
	ktap_ok sets_in_u_enodev_outside
else
	ktap_fail sets_in_u_enodev_outside "$sets went through, $refused found no device"
fi

# the monitor has everything once it has the last DEL: one per move out
to_h
ktap_check monitor_saw_every_move wait_line "$tmp/mon" '^del ' "$((ROUNDS + 1))"
kill "$mpid"
wait "$mpid"
mpid=''
ktap_expect_eq no_change_while_out_of_u "$(changes_after_del "$tmp/mon")" ""

# names: whole, and the device's own
bad=$(cat "$tmp/loop" "$tmp/mon" | grep -o 'ifname=[^ ]*' | sort -u |
	grep -vxE "ifname=($(IFS='|'; echo "${NAMES[*]}"))")
ktap_expect_eq names_whole "$bad" ""
ktap_expect_eq device_works_after "$(ue "$H" set -e "$cur" tx_timer_usecs=123 |
	sed -n 's/^tx_timer_usecs=//p')" 123
ktap_finish
