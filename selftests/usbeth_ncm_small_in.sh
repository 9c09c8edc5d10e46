#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A device that reports a dwNtbInMaxSize below NCM's minimum of 2048,
# against the spec (the emulated NCM device with --ntb-in 1024): cdc_ncm
# raises rx_max to 2048 for it, and usbeth bounds ntb-rx-max as cdc_ncm
# does, so 2048 is a value the device can be set to and anything above it
# is refused, naming the bound. Read through usbeth, the driver's sysfs
# files and the device itself.
source "$(dirname "$0")/lib.sh"

trap 'emu_teardown' EXIT
ktap_plan 7
need_usbeth_prog USBETH_CLI
emu_setup
emu_plug small ncm --ntb-in 1024
D=${EMU_IF[small]}
ncm() { cat "/sys/class/net/$D/cdc_ncm/$1"; }
ue_rx() {
	"$USBETH_CLI" -j link show dev "$D" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["ntb-rx-max"])'
}
[ "$(ncm dwNtbInMaxSize)" = 1024 ] || bail "$D: dwNtbInMaxSize $(ncm dwNtbInMaxSize), the device was to say 1024"
ktap_expect_eq driver_raised_it "$(ncm rx_max)" 2048
ktap_expect_eq device_holds_it "$(emu_stat small ntb-in)" 2048

out=$("$USBETH_CLI" link set dev "$D" ntb-rx-max 2048 2>&1)
rc=$?
[ $rc -eq 0 ] || ktap_info "ntb-rx-max 2048: $out"
ktap_expect_eq min_accepted "$rc" 0
ktap_expect_eq usbeth_reads_it "$(ue_rx)" 2048

out=$("$USBETH_CLI" link set dev "$D" ntb-rx-max 4096 2>&1)
rc=$?
ktap_info "ntb-rx-max 4096: $out"
if extack_formatted; then
	want="ntb-rx-max 4096 is above the maximum of $D: 2048"
else
	want="NTB size above the device's maximum"
fi
case $rc:$out in
0:*) ktap_fail above_refused "the SET went through: $out" ;;
*"$want"*) ktap_ok above_refused ;;
*) ktap_fail above_refused "wanted '$want' in: $out" ;;
esac
ktap_expect_eq sysfs_kept "$(ncm rx_max)" 2048
ktap_expect_eq device_kept "$(emu_stat small ntb-in)" 2048
ktap_finish
