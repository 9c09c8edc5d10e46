#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One-time (and re-runnable) setup on Debian 12:
#   1. install the Debian packages needed to build, test and run usbeth;
#   2. fetch and unpack (not install) the current stock kernel image and its
#      matching headers into the cache, so the module builds against exactly
#      the kernel the test VM boots;
#   3. build everything (unless --no-build).
#
# Cache: $USBETH_CACHE (default ~/.cache/usbeth). $USBETH_CACHE/current points
# at the unpacked ABI; see scripts/kernel-env.sh for the paths derived from it.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}
build=1
for a in "$@"; do
	case $a in
	--no-build) build=0 ;;
	-h|--help) echo "usage: $0 [--no-build]"; exit 0 ;;
	*) echo "setup: unknown argument '$a'" >&2; exit 1 ;;
	esac
done

say() { printf '[setup] %s\n' "$*"; }
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

pkgs=(
	build-essential gcc make bc flex bison libelf-dev libssl-dev pkg-config
	qemu-system-x86 busybox-static cpio kmod
	iproute2 ethtool iperf3 iputils-ping util-linux
	libmnl-dev libjson-c-dev udev
	sparse shellcheck clang-14 libclang-rt-14-dev
	dkms debhelper
	python3 python3-yaml
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
else
	say "Debian packages: all present"
fi

# The stock kernel's ABI, as Debian's metapackage says today.
abi=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/.*Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n1)
if [ -z "$abi" ]; then
	$sudo apt-get update -q
	abi=$(apt-cache depends linux-image-amd64 |
		sed -n 's/.*Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n1)
fi
[ -n "$abi" ] || { echo "setup: cannot tell the stock kernel ABI from apt" >&2; exit 1; }
kver=${abi%-amd64}          # e.g. 6.1.0-57
series=$(echo "$kver" | cut -d. -f1,2)

dest=$cache/$abi
if [ ! -f "$dest/.complete" ]; then
	say "fetching stock kernel $abi (image, headers, kbuild)"
	rm -rf "$dest"
	mkdir -p "$dest/dl" "$dest/root"
	(cd "$dest/dl" && apt-get download "linux-image-$abi" "linux-headers-$abi" \
		"linux-headers-$kver-common" "linux-kbuild-$series")
	for d in "$dest"/dl/*.deb; do dpkg -x "$d" "$dest/root"; done
	# The arch headers include the common ones by absolute path: point it
	# at the unpacked copy.
	sed -i "s|^include /usr/src/|include $dest/root/usr/src/|" \
		"$dest/root/usr/src/linux-headers-$abi/Makefile"
	depmod -b "$dest/root" "$abi"
	rm -rf "$dest/dl"
	touch "$dest/.complete"
else
	say "stock kernel $abi: already unpacked in $dest"
fi
ln -sfn "$abi" "$cache/current"

# checkpatch.pl (and the data files it reads) from Debian's kernel source
# package, for the kmod/ style check.
cp_dir=$cache/checkpatch-$series
if [ ! -f "$cp_dir/.complete" ]; then
	say "fetching checkpatch.pl from linux-source-$series"
	rm -rf "$cp_dir" && mkdir -p "$cp_dir"
	(cd "$cp_dir" && apt-get download "linux-source-$series")
	dpkg-deb --fsys-tarfile "$cp_dir"/linux-source-*.deb |
		tar -xO "./usr/src/linux-source-$series.tar.xz" |
		tar -xJ -C "$cp_dir" --strip-components=1 \
			"linux-source-$series/scripts/checkpatch.pl" \
			"linux-source-$series/scripts/spelling.txt" \
			"linux-source-$series/scripts/const_structs.checkpatch"
	rm -f "$cp_dir"/*.deb
	touch "$cp_dir/.complete"
fi
ln -sfn "checkpatch-$series" "$cache/checkpatch"

# The VM chroots into this machine's root (read-only, over 9p) and binds the
# unpacked modules on /lib/modules/<abi>: that mount point must exist.
[ -d "/lib/modules/$abi" ] || $sudo mkdir -p "/lib/modules/$abi"

if [ $build -eq 1 ]; then
	say "building"
	make -C "$top" -j"$(nproc)"
fi
say "done (kernel $abi)"
