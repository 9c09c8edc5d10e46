#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the module (kmod/) and the selftests' helper module (selftests/kmod/)
# for one kernel of the matrix, with the compiler that kernel was built with:
# this machine's own, or the one in the kernel's build root (scripts/setup.sh),
# entered with chroot in a private mount namespace, as DKMS would build on a
# machine running that release.
#
#   build-kmod.sh [-o OUTDIR] KERNEL [MAKE ARGS...]
#
# The sources are copied into OUTDIR (default build/kmod/KERNEL) so that
# every kernel has its own objects; the modules end up in OUTDIR/kmod/usbeth.ko
# and OUTDIR/selftests/kmod/rtnl_hold.ko.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=
while getopts "o:" o; do
	case $o in
	o) out=$OPTARG ;;
	*) echo "usage: build-kmod.sh [-o OUTDIR] KERNEL [MAKE ARGS...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: build-kmod.sh [-o OUTDIR] KERNEL [MAKE ARGS...]" >&2; exit 2; }
kernel=$1
shift
env=$("$top/scripts/kernel-env.sh" "$kernel") || exit 2
eval "$env"
out=${out:-$top/build/kmod/$KLABEL}

mkdir -p "$out/selftests"
# -p keeps the sources' times, so an unchanged file is not rebuilt
cp -rp "$top/Kbuild" "$top/kmod" "$top/uapi" "$out/"
cp -rp "$top/selftests/kmod" "$out/selftests/"
out=$(cd "$out" && pwd)

if [ -z "$KBUILDROOT" ]; then
	exec make -C "$KDIR" M="$out" "$@" modules
fi

# In the build root: the sources bound on a path of their own, /proc for
# objtool, both gone with the mount namespace when the build ends.
inroot=/usr/src/usbeth-$(printf '%s' "$out" | md5sum | cut -c1-12)
mkdir -p "$KBUILDROOT$inroot"
trap 'rmdir "$KBUILDROOT$inroot" 2>/dev/null' EXIT
unshare -m /bin/sh -c '
	root=$1 out=$2 inroot=$3 kdir=$4 cc=$5
	shift 5
	mount -t proc proc "$root/proc" &&
	mount --bind "$out" "$root$inroot" &&
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 MAKEFLAGS="$MAKEFLAGS" \
		make -C "$kdir" M="$inroot" CC="$cc" "$@" modules
' sh "$KBUILDROOT" "$out" "$inroot" "$KDIR_IN_ROOT" "${KCC%% *}" "$@"
