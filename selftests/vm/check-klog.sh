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
# either side's stack; the kernel's races elsewhere are listed on stderr
# and not counted. Prints each offending line (with its line number) and
# exits 1 if there is any, 0 otherwise.
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
# a KCSAN report runs from its BUG: line to the closing line of '='
awk '
function judge() {
	if (head == "")
		return
	if (ours)
		print head " (usbeth on the stack)"
	else
		print "check-klog: KCSAN outside usbeth, not counted: " head > "/dev/stderr"
	head = ""
}
/BUG: KCSAN: / { judge(); head = NR ":" $0; ours = 0; next }
head != "" && /\[usbeth\]/ { ours = 1 }
head != "" && /={20,}/ { judge() }
END { judge() }' "$log" | grep . && bad=1
exit $bad
