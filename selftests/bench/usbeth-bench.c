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
 *	sysfs write from C; twice: re-applying the device's current values
 *	(usbeth skips a value the driver already holds, sysfs writes do not)
 *	and alternating two sets of values (every way makes the driver work).
 *   usbeth-bench dump [ROUNDS ITERS]
 *	nanoseconds per device of a full dump of this netns.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
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

struct method_times {
	double set, sh, raw6, raw1;
};

/*
 * One scenario: values v[0] on every iteration (alt false: a re-apply, as a
 * udev rule does on each event), or v[0] and v[1] in turn (alt true: the
 * driver does real work whichever way the values arrive).
 */
static struct method_times run_scenario(struct usbeth *u, const char *dev,
					struct knob k[2][NKNOBS],
					const struct usbeth_set req[2],
					char script[2][2048], bool alt,
					int rounds, int iters)
{
	double *t[4];
	struct method_times m;
	int i, j, r, err, sh_iters = iters / 10 > 0 ? iters / 10 : 1;

	for (i = 0; i < 4; i++)
		if (!(t[i] = calloc(rounds, sizeof(double))))
			die("calloc", ENOMEM);
	for (r = 0; r < rounds; r++) {
		double t0;

		t0 = now_ns();
		for (i = 0; i < iters; i++) {
			err = usbeth_set(u, &req[alt && (i & 1)], NULL);
			if (err)
				die(usbeth_errmsg(u)[0] ? usbeth_errmsg(u) : "set", err);
		}
		t[0][r] = (now_ns() - t0) / iters;

		t0 = now_ns();
		for (i = 0; i < iters; i++) {
			struct knob *kk = k[alt && (i & 1)];

			for (j = 0; j < NKNOBS; j++)
				if ((err = write_file(kk[j].path, kk[j].val)))
					die(kk[j].path, err);
		}
		t[1][r] = (now_ns() - t0) / iters;

		t0 = now_ns();
		for (i = 0; i < iters; i++) {
			struct knob *kk = &k[alt && (i & 1)][1];

			if ((err = write_file(kk->path, kk->val)))
				die(kk->path, err);
		}
		t[2][r] = (now_ns() - t0) / iters;

		t0 = now_ns();
		for (i = 0; i < sh_iters; i++) {
			char *argv[] = { "sh", "-c", script[alt && (i & 1)], NULL };
			int status;
			pid_t pid;

			err = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
			if (err)
				die("posix_spawn", err);
			if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
				die("the shell way failed", EIO);
		}
		t[3][r] = (now_ns() - t0) / sh_iters;
	}
	m.set = median(t[0], rounds);
	m.raw6 = median(t[1], rounds);
	m.raw1 = median(t[2], rounds);
	m.sh = median(t[3], rounds);
	for (i = 0; i < 4; i++)
		free(t[i]);
	(void)dev;
	return m;
}

static void report(const char *what, const struct method_times *m)
{
	printf("# %s\n", what);
	printf("#   usbeth, one SET request      %10.1f us\n", m->set / 1e3);
	printf("#   shell (udev RUN, sh -c)      %10.1f us\n", m->sh / 1e3);
	printf("#   raw sysfs from C, 6 writes   %10.1f us\n", m->raw6 / 1e3);
	printf("#   raw sysfs from C, 1 write    %10.1f us\n", m->raw1 / 1e3);
	printf("#   ratio usbeth/shell        = %.3f (target <= 0.20)\n", m->set / m->sh);
	printf("#   ratio usbeth/raw 6 writes = %.3f\n", m->set / m->raw6);
	printf("#   ratio usbeth/raw 1 write  = %.3f (target <= 2.0)\n", m->set / m->raw1);
}

static void bench_set(const char *dev, int rounds, int iters)
{
	static const char * const files[NKNOBS] = {
		"cdc_ncm/rx_max", "cdc_ncm/tx_max", "cdc_ncm/tx_timer_usecs",
		"queues/tx-0/byte_queue_limits/limit_min",
		"queues/tx-0/byte_queue_limits/limit_max",
		"queues/tx-0/byte_queue_limits/hold_time",
	};
	static const int attrs[NKNOBS] = {
		USBETH_A_NTB_RX_MAX, USBETH_A_NTB_TX_MAX, USBETH_A_TX_TIMER_USECS,
		USBETH_A_BQL_LIMIT_MIN, USBETH_A_BQL_LIMIT_MAX, USBETH_A_BQL_HOLD_TIME,
	};
	static struct knob k[2][NKNOBS];
	static char script[2][2048];
	struct usbeth_set req[2] = { { .ifname = dev }, { .ifname = dev } };
	struct method_times same, alt;
	struct usbeth_dev d;
	struct usbeth *u;
	uint32_t vals[2][NKNOBS];
	int i, v, err;

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
	/* v[0]: what the device holds now; v[1]: other valid values */
	vals[0][0] = d.ntb_rx_max;
	vals[0][1] = d.ntb_tx_max;
	vals[0][2] = d.tx_timer_usecs;
	vals[0][3] = d.bql_queues[0].limit_min;
	vals[0][4] = d.bql_queues[0].limit_max;
	vals[0][5] = d.bql_queues[0].hold_time_ms;
	usbeth_dev_free(&d);
	vals[1][0] = vals[0][0] / 2 >= 4096 ? vals[0][0] / 2 : 8192;
	vals[1][1] = vals[0][1] / 2 >= 4096 ? vals[0][1] / 2 + 3 : 8195;
	vals[1][2] = vals[0][2] == 400 ? 800 : 400;
	vals[1][3] = vals[0][3] ? 0 : 1000;
	vals[1][4] = vals[0][4] == 100000 ? 200000 : 100000;
	vals[1][5] = vals[0][5] == 2000 ? 1000 : 2000;
	for (v = 0; v < 2; v++) {
		script[v][0] = '\0';
		for (i = 0; i < NKNOBS; i++) {
			size_t used = strlen(script[v]);

			usbeth_set_value(&req[v], attrs[i], vals[v][i]);
			snprintf(k[v][i].path, sizeof(k[v][i].path), "/sys/class/net/%s/%s",
				 dev, files[i]);
			snprintf(k[v][i].val, sizeof(k[v][i].val), "%u", vals[v][i]);
			if ((size_t)snprintf(script[v] + used, sizeof(script[v]) - used,
					     "echo %s > %s; ", k[v][i].val, k[v][i].path) >=
			    sizeof(script[v]) - used)
				die("shell script too long", E2BIG);
		}
	}

	same = run_scenario(u, dev, k, req, script, false, rounds, iters);
	alt = run_scenario(u, dev, k, req, script, true, rounds, iters);
	usbeth_close(u);

	printf("# set of 6 knobs (ntb rx/tx, tx timer, BQL min/max/hold) on %s,\n", dev);
	printf("# median of %d rounds of %d iterations (shell: %d), methods interleaved\n",
	       rounds, iters, iters / 10 > 0 ? iters / 10 : 1);
	report("same values every time (a re-apply, as a udev rule does per event)", &same);
	report("values alternating every time (the driver does real work each time)", &alt);
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
