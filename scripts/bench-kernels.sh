#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two kernels' own defaults, side by side: the data-plane benchmark
# (selftests/bench/data.sh) with only the `defaults` and `defaults-again`
# configurations, in pairs of boots, one of each kernel at the same time,
# so that both see the same load on this shared machine; each boot then
# runs selftests/bench/floor.sh (what bounds ping under load here). Then
# the comparison (scripts/bench-report.py --kernels) and its plot.
#
#   scripts/bench-kernels.sh [-n PAIRS] [-l LINKS] [-c ERE] [-F] KERNEL_A KERNEL_B
#
# PAIRS: pairs of boots (default 5); LINKS: the links (default "ncm-full
# ncm-high ncm-super"); ERE: the configurations (default the defaults and
# the defaults again); -F: no floor.sh (it knows the NCM links only: for
# the emulated ones, whose floor is their emulated rate). Each pair's
# "# data:" and "# floor:" lines go to
# build/bench/kernels/pair-N.txt (each boot's whole log beside it),
# the comparison to build/bench/kernels/report.md and kernels.png.
# USBETH_BENCH_ROUNDS (default 1 here) and USBETH_BENCH_SECS pass through.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench/kernels
pairs=5 links="ncm-full ncm-high ncm-super" configs='^defaults(-again)?$' floor=1
usage="usage: bench-kernels.sh [-n PAIRS] [-l LINKS] [-c ERE] [-F] KERNEL_A KERNEL_B"
while getopts "n:l:c:F" o; do
	case $o in
	n) pairs=$OPTARG ;;
	l) links=$OPTARG ;;
	c) configs=$OPTARG ;;
	F) floor=0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
export USBETH_BENCH_LINKS=$links USBETH_BENCH_ROUNDS=${USBETH_BENCH_ROUNDS:-1}
export USBETH_BENCH_CONFIGS=$configs
mkdir -p "$out"
start=$(date +%s) rc=0
for i in $(seq "$pairs"); do
	echo "bench-kernels: pair $i of $pairs: $1 and $2 at the same time"
	pids=()
	for k in "$1" "$2"; do
		USBETH_TEST_TIMEOUT=5400 "$top/selftests/vm/run-vm.sh" -K "$k" -t 5600 \
			-o "$out/pair-$i-$k.vm" "$top/selftests/bench/data.sh" \
			$([ $floor -eq 1 ] && echo "$top/selftests/bench/floor.sh") > "$out/pair-$i-$k.log" 2>&1 &
		pids+=($!)
	done
	for j in 0 1; do
		wait "${pids[$j]}" || { echo "bench-kernels: pair $i: a boot failed (log: $out/pair-$i-*.log)"; rc=1; }
	done
	for k in "$1" "$2"; do grep -h -E '# (data|floor): ' "$out/pair-$i-$k.log"; done |
		sed 's/^ *//' > "$out/pair-$i.txt"
	echo "bench-kernels: pair $i: $(grep -c 'data: ' "$out/pair-$i.txt") cells," \
		"$(( ($(date +%s) - start) / 60 )) min so far"
done
/usr/bin/python3 "$top/scripts/bench-report.py" --kernels "$out"/pair-*.txt > "$out/report.md" || rc=1
/usr/bin/python3 "$top/scripts/bench-report.py" --kernels --write-plots "$out" "$out"/pair-*.txt || rc=1
cat "$out/report.md"
exit $rc
