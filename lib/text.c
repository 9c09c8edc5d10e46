// SPDX-License-Identifier: GPL-2.0
/*
 * libusbeth: untrusted text made safe for a terminal or a log line. Device
 * names, profile keys and kernel messages may hold any byte; what reaches
 * a terminal or journald must not move the cursor, forge a line or reorder
 * what follows.
 */
#include <stdint.h>
#include <string.h>

#include "usbeth.h"

size_t usbeth_utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* The code point of a valid sequence of n bytes at s. */
static uint32_t utf8_cp(const unsigned char *s, size_t n)
{
	static const unsigned char lead[] = { 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead[n - 1];
	size_t i;

	for (i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/* Code points that reorder or hide text: C1 controls, the bidi marks,
 * embeddings, overrides and isolates.
 */
static bool cp_unsafe(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c ||
	       cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

size_t usbeth_escape(char *dst, size_t len, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;

	if (!len)
		return 0;
	while (*p) {
		char esc[4 * 6 + 1];
		size_t n = usbeth_utf8_len(p), m = 0, i;

		if (n == 1 && *p >= 0x20 && *p != 0x7f && *p != '\\') {
			esc[m++] = (char)*p;
		} else if (n > 1 && !cp_unsafe(utf8_cp(p, n))) {
			memcpy(esc, p, n);
			m = n;
		} else {
			/* the bytes as \xNN: a control, DEL, the escape
			 * character itself, invalid UTF-8 (one byte at a
			 * time), or a whole unsafe code point
			 */
			if (!n)
				n = 1;
			for (i = 0; i < n; i++) {
				esc[m++] = '\\';
				esc[m++] = 'x';
				esc[m++] = hex[p[i] >> 4];
				esc[m++] = hex[p[i] & 15];
			}
		}
		if (o + m >= len)
			break;		/* never half an escape */
		memcpy(dst + o, esc, m);
		o += m;
		p += n;
	}
	dst[o] = 0;
	return o;
}
