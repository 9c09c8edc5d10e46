#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel patches in upstream/ are in the shape maintainers take: two
# series (fixes/, then features/), each numbered from 1 with a cover
# letter; every patch checkpatch --strict clean (the kernel's own
# checkpatch, from Debian 13's source: scripts/setup.sh) and signed off;
# every fix with Cc: stable. Answered warnings are listed here with the
# patch's notes that answer them, and nothing else is let through.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
up=$USBETH_TOP/upstream
cp=${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}/ynl/scripts/checkpatch.pl
[ -r "$cp" ] || ktap_skip_all "no checkpatch.pl at $cp (scripts/setup.sh unpacks it)"

# answered: PATCH-FILE-PREFIX:TYPE, each with its patch's notes saying why
# - fixes/0002 has Cc: stable and no Fixes: tag: no single commit made
#   device_move() leak (its notes)
answered="fixes/0002:MISSING_FIXES_TAG"

patches=()
for s in fixes features; do
	for p in "$up/$s"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ "${p##*/}" = 0000-cover-letter.patch ] || patches+=("$p")
	done
done
ktap_plan $(( ${#patches[@]} + 2 ))

for s in fixes features; do
	n=0 ok=1
	for p in "$up/$s"/[0-9][0-9][0-9][0-9]-*.patch; do
		num=${p##*/}
		num=${num%%-*}
		[ "$num" = "$(printf '%04d' $n)" ] || { ktap_info "$s: $num out of sequence"; ok=0; }
		n=$((n + 1))
	done
	[ -f "$up/$s/0000-cover-letter.patch" ] || { ktap_info "$s: no cover letter"; ok=0; }
	# the cover letter counts the series' patches: [PATCH 0/N]
	grep -q "^Subject: \[PATCH 0/$((n - 1))\]" "$up/$s/0000-cover-letter.patch" 2>/dev/null ||
		{ ktap_info "$s: the cover letter is not [PATCH 0/$((n - 1))]"; ok=0; }
	! grep -q '^\*\*\* .* HERE \*\*\*$' "$up/$s/0000-cover-letter.patch" 2>/dev/null ||
		{ ktap_info "$s: the cover letter has format-patch's placeholders"; ok=0; }
	ktap_check "${s}_series_numbered" test $ok -eq 1
done

for p in "${patches[@]}"; do
	rel=${p#"$up"/}
	out=$(perl "$cp" --no-tree --strict --show-types --ignore UNKNOWN_COMMIT_ID -q "$p" 2>&1 |
		grep -E '^(ERROR|WARNING|CHECK):' |
		while IFS=: read -r _ type _; do
			case " $answered " in *" ${rel:0:10}:$type "*) ;; *) echo "$type" ;; esac
		done)
	[ -n "$out" ] && perl "$cp" --no-tree --strict --show-types --ignore UNKNOWN_COMMIT_ID -q "$p" 2>&1 | sed 's/^/# /'
	signed=$(grep -c '^Signed-off-by: ' "$p")
	stable=1
	case $rel in fixes/*) grep -q '^Cc: stable@vger.kernel.org' "$p" || stable=0 ;; esac
	[ "$signed" -ge 1 ] || ktap_info "$rel: no Signed-off-by"
	[ $stable -eq 1 ] || ktap_info "$rel: a fix without Cc: stable"
	ktap_check "$(echo "${rel%.patch}" | cut -c1-40 | tr -c 'a-zA-Z0-9_\n' _)" \
		test -z "$out" -a "$signed" -ge 1 -a $stable -eq 1
done
ktap_finish
