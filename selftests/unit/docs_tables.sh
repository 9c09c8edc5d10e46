#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tables docs/performance.md shows are what the committed data gives:
# scripts/docs-tables.py --check regenerates them and compares; a page
# whose figure was typed over fails it, and so does a plot linked but
# missing, or one in docs/performance/ that nothing links.
here=$(cd "$(dirname "$0")" && pwd)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
[ -x /usr/bin/python3 ] || ktap_skip_all "no /usr/bin/python3 (Debian: apt-get install python3)"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ktap_plan 7
T=$USBETH_TOP/scripts/docs-tables.py
/usr/bin/python3 "$T" --check > "$W/out" 2>&1
rc=$?
[ $rc -eq 0 ] || head -n 40 "$W/out" | sed 's/^/# /'
ktap_expect_eq page_matches_data $rc 0
# a figure typed over in a generated block: the first ratio of the summary
# (on the boots page)
awk 'f && /^\| / && /[0-9]\.[0-9][0-9] \(/ && !d { sub(/[0-9]\.[0-9][0-9] \(/, "9.99 ("); d = 1 }
	/<!-- generated: bench-report.py --summary -->/ { f = 1 } { print }' \
	"$USBETH_TOP/docs/performance-boots.md" > "$W/page.md"
if cmp -s "$W/page.md" "$USBETH_TOP/docs/performance-boots.md"; then ktap_fail mutation_made; else ktap_ok mutation_made; fi
USBETH_DOCS_BOOTS=$W/page.md /usr/bin/python3 "$T" --check > "$W/out2" 2>&1
ktap_check typed_figure_fails grep -q 'docs/performance-boots.md differs from its data' "$W/out2"
# a profile's verdict lines typed over in its JSON comment
mkdir "$W/prof" && cp "$USBETH_TOP"/usbethd/profiles.available/*.json "$W/prof/" &&
	sed -i '/"Verdicts on the test bed/{n;n;s/"- [a-z-]*/"- typed-over/}' "$W/prof/displaylink.json"
USBETH_DOCS_PROFILES=$W/prof /usr/bin/python3 "$T" --check > "$W/out3" 2>&1
ktap_check typed_verdict_fails grep -q 'displaylink.json differs from its data' "$W/out3"
# the per-boot appendix is a generated page of its own: one --boots block,
# a section per data file
ktap_check boots_block_per_file test "$(sed -n '/<!-- generated: bench-report.py --boots -->/,/<!-- end generated -->/p' \
	"$USBETH_TOP/docs/performance-boots.md" | grep -c '^### .*\.txt$')" -eq "$(ls "$USBETH_TOP"/docs/performance/*.txt | wc -l)"
# a plot the page links but that is not there fails the check
{ cat "$USBETH_TOP/docs/performance.md"; echo '![gone](performance/no-such-plot.png)'; } > "$W/page2.md"
USBETH_DOCS_PAGE=$W/page2.md /usr/bin/python3 "$T" --check > "$W/out3" 2>&1
ktap_check missing_plot_fails grep -q 'docs/performance/no-such-plot.png is linked but missing' "$W/out3"
# and so does a plot in docs/performance/ that the page no longer links
sed '/(performance\/across-e1000e.png)/d' "$USBETH_TOP/docs/performance-boots.md" > "$W/page3.md"
USBETH_DOCS_BOOTS=$W/page3.md /usr/bin/python3 "$T" --check > "$W/out4" 2>&1
ktap_check unlinked_plot_fails grep -q 'docs/performance/across-e1000e.png is linked by nothing' "$W/out4"
ktap_finish
