// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the usbeth CLI without a kernel, built with ASan and UBSan:
 * option and command parsing (every knob, every unit form, every error
 * path), batch parsing, "did you mean", and the output of canned kernel
 * replies: JSON checked against the documented schema with json-c (strict,
 * UTF-8 validated), text against golden output, and the two carrying the
 * same keys. Prints KTAP; exits 0 when every test passed, else 1.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "out.h"
#include "parse.h"
#include "print.h"
#include "usbeth.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#include "unit_check.h"

/* ------------------------------------------------------------ helpers -- */

#define MAXW 32

/* Parses a NULL-terminated word list as the words after the options. */
static int vparse(struct cli_cmd *c, struct cli_err *e, va_list ap)
{
	char *argv[MAXW];
	int argc = 0;
	const char *w;

	while ((w = va_arg(ap, const char *)) && argc < MAXW)
		argv[argc++] = (char *)w;
	return cli_parse_cmd(argc, argv, c, e);
}

static int pc(struct cli_cmd *c, struct cli_err *e, ...)
{
	va_list ap;
	int r;

	va_start(ap, e);
	r = vparse(c, e, ap);
	va_end(ap);
	return r;
}

/* The words must fail to parse with a message containing want. */
static void expect_err_at(int line, const char *want, ...)
{
	struct cli_cmd c;
	struct cli_err e;
	va_list ap;
	int r;

	va_start(ap, want);
	r = vparse(&c, &e, ap);
	va_end(ap);
	if (r != -1) {
		printf("# line %d: parsed, expected error '%s'\n", line, want);
		cur_ok = false;
	} else if (!strstr(e.msg, want)) {
		printf("# line %d: error '%s' lacks '%s'\n", line, e.msg, want);
		cur_ok = false;
	}
}
#define EXPECT_ERR(want, ...) expect_err_at(__LINE__, want, __VA_ARGS__, NULL)

static void expect_ok_at(int line, struct cli_cmd *c, ...)
{
	struct cli_err e;
	va_list ap;
	int r;

	va_start(ap, c);
	r = vparse(c, &e, ap);
	va_end(ap);
	if (r) {
		printf("# line %d: unexpected error '%s'\n", line, e.msg);
		cur_ok = false;
	}
}
#define EXPECT_OK(c, ...) expect_ok_at(__LINE__, c, __VA_ARGS__, NULL)

static int popts(struct cli_opts *o, struct cli_err *e, ...)
{
	char *argv[MAXW] = { (char *)"usbeth" };
	int argc = 1;
	const char *w;
	va_list ap;

	va_start(ap, e);
	while ((w = va_arg(ap, const char *)) && argc < MAXW)
		argv[argc++] = (char *)w;
	va_end(ap);
	return cli_parse_opts(argc, argv, o, e);
}
#define POPTS(o, e, ...) popts(o, e, __VA_ARGS__, NULL)

/* ------------------------------------------------------------ options -- */

static void t_options(void)
{
	struct cli_opts o;
	struct cli_err e;

	CHECK_EQ(POPTS(&o, &e, "link"), 1);
	CHECK(!o.json && !o.pretty && !o.details && !o.stats && !o.netns);
	CHECK_EQ(POPTS(&o, &e, "-j", "-d", "-s", "link"), 4);
	CHECK(o.json && o.details && o.stats && !o.pretty);
	CHECK_EQ(POPTS(&o, &e, "-jpds", "link"), 2);
	CHECK(o.json && o.pretty && o.details && o.stats);
	CHECK_EQ(POPTS(&o, &e, "-p", "link"), 2);
	CHECK(o.json && o.pretty);	/* -p implies -j */
	CHECK_EQ(POPTS(&o, &e, "-json", "-pretty", "-details",
		       "-statistics", "-force", "link"), 6);
	CHECK(o.json && o.pretty && o.details && o.stats && o.force);
	CHECK_EQ(POPTS(&o, &e, "--json", "--stats", "monitor"), 3);
	CHECK(o.json && o.stats);
	CHECK_EQ(POPTS(&o, &e, "-n", "ns1", "link"), 3);
	CHECK_STR(o.netns, "ns1");
	CHECK_EQ(POPTS(&o, &e, "-nns2", "link"), 2);
	CHECK_STR(o.netns, "ns2");
	CHECK_EQ(POPTS(&o, &e, "-jn", "ns3", "link"), 3);
	CHECK(o.json);
	CHECK_STR(o.netns, "ns3");
	CHECK_EQ(POPTS(&o, &e, "-netns", "ns4", "link"), 3);
	CHECK_STR(o.netns, "ns4");
	CHECK_EQ(POPTS(&o, &e, "--netns", "ns5"), 3);
	CHECK_STR(o.netns, "ns5");
	CHECK_EQ(POPTS(&o, &e, "-b", "-"), 3);
	CHECK_STR(o.batch, "-");
	CHECK_EQ(POPTS(&o, &e, "-force", "-batch", "f.txt"), 4);
	CHECK(o.force);
	CHECK_STR(o.batch, "f.txt");
	CHECK_EQ(POPTS(&o, &e, "-bfile"), 2);
	CHECK_STR(o.batch, "file");
	CHECK_EQ(POPTS(&o, &e, "-V"), 2);
	CHECK(o.version);
	CHECK_EQ(POPTS(&o, &e, "-Version"), 2);
	CHECK(o.version);
	CHECK_EQ(POPTS(&o, &e, "--version"), 2);
	CHECK_EQ(POPTS(&o, &e, "-h"), 2);
	CHECK(o.help);
	CHECK_EQ(POPTS(&o, &e, "-help"), 2);
	CHECK_EQ(POPTS(&o, &e, "--help"), 2);
	/* "--" ends the options; "-" is a word */
	CHECK_EQ(POPTS(&o, &e, "-j", "--", "-d"), 3);
	CHECK(!o.details);
	CHECK_EQ(POPTS(&o, &e, "-"), 1);
	CHECK_EQ(POPTS(&o, &e, "-j"), 2);	/* no OBJECT: argc */
}

static void t_option_errors(void)
{
	struct cli_opts o;
	struct cli_err e;

	CHECK_EQ(POPTS(&o, &e, "-x", "link"), -1);
	CHECK(strstr(e.msg, "unknown option '-x'"));
	CHECK_EQ(POPTS(&o, &e, "-jason", "link"), -1);
	CHECK(strstr(e.msg, "did you mean '-json'?"));
	CHECK_EQ(POPTS(&o, &e, "--detials", "link"), -1);
	CHECK(strstr(e.msg, "did you mean '--details'?"));
	CHECK_EQ(POPTS(&o, &e, "-forse"), -1);
	CHECK(strstr(e.msg, "did you mean '-force'?"));
	CHECK_EQ(POPTS(&o, &e, "--zzzzzz"), -1);
	CHECK(!strstr(e.msg, "did you mean"));
	CHECK_EQ(POPTS(&o, &e, "-n"), -1);
	CHECK(strstr(e.msg, "-n needs an argument"));
	CHECK_EQ(POPTS(&o, &e, "-jn"), -1);
	CHECK(strstr(e.msg, "-n needs an argument"));
	CHECK_EQ(POPTS(&o, &e, "-netns"), -1);
	CHECK(strstr(e.msg, "-netns needs an argument"));
	CHECK_EQ(POPTS(&o, &e, "-b"), -1);
	CHECK(strstr(e.msg, "-b needs an argument"));
	CHECK_EQ(POPTS(&o, &e, "-b", ""), -1);
	CHECK(strstr(e.msg, "needs a file name"));
	CHECK_EQ(POPTS(&o, &e, "-n", "a/b", "link"), -1);
	CHECK(strstr(e.msg, "bad netns name 'a/b'"));
	CHECK_EQ(POPTS(&o, &e, "-n", "..", "link"), -1);
	CHECK_EQ(POPTS(&o, &e, "-n", ".", "link"), -1);
	CHECK_EQ(POPTS(&o, &e, "-n", "", "link"), -1);
	CHECK_EQ(POPTS(&o, &e, "-jx"), -1);
	CHECK(strstr(e.msg, "'-jx'"));
	/* control bytes in what is echoed back are shown escaped */
	CHECK_EQ(POPTS(&o, &e, "-\x1b[2J"), -1);
	CHECK(!strchr(e.msg, '\x1b'));
	CHECK(strstr(e.msg, "\\x1b"));
	CHECK(cli_netns_name_ok("ncm-host"));
	CHECK(!cli_netns_name_ok("a/"));
}

/* ------------------------------------------------------------- values -- */

struct vcase {
	enum usbeth_unit unit;
	const char *in;
	int err;
	uint32_t want;
};

static const struct vcase vcases[] = {
	/* sizes */
	{ USBETH_UNIT_BYTES, "65536", 0, 65536 },
	{ USBETH_UNIT_BYTES, "64k", 0, 65536 },
	{ USBETH_UNIT_BYTES, "64K", 0, 65536 },
	{ USBETH_UNIT_BYTES, "1m", 0, 1048576 },
	{ USBETH_UNIT_BYTES, "1M", 0, 1048576 },
	{ USBETH_UNIT_BYTES, "1g", 0, 1073741824 },
	{ USBETH_UNIT_BYTES, "3G", 0, 3221225472U },
	{ USBETH_UNIT_BYTES, "0", 0, 0 },
	{ USBETH_UNIT_BYTES, "0k", 0, 0 },
	{ USBETH_UNIT_BYTES, "007", 0, 7 },
	{ USBETH_UNIT_BYTES, "4294967295", 0, 4294967295U },
	{ USBETH_UNIT_BYTES, "4194303k", 0, 4294966272U },
	{ USBETH_UNIT_BYTES, "4194304k", -ERANGE, 0 },
	{ USBETH_UNIT_BYTES, "4g", -ERANGE, 0 },
	{ USBETH_UNIT_BYTES, "4294967296", -ERANGE, 0 },
	{ USBETH_UNIT_BYTES, "99999999999999999999999999", -ERANGE, 0 },
	{ USBETH_UNIT_BYTES, "99999999999999999999999999k", -ERANGE, 0 },
	{ USBETH_UNIT_BYTES, "", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "k", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "-1", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "+1", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, " 1", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "1 ", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "0x10", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "1.5k", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "64kb", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "64KiB", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "64kk", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "64q", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "64ms", -EINVAL, 0 },
	{ USBETH_UNIT_BYTES, "1e3", -EINVAL, 0 },
	/* times, native usecs */
	{ USBETH_UNIT_USECS, "400", 0, 400 },
	{ USBETH_UNIT_USECS, "400us", 0, 400 },
	{ USBETH_UNIT_USECS, "1ms", 0, 1000 },
	{ USBETH_UNIT_USECS, "1s", 0, 1000000 },
	{ USBETH_UNIT_USECS, "0", 0, 0 },
	{ USBETH_UNIT_USECS, "0ms", 0, 0 },
	{ USBETH_UNIT_USECS, "4294s", 0, 4294000000U },
	{ USBETH_UNIT_USECS, "4295s", -ERANGE, 0 },
	{ USBETH_UNIT_USECS, "4294967295", 0, 4294967295U },
	{ USBETH_UNIT_USECS, "4294967296us", -ERANGE, 0 },
	{ USBETH_UNIT_USECS, "4294968ms", -ERANGE, 0 },
	{ USBETH_UNIT_USECS, "1m", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "1Ms", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "1MS", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "1usec", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "1ns", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "1h", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "ms", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "-5us", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "1.5ms", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "1 ms", -EINVAL, 0 },
	{ USBETH_UNIT_USECS, "1k", -EINVAL, 0 },
	/* times, native msecs */
	{ USBETH_UNIT_MSECS, "1000", 0, 1000 },
	{ USBETH_UNIT_MSECS, "1000ms", 0, 1000 },
	{ USBETH_UNIT_MSECS, "1s", 0, 1000 },
	{ USBETH_UNIT_MSECS, "5000us", 0, 5 },
	{ USBETH_UNIT_MSECS, "0us", 0, 0 },
	{ USBETH_UNIT_MSECS, "4294967s", 0, 4294967000U },
	{ USBETH_UNIT_MSECS, "4294968s", -ERANGE, 0 },
	{ USBETH_UNIT_MSECS, "4294967295", 0, 4294967295U },
	{ USBETH_UNIT_MSECS, "4294967296ms", -ERANGE, 0 },
	{ USBETH_UNIT_MSECS, "1500us", -EDOM, 0 },
	{ USBETH_UNIT_MSECS, "1us", -EDOM, 0 },
	{ USBETH_UNIT_MSECS, "1x", -EINVAL, 0 },
	/* counts */
	{ USBETH_UNIT_COUNT, "3", 0, 3 },
	{ USBETH_UNIT_COUNT, "0", 0, 0 },
	{ USBETH_UNIT_COUNT, "010", 0, 10 },
	{ USBETH_UNIT_COUNT, "4294967295", 0, 4294967295U },
	{ USBETH_UNIT_COUNT, "4294967296", -ERANGE, 0 },
	{ USBETH_UNIT_COUNT, "3k", -EINVAL, 0 },
	{ USBETH_UNIT_COUNT, "3ms", -EINVAL, 0 },
	{ USBETH_UNIT_COUNT, "", -EINVAL, 0 },
	{ USBETH_UNIT_COUNT, "-3", -EINVAL, 0 },
	{ USBETH_UNIT_COUNT, "three", -EINVAL, 0 },
};

static void t_values(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vcases); i++) {
		const struct vcase *v = &vcases[i];
		uint32_t got = 0xdeadbeef;
		int err;

		if (v->unit == USBETH_UNIT_BYTES)
			err = cli_parse_size(v->in, &got);
		else if (v->unit == USBETH_UNIT_COUNT)
			err = cli_parse_count(v->in, &got);
		else
			err = cli_parse_time(v->in, v->unit, &got);
		if (err != v->err || (!err && got != v->want)) {
			printf("# value '%s' (unit %d): err %d value %u, expected err %d value %u\n",
			       v->in, v->unit, err, (unsigned int)got, v->err,
			       (unsigned int)v->want);
			cur_ok = false;
		}
		if (err && got != 0xdeadbeef) {
			printf("# value '%s': output written on error\n", v->in);
			cur_ok = false;
		}
	}
	CHECK_EQ(cli_parse_time("1", USBETH_UNIT_BYTES, &(uint32_t){ 0 }), -EINVAL);
}

static void t_value_messages(void)
{
	const struct usbeth_knob *k;
	struct cli_err e;
	uint32_t v;

	k = cli_knob_find("ntb-rx-max");
	CHECK_EQ(cli_parse_value(k, "64q", &v, &e), -1);
	CHECK(strstr(e.msg, "ntb-rx-max 64q: bad value, expected bytes"));
	CHECK(strstr(e.msg, "64k = 65536"));
	CHECK_EQ(cli_parse_value(k, "8g", &v, &e), -1);
	CHECK(strstr(e.msg, "ntb-rx-max 8g: out of range"));
	k = cli_knob_find("tx-timer-usecs");
	CHECK_EQ(cli_parse_value(k, "1min", &v, &e), -1);
	CHECK(strstr(e.msg, "tx-timer-usecs 1min: bad value, expected a time"));
	CHECK(strstr(e.msg, "400us, 1ms"));
	k = cli_knob_find("bql-hold-time");
	CHECK_EQ(cli_parse_value(k, "1500us", &v, &e), -1);
	CHECK(strstr(e.msg, "bql-hold-time 1500us: not a whole number of milliseconds"));
	CHECK_EQ(cli_parse_value(k, "2s", &v, &e), 0);
	CHECK_EQ(v, 2000);
	k = cli_knob_find("qmult");
	CHECK_EQ(cli_parse_value(k, "5k", &v, &e), -1);
	CHECK(strstr(e.msg, "qmult 5k: bad value, expected a plain number"));
}

/* ----------------------------------------------------------- commands -- */

static void t_every_knob(void)
{
	size_t i;

	/* the CLI's knobs are the family's settable attributes, same names */
	for (i = 0; i < cli_n_knobs; i++) {
		const struct usbeth_knob *k = cli_knob(i);

		CHECK(usbeth_attr_settable(k->attr));
		if (k->attr != USBETH_A_BQL_QUEUE_INDEX)
			CHECK_STR(k->name, usbeth_attr_name(k->attr));
		CHECK(cli_knob_find(k->name) == k);
	}
	for (i = 1; i <= USBETH_A_MAX; i++) {
		size_t j;
		bool found = false;

		if (!usbeth_attr_settable((int)i))
			continue;
		for (j = 0; j < cli_n_knobs; j++)
			found |= cli_knob(j)->attr == (int)i;
		if (!found)
			printf("# settable attribute %zu has no knob\n", i);
		CHECK(found);
	}

	/* each knob alone, with a value of its unit */
	for (i = 0; i < cli_n_knobs; i++) {
		const struct usbeth_knob *k = cli_knob(i);
		struct cli_cmd c;
		const char *val = k->unit == USBETH_UNIT_BYTES ? "8k" :
				  k->unit == USBETH_UNIT_USECS ? "2ms" :
				  k->unit == USBETH_UNIT_MSECS ? "3s" : "7";
		uint32_t want = k->unit == USBETH_UNIT_BYTES ? 8192 :
				k->unit == USBETH_UNIT_USECS ? 2000 :
				k->unit == USBETH_UNIT_MSECS ? 3000 : 7;

		if (k->attr == USBETH_A_BQL_QUEUE_INDEX)
			EXPECT_OK(&c, "link", "set", "dev", "eth0", k->name,
				  val, "bql-limit-max", "1k");
		else
			EXPECT_OK(&c, "link", "set", "dev", "eth0", k->name,
				  val);
		CHECK_EQ(c.verb, CLI_LINK_SET);
		CHECK_STR(c.dev, "eth0");
		CHECK_STR(c.set.ifname, "eth0");
		CHECK_EQ(c.set.ifindex, 0);
		CHECK(c.set.has & USBETH_BIT(k->attr));
		CHECK(cli_cmd_kv(&c, k->attr));
		if (cli_cmd_kv(&c, k->attr)) {
			CHECK_EQ(cli_cmd_kv(&c, k->attr)->value, want);
			CHECK_STR(cli_cmd_kv(&c, k->attr)->text, val);
		}
	}
}

static void t_set_fields(void)
{
	struct cli_cmd c;

	/* all of them at once land in the right fields of usbeth_set */
	EXPECT_OK(&c, "link", "set", "dev", "usb0", "qmult", "5",
		  "ntb-rx-max", "16k", "ntb-tx-max", "16385",
		  "tx-timer-usecs", "400us", "tx-usecs", "1ms", "tx-frames",
		  "8", "rx-usecs", "50", "rx-frames", "4", "bql-limit-min",
		  "3000", "bql-limit-max", "1m", "bql-hold-time", "1s",
		  "queue", "2");
	CHECK_EQ(c.n_kv, 12);
	CHECK_EQ(c.set.has, USBETH_SET_ATTRS);
	CHECK_EQ(c.set.qmult, 5);
	CHECK_EQ(c.set.ntb_rx_max, 16384);
	CHECK_EQ(c.set.ntb_tx_max, 16385);
	CHECK_EQ(c.set.tx_timer_usecs, 400);
	CHECK_EQ(c.set.coal_tx_usecs, 1000);
	CHECK_EQ(c.set.coal_tx_frames, 8);
	CHECK_EQ(c.set.coal_rx_usecs, 50);
	CHECK_EQ(c.set.coal_rx_frames, 4);
	CHECK_EQ(c.set.bql_limit_min, 3000);
	CHECK_EQ(c.set.bql_limit_max, 1048576);
	CHECK_EQ(c.set.bql_hold_time, 1000);
	CHECK_EQ(c.set.bql_queue_index, 2);
	/* order as typed is kept (for naming what the kernel refused) */
	CHECK_STR(c.kv[0].knob->name, "qmult");
	CHECK_STR(c.kv[11].knob->name, "queue");
	CHECK(cli_cmd_kv(&c, USBETH_A_IFNAME) == NULL);

	/* the bare device name, like ip */
	EXPECT_OK(&c, "link", "set", "usb0", "qmult", "2");
	CHECK_STR(c.dev, "usb0");
	CHECK_EQ(c.set.has, USBETH_BIT(USBETH_A_QMULT));
	/* a device named like a keyword, after dev */
	EXPECT_OK(&c, "link", "set", "dev", "qmult", "qmult", "2");
	CHECK_STR(c.dev, "qmult");
	/* queue before its knob is fine */
	EXPECT_OK(&c, "link", "set", "dev", "eth0", "queue", "0",
		  "bql-hold-time", "1000");
	CHECK_EQ(c.set.bql_hold_time, 1000);
}

static void t_commands(void)
{
	struct cli_cmd c;

	EXPECT_OK(&c, "link");
	CHECK_EQ(c.verb, CLI_LINK_SHOW);
	CHECK(!c.dev);
	EXPECT_OK(&c, "link", "show");
	CHECK_EQ(c.verb, CLI_LINK_SHOW);
	CHECK(!c.dev);
	EXPECT_OK(&c, "link", "show", "dev", "usb0");
	CHECK_STR(c.dev, "usb0");
	EXPECT_OK(&c, "link", "show", "usb0");
	CHECK_STR(c.dev, "usb0");
	EXPECT_OK(&c, "link", "show", "dev", "help");	/* a device "help" */
	CHECK_EQ(c.verb, CLI_LINK_SHOW);
	CHECK_STR(c.dev, "help");
	EXPECT_OK(&c, "link", "show", "0123456789abcde");	/* 15 bytes */
	EXPECT_OK(&c, "link", "help");
	CHECK_EQ(c.verb, CLI_HELP);
	CHECK_EQ(c.topic, CLI_TOPIC_LINK);
	EXPECT_OK(&c, "link", "show", "help");
	CHECK_EQ(c.verb, CLI_HELP);
	CHECK_EQ(c.topic, CLI_TOPIC_LINK);
	EXPECT_OK(&c, "link", "set", "help");
	CHECK_EQ(c.verb, CLI_HELP);
	EXPECT_OK(&c, "monitor");
	CHECK_EQ(c.verb, CLI_MONITOR);
	CHECK(!c.list);
	EXPECT_OK(&c, "monitor", "list");
	CHECK_EQ(c.verb, CLI_MONITOR);
	CHECK(c.list);
	EXPECT_OK(&c, "monitor", "help");
	CHECK_EQ(c.verb, CLI_HELP);
	CHECK_EQ(c.topic, CLI_TOPIC_MONITOR);
	EXPECT_OK(&c, "help");
	CHECK_EQ(c.verb, CLI_HELP);
	CHECK_EQ(c.topic, CLI_TOPIC_MAIN);
	EXPECT_OK(&c, "help", "link");
	CHECK_EQ(c.topic, CLI_TOPIC_LINK);
	EXPECT_OK(&c, "help", "monitor");
	CHECK_EQ(c.topic, CLI_TOPIC_MONITOR);
}

static void t_command_errors(void)
{
	struct cli_cmd c;
	struct cli_err e;

	CHECK_EQ(cli_parse_cmd(0, NULL, &c, &e), -1);
	CHECK(strstr(e.msg, "missing OBJECT"));
	EXPECT_ERR("unknown object 'lnk', did you mean 'link'?", "lnk");
	EXPECT_ERR("unknown object 'monitr', did you mean 'monitor'?", "monitr");
	EXPECT_ERR("unknown object 'hlep', did you mean 'help'?", "hlep");
	EXPECT_ERR("unknown object 'foo' (link, monitor, help)", "foo");
	EXPECT_ERR("unknown object 'Link', did you mean 'link'?", "Link");
	EXPECT_ERR("link: unknown command 'shwo', did you mean 'show'?", "link", "shwo");
	EXPECT_ERR("link: unknown command 'sett', did you mean 'set'?", "link", "sett");
	EXPECT_ERR("link: unknown command 'list' (show, set, help)", "link", "list");
	EXPECT_ERR("link show: dev needs a device name", "link", "show", "dev");
	EXPECT_ERR("link show: unknown keyword 'dve', did you mean 'dev'?",
		   "link", "show", "dve", "eth0");
	EXPECT_ERR("link show dev eth0: unexpected 'x'", "link", "show", "dev", "eth0", "x");
	EXPECT_ERR("link show dev eth0: unexpected 'help'", "link", "show", "eth0", "help");
	EXPECT_ERR("too long (at most 15 bytes)", "link", "show", "0123456789abcdef");
	EXPECT_ERR("link show: empty device name", "link", "show", "dev", "");
	EXPECT_ERR("link set: which device?", "link", "set");
	EXPECT_ERR("link set: which device? expected dev NAME before 'qmult'",
		   "link", "set", "qmult", "3");
	EXPECT_ERR("link set: dev needs a device name", "link", "set", "dev");
	EXPECT_ERR("too long", "link", "set", "dev", "0123456789abcdefg", "qmult", "1");
	EXPECT_ERR("link set dev d0: nothing to set", "link", "set", "dev", "d0");
	EXPECT_ERR("link set dev d0: qmult needs a value", "link", "set", "dev", "d0", "qmult");
	EXPECT_ERR("link set dev d0: qmult given twice",
		   "link", "set", "dev", "d0", "qmult", "3", "qmult", "4");
	EXPECT_ERR("link set dev d0: unknown knob 'qmul', did you mean 'qmult'?",
		   "link", "set", "dev", "d0", "qmul", "3");
	EXPECT_ERR("unknown knob 'ntb-rx-mx', did you mean 'ntb-rx-max'?",
		   "link", "set", "dev", "d0", "ntb-rx-mx", "3");
	EXPECT_ERR("unknown knob 'ntb_rx_max', did you mean 'ntb-rx-max'?",
		   "link", "set", "dev", "d0", "ntb_rx_max", "3");
	EXPECT_ERR("unknown knob 'tx-usec', did you mean 'tx-usecs'?",
		   "link", "set", "dev", "d0", "tx-usec", "3");
	EXPECT_ERR("unknown knob 'rx-frame', did you mean 'rx-frames'?",
		   "link", "set", "dev", "d0", "rx-frame", "3");
	EXPECT_ERR("unknown knob 'bql-hold', did you mean 'bql-hold-time'?",
		   "link", "set", "dev", "d0", "bql-hold", "3");
	EXPECT_ERR("unknown knob 'tx-timer', did you mean 'tx-timer-usecs'?",
		   "link", "set", "dev", "d0", "tx-timer", "3");
	EXPECT_ERR("unknown knob 'bql-limit' (usbeth link help lists them)",
		   "link", "set", "dev", "d0", "bql-limit", "3");
	EXPECT_ERR("unknown knob 'mtu' (usbeth link help lists them)",
		   "link", "set", "dev", "d0", "mtu", "1500");
	EXPECT_ERR("link set dev d0: ntb-rx-max 70kb: bad value",
		   "link", "set", "dev", "d0", "ntb-rx-max", "70kb", "x", "1");
	EXPECT_ERR("link set dev d0: unknown knob 'x'",
		   "link", "set", "dev", "d0", "ntb-rx-max", "70k", "x", "1");
	EXPECT_ERR("link set dev d0: ntb-rx-max 64q: bad value",
		   "link", "set", "dev", "d0", "ntb-rx-max", "64q");
	EXPECT_ERR("link set dev d0: queue applies to bql-limit-min",
		   "link", "set", "dev", "d0", "queue", "1");
	EXPECT_ERR("link set dev d0: queue applies to bql-limit-min",
		   "link", "set", "dev", "d0", "queue", "1", "qmult", "3");
	EXPECT_ERR("monitor: unknown keyword 'lst', did you mean 'list'?", "monitor", "lst");
	EXPECT_ERR("monitor list: unexpected 'x'", "monitor", "list", "x");
	EXPECT_ERR("unexpected 'x' after help", "help", "x");
	EXPECT_ERR("unexpected 'link' after help", "help", "link", "link");
	EXPECT_ERR("unexpected 'x' after help", "link", "help", "x");
	EXPECT_ERR("unexpected 'x' after help", "monitor", "help", "x");
	/* a hostile word is echoed escaped and bounded */
	EXPECT_ERR("unknown object '\\x1b]0;x\\x07'", "\x1b]0;x\x07");
	{
		char big[5000];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		CHECK_EQ(pc(&c, &e, "link", "set", "dev", "d0", big, "1", NULL), -1);
		CHECK(strlen(e.msg) < CLI_ERR_LEN);
	}
}

/* ---------------------------------------------------- did you mean -- */

static void t_suggest(void)
{
	static const char *const w[] = { "show", "set", "help", NULL };

	CHECK_EQ(cli_distance("show", "show", 2), 0);
	CHECK_EQ(cli_distance("shwo", "show", 2), 1);	/* transposition */
	CHECK_EQ(cli_distance("sow", "show", 2), 1);
	CHECK_EQ(cli_distance("shows", "show", 2), 1);
	CHECK_EQ(cli_distance("abc", "xyz", 2), 3);	/* capped */
	CHECK_EQ(cli_distance("", "abc", 5), 3);
	CHECK_EQ(cli_distance("a", "abcdefgh", 2), 3);
	CHECK_STR(cli_suggest("shwo", w), "show");
	CHECK_STR(cli_suggest("st", w), "set");
	CHECK(!cli_suggest("show", w));		/* exact: not a typo */
	CHECK(!cli_suggest("x", w));
	CHECK(!cli_suggest("", w));
	CHECK(!cli_suggest("xxxxxxxx", w));
	CHECK_STR(cli_suggest("hel", w), "help");	/* a unique prefix */
	CHECK(!cli_suggest("s", w));			/* too short */
	{
		char big[300];

		memset(big, 's', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		CHECK(!cli_suggest(big, w));
		CHECK_EQ(cli_distance(big, "show", 2), 3);
	}
}

/* -------------------------------------------------------------- batch -- */

static void t_split(void)
{
	char *argv[8];
	struct cli_err e;
	char l1[] = "  link set\tdev  usb0 # a comment";
	char l2[] = "link show dev \"my dev\" 'it''s' a\"b c\"d";
	char l3[] = "# only a comment";
	char l4[] = "   \t  \r";
	char l5[] = "link \"unterminated";
	char l6[] = "a b c d e f g h i";
	char l7[] = "dev eth#1 #tail";
	char l8[] = "\"\" x";

	CHECK_EQ(cli_split(l1, argv, 8, &e), 4);
	CHECK_STR(argv[0], "link");
	CHECK_STR(argv[3], "usb0");
	CHECK_EQ(cli_split(l2, argv, 8, &e), 6);
	CHECK_STR(argv[3], "my dev");
	CHECK_STR(argv[4], "its");
	CHECK_STR(argv[5], "ab cd");
	CHECK_EQ(cli_split(l3, argv, 8, &e), 0);
	CHECK_EQ(cli_split(l4, argv, 8, &e), 0);
	CHECK_EQ(cli_split(l5, argv, 8, &e), -1);
	CHECK(strstr(e.msg, "unterminated double quote"));
	CHECK_EQ(cli_split(l6, argv, 8, &e), -1);
	CHECK(strstr(e.msg, "more than 8 words"));
	CHECK_EQ(cli_split(l7, argv, 8, &e), 2);
	CHECK_STR(argv[1], "eth#1");
	CHECK_EQ(cli_split(l8, argv, 8, &e), 2);
	CHECK_STR(argv[0], "");
}

/* Every line of a batch with a command or an error, into lines[]. */
static struct cli_batch_iter iter;
static struct cli_line lines[8];

static size_t batch(const char *text, size_t len, size_t *bad)
{
	struct cli_line l;
	size_t n = 0;

	*bad = 0;
	cli_batch_begin(&iter, text, len);
	while (cli_batch_next(&iter, &l)) {
		if (!l.ok)
			(*bad)++;
		if (n < ARRAY_SIZE(lines))
			lines[n] = l;
		n++;
	}
	return n;
}

static void t_batch(void)
{
	static const char text[] =
		"# tune two devices\n"
		"\n"
		"link set dev usb0 ntb-tx-max 8k tx-timer-usecs 500us\r\n"
		"   # indented comment\n"
		"link set dev eth0 bql-limit-max 30000 bql-hold-time 2s\n"
		"link show dev eth0\n"
		"help link";	/* no final newline */
	struct cli_line l;
	size_t bad;

	CHECK_EQ(batch(text, strlen(text), &bad), 4);
	CHECK_EQ(bad, 0);
	CHECK_EQ(lines[0].lineno, 3);
	CHECK(lines[0].ok);
	CHECK_EQ(lines[0].cmd.verb, CLI_LINK_SET);
	CHECK_EQ(lines[0].cmd.set.ntb_tx_max, 8192);
	CHECK_EQ(lines[0].cmd.set.tx_timer_usecs, 500);
	CHECK_EQ(lines[0].argc, 8);
	CHECK_EQ(lines[1].lineno, 5);
	CHECK_EQ(lines[1].cmd.set.bql_limit_max, 30000);
	CHECK_EQ(lines[1].cmd.set.bql_hold_time, 2000);
	CHECK_EQ(lines[2].lineno, 6);
	CHECK_EQ(lines[2].cmd.verb, CLI_LINK_SHOW);
	CHECK_EQ(lines[3].lineno, 7);
	CHECK_EQ(lines[3].cmd.verb, CLI_HELP);
	CHECK_EQ(lines[3].cmd.topic, CLI_TOPIC_LINK);

	/* a line's strings stay valid until the next line is read */
	cli_batch_begin(&iter, text, strlen(text));
	CHECK_EQ(cli_batch_next(&iter, &l), 1);
	CHECK_STR(l.cmd.dev, "usb0");
	CHECK_STR(l.argv[0], "link");
	CHECK_STR(l.cmd.kv[1].text, "500us");
	CHECK_EQ(cli_batch_next(&iter, &l), 1);
	CHECK_STR(l.cmd.dev, "eth0");
	CHECK_EQ(cli_batch_next(&iter, &l), 1);
	CHECK_EQ(cli_batch_next(&iter, &l), 1);
	CHECK_EQ(cli_batch_next(&iter, &l), 0);
	CHECK_EQ(cli_batch_next(&iter, &l), 0);	/* stays at the end */

	CHECK_EQ(batch("", 0, &bad), 0);
	CHECK_EQ(batch("\n\n# x\n", 6, &bad), 0);
	CHECK_EQ(batch("link", 4, &bad), 1);
	CHECK(lines[0].ok);
}

/* text must have its first bad line at lineno, with want in the message. */
static void expect_bad_line(int at, const char *text, size_t len,
			    unsigned int lineno, const char *want)
{
	struct cli_line l;

	cli_batch_begin(&iter, text, len);
	while (cli_batch_next(&iter, &l) && l.ok)
		;
	if (l.ok) {
		printf("# line %d: no bad line, expected line %u\n", at, lineno);
		cur_ok = false;
	} else if (l.lineno != lineno || !strstr(l.err.msg, want)) {
		printf("# line %d: bad line %u '%s', expected %u '%s'\n", at,
		       l.lineno, l.err.msg, lineno, want);
		cur_ok = false;
	}
}
#define BAD_LINE(text, n, want) \
	expect_bad_line(__LINE__, text, sizeof(text) - 1, n, want)

static void t_batch_errors(void)
{
	size_t bad;
	char *big;

	BAD_LINE("link show\nlink set dev usb0 ntb-rx-mx 8k\n", 2,
		 "unknown knob 'ntb-rx-mx', did you mean 'ntb-rx-max'?");
	BAD_LINE("# c\n\nlink set dev usb0 qmult x\n", 3, "qmult x: bad value");
	BAD_LINE("link show\n-j link show\n", 2, "options (here '-j') go before -b");
	BAD_LINE("usbeth link show\n", 1, "do not start with 'usbeth'");
	BAD_LINE("link show\nmonitor\n", 2, "monitor does not run in a batch");
	BAD_LINE("link show\nmonitor list\n", 2, "monitor does not run in a batch");
	BAD_LINE("link show \"x\n", 1, "unterminated double quote");
	BAD_LINE("link show\nlink\0show\n", 2, "NUL byte");
	BAD_LINE("lnik show\n", 1, "did you mean 'link'?");

	/* every bad line is reported, the good ones still parse */
	CHECK_EQ(batch("link x\nlink show\nlink y\n", 23, &bad), 3);
	CHECK_EQ(bad, 2);
	CHECK(!lines[0].ok && lines[1].ok && !lines[2].ok);
	CHECK_EQ(lines[2].lineno, 3);

	/* too many words */
	{
		char many[CLI_WORDS_MAX * 2 + 16];
		size_t n = 0;
		int i;

		for (i = 0; i <= CLI_WORDS_MAX; i++) {
			many[n++] = 'w';
			many[n++] = ' ';
		}
		many[n++] = '\n';
		CHECK_EQ(batch(many, n, &bad), 1);
		CHECK_EQ(bad, 1);
		CHECK(strstr(lines[0].err.msg, "more than 64 words"));
	}
	/* a line of exactly CLI_LINE_MAX bytes is fine, one more is not; the
	 * next line still counts
	 */
	big = malloc(CLI_LINE_MAX + 32);
	if (big) {
		memset(big, ' ', CLI_LINE_MAX);
		memcpy(big, "link show", 9);
		memcpy(big + CLI_LINE_MAX, "\nlink\n", 6);
		CHECK_EQ(batch(big, CLI_LINE_MAX + 6, &bad), 2);
		CHECK_EQ(bad, 0);
		memset(big, 'a', CLI_LINE_MAX + 1);
		memcpy(big + CLI_LINE_MAX + 1, "\nlink\n", 6);
		CHECK_EQ(batch(big, CLI_LINE_MAX + 7, &bad), 2);
		CHECK_EQ(bad, 1);
		CHECK(strstr(lines[0].err.msg, "longer than 4096"));
		CHECK_EQ(lines[1].lineno, 2);
		CHECK(lines[1].ok);
		free(big);
	}
}

/* ------------------------------------------------------ canned replies -- */

static alignas(8) unsigned char mbuf[16384];

static struct nlmsghdr *msg_start(uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(mbuf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = 0x1c;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = USBETH_GENL_VERSION;
	return nlh;
}

static void put_ident(struct nlmsghdr *nlh, uint32_t ifindex,
		      const char *ifname, const char *driver, uint32_t role,
		      uint32_t caps)
{
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, ifindex);
	mnl_attr_put_strz(nlh, USBETH_A_IFNAME, ifname);
	if (driver)
		mnl_attr_put_strz(nlh, USBETH_A_DRIVER, driver);
	mnl_attr_put_u32(nlh, USBETH_A_ROLE, role);
	mnl_attr_put_u32(nlh, USBETH_A_CAPS, caps);
}

static void put_queue(struct nlmsghdr *nlh, uint32_t idx, uint32_t limit,
		      uint32_t inflight, uint32_t min, uint32_t max,
		      uint32_t hold)
{
	struct nlattr *q = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUE);

	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_INDEX, idx);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_LIMIT, limit);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_INFLIGHT, inflight);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_LIMIT_MIN, min);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_LIMIT_MAX, max);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_HOLD_TIME, hold);
	mnl_attr_nest_end(nlh, q);
}

enum canned { C_NCM_HOST, C_GADGET, C_E1000E, C_E1000E_MIXED, C_LO,
	      C_HOSTILE, C_DEL, C_COUNT };

/* A canned kernel message, parsed by libusbeth as the CLI would get it. */
static int canned(enum canned which, struct usbeth_dev *d)
{
	struct nlmsghdr *nlh;
	struct nlattr *qs;

	switch (which) {
	case C_NCM_HOST:
		nlh = msg_start(USBETH_CMD_GET);
		put_ident(nlh, 5, "enx020000b101", "cdc_ncm",
			  USBETH_ROLE_USB_HOST,
			  USBETH_CAP_NTB | USBETH_CAP_TX_TIMER);
		mnl_attr_put_u32(nlh, USBETH_A_USB_SPEED, USBETH_USB_SPEED_SUPER);
		mnl_attr_put_u16(nlh, USBETH_A_USB_VID, 0x17e9);
		mnl_attr_put_u16(nlh, USBETH_A_USB_PID, 0x4301);
		mnl_attr_put_u32(nlh, USBETH_A_USB_BUSNUM, 2);
		mnl_attr_put_strz(nlh, USBETH_A_USB_PATH, "2-1");
		mnl_attr_put_u32(nlh, USBETH_A_NTB_RX_MAX, 16384);
		mnl_attr_put_u32(nlh, USBETH_A_NTB_TX_MAX, 16384);
		mnl_attr_put_u32(nlh, USBETH_A_NTB_DEV_RX_MAX, 16384);
		mnl_attr_put_u32(nlh, USBETH_A_NTB_DEV_TX_MAX, 16384);
		mnl_attr_put_u32(nlh, USBETH_A_TX_TIMER_USECS, 400);
		mnl_attr_put_u32(nlh, USBETH_A_BQL_ACCOUNTING,
				 USBETH_BQL_ACCOUNTING_NONE);
		break;
	case C_GADGET:
		nlh = msg_start(USBETH_CMD_NEW_NTF);
		put_ident(nlh, 4, "usb0", "g_ether", USBETH_ROLE_USB_GADGET,
			  USBETH_CAP_QMULT);
		mnl_attr_put_u32(nlh, USBETH_A_USB_SPEED, USBETH_USB_SPEED_SUPER);
		mnl_attr_put_strz(nlh, USBETH_A_GADGET_UDC, "dummy_udc.0");
		mnl_attr_put_u32(nlh, USBETH_A_GADGET_MAX_SPEED,
				 USBETH_USB_SPEED_SUPER_PLUS);
		mnl_attr_put_u32(nlh, USBETH_A_QMULT, 5);
		mnl_attr_put_u32(nlh, USBETH_A_QMULT_ACTIVE, 3);
		break;
	case C_E1000E:
	case C_E1000E_MIXED:
		nlh = msg_start(USBETH_CMD_CHANGE_NTF);
		put_ident(nlh, 2, "eth0", "e1000e", USBETH_ROLE_OTHER,
			  USBETH_CAP_COAL_RX_USECS | USBETH_CAP_BQL);
		mnl_attr_put_u32(nlh, USBETH_A_COAL_RX_USECS, 3);
		mnl_attr_put_u32(nlh, USBETH_A_BQL_ACCOUNTING,
				 USBETH_BQL_ACCOUNTING_ACTIVE);
		qs = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
		put_queue(nlh, 0, 1514, 0, 0, 1879048192, 1000);
		put_queue(nlh, 1, 3028, 1514, 0,
			  which == C_E1000E ? 1879048192 : 40000, 1000);
		mnl_attr_nest_end(nlh, qs);
		break;
	case C_LO:
		nlh = msg_start(USBETH_CMD_GET);
		put_ident(nlh, 1, "lo", "", USBETH_ROLE_OTHER, 0);
		break;
	case C_HOSTILE:
		/* what a netdev name may hold: no '/', ':', blank or NUL */
		nlh = msg_start(USBETH_CMD_GET);
		put_ident(nlh, 9, "\x1b[1m\"q\\\x01\xff\xc3\xa9\x7f", "x\"y",
			  USBETH_ROLE_MAX + 7, 0x80000000 | USBETH_CAP_QMULT);
		mnl_attr_put_u32(nlh, USBETH_A_USB_SPEED, 99);
		break;
	case C_DEL:
		nlh = msg_start(USBETH_CMD_DEL_NTF);
		mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 5);
		mnl_attr_put_strz(nlh, USBETH_A_IFNAME, "enx020000b101");
		mnl_attr_put_u32(nlh, USBETH_A_ROLE, USBETH_ROLE_USB_HOST);
		break;
	default:
		return -1;
	}
	return usbeth_parse_dev(nlh, d) < 0 ? -1 : 0;
}

/* Output of fn into a heap string. */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
	struct out o;
};

static void cap_start(struct capture *c, enum out_mode mode)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	out_init(&c->o, c->f, mode);
}

static char *cap_end(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

static char *show(enum canned which, enum out_mode mode, unsigned int flags)
{
	struct usbeth_dev d;
	struct capture c;

	if (canned(which, &d)) {
		printf("# canned message %d did not parse\n", which);
		cur_ok = false;
		return strdup("");
	}
	cap_start(&c, mode);
	cli_print_devs(&c.o, &d, 1, flags);
	usbeth_dev_free(&d);
	return cap_end(&c);
}

static struct json_object *jparse(const char *s)
{
	struct json_tokener *t = json_tokener_new();
	struct json_object *o;
	size_t end;

	json_tokener_set_flags(t, JSON_TOKENER_STRICT |
			       JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(t, s, (int)strlen(s));
	if (json_tokener_get_error(t) != json_tokener_success) {
		printf("# invalid JSON (%s): %s\n",
		       json_tokener_error_desc(json_tokener_get_error(t)), s);
		json_object_put(o);
		o = NULL;
	} else {
		for (end = json_tokener_get_parse_end(t); s[end]; end++) {
			if (s[end] != '\n' && s[end] != ' ') {
				printf("# trailing data after JSON: %s\n", s + end);
				json_object_put(o);
				o = NULL;
				break;
			}
		}
	}
	json_tokener_free(t);
	return o;
}

/* The documented schema (usbeth(8), JSON OUTPUT). */
struct jkey {
	const char *key;
	json_type type;
	bool required;
};

static const struct jkey dev_schema[] = {
	{ "ifindex", json_type_int, true },
	{ "ifname", json_type_string, true },
	{ "driver", json_type_string, false },
	{ "role", json_type_string, true },
	{ "usb-vid", json_type_string, false },
	{ "usb-pid", json_type_string, false },
	{ "usb-speed", json_type_string, false },
	{ "usb-busnum", json_type_int, false },
	{ "usb-path", json_type_string, false },
	{ "gadget-udc", json_type_string, false },
	{ "gadget-max-speed", json_type_string, false },
	{ "caps", json_type_array, true },
	{ "qmult", json_type_int, false },
	{ "qmult-active", json_type_int, false },
	{ "ntb-rx-max", json_type_int, false },
	{ "ntb-tx-max", json_type_int, false },
	{ "ntb-dev-rx-max", json_type_int, false },
	{ "ntb-dev-tx-max", json_type_int, false },
	{ "tx-timer-usecs", json_type_int, false },
	{ "tx-usecs", json_type_int, false },
	{ "tx-frames", json_type_int, false },
	{ "rx-usecs", json_type_int, false },
	{ "rx-frames", json_type_int, false },
	{ "bql-accounting", json_type_string, false },
	{ "bql-limit-min", json_type_int, false },
	{ "bql-limit-max", json_type_int, false },
	{ "bql-hold-time", json_type_int, false },
	{ "bql-queues", json_type_array, false },
};

static const struct jkey queue_schema[] = {
	{ "queue", json_type_int, true },
	{ "limit", json_type_int, false },
	{ "inflight", json_type_int, false },
	{ "limit-min", json_type_int, false },
	{ "limit-max", json_type_int, false },
	{ "hold-time", json_type_int, false },
};

/* Keys in the schema with their types; with required, the required ones
 * present (a "del" event carries only ifindex, ifname and role).
 */
/* A string that is not UTF-8 is written as the array of its bytes. */
static bool is_byte_array(struct json_object *v)
{
	size_t i, n;

	if (!json_object_is_type(v, json_type_array))
		return false;
	n = json_object_array_length(v);
	for (i = 0; i < n; i++) {
		struct json_object *b = json_object_array_get_idx(v, i);

		if (!json_object_is_type(b, json_type_int) ||
		    json_object_get_int(b) < 1 || json_object_get_int(b) > 255)
			return false;
	}
	return n > 0;
}

static bool check_obj(struct json_object *o, const struct jkey *schema,
		      size_t n, bool required)
{
	bool ok = true;
	size_t i;

	if (!json_object_is_type(o, json_type_object)) {
		printf("# not an object\n");
		return false;
	}
	json_object_object_foreach(o, key, val) {
		for (i = 0; i < n && strcmp(schema[i].key, key); i++)
			;
		if (i == n) {
			printf("# key '%s' is not in the schema\n", key);
			ok = false;
		} else if (!json_object_is_type(val, schema[i].type) &&
			   !(schema[i].type == json_type_string && is_byte_array(val))) {
			printf("# key '%s' has the wrong type\n", key);
			ok = false;
		}
	}
	for (i = 0; i < n; i++) {
		if (required && schema[i].required &&
		    !json_object_object_get_ex(o, schema[i].key, NULL)) {
			printf("# required key '%s' missing\n", schema[i].key);
			ok = false;
		}
	}
	return ok;
}

static bool check_dev_obj(struct json_object *o)
{
	struct json_object *qs, *caps;
	bool ok = check_obj(o, dev_schema, ARRAY_SIZE(dev_schema), true);
	size_t i;

	if (json_object_object_get_ex(o, "caps", &caps) &&
	    json_object_is_type(caps, json_type_array))
		for (i = 0; i < json_object_array_length(caps); i++)
			ok &= json_object_is_type(json_object_array_get_idx(caps, i),
						  json_type_string);
	if (json_object_object_get_ex(o, "bql-queues", &qs) &&
	    json_object_is_type(qs, json_type_array))
		for (i = 0; i < json_object_array_length(qs); i++)
			ok &= check_obj(json_object_array_get_idx(qs, i),
					queue_schema, ARRAY_SIZE(queue_schema),
					true);
	return ok;
}

/* A `link show` document: an array of schema-valid device objects. */
static struct json_object *check_show_json(const char *s, size_t want_n)
{
	struct json_object *a = jparse(s);
	size_t i;

	if (!a)
		return NULL;
	if (!json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) != want_n) {
		printf("# not an array of %zu: %s\n", want_n, s);
		json_object_put(a);
		return NULL;
	}
	for (i = 0; i < want_n; i++) {
		if (!check_dev_obj(json_object_array_get_idx(a, i))) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static long long jint(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return -1;
	return json_object_get_int64(v);
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return json_object_get_string(v);
}

static void t_json_schema(void)
{
	unsigned int flags[] = { 0, CLI_SHOW_DETAILS, CLI_SHOW_STATS,
				 CLI_SHOW_DETAILS | CLI_SHOW_STATS };
	enum out_mode modes[] = { OUT_JSON, OUT_JSON_PRETTY };
	int w;
	size_t f, m;

	/* every canned device, every flag and both JSON forms */
	for (w = 0; w < C_COUNT; w++) {
		for (f = 0; f < ARRAY_SIZE(flags); f++) {
			for (m = 0; m < ARRAY_SIZE(modes); m++) {
				char *s = show((enum canned)w, modes[m], flags[f]);
				struct json_object *a;

				if (w == C_DEL)	/* an event: no caps */
					a = jparse(s);
				else
					a = check_show_json(s, 1);
				if (!a) {
					printf("# canned %d flags %u mode %d\n",
					       w, flags[f], modes[m]);
					cur_ok = false;
				}
				if (modes[m] == OUT_JSON) {
					/* one line */
					CHECK(strchr(s, '\n') == s + strlen(s) - 1);
				}
				json_object_put(a);
				free(s);
			}
		}
	}
}

static void t_json_values(void)
{
	struct json_object *a, *d, *q, *caps;
	char *s;

	s = show(C_NCM_HOST, OUT_JSON, 0);
	CHECK_STR(s, "[{\"ifindex\":5,\"ifname\":\"enx020000b101\","
		  "\"driver\":\"cdc_ncm\",\"role\":\"usb-host\","
		  "\"usb-vid\":\"17e9\",\"usb-pid\":\"4301\","
		  "\"usb-speed\":\"super\",\"usb-busnum\":2,"
		  "\"usb-path\":\"2-1\",\"caps\":[\"ntb\",\"tx-timer\"],"
		  "\"ntb-rx-max\":16384,\"ntb-tx-max\":16384,"
		  "\"ntb-dev-rx-max\":16384,\"ntb-dev-tx-max\":16384,"
		  "\"tx-timer-usecs\":400,\"bql-accounting\":\"none\"}]\n");
	free(s);

	s = show(C_E1000E, OUT_JSON_PRETTY, CLI_SHOW_DETAILS);
	a = check_show_json(s, 1);
	CHECK(a);
	if (a) {
		d = json_object_array_get_idx(a, 0);
		CHECK_EQ(jint(d, "rx-usecs"), 3);
		CHECK_STR(jstr(d, "bql-accounting"), "active");
		CHECK_EQ(jint(d, "bql-limit-max"), 1879048192);
		CHECK_EQ(jint(d, "bql-hold-time"), 1000);
		CHECK(json_object_object_get_ex(d, "bql-queues", &q));
		CHECK_EQ(json_object_array_length(q), 2);
		CHECK_EQ(jint(json_object_array_get_idx(q, 1), "queue"), 1);
		CHECK_EQ(jint(json_object_array_get_idx(q, 1), "inflight"), 1514);
		CHECK_EQ(jint(json_object_array_get_idx(q, 1), "hold-time"), 1000);
		CHECK(json_object_object_get_ex(d, "caps", &caps));
		CHECK_STR(json_object_get_string(json_object_array_get_idx(caps, 1)),
			  "bql");
	}
	json_object_put(a);
	free(s);

	/* -s alone: per queue only the dynamic state */
	s = show(C_E1000E, OUT_JSON, CLI_SHOW_STATS);
	CHECK(strstr(s, "\"bql-queues\":[{\"queue\":0,\"limit\":1514,\"inflight\":0},"
		     "{\"queue\":1,\"limit\":3028,\"inflight\":1514}]"));
	free(s);
	/* without -d or -s: no queues */
	s = show(C_E1000E, OUT_JSON, 0);
	CHECK(!strstr(s, "bql-queues"));
	free(s);

	/* queues that differ: no summary of that field */
	s = show(C_E1000E_MIXED, OUT_JSON, 0);
	CHECK(!strstr(s, "bql-limit-max"));
	CHECK(strstr(s, "\"bql-limit-min\":0"));
	free(s);

	/* lo: no driver, empty caps */
	s = show(C_LO, OUT_JSON, 0);
	CHECK_STR(s, "[{\"ifindex\":1,\"ifname\":\"lo\",\"role\":\"other\",\"caps\":[]}]\n");
	free(s);

	/* hostile strings and unknown enum values stay valid JSON, intact */
	s = show(C_HOSTILE, OUT_JSON, 0);
	a = check_show_json(s, 1);
	CHECK(a);
	if (a) {
		d = json_object_array_get_idx(a, 0);
		/* a name with a byte that is not UTF-8 is the array of
		 * its bytes (no JSON string can hold it): 0xff stays
		 * 0xff, not U+00FF, and the valid é is its two bytes
		 */
		CHECK(strstr(s, "\"ifname\":[27,91,49,109,34,113,92,1,255,195,169,127]") != NULL);
		CHECK(json_object_is_type(json_object_object_get(d, "ifname"),
					  json_type_array));
		CHECK_STR(jstr(d, "driver"), "x\"y");
		CHECK_STR(jstr(d, "role"), "9");
		CHECK_STR(jstr(d, "usb-speed"), "99");
		CHECK(json_object_object_get_ex(d, "caps", &caps));
		CHECK_STR(json_object_get_string(json_object_array_get_idx(caps, 1)),
			  "0x80000000");
	}
	json_object_put(a);
	free(s);
}

static void t_text_output(void)
{
	char *s;

	s = show(C_NCM_HOST, OUT_TEXT, 0);
	CHECK_STR(s,
		  "5: enx020000b101: driver cdc_ncm role usb-host\n"
		  "    usb-vid 17e9 usb-pid 4301 usb-speed super usb-busnum 2 usb-path 2-1\n"
		  "    caps ntb,tx-timer\n"
		  "    ntb-rx-max 16384 ntb-tx-max 16384 ntb-dev-rx-max 16384 "
		  "ntb-dev-tx-max 16384 tx-timer-usecs 400 bql-accounting none\n");
	free(s);
	s = show(C_GADGET, OUT_TEXT, CLI_SHOW_DETAILS);
	CHECK_STR(s,
		  "4: usb0: driver g_ether role usb-gadget\n"
		  "    usb-speed super gadget-udc dummy_udc.0 gadget-max-speed super-plus\n"
		  "    caps qmult\n"
		  "    qmult 5 qmult-active 3\n");
	free(s);
	s = show(C_E1000E, OUT_TEXT, CLI_SHOW_DETAILS);
	CHECK_STR(s,
		  "2: eth0: driver e1000e role other\n"
		  "    caps rx-usecs,bql\n"
		  "    rx-usecs 3 bql-accounting active bql-limit-min 0 "
		  "bql-limit-max 1879048192 bql-hold-time 1000ms\n"
		  "    queue 0 limit 1514 inflight 0 limit-min 0 limit-max 1879048192 hold-time 1000ms\n"
		  "    queue 1 limit 3028 inflight 1514 limit-min 0 limit-max 1879048192 hold-time 1000ms\n");
	free(s);
	s = show(C_E1000E, OUT_TEXT, CLI_SHOW_STATS);
	CHECK(strstr(s, "\n    queue 1 limit 3028 inflight 1514\n"));
	free(s);
	s = show(C_LO, OUT_TEXT, 0);
	CHECK_STR(s, "1: lo: role other\n");
	free(s);
	/* nothing raw from a hostile name reaches the terminal */
	s = show(C_HOSTILE, OUT_TEXT, 0);
	CHECK(!strchr(s, '\x1b') && !strchr(s, '\x01') && !strchr(s, '\x7f'));
	CHECK(strstr(s, "9: \\x1b[1m\"q\\x5c\\x01\\xff\\xc3\\xa9\\x7f: "));
	free(s);
}

/* Every key of the JSON form is a word of the text form. */
static void t_same_keys(void)
{
	static const enum canned w[] = { C_NCM_HOST, C_GADGET, C_E1000E };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		const unsigned int fl = CLI_SHOW_DETAILS;
		char *txt = show(w[i], OUT_TEXT, fl);
		char *js = show(w[i], OUT_JSON, fl);
		struct json_object *a = jparse(js), *d, *qs;

		CHECK(a);
		if (!a)
			goto next;
		d = json_object_array_get_idx(a, 0);
		json_object_object_foreach(d, key, val) {
			char word[64];

			(void)val;
			if (!strcmp(key, "ifindex") || !strcmp(key, "ifname") ||
			    !strcmp(key, "bql-queues"))
				continue;	/* "N: NAME:" and the queue lines */
			snprintf(word, sizeof(word), " %s ", key);
			if (!strstr(txt, word)) {
				printf("# key '%s' not in the text\n", key);
				cur_ok = false;
			}
		}
		if (json_object_object_get_ex(d, "bql-queues", &qs)) {
			json_object_object_foreach(json_object_array_get_idx(qs, 0),
						   qk, qv) {
				char word[64];

				(void)qv;
				snprintf(word, sizeof(word), "%s ", qk);
				CHECK(strstr(txt, word));
			}
		}
		json_object_put(a);
next:
		free(txt);
		free(js);
	}
}

static void t_events(void)
{
	struct usbeth_dev d;
	struct capture c;
	struct json_object *o;
	char *s, *line, *save;
	int n = 0;

	cap_start(&c, OUT_JSON);
	if (!canned(C_GADGET, &d)) {
		cli_print_event(&c.o, "new", &d, 0);
		cli_print_event(&c.o, "existing", &d, 0);
		usbeth_dev_free(&d);
	}
	if (!canned(C_E1000E, &d)) {
		cli_print_event(&c.o, "change", &d, CLI_SHOW_DETAILS);
		usbeth_dev_free(&d);
	}
	if (!canned(C_DEL, &d)) {
		cli_print_event(&c.o, "del", &d, 0);
		usbeth_dev_free(&d);
	}
	cli_print_event(&c.o, "overrun", NULL, 0);
	s = cap_end(&c);
	/* JSON lines: each line one object with "event" first */
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		static const char *const ev[] = { "new", "existing", "change",
						  "del", "overrun" };

		o = jparse(line);
		CHECK(o);
		if (o && n < 5) {
			CHECK_STR(jstr(o, "event"), ev[n]);
			CHECK(!strncmp(line, "{\"event\":", 9));
			if (n < 4) {
				json_object_object_del(o, "event");
				CHECK(check_obj(o, dev_schema,
						ARRAY_SIZE(dev_schema), n != 3));
				CHECK(jint(o, "ifindex") > 0 && jstr(o, "ifname"));
			}
		}
		json_object_put(o);
		n++;
	}
	CHECK_EQ(n, 5);
	free(s);

	cap_start(&c, OUT_TEXT);
	if (!canned(C_DEL, &d)) {
		cli_print_event(&c.o, "del", &d, 0);
		usbeth_dev_free(&d);
	}
	cli_print_event(&c.o, "overrun", NULL, 0);
	s = cap_end(&c);
	CHECK_STR(s, "[del] 5: enx020000b101: role usb-host\n[overrun]\n");
	free(s);
}

static void t_json_writer(void)
{
	struct capture c;
	char *s;

	/* nesting, commas, pretty indentation */
	cap_start(&c, OUT_JSON_PRETTY);
	out_obj_open(&c.o, NULL);
	out_u32(&c.o, "a", NULL, 1);
	out_arr_open(&c.o, "b");
	out_str_elem(&c.o, "x");
	out_str_elem(&c.o, "y");
	out_arr_close(&c.o);
	out_arr_open(&c.o, "e");
	out_arr_close(&c.o);
	out_obj_close(&c.o);
	out_end(&c.o);
	s = cap_end(&c);
	CHECK_STR(s, "{\n    \"a\": 1,\n    \"b\": [\n        \"x\",\n"
		  "        \"y\"\n    ],\n    \"e\": []\n}\n");
	free(s);

	/* escaping of every control byte, quotes, backslash; UTF-8 kept */
	cap_start(&c, OUT_JSON);
	out_json_string(c.f, "\"\\\n\t\r\b\x1f\x7f\xe2\x82\xac\xf0\x9f\x98\x80");
	s = cap_end(&c);
	CHECK_STR(s, "\"\\\"\\\\\\n\\t\\r\\u0008\\u001f\\u007f\xe2\x82\xac"
		  "\xf0\x9f\x98\x80\"");
	free(s);

	/* not UTF-8 (a surrogate, an overlong, above U+10FFFF, a cut
	 * sequence): the bytes as an array, the valid ones too
	 */
	cap_start(&c, OUT_JSON);
	out_json_string(c.f, "a\xed\xa0\x80\xc0\xaf\xf4\x90\x80\x80\xe2\x82");
	s = cap_end(&c);
	CHECK_STR(s, "[97,237,160,128,192,175,244,144,128,128,226,130]");
	free(s);

	/* text: one space between items, indent after a newline */
	cap_start(&c, OUT_TEXT);
	out_u32(&c.o, "n", "%u:", 3);
	out_str(&c.o, "k", NULL, "v");
	out_nl(&c.o, 4);
	out_nl(&c.o, 4);	/* no empty line */
	out_u32(&c.o, "x", NULL, 7);
	out_end(&c.o);
	s = cap_end(&c);
	CHECK_STR(s, "3: k v\n    x 7\n");
	free(s);
}

/* ---------------------------------------------------------------- main -- */

static const struct unit_test tests[] = {
	{ "options", t_options },
	{ "option_errors", t_option_errors },
	{ "values_every_unit_form", t_values },
	{ "value_messages", t_value_messages },
	{ "every_knob", t_every_knob },
	{ "set_fields", t_set_fields },
	{ "commands", t_commands },
	{ "command_errors", t_command_errors },
	{ "did_you_mean", t_suggest },
	{ "split", t_split },
	{ "batch", t_batch },
	{ "batch_errors", t_batch_errors },
	{ "json_schema_canned_replies", t_json_schema },
	{ "json_values", t_json_values },
	{ "text_output", t_text_output },
	{ "text_json_same_keys", t_same_keys },
	{ "monitor_events", t_events },
	{ "json_writer", t_json_writer },
};

int main(void)
{
	return unit_run(tests, ARRAY_SIZE(tests));
}
