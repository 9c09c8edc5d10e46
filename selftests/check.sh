#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: host-side tests (unit tests, static checks of kmod/ on every
# kernel), then the VM suite on each stock kernel of the matrix with the real
# drivers (KERNELS=... narrows it). Ends with one line
#   N passed, N failed[, N skipped]
# counting every leaf test. Exits non-zero if anything failed.
#
# On one kernel of the matrix, the first built with this machine's compiler
# (6.1), the suite runs as a user of the packages would run it: usbeth
# installed (scripts/kselftest-install.sh: `make install`, the module where
# DKMS puts it, the selftests installed as the kselftest target `usbeth` by
# the kernel's own tools/testing/selftests Makefile), and the installed list
# run by run_kselftest.sh, with nothing of this tree in the tests' way
# (selftests/vm/guest-run.sh --installed). The other kernels run the suite
# from the tree. After the suite, each kernel boots again for each test
# that needs a fresh boot (selftests/Makefile: SOLO_TEST_PROGS).
#
# `make check-debug` (check.sh --debug): the VM suite and the tests that need
# a debug kernel (selftests/Makefile: DEBUG_TEST_PROGS) on the debug kernel
# (scripts/build-debug-kernel.sh builds it, once), where lockdep, KASAN,
# kmemleak, debug objects and the reference trackers fail the run.
# DEBUG_FLAVOUR=debug-fixed runs it on the debug kernel with upstream/'s
# fixes instead (build-debug-kernel.sh debug-fixed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
debug=0
[ "${1:-}" = --debug ] && debug=1
out=$top/build/check$([ $debug -eq 1 ] && echo -debug)
rm -rf "$out" && mkdir -p "$out"
P=0 F=0 S=0
start=$SECONDS

# every failure, named again above the last line: a log read from its end
# (CI's) shows what failed without the whole run
failures=()
tally() { # tally KTAP_FILE
	local p f s l
	read -r p f s < <(awk -f "$here/ktap-count.awk" "$1")
	P=$((P + p)) F=$((F + f)) S=$((S + s))
	while IFS= read -r l; do
		failures+=("${1#"$out"/}: ${l#"${l%%[! ]*}"}")
	done < <(grep -aE '^ {0,2}not ok [0-9]+' "$1")
}

if [ $debug -eq 1 ]; then
	echo "== the debug kernel"
	flavour=${DEBUG_FLAVOUR:-debug}
	case $flavour in
	debug | debug-fixed) ;;
	*) echo "not ok debug_kernel # DEBUG_FLAVOUR=$flavour: debug or debug-fixed"; exit 1 ;;
	esac
	"$top/scripts/build-debug-kernel.sh" "$flavour" || { echo "not ok debug_kernel # it did not build"; exit 1; }
	dk=$(sed -n "s/^KLABEL='\(.*\)'\$/\1/p" "${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}"/kernels/*_"$flavour".env | head -n1)
	echo "== the module for $dk"
	"$top/scripts/build-kmod.sh" "$dk" || { echo "not ok kmod@$dk # it did not build"; exit 1; }
	# KASAN and lockdep under TCG: everything takes longer
	export USBETH_TEST_TIMEOUT=${USBETH_TEST_TIMEOUT:-1800}
	export USBETH_FUZZ_COUNT=${USBETH_FUZZ_COUNT:-100000}
	# the races the regular suite runs shorter, at length
	export USBETH_STRESS_CYCLES=${USBETH_STRESS_CYCLES:-200} USBETH_NETNS_ROUNDS=${USBETH_NETNS_ROUNDS:-15}
	# the last run took 5967 s with the plug cycles cut off at 1800 s; they
	# need some 3300 s (usbeth_plug_cycles.sh)
	vmtimeout=${USBETH_VM_TIMEOUT:-10800}
fi

[ $debug -eq 1 ] || echo "== host tests"
n=0
for t in "$here"/unit/*.sh; do
	[ $debug -eq 1 ] && break
	n=$((n + 1))
	name=$(basename "$t" .sh)
	echo "# host: $name"
	"$t" > "$out/host-$name.ktap" 2>&1
	rc=$?
	sed 's/^/  /' "$out/host-$name.ktap"
	{
		sed 's/^/  /' "$out/host-$name.ktap"
		case $rc in
		0) echo "ok $n $name" ;;
		4) echo "ok $n $name # SKIP" ;;
		*) echo "not ok $n $name # exit=$rc" ;;
		esac
	} > "$out/host-$name.nested"
	tally "$out/host-$name.nested"
done

# The VM suite, once per kernel of the matrix (KERNELS narrows it).
if [ $debug -eq 1 ]; then
	kernels=("$dk")
	mapfile -t vmtests < <(make -s -C "$here" print-tests print-debug-tests)
	solotests=()
else
	mapfile -t kernels < <("$top/scripts/kernel-env.sh" --list)
	mapfile -t vmtests < <(make -s -C "$here" print-tests)
	mapfile -t solotests < <(make -s -C "$here" print-solo-tests)
	# a hang detector, not a time budget: the suite took 405-481 s a kernel
	# on this 2-core machine one day and 720 s the next (shared, noisy), and
	# 900 s was hit once with other work beside it
	vmtimeout=${USBETH_VM_TIMEOUT:-1500}
fi
[ ${#kernels[@]} -gt 0 ] || {
	echo "not ok vm_suite # no kernel (scripts/setup.sh)"
	F=$((F + 1)) failures+=("not ok vm_suite # no kernel")
}
# the kernel of the installed (kselftest) run
installed_k=
if [ $debug -eq 0 ]; then
	for k in "${kernels[@]}"; do
		( eval "$("$top/scripts/kernel-env.sh" "$k")" && [ -z "$KBUILDROOT" ] ) &&
			{ installed_k=$k; break; }
	done
	[ -n "$installed_k" ] ||
		echo "# no kernel of this selection is built with this machine's compiler: no installed (kselftest) run"
fi
# vm_tally NAME RC: the results of the VM run logged in $out/vm-NAME.
# run-vm.sh keeps its logs there whether it passed or failed; none there
# means it never booted. A run that failed for a reason outside the tests
# (kernel log, hang) is a failure of its own.
vm_tally() {
	[ -f "$out/vm-$1/ktap.log" ] && tally "$out/vm-$1/ktap.log"
	if [ "$2" -ne 0 ]; then
		F=$((F + 1))
		echo "not ok vm_run@$1 # the VM run failed (see above)"
		failures+=("vm-$1: not ok vm_run@$1 # the VM run failed")
	fi
}
times=()
for k in "${kernels[@]}"; do
	kstart=$SECONDS
	if [ "$k" = "$installed_k" ]; then
		echo "== VM suite on kernel $k, installed: run_kselftest.sh"
		if "$top/scripts/kselftest-install.sh" "$k" "$top/build/kselftest"; then
			(cd "$here" && ./vm/run-vm.sh -K "$k" -t "$vmtimeout" -o "$out/vm-$k" -I "$top/build/kselftest")
			vmrc=$?
		else
			echo "not ok kselftest_install@$k # scripts/kselftest-install.sh failed"
			F=$((F + 1)) failures+=("not ok kselftest_install@$k")
			vmrc=0
		fi
	else
		echo "== VM suite on kernel $k"
		(cd "$here" && ./vm/run-vm.sh -K "$k" -t "$vmtimeout" -o "$out/vm-$k" "${vmtests[@]}")
		vmrc=$?
	fi
	vm_tally "$k" $vmrc
	# the tests that need a boot of their own (selftests/Makefile), each
	# in one, from the tree
	for t in "${solotests[@]}"; do
		echo "== ${t%.sh} on kernel $k, in a boot of its own"
		(cd "$here" && ./vm/run-vm.sh -K "$k" -t "$vmtimeout" -o "$out/vm-$k-${t%.sh}" "$t")
		vm_tally "$k-${t%.sh}" $?
	done
	times+=("$k $((SECONDS - kstart))s")
done
for t in "${times[@]}"; do echo "# VM suite on kernel ${t% *}: ${t##* }"; done

echo "# make check$([ $debug -eq 1 ] && echo -debug) took $((SECONDS - start))s"
for l in "${failures[@]}"; do echo "# failed: $l"; done
line="$P passed, $F failed"
[ "$S" -gt 0 ] && line="$line, $S skipped"
echo "$line"
[ "$F" -eq 0 ]
