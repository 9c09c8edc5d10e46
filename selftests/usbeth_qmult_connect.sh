#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A qmult SET that meets a connect: u_ether's gether_connect() sizes its
# request pools from qmult and then raises the carrier, with no lock of
# u_ether's own. A helper module (selftests/kmod/connect_stall.c) holds a
# connect between the two, the pools sized, the carrier not yet up; a SET
# of qmult comes in then. What the connect really allocated is read from
# the UDC core's usb_ep_alloc_request trace events (per bulk endpoint:
# 2 x qmult at super speed); QMULT_ACTIVE must say the same, and the value
# set must be the one configured for the next connect, which must use it.
source "$(dirname "$0")/lib.sh"

KO=$(ksft_helper connect_stall.ko)
P=/sys/module/connect_stall/parameters
T=/sys/kernel/tracing
TI=$T/instances/usbeth_qmult
cleanup() {
	[ -d "$P" ] && echo 1 > "$P/release"
	# a SET still waiting for its go: it gets none
	[ -n "${setpid:-}" ] && kill "$setpid" 2>/dev/null
	[ -n "${set_in:-}" ] && exec {set_in}>&-
	wait 2>/dev/null
	rmmod connect_stall 2>/dev/null
	[ -d "$TI" ] && rmdir "$TI"
	[ -n "${werr:-}" ] && rm -f "$werr"
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 8
[ -r "$KO" ] || env_missing "no helper module $KO (make, or the kselftest install)"
mountpoint -q "$T" || mount -t tracefs tracefs "$T" 2>/dev/null ||
	env_missing "no tracefs"

# pools: the request pools of the last connect traced in $TI: per endpoint
# other than ep0, the requests allocated since its last free (a disconnect
# frees them all), for those with more than one ("EP N", by name): the
# connect's two bulk endpoints (the notification endpoint gets one request,
# at bind)
pools() {
	sed -n 's/.* usb_ep_\(alloc\|free\)_request: \([^:]*\): .*/\1 \2/p' "$TI/trace" |
		awk '$1 == "free" { n[$2] = 0 } $1 == "alloc" { n[$2]++ }
		     END { for (e in n) if (n[e] > 1 && e != "ep0") print e, n[e] }' |
		sort
}
trace_start() {
	echo 0 > "$TI/tracing_on"
	echo > "$TI/trace"
	echo 1 > "$TI/tracing_on"
}

ncm_setup -s super -q 2
G=$NCM_GADGET_NS D=$NCM_GADGET_IF
mkdir "$TI" || bail "cannot make a trace instance"
[ -d "$TI/events/gadget/usb_ep_alloc_request" ] ||
	env_missing "no gadget:usb_ep_alloc_request trace event"
echo 1 > "$TI/events/gadget/usb_ep_alloc_request/enable"
echo 1 > "$TI/events/gadget/usb_ep_free_request/enable"
insmod "$KO" || bail "insmod connect_stall"
ncm_unplug

# The held CPU spins with interrupts off: everything of the test runs on
# CPU 1, the bind is made from CPU 0 (where the enumeration, hence the
# connect, then mostly runs), and the connect is held only there. The
# SET's process is started beforehand and told to send through its stdin:
# starting a program then would wait for the held CPU (file reads over
# virtio-9p, whose interrupt it may be the one to take; mounts).
[ "$(nproc --all)" -ge 2 ] || env_missing "one CPU: the test needs two"
taskset -pc 1 $$ > /dev/null || bail "cannot pin the test to CPU 1"
echo 0 > "$P/cpu"
# bash closes a coproc's descriptors and forgets its pid once it is
# reaped: the test keeps copies
coproc SETP { ip netns exec "$G" "$USBETHCTL" set -w "$D" qmult=6 2>&1; }
setpid=$SETP_PID
exec {set_in}>&"${SETP[1]}" {set_out}<&"${SETP[0]}"
line=
read -r -t 30 -u "$set_out" line
[ "$line" = ready ] || bail "usbethctl set -w did not get ready: '$line'"
# $D is down through the binds below until the held connect, the last of
# its plug, as ncm_plug and ncm_unplug keep it: a gadget that sends while
# cdc_ncm's bind resets the data interface, or while it is unbound, can
# keep an NTB that a stock kernel never sends after the next connect
# (docs/kernel-bugs.md, "f_ncm keeps the NTB it was building"). A kernel
# with the fix has it up throughout.
[ "$NCM_KERNEL_FIXED" = 1 ] && ip -n "$G" link set dev "$D" up

# plug_cpu0: bind from CPU 0; unplug_cpu0: unbind, the host side gone
plug_cpu0() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	taskset -c 0 sh -c 'echo "$1" > "$2/UDC"' sh "$NCM_UDC" "$NCM_GADGET" ||
		bail "cannot bind the gadget"
}
unplug_cpu0() {
	local h
	h=$("$NLWAIT" -t 30 driver cdc_ncm) || bail "no cdc_ncm netdev appeared"
	echo "" > "$NCM_GADGET/UDC" || bail "cannot unbind the gadget"
	"$NLWAIT" -t 30 gone "$h" || bail "host side $h did not go away on unplug"
}
# cdc_ncm's bind toggles the data interface: a plug makes more than one
# connect. The last one is held: the one the link stays with.
echo 1000 > "$P/skip"
echo "$D" > "$P/ifname"
plug_cpu0
unplug_cpu0
n=$(cat "$P/seen")
ktap_info "connects per plug: $n"
[ "$n" -ge 1 ] || bail "no connect of $D seen"
echo $((n - 1)) > "$P/skip"
held=0
werr=$(mktemp) || bail "mktemp"
for try in $(seq 20); do
	echo "$D" > "$P/ifname"
	trace_start
	plug_cpu0
	# a builtin writing to a file: nothing forks while the CPU is held
	if echo 1 > "$P/wait" 2> "$werr"; then
		held=1
		break
	fi
	case $(cat "$werr") in
	*"cross-device"*) ktap_info "try $try: the connect ran on another CPU than 0, not held" ;;
	*) ktap_info "try $try: not held: $(cat "$werr")" ;;
	esac
	unplug_cpu0
done
[ $held -eq 1 ] || bail "no connect of $D ran on CPU 0 in 20 binds"
# The SET returns while the connect is held, or waits for the connect to
# go on (the helper lets go after 2 s): either way it must succeed.
# builtins only until the release: no program starts while the CPU is held
echo go >&"$set_in"
exec {set_in}>&-
set_in=
out=
while read -r -u "$set_out" line; do out+="$line "; done
exec {set_out}<&-
wait "$setpid"
rc=$?
setpid=
echo 1 > "$P/release"
ktap_expect_eq set_during_connect "$rc" 0
[ $rc -eq 0 ] || ktap_info "$out"
ip -n "$G" link set dev "$D" up
"$NLWAIT" -N "$G" -t 30 carrier "$D" || bail "$D got no carrier"
ktap_expect_eq pools_of_qmult_2 "$(pools | awk '{ print $2 }' | tr '\n' ' ')" "4 4 "
ktap_expect_eq configured_6 "$(ue_field "$G" "$D" qmult)" 6
ktap_expect_eq active_is_what_connect_used "$(ue_field "$G" "$D" qmult_active)" 2

# the next connect takes 6
ip -n "$G" link set dev "$D" down
unplug_cpu0
trace_start
ncm_plug
ktap_expect_eq pools_of_qmult_6 "$(pools | awk '{ print $2 }' | tr '\n' ' ')" "12 12 "
ktap_expect_eq active_6_after_reconnect "$(ue_field "$G" "$D" qmult_active)" 6
ktap_check traffic ip netns exec "$NCM_HOST_NS" ping -c 3 -i 0.2 -W 5 "$NCM_GADGET_ADDR"
ktap_check helper_unloads rmmod connect_stall
ktap_finish
