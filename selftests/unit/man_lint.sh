#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages pass mandoc's lint at warning level (a date it cannot
# parse, a bad macro, a missing section): what man(1) would show wrong.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
command -v mandoc > /dev/null || ktap_skip_all "no mandoc (Debian: apt-get install mandoc; scripts/setup.sh installs it)"
pages=(ip-extensions/usbeth.8 usbethd/usbethd.8 usbethd/usbethd.profiles.5)
ktap_plan ${#pages[@]}
for p in "${pages[@]}"; do
	out=$(mandoc -Tlint -W warning "$USBETH_TOP/$p" 2>&1)
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
	ktap_check "mandoc_lint_$(basename "$p" | tr . _)" test -z "$out"
done
ktap_finish
