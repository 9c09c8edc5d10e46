#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What an installed profile cites is installed with it: `make install-docs`
# (part of `make install`, and so of the packages) lays out README, NEWS and
# docs/ under DOCDIR; every profile, built-in or shipped disabled, names
# the installed page of its evidence and the summary rows it rests on, the
# installed boots page beside it holds those rows, and the page every file
# it links.
here=$(cd "$(dirname "$0")" && pwd)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
DOCDIR=/usr/share/doc/usbethd
profiles=("$USBETH_TOP"/usbethd/profiles.available/*.json)
ktap_plan $((2 + 3 * ${#profiles[@]}))
make -s -C "$USBETH_TOP" install-docs DESTDIR="$W" DOCDIR="$DOCDIR" > "$W/log" 2>&1
ktap_expect_eq install_docs_runs $? 0
page=$W$DOCDIR/docs/performance.md
# every relative link of the installed page resolves inside DOCDIR/docs
missing=$(grep -oE '\]\([^)#:]+\)' "$page" | sed 's/^](//; s/)$//' | sort -u |
	while read -r l; do [ -e "$W$DOCDIR/docs/$l" ] || echo "$l"; done)
[ -z "$missing" ] || ktap_info "linked but not installed: $missing"
ktap_expect_eq page_links_installed "$missing" ""
for p in "${profiles[@]}"; do
	n=$(basename "$p" .json)
	# the comment, its lines joined
	c=$(python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1])).get("comment", [])))' "$p")
	ktap_check "${n}_names_installed_page" grep -qF "Its evidence: docs/performance.md (installed in $DOCDIR)" <<< "$c"
	ktap_check "${n}_rows_named" grep -qF "rows \"profile:$n\"" <<< "$c"
	# the rows themselves: the Summary on the boots page beside it
	ktap_check "${n}_rows_in_page" grep -qF "profile:$n" "$W$DOCDIR/docs/performance-boots.md"
done
ktap_finish
