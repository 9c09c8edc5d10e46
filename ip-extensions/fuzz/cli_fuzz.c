// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the usbeth CLI's parsers (parse.c) and string escapers
 * (out.c), with ASan and UBSan. The first byte of an input picks what it
 * feeds:
 *
 *   'a'  argument vector: the rest split at NUL bytes into words after
 *        "usbeth", through cli_parse_opts() and cli_parse_cmd()
 *   'b'  batch file: the rest, line by line through cli_batch_next()
 *   'j'  a string (up to its first NUL) through the JSON and text escapers
 *   'v'  a value: the second byte picks the unit, the rest is the text
 *   other: the same four, chosen by the byte modulo 4
 *
 * Besides crashes and sanitizer reports, it aborts when an invariant breaks:
 * a message that is empty, unterminated or holds a control byte; a set
 * request with attributes outside USBETH_SET_ATTRS or a value that does not
 * parse back; a batch whose line numbers do not increase; escaped output
 * that is not valid JSON string syntax / printable ASCII.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "parse.h"

#define MAX_WORDS 80

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "invariant broken: %s\n", what);
		abort();
	}
}

static void check_msg(const struct cli_err *e)
{
	size_t n = strnlen(e->msg, sizeof(e->msg)), i;

	check(n > 0 && n < sizeof(e->msg), "error message empty or unterminated");
	for (i = 0; i < n; i++)
		check((unsigned char)e->msg[i] >= 0x20 && e->msg[i] != 0x7f,
		      "control byte in an error message");
}

static void check_cmd(const struct cli_cmd *c)
{
	size_t i;

	if (c->verb != CLI_LINK_SET)
		return;
	check(c->dev && c->set.ifname == c->dev, "set without its device");
	check(c->n_kv > 0 && c->n_kv <= cli_n_knobs, "set knob count");
	check(!(c->set.has & ~USBETH_SET_ATTRS), "set attribute not settable");
	for (i = 0; i < c->n_kv; i++) {
		struct cli_err e;
		uint32_t v;

		check(c->set.has & USBETH_BIT(c->kv[i].knob->attr),
		      "knob without its attribute bit");
		check(!cli_parse_value(c->kv[i].knob, c->kv[i].text, &v, &e) &&
		      v == c->kv[i].value, "knob value does not parse back");
	}
}

static void fuzz_argv(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_WORDS + 1];
	struct cli_opts o;
	struct cli_cmd c;
	struct cli_err e;
	size_t i = 0;
	int argc = 1, at;

	if (!buf)
		return;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = (char *)"usbeth";
	while (i <= size && argc < MAX_WORDS) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	at = cli_parse_opts(argc, argv, &o, &e);
	if (at < 0) {
		check_msg(&e);
	} else {
		check(at <= argc, "option index past argc");
		check(!o.pretty || o.json, "pretty without json");
		if (o.netns)
			check(cli_netns_name_ok(o.netns), "bad netns accepted");
		if (cli_parse_cmd(argc - at, argv + at, &c, &e))
			check_msg(&e);
		else
			check_cmd(&c);
	}
	free(buf);
}

static void fuzz_batch(const uint8_t *data, size_t size)
{
	static struct cli_batch_iter it;
	static struct cli_line l;
	unsigned int last = 0;

	cli_batch_begin(&it, (const char *)data, size);
	while (cli_batch_next(&it, &l)) {
		check(l.lineno > last, "batch line numbers do not increase");
		last = l.lineno;
		if (l.ok) {
			check(l.argc > 0 && l.argv, "ok line without words");
			check(l.cmd.verb != CLI_MONITOR, "monitor in a batch");
			check_cmd(&l.cmd);
		} else {
			check_msg(&l.err);
		}
	}
	check(it.off == size, "batch not read to the end");
}

/* Valid UTF-8, checked independently of out.c. */
static int utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t len, k;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			len = 2;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			len = 3;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			len = 4;
			cp = c & 0x07;
		} else {
			return 0;
		}
		if (i + len > n)
			return 0;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

static void fuzz_escape(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *out = NULL;
	size_t olen = 0, i;
	FILE *f;

	if (!in)
		return;
	memcpy(in, data, size);
	in[size] = '\0';

	f = open_memstream(&out, &olen);
	if (!f)
		goto done;
	out_json_string(f, in);
	fclose(f);
	if (!utf8_ok((unsigned char *)in, strlen(in))) {
		/* Not UTF-8: the array of its bytes, each one given back. */
		const char *q = out + 1;
		size_t k = 0;

		check(olen >= 2 && out[0] == '[' && out[olen - 1] == ']',
		      "byte array not bracketed");
		while (in[k]) {
			char *end;
			unsigned long b = strtoul(q, &end, 10);

			/* plain decimal: strtoul would also take " +7" */
			check(*q >= '0' && *q <= '9' && end != q &&
			      b == (unsigned char)in[k],
			      "byte array does not give the name back");
			k++;
			check(*end == (in[k] ? ',' : ']'),
			      "byte array badly separated");
			q = end + 1;
		}
		check(q == out + olen, "byte array has trailing bytes");
		goto text;
	}
	check(olen >= 2 && out[0] == '"' && out[olen - 1] == '"',
	      "JSON string not quoted");
	for (i = 1; i + 1 < olen; i++) {
		unsigned char c = (unsigned char)out[i];

		check(c >= 0x20 && c != 0x7f, "raw control byte in JSON");
		if (c == '"')
			check(0, "raw quote in JSON string");
		if (c == '\\') {
			i++;
			check(i + 1 < olen, "escape at the end");
			if (out[i] == 'u') {
				check(i + 4 < olen, "short \\u escape");
				i += 4;
			} else {
				check(strchr("\"\\/bfnrt", out[i]) != NULL,
				      "bad JSON escape");
			}
		}
	}
	check(utf8_ok((unsigned char *)out, olen), "JSON output not UTF-8");
text:
	free(out);
	out = NULL;

	f = open_memstream(&out, &olen);
	if (!f)
		goto done;
	out_text_string(f, in);
	fclose(f);
	for (i = 0; i < olen; i++)
		check(out[i] > ' ' && out[i] < 0x7f, "unprintable text output");
done:
	free(out);
	free(in);
}

static void fuzz_value(const uint8_t *data, size_t size)
{
	char *in;
	uint32_t v = 0;
	int unit, err;

	if (size < 1)
		return;
	unit = data[0] % 4;
	in = malloc(size);
	if (!in)
		return;
	memcpy(in, data + 1, size - 1);
	in[size - 1] = '\0';
	if (unit == USBETH_UNIT_COUNT)
		err = cli_parse_count(in, &v);
	else if (unit == USBETH_UNIT_BYTES)
		err = cli_parse_size(in, &v);
	else
		err = cli_parse_time(in, (enum usbeth_unit)unit, &v);
	check(err == 0 || err == -EINVAL || err == -ERANGE || err == -EDOM,
	      "unexpected value error");
	if (!err && unit == USBETH_UNIT_COUNT)	/* a count is its digits */
		check(strtoull(in, NULL, 10) == v, "count value");
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int mode;

	if (size < 1)
		return 0;
	switch (data[0]) {
	case 'a': mode = 0; break;
	case 'b': mode = 1; break;
	case 'j': mode = 2; break;
	case 'v': mode = 3; break;
	default: mode = data[0] % 4; break;
	}
	data++;
	size--;
	switch (mode) {
	case 0: fuzz_argv(data, size); break;
	case 1: fuzz_batch(data, size); break;
	case 2: fuzz_escape(data, size); break;
	default: fuzz_value(data, size); break;
	}
	return 0;
}
