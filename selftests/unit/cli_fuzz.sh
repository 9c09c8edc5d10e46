#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzzes the usbeth CLI's argument and batch parser (ip-extensions/fuzz/
# cli_fuzz.c: libFuzzer, ASan, UBSan, clang-14) for a bounded time:
#   1. build the target;
#   2. replay every input of ip-extensions/fuzz/regressions/ (inputs that
#      once crashed it, since fixed) and of the seed corpus;
#   3. fuzz for CLI_FUZZ_SECONDS (default 20) from the seed corpus. New
#      inputs go to a scratch directory, not into the tree; a crash input is
#      kept under build/fuzz/ and named here, to be fixed and then copied
#      into fuzz/regressions/.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
top=$USBETH_TOP
cli=$top/ip-extensions
secs=${CLI_FUZZ_SECONDS:-20}

command -v clang-14 > /dev/null || ktap_skip_all "clang-14 is not installed (apt-get install clang-14)"
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" > /dev/null ||
	ktap_skip_all "libFuzzer is not installed (apt-get install libclang-rt-14-dev)"

ktap_plan 3
if ! out=$(make -s -C "$cli" fuzz 2>&1); then
	printf '%s\n' "$out" | sed 's/^/# /'
	ktap_fail build "make -C ip-extensions fuzz failed"
	ktap_skip replay "not built"
	ktap_skip fuzz "not built"
	ktap_finish
fi
ktap_ok build
fuzz=$cli/fuzz/cli_fuzz
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

work=$top/build/fuzz
rm -rf "$work/new" && mkdir -p "$work/new" "$work/artifacts"

mapfile -t inputs < <(find "$cli/fuzz/regressions" "$cli/fuzz/corpus" -type f ! -name README | sort)
if out=$("$fuzz" -runs=1 "${inputs[@]}" 2>&1); then
	ktap_info "replayed ${#inputs[@]} inputs ($(find "$cli/fuzz/regressions" -type f ! -name README | wc -l) regressions)"
	ktap_ok replay
else
	printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /'
	ktap_fail replay "a regression or seed input fails"
fi

out=$("$fuzz" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" \
	"$work/new" "$cli/fuzz/corpus" 2>&1)
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<< "$out")
added=$(sed -n 's/^stat::new_units_added: *//p' <<< "$out")
if [ $rc -eq 0 ]; then
	ktap_info "fuzzed ${secs}s: ${execs:-?} executions, ${added:-?} new inputs"
	ktap_ok fuzz
else
	printf '%s\n' "$out" | grep -v '^#[0-9]' | tail -n 40 | sed 's/^/# /'
	ktap_info "crash input(s): $(find "$work/artifacts" -type f -printf '%f ')"
	ktap_fail fuzz "the fuzzer found a crash (input kept in $work/artifacts)"
fi
ktap_finish
