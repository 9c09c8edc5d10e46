#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the test VM: load the usbeth module, run each test program with a
# time limit and print the whole run as KTAP (each program's own KTAP nested
# two spaces in), then unload the module. Exit 0 only when every test passed
# or skipped and the module unloaded.
#   guest-run.sh TEST...      (USBETH_TOP, USBETH_KMOD from the job script)
#
#   guest-run.sh --installed STAGE
#       usbeth as a machine has it once installed: STAGE/root/usr
#       (scripts/kselftest-install.sh) over /usr, so the module is
#       modprobe'd from /usr/lib/modules, usbeth and usbethd are on PATH, and
#       the selftests are the kselftest install in /usr/lib/usbeth/kselftest
#       (and the checkout is hidden under an empty tmpfs);
#       its run_kselftest.sh runs the whole installed list, with nothing of
#       the tree in the tests' environment. Its TAP is shown (and counted)
#       in this script's KTAP form: each test's lines nested two spaces in.
#
# The tests run with USBETH_STRICT=1: a test whose environment is missing
# fails here instead of skipping (selftests/lib.sh).
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C USBETH_STRICT=1
per_test_timeout=${USBETH_TEST_TIMEOUT:-300}
kmod=${USBETH_KMOD:?}
stage=
if [ "${1:-}" = --installed ]; then
	stage=${2:?}
	shift 2
	kst=/usr/lib/usbeth/kselftest
	kn=$(wc -l < "$stage/root$kst/kselftest-list.txt")
	n=$((kn + 2))
else
	n=$(( $# + 2 ))
fi
# A debug kernel (make check-debug) has kmemleak: one more result, at the end.
kml=/sys/kernel/debug/kmemleak
[ -w "$kml" ] && n=$((n + 1))
failed=0
i=0

# Each result names the kernel it ran on: NAME@KERNEL.
kernel=${USBETH_KERNEL:-$(uname -r)}
result() { # result OK|FAIL|SKIP NAME [REASON]
	i=$((i + 1))
	case $1 in
	OK) echo "ok $i $2@$kernel" ;;
	SKIP) echo "ok $i $2@$kernel # SKIP ${3:-}" ;;
	*) echo "not ok $i $2@$kernel${3:+ # $3}"; failed=$((failed + 1)) ;;
	esac
}

echo "KTAP version 1"
echo "1..$n"
if [ -n "$stage" ]; then
	echo "# kernel $kernel ($(uname -r)), usbeth installed from $stage (modprobe usbeth)"
else
	echo "# kernel $kernel ($(uname -r)), module $kmod"
fi

# Keep the kernel's timestamping static key on for the whole run (a socket
# with SO_TIMESTAMP holds it): ping turns it on and off with every socket,
# and patching that jump label while another vCPU runs through it is what
# multi-threaded TCG has been seen to get wrong (an int3 oops in
# netif_rx_internal; run-vm.sh tells that flake apart).
python3 -c '
import signal, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
# SO_TIMESTAMP (SO_TIMESTAMP_OLD, 29 on x86): Python names it not
s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_TIMESTAMP", 29), 1)
signal.pause()
' &
tstamp_pin=$!
# kmemleak: what the boot leaked (or what kmemleak takes for a leak) is
# reported and set aside now, so that the scan at the end shows only what
# this run leaked.
if [ -w "$kml" ]; then
	echo scan > "$kml"
	echo clear > "$kml"
fi
# install_stage: STAGE's /usr over this machine's (a read-only overlay:
# what the stage has, then what the host has), and check that the system
# now finds usbeth where an installed one is.
install_stage() {
	modprobe overlay || return 1
	mount -t overlay usbeth-installed -o "lowerdir=$stage/root/usr:/usr" /usr || return 1
	hash -r
	local p
	p=$(modinfo -n usbeth 2>&1)
	[ "$p" = "/lib/modules/$(uname -r)/updates/dkms/usbeth.ko" ] ||
		{ echo "# modinfo -n usbeth: $p"; return 1; }
	if [ "$(command -v usbeth)" != /usr/bin/usbeth ] || [ "$(command -v usbethd)" != /usr/sbin/usbethd ]; then
		echo "# usbeth, usbethd on PATH: $(command -v usbeth) $(command -v usbethd)"
		return 1
	fi
	usbeth -V > /dev/null || return 1
	# The checkout is hidden from here on (an empty read-only tmpfs over
	# it; the overlay and this script's open file keep working): a test
	# that still reached into the tree would fail.
	mount -t tmpfs -o ro,size=4k usbeth-no-tree "$USBETH_TOP"
}

# stamped: each line of stdin prefixed with the second bash read it in
# (awk reads a pipe in blocks: a time taken there is the block's).
stamped() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s %s\n' "$EPOCHSECONDS" "$line"
	done
}

# kselftest_ktap FIRST COUNTFILE: run_kselftest.sh's TAP, stamped, as this
# script's KTAP: its own lines (plan, "# selftests: ...", timeouts) as
# comments, each test's output (prefixed "# " by the runner) nested two
# spaces in and closed by the test's wall-clock time, each result
# numbered from FIRST and named NAME@KERNEL; "results=N failed=N" in
# COUNTFILE at the end.
kselftest_ktap() {
	awk -v first="$1" -v cnt="$2" -v kernel="$kernel" '
	function out(l) { print l; fflush() }
	{ t = $1; $0 = substr($0, length($1) + 2) }
	/^TAP version / || /^1\.\.[0-9]+$/ { out("# run_kselftest.sh: " $0); next }
	/^# selftests: / { began = t }
	/^# (selftests: |timeout set to |overriding timeout to )/ { out($0); next }
	/^(not )?ok [0-9]+ selftests: usbeth: / {
		if (began != "")
			out("  # wall clock: " t - began " s")
		nok = ($1 == "not")
		rest = $0
		sub(/^(not )?ok [0-9]+ selftests: usbeth: /, "", rest)
		name = rest; sub(/ .*/, "", name); sub(/\.sh$/, "", name)
		dir = ""; if (rest ~ / # /) { dir = rest; sub(/^[^#]*# /, " # ", dir) }
		i = first + k++
		failed += nok
		out((nok ? "not ok " : "ok ") i " " name "@" kernel dir)
		next
	}
	/^# / { out("  " substr($0, 3)); next }
	/^#$/ { out("  "); next }
	{ out("# " $0) }
	END { print "results=" k + 0 " failed=" failed + 0 > cnt }'
}

if [ -n "$stage" ]; then
	if install_stage; then
		result OK installed
	else
		result FAIL installed "STAGE/root/usr over /usr, the checkout hidden"
	fi
	echo "# the checkout $USBETH_TOP is hidden; run_kselftest.sh -c usbeth from $kst ($kn tests)"
	(
		unset USBETH_TOP USBETH_KMOD USBETH_KMOD_DIR
		cd "$kst" && ./run_kselftest.sh -c usbeth 2>&1
	) | stamped | kselftest_ktap $((i + 1)) /run/guest-run.kselftest
	read -r kr kf < <(sed -n 's/^results=\([0-9]*\) failed=\([0-9]*\)$/\1 \2/p' /run/guest-run.kselftest)
	i=$((i + kn))
	failed=$((failed + ${kf:-1}))
	if [ "${kr:-0}" -ne "$kn" ]; then
		echo "# run_kselftest.sh: ${kr:-no} results for $kn tests in the list"
		failed=$((failed + 1))
	fi
elif insmod "$kmod"; then
	result OK module_load
else
	result FAIL module_load "insmod failed"
fi

for t in "$@"; do
	name=$(basename "$t")
	name=${name%.sh}
	echo "# selftests: usbeth: $name"
	# a test that needs longer says so in its header: "# usbeth-timeout: S"
	# (a floor: USBETH_TEST_TIMEOUT still wins when it is larger)
	tt=$per_test_timeout
	own=$(sed -n '1,40s/^# usbeth-timeout: \([0-9]\+\)$/\1/p' "$t" | head -n1)
	[ -n "$own" ] && [ "$own" -gt "$tt" ] && tt=$own
	t0=$SECONDS
	( cd "$(dirname "$t")" && timeout -k 10 "$tt" "$t" ) 2>&1 | sed -u 's/^/  /'
	rc=${PIPESTATUS[0]}
	echo "# $name: $((SECONDS - t0)) s"
	case $rc in
	0) result OK "$name" ;;
	4) result SKIP "$name" ;;
	124|137) result FAIL "$name" "TIMEOUT after ${tt}s" ;;
	*) result FAIL "$name" "exit=$rc" ;;
	esac
done

# A module that cannot be removed has leaked a reference; a netdev reference
# it leaked shows as "unregister_netdevice: waiting for" in the kernel log,
# which the host checks.
if [ -d /sys/module/usbeth ]; then
	if out=$(rmmod usbeth 2>&1); then
		result OK module_unload
	else
		echo "# rmmod: $out (refcnt $(cat /sys/module/usbeth/refcnt 2>/dev/null))"
		result FAIL module_unload "rmmod failed"
	fi
else
	result SKIP module_unload "module not loaded"
fi
kill "$tstamp_pin" 2>/dev/null
# kmemleak wants two scans (an object freshly unreferenced is reported only
# at the second); what it reports, but for the kernel's own known leaks
# (vm/kmemleak-known.sh), is printed and fails the run.
if [ -w "$kml" ]; then
	echo scan > "$kml"
	echo scan > "$kml"
	# the kernel's own known leaks are set aside, by signature, and counted
	if out=$("$(dirname "${BASH_SOURCE[0]}")/kmemleak-known.sh" "$kml" "$(uname -r)"); then
		grep '^# kmemleak:' <<< "$out"
		result OK kmemleak
	else
		grep '^# kmemleak:' <<< "$out"
		grep -v '^# kmemleak:' <<< "$out" | head -n 60 | sed 's/^/# kmemleak: /'
		result FAIL kmemleak "$(grep -c '^unreferenced object' <<< "$out") unreferenced objects"
	fi
fi
echo "# totals: $((n - failed)) ok, $failed not ok"
[ $failed -eq 0 ]
