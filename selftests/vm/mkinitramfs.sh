#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test VM's initramfs: busybox-static, the modules needed to reach
# the host root over virtio-9p (with their dependencies, in load order), and
# selftests/vm/init. Usage: mkinitramfs.sh KROOT ABI OUT.cpio.gz
set -euo pipefail
kroot=$1 abi=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
bb=$(command -v busybox) || { echo "mkinitramfs: busybox-static is not installed" >&2; exit 1; }
case $(ldd "$bb" 2>&1) in *"not a dynamic executable"*) ;; *)
	echo "mkinitramfs: $bb is not static (install busybox-static)" >&2; exit 1 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$out.$$.tmp"' EXIT
mkdir -p "$tmp"/{bin,sbin,proc,sys,dev,modules,host}
cp "$bb" "$tmp/bin/busybox"
for a in sh mount umount mkdir insmod cat echo chroot poweroff hostname sync sleep ls uname stty; do
	ln -s busybox "$tmp/bin/$a"
done
install -m 0755 "$here/init" "$tmp/init"

: > "$tmp/modules.order"
for m in virtio_pci 9pnet_virtio 9p; do
	modprobe -d "$kroot" -S "$abi" --show-depends "$m" | while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		# busybox's insmod takes no compressed module: unpack .ko.xz/.zst
		name=$(basename "$path")
		name=${name%.xz}
		name=${name%.zst}
		grep -qx "$name" "$tmp/modules.order" && continue
		case $path in
		*.ko.xz) xz -dc "$path" > "$tmp/modules/$name" ;;
		*.ko.zst) zstd -qdc "$path" > "$tmp/modules/$name" ;;
		*) cp "$path" "$tmp/modules/$name" ;;
		esac
		echo "$name" >> "$tmp/modules.order"
	done
done
# a temporary name of this process's own: two runs in fresh clones (whose
# init is newer than the cached image) rebuild it at once, and a shared
# "$out.tmp" let one rename the other's file away; the rename is atomic
(cd "$tmp" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out.$$.tmp"
mv "$out.$$.tmp" "$out"
