// SPDX-License-Identifier: GPL-2.0
/* usbeth CLI: text and JSON output through one path (see out.h). */
#include <inttypes.h>
#include <string.h>

#include "out.h"
#include "usbeth.h"

void out_init(struct out *o, FILE *f, enum out_mode mode)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->mode = mode;
	o->line_start = true;
}

bool out_is_json(const struct out *o)
{
	return o->mode != OUT_TEXT;
}

/* Whether s is all UTF-8 (which JSON strings must be). */
static bool all_utf8(const unsigned char *p)
{
	while (*p) {
		size_t n = *p < 0x80 ? 1 : usbeth_utf8_len(p);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

void out_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	/* A name that is not UTF-8 (the kernel allows any byte but '/',
	 * ':' and white space) cannot be a JSON string: strict parsers
	 * (json-c 0.18, I-JSON) refuse lone surrogates and U+FFFD would
	 * lose it. It is written as the array of its bytes, as journalctl
	 * does, so 0xff and U+00FF stay apart and nothing is lost.
	 */
	if (!all_utf8(p)) {
		fputc('[', f);
		for (; *p; p++)
			fprintf(f, "%s%u", p == (const unsigned char *)s ? "" : ",", *p);
		fputc(']', f);
		return;
	}
	fputc('"', f);
	while (*p) {
		size_t n;

		switch (*p) {
		case '"': fputs("\\\"", f); p++; continue;
		case '\\': fputs("\\\\", f); p++; continue;
		case '\n': fputs("\\n", f); p++; continue;
		case '\t': fputs("\\t", f); p++; continue;
		case '\r': fputs("\\r", f); p++; continue;
		}
		if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
			p++;
			continue;
		}
		n = *p < 0x80 ? 1 : usbeth_utf8_len(p);
		fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

void out_text_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p <= ' ' || *p >= 0x7f || *p == '\\')
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

static void json_indent(struct out *o)
{
	int i;

	if (o->mode != OUT_JSON_PRETTY)
		return;
	fputc('\n', o->f);
	for (i = 0; i < o->depth; i++)
		fputs("    ", o->f);
}

/* Before a JSON member or element: the comma, the indent, the key. */
static void json_key(struct out *o, const char *key)
{
	if (o->depth > 0 && o->depth <= OUT_DEPTH_MAX) {
		if (o->need_comma[o->depth - 1])
			fputc(',', o->f);
		o->need_comma[o->depth - 1] = true;
		json_indent(o);
	}
	if (key) {
		out_json_string(o->f, key);
		fputs(o->mode == OUT_JSON_PRETTY ? ": " : ":", o->f);
	}
}

static void open_c(struct out *o, const char *key, char c)
{
	if (!out_is_json(o))
		return;
	json_key(o, key);
	fputc(c, o->f);
	o->depth++;
	if (o->depth <= OUT_DEPTH_MAX)
		o->need_comma[o->depth - 1] = false;
}

static void close_c(struct out *o, char c)
{
	bool had = false;

	if (!out_is_json(o) || o->depth == 0)
		return;
	if (o->depth <= OUT_DEPTH_MAX)
		had = o->need_comma[o->depth - 1];
	o->depth--;
	if (had)
		json_indent(o);
	fputc(c, o->f);
}

void out_obj_open(struct out *o, const char *key) { open_c(o, key, '{'); }
void out_obj_close(struct out *o) { close_c(o, '}'); }
void out_arr_open(struct out *o, const char *key) { open_c(o, key, '['); }
void out_arr_close(struct out *o) { close_c(o, ']'); }

/* Text: the separator or the pending indentation before an item. */
static void text_sep(struct out *o)
{
	if (o->line_start) {
		fprintf(o->f, "%*s", o->indent, "");
		o->line_start = false;
	} else {
		fputc(' ', o->f);
	}
}

void out_u32(struct out *o, const char *key, const char *fmt, uint32_t v)
{
	if (out_is_json(o)) {
		json_key(o, key);
		fprintf(o->f, "%" PRIu32, v);
		return;
	}
	text_sep(o);
	if (fmt)
		fprintf(o->f, fmt, v);
	else
		fprintf(o->f, "%s %" PRIu32, key, v);
}

void out_str(struct out *o, const char *key, const char *fmt, const char *s)
{
	const char *pct;

	if (out_is_json(o)) {
		json_key(o, key);
		out_json_string(o->f, s);
		return;
	}
	text_sep(o);
	if (!fmt) {
		fprintf(o->f, "%s ", key);
		out_text_string(o->f, s);
		return;
	}
	/* fmt holds one "%s": what is around it is written as is */
	pct = strstr(fmt, "%s");
	if (!pct) {
		fputs(fmt, o->f);
		return;
	}
	fwrite(fmt, 1, (size_t)(pct - fmt), o->f);
	out_text_string(o->f, s);
	fputs(pct + 2, o->f);
}

void out_str_elem(struct out *o, const char *s)
{
	if (!out_is_json(o))
		return;
	json_key(o, NULL);
	out_json_string(o->f, s);
}

void out_nl(struct out *o, int indent)
{
	if (out_is_json(o))
		return;
	if (!o->line_start)
		fputc('\n', o->f);
	o->line_start = true;
	o->indent = indent;
}

void out_text(struct out *o, const char *s)
{
	if (out_is_json(o))
		return;
	text_sep(o);
	fputs(s, o->f);
}

void out_end(struct out *o)
{
	if (out_is_json(o)) {
		if (o->depth == 0)
			fputc('\n', o->f);
	} else {
		out_nl(o, 0);
	}
	fflush(o->f);
}
