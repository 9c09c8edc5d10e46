// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd and its service manager: the signals it sends (SIGHUP: reload;
 * SIGTERM, SIGINT: stop), read from a signalfd in the poll loop, and what
 * the daemon tells it (sd_notify: READY, RELOADING, STOPPING). See
 * daemon.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon.h"

void sd_notify_msg(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = 0;	/* abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		ulog(LOG_P_WARNING, "sd_notify: %s", strerror(errno));
	close(fd);
}

/* The signals blocked, and a signalfd for them: the fd, or -1 (logged). */
int signals_open(void)
{
	sigset_t mask;
	int sfd;

	/* signals blocked before anything else: a SIGHUP or SIGTERM that
	 * comes while the daemon waits for state.lock or loads its profiles
	 * is handled once it runs, never its death
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		ulog(LOG_P_ERR, "signalfd: %s", strerror(errno));
	return sfd;
}

/* Handles every signal queued: 1 when the daemon is to stop (what it
 * changed restored, with --on-stop restore), else 0.
 */
int signals_read(struct daemon *dm, int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			char msg[64];

			/* MONOTONIC_USEC: what Type=notify-reload
			 * wants to tell this reload from an older one
			 */
			snprintf(msg, sizeof(msg), "RELOADING=1\n"
				 "MONOTONIC_USEC=%llu",
				 (unsigned long long)now_us());
			sd_notify_msg(msg);
			reload(dm);
			sd_notify_msg("READY=1");
			continue;
		}
		sd_notify_msg("STOPPING=1");
		ulog(LOG_P_INFO, "stopping (%s): %s",
		     strsignal((int)si.ssi_signo), restore_on_stop ?
		     "restoring original values" : "keeping values");
		if (restore_on_stop)
			engine_restore_all(&dm->e);
		return 1;
	}
	return 0;
}
