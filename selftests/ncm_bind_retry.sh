#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test library's bind fallback (lib.sh ncm_bind), which make bench-data's
# speed changes need on the stock kernels: a refused bind is counted and the
# UDC reloaded until one takes. A refused *first* bind must also make the
# NCM function anew (re-registering its half-registered netdev is a kernel
# BUG), with ncm_create's settings; a function that has bound must be kept.
# The refusals are forced with a UDC name that does not exist; the reload
# after one may meet real ones too (the kernel's dead glue directory, left by
# the tests before), so the count only has to grow.
# On a kernel with the fixes of upstream/ (lib.sh kernel_fixed) there is no
# fallback: the forced refusal fails the bind, counted, the function kept,
# and a bind to the real UDC then works at once.
source "$(dirname "$0")/lib.sh"

trap ncm_teardown EXIT
func_ino() { stat -c %i "$NCM_FUNC"; }
gadget_ifindex() { sysfs_of "$NCM_GADGET_NS" "$NCM_GADGET_IF" ifindex; }
ping_link() { ip netns exec "$NCM_HOST_NS" ping -c 2 -i 0.2 -W 5 "$NCM_GADGET_ADDR"; }

if [ $NCM_KERNEL_FIXED -eq 1 ]; then
	ktap_info "$(uname -r) has the fixes of upstream/: no bind fallback"
	ktap_plan 5
	ncm_create -s super -q 2
	ino=$(func_ino)
	NCM_UDC=no_such_udc
	ncm_bind
	ktap_expect_eq refused_bind_fails $? 1
	ktap_expect_eq refusal_counted "$NCM_STALE_GLUE" 1
	ktap_expect_eq function_kept "$(func_ino)" "$ino"
	NCM_UDC=dummy_udc.0
	ncm_plug
	ktap_expect_eq no_other_refusal "$NCM_STALE_GLUE" 1
	ktap_check link_pings ping_link
	ktap_finish
fi

ktap_plan 9
ncm_create -s super -q 2

# a refused first bind: a new function (a new configfs inode), its qmult
# as ncm_create set it, bound to a UDC that exists, and a link that works
ino=$(func_ino)
NCM_UDC=no_such_udc
ncm_plug
ktap_info "refused binds: $NCM_STALE_GLUE (1 forced)"
ktap_check first_refusal_counted test "$NCM_STALE_GLUE" -ge 1
ktap_check function_made_anew test "$(func_ino)" != "$ino"
ktap_expect_eq qmult_as_created "$(cat "$NCM_FUNC/qmult")" 2
ktap_check bound_to_a_real_udc test -n "$NCM_UDC" -a -e "/sys/class/udc/$NCM_UDC" \
	-a "$(cat "$NCM_GADGET/UDC")" = "$NCM_UDC"
ktap_check first_link_pings ping_link

# a refused bind of a function that has bound: the same function and the
# same gadget netdev once the reloaded UDC takes it
ino=$(func_ino) idx=$(gadget_ifindex) refused=$NCM_STALE_GLUE
ncm_unplug
NCM_UDC=no_such_udc
ncm_plug
ktap_info "refused binds: $NCM_STALE_GLUE (2 forced)"
ktap_check second_refusal_counted test "$NCM_STALE_GLUE" -gt "$refused"
ktap_expect_eq function_kept "$(func_ino)" "$ino"
ktap_expect_eq gadget_netdev_kept "$(gadget_ifindex)" "$idx"
ktap_check second_link_pings ping_link
ktap_finish
