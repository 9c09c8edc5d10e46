// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd profiles, parsing: a profile file's text to a struct profile,
 * with the schema checked (profile.h; the set is profile_set.c, matching
 * and selection profile_match.c). Every input is hostile: sizes, depths, list lengths and values are
 * bounded, unknown keys are errors (a typo must not silently do nothing),
 * and every error names the file, line and column.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "profile.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The usbeth knobs come from libusbeth's one table (USBETH_KNOBS). */
#define K_USBETH(ID, NAME, ATTR, STRUCT, FIELD, CAP, UNIT, MIN, MAX, DEVMAX) \
	[K_##ID] = { NAME, KIND_USBETH, ATTR, CAP, MIN, MAX, false,	\
		     (DEVMAX) != 0 },
const struct knob_info knob_table[K_COUNT] = {
	USBETH_KNOBS(K_USBETH)
	[K_MTU] = { "mtu", KIND_RTNL, 0, 0, 68, 65535, false, false },
	[K_TXQUEUELEN] = { "txqueuelen", KIND_RTNL, 0, 0, 0, 1000000, false,
			   false },
	[K_SG] = { "sg", KIND_ETHTOOL, 0, 0, 0, 1, true, false },
	[K_GSO] = { "gso", KIND_ETHTOOL, 0, 0, 0, 1, true, false },
	[K_TSO] = { "tso", KIND_ETHTOOL, 0, 0, 0, 1, true, false },
};
#undef K_USBETH

int knob_by_name(const char *name)
{
	char buf[32];
	size_t i;

	for (i = 0; name[i] && i < sizeof(buf) - 1; i++)
		buf[i] = name[i] == '_' ? '-' : name[i];
	if (name[i])
		return -1;
	buf[i] = 0;
	for (i = 0; i < K_COUNT; i++)
		if (!strcmp(knob_table[i].name, buf))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------ positions ---- */

void text_line_col(const char *text, size_t len, size_t off,
		   unsigned int *line, unsigned int *col)
{
	unsigned int l = 1, c = 1;
	size_t i;

	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			c++;	/* columns count characters, not bytes */
		}
	}
	*line = l;
	*col = c;
}

void perr_format(const struct perr *e, char *buf, size_t len)
{
	if (e->line)
		snprintf(buf, len, "%s:%u:%u: %s", e->file, e->line, e->col,
			 e->msg);
	else
		snprintf(buf, len, "%s: %s", e->file, e->msg);
}

/*
 * A path into the document, to find where a value that json-c accepted but
 * the schema refuses starts. json-c keeps no positions, so the text (which
 * json-c has already parsed in strict mode, i.e. is valid JSON) is scanned
 * again along the path.
 */
struct jpath {
	int depth;
	struct { const char *key; int index; } el[4];	/* key NULL: index */
};

struct scan {
	const char *t;
	size_t len, pos;
};

static void sc_ws(struct scan *s)
{
	while (s->pos < s->len && strchr(" \t\r\n", s->t[s->pos]))
		s->pos++;
}

/* Past white space and the character c; false when another comes. */
static bool sc_char(struct scan *s, char c)
{
	sc_ws(s);
	if (s->pos >= s->len || s->t[s->pos] != c)
		return false;
	s->pos++;
	return true;
}

/* At a '"': the string's end (past the closing quote); its raw contents
 * in [*b, *e).
 */
static bool sc_string(struct scan *s, size_t *b, size_t *e)
{
	if (s->pos >= s->len || s->t[s->pos] != '"')
		return false;
	*b = ++s->pos;
	while (s->pos < s->len && s->t[s->pos] != '"') {
		if (s->t[s->pos] == '\\')
			s->pos++;
		s->pos++;
	}
	if (s->pos >= s->len)
		return false;
	*e = s->pos++;
	return true;
}

static bool sc_skip_value(struct scan *s, int depth)
{
	size_t b, e;

	if (depth > 64)
		return false;
	sc_ws(s);
	if (s->pos >= s->len)
		return false;
	switch (s->t[s->pos]) {
	case '"':
		return sc_string(s, &b, &e);
	case '{':
	case '[': {
		char close = s->t[s->pos] == '{' ? '}' : ']';
		bool obj = close == '}';

		s->pos++;
		sc_ws(s);
		if (s->pos < s->len && s->t[s->pos] == close) {
			s->pos++;
			return true;
		}
		for (;;) {
			if (obj) {
				sc_ws(s);
				if (!sc_string(s, &b, &e))
					return false;
				if (!sc_char(s, ':'))
					return false;
			}
			if (!sc_skip_value(s, depth + 1))
				return false;
			sc_ws(s);
			if (s->pos >= s->len)
				return false;
			if (s->t[s->pos] == close) {
				s->pos++;
				return true;
			}
			if (s->t[s->pos] != ',')
				return false;
			s->pos++;
		}
	}
	default:
		while (s->pos < s->len && !strchr(",]} \t\r\n", s->t[s->pos]))
			s->pos++;
		return true;
	}
}

/* ------------------------------------------------- duplicate keys -- */

/*
 * json-c keeps the last of two equal keys of an object, silently; a profile
 * that says "qmult" twice is refused instead. Keys are compared decoded
 * ("q\u006dult" is "qmult"), sorted, so a large object costs n log n.
 */
struct dkey {
	char *s;
	size_t len, off;	/* decoded bytes; the key's offset */
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes the raw string t[b, e) (valid JSON) into out (e - b bytes at
 * most: no escape decodes longer than it is written). Its length.
 */
static size_t jdecode(const char *t, size_t b, size_t e, char *out)
{
	size_t o = 0, i = b;

	while (i < e) {
		unsigned int cp = 0;
		int k;

		if (t[i] != '\\') {
			out[o++] = t[i++];
			continue;
		}
		i++;
		if (i >= e)
			break;
		switch (t[i]) {
		case 'b': out[o++] = '\b'; i++; continue;
		case 'f': out[o++] = '\f'; i++; continue;
		case 'n': out[o++] = '\n'; i++; continue;
		case 'r': out[o++] = '\r'; i++; continue;
		case 't': out[o++] = '\t'; i++; continue;
		case 'u': break;
		default: out[o++] = t[i++]; continue;
		}
		for (k = 0, i++; k < 4 && i < e; k++, i++)
			cp = cp << 4 | (unsigned int)(hexval(t[i]) & 15);
		if (cp >= 0xd800 && cp <= 0xdbff && i + 6 <= e &&
		    t[i] == '\\' && t[i + 1] == 'u') {
			unsigned int lo = 0;

			for (k = 2; k < 6; k++)
				lo = lo << 4 | (unsigned int)(hexval(t[i + k]) &
							      15);
			if (lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
				i += 6;
			}
		}
		/* as UTF-8 (a lone surrogate too): at most 4 bytes, never
		 * more than its 6 or 12 written
		 */
		if (cp < 0x80) {
			out[o++] = (char)cp;
		} else if (cp < 0x800) {
			out[o++] = (char)(0xc0 | cp >> 6);
			out[o++] = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			out[o++] = (char)(0xe0 | cp >> 12);
			out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (cp & 0x3f));
		} else {
			out[o++] = (char)(0xf0 | cp >> 18);
			out[o++] = (char)(0x80 | ((cp >> 12) & 0x3f));
			out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (cp & 0x3f));
		}
	}
	return o;
}

static int dkey_cmp(const void *a, const void *b)
{
	const struct dkey *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Walks the value at s (valid JSON); on an object with a key twice, false
 * with *dup the offset of the second and *key (malloc'd, decoded) its name.
 * Out of memory counts as no duplicate (json-c has parsed the text).
 */
static bool sc_nodup(struct scan *s, int depth, size_t *dup, char **key)
{
	struct dkey *keys = NULL;
	size_t n = 0, cap = 0, b, e, i;
	bool ok = true;
	char close;

	if (depth > 64)
		return true;
	sc_ws(s);
	if (s->pos >= s->len)
		return true;
	if (s->t[s->pos] != '{' && s->t[s->pos] != '[')
		return sc_skip_value(s, depth), true;
	close = s->t[s->pos] == '{' ? '}' : ']';
	s->pos++;
	if (sc_char(s, close))
		return true;
	for (;;) {
		if (close == '}') {
			size_t koff;

			sc_ws(s);
			koff = s->pos;
			if (!sc_string(s, &b, &e) || !sc_char(s, ':'))
				break;
			if (n == cap) {
				size_t c = cap ? cap * 2 : 16;
				struct dkey *k = realloc(keys, c * sizeof(*k));

				if (!k)
					break;
				keys = k;
				cap = c;
			}
			keys[n].s = malloc(e - b + 1);
			if (!keys[n].s)
				break;
			keys[n].len = jdecode(s->t, b, e, keys[n].s);
			keys[n].off = koff;
			n++;
		}
		if (!sc_nodup(s, depth + 1, dup, key)) {
			ok = false;
			break;
		}
		if (!sc_char(s, ','))
			break;
	}
	sc_char(s, close);
	if (ok && n > 1) {
		qsort(keys, n, sizeof(*keys), dkey_cmp);
		for (i = 1; i < n && ok; i++)
			if (keys[i].len == keys[i - 1].len &&
			    !memcmp(keys[i].s, keys[i - 1].s, keys[i].len)) {
				ok = false;
				*dup = keys[i].off;
				*key = strndup(keys[i].s, keys[i].len);
			}
	}
	for (i = 0; i < n; i++)
		free(keys[i].s);
	free(keys);
	return ok;
}

/* Offset of the value at path (or of its key when key_pos), or of the
 * deepest part of the path found.
 */
static size_t locate(const char *text, size_t len, const struct jpath *p,
		     bool key_pos)
{
	struct scan s = { text, len, 0 };
	size_t found = 0, b, e;
	int d;

	sc_ws(&s);
	found = s.pos;
	for (d = 0; d < p->depth; d++) {
		bool last = d == p->depth - 1;

		sc_ws(&s);
		if (s.pos >= len)
			return found;
		if (p->el[d].key) {
			bool hit = false;

			if (text[s.pos] != '{')
				return found;
			s.pos++;
			for (;;) {
				size_t kpos;

				sc_ws(&s);
				kpos = s.pos;
				if (!sc_string(&s, &b, &e))
					return found;
				if (!sc_char(&s, ':'))
					return found;
				if (e - b == strlen(p->el[d].key) &&
				    !memcmp(text + b, p->el[d].key, e - b)) {
					sc_ws(&s);
					found = last && key_pos ? kpos : s.pos;
					hit = true;
					break;
				}
				if (!sc_skip_value(&s, 0) || !sc_char(&s, ','))
					return found;
			}
			if (!hit)
				return found;
		} else {
			int i;

			if (text[s.pos] != '[')
				return found;
			s.pos++;
			for (i = 0; i < p->el[d].index; i++)
				if (!sc_skip_value(&s, 0) || !sc_char(&s, ','))
					return found;
			sc_ws(&s);
			found = s.pos;
		}
	}
	return found;
}

/* ---------------------------------------------------------- parsing -- */

struct pctx {
	const char *file, *text;
	size_t len;
	struct perr *err;
	struct jpath path;
};

static void path_push_key(struct pctx *c, const char *key)
{
	if (c->path.depth < (int)ARRAY_SIZE(c->path.el)) {
		c->path.el[c->path.depth].key = key;
		c->path.el[c->path.depth].index = 0;
	}
	c->path.depth++;
}

static void path_push_index(struct pctx *c, int i)
{
	if (c->path.depth < (int)ARRAY_SIZE(c->path.el)) {
		c->path.el[c->path.depth].key = NULL;
		c->path.el[c->path.depth].index = i;
	}
	c->path.depth++;
}

static void path_pop(struct pctx *c)
{
	c->path.depth--;
}

/* Fills c->err at the current path (the key itself when key_pos). */
__attribute__((format(printf, 3, 4)))
static int fail(struct pctx *c, bool key_pos, const char *fmt, ...)
{
	struct jpath p = c->path;
	va_list ap;
	size_t off;

	if (p.depth > (int)ARRAY_SIZE(p.el))
		p.depth = ARRAY_SIZE(p.el);
	off = locate(c->text, c->len, &p, key_pos);
	snprintf(c->err->file, sizeof(c->err->file), "%s", c->file);
	text_line_col(c->text, c->len, off, &c->err->line, &c->err->col);
	va_start(ap, fmt);
	vsnprintf(c->err->msg, sizeof(c->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* A string without embedded NUL, of at most max bytes. */
static int get_str(struct pctx *c, json_object *o, size_t max,
		   const char **out, const char *what)
{
	const char *s;
	int n;

	if (!json_object_is_type(o, json_type_string))
		return fail(c, false, "%s must be a string", what);
	s = json_object_get_string(o);
	n = json_object_get_string_len(o);
	if (!s || n < 0 || strlen(s) != (size_t)n)
		return fail(c, false, "%s contains a NUL character", what);
	if ((size_t)n > max)
		return fail(c, false, "%s is longer than %zu bytes", what,
			    max);
	*out = s;
	return 0;
}

static int dup_str(struct pctx *c, json_object *o, size_t max, char **out,
		   const char *what)
{
	const char *s;

	if (get_str(c, o, max, &s, what))
		return -1;
	*out = strdup(s);
	if (!*out)
		return fail(c, false, "out of memory");
	return 0;
}

/* A string or a list of strings: calls one() on each, with the path
 * pointing at it.
 */
typedef int (*item_fn)(struct pctx *c, json_object *o, void *arg, size_t i);

static int each_item(struct pctx *c, json_object *o, const char *what,
		     size_t *count, item_fn one, void *arg)
{
	size_t i, n;

	if (json_object_is_type(o, json_type_array)) {
		n = json_object_array_length(o);
		if (n == 0)
			return fail(c, false, "%s: empty list", what);
		if (n > PROFILE_LIST_MAX)
			return fail(c, false, "%s: more than %d entries", what,
				    PROFILE_LIST_MAX);
		for (i = 0; i < n; i++) {
			int r;

			path_push_index(c, (int)i);
			r = one(c, json_object_array_get_idx(o, i), arg, i);
			path_pop(c);
			if (r)
				return -1;
			*count = i + 1;	/* what profile_free() releases */
		}
		return 0;
	}
	if (one(c, o, arg, 0))
		return -1;
	*count = 1;
	return 0;
}

int usb_id_parse(const char *s, uint16_t *out)
{
	unsigned long v = 0;
	const char *p = s;
	size_t n;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	n = strlen(p);
	if (n < 1 || n > 4)
		return -1;
	for (; *p; p++) {
		if (!isxdigit((unsigned char)*p))
			return -1;
		v = v * 16 + (unsigned long)(isdigit((unsigned char)*p) ?
			*p - '0' : (tolower((unsigned char)*p) - 'a' + 10));
	}
	*out = (uint16_t)v;
	return 0;
}

static int one_id(struct pctx *c, json_object *o, void *arg, size_t i)
{
	struct id_match *ids = arg;
	const char *s;

	if (json_object_is_type(o, json_type_int)) {
		int64_t x = json_object_get_int64(o);

		if (x < 0 || x > 0xffff)
			return fail(c, false, "USB id %lld out of range 0..0xffff",
				    (long long)x);
		ids[i].id = (uint16_t)x;
		return 0;
	}
	if (get_str(c, o, 16, &s, "a USB id"))
		return -1;
	if (!strcmp(s, "*")) {
		ids[i].any = true;
		return 0;
	}
	if (!usb_id_parse(s, &ids[i].id))
		return 0;
	return fail(c, false, "bad USB id \"%s\": want 1 to 4 hex digits "
		    "(e.g. \"17e9\") or \"*\"", s);
}

static int one_strdup(struct pctx *c, json_object *o, void *arg, size_t i)
{
	char **v = arg;

	return dup_str(c, o, 255, &v[i], "the value");
}

static int one_glob(struct pctx *c, json_object *o, void *arg, size_t i)
{
	char **v = arg;

	return dup_str(c, o, 63, &v[i], "an interface name glob");
}

int role_parse(const char *s)
{
	if (!strcmp(s, "host") || !strcmp(s, "usb-host"))
		return USBETH_ROLE_USB_HOST;
	if (!strcmp(s, "gadget") || !strcmp(s, "usb-gadget"))
		return USBETH_ROLE_USB_GADGET;
	if (!strcmp(s, "other"))
		return USBETH_ROLE_OTHER;
	return -1;
}

static int one_role(struct pctx *c, json_object *o, void *arg, size_t i)
{
	uint32_t *roles = arg;
	const char *s;
	int r;

	(void)i;
	if (get_str(c, o, 32, &s, "a role"))
		return -1;
	r = role_parse(s);
	if (r < 0)
		return fail(c, false, "unknown role \"%s\": want \"host\", "
			    "\"gadget\" or \"other\"", s);
	*roles |= 1U << r;
	return 0;
}

static int one_comment(struct pctx *c, json_object *o, void *arg, size_t i)
{
	const char *s;

	(void)arg;
	(void)i;
	return get_str(c, o, 4096, &s, "a comment");
}

static int speed_value(struct pctx *c, json_object *o, int *out)
{
	const char *s;
	int v;

	if (get_str(c, o, 32, &s, "a speed"))
		return -1;
	v = usbeth_speed_parse(s);
	if (v <= USBETH_USB_SPEED_UNKNOWN)
		return fail(c, false, "unknown speed \"%s\": want low, full, "
			    "high, wireless, super or super-plus", s);
	*out = v;
	return 0;
}

static int parse_match(struct pctx *c, json_object *m, struct profile *p)
{
	struct profile_match *pm = &p->match;

	if (!json_object_is_type(m, json_type_object))
		return fail(c, false, "\"match\" must be an object");
	pm->present = true;
	json_object_object_foreach(m, key, val) {
		int r = 0;

		path_push_key(c, key);
		if (!strcmp(key, "vid"))
			r = each_item(c, val, "vid", &pm->n_vid, one_id,
				      pm->vid);
		else if (!strcmp(key, "pid"))
			r = each_item(c, val, "pid", &pm->n_pid, one_id,
				      pm->pid);
		else if (!strcmp(key, "driver"))
			r = each_item(c, val, "driver", &pm->n_driver,
				      one_strdup, pm->driver);
		else if (!strcmp(key, "ifname"))
			r = each_item(c, val, "ifname", &pm->n_ifname,
				      one_glob, pm->ifname);
		else if (!strcmp(key, "role")) {
			size_t n = 0;

			r = each_item(c, val, "role", &n, one_role,
				      &pm->roles);
		} else if (!strcmp(key, "speed"))
			r = speed_value(c, val, &pm->speed);
		else if (!strcmp(key, "speed-min"))
			r = speed_value(c, val, &pm->speed_min);
		else if (!strcmp(key, "comment")) {
			size_t n = 0;

			r = each_item(c, val, "comment", &n, one_comment,
				      NULL);
		} else
			r = fail(c, true, "unknown match key \"%s\" (known: "
				 "vid, pid, driver, role, speed, speed-min, "
				 "ifname, comment)", key);
		path_pop(c);
		if (r)
			return -1;
	}
	/* a netdev not on USB (e1000e, ...) only when asked for, by driver */
	if ((pm->roles & (1U << USBETH_ROLE_OTHER)) && !pm->n_driver) {
		path_push_key(c, "role");
		fail(c, true, "\"match\": role \"other\" (netdevs not on "
		     "USB) needs a \"driver\"");
		path_pop(c);
		return -1;
	}
	if (pm->speed >= 0 && pm->speed_min >= 0) {
		path_push_key(c, "speed-min");
		fail(c, true, "\"match\": give \"speed\" or "
		     "\"speed-min\", not both");
		path_pop(c);
		return -1;
	}
	return 0;
}

static int parse_setting(struct pctx *c, int k, json_object *v,
			 struct knob_val *out)
{
	const struct knob_info *ki = &knob_table[k];
	int64_t x;

	if (!v) {		/* null: leave alone */
		out->kind = V_UNSET;
		return 0;
	}
	if (ki->boolean) {
		if (!json_object_is_type(v, json_type_boolean))
			return fail(c, false, "\"%s\" must be true or false "
				    "(or null)", ki->name);
		out->kind = V_VALUE;
		out->value = json_object_get_boolean(v) ? 1 : 0;
		return 0;
	}
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);

		if (ki->device_max && s && !strcmp(s, "device-max") &&
		    (size_t)json_object_get_string_len(v) == strlen(s)) {
			out->kind = V_DEVICE_MAX;
			return 0;
		}
		return fail(c, false, "\"%s\" must be an integer%s", ki->name,
			    ki->device_max ? " or \"device-max\"" : "");
	}
	if (!json_object_is_type(v, json_type_int))
		return fail(c, false, "\"%s\" must be an integer%s", ki->name,
			    ki->device_max ? " or \"device-max\"" : "");
	errno = 0;
	x = json_object_get_int64(v);
	if (x < (int64_t)ki->min || x > (int64_t)ki->max || errno == ERANGE)
		return fail(c, false, "\"%s\": %lld is out of range %u..%u",
			    ki->name, (long long)x, ki->min, ki->max);
	if (k == K_TX_TIMER_USECS && x != 0 && x < USBETH_TX_TIMER_MIN_USECS)
		return fail(c, false, "\"%s\": %lld: want 0 (off) or %d..%d",
			    ki->name, (long long)x, USBETH_TX_TIMER_MIN_USECS,
			    USBETH_TX_TIMER_MAX_USECS);
	out->kind = V_VALUE;
	out->value = (uint32_t)x;
	return 0;
}

static int parse_settings(struct pctx *c, json_object *s, struct profile *p)
{
	if (!json_object_is_type(s, json_type_object))
		return fail(c, false, "\"settings\" must be an object");
	json_object_object_foreach(s, key, val) {
		int k, r;

		path_push_key(c, key);
		if (!strcmp(key, "comment")) {
			size_t n = 0;

			r = each_item(c, val, "comment", &n, one_comment,
				      NULL);
		} else if ((k = knob_by_name(key)) < 0) {
			r = fail(c, true, "unknown setting \"%s\"", key);
		} else {
			r = parse_setting(c, k, val, &p->set[k]);
		}
		path_pop(c);
		if (r)
			return -1;
	}
	if (p->set[K_BQL_LIMIT_MIN].kind == V_VALUE &&
	    p->set[K_BQL_LIMIT_MAX].kind == V_VALUE &&
	    p->set[K_BQL_LIMIT_MIN].value > p->set[K_BQL_LIMIT_MAX].value) {
		path_push_key(c, "bql-limit-min");
		fail(c, false, "\"bql-limit-min\" %u is above "
		     "\"bql-limit-max\" %u", p->set[K_BQL_LIMIT_MIN].value,
		     p->set[K_BQL_LIMIT_MAX].value);
		path_pop(c);
		return -1;
	}
	return 0;
}

bool profile_name_ok(const char *n)
{
	size_t i, len = strlen(n);

	if (len == 0 || len > PROFILE_NAME_MAX || n[0] == '.')
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)n[i]) && !strchr("._-+@", n[i]))
			return false;
	return true;
}

static int parse_top(struct pctx *c, json_object *root, struct profile *p)
{
	if (!json_object_is_type(root, json_type_object))
		return fail(c, false, "a profile must be a JSON object");
	json_object_object_foreach(root, key, val) {
		int r = 0;

		path_push_key(c, key);
		if (!strcmp(key, "description")) {
			r = dup_str(c, val, 1024, &p->description,
				    "\"description\"");
		} else if (!strcmp(key, "comment")) {
			size_t n = 0;

			r = each_item(c, val, "comment", &n, one_comment,
				      NULL);
		} else if (!strcmp(key, "extends")) {
			r = dup_str(c, val, PROFILE_NAME_MAX, &p->extends,
				    "\"extends\"");
			if (!r && !profile_name_ok(p->extends))
				r = fail(c, false, "\"extends\": \"%s\" is not "
					 "a profile name", p->extends);
			if (!r && !strcmp(p->extends, p->name))
				r = fail(c, false, "\"extends\": a profile "
					 "cannot extend itself");
		} else if (!strcmp(key, "priority")) {
			int64_t x;

			if (!json_object_is_type(val, json_type_int)) {
				r = fail(c, false, "\"priority\" must be an "
					 "integer");
			} else {
				x = json_object_get_int64(val);
				if (x < -PROFILE_PRIO_LIMIT ||
				    x > PROFILE_PRIO_LIMIT)
					r = fail(c, false, "\"priority\" must "
						 "be within -%d..%d",
						 PROFILE_PRIO_LIMIT,
						 PROFILE_PRIO_LIMIT);
				else
					p->priority = (int)x;
			}
		} else if (!strcmp(key, "match")) {
			r = parse_match(c, val, p);
		} else if (!strcmp(key, "settings")) {
			r = parse_settings(c, val, p);
		} else {
			r = fail(c, true, "unknown key \"%s\" (known: "
				 "description, comment, extends, priority, "
				 "match, settings)", key);
		}
		path_pop(c);
		if (r)
			return -1;
	}
	return 0;
}

void profile_free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->match.n_driver; i++)
		free(p->match.driver[i]);
	for (i = 0; i < p->match.n_ifname; i++)
		free(p->match.ifname[i]);
	free(p->file);
	free(p->description);
	free(p->extends);
	free(p);
}

int profile_parse(const char *file, const char *name, const char *text,
		  size_t len, struct profile **out, struct perr *err)
{
	struct pctx c = { file, text, len, err, { 0 } };
	struct json_tokener *tok;
	json_object *root;
	struct profile *p;
	enum json_tokener_error jerr;
	int r;

	*out = NULL;
	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", file);
	if (!profile_name_ok(name)) {
		snprintf(err->msg, sizeof(err->msg), "\"%s\" is not a valid "
			 "profile name (letters, digits, . _ - + @; at most "
			 "%d)", name, PROFILE_NAME_MAX);
		return -1;
	}
	if (len > PROFILE_FILE_MAX) {
		snprintf(err->msg, sizeof(err->msg), "larger than %d bytes",
			 PROFILE_FILE_MAX);
		return -1;
	}
	if (len > INT_MAX)
		return -1;
	tok = json_tokener_new_ex(16);
	if (!tok) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -1;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!root || jerr != json_tokener_success) {
		size_t off = json_tokener_get_parse_end(tok);

		if (jerr == json_tokener_continue)
			snprintf(err->msg, sizeof(err->msg),
				 "unexpected end of file");
		else
			snprintf(err->msg, sizeof(err->msg), "%s",
				 json_tokener_error_desc(jerr));
		/* json-c stops at the offending character; point at the offending token, not the blank before it */
		while (off < len && strchr(" \t\r\n", text[off]))
			off++;
		text_line_col(text, len, off, &err->line, &err->col);
		json_object_put(root);
		json_tokener_free(tok);
		return -1;
	}
	{
		/* only whitespace may follow the document */
		size_t end = json_tokener_get_parse_end(tok);

		while (end < len && strchr(" \t\r\n", text[end]))
			end++;
		if (end < len) {
			snprintf(err->msg, sizeof(err->msg),
				 "trailing data after the JSON object");
			text_line_col(text, len, end, &err->line, &err->col);
			json_object_put(root);
			json_tokener_free(tok);
			return -1;
		}
	}
	json_tokener_free(tok);
	{
		struct scan sc = { text, len, 0 };
		size_t dup = 0;
		char *key = NULL;

		if (!sc_nodup(&sc, 0, &dup, &key)) {
			char safe[160];

			usbeth_escape(safe, sizeof(safe), key ? key : "?");
			snprintf(err->msg, sizeof(err->msg), "the key \"%s\" "
				 "appears twice in one object", safe);
			text_line_col(text, len, dup, &err->line, &err->col);
			free(key);
			json_object_put(root);
			return -1;
		}
	}

	p = calloc(1, sizeof(*p));
	if (!p || !(p->file = strdup(file))) {
		free(p);
		json_object_put(root);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -1;
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->match.speed = -1;
	p->match.speed_min = -1;
	r = parse_top(&c, root, p);
	json_object_put(root);
	if (r) {
		profile_free(p);
		return -1;
	}
	memcpy(p->eff, p->set, sizeof(p->eff));
	*out = p;
	return 0;
}
