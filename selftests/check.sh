#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: host-side tests (unit tests, static checks of kmod/ on every
# kernel), then the VM suite on each stock kernel of the matrix with the real
# drivers (KERNELS=... narrows it). Ends with one line
#   N passed, N failed[, N skipped]
# counting every leaf test. Exits non-zero if anything failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$top/build/check
rm -rf "$out" && mkdir -p "$out"
P=0 F=0 S=0
start=$SECONDS

tally() { # tally KTAP_FILE
	local p f s
	read -r p f s < <(awk -f "$here/ktap-count.awk" "$1")
	P=$((P + p)) F=$((F + f)) S=$((S + s))
}

echo "== host tests"
n=0
for t in "$here"/unit/*.sh; do
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
mapfile -t kernels < <("$top/scripts/kernel-env.sh" --list)
[ ${#kernels[@]} -gt 0 ] || { echo "not ok vm_suite # no kernel (scripts/setup.sh)"; F=$((F + 1)); }
mapfile -t vmtests < <(make -s -C "$here" print-tests)
times=()
for k in "${kernels[@]}"; do
	echo "== VM suite on kernel $k"
	kstart=$SECONDS
	(cd "$here" && ./vm/run-vm.sh -K "$k" -o "$out/vm-$k" "${vmtests[@]}")
	vmrc=$?
	# run-vm.sh keeps its logs in the -o directory whether it passed or
	# failed; none there means it never booted (counted just below)
	[ -f "$out/vm-$k/ktap.log" ] && tally "$out/vm-$k/ktap.log"
	# A run that failed for a reason outside the tests (kernel log, hang)
	# is a failure of its own.
	if [ $vmrc -ne 0 ]; then
		F=$((F + 1))
		echo "not ok vm_run@$k # the VM run failed (see above)"
	fi
	times+=("$k $((SECONDS - kstart))s")
done
for t in "${times[@]}"; do echo "# VM suite on kernel ${t% *}: ${t##* }"; done

echo "# make check took $((SECONDS - start))s"
line="$P passed, $F failed"
[ "$S" -gt 0 ] && line="$line, $S skipped"
echo "$line"
[ "$F" -eq 0 ]
