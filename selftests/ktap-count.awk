# SPDX-License-Identifier: GPL-2.0
# Count KTAP results: leaves (a subtest, or a top-level test without
# subtests) as passed/failed/skipped. A top-level test that failed while none
# of its subtests did (a bail out, a timeout, a crash) counts one failure.
# Prints "PASS FAIL SKIP".
function flush_top(line,   failed) {
	failed = (line ~ /^not ok/)
	if (nsub == 0) {
		if (failed) f++; else if (line ~ /# SKIP/) s++; else p++
	} else if (failed && subfail == 0) {
		f++
	}
	nsub = 0; subfail = 0
}
/^  +(not )?ok [0-9]+/ {
	# only direct children of a top-level test (two spaces)
	if ($0 ~ /^   /) next
	nsub++
	if ($0 ~ /^  not ok/) { f++; subfail++ }
	else if ($0 ~ /# SKIP/) s++
	else p++
	next
}
/^(not )?ok [0-9]+/ { flush_top($0); next }
END { printf "%d %d %d\n", p, f, s }
