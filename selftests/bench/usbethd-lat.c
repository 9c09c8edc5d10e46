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
 *   usbethd-lat setter          the floor, measured by "daemon" in another
 *                               process as usbethd is: on each NEW of a
 *                               usb-host netdev, one usbeth SET of what the
 *                               modem profile sets (tx-timer-usecs 50,
 *                               bql-limit-max 8192) and nothing else; runs
 *                               until killed
 *
 * Prints "ready" once subscribed, then "lat IFNAME USECS T0" per event (T0:
 * when it parsed the NEW, CLOCK_MONOTONIC microseconds, to line it up with
 * the daemon's own timing).
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
	int spawn, setter;
	struct usbeth *u;
	const char *script;
	unsigned int want, done;
	uint32_t pending;	/* ifindex waiting for its CHANGE, 0 none */
	char ifname[USBETH_IFNAMSIZ];
	struct timespec t0;
};

static long long usecs(const struct timespec *t)
{
	return t->tv_sec * 1000000LL + t->tv_nsec / 1000;
}

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

	if (s->setter) {
		struct usbeth_set set = { .ifindex = d->ifindex };

		if (cmd != USBETH_CMD_NEW_NTF || d->role != USBETH_ROLE_USB_HOST)
			return 0;
		usbeth_set_value(&set, USBETH_A_TX_TIMER_USECS, 50);
		usbeth_set_value(&set, USBETH_A_BQL_LIMIT_MAX, 8192);
		usbeth_set(s->u, &set, NULL);
		return 0;
	}

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
		printf("lat %s %lld %lld\n", s->ifname, usecs_since(&s->t0),
		       usecs(&s->t0));
		fflush(stdout);
		s->done++;
	} else if (cmd == USBETH_CMD_CHANGE_NTF && s->pending &&
		   d->ifindex == s->pending) {
		printf("lat %s %lld %lld\n", s->ifname, usecs_since(&s->t0),
		       usecs(&s->t0));
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

	if (argc == 2 && !strcmp(argv[1], "setter")) {
		s.setter = 1;
		s.want = ~0U;
		err = usbeth_open(&s.u);
		if (err) {
			fprintf(stderr, "usbethd-lat: %s\n", strerror(-err));
			return 2;
		}
	} else if (argc < 3 || (strcmp(argv[1], "daemon") &&
				strcmp(argv[1], "spawn")) ||
		   (!strcmp(argv[1], "spawn") && argc < 4)) {
		fprintf(stderr, "usage: usbethd-lat daemon N | spawn N SCRIPT | "
			"setter\n");
		return 1;
	} else {
		s.spawn = !strcmp(argv[1], "spawn");
		s.want = (unsigned int)strtoul(argv[2], NULL, 10);
		s.script = s.spawn ? argv[3] : NULL;
	}
	err = usbeth_monitor_open(&m);
	if (err) {
		fprintf(stderr, "usbethd-lat: monitor: %s\n", strerror(-err));
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (s.done < s.want) {
		struct pollfd p = { usbeth_monitor_fd(m), POLLIN, 0 };

		if (poll(&p, 1, s.setter ? -1 : 120000) <= 0) {
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
