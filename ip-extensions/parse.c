// SPDX-License-Identifier: GPL-2.0
/*
 * usbeth CLI: parsing of options, commands, values and batch files. No I/O;
 * see parse.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Writes the message, with control bytes of user input shown as \xNN so a
 * hostile word cannot drive the terminal.
 */
__attribute__((format(printf, 2, 3)))
static void seterr(struct cli_err *e, const char *fmt, ...)
{
	char raw[CLI_ERR_LEN];
	size_t i, o = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	for (i = 0; raw[i] && o + 5 < sizeof(e->msg); i++) {
		unsigned char c = (unsigned char)raw[i];

		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(e->msg + o, sizeof(e->msg) - o,
					      "\\x%02x", c);
		else
			e->msg[o++] = (char)c;
	}
	e->msg[o] = '\0';
}

/* ---------------------------------------------------- did you mean -- */

#define DIST_WORD_MAX 64

unsigned int cli_distance(const char *a, const char *b, unsigned int cap)
{
	unsigned int rows[3][DIST_WORD_MAX + 1];
	unsigned int *pp = rows[0], *p = rows[1], *c = rows[2];
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned int best;

	if (la > DIST_WORD_MAX || lb > DIST_WORD_MAX)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	for (j = 0; j <= lb; j++)
		p[j] = (unsigned int)j;
	for (i = 1; i <= la; i++) {
		unsigned int *t;

		c[0] = (unsigned int)i;
		best = c[0];
		for (j = 1; j <= lb; j++) {
			unsigned int cost = a[i - 1] != b[j - 1];
			unsigned int v = p[j - 1] + cost;

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[lb] > cap ? cap + 1 : p[lb];
}

const char *cli_suggest(const char *word, const char *const *cands)
{
	const char *best = NULL, *prefix = NULL;
	unsigned int bestd = UINT_MAX, nprefix = 0;
	size_t wl = strlen(word), i;

	/* cut short ("bql-hold"): the one candidate it begins */
	for (i = 0; cands[i]; i++) {
		if (wl >= 3 && strlen(cands[i]) > wl &&
		    !strncmp(word, cands[i], wl)) {
			prefix = cands[i];
			nprefix++;
		}
	}
	if (nprefix == 1)
		return prefix;
	/* a typo: the closest within 1 (short words) or 2 edits */
	for (i = 0; cands[i]; i++) {
		unsigned int thr = strlen(cands[i]) <= 4 ? 1 : 2;
		unsigned int d = cli_distance(word, cands[i], thr);

		if (d == 0 || d > thr || d >= wl)
			continue;
		if (d < bestd) {
			bestd = d;
			best = cands[i];
		}
	}
	return best;
}

/* ", did you mean 'x'?" or "" */
static const char *mean(char *buf, size_t len, const char *word,
			const char *const *cands)
{
	const char *s = cli_suggest(word, cands);

	if (!s)
		return "";
	snprintf(buf, len, ", did you mean '%s'?", s);
	return buf;
}

/* ------------------------------------------------------------ options -- */

enum opt_id { O_JSON, O_PRETTY, O_DETAILS, O_STATS, O_NETNS, O_BATCH,
	      O_FORCE, O_VERSION, O_HELP };

static const struct {
	const char *name;
	enum opt_id id;
} long_opts[] = {
	{ "json", O_JSON }, { "pretty", O_PRETTY }, { "details", O_DETAILS },
	{ "stats", O_STATS }, { "statistics", O_STATS },
	{ "netns", O_NETNS }, { "batch", O_BATCH }, { "force", O_FORCE },
	{ "Version", O_VERSION }, { "version", O_VERSION },
	{ "help", O_HELP },
};

/* For suggestions, spelled as typed with one dash. */
static const char *const long_opt_words[] = {
	"-json", "-pretty", "-details", "-stats", "-statistics", "-netns",
	"-batch", "-force", "-Version", "-version", "-help",
	"--json", "--pretty", "--details", "--stats", "--statistics",
	"--netns", "--batch", "--force", "--version", "--help", NULL,
};

static int short_opt(char c)
{
	switch (c) {
	case 'j': return O_JSON;
	case 'p': return O_PRETTY;
	case 'd': return O_DETAILS;
	case 's': return O_STATS;
	case 'n': return O_NETNS;
	case 'b': return O_BATCH;
	case 'V': return O_VERSION;
	case 'h': return O_HELP;
	}
	return -1;
}

bool cli_netns_name_ok(const char *name)
{
	size_t n = strnlen(name, NAME_MAX + 1);

	return n > 0 && n <= NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

/* Applies one option; arg is its argument for -n and -b. */
static int apply_opt(struct cli_opts *o, enum opt_id id, const char *arg,
		     const char *word, struct cli_err *e)
{
	switch (id) {
	case O_JSON: o->json = true; break;
	case O_PRETTY: o->pretty = o->json = true; break;
	case O_DETAILS: o->details = true; break;
	case O_STATS: o->stats = true; break;
	case O_FORCE: o->force = true; break;
	case O_VERSION: o->version = true; break;
	case O_HELP: o->help = true; break;
	case O_NETNS:
		if (!cli_netns_name_ok(arg)) {
			seterr(e, "bad netns name '%.64s' for %s", arg, word);
			return -1;
		}
		o->netns = arg;
		break;
	case O_BATCH:
		if (!*arg) {
			seterr(e, "%s needs a file name ('-' for stdin)", word);
			return -1;
		}
		o->batch = arg;
		break;
	}
	return 0;
}

int cli_parse_opts(int argc, char *const *argv, struct cli_opts *o,
		   struct cli_err *e)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 1; i < argc; i++) {
		const char *w = argv[i], *name;
		char sug[96];
		size_t k;
		int id = -1;

		if (w[0] != '-' || !w[1])
			return i;	/* the OBJECT (or a lone "-") */
		if (!strcmp(w, "--"))
			return i + 1;
		name = w + (w[1] == '-' ? 2 : 1);
		for (k = 0; k < ARRAY_SIZE(long_opts); k++)
			if (!strcmp(name, long_opts[k].name))
				id = (int)long_opts[k].id;
		if (id >= 0) {
			const char *arg = NULL;

			if (id == O_NETNS || id == O_BATCH) {
				if (i + 1 >= argc) {
					seterr(e, "%.64s needs an argument", w);
					return -1;
				}
				arg = argv[++i];
			}
			if (apply_opt(o, (enum opt_id)id, arg, w, e))
				return -1;
			continue;
		}
		if (w[1] == '-')
			goto unknown;
		/* a cluster of short options: -jpd, -nNAME, -jn NAME */
		for (name = w + 1; *name; name++) {
			const char *arg = NULL;

			id = short_opt(*name);
			if (id < 0)
				goto unknown;
			if (id == O_NETNS || id == O_BATCH) {
				char opt[3] = { '-', *name, '\0' };

				if (name[1]) {
					arg = name + 1;
				} else if (i + 1 < argc) {
					arg = argv[++i];
				} else {
					seterr(e, "%s needs an argument", opt);
					return -1;
				}
				if (apply_opt(o, (enum opt_id)id, arg, opt, e))
					return -1;
				break;
			}
			if (apply_opt(o, (enum opt_id)id, NULL, w, e))
				return -1;
		}
		continue;
unknown:
		seterr(e, "unknown option '%.64s'%s", w,
		       mean(sug, sizeof(sug), w, long_opt_words));
		return -1;
	}
	return argc;
}

/* -------------------------------------------------------------- knobs -- */

/* Not a knob of the family, but typed like one: the TX queue of bql-*. */
static const struct usbeth_knob queue_knob = {
	.name = "queue", .attr = USBETH_A_BQL_QUEUE_INDEX,
	.unit = USBETH_UNIT_COUNT, .max = USBETH_BQL_QUEUE_MAX,
};

const size_t cli_n_knobs = USBETH_KNOB_COUNT + 1;

const struct usbeth_knob *cli_knob(size_t i)
{
	if (i < USBETH_KNOB_COUNT)
		return &usbeth_knobs[i];
	return i == USBETH_KNOB_COUNT ? &queue_knob : NULL;
}

/* Every keyword, for suggestions ("did you mean"). */
static const char *const *knob_words(void)
{
	static const char *words[USBETH_KNOB_COUNT + 2];
	size_t i;

	if (!words[0])
		for (i = 0; i < cli_n_knobs; i++)
			words[i] = cli_knob(i)->name;
	return words;
}

const struct usbeth_knob *cli_knob_find(const char *name)
{
	size_t i;

	for (i = 0; i < cli_n_knobs; i++)
		if (!strcmp(name, cli_knob(i)->name))
			return cli_knob(i);
	return NULL;
}

/* ------------------------------------------------------------- values -- */

/* Leading decimal digits of s into *v (capped above UINT32_MAX); *end past
 * them. -EINVAL when there are none.
 */
static int digits(const char *s, uint64_t *v, const char **end)
{
	uint64_t n = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > UINT32_MAX)
			n = (uint64_t)UINT32_MAX + 1;	/* sticky overflow */
	}
	if (p == s)
		return -EINVAL;
	*v = n;
	*end = p;
	return 0;
}

int cli_parse_count(const char *s, uint32_t *out)
{
	const char *end;
	uint64_t v;

	if (digits(s, &v, &end) || *end)
		return -EINVAL;
	if (v > UINT32_MAX)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

int cli_parse_size(const char *s, uint32_t *out)
{
	const char *end;
	uint64_t v, mult = 1;

	if (digits(s, &v, &end))
		return -EINVAL;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': mult = 1ULL << 10; break;
		case 'm': case 'M': mult = 1ULL << 20; break;
		case 'g': case 'G': mult = 1ULL << 30; break;
		default: return -EINVAL;
		}
		if (end[1])
			return -EINVAL;
	}
	if (v > UINT32_MAX || v * mult > UINT32_MAX)
		return -ERANGE;
	*out = (uint32_t)(v * mult);
	return 0;
}

int cli_parse_time(const char *s, enum usbeth_unit native, uint32_t *out)
{
	uint64_t v, usecs_per;	/* usecs in one unit of the suffix */
	uint64_t native_usecs = native == USBETH_UNIT_MSECS ? 1000 : 1;
	const char *end;

	if (native != USBETH_UNIT_USECS && native != USBETH_UNIT_MSECS)
		return -EINVAL;
	if (digits(s, &v, &end))
		return -EINVAL;
	if (!*end)
		usecs_per = native_usecs;
	else if (!strcmp(end, "us"))
		usecs_per = 1;
	else if (!strcmp(end, "ms"))
		usecs_per = 1000;
	else if (!strcmp(end, "s"))
		usecs_per = 1000000;
	else
		return -EINVAL;
	if (v > UINT32_MAX)
		return -ERANGE;
	v *= usecs_per;		/* < 2^32 * 10^6: no overflow */
	if (v % native_usecs)
		return -EDOM;
	v /= native_usecs;
	if (v > UINT32_MAX)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

int cli_parse_value(const struct usbeth_knob *k, const char *s, uint32_t *out,
		    struct cli_err *e)
{
	const char *what;
	int err;

	switch (k->unit) {
	case USBETH_UNIT_BYTES:
		err = cli_parse_size(s, out);
		what = "bytes: a number, or with k, m or g (64k = 65536)";
		break;
	case USBETH_UNIT_USECS:
		err = cli_parse_time(s, k->unit, out);
		what = "a time: usecs, or with us, ms or s (400us, 1ms)";
		break;
	case USBETH_UNIT_MSECS:
		err = cli_parse_time(s, k->unit, out);
		what = "a time: msecs, or with ms, s or us (1000, 1s)";
		break;
	default:
		err = cli_parse_count(s, out);
		what = "a plain number";
		break;
	}
	if (err == -ERANGE)
		seterr(e, "%s %.64s: out of range (more than 32 bits)",
		       k->name, s);
	else if (err == -EDOM)
		seterr(e, "%s %.64s: not a whole number of milliseconds",
		       k->name, s);
	else if (err)
		seterr(e, "%s %.64s: bad value, expected %s", k->name, s, what);
	return err ? -1 : 0;
}

/* ----------------------------------------------------------- commands -- */

static const char *const object_words[] = { "link", "monitor", "help", NULL };
static const char *const link_words[] = { "show", "set", "help", NULL };
static const char *const monitor_words[] = { "list", "help", NULL };

static int dev_name(const char *name, const char *ctx, struct cli_err *e)
{
	size_t n = strnlen(name, USBETH_IFNAMSIZ);

	if (n == 0) {
		seterr(e, "%s: empty device name", ctx);
		return -1;
	}
	if (n >= USBETH_IFNAMSIZ) {
		seterr(e, "%s: device name '%.64s' is too long (at most %d bytes)",
		       ctx, name, USBETH_IFNAMSIZ - 1);
		return -1;
	}
	return 0;
}

static int help_of(int argc, char *const *argv, enum cli_topic topic,
		   struct cli_cmd *c, struct cli_err *e)
{
	if (argc > 1) {
		seterr(e, "unexpected '%.64s' after help", argv[1]);
		return -1;
	}
	c->verb = CLI_HELP;
	c->topic = topic;
	return 0;
}

/* show [ [ dev ] NAME ] */
static int parse_show(int argc, char *const *argv, struct cli_cmd *c,
		      struct cli_err *e)
{
	int i = 1;

	c->verb = CLI_LINK_SHOW;
	if (argc == 1)
		return 0;
	if (!strcmp(argv[1], "help"))
		return help_of(argc - 1, argv + 1, CLI_TOPIC_LINK, c, e);
	if (!strcmp(argv[1], "dev")) {
		if (argc < 3) {
			seterr(e, "link show: dev needs a device name");
			return -1;
		}
		i = 2;
	} else if (argc > 2) {
		static const char *const dev_word[] = { "dev", NULL };
		char sug[96];

		/* "dve eth0" is a typo; "eth0 x" is a device and junk */
		if (cli_suggest(argv[1], dev_word)) {
			seterr(e, "link show: unknown keyword '%.64s'%s",
			       argv[1], mean(sug, sizeof(sug), argv[1],
					     dev_word));
			return -1;
		}
	}
	if (dev_name(argv[i], "link show", e))
		return -1;
	c->dev = argv[i];
	if (argc > i + 1) {
		seterr(e, "link show dev %s: unexpected '%.64s'", c->dev,
		       argv[i + 1]);
		return -1;
	}
	return 0;
}

static bool is_bql_attr(int attr)
{
	return attr == USBETH_A_BQL_LIMIT_MIN ||
	       attr == USBETH_A_BQL_LIMIT_MAX ||
	       attr == USBETH_A_BQL_HOLD_TIME;
}

/* set [ dev ] NAME KNOB VALUE [ KNOB VALUE ... ] */
static int parse_set(int argc, char *const *argv, struct cli_cmd *c,
		     struct cli_err *e)
{
	bool bql = false;
	char ctx[64];
	int i = 1;

	c->verb = CLI_LINK_SET;
	if (argc < 2) {
		seterr(e, "link set: which device? (link set dev NAME KNOB VALUE ...)");
		return -1;
	}
	if (!strcmp(argv[1], "help"))
		return help_of(argc - 1, argv + 1, CLI_TOPIC_LINK, c, e);
	if (!strcmp(argv[1], "dev")) {
		if (argc < 3) {
			seterr(e, "link set: dev needs a device name");
			return -1;
		}
		i = 2;
	} else if (cli_knob_find(argv[1])) {
		seterr(e, "link set: which device? expected dev NAME before '%s'",
		       argv[1]);
		return -1;
	}
	if (dev_name(argv[i], "link set", e))
		return -1;
	c->dev = argv[i];
	c->set.ifname = c->dev;
	snprintf(ctx, sizeof(ctx), "link set dev %s", c->dev);
	for (i++; i < argc; i += 2) {
		const struct usbeth_knob *k = cli_knob_find(argv[i]);
		struct cli_kv *kv;
		char sug[96];
		size_t j;

		if (!k) {
			seterr(e, "%s: unknown knob '%.64s'%s", ctx, argv[i],
			       mean(sug, sizeof(sug), argv[i], knob_words()));
			if (!cli_suggest(argv[i], knob_words()))
				snprintf(e->msg + strlen(e->msg),
					 sizeof(e->msg) - strlen(e->msg),
					 " (usbeth link help lists them)");
			return -1;
		}
		for (j = 0; j < c->n_kv; j++) {
			if (c->kv[j].knob == k) {
				seterr(e, "%s: %s given twice", ctx, k->name);
				return -1;
			}
		}
		if (i + 1 >= argc) {
			seterr(e, "%s: %s needs a value", ctx, k->name);
			return -1;
		}
		if (c->n_kv >= CLI_KV_MAX) {	/* not reached: no repeats */
			seterr(e, "%s: too many knobs", ctx);
			return -1;
		}
		kv = &c->kv[c->n_kv];
		if (cli_parse_value(k, argv[i + 1], &kv->value, e)) {
			char msg[CLI_ERR_LEN];

			memcpy(msg, e->msg, sizeof(msg));
			seterr(e, "%s: %s", ctx, msg);
			return -1;
		}
		kv->knob = k;
		kv->text = argv[i + 1];
		c->n_kv++;
		if (usbeth_set_value(&c->set, k->attr, kv->value)) {
			seterr(e, "%s: %s cannot be set", ctx, k->name);
			return -1;
		}
		if (is_bql_attr(k->attr))
			bql = true;
	}
	if (!c->n_kv) {
		seterr(e, "%s: nothing to set (KNOB VALUE ...; usbeth link help lists them)",
		       ctx);
		return -1;
	}
	if ((c->set.has & USBETH_BIT(USBETH_A_BQL_QUEUE_INDEX)) && !bql) {
		seterr(e, "%s: queue applies to bql-limit-min, bql-limit-max and bql-hold-time; give one of them",
		       ctx);
		return -1;
	}
	return 0;
}

static int parse_link(int argc, char *const *argv, struct cli_cmd *c,
		      struct cli_err *e)
{
	char sug[96];

	if (argc == 1) {
		c->verb = CLI_LINK_SHOW;
		return 0;
	}
	if (!strcmp(argv[1], "show"))
		return parse_show(argc - 1, argv + 1, c, e);
	if (!strcmp(argv[1], "set"))
		return parse_set(argc - 1, argv + 1, c, e);
	if (!strcmp(argv[1], "help"))
		return help_of(argc - 1, argv + 1, CLI_TOPIC_LINK, c, e);
	seterr(e, "link: unknown command '%.64s'%s", argv[1],
	       mean(sug, sizeof(sug), argv[1], link_words));
	if (!cli_suggest(argv[1], link_words))
		snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
			 " (show, set, help)");
	return -1;
}

static int parse_monitor(int argc, char *const *argv, struct cli_cmd *c,
			 struct cli_err *e)
{
	char sug[96];

	c->verb = CLI_MONITOR;
	if (argc == 1)
		return 0;
	if (!strcmp(argv[1], "help"))
		return help_of(argc - 1, argv + 1, CLI_TOPIC_MONITOR, c, e);
	if (!strcmp(argv[1], "list")) {
		c->list = true;
		if (argc > 2) {
			seterr(e, "monitor list: unexpected '%.64s'", argv[2]);
			return -1;
		}
		return 0;
	}
	seterr(e, "monitor: unknown keyword '%.64s'%s", argv[1],
	       mean(sug, sizeof(sug), argv[1], monitor_words));
	return -1;
}

int cli_parse_cmd(int argc, char *const *argv, struct cli_cmd *c,
		  struct cli_err *e)
{
	char sug[96];

	memset(c, 0, sizeof(*c));
	e->msg[0] = '\0';
	if (argc < 1) {
		seterr(e, "missing OBJECT (link, monitor, help)");
		return -1;
	}
	if (!strcmp(argv[0], "link"))
		return parse_link(argc, argv, c, e);
	if (!strcmp(argv[0], "monitor"))
		return parse_monitor(argc, argv, c, e);
	if (!strcmp(argv[0], "help")) {
		c->verb = CLI_HELP;
		c->topic = CLI_TOPIC_MAIN;
		if (argc == 1)
			return 0;
		if (argc == 2 && !strcmp(argv[1], "link"))
			c->topic = CLI_TOPIC_LINK;
		else if (argc == 2 && !strcmp(argv[1], "monitor"))
			c->topic = CLI_TOPIC_MONITOR;
		else
			return help_of(argc, argv, CLI_TOPIC_MAIN, c, e);
		return 0;
	}
	seterr(e, "unknown object '%.64s'%s", argv[0],
	       mean(sug, sizeof(sug), argv[0], object_words));
	if (!cli_suggest(argv[0], object_words))
		snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
			 " (link, monitor, help)");
	return -1;
}

const struct cli_kv *cli_cmd_kv(const struct cli_cmd *c, int attr)
{
	size_t i;

	for (i = 0; i < c->n_kv; i++)
		if (c->kv[i].knob->attr == attr)
			return &c->kv[i];
	return NULL;
}

/* -------------------------------------------------------------- batch -- */

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int cli_split(char *line, char **argv, int max, struct cli_err *e)
{
	char *p = line;
	int n = 0;

	for (;;) {
		char *d;

		while (blank(*p))
			p++;
		if (!*p || *p == '#')
			return n;
		if (n >= max) {
			seterr(e, "more than %d words", max);
			return -1;
		}
		argv[n++] = d = p;
		while (*p && !blank(*p)) {
			if (*p == '"' || *p == '\'') {
				char q = *p++;

				while (*p && *p != q)
					*d++ = *p++;
				if (*p != q) {
					seterr(e, "unterminated %s quote",
					       q == '"' ? "double" : "single");
					return -1;
				}
				p++;
			} else {
				*d++ = *p++;
			}
		}
		if (*p)
			p++;	/* the blank, about to be overwritten */
		*d = '\0';
	}
}

__attribute__((format(printf, 2, 3)))
static void bad_line(struct cli_line *l, const char *fmt, ...)
{
	char msg[CLI_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->ok = false;
	seterr(&l->err, "%s", msg);
}

void cli_batch_begin(struct cli_batch_iter *it, const char *text, size_t len)
{
	it->text = text;
	it->len = len;
	it->off = 0;
	it->lineno = 0;
}

int cli_batch_next(struct cli_batch_iter *it, struct cli_line *l)
{
	while (it->off < it->len) {
		const char *start = it->text + it->off;
		const char *nl = memchr(start, '\n', it->len - it->off);
		size_t ll = nl ? (size_t)(nl - start) : it->len - it->off;
		int argc;

		it->off += ll + (nl ? 1 : 0);
		it->lineno++;
		memset(l, 0, sizeof(*l));
		l->lineno = it->lineno;
		l->ok = true;
		if (memchr(start, '\0', ll)) {
			bad_line(l, "the line holds a NUL byte");
			return 1;
		}
		if (ll > CLI_LINE_MAX) {
			bad_line(l, "the line is longer than %d bytes",
				 CLI_LINE_MAX);
			return 1;
		}
		memcpy(it->line, start, ll);
		it->line[ll] = '\0';
		argc = cli_split(it->line, it->argv, CLI_WORDS_MAX, &l->err);
		if (argc == 0)
			continue;	/* blank or comment */
		if (argc < 0) {
			l->ok = false;
			return 1;
		}
		l->argc = argc;
		l->argv = it->argv;
		if (it->argv[0][0] == '-' && it->argv[0][1])
			bad_line(l, "options (here '%.64s') go before -b, not in a batch line",
				 it->argv[0]);
		else if (!strcmp(it->argv[0], "usbeth"))
			bad_line(l, "batch lines do not start with 'usbeth' (write 'link set ...')");
		else if (cli_parse_cmd(argc, it->argv, &l->cmd, &l->err))
			l->ok = false;
		else if (l->cmd.verb == CLI_MONITOR)
			bad_line(l, "monitor does not run in a batch");
		return 1;
	}
	return 0;
}
