/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd's test hooks: environment variables that make the daemon fail or
 * kill itself at a chosen point, for the selftests (selftests/usbethd.sh,
 * usbethd_durable.sh; usbethd/README.md). They are compiled only with
 * -DUSBETHD_TEST_HOOKS, into usbethd-hooks, the build the tests run when
 * they set one; the usbethd that is installed and shipped has the no-op
 * stubs below and reads none of them.
 *
 *   USBETHD_TEST_KILL_AT=before-first-set|after-first-set
 *       SIGKILL itself at that point of the first evaluation that changes
 *       a device, as an OOM kill or a crash would: what is on disk then is
 *       all a restarted daemon has.
 *   USBETHD_TEST_DUMP_FAIL=N
 *       the first N dumps of the devices fail, as a dump interrupted again
 *       and again.
 */
#ifndef USBETHD_TESTHOOKS_H
#define USBETHD_TESTHOOKS_H

#include <stdbool.h>

#ifdef USBETHD_TEST_HOOKS

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* POINT is "before-first-set" or "after-first-set" (apply.c). */
static inline void test_kill_at(const char *point)
{
	const char *at = getenv("USBETHD_TEST_KILL_AT");

	if (at && !strcmp(at, point)) {
		ulog(LOG_P_WARNING, "USBETHD_TEST_KILL_AT=%s: killed", point);
		kill(getpid(), SIGKILL);
	}
}

/* true: fail this dump (resync(), the one caller: the count is its own) */
static inline bool test_dump_fails(void)
{
	static long left = -1;

	if (left < 0) {
		const char *n = getenv("USBETHD_TEST_DUMP_FAIL");

		left = n ? strtol(n, NULL, 10) : 0;
		if (left < 0)
			left = 0;
	}
	if (!left)
		return false;
	left--;
	return true;
}

#else /* the shipped daemon: no hooks */

static inline void test_kill_at(const char *point)
{
	(void)point;
}

static inline bool test_dump_fails(void)
{
	return false;
}

#endif /* USBETHD_TEST_HOOKS */

#endif /* USBETHD_TESTHOOKS_H */
