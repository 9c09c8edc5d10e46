/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbeth CLI: parsing of options, commands, values and batch files.
 *
 * Pure functions: no I/O, no sockets, no globals written. The CLI, its unit
 * tests (selftests/unit/cli_unit.sh) and its libFuzzer target link this file
 * alone (plus libusbeth's name tables and usbeth_set_value()).
 *
 * Every error is returned as text in a struct cli_err (no "usbeth: "
 * prefix); the caller prints it.
 */
#ifndef USBETH_CLI_PARSE_H
#define USBETH_CLI_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "usbeth.h"

/* Exit statuses (documented in usbeth(8)). */
enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_USAGE = 1,	/* command line or batch line is wrong */
	CLI_EXIT_REFUSED = 2,	/* the kernel or the system refused */
};

#define CLI_ERR_LEN	320

struct cli_err {
	char msg[CLI_ERR_LEN];
};

/* ------------------------------------------------------------ options -- */

struct cli_opts {
	bool json;
	bool pretty;		/* implies json */
	bool details;
	bool stats;
	bool force;
	bool version;
	bool help;
	const char *netns;	/* -n NAME */
	const char *batch;	/* -b FILE, "-" = stdin */
};

/*
 * Parses the options at argv[1..]: short ones (clustered booleans "-jd",
 * "-n NAME", "-nNAME", "-b FILE") and iproute2's long forms with one or two
 * dashes ("-json", "--netns NAME"). Stops at the first word that is not an
 * option, or after "--". Returns the index of that word (argc when there is
 * none), or -1 with e set.
 */
int cli_parse_opts(int argc, char *const *argv, struct cli_opts *o,
		   struct cli_err *e);

/* A netns name as `ip netns` makes them: a file name under /run/netns. */
bool cli_netns_name_ok(const char *name);

/* -------------------------------------------------------------- knobs -- */

/* The knobs of `link set`: libusbeth's one table (usbeth_knobs[]: name,
 * attribute, unit), then "queue" (the TX queue the bql-* knobs apply to),
 * in the order of usbeth(8).
 */
extern const size_t cli_n_knobs;
const struct usbeth_knob *cli_knob(size_t i);	/* i < cli_n_knobs */
/* By its exact keyword, or NULL. */
const struct usbeth_knob *cli_knob_find(const char *name);

/* ------------------------------------------------------------- values -- */

/*
 * Strict unsigned decimal with an optional unit suffix; no sign, space,
 * "0x", or fraction. Each returns 0, -EINVAL (not a number of this kind,
 * unknown suffix), -ERANGE (does not fit in 32 bits once scaled) or, for
 * times, -EDOM (not a whole number of the native unit, e.g. 1500us for a
 * msecs knob).
 */
int cli_parse_count(const char *s, uint32_t *out);
/* k/K = 1024, m/M = 1048576, g/G = 1073741824; no suffix = bytes. */
int cli_parse_size(const char *s, uint32_t *out);
/* us, ms, s; no suffix = the native unit (usecs or msecs). */
int cli_parse_time(const char *s, enum usbeth_unit native, uint32_t *out);
/* The value of knob k, with a message naming the knob and the value. */
int cli_parse_value(const struct usbeth_knob *k, const char *s, uint32_t *out,
		    struct cli_err *e);

/* ----------------------------------------------------------- commands -- */

enum cli_verb {
	CLI_HELP,		/* print help for .topic */
	CLI_LINK_SHOW,
	CLI_LINK_SET,
	CLI_MONITOR,
};

enum cli_topic {
	CLI_TOPIC_MAIN,
	CLI_TOPIC_LINK,
	CLI_TOPIC_MONITOR,
};

/* One "KNOB VALUE" of `link set`, as typed. */
struct cli_kv {
	const struct usbeth_knob *knob;
	const char *text;
	uint32_t value;
};

#define CLI_KV_MAX	16

/* A parsed command. Its strings point into the argv it was parsed from. */
struct cli_cmd {
	enum cli_verb verb;
	enum cli_topic topic;	/* CLI_HELP */
	const char *dev;	/* show (NULL: every device), set */
	bool list;		/* monitor list */
	size_t n_kv;
	struct cli_kv kv[CLI_KV_MAX];
	struct usbeth_set set;	/* CLI_LINK_SET: ready for usbeth_set() */
};

/*
 * Parses "OBJECT { COMMAND | help } ..." (argv[0] is the OBJECT). Returns 0,
 * or -1 with e set (an unknown keyword gets "did you mean" when one is
 * close).
 */
int cli_parse_cmd(int argc, char *const *argv, struct cli_cmd *c,
		  struct cli_err *e);

/* The knob of c whose attribute is attr (for naming what the kernel refused),
 * or NULL.
 */
const struct cli_kv *cli_cmd_kv(const struct cli_cmd *c, int attr);

/* -------------------------------------------------------------- batch -- */

/* Longest batch line accepted, and most words on one. */
#define CLI_LINE_MAX	4096
#define CLI_WORDS_MAX	64

/*
 * Splits line (modified in place) into words: blanks separate words, '#' at
 * the start of a word starts a comment, "..." and '...' quote (no escapes
 * inside). Returns the number of words (0 for a blank or comment line), or
 * -1 with e set (unterminated quote, more than max words).
 */
int cli_split(char *line, char **argv, int max, struct cli_err *e);

/* One line of a batch that carries a command, or fails to parse. Its
 * strings live in the iterator until the next cli_batch_next().
 */
struct cli_line {
	unsigned int lineno;	/* 1-based */
	int argc;
	char **argv;
	bool ok;		/* parsed: cmd is valid */
	struct cli_cmd cmd;
	struct cli_err err;	/* !ok */
};

/* Walks a batch text line by line, in fixed memory (no allocation). */
struct cli_batch_iter {
	const char *text;
	size_t len;
	size_t off;
	unsigned int lineno;
	char line[CLI_LINE_MAX + 1];
	char *argv[CLI_WORDS_MAX];
};

void cli_batch_begin(struct cli_batch_iter *it, const char *text, size_t len);

/*
 * The next line of the batch that is not blank or a comment: a command
 * without the leading "usbeth", no options, no monitor. Returns 1 with *l
 * filled (l->ok false and l->err set for a line that does not parse: too
 * long, a NUL byte, a bad quote, an unknown keyword, ...), 0 at the end.
 */
int cli_batch_next(struct cli_batch_iter *it, struct cli_line *l);

/* ---------------------------------------------------- did you mean -- */

/* Optimal string alignment distance (adjacent transpositions count one),
 * capped: any value above cap is returned as cap + 1.
 */
unsigned int cli_distance(const char *a, const char *b, unsigned int cap);

/* The candidate closest to word when it is close enough to be a typo, or
 * NULL. cands is NULL-terminated.
 */
const char *cli_suggest(const char *word, const char *const *cands);

#endif /* USBETH_CLI_PARSE_H */
