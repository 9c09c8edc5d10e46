#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A SET that fails part way puts back what it wrote, and only that; when
# putting back fails too, the requester is told which knobs are left
# changed: in the extack, and in left-changed, which libusbeth surfaces
# (usbethctl prints it) and the CLI names. The device is fake_ncm
# (selftests/kmod/fake_ncm.c): a netdev under the NCM link's cdc_ncm
# interface with cdc_ncm's sysfs group, whose writes are counted and fail
# on demand (write number fail_from to fail_to). The SET names ntb-rx-max
# at the value it holds (not written), ntb-tx-max 8000 (written) and
# tx-timer-usecs 1000, whose write fails:
#   - the put-back succeeds: EIO, nothing left changed, 3 writes in all
#     (tx_max, the timer, tx_max back);
#   - the put-back fails too: EIO, ntb-tx-max left changed and named, 3
#     writes in all (ntb-rx-max, never written, is not written back).
source "$(dirname "$0")/lib.sh"

KO=$(ksft_helper fake_ncm.ko) || env_missing "no fake_ncm.ko (the selftests' helper modules are not built for this kernel)"
cleanup() { rmmod fake_ncm 2>/dev/null; ncm_teardown; }
trap cleanup EXIT
ktap_plan 12
ncm_setup -s super
insmod "$KO" || bail "insmod fake_ncm"
F=fakencm0
P=/sys/module/fake_ncm/parameters
val() { cat "/sys/class/net/$F/cdc_ncm/$1"; }
fake_set() { # FAIL_FROM FAIL_TO: restart the count, fail those writes
	echo 0 > "$P/stores" && echo "$2" > "$P/fail_to" && echo "$1" > "$P/fail_from"
}
# taken for a cdc_ncm host side: its NTB knobs are reported
ktap_expect_eq fake_is_ncm "$(ue get "$F" | sed -n 's/^\(ntb_rx_max\|tx_timer_usecs\)=//p' | tr '\n' ' ')" "16384 400 "

# put-back succeeds: write 2 (the timer) fails
fake_set 2 2
out=$(ue set "$F" ntb_rx_max=16384 ntb_tx_max=8000 tx_timer_usecs=1000 2>&1)
ktap_info "refusal: $(tr '\n' ' ' <<< "$out")"
ktap_expect_eq clean_rollback_refused "$(grep -o '^errno=.*' <<< "$out")" errno=EIO
ktap_expect_eq clean_rollback_nothing_left "$(grep -c '^left_changed=' <<< "$out")" 0
ktap_expect_eq clean_rollback_values "$(val rx_max) $(val tx_max) $(val tx_timer_usecs)" "16384 16384 400"
ktap_expect_eq clean_rollback_writes "$(cat "$P/stores")" 3

# put-back fails: every write from the second on
fake_set 2 1000
out=$(ue set "$F" ntb_rx_max=16384 ntb_tx_max=8000 tx_timer_usecs=1000 2>&1)
ktap_info "refusal: $(tr '\n' ' ' <<< "$out")"
ktap_expect_eq left_refused "$(grep -o '^errno=.*' <<< "$out")" errno=EIO
# 0x4: USBETH_KNOB_BIT_NTB_TX_MAX alone
ktap_expect_eq left_changed_surfaced "$(sed -n 's/^left_changed=//p' <<< "$out")" 0x4
if extack_formatted; then
	want="$F: tx-timer-usecs refused, ntb-tx-max left changed (-5)"
else
	want="refused, and the device is left partly changed"
fi
ktap_expect_eq left_in_extack "$(sed -n 's/^[^:]*: [^:]*: [^:]*: //p' <<< "$out")" "$want"
ktap_expect_eq left_values "$(val rx_max) $(val tx_max) $(val tx_timer_usecs)" "16384 8000 400"
ktap_expect_eq left_writes "$(cat "$P/stores")" 3

# the CLI names the knobs left changed
echo 0 > "$P/fail_from"
ue set "$F" ntb_tx_max=16384 > /dev/null || bail "cannot set ntb_tx_max back"
fake_set 2 1000
out=$("$USBETH_CLI" link set dev "$F" ntb-tx-max 8000 tx-timer-usecs 1000 2>&1)
ktap_info "CLI: $out"
ktap_check cli_names_left grep -q 'left partly changed (ntb-tx-max)' <<< "$out"
echo 0 > "$P/fail_from"
ktap_check helper_unloads rmmod fake_ncm
ktap_finish
