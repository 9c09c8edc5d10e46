#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmod/ (and the selftests' helper module, selftests/kmod/) builds against
# every kernel of the matrix (KERNELS narrows it), each with its own
# compiler, with W=1 and no warning, is sparse clean (C=2) on each, and is
# checkpatch clean (--strict), as kernel code must be.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"
top=$USBETH_TOP
if ! kernels=$("$top/scripts/kernel-env.sh" --list); then
	ktap_plan 1
	ktap_fail kernels "no kernel tree (scripts/setup.sh)"
	ktap_finish
fi
ktap_plan $(( $(echo "$kernels" | wc -l) * 2 + 1 ))
eval "$("$top/scripts/kernel-env.sh" "$(echo "$kernels" | head -n1)")"

warnings() { grep -E '(warning|error):' "$1" | grep -v 'Skipping BTF' ; }

# sparse_ran LOG: every source compiled was checked. The kernel's Makefile
# turns C= off, with only a make warning, when its probe of the checker
# fails or is missing (Debian's 7.x headers ship no
# scripts/checker-valid.sh); KBUILD_CHECKSRC on the command line keeps it
# on, and this makes sure it did.
sources_built() { grep '^  CC \[M\] ' "$1" | grep -cvE '\.mod\.o$|module-common\.o$'; }
sparse_ran() {
	local cc ck
	cc=$(sources_built "$1")
	ck=$(grep -c '^  CHECK ' "$1")
	[ "$cc" -gt 0 ] && [ "$ck" -eq "$cc" ]
}

# check_build NAME KERNEL MAKE_ARGS...: one build of a scratch copy (so the
# checks never disturb the tree's own build), clean when it succeeds with
# no warning.
check_build() {
	local name=$1 k=$2 log=$top/build/kmod-static/$2-$1.log rc
	shift 2
	"$top/scripts/build-kmod.sh" -o "$top/build/kmod-static/$k/$name" "$k" "$@" > "$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$name" = sparse ] && ! sparse_ran "$log"; then
		ktap_fail "$name@$k" "sparse checked $(grep -c '^  CHECK ' "$log") of $(sources_built "$log") sources (see $log)"
	elif [ $rc -eq 0 ] && ! warnings "$log" > /dev/null; then
		ktap_ok "$name@$k"
	else
		warnings "$log" | sed 's/^/# /'
		[ $rc -eq 0 ] || tail -n 5 "$log" | sed 's/^/# /'
		ktap_fail "$name@$k" "make $*: rc=$rc, see above"
	fi
}
for k in $kernels; do
	rm -rf "$top/build/kmod-static/$k" && mkdir -p "$top/build/kmod-static/$k"
	check_build w1_build "$k" W=1
	# each kernel's own sparse (scripts/setup.sh: one that reads its headers)
	ksparse=$("$top/scripts/kernel-env.sh" "$k" | sed -n "s/^KSPARSE='\(.*\)'$/\1/p")
	check_build sparse "$k" KBUILD_CHECKSRC=2 CHECK="${ksparse:-sparse}"
done

if [ -r "$CHECKPATCH" ]; then
	# CAMELCASE: the names it flags are the kernel's own (idVendor,
	# dwNtbInMaxSize). compat.h exists to compare LINUX_VERSION_CODE, so
	# those two checks are off for it alone.
	# uapi/linux/usbeth.h is the kernel generator's output (uapi_ynl.sh),
	# not code of ours: as in the kernel, its style is the generator's.
	files=()
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
