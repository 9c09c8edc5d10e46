// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's log: one line per write to standard error, with the syslog
 * priority prefix journald reads when JOURNAL_STREAM is set, every byte
 * of it made safe (usbeth_escape()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "usbeth.h"

int ulog_level = LOG_P_INFO;

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

void ulog(int prio, const char *fmt, ...)
{
	static int journal = -1;
	char msg[1024], buf[1100];
	va_list ap;
	int n = 0;
	size_t m;

	if (prio > ulog_level)
		return;
	if (journal < 0)
		journal = getenv("JOURNAL_STREAM") != NULL;
	if (journal)
		n = snprintf(buf, sizeof(buf), "<%d>", prio);
	va_start(ap, fmt);
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		msg[0] = 0;
	va_end(ap);
	/* profile keys, file and device names are anyone's bytes: a newline
	 * and "<0>" in one would forge a journal line of its own
	 */
	m = usbeth_escape(buf + n, sizeof(buf) - (size_t)n - 1, msg);
	m += (size_t)n;
	buf[m++] = '\n';
	/* one write per line: readers of a pipe see whole lines */
	while (write(STDERR_FILENO, buf, m) < 0 && errno == EINTR)
		;
}
