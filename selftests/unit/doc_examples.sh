#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The examples of README.md, usbethd(8) and usbethd.profiles(5) work when
# copied: doc_examples.py runs them on a stock install laid out in a
# temporary directory, compares the output the pages show, and checks
# that the README's own profile applies with a shipped one enabled.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
[ -x /usr/bin/python3 ] || ktap_skip_all "no /usr/bin/python3 (Debian: apt-get install python3)"
if ! out=$(make -s -C "$USBETH_TOP/usbethd" usbethd 2>&1); then
	ktap_plan 1
	printf '%s\n' "$out" | sed 's/^/# /'
	ktap_fail build "make -C usbethd usbethd failed"
	ktap_finish
fi
exec /usr/bin/python3 "$here/doc_examples.py" "$USBETH_TOP" "$USBETH_TOP/usbethd/usbethd"
