// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd-lat: the userspace side of selftests/bench/usbethd_bench.sh, which
 * times every handler from the kernel's NEW notification (a kprobe, in
 * CLOCK_MONOTONIC) to its result, so that no listener but the one measured
 * runs when a device appears.
 *
 *   usbethd-lat wake N          the floor of any handler: on each of N NEWs
 *                               of usb-host netdevs, print when it was read,
 *                               and nothing else
 *   usbethd-lat setter          the floor of any usbeth client: on each NEW
 *                               of a usb-host netdev, one usbeth SET of what
 *                               the modem profile sets (tx-timer-usecs 50,
 *                               bql-limit-max 8192), then print; runs until
 *                               killed
 *   usbethd-lat spawn N SCRIPT  the udev-style baseline: on each NEW, spawn
 *                               /bin/sh -c SCRIPT (IFACE=ifname in its
 *                               environment) and print when it exited
 *
 * Prints "ready" once subscribed, then per event "MODE IFNAME T" (T: CLOCK_
 * MONOTONIC microseconds when the NEW was read, the SET returned or the
 * shell exited; for the setter a fourth field, the SET's errno or 0).
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

enum mode { WAKE, SETTER, SPAWN };

struct st {
	enum mode mode;
	struct usbeth *u;
	const char *script;
	unsigned int want, done;
};

static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

static int cb(void *arg, int cmd, const struct usbeth_dev *d)
{
	struct st *s = arg;
	struct usbeth_set set = { .ifindex = d->ifindex };
	long long t;
	int err;
	pid_t pid;

	if (cmd != USBETH_CMD_NEW_NTF || d->role != USBETH_ROLE_USB_HOST)
		return 0;
	switch (s->mode) {
	case WAKE:
		t = now_us();
		printf("wake %s %lld\n", d->ifname, t);
		break;
	case SETTER:
		usbeth_set_value(&set, USBETH_A_TX_TIMER_USECS, 50);
		usbeth_set_value(&set, USBETH_A_BQL_LIMIT_MAX, 8192);
		err = usbeth_set(s->u, &set, NULL);
		t = now_us();
		printf("setter %s %lld %d\n", d->ifname, t, -err);
		break;
	case SPAWN:
		pid = fork();
		if (pid == 0) {
			setenv("IFACE", d->ifname, 1);
			execl("/bin/sh", "sh", "-c", s->script, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		t = now_us();
		printf("spawn %s %lld\n", d->ifname, t);
		break;
	}
	fflush(stdout);
	s->done++;
	return s->done >= s->want;
}

int main(int argc, char **argv)
{
	struct st s = { 0 };
	struct usbeth_mon *m;
	int err;

	if (argc == 2 && !strcmp(argv[1], "setter")) {
		s.mode = SETTER;
		s.want = ~0U;
		err = usbeth_open(&s.u);
		if (err) {
			fprintf(stderr, "usbethd-lat: %s\n", strerror(-err));
			return 2;
		}
	} else if (argc == 3 && !strcmp(argv[1], "wake")) {
		s.mode = WAKE;
		s.want = (unsigned int)strtoul(argv[2], NULL, 10);
	} else if (argc == 4 && !strcmp(argv[1], "spawn")) {
		s.mode = SPAWN;
		s.want = (unsigned int)strtoul(argv[2], NULL, 10);
		s.script = argv[3];
	} else {
		fprintf(stderr, "usage: usbethd-lat wake N | setter | "
			"spawn N SCRIPT\n");
		return 1;
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

		if (poll(&p, 1, s.mode == SETTER ? -1 : 120000) <= 0) {
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
