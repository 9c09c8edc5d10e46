#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmod/ (and the selftests' helper module, selftests/kmod/) builds against
# the stock headers with W=1 and no warning, is sparse clean (C=2), and
# checkpatch clean (--strict), as kernel code must be.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib.sh"
top=$USBETH_TOP
ktap_plan 3
if ! env=$("$top/scripts/kernel-env.sh"); then
	ktap_fail w1_build "no kernel tree (scripts/setup.sh)"
	ktap_fail sparse "no kernel tree"
	ktap_fail checkpatch "no kernel tree"
	ktap_finish
fi
eval "$env"

# Build a copy, so the checks never disturb the tree's own build.
scratch=$top/build/kmod-static
rm -rf "$scratch" && mkdir -p "$scratch"
cp -r "$top/Kbuild" "$top/kmod" "$top/uapi" "$scratch/"
mkdir -p "$scratch/selftests" && cp -r "$top/selftests/kmod" "$scratch/selftests/"
find "$scratch" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \) -delete

warnings() { grep -E '(warning|error):' "$1" | grep -v 'Skipping BTF' ; }

make -C "$KDIR" M="$scratch" W=1 modules > "$scratch/w1.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && ! warnings "$scratch/w1.log" > /dev/null; then
	ktap_ok w1_build
else
	warnings "$scratch/w1.log" | sed 's/^/# /'
	ktap_fail w1_build "W=1 build: rc=$rc, warnings above"
fi

if command -v sparse > /dev/null; then
	make -C "$KDIR" M="$scratch" C=2 CHECK=sparse modules > "$scratch/sparse.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! warnings "$scratch/sparse.log" > /dev/null; then
		ktap_ok sparse
	else
		warnings "$scratch/sparse.log" | sed 's/^/# /'
		ktap_fail sparse "sparse: rc=$rc, warnings above"
	fi
else
	ktap_fail sparse "sparse is not installed (scripts/setup.sh)"
fi

if [ -r "$CHECKPATCH" ]; then
	# CAMELCASE: the names it flags are the kernel's own (idVendor,
	# dwNtbInMaxSize). compat.h exists to compare LINUX_VERSION_CODE, so
	# those two checks are off for it alone.
	files=("$top"/uapi/linux/usbeth.h)
	for f in "$top"/kmod/*.[ch] "$top"/selftests/kmod/*.[ch]; do
		case $f in *.mod.c|*/compat.h) ;; *) files+=("$f") ;; esac
	done
	cp_run() {
		perl "$CHECKPATCH" --no-tree --strict --terse --show-types \
			--ignore FILE_PATH_CHANGES,CAMELCASE "$@" 2>&1
	}
	if out=$(cp_run -f "${files[@]}" &&
		cp_run --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f "$top/kmod/compat.h"); then
		ktap_ok checkpatch
	else
		printf '%s\n' "$out" | grep -v '^total:' | sed 's/^/# /'
		ktap_fail checkpatch "checkpatch --strict found problems"
	fi
else
	ktap_fail checkpatch "no checkpatch.pl (scripts/setup.sh)"
fi
ktap_finish
