// SPDX-License-Identifier: GPL-2.0
/*
 * usbethctl: a thin test tool over libusbeth with machine-friendly output,
 * for the VM tests. Not the user CLI (that is ip-extensions/).
 *
 *   usbethctl family              family=usbeth id=N version=V monitor_group=G
 *   usbethctl get [-n COUNT] [-W FILE=VALUE] DEV
 *                                 key=value per line, present fields only
 *                                 (of the last of COUNT GETs; VALUE written
 *                                 to FILE after the first)
 *   usbethctl dump                one line per netdev (bql_queues=N where it
 *                                 has BQL state), then count=N redone=R
 *   usbethctl dumpcount [-b CMD]  count=N redone=R (R: times the dump was
 *                                 redone, flagged interrupted). -b: run the
 *                                 shell command CMD once, after the dump's
 *                                 first datagram is read and before the
 *                                 rest are, so that a device change in CMD
 *                                 interrupts that dump for certain.
 *   usbethctl set [-e] [-f N] [-w] DEV KEY=VALUE...
 *                                 KEY: qmult ntb_rx_max ntb_tx_max
 *                                 tx_timer_usecs tx_usecs tx_frames rx_usecs
 *                                 rx_frames bql_queue bql_limit_min
 *                                 bql_limit_max bql_hold_time; VALUE: decimal
 *                                 u32. -e: NLM_F_ECHO, print the echoed state
 *                                 like get. -f N: fault injection (a kernel
 *                                 with FAULT_INJECTION): the Nth fault point
 *                                 the request meets in the kernel fails;
 *                                 prints fault=injected or fault=not-injected.
 *                                 -w: with the family resolved, print
 *                                 "ready" and wait for a line (or EOF) on
 *                                 stdin before sending, so that a test can
 *                                 send it at a moment when starting a
 *                                 program could not run.
 *   usbethctl loop [-n COUNT] DEV KEY=A/B...
 *                                 COUNT rounds (0, the default: until
 *                                 SIGTERM) of a SET with NLM_F_ECHO, each
 *                                 KEY alternating between A and B, then a
 *                                 GET; per request one line "set|get 0
 *                                 ifname=NAME" ("set 0" alone: nothing
 *                                 changed, nothing echoed) or "set|get
 *                                 ERRNO_NAME", and at the end "done
 *                                 rounds=N".
 *   usbethctl monitor [-c COUNT] [-t SECONDS]
 *                                 "ready" once subscribed, then per event
 *                                 "new ifindex=.. ifname=.. role=..",
 *                                 "del ifindex=.. ifname=..",
 *                                 "change ifindex=.. ifname=..", "overrun"
 *                                 when events were lost, "badmsg" for a
 *                                 malformed one.
 *
 * DEV is an ifname, or an ifindex when all digits. String values are printed
 * with bytes outside '!'..'~' and '\' as \xNN.
 *
 * A kernel error prints one line "usbethctl: CMD DEV: <strerror>[: <extack>]"
 * on stderr and "errno=<NAME>" on stdout, then "err_attr=<key>" when the
 * extack points at an attribute of the request and "err_missing_attr=<key>"
 * when it names a missing one, and "left_changed=0x<USBETH_KNOB_BIT_* bits>"
 * when a refused set left knobs changed.
 *
 * Exit: 0 ok; 1 usage error, or monitor timeout; 2 kernel or system error
 * (module not loaded included).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "usbeth.h"

static const char *prog = "usbethctl";

static void usage(void)
{
	fprintf(stderr,
		"usage: %s family\n"
		"       %s get [-n COUNT] [-W FILE=VALUE] DEV\n"
		"       %s dump\n"
		"       %s dumpcount [-b CMD]\n"
		"       %s set [-e] [-f N] [-w] DEV KEY=VALUE...\n"
		"       %s loop [-n COUNT] DEV KEY=A/B...\n"
		"       %s monitor [-c COUNT] [-t SECONDS]\n"
		"DEV: ifname, or ifindex if all digits\n"
		"KEY: qmult ntb_rx_max ntb_tx_max tx_timer_usecs tx_usecs "
		"tx_frames\n"
		"     rx_usecs rx_frames bql_queue bql_limit_min "
		"bql_limit_max bql_hold_time\n",
		prog, prog, prog, prog, prog, prog, prog);
	exit(1);
}

__attribute__((format(printf, 1, 2)))
static void usage_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage();
}

/* Strict decimal u32: digits only, no sign, no space, no overflow. */
static bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

struct devarg {
	const char *arg;
	uint32_t ifindex;
	const char *ifname;
};

static void parse_devarg(const char *arg, struct devarg *d)
{
	size_t n = strnlen(arg, USBETH_IFNAMSIZ);

	d->arg = arg;
	d->ifindex = 0;
	d->ifname = NULL;
	if (n && strspn(arg, "0123456789") == strlen(arg)) {
		if (!parse_u32(arg, &d->ifindex) || !d->ifindex)
			usage_err("bad ifindex '%s'", arg);
		return;
	}
	if (n == 0 || n >= USBETH_IFNAMSIZ)
		usage_err("bad device name '%s'", arg);
	d->ifname = arg;
}

/* Prints s with anything but '!'..'~' (and '\') as \xNN. */
static void put_str(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static void put_name(const char *name, uint32_t v)
{
	if (name)
		fputs(name, stdout);
	else
		printf("%" PRIu32, v);
}

static void put_caps(uint32_t caps)
{
	char names[256];

	printf("0x%02" PRIx32, caps);
	usbeth_caps_format(caps, names, sizeof(names));
	if (names[0])
		printf(" %s", names);
}

static int open_or_die(struct usbeth **u)
{
	int err = usbeth_open(u);

	if (err == -ENOENT) {
		fprintf(stderr,
			"%s: usbeth kernel module not loaded: modprobe usbeth\n",
			prog);
		exit(2);
	}
	if (err) {
		fprintf(stderr, "%s: cannot open generic netlink: %s\n", prog,
			strerror(-err));
		exit(2);
	}
	return 0;
}

/* "ntb-rx-max" -> "ntb_rx_max" */
static void put_key(const char *name)
{
	for (; *name; name++)
		putchar(*name == '-' ? '_' : *name);
}

static void print_errno(int err)
{
	const char *name = strerrorname_np(-err);

	if (name)
		printf("errno=%s\n", name);
	else
		printf("errno=%d\n", -err);
}

/* Reports a failed request and exits 2. */
static void fail(struct usbeth *u, const char *what, const char *dev, int err)
{
	const char *msg = u ? usbeth_errmsg(u) : "";
	int attr = u ? usbeth_err_attr(u) : -1;
	int miss = u ? usbeth_err_miss_attr(u) : -1;

	fprintf(stderr, "%s: %s%s%s: %s%s%s\n", prog, what, dev ? " " : "",
		dev ? dev : "", strerror(-err), *msg ? ": " : "", msg);
	print_errno(err);
	if (attr > 0 && usbeth_attr_name(attr)) {
		fputs("err_attr=", stdout);
		put_key(usbeth_attr_name(attr));
		putchar('\n');
	}
	if (miss > 0 && usbeth_attr_name(miss)) {
		fputs("err_missing_attr=", stdout);
		put_key(usbeth_attr_name(miss));
		putchar('\n');
	}
	if (u && usbeth_err_left_changed(u))
		printf("left_changed=0x%x\n", usbeth_err_left_changed(u));
	fflush(stdout);
	usbeth_close(u);
	exit(2);
}

static uint32_t dev_u32(const struct usbeth_dev *d, int attr)
{
	switch (attr) {
	case USBETH_A_IFINDEX:		return d->ifindex;
	case USBETH_A_ROLE:		return d->role;
	case USBETH_A_CAPS:		return d->caps;
	case USBETH_A_USB_SPEED:	return d->usb_speed;
	case USBETH_A_USB_VID:		return d->usb_vid;
	case USBETH_A_USB_PID:		return d->usb_pid;
	case USBETH_A_USB_BUSNUM:	return d->usb_busnum;
	case USBETH_A_GADGET_MAX_SPEED:	return d->gadget_max_speed;
	case USBETH_A_QMULT:		return d->qmult;
	case USBETH_A_QMULT_ACTIVE:	return d->qmult_active;
	case USBETH_A_NTB_RX_MAX:	return d->ntb_rx_max;
	case USBETH_A_NTB_TX_MAX:	return d->ntb_tx_max;
	case USBETH_A_NTB_DEV_RX_MAX:	return d->ntb_dev_rx_max;
	case USBETH_A_NTB_DEV_TX_MAX:	return d->ntb_dev_tx_max;
	case USBETH_A_TX_TIMER_USECS:	return d->tx_timer_usecs;
	case USBETH_A_COAL_TX_USECS:	return d->coal_tx_usecs;
	case USBETH_A_COAL_TX_FRAMES:	return d->coal_tx_frames;
	case USBETH_A_COAL_RX_USECS:	return d->coal_rx_usecs;
	case USBETH_A_COAL_RX_FRAMES:	return d->coal_rx_frames;
	case USBETH_A_BQL_ACCOUNTING:	return d->bql_accounting;
	}
	return 0;
}

static const char *dev_str(const struct usbeth_dev *d, int attr)
{
	switch (attr) {
	case USBETH_A_IFNAME:		return d->ifname;
	case USBETH_A_DRIVER:		return d->driver;
	case USBETH_A_USB_PATH:		return d->usb_path;
	case USBETH_A_GADGET_UDC:	return d->gadget_udc;
	}
	return NULL;
}

static void print_dev(const struct usbeth_dev *d)
{
	size_t i;
	int a;

	for (a = USBETH_A_IFINDEX; a <= USBETH_A_BQL_ACCOUNTING; a++) {
		const char *s = dev_str(d, a);
		uint32_t v = dev_u32(d, a);

		if (!usbeth_dev_has(d, a))
			continue;
		put_key(usbeth_attr_name(a));
		putchar('=');
		switch (a) {
		case USBETH_A_ROLE:
			put_name(usbeth_role_name(v), v);
			break;
		case USBETH_A_CAPS:
			put_caps(v);
			break;
		case USBETH_A_USB_SPEED:
		case USBETH_A_GADGET_MAX_SPEED:
			put_name(usbeth_speed_name(v), v);
			break;
		case USBETH_A_BQL_ACCOUNTING:
			put_name(usbeth_bql_accounting_name(v), v);
			break;
		case USBETH_A_USB_VID:
		case USBETH_A_USB_PID:
			printf("%04" PRIx32, v);
			break;
		default:
			if (s)
				put_str(s);
			else
				printf("%" PRIu32, v);
		}
		putchar('\n');
	}
	for (i = 0; i < d->n_bql_queues; i++) {
		const struct usbeth_bql_queue *q = &d->bql_queues[i];
		static const struct {
			int attr;
			const char *key;
		} qk[] = {
			{ USBETH_A_BQLQ_LIMIT, "limit" },
			{ USBETH_A_BQLQ_INFLIGHT, "inflight" },
			{ USBETH_A_BQLQ_LIMIT_MIN, "limit_min" },
			{ USBETH_A_BQLQ_LIMIT_MAX, "limit_max" },
			{ USBETH_A_BQLQ_HOLD_TIME, "hold_time" },
		};
		const uint32_t vals[] = {
			q->limit, q->inflight, q->limit_min, q->limit_max,
			q->hold_time_ms,
		};
		size_t k;

		for (k = 0; k < sizeof(qk) / sizeof(qk[0]); k++)
			if (q->present & (1U << qk[k].attr))
				printf("bql.%" PRIu32 ".%s=%" PRIu32 "\n",
				       q->index, qk[k].key, vals[k]);
	}
}

/* ---------------------------------------------------------- commands --- */

static int cmd_family(int argc, char **argv)
{
	struct usbeth *u;

	(void)argv;
	if (argc != 1)
		usage();
	open_or_die(&u);
	printf("family=%s id=%u version=%" PRIu32 " monitor_group=%" PRIu32
	       "\n", USBETH_GENL_NAME, (unsigned int)usbeth_family_id(u),
	       usbeth_family_version(u), usbeth_monitor_group(u));
	usbeth_close(u);
	return 0;
}

/*
 * "FILE=VALUE": VALUE and a newline written to FILE in one write(2), as
 * echo would, without a shell; false (errno set) when it failed.
 */
static bool write_file(const char *arg)
{
	const char *eq = strrchr(arg, '=');
	char path[PATH_MAX], buf[256];
	bool ok;
	int fd, n;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(path)) {
		errno = EINVAL;
		return false;
	}
	memcpy(path, arg, eq - arg);
	path[eq - arg] = '\0';
	n = snprintf(buf, sizeof(buf), "%s\n", eq + 1);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		errno = E2BIG;
		return false;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = write(fd, buf, n) == n;
	if (close(fd))
		ok = false;
	return ok;
}

/*
 * get -n COUNT: COUNT GETs on one socket, the last one printed. -W
 * FILE=VALUE: VALUE written to FILE right after the first GET, before the
 * next one, with no process started in between.
 */
static int cmd_get(int argc, char **argv)
{
	const char *wr = NULL;
	struct usbeth_dev d;
	struct devarg dev;
	struct usbeth *u;
	uint32_t count = 1, i;
	int opt, err;

	optind = 1;
	while ((opt = getopt(argc, argv, "n:W:")) != -1) {
		if (opt == 'W')
			wr = optarg;
		else if (opt != 'n' || !parse_u32(optarg, &count) || !count)
			usage();
	}
	if (optind != argc - 1)
		usage();
	parse_devarg(argv[optind], &dev);
	open_or_die(&u);
	for (i = 0; i < count; i++) {
		err = usbeth_get(u, dev.ifindex, dev.ifname, &d);
		if (err)
			fail(u, "get", dev.arg, err);
		if (i + 1 < count)
			usbeth_dev_free(&d);
		if (i == 0 && wr && !write_file(wr)) {
			fprintf(stderr, "%s: -W %s: %s\n", prog, wr, strerror(errno));
			exit(2);
		}
	}
	print_dev(&d);
	usbeth_dev_free(&d);
	usbeth_close(u);
	return 0;
}

/*
 * dumpcount -b: the dump's redo path tested by construction, not by luck
 * against a device that comes and goes in another process (which, on one
 * CPU, may never run in the middle of a dump). This definition of recvmsg()
 * takes precedence over the C library's for the whole program, libusbeth's
 * calls included, and goes to the kernel itself. Armed only around that one
 * dump: once a datagram has been taken off the socket it runs the command,
 * once. The kernel builds the dump's next datagrams as the earlier ones are
 * read, so one built after the command carries NLM_F_DUMP_INTR.
 */
static const char *between_cmd;
static int between_status = -1;

ssize_t recvmsg(int fd, struct msghdr *mh, int flags)
{
	long n = syscall(SYS_recvmsg, fd, mh, flags);

	if (n > 0 && between_cmd && !(flags & MSG_PEEK)) {
		const char *cmd = between_cmd;

		between_cmd = NULL;
		between_status = system(cmd);
	}
	return n;
}

static int cmd_dump(int argc, char **argv, bool count_only)
{
	const char *between = NULL;
	struct usbeth_dev *devs;
	struct usbeth *u;
	size_t n, i;
	int err, c;

	while (count_only && (c = getopt(argc, argv, "+b:")) != -1) {
		if (c != 'b')
			usage();
		between = optarg;
	}
	if (argc != optind)
		usage();
	open_or_die(&u);
	between_cmd = between;
	err = usbeth_dump(u, &devs, &n);
	between_cmd = NULL;
	if (between && between_status != 0) {
		fprintf(stderr, "%s: dumpcount: '%s' %s (status %d)\n", prog,
			between, between_status < 0 ? "did not run" : "failed",
			between_status);
		if (!err)
			usbeth_devs_free(devs, n);
		usbeth_close(u);
		return 2;
	}
	if (err)
		fail(u, "dump", NULL, err);
	for (i = 0; !count_only && i < n; i++) {
		const struct usbeth_dev *d = &devs[i];

		printf("ifindex=%" PRIu32, d->ifindex);
		if (usbeth_dev_has(d, USBETH_A_IFNAME)) {
			fputs(" ifname=", stdout);
			put_str(d->ifname);
		}
		if (usbeth_dev_has(d, USBETH_A_DRIVER)) {
			fputs(" driver=", stdout);
			put_str(d->driver);
		}
		if (usbeth_dev_has(d, USBETH_A_ROLE)) {
			fputs(" role=", stdout);
			put_name(usbeth_role_name(d->role), d->role);
		}
		if (usbeth_dev_has(d, USBETH_A_CAPS))
			printf(" caps=0x%02" PRIx32, d->caps);
		if (d->n_bql_queues)
			printf(" bql_queues=%zu", d->n_bql_queues);
		putchar('\n');
	}
	printf("count=%zu redone=%u\n", n, usbeth_dump_redone(u));
	usbeth_devs_free(devs, n);
	usbeth_close(u);
	return 0;
}

/*
 * Fault injection for the failslab tests (a kernel with FAULT_INJECTION):
 * the Nth fault point this thread meets in the kernel from now on fails
 * (Documentation/fault-injection: /proc/thread-self/fail-nth). Returns the
 * open file, to ask afterwards whether the fault was injected.
 */
static int fail_nth_arm(uint32_t n)
{
	char buf[16];
	int fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	int len = snprintf(buf, sizeof(buf), "%" PRIu32, n);

	if (fd < 0 || write(fd, buf, (size_t)len) != len) {
		fprintf(stderr, "%s: set -f: cannot arm fail-nth: %s\n", prog,
			strerror(errno));
		exit(2);
	}
	return fd;
}

/* fail-nth reads 0 once the fault was injected; disarm it either way */
static bool fail_nth_injected(int fd)
{
	char buf[16] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	bool injected = n > 0 && buf[0] == '0';

	ssize_t w = write(fd, "0", 1);

	(void)w;
	close(fd);
	return injected;
}

static int cmd_set(int argc, char **argv)
{
	struct usbeth_set req = { 0 };
	struct usbeth_dev echo;
	bool want_echo = false, wait_stdin = false;
	struct devarg dev;
	struct usbeth *u;
	uint32_t fail_nth = 0;
	int opt, i, err, fnth = -1;

	optind = 1;
	while ((opt = getopt(argc, argv, "ef:w")) != -1) {
		if (opt == 'e')
			want_echo = true;
		else if (opt == 'w')
			wait_stdin = true;
		else if (opt == 'f' && parse_u32(optarg, &fail_nth) && fail_nth)
			;
		else
			usage();
	}
	if (argc - optind < 2)
		usage();
	parse_devarg(argv[optind], &dev);
	req.ifindex = dev.ifindex;
	req.ifname = dev.ifname;
	for (i = optind + 1; i < argc; i++) {
		char key[32];
		const char *eq = strchr(argv[i], '=');
		size_t klen = eq ? (size_t)(eq - argv[i]) : 0;
		uint32_t val;
		int attr;

		if (!eq || klen == 0 || klen >= sizeof(key))
			usage_err("expected KEY=VALUE, got '%s'", argv[i]);
		memcpy(key, argv[i], klen);
		key[klen] = '\0';
		attr = usbeth_attr_parse(key);
		if (attr < 0 || !usbeth_attr_settable(attr))
			usage_err("unknown key '%s'", key);
		if (req.has & USBETH_BIT(attr))
			usage_err("key '%s' given twice", key);
		if (!parse_u32(eq + 1, &val))
			usage_err("bad value in '%s' (decimal u32 expected)",
				  argv[i]);
		usbeth_set_value(&req, attr, val);
	}
	open_or_die(&u);
	if (wait_stdin) {
		char line[64];

		puts("ready");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin) && ferror(stdin))
			usage_err("-w: cannot read stdin: %s", strerror(errno));
	}
	if (fail_nth)
		fnth = fail_nth_arm(fail_nth);
	err = usbeth_set(u, &req, want_echo ? &echo : NULL);
	if (fail_nth)
		printf("fault=%s\n", fail_nth_injected(fnth) ? "injected" : "not-injected");
	if (err)
		fail(u, "set", dev.arg, err);
	if (want_echo) {
		if (echo.present)
			print_dev(&echo);
		else
			fprintf(stderr, "%s: set %s: nothing echoed\n", prog,
				dev.arg);
		usbeth_dev_free(&echo);
	}
	usbeth_close(u);
	return 0;
}

/*
 * loop: requests back to back on one device, for races against what
 * happens to it meanwhile (unbind, netns moves, renames). Each line says
 * how one request ended and, when it succeeded, the name the reply gave.
 */
static volatile sig_atomic_t loop_stop;

static void loop_on_term(int sig)
{
	(void)sig;
	loop_stop = 1;
}

static void loop_line(const char *what, int err, const struct usbeth_dev *d)
{
	fputs(what, stdout);
	if (err) {
		putchar(' ');
		fputs(strerrorname_np(-err) ? strerrorname_np(-err) : "EUNKNOWN",
		      stdout);
	} else if (usbeth_dev_has(d, USBETH_A_IFNAME)) {
		fputs(" 0 ifname=", stdout);
		put_str(d->ifname);
	} else {
		fputs(" 0", stdout);	/* a SET that changed nothing: no echo */
	}
	putchar('\n');
	fflush(stdout);
}

static int cmd_loop(int argc, char **argv)
{
	uint32_t count = 0, rounds, vals[2][16];
	int attrs[16], opt, i, n = 0, err;
	struct sigaction sa = { .sa_handler = loop_on_term };
	struct usbeth_dev d;
	struct devarg dev;
	struct usbeth *u;

	optind = 1;
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || !parse_u32(optarg, &count))
			usage();
	}
	if (argc - optind < 2 || argc - optind - 1 > 16)
		usage();
	parse_devarg(argv[optind], &dev);
	for (i = optind + 1; i < argc; i++, n++) {
		char *arg = argv[i], *eq = strchr(arg, '='), *sl;

		if (!eq || !(sl = strchr(eq, '/')))
			usage_err("expected KEY=A/B, got '%s'", arg);
		*eq = *sl = '\0';
		attrs[n] = usbeth_attr_parse(arg);
		if (attrs[n] < 0 || !usbeth_attr_settable(attrs[n]) ||
		    !parse_u32(eq + 1, &vals[0][n]) ||
		    !parse_u32(sl + 1, &vals[1][n]))
			usage_err("bad KEY=A/B for key '%s'", arg);
	}
	sigaction(SIGTERM, &sa, NULL);
	open_or_die(&u);
	for (rounds = 0; !loop_stop && (!count || rounds < count); rounds++) {
		struct usbeth_set req = { 0 };

		req.ifindex = dev.ifindex;
		req.ifname = dev.ifname;
		for (i = 0; i < n; i++)
			usbeth_set_value(&req, attrs[i], vals[rounds % 2][i]);
		memset(&d, 0, sizeof(d));
		err = usbeth_set(u, &req, &d);
		loop_line("set", err, &d);
		if (!err)
			usbeth_dev_free(&d);
		memset(&d, 0, sizeof(d));
		err = usbeth_get(u, dev.ifindex, dev.ifname, &d);
		loop_line("get", err, &d);
		if (!err)
			usbeth_dev_free(&d);
	}
	printf("done rounds=%" PRIu32 "\n", rounds);
	usbeth_close(u);
	return 0;
}

struct mon_state {
	uint32_t count;		/* 0: no limit */
	uint32_t seen;
};

static int mon_cb(void *arg, int cmd, const struct usbeth_dev *d)
{
	struct mon_state *st = arg;

	if (st->count && st->seen >= st->count)
		return 1;
	printf("%s ifindex=%" PRIu32 " ifname=", usbeth_cmd_name(cmd),
	       d->ifindex);
	put_str(d->ifname);
	if (cmd == USBETH_CMD_NEW_NTF) {
		fputs(" role=", stdout);
		put_name(usbeth_role_name(d->role), d->role);
	}
	putchar('\n');
	fflush(stdout);
	st->seen++;
	return st->count && st->seen >= st->count ? 1 : 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmd_monitor(int argc, char **argv)
{
	struct mon_state st = { 0 };
	struct usbeth_mon *m;
	uint32_t secs = 0;
	int64_t deadline = 0;
	int opt, err;

	optind = 1;
	while ((opt = getopt(argc, argv, "c:t:")) != -1) {
		switch (opt) {
		case 'c':
			if (!parse_u32(optarg, &st.count))
				usage_err("bad count '%s'", optarg);
			break;
		case 't':
			if (!parse_u32(optarg, &secs))
				usage_err("bad seconds '%s'", optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	err = usbeth_monitor_open(&m);
	if (err == -ENOENT) {
		fprintf(stderr,
			"%s: usbeth kernel module not loaded: modprobe usbeth\n",
			prog);
		return 2;
	}
	if (err) {
		fprintf(stderr, "%s: monitor: %s\n", prog, strerror(-err));
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	if (secs)
		deadline = now_ms() + (int64_t)secs * 1000;

	for (;;) {
		struct pollfd pfd = { usbeth_monitor_fd(m), POLLIN, 0 };
		int timeout = -1;

		if (st.count && st.seen >= st.count)
			break;
		if (secs) {
			int64_t left = deadline - now_ms();

			if (left <= 0) {
				fprintf(stderr, "%s: monitor: timed out after "
					"%" PRIu32 " event(s)\n", prog,
					st.seen);
				usbeth_monitor_close(m);
				return 1;
			}
			timeout = left > 60000 ? 60000 : (int)left;
		}
		if (poll(&pfd, 1, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: poll: %s\n", prog,
				strerror(errno));
			usbeth_monitor_close(m);
			return 2;
		}
		err = usbeth_monitor_read(m, mon_cb, &st);
		if (err == -ENOBUFS) {
			printf("overrun\n");
			fflush(stdout);
		} else if (err == -EBADMSG) {
			printf("badmsg\n");
			fflush(stdout);
		} else if (err < 0) {
			fprintf(stderr, "%s: monitor: %s\n", prog,
				strerror(-err));
			usbeth_monitor_close(m);
			return 2;
		}
	}
	usbeth_monitor_close(m);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2)
		usage();
	cmd = argv[1];
	argc--;
	argv++;
	if (!strcmp(cmd, "family"))
		return cmd_family(argc, argv);
	if (!strcmp(cmd, "get"))
		return cmd_get(argc, argv);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc, argv, false);
	if (!strcmp(cmd, "dumpcount"))
		return cmd_dump(argc, argv, true);
	if (!strcmp(cmd, "set"))
		return cmd_set(argc, argv);
	if (!strcmp(cmd, "loop"))
		return cmd_loop(argc, argv);
	if (!strcmp(cmd, "monitor"))
		return cmd_monitor(argc, argv);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help"))
		usage();
	usage_err("unknown command '%s'", cmd);
	return 1;
}
