#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A device that refuses a value the driver passes on: the emulated dock
# (tools/usbemu.c, cdc_ncm) stalls every SET_NTB_INPUT_SIZE while its
# ntb-input setting is "refuse". `usbeth link set ... ntb-rx-max` must then
# fail, say why in words that name the device (on a kernel whose cdc_ncm
# speaks ethtool, the driver's own words: kernel_fixed), leave rx_max as it
# was in the driver's sysfs file and in usbeth's view, and the device must
# have seen the request. Accepted again, the same SET takes, and reads back
# from sysfs and from the device itself.
source "$(dirname "$0")/lib.sh"

trap 'emu_teardown' EXIT
ktap_plan 8
need_usbeth_prog USBETH_CLI
emu_setup
emu_plug dock dock
emu_up dock
D=${EMU_IF[dock]}
rx() { cat "/sys/class/net/$D/cdc_ncm/rx_max"; }
r0=$(rx)
[ "$r0" -gt 4096 ] || bail "$D: rx_max $r0, expected more than 4096"
seen0=$(emu_stat dock ntb-in-refused)

[ "$(emu_ctl dock set ntb-input=refuse)" = ok ] || bail "usbemu: cannot set ntb-input=refuse"
out=$("$USBETH_CLI" link set dev "$D" ntb-rx-max 4096 2>&1)
rc=$?
ktap_info "refused: $out"
ktap_expect_eq set_fails "$((rc != 0))" 1
if kernel_fixed; then
	# cdc_ncm's set_ringparam (upstream/features/0001) says it, through usbeth
	want="cdc_ncm: the device refused the new NTB input size"
elif extack_formatted; then
	want="ntb-rx-max 4096: $D refused it, kept $r0"
else
	want="the device did not accept the new NTB size"
fi
case $out in
*"$D"*"$want"*) ktap_ok message_names_device_and_why ;;
*) ktap_fail message_names_device_and_why "wanted '$D' and '$want' in: $out" ;;
esac
ktap_expect_eq sysfs_kept "$(rx)" "$r0"
ktap_expect_eq usbeth_shows_kept "$("$USBETH_CLI" -j link show dev "$D" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["ntb-rx-max"])')" "$r0"
ktap_expect_eq device_saw_request "$(($(emu_stat dock ntb-in-refused) > seen0))" 1

[ "$(emu_ctl dock set ntb-input=accept)" = ok ] || bail "usbemu: cannot set ntb-input=accept"
"$USBETH_CLI" link set dev "$D" ntb-rx-max 4096 || ktap_info "accepted SET failed"
ktap_expect_eq accepted_sysfs "$(rx)" 4096
ktap_expect_eq accepted_device "$(emu_stat dock ntb-in)" 4096
"$USBETH_CLI" link set dev "$D" ntb-rx-max "$r0" > /dev/null
ktap_expect_eq put_back "$(rx)" "$r0"
ktap_finish
