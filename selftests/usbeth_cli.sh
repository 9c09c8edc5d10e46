#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The usbeth CLI (ip-extensions/usbeth) end to end on the real drivers: the
# NCM link (cdc_ncm host, u_ether gadget) and the e1000e pair, every value
# checked through sysfs, configfs or ethtool:
#   - without the module: the message and exit 2;
#   - link show: text, -j and -p valid JSON equal to sysfs, -d BQL queues;
#   - link set of each kind of knob (NTB sizes, TX timer, qmult, coalesce,
#     BQL, one queue) with unit forms (8k, 1ms, 400us, 2s);
#   - errors: ntb-rx-max 70000 names the device's maximum and exits 2; an
#     unknown knob gets "did you mean" and exits 1;
#   - a batch over two devices in one netns; a failing line is named and
#     stops it (a kernel refusal after the lines before it, a parse error
#     before anything); -force; a batch from stdin;
#   - monitor (JSON lines and text) sees set, unplug and plug;
#   - -n, an unprivileged user (EPERM, exit 2), bash completion of live
#     device names.
#
# The monitors are race free without sleeps: `usbeth monitor list`
# subscribes, then lists the devices there are as "existing" events; the
# test waits for that first line (lo is always there) before acting.
source "$(dirname "$0")/lib.sh"

U=$USBETH_CLI
need_usbeth_prog USBETH_CLI
tmp=$(mktemp -d)
MONS=()
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ ${#MONS[@]} -gt 0 ] && kill "${MONS[@]}" 2>/dev/null
	if [ -n "${BD:-}" ] && ip -n "$NCM_HOST_NS" link show dev "$BD" > /dev/null 2>&1; then
		ip -n "$NCM_HOST_NS" link set dev "$BD" netns "$E1K_B_NS"
	fi
	ncm_teardown
	e1k_teardown
	rm -rf "$tmp"
}
trap cleanup EXIT
ktap_plan 77

# ------------------------------------------------ module not loaded ---
[ -d /sys/module/usbeth ] || bail "the usbeth module is not loaded"
rmmod usbeth || bail "cannot unload usbeth"
out=$("$U" link show 2>&1)
rc=$?
usbeth_load || bail "cannot load the usbeth module back"
ktap_expect_eq no_module_exit_2 "$rc" 2
ktap_expect_eq no_module_message "$out" "usbeth: the usbeth kernel module is not loaded (modprobe usbeth)"

ncm_setup -s super -v 0x17e9 -p 0x4301 -q 3
e1k_setup
H=$NCM_HOST_NS HD=$NCM_HOST_IF G=$NCM_GADGET_NS GD=$NCM_GADGET_IF
A=$E1K_A_NS AD=$E1K_A_IF
ncm() { sysfs_of "$H" "$HD" "cdc_ncm/$1"; }
bql() { sysfs_of "$1" "$2" "queues/tx-0/byte_queue_limits/$3"; }
rx_usecs() { ip netns exec "$A" ethtool -c "$AD" | sed -n 's/^rx-usecs: *//p'; }
# jpath KEY...: a value out of the JSON on stdin (list indexes as numbers)
jpath() {
	python3 -c 'import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1:]:
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d)' "$@"
}
# rc_of CMD...: the exit status, output discarded
rc_of() { "$@" > /dev/null 2>&1; echo $?; }

# ------------------------------------------------------- link show ---
out=$("$U" -n "$H" link show dev "$HD")
while IFS= read -r line; do ktap_info "$line"; done <<< "$out"
ktap_check show_identity grep -qE "^[0-9]+: $HD: driver cdc_ncm role usb-host$" <<< "$out"
ktap_check show_usb grep -qE '^    usb-vid 17e9 usb-pid 4301 usb-speed super usb-busnum [0-9]+ usb-path [0-9-]+' <<< "$out"
ktap_check show_caps grep -qE '^    caps ntb,tx-timer(,|$)' <<< "$out"
ktap_check show_knobs_equal_sysfs grep -q "ntb-rx-max $(ncm rx_max) ntb-tx-max $(ncm tx_max) ntb-dev-rx-max $(ncm dwNtbInMaxSize) ntb-dev-tx-max $(ncm dwNtbOutMaxSize) tx-timer-usecs $(ncm tx_timer_usecs)" <<< "$out"

js=$("$U" -n "$H" -j link show dev "$HD")
ktap_check json_valid python3 -m json.tool <<< "$js"
ktap_expect_eq json_ntb_rx_max_sysfs "$(jpath 0 ntb-rx-max <<< "$js")" "$(ncm rx_max)"
ktap_expect_eq json_usb_vid "$(jpath 0 usb-vid <<< "$js")" 17e9
ktap_expect_eq json_ifindex_sysfs "$(jpath 0 ifindex <<< "$js")" "$(sysfs_of "$H" "$HD" ifindex)"
js=$("$U" -n "$H" -jp link show)
ktap_check pretty_json_valid python3 -m json.tool <<< "$js"
ktap_expect_eq json_all_devices "$(python3 -c 'import json, sys; print(len(json.load(sys.stdin)))' <<< "$js")" \
	"$(ip -n "$H" -o link show | wc -l)"

out=$("$U" -n "$G" link show "$GD")
ktap_check gadget_show grep -qE "^[0-9]+: $GD: .*role usb-gadget" <<< "$out"
ktap_check gadget_udc grep -q "gadget-udc $NCM_UDC" <<< "$out"
ktap_expect_eq gadget_qmult_configfs "$(sed -n 's/.*qmult \([0-9]*\).*/\1/p' <<< "$out")" "$(cat "$NCM_FUNC/qmult")"

# e1000e, -d: BQL per TX queue
ntxq=$(ip netns exec "$A" sh -c "ls -d /sys/class/net/$AD/queues/tx-*" | wc -l)
out=$("$U" -n "$A" -d link show dev "$AD")
while IFS= read -r line; do ktap_info "$line"; done <<< "$out"
ktap_check details_queue_line grep -qE "^    queue 0 limit [0-9]+ inflight [0-9]+ limit-min $(bql "$A" "$AD" limit_min) limit-max $(bql "$A" "$AD" limit_max) hold-time $(bql "$A" "$AD" hold_time)ms$" <<< "$out"
ktap_expect_eq details_one_line_per_queue "$(grep -c '^    queue ' <<< "$out")" "$ntxq"
js=$("$U" -n "$A" -j -d link show dev "$AD")
ktap_expect_eq json_bql_queues "$(python3 -c 'import json, sys; print(len(json.load(sys.stdin)[0]["bql-queues"]))' <<< "$js")" "$ntxq"
ktap_expect_eq json_rx_usecs_ethtool "$(jpath 0 rx-usecs <<< "$js")" "$(rx_usecs)"
out=$("$U" -n "$A" link show dev "$AD")
if grep -q '^    queue ' <<< "$out"; then ktap_fail no_queues_without_d; else ktap_ok no_queues_without_d; fi

# -------------------------------------------------------- link set ---
orig_rx=$(rx_usecs) orig_min=$(bql "$A" "$AD" limit_min)
orig_max=$(bql "$A" "$AD" limit_max) orig_hold=$(bql "$A" "$AD" hold_time)
ktap_check set_ntb_rx_max_8k "$U" -n "$H" link set dev "$HD" ntb-rx-max 8k
ktap_expect_eq ntb_rx_max_sysfs "$(ncm rx_max)" 8192
ktap_check set_tx_max_and_timer_1ms "$U" -n "$H" link set dev "$HD" ntb-tx-max 16384 tx-timer-usecs 1ms
ktap_expect_eq tx_max_timer_sysfs "$(ncm tx_max) $(ncm tx_timer_usecs)" "16384 1000"
ktap_check set_timer_400us "$U" -n "$H" link set "$HD" tx-timer-usecs 400us
ktap_expect_eq timer_400_sysfs "$(ncm tx_timer_usecs)" 400
ktap_check set_qmult "$U" -n "$G" link set dev "$GD" qmult 5
ktap_expect_eq qmult_configfs "$(cat "$NCM_FUNC/qmult")" 5
ktap_check set_rx_usecs "$U" -n "$A" link set dev "$AD" rx-usecs 100
ktap_expect_eq rx_usecs_ethtool "$(rx_usecs)" 100
ktap_check set_bql_all "$U" -n "$A" link set dev "$AD" bql-limit-max 20k bql-limit-min 3000 bql-hold-time 2s
ktap_expect_eq bql_all_sysfs "$(bql "$A" "$AD" limit_max) $(bql "$A" "$AD" limit_min) $(bql "$A" "$AD" hold_time)" "20480 3000 2000"
ktap_check set_bql_queue_0 "$U" -n "$A" link set dev "$AD" bql-limit-max 40000 queue 0
ktap_expect_eq bql_queue_0_sysfs "$(bql "$A" "$AD" limit_max)" 40000
out=$("$U" -n "$A" link show dev "$AD")
if [ "$ntxq" = 1 ]; then
	ktap_check show_reflects_set grep -q 'rx-usecs 100 bql-accounting [a-z]* bql-limit-min 3000 bql-limit-max 40000 bql-hold-time 2000ms' <<< "$out"
else
	ktap_check show_reflects_set grep -q 'rx-usecs 100 ' <<< "$out"
fi

# ----------------------------------------------------------- errors ---
err=$("$U" -n "$H" link set dev "$HD" ntb-rx-max 70000 2>&1 > /dev/null)
rc=$?
ktap_info "refusal: $err"
ktap_expect_eq over_max_exit_2 "$rc" 2
ktap_expect_eq over_max_one_line "$(wc -l <<< "$err")" 1
ktap_check over_max_names_dev_knob_value grep -q "^usbeth: link set dev $HD ntb-rx-max 70000: " <<< "$err"
# the limit itself: in the kernel's message from 6.2 (formatted extack,
# lib.sh), read from the device by the CLI before
if extack_formatted; then max_re="maximum of $HD: 16384"; else max_re="the maximum of $HD is 16384 (ntb-dev-rx-max)"; fi
ktap_check over_max_names_max grep -q "$max_re" <<< "$err"
ntxq=$(ip netns exec "$H" sh -c "ls -d /sys/class/net/$HD/queues/tx-*" | wc -l)
err=$("$U" -n "$H" link set dev "$HD" bql-limit-max 1000 queue 7 2>&1 > /dev/null)
ktap_info "refusal: $err"
ktap_check no_such_queue_names_count grep -q "$HD has $ntxq TX queues" <<< "$err"
ktap_expect_eq over_max_left_sysfs "$(ncm rx_max)" 8192
err=$("$U" -n "$H" link set dev "$HD" ntb-rx-mx 8k 2>&1)
rc=$?
ktap_expect_eq unknown_knob_exit_1 "$rc" 1
ktap_check unknown_knob_did_you_mean grep -q "did you mean 'ntb-rx-max'?" <<< "$err"
ktap_expect_eq bad_unit_exit_1 "$(rc_of "$U" -n "$H" link set dev "$HD" ntb-rx-max 64q)" 1
err=$("$U" -n "$A" link set dev "$AD" tx-usecs 10 2>&1)
rc=$?
ktap_info "refusal: $err"
if extack_formatted; then drv_re=".*e1000e"; else drv_re="knob not supported by this device"; fi
if [ $rc = 2 ] && grep -q "tx-usecs 10: Operation not supported: $drv_re" <<< "$err"; then
	ktap_ok unsupported_knob_names_driver
else
	ktap_fail unsupported_knob_names_driver "rc=$rc $err"
fi
err=$("$U" -n "$A" link show dev nosuch0 2>&1)
rc=$?
ktap_expect_eq no_device_exit_2 "$rc" 2
ktap_check no_device_message grep -q "link show dev nosuch0: No such device" <<< "$err"

# ------------------------------------------------------------ batch ---
# two devices in one netns: the NCM host and e1000e B, moved in for it
BD=$E1K_B_IF
ip -n "$E1K_B_NS" link set dev "$BD" netns "$H" || bail "cannot move $BD into $H"
b_orig="$(bql "$H" "$BD" limit_min) $(bql "$H" "$BD" limit_max) $(bql "$H" "$BD" hold_time)"
cat > "$tmp/ok" <<EOF
# the NCM link and an e1000e, one batch
link set dev $HD ntb-tx-max 8k tx-timer-usecs 500us

link set dev $BD bql-limit-max 30000 bql-hold-time 3s   # BQL
link show dev $BD
EOF
out=$("$U" -n "$H" -b "$tmp/ok" 2>&1)
rc=$?
ktap_expect_eq batch_exit_0 "$rc" 0
ktap_check batch_show_line grep -qE "^[0-9]+: $BD: driver e1000e" <<< "$out"
tx=$(ncm tx_max)
ktap_check batch_ncm_applied test "$(ncm tx_timer_usecs)" = 500 -a \( "$tx" = 8192 -o "$tx" = 8193 \)
ktap_expect_eq batch_e1000e_applied "$(bql "$H" "$BD" limit_max) $(bql "$H" "$BD" hold_time)" "30000 3000"

printf 'link set dev %s bql-limit-min 1000\nlink set dev %s ntb-rx-max 70000\nlink set dev %s bql-limit-min 2000\n' \
	"$BD" "$HD" "$BD" > "$tmp/refused"
err=$("$U" -n "$H" -b "$tmp/refused" 2>&1)
rc=$?
ktap_info "batch: $err"
ktap_expect_eq batch_refused_exit_2 "$rc" 2
ktap_check batch_refused_names_line grep -q "^usbeth: batch line 2: link set dev $HD ntb-rx-max 70000: .*$max_re" <<< "$err"
ktap_expect_eq batch_stops_at_failing_line "$(bql "$H" "$BD" limit_min)" 1000

printf 'link set dev %s bql-limit-min 5000\n\nlink set dev %s bql-limt-min 6000\n' "$BD" "$BD" > "$tmp/typo"
err=$("$U" -n "$H" -b "$tmp/typo" 2>&1)
rc=$?
ktap_info "batch: $err"
ktap_expect_eq batch_typo_exit_1 "$rc" 1
ktap_check batch_typo_names_line grep -q "^usbeth: batch line 3: .*did you mean 'bql-limit-min'?" <<< "$err"
ktap_expect_eq batch_typo_ran_nothing "$(bql "$H" "$BD" limit_min)" 1000

err=$("$U" -n "$H" -force -b "$tmp/refused" 2>&1)
rc=$?
ktap_expect_eq batch_force_exit_2 "$rc" 2
ktap_expect_eq batch_force_runs_on "$(bql "$H" "$BD" limit_min)" 2000
read -r bmin bmax bhold <<< "$b_orig"
printf 'link set dev %s bql-limit-min %s bql-limit-max %s bql-hold-time %s\n' "$BD" "$bmin" "$bmax" "$bhold" |
	"$U" -n "$H" -b -
ktap_expect_eq batch_stdin "$(bql "$H" "$BD" limit_min) $(bql "$H" "$BD" limit_max) $(bql "$H" "$BD" hold_time)" "$b_orig"
ip -n "$H" link set dev "$BD" netns "$E1K_B_NS" || bail "cannot move $BD back"
BD=

# ---------------------------------------------------------- monitor ---
# mon_start NAME ARGS...: a background `usbeth ARGS monitor list` on fd
# MON_<NAME>; returns once its first "existing" line is read (subscribed).
mon_start() {
	local name=$1 fd line
	shift
	exec {fd}< <(exec "$U" "$@" monitor list)
	MONS+=($!)
	printf -v "MON_$name" '%s' "$fd"
	read -r -t 30 -u "$fd" line || bail "usbeth monitor did not start"
	[[ $line == *existing* ]] || bail "usbeth monitor: unexpected first line '$line'"
}
# mon_expect NAME REGEX: read until a line matches (30 s), print it
mon_expect() {
	local fd=MON_$1 line end=$((SECONDS + 30))
	while [ $SECONDS -lt $end ]; do
		read -r -t $((end - SECONDS)) -u "${!fd}" line || return 1
		if [[ $line =~ $2 ]]; then
			printf '%s\n' "$line"
			return 0
		fi
	done
	return 1
}
mon_start H -n "$H" -j
mon_start INIT
"$U" -n "$H" link set dev "$HD" tx-timer-usecs 700
line=$(mon_expect H "^\\{\"event\":\"change\",.*\"ifname\":\"$HD\".*\"tx-timer-usecs\":700")
ktap_check monitor_json_change test -n "$line"
ktap_check monitor_json_line_valid python3 -m json.tool <<< "$line"
ncm_unplug
ktap_check monitor_json_unplug mon_expect H "^\\{\"event\":\"del\",.*\"ifname\":\"$HD\""
ncm_plug
HD=$NCM_HOST_IF
ktap_check monitor_text_plug mon_expect INIT "^\\[new\\] [0-9]+: $HD: driver cdc_ncm role usb-host$"
ktap_check monitor_json_moved_in mon_expect H "^\\{\"event\":\"new\",.*\"ifname\":\"$HD\",.*\"role\":\"usb-host\""
kill "${MONS[@]}" 2>/dev/null
MONS=()

# --------------------------------------------- netns, privilege, misc ---
ktap_expect_eq netns_like_ip_netns_exec "$("$U" -n "$A" -j link show)" "$(ip netns exec "$A" "$U" -j link show)"
err=$("$U" -n nosuchns link show 2>&1)
rc=$?
ktap_expect_eq netns_missing_exit_2 "$rc" 2
ktap_check netns_missing_message grep -q "cannot open netns 'nosuchns'" <<< "$err"
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
ktap_check unprivileged_show ip netns exec "$A" "${nobody[@]}" "$U" link show dev "$AD"
err=$(ip netns exec "$A" "${nobody[@]}" "$U" link set dev "$AD" rx-usecs 50 2>&1)
rc=$?
ktap_info "unprivileged: $err"
ktap_expect_eq unprivileged_set_exit_2 "$rc" 2
ktap_check unprivileged_set_eperm grep -q "^usbeth: link set dev $AD rx-usecs 50: Operation not permitted" <<< "$err"
ktap_expect_eq unprivileged_set_changed_nothing "$(rx_usecs)" 100
ktap_expect_eq unprivileged_netns_exit_2 "$(rc_of "${nobody[@]}" "$U" -n "$A" link show)" 2

ktap_check version "$U" -V
ktap_check link_help_lists_knobs grep -q 'ntb-rx-max SIZE' < <("$U" link help)
# shellcheck source=../ip-extensions/usbeth.bash-completion
source "$USBETH_COMPLETION"
COMP_WORDS=(usbeth -n "$H" link set dev "") COMP_CWORD=6
_usbeth
ktap_check completion_live_devices grep -qx "$HD" < <(printf '%s\n' "${COMPREPLY[@]}")

# put e1000e A back as it was, through the CLI
ktap_check restore_e1000e "$U" -n "$A" link set dev "$AD" rx-usecs "$orig_rx" \
	bql-limit-min "$orig_min" bql-limit-max "$orig_max" bql-hold-time "$orig_hold"
ktap_finish
