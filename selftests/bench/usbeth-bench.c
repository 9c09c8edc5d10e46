// SPDX-License-Identifier: GPL-2.0
/*
 * usbeth-bench: cost of one usbeth SET against the ways people set the same
 * knobs today, and cost of a dump per device. Prints figures and ratios
 * measured in one run, the methods interleaved round by round and the
 * median kept, because the machine is shared and noisy. Asserts nothing.
 *
 *   usbeth-bench set DEV [ROUNDS ITERS]
 *	one SET carrying ntb-rx-max, ntb-tx-max, tx-timer-usecs and BQL
 *	limit-min, limit-max, hold-time (DEV: a cdc_ncm netdev), against
 *	the same six values written by a shell the way a udev RUN rule does
 *	(one sh -c per event), six raw sysfs writes from C, and one raw
 *	sysfs write from C. The values are the device's current ones, so the
 *	driver does the same (idempotent) work whichever way they arrive.
 *   usbeth-bench dump [ROUNDS ITERS]
 *	nanoseconds per device of a full dump of this netns.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "usbeth.h"

extern char **environ;

#define NKNOBS 6

struct knob {
	char path[256];
	char val[16];
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "usbeth-bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return (errno || *end || s[0] == '-' || *out > max) ? -1 : 0;
}

static void bench_set(const char *dev, int rounds, int iters)
{
	static const char * const files[NKNOBS] = {
		"cdc_ncm/rx_max", "cdc_ncm/tx_max", "cdc_ncm/tx_timer_usecs",
		"queues/tx-0/byte_queue_limits/limit_min",
		"queues/tx-0/byte_queue_limits/limit_max",
		"queues/tx-0/byte_queue_limits/hold_time",
	};
	double *t_set = calloc(rounds, sizeof(double)), *t_raw6 = calloc(rounds, sizeof(double));
	double *t_raw1 = calloc(rounds, sizeof(double)), *t_sh = calloc(rounds, sizeof(double));
	struct usbeth_set req = { .ifname = dev };
	struct knob k[NKNOBS];
	struct usbeth_dev d;
	struct usbeth *u;
	char script[2048] = "";
	uint32_t vals[NKNOBS];
	int i, r, err, sh_iters = iters / 10 > 0 ? iters / 10 : 1;

	if (!t_set || !t_raw6 || !t_raw1 || !t_sh)
		die("calloc", ENOMEM);
	err = usbeth_open(&u);
	if (err)
		die("usbeth_open", err);
	err = usbeth_get(u, 0, dev, &d);
	if (err)
		die(usbeth_errmsg(u)[0] ? usbeth_errmsg(u) : "get", err);
	if (!usbeth_dev_has(&d, USBETH_A_NTB_RX_MAX) || d.n_bql_queues < 1) {
		fprintf(stderr, "usbeth-bench: %s is not a cdc_ncm netdev with BQL\n", dev);
		exit(1);
	}
	vals[0] = d.ntb_rx_max;
	vals[1] = d.ntb_tx_max;
	vals[2] = d.tx_timer_usecs;
	vals[3] = d.bql_queues[0].limit_min;
	vals[4] = d.bql_queues[0].limit_max;
	vals[5] = d.bql_queues[0].hold_time_ms;
	usbeth_dev_free(&d);
	usbeth_set_value(&req, USBETH_A_NTB_RX_MAX, vals[0]);
	usbeth_set_value(&req, USBETH_A_NTB_TX_MAX, vals[1]);
	usbeth_set_value(&req, USBETH_A_TX_TIMER_USECS, vals[2]);
	usbeth_set_value(&req, USBETH_A_BQL_LIMIT_MIN, vals[3]);
	usbeth_set_value(&req, USBETH_A_BQL_LIMIT_MAX, vals[4]);
	usbeth_set_value(&req, USBETH_A_BQL_HOLD_TIME, vals[5]);
	for (i = 0; i < NKNOBS; i++) {
		size_t used = strlen(script);

		snprintf(k[i].path, sizeof(k[i].path), "/sys/class/net/%s/%s", dev, files[i]);
		snprintf(k[i].val, sizeof(k[i].val), "%u", vals[i]);
		if ((size_t)snprintf(script + used, sizeof(script) - used, "echo %s > %s; ",
				     k[i].val, k[i].path) >= sizeof(script) - used)
			die("shell script too long", E2BIG);
	}

	for (r = 0; r < rounds; r++) {
		double t0;

		t0 = now_ns();
		for (i = 0; i < iters; i++) {
			err = usbeth_set(u, &req, NULL);
			if (err)
				die(usbeth_errmsg(u)[0] ? usbeth_errmsg(u) : "set", err);
		}
		t_set[r] = (now_ns() - t0) / iters;

		t0 = now_ns();
		for (i = 0; i < iters; i++)
			for (int j = 0; j < NKNOBS; j++)
				if ((err = write_file(k[j].path, k[j].val)))
					die(k[j].path, err);
		t_raw6[r] = (now_ns() - t0) / iters;

		t0 = now_ns();
		for (i = 0; i < iters; i++)
			if ((err = write_file(k[1].path, k[1].val)))
				die(k[1].path, err);
		t_raw1[r] = (now_ns() - t0) / iters;

		t0 = now_ns();
		for (i = 0; i < sh_iters; i++) {
			char *argv[] = { "sh", "-c", script, NULL };
			int status;
			pid_t pid;

			err = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
			if (err)
				die("posix_spawn", err);
			if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
				die("the shell way failed", EIO);
		}
		t_sh[r] = (now_ns() - t0) / sh_iters;
	}
	usbeth_close(u);

	double set = median(t_set, rounds), raw6 = median(t_raw6, rounds);
	double raw1 = median(t_raw1, rounds), sh = median(t_sh, rounds);

	printf("# set of 6 knobs on %s, median of %d rounds (%d iterations; shell %d)\n",
	       dev, rounds, iters, sh_iters);
	printf("#   usbeth, one SET request      %10.1f us\n", set / 1e3);
	printf("#   shell (udev RUN, sh -c)      %10.1f us\n", sh / 1e3);
	printf("#   raw sysfs from C, 6 writes   %10.1f us\n", raw6 / 1e3);
	printf("#   raw sysfs from C, 1 write    %10.1f us\n", raw1 / 1e3);
	printf("# ratio usbeth/shell          = %.3f (target <= 0.20)\n", set / sh);
	printf("# ratio usbeth/raw 6 writes   = %.3f\n", set / raw6);
	printf("# ratio usbeth/raw 1 write    = %.3f (target <= 2.0)\n", set / raw1);
	free(t_set);
	free(t_raw6);
	free(t_raw1);
	free(t_sh);
}

static void bench_dump(int rounds, int iters)
{
	double *t = calloc(rounds, sizeof(double));
	struct usbeth_dev *devs;
	struct usbeth *u;
	size_t n = 0;
	int r, i, err;

	if (!t)
		die("calloc", ENOMEM);
	err = usbeth_open(&u);
	if (err)
		die("usbeth_open", err);
	for (r = 0; r < rounds; r++) {
		double t0 = now_ns();

		for (i = 0; i < iters; i++) {
			err = usbeth_dump(u, &devs, &n);
			if (err)
				die("dump", err);
			usbeth_devs_free(devs, n);
		}
		t[r] = (now_ns() - t0) / iters / (n ? n : 1);
	}
	usbeth_close(u);
	printf("devices=%zu ns_per_device=%.0f\n", n, median(t, rounds));
	free(t);
}

int main(int argc, char **argv)
{
	unsigned long rounds = 7, iters = 200;

	if (argc >= 2 && !strcmp(argv[1], "set") && (argc == 3 || argc == 5)) {
		if (argc == 5 && (parse_uint(argv[3], 1000, &rounds) || parse_uint(argv[4], 1000000, &iters) ||
				  !rounds || !iters))
			goto usage;
		bench_set(argv[2], rounds, iters);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "dump") && (argc == 2 || argc == 4)) {
		if (argc == 4 && (parse_uint(argv[2], 1000, &rounds) || parse_uint(argv[3], 1000000, &iters) ||
				  !rounds || !iters))
			goto usage;
		bench_dump(rounds, iters);
		return 0;
	}
usage:
	fprintf(stderr, "usage: usbeth-bench set DEV [ROUNDS ITERS] | dump [ROUNDS ITERS]\n");
	return 1;
}
