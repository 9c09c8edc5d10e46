#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The usbeth module loads and unloads cleanly, and its generic netlink family
# resolves through the genl controller only while it is loaded (a query by
# name loads it where modprobe can: the family's module alias).
source "$(dirname "$0")/lib.sh"

ktap_plan 10

family() { genl ctrl get name usbeth 2>&1; }

if [ -d /sys/module/usbeth ]; then ktap_ok module_loaded; else ktap_fail module_loaded; fi
# usbeth must load on systems without the gadget stack: no hard dependency,
# and (this test runs first in the VM) u_ether is not loaded here
ktap_expect_eq no_module_dependencies "$(modinfo -F depends "$USBETH_KMOD")" ""
if [ -d /sys/module/u_ether ]; then
	ktap_skip loaded_without_u_ether "u_ether was already loaded"
else
	ktap_ok loaded_without_u_ether
fi
out=$(family)
if grep -q "Name: usbeth" <<< "$out"; then ktap_ok family_resolves; else ktap_fail family_resolves "$out"; fi
ktap_check family_version grep -qE 'Version: 0x0*1\b' <<< "$out"
ktap_check family_monitor_group grep -q 'name: monitor' <<< "$out"
ktap_expect_eq module_refcnt_idle "$(cat /sys/module/usbeth/refcnt)" 0

ktap_check rmmod rmmod usbeth
# Asked for by name, the family makes the kernel load its module
# (MODULE_ALIAS_GENL_FAMILY) where modprobe finds one: on an installed
# system it comes back; where it cannot (the tree's module, insmod'ed) it
# stays gone. Either way the family resolves exactly while it is loaded.
out=$(family)
if [ -d /sys/module/usbeth ]; then
	ktap_info "the family query loaded the module again ($(modinfo -n usbeth 2>&1))"
	if grep -q "Name: usbeth" <<< "$out"; then ktap_ok family_only_while_loaded
	else ktap_fail family_only_while_loaded "module back, family not: $out"; fi
else
	if grep -q "Name: usbeth" <<< "$out"; then ktap_fail family_only_while_loaded "module gone, family not: $out"
	else ktap_ok family_only_while_loaded; fi
fi
if [ -d /sys/module/usbeth ]; then ktap_ok reload; else ktap_check reload usbeth_load; fi
ktap_finish
