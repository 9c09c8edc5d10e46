// SPDX-License-Identifier: GPL-2.0
/*
 * usbeth: the iproute2-style CLI of the usbeth generic netlink family.
 *
 *   usbeth [ OPTIONS ] OBJECT { COMMAND | help }
 *   usbeth [ OPTIONS ] -b FILE
 *
 * A thin front end: parse.c turns words into commands, libusbeth talks to
 * the kernel, print.c/out.c write text or JSON. See usbeth(8).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "print.h"
#include "usbeth.h"

#ifndef USBETH_VERSION
#define USBETH_VERSION "unknown"
#endif

#define BATCH_MAX_BYTES (16 << 20)

static const char prog[] = "usbeth";

struct ctx {
	struct cli_opts opts;
	struct usbeth *u;	/* opened on first need, kept for a batch */
	char where[32];		/* "batch line N: " or "" */
	struct out out;
	unsigned int flags;	/* CLI_SHOW_* */
	bool no_kernel;		/* the family cannot be reached: stop a batch */
};

/* One line on stderr: "usbeth: " WHERE MESSAGE, with what could move the
 * cursor or reorder the line (control bytes, C1, bidi overrides, bad UTF-8:
 * from user input or the kernel) shown as \xNN (usbeth_escape()).
 */
__attribute__((format(printf, 2, 3)))
static void say(const struct ctx *x, const char *fmt, ...)
{
	char buf[1024], line[1200], safe[4 * sizeof(line)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s%s", x ? x->where : "", buf);
	usbeth_escape(safe, sizeof(safe), line);
	fprintf(stderr, "%s: %s\n", prog, safe);
}

static void usage_main(FILE *f)
{
	fprintf(f,
"Usage: usbeth [ OPTIONS ] OBJECT { COMMAND | help }\n"
"       usbeth [ OPTIONS ] -b FILE\n"
"where  OBJECT := { link | monitor | help }\n"
"       OPTIONS := { -V[ersion] | -h[elp] | -j[son] | -p[retty] |\n"
"                    -d[etails] | -s[tatistics] | -n[etns] NAME |\n"
"                    -b[atch] FILE | -force }\n"
"Exit status: 0 ok, 1 usage error, 2 refused by the kernel or the system.\n"
"See usbeth(8).\n");
}

/*
 * KNOB := { ... }: every knob of the table (USBETH_KNOBS) with the value
 * its unit takes, then queue N; lines wrapped at USAGE_KNOBS_WIDTH.
 */
#define USAGE_KNOBS_WIDTH 64
static void usage_knobs(FILE *f)
{
	static const char *const value[] = {
		[USBETH_UNIT_COUNT] = "N",
		[USBETH_UNIT_BYTES] = "SIZE",
		[USBETH_UNIT_USECS] = "TIME",
		[USBETH_UNIT_MSECS] = "MSTIME",
	};
	char item[64];
	int col = fprintf(f, "KNOB := {"), i, n;

	for (i = 0; i <= USBETH_KNOB_COUNT; i++) {
		if (i == USBETH_KNOB_COUNT)
			n = snprintf(item, sizeof(item), " queue N }");
		else
			n = snprintf(item, sizeof(item), " %s %s |",
				     usbeth_knobs[i].name,
				     value[usbeth_knobs[i].unit]);

		if (col + n > USAGE_KNOBS_WIDTH) {
			fprintf(f, "\n%9s", "");
			col = 9;
		}
		fputs(item, f);
		col += n;
	}
	fputc('\n', f);
}

static void usage_link(FILE *f)
{
	fprintf(f,
"Usage: usbeth link show [ [ dev ] NAME ]\n"
"       usbeth link set [ dev ] NAME KNOB VALUE [ KNOB VALUE ... ]\n");
	usage_knobs(f);
	fprintf(f,
"SIZE   := bytes: 65536, 64k, 1m (k = 1024, m = 1048576, g)\n"
"TIME   := usecs: 400, 400us, 1ms, 1s\n"
"MSTIME := msecs: 1000, 1000ms, 1s\n"
"queue N applies the bql-* knobs to TX queue N only (default: every queue).\n"
"One set is atomic: all knobs are applied, or none.\n"
"show: -d adds BQL per TX queue, -s the BQL limit and bytes in flight.\n");
}

static void usage_monitor(FILE *f)
{
	fprintf(f,
"Usage: usbeth monitor [ list ]\n"
"Prints the events new (a USB netdev appeared), del (it went) and change\n"
"(its knobs were set) as they happen, one per line with -j. list first\n"
"prints every device of the netns as an event \"existing\"; the monitor is\n"
"subscribed before it lists, so nothing is missed in between.\n");
}

static int module_missing(void)
{
	fprintf(stderr, "%s: the usbeth kernel module is not loaded "
		"(modprobe usbeth)\n", prog);
	return CLI_EXIT_REFUSED;
}

static int get_handle(struct ctx *x)
{
	int err;

	if (x->u)
		return 0;
	err = usbeth_open(&x->u);
	if (!err)
		return 0;
	x->no_kernel = true;
	if (err == -ENOENT)
		return module_missing();
	say(x, "cannot open generic netlink: %s", strerror(-err));
	return CLI_EXIT_REFUSED;
}

/* The knob of each USBETH_KNOB_BIT_* bit, in bit order (uapi/usbeth.yaml). */
static const int knob_attrs[] = {
	USBETH_A_QMULT, USBETH_A_NTB_RX_MAX, USBETH_A_NTB_TX_MAX,
	USBETH_A_TX_TIMER_USECS, USBETH_A_COAL_TX_USECS,
	USBETH_A_COAL_TX_FRAMES, USBETH_A_COAL_RX_USECS,
	USBETH_A_COAL_RX_FRAMES, USBETH_A_BQL_LIMIT_MIN,
	USBETH_A_BQL_LIMIT_MAX, USBETH_A_BQL_HOLD_TIME,
};

/* "WHAT: strerror[ (hint)][: extack][: limit]", exit status 2; then, when a
 * refused set left knobs changed (left), which ones.
 */
static int refused_with(struct ctx *x, const char *what, int err,
			const char *msg, uint32_t left, const char *limit)
{
	const char *hint = "";
	char knobs[256] = "";
	size_t len = 0;
	unsigned int i;

	if (err == -EPERM || err == -EACCES)
		hint = " (changing knobs needs CAP_NET_ADMIN)";
	else if (err == -EBADMSG)
		hint = " (the kernel's reply broke the usbeth contract)";
	else if (err == -ENOBUFS)
		/* netlink had no memory for the ACK: the answer was lost */
		hint = " (the kernel's answer was lost, not necessarily the request: "
		       "read the device back to see whether it was applied)";
	say(x, "%s: %s%s%s%s%s%s", what, strerror(-err), hint, *msg ? ": " : "",
	    msg, *limit ? ": " : "", limit);
	if (!left)
		return CLI_EXIT_REFUSED;
	for (i = 0; i < sizeof(knob_attrs) / sizeof(knob_attrs[0]); i++)
		if ((left & (1U << i)) && len < sizeof(knobs))
			len += (size_t)snprintf(knobs + len, sizeof(knobs) - len,
						"%s%s", len ? ", " : "",
						usbeth_attr_name(knob_attrs[i]));
	say(x, "%s: the device is left partly changed (%s): read it back",
	    what, knobs);
	return CLI_EXIT_REFUSED;
}

static int refused(struct ctx *x, const char *what, int err)
{
	return refused_with(x, what, err, x->u ? usbeth_errmsg(x->u) : "",
			    x->u ? usbeth_err_left_changed(x->u) : 0, "");
}

static int do_show(struct ctx *x, const struct cli_cmd *c)
{
	struct usbeth_dev *devs = NULL, d;
	size_t n = 0;
	char what[64];
	int err, rc;

	rc = get_handle(x);
	if (rc)
		return rc;
	if (c->dev) {
		err = usbeth_get(x->u, 0, c->dev, &d);
		if (err) {
			snprintf(what, sizeof(what), "link show dev %s", c->dev);
			return refused(x, what, err);
		}
		cli_print_devs(&x->out, &d, 1, x->flags);
		usbeth_dev_free(&d);
		return 0;
	}
	err = usbeth_dump(x->u, &devs, &n);
	if (err)
		return refused(x, "link show", err);
	cli_print_devs(&x->out, devs, n, x->flags);
	usbeth_devs_free(devs, n);
	return 0;
}

/* "dev NAME KNOB VALUE": the knob the kernel pointed at, else all of them;
 * a value typed with a unit also shows what it was sent as.
 */
static void set_what(const struct cli_cmd *c, int attr, char *buf, size_t len)
{
	const struct cli_kv *only = cli_cmd_kv(c, attr);
	size_t i, used;

	used = (size_t)snprintf(buf, len, "link set dev %s", c->dev);
	for (i = 0; i < c->n_kv && used < len; i++) {
		const struct cli_kv *kv = &c->kv[i];
		char num[16];

		if (only && kv != only)
			continue;
		snprintf(num, sizeof(num), "%u", (unsigned int)kv->value);
		used += (size_t)snprintf(buf + used, len - used, " %s %s",
					 kv->knob->name, kv->text);
		if (strcmp(num, kv->text) && used < len)
			used += (size_t)snprintf(buf + used, len - used,
						 " (%s)", num);
	}
}

/*
 * The limit a refused value ran into, read from the device, into buf ("" when
 * there is nothing to add). Only where the kernel's message does not name the
 * device: before 6.2 it can send only a fixed text ("NTB size above the
 * device's maximum"), so the CLI names the limit itself, as 6.2+ does in its
 * message. Reads with the same handle: call after the refusal is copied.
 */
static void refused_limit(struct ctx *x, const struct cli_cmd *c, int attr,
			  int err, const char *msg, char *buf, size_t len)
{
	const struct cli_kv *kv = cli_cmd_kv(c, attr);
	struct usbeth_dev d;
	uint32_t max;
	int max_attr;

	*buf = '\0';
	if (err != -ERANGE || !c->dev || strstr(msg, c->dev) ||
	    usbeth_get(x->u, 0, c->dev, &d))
		return;
	max_attr = kv ? kv->knob->dev_max_attr : 0;
	switch (attr) {
	case USBETH_A_NTB_RX_MAX:
	case USBETH_A_NTB_TX_MAX:
		max = max_attr == USBETH_A_NTB_DEV_RX_MAX ? d.ntb_dev_rx_max :
							    d.ntb_dev_tx_max;
		if (max_attr && usbeth_dev_has(&d, max_attr) && kv->value > max)
			snprintf(buf, len, "the maximum of %s is %u (%s)",
				 d.ifname, max, usbeth_attr_name(max_attr));
		break;
	case USBETH_A_BQL_QUEUE_INDEX:
		if (kv)
			snprintf(buf, len, "%s has %zu TX queues", d.ifname,
				 d.n_bql_queues);
		break;
	}
	usbeth_dev_free(&d);
}

static int do_set(struct ctx *x, const struct cli_cmd *c)
{
	char what[512], msg[USBETH_ERRMSG_LEN], limit[128];
	uint32_t left;
	int err, rc, attr;

	rc = get_handle(x);
	if (rc)
		return rc;
	err = usbeth_set(x->u, &c->set, NULL);
	if (!err)
		return 0;
	attr = usbeth_err_attr(x->u);
	set_what(c, attr, what, sizeof(what));
	snprintf(msg, sizeof(msg), "%s", usbeth_errmsg(x->u));
	left = usbeth_err_left_changed(x->u);
	refused_limit(x, c, attr, err, msg, limit, sizeof(limit));
	return refused_with(x, what, err, msg, left, limit);
}

/* ------------------------------------------------------------ monitor -- */

static int list_existing(struct ctx *x)
{
	struct usbeth_dev *devs = NULL;
	size_t n = 0, i;
	int err, rc;

	rc = get_handle(x);
	if (rc)
		return rc;
	err = usbeth_dump(x->u, &devs, &n);
	if (err)
		return refused(x, "monitor list", err);
	for (i = 0; i < n; i++)
		cli_print_event(&x->out, "existing", &devs[i], x->flags);
	usbeth_devs_free(devs, n);
	return 0;
}

static int mon_cb(void *arg, int cmd, const struct usbeth_dev *d)
{
	struct ctx *x = arg;
	const char *ev = usbeth_cmd_name(cmd);

	cli_print_event(&x->out, ev ? ev : "unknown", d, x->flags);
	return ferror(x->out.f) ? -EIO : 0;
}

static int do_monitor(struct ctx *x, const struct cli_cmd *c)
{
	struct usbeth_mon *m;
	int err, rc = 0;

	err = usbeth_monitor_open(&m);
	if (err == -ENOENT) {
		x->no_kernel = true;
		return module_missing();
	}
	if (err) {
		say(x, "monitor: cannot subscribe: %s", strerror(-err));
		return CLI_EXIT_REFUSED;
	}
	/* subscribed: a device listed now or changed later is not missed */
	if (c->list)
		rc = list_existing(x);
	while (!rc) {
		struct pollfd pfd = { usbeth_monitor_fd(m), POLLIN, 0 };

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			say(x, "monitor: poll: %s", strerror(errno));
			rc = CLI_EXIT_REFUSED;
			break;
		}
		err = usbeth_monitor_read(m, mon_cb, x);
		if (err == -ENOBUFS) {
			/* events were lost: say so, and list again if asked.
			 * A module reload may be among them: the family is
			 * resolved again and its group joined first, and the
			 * listing's handle opened anew
			 */
			cli_print_event(&x->out, "overrun", NULL, x->flags);
			err = usbeth_monitor_refresh(m);
			usbeth_close(x->u);
			x->u = NULL;
			if (err == -ENOENT) {
				cli_print_event(&x->out, "unloaded", NULL,
						x->flags);
			} else if (err) {
				say(x, "monitor: %s", strerror(-err));
				rc = CLI_EXIT_REFUSED;
			} else if (c->list) {
				rc = list_existing(x);
			}
		} else if (err == -ENOLINK) {
			/* rmmod usbeth: silent until it is back */
			cli_print_event(&x->out, "unloaded", NULL, x->flags);
		} else if (err == -ERESTART) {
			/* loaded again: the monitor follows by itself; the
			 * handle of the listing has the old family id, and
			 * what happened meanwhile was not announced
			 */
			cli_print_event(&x->out, "loaded", NULL, x->flags);
			usbeth_close(x->u);
			x->u = NULL;
			if (c->list)
				rc = list_existing(x);
		} else if (err == -EBADMSG) {
			say(x, "monitor: skipped a notification that broke the usbeth contract");
		} else if (err == -EIO) {
			rc = CLI_EXIT_REFUSED;	/* stdout went away */
		} else if (err < 0) {
			say(x, "monitor: %s", strerror(-err));
			rc = CLI_EXIT_REFUSED;
		}
	}
	usbeth_monitor_close(m);
	return rc;
}

/* ------------------------------------------------------------- driver -- */

static int run(struct ctx *x, const struct cli_cmd *c)
{
	switch (c->verb) {
	case CLI_HELP:
		if (c->topic == CLI_TOPIC_LINK)
			usage_link(stdout);
		else if (c->topic == CLI_TOPIC_MONITOR)
			usage_monitor(stdout);
		else
			usage_main(stdout);
		return 0;
	case CLI_LINK_SHOW:
		return do_show(x, c);
	case CLI_LINK_SET:
		return do_set(x, c);
	case CLI_MONITOR:
		return do_monitor(x, c);
	}
	return CLI_EXIT_USAGE;
}

/* Like `ip -n`: the rest runs in the named netns of `ip netns`. */
static int enter_netns(struct ctx *x, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say(x, "cannot open netns '%s': %s", name, strerror(errno));
		return CLI_EXIT_REFUSED;
	}
	if (setns(fd, CLONE_NEWNET)) {
		say(x, "cannot enter netns '%s': %s", name, strerror(errno));
		close(fd);
		return CLI_EXIT_REFUSED;
	}
	close(fd);
	return 0;
}

/* The whole file into memory (NUL-terminated; NULs inside are the
 * parser's to refuse).
 */
static int read_batch(struct ctx *x, const char *path, char **text,
		      size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 0, n = 0;
	char *buf = NULL;

	if (!f) {
		say(x, "cannot read batch file '%s': %s", path, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	for (;;) {
		size_t got;

		if (n == cap) {
			char *nb;

			if (cap >= BATCH_MAX_BYTES) {
				say(x, "batch file '%s' is larger than %d MiB",
				    path, BATCH_MAX_BYTES >> 20);
				goto fail;
			}
			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				say(x, "batch file '%s': out of memory", path);
				goto fail;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		say(x, "cannot read batch file '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (f != stdin)
		fclose(f);
	*text = buf;
	*len = n;
	return 0;
fail:
	if (f != stdin)
		fclose(f);
	free(buf);
	return CLI_EXIT_USAGE;
}

static int run_batch(struct ctx *x)
{
	struct cli_batch_iter *it = malloc(sizeof(*it));
	struct cli_line *l = malloc(sizeof(*l));
	char *text = NULL;
	size_t len = 0;
	int rc, first_rc = 0;

	if (!it || !l) {
		say(x, "batch: out of memory");
		rc = CLI_EXIT_REFUSED;
		goto out;
	}
	rc = read_batch(x, x->opts.batch, &text, &len);
	if (rc)
		goto out;
	/* a line that does not parse stops the batch before anything runs */
	if (!x->opts.force) {
		cli_batch_begin(it, text, len);
		while (cli_batch_next(it, l)) {
			if (l->ok)
				continue;
			snprintf(x->where, sizeof(x->where), "batch line %u: ",
				 l->lineno);
			say(x, "%s", l->err.msg);
			rc = CLI_EXIT_USAGE;
			goto out;
		}
	}
	if (x->opts.netns) {
		rc = enter_netns(x, x->opts.netns);
		if (rc)
			goto out;
	}
	cli_batch_begin(it, text, len);
	while (cli_batch_next(it, l)) {
		snprintf(x->where, sizeof(x->where), "batch line %u: ",
			 l->lineno);
		if (!l->ok) {
			say(x, "%s", l->err.msg);	/* -force */
			rc = CLI_EXIT_USAGE;
		} else {
			rc = run(x, &l->cmd);
		}
		if (rc && !first_rc)
			first_rc = rc;
		/* -force goes on past a failing line, not without a kernel */
		if (rc && (!x->opts.force || x->no_kernel))
			break;
	}
	rc = first_rc;
out:
	free(text);
	free(l);
	free(it);
	return rc;
}

int main(int argc, char **argv)
{
	struct ctx x = { 0 };
	struct cli_cmd cmd;
	struct cli_err e;
	int i, rc;

	i = cli_parse_opts(argc, argv, &x.opts, &e);
	if (i < 0) {
		say(NULL, "%s (usbeth -h for help)", e.msg);
		return CLI_EXIT_USAGE;
	}
	if (x.opts.help) {
		usage_main(stdout);
		return 0;
	}
	if (x.opts.version) {
		printf("usbeth %s (family %s, version %d)\n", USBETH_VERSION,
		       USBETH_GENL_NAME, USBETH_GENL_VERSION);
		return 0;
	}
	out_init(&x.out, stdout, !x.opts.json ? OUT_TEXT :
		 x.opts.pretty ? OUT_JSON_PRETTY : OUT_JSON);
	x.flags = (x.opts.details ? CLI_SHOW_DETAILS : 0) |
		  (x.opts.stats ? CLI_SHOW_STATS : 0);

	if (x.opts.batch) {
		if (i < argc) {
			say(NULL, "-b runs the commands of the file; unexpected '%s'",
			    argv[i]);
			return CLI_EXIT_USAGE;
		}
		rc = run_batch(&x);
	} else {
		if (i >= argc) {
			usage_main(stderr);
			return CLI_EXIT_USAGE;
		}
		if (cli_parse_cmd(argc - i, argv + i, &cmd, &e)) {
			say(NULL, "%s", e.msg);
			return CLI_EXIT_USAGE;
		}
		rc = 0;
		if (x.opts.netns && cmd.verb != CLI_HELP)
			rc = enter_netns(&x, x.opts.netns);
		if (!rc)
			rc = run(&x, &cmd);
	}
	usbeth_close(x.u);
	if (fflush(stdout) && !rc) {
		say(NULL, "write error: %s", strerror(errno));
		rc = CLI_EXIT_REFUSED;
	}
	return rc;
}
