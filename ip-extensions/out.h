/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbeth CLI: one output path for text and JSON, in the manner of
 * iproute2's json_print. Each value is written through one call naming its
 * key: in text mode "key value" (or a caller's format), in JSON mode
 * "key": value. Text and JSON thus carry the same keys.
 *
 * Strings are escaped: in JSON, '"', '\' and control bytes per RFC 8259, and
 * each byte that is not part of valid UTF-8 as \u00XX (so the output is
 * always valid JSON); in text, bytes outside 0x21..0x7e (and '\') as \xNN.
 */
#ifndef USBETH_CLI_OUT_H
#define USBETH_CLI_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum out_mode {
	OUT_TEXT,
	OUT_JSON,		/* one line per top-level value */
	OUT_JSON_PRETTY,	/* indented by 4 */
};

#define OUT_DEPTH_MAX 16

struct out {
	FILE *f;
	enum out_mode mode;
	int depth;
	bool need_comma[OUT_DEPTH_MAX];
	bool line_start;	/* text: nothing written on this line yet */
	int indent;		/* text: spaces before the next item */
};

void out_init(struct out *o, FILE *f, enum out_mode mode);
bool out_is_json(const struct out *o);

/* JSON containers; key is NULL inside an array or at the top. Text mode
 * writes nothing for them.
 */
void out_obj_open(struct out *o, const char *key);
void out_obj_close(struct out *o);
void out_arr_open(struct out *o, const char *key);
void out_arr_close(struct out *o);

/* A number or a string. fmt is the text format (one %u / %s); NULL means
 * "key value". Items on one text line are separated by one space.
 */
void out_u32(struct out *o, const char *key, const char *fmt, uint32_t v);
void out_str(struct out *o, const char *key, const char *fmt, const char *s);
/* A string element of a JSON array (text: nothing). */
void out_str_elem(struct out *o, const char *s);

/* Text only: end the line; the next item is indented by indent spaces. */
void out_nl(struct out *o, int indent);
/* Text only: a literal word (an event tag "[new]"). */
void out_text(struct out *o, const char *s);

/* The end of one top-level value: text ends an unfinished line, JSON writes
 * the newline. Flushes.
 */
void out_end(struct out *o);

/* The escapers, for tests and for messages. */
void out_json_string(FILE *f, const char *s);
void out_text_string(FILE *f, const char *s);

#endif /* USBETH_CLI_OUT_H */
