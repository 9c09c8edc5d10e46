#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How usbeth tells a u_ether gadget netdev: by u_ether's own code, not by a
# device type name anyone can give. A helper module registers a netdev whose
# type is named "gadget" like u_ether's (selftests/kmod/fake_gadget.c): it
# must be reported as role "other", with no qmult (u_ether's exports would
# read its private area as u_ether's), and refuse qmult. The real gadget
# keeps its role, its UDC and its speeds, read under the lock u_ether's
# device_move() holds (kmod/gadget_rec.c), through unbind and rebind. Reading
# them walks every device of the system under that lock, which every
# device's addition, removal and power transition waits for: an
# unprivileged loop of GETs walks at most ten times a second
# (GADGET_IDENT_TTL), counted by a kprobe on the walk (dpm_for_each_dev),
# and a GET right after an unbind does not get the copy of before it, even
# when nothing but the netdev's parent changed (the host let go first).
source "$(dirname "$0")/lib.sh"

KO=$(ksft_helper fake_gadget.ko)
T=/sys/kernel/tracing
cleanup() {
	if [ -d "$T/events/usbeth_walk" ]; then
		echo 0 > "$T/events/usbeth_walk/enable"
		echo '-:usbeth_walk/dpm' >> "$T/kprobe_events"
	fi
	rmmod fake_gadget 2>/dev/null
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 15
[ -r "$KO" ] || env_missing "no helper module $KO (make, or the kselftest install)"

ncm_setup -s super
G=$NCM_GADGET_NS D=$NCM_GADGET_IF
insmod "$KO" || bail "insmod fake_gadget"
"$NLWAIT" -t 10 exists fakegadget0 > /dev/null || bail "fakegadget0 did not appear"
ktap_expect_eq fake_type_name "$(basename "$(readlink -f /sys/class/net/fakegadget0/subsystem)") $(sed -n 's/^DEVTYPE=//p' /sys/class/net/fakegadget0/uevent)" "net gadget"

out=$(ue get fakegadget0)
ktap_expect_eq fake_is_not_a_gadget "$(sed -n 's/^role=//p' <<< "$out")" other
ktap_expect_eq fake_has_no_qmult "$(grep -c '^qmult' <<< "$out")" 0
ktap_expect_eq fake_in_dump_as_other \
	"$(ue dump | grep ' ifname=fakegadget0 ' | grep -o ' role=[^ ]*')" " role=other"
ktap_expect_eq fake_qmult_refused "$(ue set fakegadget0 qmult=5 2>/dev/null | sed -n 's/^errno=//p')" EOPNOTSUPP

out=$(ue "$G" get "$D")
ktap_expect_eq gadget_role "$(sed -n 's/^role=//p' <<< "$out")" usb-gadget
ktap_expect_eq gadget_udc "$(sed -n 's/^gadget_udc=//p' <<< "$out")" "$NCM_UDC"
ktap_expect_eq gadget_speeds "$(sed -n 's/^usb_speed=//p; s/^gadget_max_speed=//p' <<< "$out" | tr '\n' ' ')" "super super "

# walks: the walks of the device list so far
walks() { awk '$1 == "dpm" { print $2 }' "$T/kprobe_profile"; }
mountpoint -q "$T" || mount -t tracefs none "$T" || bail "cannot mount tracefs"
echo 'p:usbeth_walk/dpm dpm_for_each_dev' >> "$T/kprobe_events" ||
	bail "cannot place a kprobe on dpm_for_each_dev"
echo 1 > "$T/events/usbeth_walk/enable" || bail "cannot enable the kprobe on dpm_for_each_dev"
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
GETS=300
w0=$(walks) t0=${EPOCHREALTIME/./}
out=$(ip netns exec "$G" "${nobody[@]}" "$USBETHCTL" get -n $GETS "$D")
t1=${EPOCHREALTIME/./} w1=$(walks)
ms=$(((t1 - t0) / 1000)) n=$((w1 - w0)) most=$(((t1 - t0) / 100000 + 2))
echo "# $GETS unprivileged GETs in $ms ms: $n walks of the device list (at most $most)"
ktap_expect_eq unprivileged_loop_same_udc "$(sed -n 's/^gadget_udc=//p' <<< "$out")" "$NCM_UDC"
ktap_check unprivileged_loop_walks_bounded test "$n" -le "$most" -a "$n" -lt $GETS
# the copy is not answered once the gadget is gone, however recent: the
# GET right after the unbind (one process, the unbind in between) reads
# afresh. The gadget netdev goes down first, as ncm_unplug has it. (nsenter,
# not ip netns exec, whose fresh /sys has no configfs.)
ip -n "$G" link set dev "$D" down
out=$(nsenter --net="/run/netns/$G" "$USBETHCTL" get -n 2 -W "$NCM_GADGET/UDC=" "$D") ||
	bail "cannot unbind the gadget"
"$NLWAIT" -N "$NCM_HOST_NS" -t 30 gone "$NCM_HOST_IF" || bail "host side $NCM_HOST_IF did not go away"
NCM_HOST_IF=
ktap_expect_eq unbound_has_no_udc "$(sed -n 's/^role=//p; s/^gadget_udc=//p' <<< "$out" | tr '\n' ' ')" "usb-gadget "
ncm_plug
ktap_expect_eq rebound_udc_again "$(ue_field "$G" "$D" gadget_udc)" "$NCM_UDC"

# The parent alone keys the copy too. The host lets the gadget go first
# (soft disconnect: the carrier drops then), so the unbind changes the
# netdev's parent and no carrier count. Decisive when both GETs walked, less
# than the copy's life apart (GADGET_IDENT_TTL, 100 ms, less a jiffy's
# slack; the trace's times of the two walks): the second GET came while the
# copy was fresh, and only the parent can have sent it to read again. The
# netdev is down first, so that the carrier's drop sends no late
# notification (link watch notifies only for a device that is up), whose
# walk would refresh the copy between the GETs.
carrier_changes() { sysfs_of "$G" "$D" carrier_changes; }
# walk_times: the trace's times (us) of the walks since it was cleared
walk_times() {
	awk '{ for (i = 2; i <= NF; i++) if ($i == "dpm:") { t = $(i - 1); sub(/:$/, "", t); printf "%d\n", t * 1000000 } }' "$T/trace"
}
ttl_ms=90 decisive=0 fresh=0 valid=0 tries=0
while [ $tries -lt 8 ] && [ $decisive -eq 0 ]; do
	tries=$((tries + 1))
	[ -n "$NCM_HOST_IF" ] || ncm_plug
	ip -n "$G" link set dev "$D" down
	echo disconnect > "/sys/class/udc/$NCM_UDC/soft_connect" ||
		bail "cannot disconnect $NCM_UDC"
	"$NLWAIT" -N "$NCM_HOST_NS" -t 30 gone "$NCM_HOST_IF" ||
		bail "host side $NCM_HOST_IF did not go away on the soft disconnect"
	NCM_HOST_IF=
	c0=$(carrier_changes)
	echo > "$T/trace"
	out=$(nsenter --net="/run/netns/$G" "$USBETHCTL" get -n 2 -W "$NCM_GADGET/UDC=" "$D") ||
		bail "cannot unbind the gadget"
	mapfile -t wt < <(walk_times)
	c1=$(carrier_changes)
	n=${#wt[@]} ms=-1
	[ "$n" -eq 2 ] && ms=$(((wt[1] - wt[0]) / 1000))
	echo "# parent only, try $tries: carrier changes $c0 -> $c1, $n walks, $ms ms apart, second GET: $(grep -c '^gadget_udc=' <<< "$out") UDC"
	[ "$c0" = "$c1" ] || continue
	valid=$((valid + 1))
	# the second GET, the one printed, saw no UDC
	grep -q '^gadget_udc=' <<< "$out" || fresh=$((fresh + 1))
	[ "$n" -eq 2 ] && [ "$ms" -lt $ttl_ms ] && decisive=1
done
ktap_check parent_change_reads_afresh test "$valid" -gt 0 -a "$fresh" -eq "$valid"
ktap_check parent_change_within_copy_life test "$decisive" -eq 1
[ -n "$NCM_HOST_IF" ] || ncm_plug
ktap_check helper_unloads rmmod fake_gadget
ktap_finish
