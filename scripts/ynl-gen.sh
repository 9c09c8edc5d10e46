#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's netlink code generator (tools/net/ynl/ynl-gen-c.py, from
# the linux-source package scripts/setup.sh unpacks into the cache) on the
# family's spec:
#
#   scripts/ynl-gen.sh [-s SPEC] YNL-GEN-C-ARGS...
#   scripts/ynl-gen.sh --mode uapi --header -o uapi/linux/usbeth.h
#
# SPEC defaults to uapi/usbeth.yaml. The generator expects a kernel tree: it
# names the spec by its path from the directory holding MAINTAINERS, and
# validates it against DIR/PROTOCOL.yaml, DIR being two levels up from the
# spec. So it runs on a stage that mirrors this tree: MAINTAINERS (empty),
# uapi/usbeth.yaml (a link to SPEC) and the kernel's schemas
# (Documentation/netlink/*.yaml) beside it. The output names
# "uapi/usbeth.yaml" as its source, and the spec is validated against the
# schema of the protocol it declares.
#
# USBETH_YNL (default: the cache's ynl/) is the unpacked kernel source
# holding tools/net/ynl and Documentation/netlink.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}
ynl=${USBETH_YNL:-$cache/ynl}
spec=$top/uapi/usbeth.yaml
if [ "${1:-}" = -s ]; then
	[ $# -ge 2 ] || { echo "usage: $0 [-s SPEC] YNL-GEN-C-ARGS..." >&2; exit 2; }
	spec=$(readlink -f "$2")
	shift 2
fi
gen=$ynl/tools/net/ynl/ynl-gen-c.py
[ -f "$gen" ] || { echo "ynl-gen: no $gen: run scripts/setup.sh" >&2; exit 2; }
[ -f "$spec" ] || { echo "ynl-gen: no spec $spec" >&2; exit 2; }

mkdir -p "$top/build"
stage=$(mktemp -d "$top/build/ynl-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
: > "$stage/MAINTAINERS"
mkdir "$stage/uapi"
ln -s "$spec" "$stage/uapi/usbeth.yaml"
for s in "$ynl"/Documentation/netlink/*.yaml; do
	ln -s "$s" "$stage/$(basename "$s")"
done
python3 "$gen" --spec "$stage/uapi/usbeth.yaml" "$@"
