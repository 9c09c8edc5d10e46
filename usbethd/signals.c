// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd and its service manager: the signals it sends (SIGHUP: reload;
 * SIGTERM, SIGINT: stop), read from a signalfd and handed to the poll
 * loop as events, and what the daemon tells it (sd_notify: READY,
 * RELOADING, STOPPING). See daemon.h.
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

void sd_notify_reloading(void)
{
	char msg[64];

	/* MONOTONIC_USEC: what Type=notify-reload wants to tell this
	 * reload from an older one
	 */
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)now_us());
	sd_notify_msg(msg);
}

/* Reads one signal: SIGHUP asks for a reload, SIGTERM and SIGINT for the
 * stop (the loop tells systemd, and restores, with --on-stop restore).
 */
int signals_read(int sfd, struct evq *q)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	if (si.ssi_signo == SIGHUP)
		evq_push(q, EV_RELOAD);
	else
		evq_push(q, EV_STOP)->signo = (int)si.ssi_signo;
	return 1;
}
