/* SPDX-License-Identifier: GPL-2.0 */
/* usbethd's log (log.c) and clock. */
#ifndef USBETHD_LOG_H
#define USBETHD_LOG_H

#include <stdint.h>

/* syslog priorities, for the log prefix journald understands */
#define LOG_P_ERR	3
#define LOG_P_WARNING	4
#define LOG_P_NOTICE	5
#define LOG_P_INFO	6
#define LOG_P_DEBUG	7

/* One line: fmt's result, escaped, with "<prio>" under journald. */
__attribute__((format(printf, 2, 3)))
void ulog(int prio, const char *fmt, ...);
extern int ulog_level;		/* messages above it are dropped */

/* CLOCK_MONOTONIC, microseconds. */
uint64_t now_us(void);

#endif /* USBETHD_LOG_H */
