#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-data`: the data-plane benchmark (selftests/bench/data.sh), one
# VM boot per kernel of the selection, then build/bench/report.md and its
# plots (scripts/bench-report.py).
#
#   scripts/bench-data.sh [KERNEL...]     (default: $KERNELS, or the matrix)
#
# Passed to the guest when set: USBETH_BENCH_ROUNDS, USBETH_BENCH_LINKS,
# USBETH_BENCH_SECS, USBETH_BENCH_CONFIGS, USBETH_BENCH_DIRS (see
# selftests/bench/data.sh).
# Every line of each boot is kept in build/bench/KERNEL.log; the cells'
# "# data:" lines of all boots in build/bench/data.txt.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

mapfile -t kernels < <(KERNELS="${*:-${KERNELS:-}}" "$top/scripts/kernel-env.sh" --list) &&
	[ ${#kernels[@]} -gt 0 ] || { echo "bench-data: no kernel selected (scripts/setup.sh?)" >&2; exit 2; }
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
	echo "bench-data: installing python3-matplotlib (the plots)"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q python3-matplotlib > /dev/null ||
		{ echo "bench-data: cannot install python3-matplotlib" >&2; exit 2; }
fi
mkdir -p "$out"
rounds=${USBETH_BENCH_ROUNDS:-3}
export USBETH_BENCH_ROUNDS=$rounds
start=$(date +%s)
rc=0
for k in "${kernels[@]}"; do
	echo "bench-data: $k: one boot, $rounds rounds (progress: one line per cell)"
	# hours at the defaults: no guest-side limit below the host's
	USBETH_TEST_TIMEOUT=10800 "$top/selftests/vm/run-vm.sh" -K "$k" -t 11000 \
		-o "$out/$k.vm" "$top/selftests/bench/data.sh" 2>&1 |
		tee "$out/$k.log" | grep --line-buffered -E '^ *# (bench-data|data): |^ *(not )?ok ' |
		sed -u 's/^ *# //'
	[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "bench-data: $k: the run failed (log: $out/$k.log)"; rc=1; }
done
for k in "${kernels[@]}"; do grep -h '# data: ' "$out/$k.log"; done | sed 's/^ *//' > "$out/data.txt"
{
	echo "Run: $(date -u +%Y-%m-%d), \`make bench-data KERNELS=\"${kernels[*]}\"\`" \
		"(rounds $rounds${USBETH_BENCH_SECS:+, ${USBETH_BENCH_SECS} s per iperf3 run}${USBETH_BENCH_LINKS:+, links $USBETH_BENCH_LINKS}${USBETH_BENCH_CONFIGS:+, configurations ~ $USBETH_BENCH_CONFIGS})," \
		"$(( ($(date +%s) - start) / 60 )) min."
	echo
	echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 + 0.5 }' /proc/meminfo)," \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1);" \
		"guests under qemu TCG ($(qemu-system-x86_64 --version | head -n1 | sed 's/.*version \([^ ]*\).*/\1/'), -smp 2), so absolute figures are" \
		"the emulator's; ratios within one boot are the result."
	echo
	for k in "${kernels[@]}"; do
		eval "$("$top/scripts/kernel-env.sh" "$k")"
		echo "Kernel $k: $KABI (Debian's, stock)."
	done
} > "$out/header.md"
/usr/bin/python3 "$top/scripts/bench-report.py" --header "$out/header.md" "$out/data.txt" "$out" || rc=1
exit $rc
