// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd-lat: hotplug-to-applied latency, for selftests/bench/usbethd_bench.sh.
 *
 *   usbethd-lat daemon N        for N NEW notifications of usb-host netdevs:
 *                               the time from the NEW to the CHANGE that
 *                               usbethd's set causes on the same netdev
 *   usbethd-lat spawn N SCRIPT  the udev-style baseline: on each NEW, spawn
 *                               /bin/sh -c SCRIPT (IFACE=ifname in its
 *                               environment) and time it to its exit
 *
 * Prints "ready" once subscribed, then "lat IFNAME USECS" per event.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "usbeth.h"

struct st {
	int spawn;
	const char *script;
	unsigned int want, done;
	uint32_t pending;	/* ifindex waiting for its CHANGE, 0 none */
	char ifname[USBETH_IFNAMSIZ];
	struct timespec t0;
};

static long long usecs_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000LL +
	       (t.tv_nsec - t0->tv_nsec) / 1000;
}

static int cb(void *arg, int cmd, const struct usbeth_dev *d)
{
	struct st *s = arg;

	if (cmd == USBETH_CMD_NEW_NTF && d->role == USBETH_ROLE_USB_HOST) {
		clock_gettime(CLOCK_MONOTONIC, &s->t0);
		snprintf(s->ifname, sizeof(s->ifname), "%s", d->ifname);
		if (!s->spawn) {
			s->pending = d->ifindex;
			return 0;
		}
		pid_t pid = fork();

		if (pid == 0) {
			setenv("IFACE", d->ifname, 1);
			execl("/bin/sh", "sh", "-c", s->script, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		printf("lat %s %lld\n", s->ifname, usecs_since(&s->t0));
		fflush(stdout);
		s->done++;
	} else if (cmd == USBETH_CMD_CHANGE_NTF && s->pending &&
		   d->ifindex == s->pending) {
		printf("lat %s %lld\n", s->ifname, usecs_since(&s->t0));
		fflush(stdout);
		s->pending = 0;
		s->done++;
	}
	return s->done >= s->want;
}

int main(int argc, char **argv)
{
	struct st s = { 0 };
	struct usbeth_mon *m;
	int err;

	if (argc < 3 || (strcmp(argv[1], "daemon") && strcmp(argv[1], "spawn")) ||
	    (!strcmp(argv[1], "spawn") && argc < 4)) {
		fprintf(stderr, "usage: usbethd-lat daemon N | spawn N SCRIPT\n");
		return 1;
	}
	s.spawn = !strcmp(argv[1], "spawn");
	s.want = (unsigned int)strtoul(argv[2], NULL, 10);
	s.script = s.spawn ? argv[3] : NULL;
	err = usbeth_monitor_open(&m);
	if (err) {
		fprintf(stderr, "usbethd-lat: monitor: %s\n", strerror(-err));
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (s.done < s.want) {
		struct pollfd p = { usbeth_monitor_fd(m), POLLIN, 0 };

		if (poll(&p, 1, 120000) <= 0) {
			fprintf(stderr, "usbethd-lat: no event for 120 s\n");
			break;
		}
		err = usbeth_monitor_read(m, cb, &s);
		if (err < 0 && err != -EBADMSG) {
			fprintf(stderr, "usbethd-lat: %s\n", strerror(-err));
			break;
		}
	}
	usbeth_monitor_close(m);
	return s.done >= s.want ? 0 : 1;
}
