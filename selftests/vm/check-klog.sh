#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scan a guest kernel log for signs that the kernel went wrong: oops, BUG,
# WARNING, lockdep and RCU reports, panics, and netdevs that cannot be
# unregistered because a reference was leaked; on the debug kernel (make
# check-debug) also KASAN (a BUG: line), reference-tracker and debug-objects
# reports. Not kmemleak's "N new suspected memory leaks": the guest reads the
# whole report itself after the run, sets the kernel's own known leaks aside
# by their allocation backtraces and fails the run on any other
# (guest-run.sh), a finer judge than that line. On the data-race kernel
# (build-debug-kernel.sh kcsan), a KCSAN report counts when usbeth is on
# either side's stack, unless the race is one of the kernel's own that any
# caller of the same kernel function meets (kcsan_known below); the
# kernel's races elsewhere are listed on stderr and not counted. Prints
# each offending line (with its line number) and exits 1 if there is any,
# 0 otherwise.
# Usage: check-klog.sh CONSOLE_LOG
set -u
log=${1:?usage: check-klog.sh CONSOLE_LOG}
[ -r "$log" ] || { echo "check-klog: cannot read $log" >&2; exit 2; }

patterns=(
	'Oops:'
	'BUG:'
	'kernel BUG at'
	'WARNING: CPU:'
	'\] WARNING: '
	'^WARNING: [^ ]+:[0-9]+ at '
	'WARNING: possible'
	'WARNING: suspicious RCU usage'
	'WARNING: inconsistent lock state'
	'WARNING: bad unlock balance'
	'WARNING: held lock freed'
	'WARNING: lock held when returning to user space'
	'Kernel panic'
	'general protection fault'
	'Unable to handle kernel'
	'unregister_netdevice: waiting for'
	'refcount_t: '
	'list_add corruption'
	'list_del corruption'
	'UBSAN:'
	'rcu: INFO: rcu_.* detected stalls'
	'INFO: task .* blocked for more than'
	'watchdog: BUG: soft lockup'
	'@[0-9a-f]+ has [0-9]+/[0-9]+ users at'
	'ref_tracker: reference already released'
	'ODEBUG: '
	'BUG: KASAN'
)
re=$(IFS='|'; echo "${patterns[*]}")
bad=0
grep -nE "$re" "$log" | grep -v 'BUG: KCSAN: ' && bad=1
# The kernel's own races that usbeth meets by calling the kernel as
# everyone does, by the two functions of the report's title:
# - __pm_runtime_resume reads runtime_status without the lock for its
#   might_sleep_if() check alone; pm_runtime_get_sync() from ethtool's own
#   ethnl_ops_begin() meets it the same way.
kcsan_known='__pm_runtime_resume / __update_runtime_status|__update_runtime_status / __pm_runtime_resume'
# a KCSAN report runs from its BUG: line to the closing line of '='
awk -v known="$kcsan_known" '
function judge() {
	if (head == "")
		return
	if (ours && head !~ ("data-race in (" known ")$"))
		print head " (usbeth on the stack)"
	else if (ours)
		print "check-klog: KCSAN, a known race of the kernel, not counted: " head > "/dev/stderr"
	else
		print "check-klog: KCSAN outside usbeth, not counted: " head > "/dev/stderr"
	head = ""
}
{ sub(/\r$/, "") }	# a serial console ends its lines with CR LF
/BUG: KCSAN: / { judge(); head = NR ":" $0; ours = 0; next }
head != "" && /\[usbeth\]/ { ours = 1 }
head != "" && /====================/ { judge() }
END { judge() }' "$log" | grep . && bad=1
exit $bad
