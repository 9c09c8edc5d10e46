#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Judge a kmemleak report (the text of /sys/kernel/debug/kmemleak) after a
# run: the kernel's own known leaks are set aside by their signature, a
# function in the allocation's backtrace, and counted; every other object is
# printed and fails the run.
#   kmemleak-known.sh REPORT [RELEASE]
# RELEASE: the kernel's release; on one with upstream/'s fixes (lib.sh
# kernel_fixed: 7.3-debug-fixed) neither is a known leak.
# Prints one "# kmemleak: N objects allocated under SIG ... set aside" line
# per known signature met, then each other object whole. Exit 0: nothing
# but known leaks; 1: some other leak; 2: usage, unreadable report.
#
# The known leaks, usbeth having no part in either:
# - ncm_wrap_ntb: f_ncm (7.3) frees the NTB it is building (skb_tx_data,
#   skb_tx_ndp) on no disable or unbind path, so an NTB pending when the
#   link goes down leaks (upstream/fixes/0005 frees it).
# - usb_add_gadget: a gadget device and its UDC's, never released once the
#   UDC is removed after an NCM bind and unbind: u_ether moves its netdev off
#   the gadget with device_move(), which leaves the old parent's "net" glue
#   directory behind, holding a reference to the gadget (drivers/base/core.c,
#   6.1 to 7.3; usbeth_plug_cycles.sh says more). usbeth takes no reference
#   on a gadget or a UDC (kmod/device.c copies what it reports of them under
#   dpm_list_mtx), so none of these objects can be its. Five objects for each
#   UDC removed (the debug kernel, 7.3).
set -u
report=${1:?usage: kmemleak-known.sh REPORT}
[ -r "$report" ] || { echo "kmemleak-known: cannot read $report" >&2; exit 2; }
known=(ncm_wrap_ntb usb_add_gadget)
case ${2:-} in
*-usbeth-fixed | *-usbeth-debug-fixed) known=() ;;
esac
awk -v sigs="${known[*]}" '
	BEGIN { RS = "unreferenced object"; n = split(sigs, sig, " ") }
	NR > 1 {
		for (i = 1; i <= n; i++)
			if (index($0, sig[i] "+")) { count[i]++; next }
		other = other "unreferenced object" $0
		bad++
	}
	END {
		for (i = 1; i <= n; i++)
			if (count[i])
				printf "# kmemleak: %d objects allocated under %s (the kernel'"'"'s own, not usbeth'"'"'s) set aside\n", count[i], sig[i]
		printf "%s", other
		exit (bad > 0)
	}' "$report"
