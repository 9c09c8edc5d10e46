#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two kernels' own defaults, side by side: the data-plane benchmark
# (selftests/bench/data.sh) with only the `defaults` and `defaults-again`
# configurations, in pairs of boots, one of each kernel at the same time
# (or, -s, one after the other) so that both see the same load on this
# shared machine; each boot then runs selftests/bench/floor.sh (what
# bounds ping under load here). Then the comparison (scripts/bench-report.py
# --kernels, or --emulated for the emulated links) and its plot.
#
#   scripts/bench-kernels.sh [-n PAIRS] [-l LINKS] [-c ERE] [-F] [-s] [-o DIR] KERNEL_A KERNEL_B [KERNEL...]
#
# PAIRS: pairs of boots (default 5); LINKS: the links (default "ncm-full
# ncm-high ncm-super"); ERE: the configurations (default the defaults and
# the defaults again); -F: no floor.sh (it knows the NCM links only: for
# the emulated ones, whose floor is their emulated rate); -s: the two boots
# of a pair one after the other, in turn A-B then B-A, each with the
# machine to itself (TCG runs a guest on one host thread: two at once on
# this 2-core machine leave the emulated links' guests no headroom, and
# most of their cells fail the rate check); with -s, more than two kernels
# may be named: a set of boots, one of each, the order turned by one for
# each set, every kernel compared with the last one named pair by pair
# within its set (bench-report.py --emulated); -o DIR: the output directory
# (default build/bench/kernels). Each pair's
# "# data:" and "# floor:" lines go to
# build/bench/kernels/pair-N.txt (each boot's whole log beside it),
# the comparison to build/bench/kernels/report.md and kernels.png.
# USBETH_BENCH_ROUNDS (default 1 here) and USBETH_BENCH_SECS pass through.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench/kernels
pairs=5 links="ncm-full ncm-high ncm-super" configs='^defaults(-again)?$' floor=1 seq=0
usage="usage: bench-kernels.sh [-n PAIRS] [-l LINKS] [-c ERE] [-F] [-s] [-o DIR] KERNEL_A KERNEL_B [KERNEL...]"
while getopts "n:l:c:Fso:" o; do
	case $o in
	s) seq=1 ;;
	o) out=$OPTARG ;;
	n) pairs=$OPTARG ;;
	l) links=$OPTARG ;;
	c) configs=$OPTARG ;;
	F) floor=0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { [ $# -ge 1 ] && [ $seq -eq 1 ]; } || { echo "$usage" >&2; exit 2; }
kernels=("$@")
export USBETH_BENCH_LINKS=$links USBETH_BENCH_ROUNDS=${USBETH_BENCH_ROUNDS:-1}
export USBETH_BENCH_CONFIGS=$configs
mkdir -p "$out"
start=$(date +%s) rc=0
boot() { # boot PAIR KERNEL
	USBETH_TEST_TIMEOUT=5400 "$top/selftests/vm/run-vm.sh" -K "$2" -t 5600 \
		-o "$out/pair-$1-$2.vm" "$top/selftests/bench/data.sh" \
		$([ $floor -eq 1 ] && echo "$top/selftests/bench/floor.sh") > "$out/pair-$1-$2.log" 2>&1 ||
		{ echo "bench-kernels: pair $1: the $2 boot failed (log: $out/pair-$1-$2.log)"; return 1; }
}
for i in $(seq "$pairs"); do
	if [ $seq -eq 1 ]; then
		r=$(((i - 1) % ${#kernels[@]}))
		order=("${kernels[@]:r}" "${kernels[@]:0:r}")
		echo "bench-kernels: set $i of $pairs: ${order[*]}, one after the other"
		for k in "${order[@]}"; do boot "$i" "$k" || rc=1; done
	else
		echo "bench-kernels: pair $i of $pairs: $1 and $2 at the same time"
		pids=()
		for k in "$1" "$2"; do
			boot "$i" "$k" &
			pids+=($!)
		done
		for j in 0 1; do wait "${pids[$j]}" || rc=1; done
	fi
	for k in "${kernels[@]}"; do grep -h -E '# (data|floor): ' "$out/pair-$i-$k.log"; done |
		sed 's/^ *//' > "$out/pair-$i.txt"
	echo "bench-kernels: pair $i: $(grep -c 'data: ' "$out/pair-$i.txt") cells," \
		"$(( ($(date +%s) - start) / 60 )) min so far"
done
if [[ " $links " == *" ncm-"* ]] && [ ${#kernels[@]} -eq 2 ]; then
	/usr/bin/python3 "$top/scripts/bench-report.py" --kernels "$out"/pair-*.txt > "$out/report.md" || rc=1
	/usr/bin/python3 "$top/scripts/bench-report.py" --kernels --write-plots "$out" "$out"/pair-*.txt || rc=1
else
	/usr/bin/python3 "$top/scripts/bench-report.py" --emulated "$out"/pair-*.txt > "$out/report.md" || rc=1
fi
cat "$out/report.md"
exit $rc
