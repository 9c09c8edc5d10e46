#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the paths of the unpacked stock kernel as shell assignments:
#   eval "$(scripts/kernel-env.sh)"
cache=${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}
cur=$cache/current
if [ ! -e "$cur/.complete" ]; then
	echo "kernel-env: no unpacked kernel in $cache; run scripts/setup.sh" >&2
	exit 1
fi
abi=$(basename "$(readlink -f "$cur")")
echo "USBETH_CACHE='$cache'"
echo "KABI='$abi'"
echo "KROOT='$cache/$abi/root'"
echo "KDIR='$cache/$abi/root/usr/src/linux-headers-$abi'"
echo "CHECKPATCH='$cache/checkpatch/scripts/checkpatch.pl'"
echo "KIMAGE='$cache/$abi/root/boot/vmlinuz-$abi'"
