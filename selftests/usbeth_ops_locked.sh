#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A driver may ask for its netdev's instance lock around its ops
# (request_ops_lock). Since the 2025 instance-lock series the kernel then
# calls NETDEV_REGISTER with that lock held, at registration and at the end
# of a netns move (7.3: register_netdevice(), __dev_change_net_namespace()),
# and usbeth's NEW notification, built in that notifier, reads the device's
# coalesce values: it must not take the lock again (a self-deadlock: the
# registering task waits on itself for good). fake_coal
# (selftests/kmod/fake_coal.c) takes the NCM link's USB interface for its
# parent, so that usbeth announces it as a USB NIC, and asks for the lock
# where the kernel has one; on 6.1 and 6.12 the same registration and move
# run without it.
source "$(dirname "$0")/lib.sh"

KO=$(ksft_helper fake_coal.ko) || env_missing "no fake_coal.ko (the selftests' helper modules are not built for this kernel)"
NS=usbeth-opslock
cleanup() {
	monitor_stop_all
	rmmod fake_coal 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 6
ncm_setup
H=$NCM_HOST_IF
ip -n "$NCM_HOST_NS" link set "$H" netns 1 || bail "cannot move $H to the initial netns"
ip netns add "$NS" || bail "ip netns add $NS"
coal() { sed -n 's/^\(tx_usecs\|tx_frames\|rx_usecs\|rx_frames\)=//p' | tr '\n' ' '; }

# the kernels whose instance lock is held at NETDEV_REGISTER: 6.15 and later
read -r major minor < <(uname -r | sed 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/')
want_lock=N
[ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 15 ]; } && want_lock=Y

# NEW is built in the NETDEV_REGISTER notifier and sent from it: a
# notifier stuck on the lock sends none, and its insmod never ends (nor can
# it be killed)
stuck="its registration is stuck (the NEW notification waiting for the instance lock its notifier holds?)"
monitor_start ""
insmod "$KO" parent_of="$H" ops_lock=1 &
ipid=$!
new=$(monitor_expect '^new .*ifname=fakecoal0 ' 60) || {
	ktap_fail new_on_register "no NEW for fakecoal0 in 60 s"
	bail "$stuck"
}
ktap_expect_eq new_on_register_as_usb_nic "$(grep -o 'role=[^ ]*' <<< "$new")" role=usb-host
wait $ipid || bail "insmod fake_coal parent_of=$H ops_lock=1 failed"
locked=$(cat /sys/module/fake_coal/parameters/ops_locked)
echo "# fakecoal0 under $H's USB interface, instance lock: $locked"
ktap_expect_eq ops_locked_where_the_kernel_has_it "$locked" "$want_lock"
out=$(ue get fakecoal0)
ktap_expect_eq get_values "$(sed -n 's/^role=//p' <<< "$out") $(coal <<< "$out")" "usb-host 10 20 30 40 "

monitor_start "$NS"
ip link set fakecoal0 netns "$NS" &
mpid=$!
new=$(monitor_expect '^new .*ifname=fakecoal0 ' 60) || {
	ktap_fail new_on_netns_move "no NEW for fakecoal0 in $NS in 60 s"
	bail "$stuck"
}
ktap_ok new_on_netns_move
wait $mpid || bail "ip link set fakecoal0 netns $NS failed"
ktap_expect_eq get_values_in_netns "$(ue "$NS" get fakecoal0 | coal)" "10 20 30 40 "
ktap_check helper_unloads rmmod fake_coal
ktap_finish
