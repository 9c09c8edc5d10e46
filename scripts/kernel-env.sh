#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the kernels of the matrix (scripts/kernels.conf) were unpacked by
# scripts/setup.sh.
#
#   eval "$(scripts/kernel-env.sh [KERNEL])"   shell assignments for one
#                                              kernel (default: the first)
#   scripts/kernel-env.sh --list [SELECTION]   the names of the kernels a
#                                              selection picks, one a line
#
# A selection is a list of words, each a kernel's name (6.12, 7.3-rt), its
# Debian release or its ABI; empty means $KERNELS, and an empty $KERNELS
# the kernels marked default in the matrix.
#
# The assignments: KLABEL (name), KABI, KRELEASE, KFLAVOUR, KROOT (the
# unpacked image and modules), KIMAGE, KDIR (the headers, as this machine
# sees them), KBUILDROOT (the build root whose compiler builds for this
# kernel; empty: this machine's own), KDIR_IN_ROOT (the headers as the
# compiler sees them), KCC (the compiler the kernel was built with),
# CHECKPATCH, USBETH_CACHE.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}
conf=$top/scripts/kernels.conf

die() { echo "kernel-env: $*" >&2; exit 1; }

# matrix: "release flavour default" per line
matrix() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$conf"; }

envfile() { echo "$cache/kernels/$1_$2.env"; }

# field FILE NAME: one value from an env file
field() { sed -n "s/^$2='\(.*\)'\$/\1/p" "$1"; }

select_kernels() { # select_kernels WORD...: env files, in matrix order
	local rel fl def f w label abi hit missing=()
	while read -r rel fl def; do
		f=$(envfile "$rel" "$fl")
		if [ $# -eq 0 ]; then
			[ "$def" = yes ] || continue
			[ -f "$f" ] || { missing+=("$rel/$fl"); continue; }
			echo "$f"
			continue
		fi
		[ -f "$f" ] || continue
		label=$(field "$f" KLABEL) abi=$(field "$f" KABI)
		hit=0
		for w in "$@"; do
			[ "$w" = "$label" ] || [ "$w" = "$abi" ] ||
				{ [ "$w" = "$rel" ] && [ "$fl" = amd64 ]; } && hit=1
		done
		[ $hit -eq 1 ] && echo "$f"
	done < <(matrix)
	[ ${#missing[@]} -eq 0 ] ||
		die "kernel ${missing[*]} of the matrix is not set up: run scripts/setup.sh"
}

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
[ -f "$conf" ] || die "no $conf"
# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- ${KERNELS:-}
files=$(select_kernels "$@") || exit 1
if [ -z "$files" ]; then
	have=$(for f in "$cache"/kernels/*.env; do [ -f "$f" ] && field "$f" KLABEL; done | tr '\n' ' ')
	die "no kernel of the matrix matches '$*' (set up: ${have:-none}; run scripts/setup.sh)"
fi
if [ $list -eq 1 ]; then
	for f in $files; do field "$f" KLABEL; done
	exit 0
fi
f=$(printf '%s\n' "$files" | head -n1)
[ $# -le 1 ] || die "name one kernel, not '$*'"
cat "$f"
