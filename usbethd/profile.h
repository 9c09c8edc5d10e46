/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd profiles: parsing and validation (json-c), the profile set
 * (directories, override by name, "extends"), matching and selection, and
 * the settings a device should get. No netlink here: this is what the unit
 * tests and the fuzzer exercise. The schema is usbethd.profiles(5).
 */
#ifndef USBETHD_PROFILE_H
#define USBETHD_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "usbeth.h"

#define PROFILE_NAME_MAX	64	/* bytes, NUL excluded */
#define PROFILE_FILE_MAX	(256 * 1024)	/* bytes per profile file */
#define PROFILE_LIST_MAX	64	/* entries in one match list */
#define PROFILE_COUNT_MAX	1024	/* profiles in a set */
#define PROFILE_EXTENDS_DEPTH	16
#define PROFILE_PRIO_LIMIT	1000000

/* Every setting a profile can carry: first the usbeth family's knobs, as
 * libusbeth's table has them (K_x == USBETH_KNOB_x), then the daemon's own.
 */
#define K_ID(ID, ...) K_##ID = USBETH_KNOB_##ID,
enum knob {
	USBETH_KNOBS(K_ID)
	K_MTU = USBETH_KNOB_COUNT,
	K_TXQUEUELEN,
	K_SG,
	K_GSO,
	K_TSO,
	K_COUNT
};
#undef K_ID

enum knob_kind {
	KIND_USBETH,	/* through the usbeth family */
	KIND_RTNL,	/* rtnetlink: MTU, txqueuelen */
	KIND_ETHTOOL,	/* ethtool: offloads (booleans) */
};

struct knob_info {
	const char *name;	/* the profile key, e.g. "ntb-rx-max" */
	enum knob_kind kind;
	int attr;		/* USBETH_A_* for KIND_USBETH, else 0 */
	uint32_t cap;		/* USBETH_CAP_* needed, 0 if none */
	uint32_t min, max;	/* accepted range (booleans: 0..1) */
	bool boolean;
	bool device_max;	/* accepts "device-max" */
};

extern const struct knob_info knob_table[K_COUNT];
/* The knob of a profile key (also accepts '_' for '-'), or -1. */
int knob_by_name(const char *name);

/* A setting: absent, a value, "device-max", or explicitly unset (null: do
 * not touch, overriding what "extends" brought in).
 */
enum val_kind { V_NONE, V_VALUE, V_DEVICE_MAX, V_UNSET };
struct knob_val {
	enum val_kind kind;
	uint32_t value;
};

/* "vid"/"pid" entries: an exact 16-bit id or a wildcard. */
struct id_match {
	bool any;
	uint16_t id;
};

struct profile_match {
	bool present;		/* a profile without "match" never matches */
	size_t n_vid, n_pid, n_driver, n_ifname;
	struct id_match vid[PROFILE_LIST_MAX];
	struct id_match pid[PROFILE_LIST_MAX];
	char *driver[PROFILE_LIST_MAX];
	char *ifname[PROFILE_LIST_MAX];	/* fnmatch(3) globs */
	uint32_t roles;			/* bit per enum usbeth_role, 0 = any
					 * on USB; OTHER needs a driver */
	int speed;			/* exact, -1 = any */
	int speed_min;			/* minimum, -1 = none */
};

struct profile {
	char name[PROFILE_NAME_MAX + 1];
	char *file;			/* where it was read from */
	char *description;
	char *extends;			/* parent's name, NULL if none */
	int priority;
	struct profile_match match;
	struct knob_val set[K_COUNT];	/* as written in the file */
	struct knob_val eff[K_COUNT];	/* with "extends" resolved */
	bool resolved;
	/* Where it ranks on a tie (profset_select()): the index of the
	 * directory it was read from, the later the stronger; 0 for a
	 * shipped profile enabled from profiles.available (available set).
	 */
	unsigned int dir;
	bool available;		/* has the name of a profiles.available one */
};

/* An error: file, 1-based line and column (0 when not known), text. */
struct perr {
	char file[4096];
	unsigned int line, col;
	char msg[256];
};
/* "file:line:col: msg" (or "file: msg"). */
void perr_format(const struct perr *e, char *buf, size_t len);

/* Parses one profile file's text (len bytes, need not be NUL-terminated).
 * name is the profile's name (its file name without ".json"). Returns 0 and
 * *out (free with profile_free()), or -1 with *err filled.
 */
int profile_parse(const char *file, const char *name, const char *text,
		  size_t len, struct profile **out, struct perr *err);
void profile_free(struct profile *p);

/* A profile name: letters, digits and ._-+@, not starting with '.', at
 * most PROFILE_NAME_MAX bytes.
 */
bool profile_name_ok(const char *name);

/* A USB id as a profile or a device description writes it: 1 to 4 hex
 * digits, "0x" allowed. 0, or -1.
 */
int usb_id_parse(const char *s, uint16_t *out);
/* A role as a profile writes it ("host", "gadget", "other", or the family's
 * "usb-host", "usb-gadget"): the enum usbeth_role, or -1.
 */
int role_parse(const char *s);

/* A device described on the command line (usbethd --explain --device), as
 * "KEY=VALUE[,KEY=VALUE...]" with the keys a profile matches on: vid, pid,
 * driver, role, speed, max-speed (a gadget's, when it is not connected),
 * ifname. Fills *d (role "host" unless given); 0, or -1 with a message
 * naming the key and the value in err.
 */
int dev_describe(const char *desc, struct usbeth_dev *d, char *err,
		 size_t errlen);

/* Specificity of a profile's match: how many of its criteria constrain. */
int profile_specificity(const struct profile *p);

/* Whether p matches dev; when it does not and why is non-NULL, a short
 * reason ("vid 17e9 not in list") is written there.
 */
bool profile_matches(const struct profile *p, const struct usbeth_dev *dev,
		     char *why, size_t whylen);

struct profset {
	size_t n;
	struct profile **p;	/* sorted by name */
};

/* Adds p (taking ownership), replacing a profile of the same name (an
 * earlier directory's: override by name). -1 when the set is full.
 */
int profset_add(struct profset *s, struct profile *p);
/* Removes the profile of that name, if any (masking). */
void profset_remove(struct profset *s, const char *name);
/* Resolves "extends" (missing parent, cycle, depth): fills eff[]. */
int profset_resolve(struct profset *s, struct perr *err);
/* Loads every *.json of each directory in order (later ones override
 * earlier ones by name; an empty file or a link to /dev/null masks the
 * profile of that name), then resolves. A missing directory is skipped.
 * On error *s is left empty and *err says where.
 */
int profset_load(struct profset *s, const char *const *dirs, size_t ndirs,
		 struct perr *err);
/* What a load does with a file it cannot use. "Odd": not a profile at all
 * (a FIFO, a directory, a dangling link, a name that is no profile name).
 * "Bad": a profile that does not parse or resolve, or a file or directory
 * others than root may write.
 */
enum profset_mode {
	PROFSET_STRICT,		/* any problem fails the load (--check) */
	PROFSET_SKIP_ODD,	/* odd files skipped, a bad one fails (reload:
				 * the previous configuration is kept) */
	PROFSET_SKIP_BAD,	/* every problem skipped (start: one bad file
				 * must not disable every profile) */
};
typedef void (*profset_warn_fn)(const struct perr *e, void *arg);
/* profset_load() with a mode: each file skipped is reported through warn
 * (when not NULL) and counted in *skipped (when not NULL).
 */
int profset_load_mode(struct profset *s, const char *const *dirs,
		      size_t ndirs, enum profset_mode mode,
		      profset_warn_fn warn, void *arg, size_t *skipped,
		      struct perr *err);
void profset_free(struct profset *s);
const struct profile *profset_find(const struct profset *s, const char *name);

/* Loads one directory's profiles as they are, without resolving
 * "extends" (profiles.available: they are listed, never applied); bad
 * files are skipped and reported through warn. A missing directory is
 * empty. 0, or -1 (out of memory, too many).
 */
int profset_load_available(struct profset *s, const char *dir,
			   profset_warn_fn warn, void *arg, struct perr *err);
/* Marks the profiles of s named as one of avail (a shipped profile, enabled
 * by a copy or a link into a later directory): they rank as the first
 * directory's (p->dir 0), so that on a tie the administrator's own profile
 * wins over them.
 */
void profset_mark_available(struct profset *s, const struct profset *avail);

/* The better of two matching profiles: <0 when a wins. The one of higher
 * specificity, then of higher priority, then read from the later
 * directory, then the name that sorts first.
 */
int profile_rank_cmp(const struct profile *a, const struct profile *b);
/* The winner for dev: the first of the matching ones by
 * profile_rank_cmp(). NULL if none matches.
 */
const struct profile *profset_select(const struct profset *s,
				     const struct usbeth_dev *dev);
/* Why a beat b ("more specific (3 > 2)", "higher priority (10 > 0)",
 * "read from a later directory", ...).
 */
void profset_why(const struct profile *a, const struct profile *b,
		 char *buf, size_t len);

/* The wanted value of knob k of profile p for dev: true and *val set, or
 * false (not set, unset, or "device-max" the device does not report).
 */
bool profile_want(const struct profile *p, int k,
		  const struct usbeth_dev *dev, uint32_t *val);

/* What a profile wants of one device, resolved: the values ("device-max"
 * read off the device), and why the others it sets cannot be had.
 */
struct wanted {
	uint32_t has;		/* bit per knob with a value in v[] */
	uint32_t v[K_COUNT];
	uint32_t no_max;	/* "device-max", and the device reports none */
	uint32_t unsupported;	/* set, but the device lacks the capability */
};
/* Fills *w for profile p (NULL: nothing wanted) and dev. */
void profile_resolve(const struct profile *p, const struct usbeth_dev *dev,
		     struct wanted *w);

/* Whether dev supports knob k at all (caps; rtnl/ethtool knobs: always). */
bool knob_supported(int k, const struct usbeth_dev *dev);

/* offset -> 1-based line and column of text. */
void text_line_col(const char *text, size_t len, size_t off,
		   unsigned int *line, unsigned int *col);

#endif /* USBETHD_PROFILE_H */
