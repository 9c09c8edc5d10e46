#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzzes usbethd's profile parser (usbethd/fuzz/fuzz_profile.c: libFuzzer,
# ASan, UBSan) for a bounded time: first every input of the kept corpus
# (usbethd/fuzz/corpus) and of the regressions (usbethd/fuzz/regressions,
# inputs that once failed), then USBETHD_FUZZ_SECONDS (default 20) of new
# inputs. The growing corpus is kept under build/usbethd-fuzz/ between runs;
# a crashing input is left there and printed.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
top=$USBETH_TOP
secs=${USBETHD_FUZZ_SECONDS:-20}
work=$top/build/usbethd-fuzz

command -v clang-14 > /dev/null || command -v clang > /dev/null ||
	ktap_skip_all "no clang for libFuzzer"
ktap_plan 3
if out=$(make -s -C "$top/usbethd" fuzz 2>&1); then
	ktap_ok build
else
	printf '%s\n' "$out" | sed 's/^/# /'
	ktap_fail build "make -C usbethd fuzz failed"
	ktap_fail regressions "not built"
	ktap_fail fuzz "not built"
	ktap_finish
fi
fz=$top/usbethd/fuzz/fuzz_profile
mkdir -p "$work/corpus" "$work/artifacts"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# every kept input once (no mutation)
if out=$("$fz" -runs=0 -artifact_prefix="$work/artifacts/" \
	"$top/usbethd/fuzz/corpus" "$top/usbethd/fuzz/regressions" 2>&1); then
	ktap_ok regressions
else
	printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /'
	ktap_fail regressions "a kept input fails"
fi
if out=$("$fz" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" \
	"$top/usbethd/fuzz/corpus" "$top/usbethd/fuzz/regressions" 2>&1); then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<< "$out")
	ktap_info "$runs inputs in ${secs}s, corpus $(ls "$work/corpus" | wc -l) files"
	ktap_ok "fuzz_${secs}s"
else
	printf '%s\n' "$out" | tail -n 40 | sed 's/^/# /'
	ktap_info "failing input kept in $work/artifacts/"
	ktap_fail "fuzz_${secs}s" "libFuzzer found a failure"
fi
ktap_finish
