#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# usbemu's device side without a kernel (usbemu_proto.py plays vhci_hcd and
# the far side over socketpairs), with usbemu built with ASan and UBSan:
# descriptors, CDC requests, frames and NTBs both ways, unlinks, the NAK
# and bloat buffers, and hostile input. The script prints its own KTAP.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! msg=$(${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -o "$out/usbemu" "$top/selftests/tools/usbemu.c" 2>&1); then
	echo "KTAP version 1"
	echo "1..1"
	printf '%s\n' "$msg" | sed 's/^/# /'
	echo "not ok 1 build"
	exit 1
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
exec python3 "$here/usbemu_proto.py" "$out/usbemu"
