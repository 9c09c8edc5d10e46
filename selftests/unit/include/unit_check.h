/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Assertions for the C unit tests (lib/, ip-extensions/, usbethd/): each
 * failed check prints a KTAP diagnostic line and marks the current test
 * (cur_ok) failed; unit_run() runs a table of tests and prints the KTAP
 * result lines.
 */
#ifndef USBETH_UNIT_CHECK_H
#define USBETH_UNIT_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool cur_ok;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: failed: %s\n", __FILE__, __LINE__,	\
		       #cond);						\
		cur_ok = false;						\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		printf("# %s:%d: failed: %s == %s (%lld != %lld)\n",	\
		       __FILE__, __LINE__, #a, #b, _a, _b);		\
		cur_ok = false;						\
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (!_a || !_b || strcmp(_a, _b)) {				\
		printf("# %s:%d: failed: %s == \"%s\" (got \"%s\")\n",	\
		       __FILE__, __LINE__, #a, _b ? _b : "(null)",	\
		       _a ? _a : "(null)");				\
		cur_ok = false;						\
	}								\
} while (0)

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* Every test of the table, as KTAP; what main() returns. */
static inline int unit_run(const struct unit_test *tests, size_t n)
{
	size_t i, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		cur_ok = true;
		tests[i].fn();
		if (!cur_ok)
			failed++;
		printf("%sok %zu %s\n", cur_ok ? "" : "not ", i + 1,
		       tests[i].name);
	}
	printf("# totals: pass:%zu fail:%zu skip:0\n", n - failed, failed);
	return failed ? 1 : 0;
}

#endif /* USBETH_UNIT_CHECK_H */
