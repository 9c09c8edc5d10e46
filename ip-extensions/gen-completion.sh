#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The knob names of the bash completion (usbeth.bash-completion's
# _usbeth_knobs) come from the one knob table, USBETH_KNOBS in
# lib/usbeth.h, read through the C preprocessor; queue is the CLI's own
# keyword, last.
#
#   gen-completion.sh           rewrite the list in the completion file
#   gen-completion.sh --check   exit 1 (and say so) when the file's list
#                               is not the table's
#
# USBETH_COMPLETION=FILE works on another file (the test's copy).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
file=${USBETH_COMPLETION:-$here/usbeth.bash-completion}
check=0
case ${1:-} in
--check) check=1 ;;
'') ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# every NAME of USBETH_KNOBS(X), in the table's order
names=$(printf '%s\n' '#include "usbeth.h"' \
	'#define NAME_OF(ID, NAME, ...) NAME' \
	'usbeth_knob_names: USBETH_KNOBS(NAME_OF)' |
	"${CC:-cc}" -E -P -D_GNU_SOURCE -I"$top/lib" -I"$top/uapi" -x c - |
	sed -n 's/^usbeth_knob_names: *//p' | grep -o '"[^"]*"' | tr -d '"')
[ -n "$names" ] || { echo "$0: no knob names in USBETH_KNOBS" >&2; exit 1; }

# _usbeth_knobs="..." with the words wrapped before column 80
block=$(printf '%s\n' "$names" queue | awk '
	{ w = (n++ ? " " : "_usbeth_knobs=\"") $0 }
	length(line w) > 79 && line != "" { print line; line = ""; sub(/^ /, "", w) }
	{ line = line w }
	END { print line "\"" }')

new=$(mktemp)
trap 'rm -f "$new"' EXIT
awk -v block="$block" '
	/^_usbeth_knobs="/ { skip = 1; print block }
	skip { if (/"$/) skip = 0; next }
	{ print }' "$file" > "$new"
if ! grep -q '^_usbeth_knobs="' "$file"; then
	echo "$0: $file has no _usbeth_knobs list" >&2
	exit 1
fi
if [ $check -eq 1 ]; then
	if ! cmp -s "$new" "$file"; then
		echo "$file: its knob names are not the table's (USBETH_KNOBS);" \
			"run ip-extensions/gen-completion.sh" >&2
		diff -u "$file" "$new" >&2 || true
		exit 1
	fi
	exit 0
fi
cmp -s "$new" "$file" || cat "$new" > "$file"
