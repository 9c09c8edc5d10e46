#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bash completion's knob names are the knob table's (USBETH_KNOBS):
# ip-extensions/gen-completion.sh --check regenerates them and compares;
# a list edited by hand fails it, and the generator puts it right.
here=$(cd "$(dirname "$0")" && pwd)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
command -v "${CC:-cc}" > /dev/null || ktap_skip_all "no C compiler (${CC:-cc}) to read the knob table"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
G=$USBETH_TOP/ip-extensions/gen-completion.sh
C=$USBETH_TOP/ip-extensions/usbeth.bash-completion
ktap_plan 4
"$G" --check > "$W/out" 2>&1
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$W/out"
ktap_expect_eq completion_matches_table $rc 0
# a knob dropped from the list by hand
sed 's/ tx-usecs / /' "$C" > "$W/c"
if cmp -s "$W/c" "$C"; then ktap_fail mutation_made; else ktap_ok mutation_made; fi
USBETH_COMPLETION=$W/c "$G" --check > "$W/out2" 2>&1
ktap_check edited_list_fails grep -q "not the table's" "$W/out2"
USBETH_COMPLETION=$W/c "$G" > /dev/null 2>&1
ktap_check generator_restores cmp -s "$W/c" "$C"
ktap_finish
