#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The family against 300000 random and mutated-valid requests to every op
# (tools/genl_fuzz.c), while a USB NCM gadget is plugged and unplugged all
# along, so requests meet devices coming and going; the real drivers
# (cdc_ncm, u_ether, e1000e) take whatever passes the policies. Every
# request must be answered in well-formed messages, the family must still
# work after, and the harness fails the run on any oops, BUG, WARNING or
# lockdep report in the kernel log.
source "$(dirname "$0")/lib.sh"

FUZZ=$(ksft_helper genl_fuzz)
COUNT=${USBETH_FUZZ_COUNT:-300000}
stop=$(mktemp -u /tmp/fuzz-stop.XXXXXX)
PLUG=
cleanup() {
	touch "$stop"
	[ -n "$PLUG" ] && wait "$PLUG" 2>/dev/null
	rm -f "$stop"
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 4
modprobe e1000e || bail "modprobe e1000e"
ncm_create -s super
# plug and unplug until told to stop: the host side's netdev comes and goes
# (paced, not synchronised: the fuzzer does not wait for any of it). A
# refused bind ends the plugging: binding that function again crashes a
# stock kernel (docs/kernel-bugs.md, "a refused first bind"), and the
# glue directories earlier tests' UDC reloads leaked can refuse one.
(
	n=0
	until [ -e "$stop" ]; do
		if ! echo "$NCM_UDC" > "$NCM_GADGET/UDC" 2>/dev/null &&
			[ -z "$(cat "$NCM_GADGET/UDC")" ]; then
			echo "# a bind was refused after $n plugs: no more plugs" > "$stop.refused"
			break
		fi
		sleep 0.05
		echo "" > "$NCM_GADGET/UDC" 2>/dev/null
		sleep 0.05
		n=$((n + 1))
	done
	echo "$n" > "$stop.plugs"
) &
PLUG=$!

seed=${USBETH_FUZZ_SEED:-$(date +%s)}
out=$("$FUZZ" -s "$seed" -n "$COUNT" -d usb0 -d usb1 -d usb2 -d eth0 -d eth1 -d lo 2>&1)
rc=$?
touch "$stop"
wait "$PLUG"
PLUG=
ktap_info "$(tr '\n' ' ' <<< "$out")"
ktap_info "plug/unplug cycles meanwhile: $(cat "$stop.plugs" 2>/dev/null)"
[ -s "$stop.refused" ] && cat "$stop.refused"
rm -f "$stop.plugs" "$stop.refused"
ktap_expect_eq every_request_answered "$rc" 0
ktap_check all_sent grep -q "^sent=$COUNT " <<< "$out"
ktap_check some_accepted grep -qE ' ok=[1-9]' <<< "$out"
# the family still answers, with every device
ktap_expect_eq family_still_works "$("$USBETHCTL" dumpcount | sed -n 's/^count=\([0-9]*\).*/\1/p')" \
	"$(ip -o link | wc -l)"
ktap_finish
