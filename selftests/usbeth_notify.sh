#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbeth notifications: a USB netdev appearing (plug) and disappearing
# (unplug) in a netns, and a change made through usbeth, each reach a
# monitor in that netns; NLM_F_ECHO returns the new state to the caller,
# and a set that changes nothing notifies nothing.
source "$(dirname "$0")/lib.sh"

trap 'monitor_stop_all; ncm_teardown' EXIT
ktap_plan 9

monitor_start ""
ncm_setup -s super
ktap_check new_on_gadget_register monitor_expect '^new .*role=usb-gadget'
ktap_check new_on_host_plug monitor_expect '^new .*role=usb-host'
H=$NCM_HOST_NS D=$NCM_HOST_IF

monitor_start "$H"
ktap_check set_tx_max ue "$H" set "$D" ntb_tx_max=8192
ktap_check change_on_set monitor_expect "^change .*ifname=$D"
out=$(ue "$H" set -e "$D" tx_timer_usecs=1000)
ktap_check echo_returns_state grep -q '^tx_timer_usecs=1000$' <<< "$out"
out=$(ue "$H" set -e "$D" tx_timer_usecs=1000)
if grep -q '^ifname=' <<< "$out"; then ktap_fail no_change_no_echo; else ktap_ok no_change_no_echo; fi
ktap_check change_for_echoed_set monitor_expect "^change .*ifname=$D"

ncm_unplug
ktap_check del_on_unplug monitor_expect "^del .*ifname=$D"
monitor_start ""
echo "$NCM_UDC" > "$NCM_GADGET/UDC"
ktap_check new_on_replug monitor_expect '^new .*role=usb-host'
ktap_finish
