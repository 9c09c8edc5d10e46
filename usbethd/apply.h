/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd's engine (records.c: the records; apply.c: the flow of one
 * device): brings a device to what its profile wants, recording
 * the original value of every knob before its first change, and puts the
 * originals back when the profile no longer wants them (reload) or on stop.
 * usbeth knobs go through libusbeth; MTU and txqueuelen through rtnetlink;
 * the sg/gso/tso offloads through ethtool netlink (the "ethtool" generic
 * netlink family's FEATURES_GET / FEATURES_SET).
 */
#ifndef USBETHD_APPLY_H
#define USBETHD_APPLY_H

#include <stdio.h>
#include "log.h"
#include "netlink.h"
#include "profile.h"

struct bql_orig {
	uint32_t index, limit_min, limit_max, hold_time;
};

/* What the daemon remembers of a device it changed. */
struct rec {
	struct rec *next;
	uint32_t ifindex;
	uint32_t role;			/* enum usbeth_role */
	int carrier;			/* gadgets: last seen, -1 unknown */
	char ifname[USBETH_IFNAMSIZ];
	char profile[PROFILE_NAME_MAX + 1];	/* "" when none applies */
	uint32_t orig_has;		/* bit per knob with orig[] recorded */
	uint32_t orig[K_COUNT];
	uint32_t f_orig;		/* offloads: each feature's original
					 * wanted state (apply.c feats[]) */
	size_t n_bql;			/* per-queue originals, when BQL set */
	struct bql_orig *bql;
	uint32_t skip_logged;		/* unsupported knobs already logged */
	uint32_t got_has;		/* what the driver made of our value */
	uint32_t req[K_COUNT], got[K_COUNT];
	bool on_disk;			/* its file exists (state.h) */
};

struct engine {
	struct usbeth *u;
	const struct profset *set;
	struct rec *recs;		/* daemon: records kept */
	bool keep_records;
	bool dry_run;			/* --explain: print the diff only */
	bool stopping;			/* restoring on stop */
	const char *state_dir;		/* records on disk (state.h), or NULL */
	int lock_fd;			/* state.lock, taken for each write;
					 * -1: held already (--apply) */
	FILE *out;			/* where dry_run prints */
	struct nlc nl;			/* rtnetlink, ethtool netlink */
	unsigned long errors;		/* failures logged at LOG_P_ERR */
	unsigned long changes;		/* knobs changed */
	uint64_t set_us;		/* time spent in usbeth sets */
	uint64_t set_first;		/* when one began (0: not yet), us */
};

void engine_init(struct engine *e, struct usbeth *u, const struct profset *s);
void engine_fini(struct engine *e);

/* Evaluates dev against the profile set: applies what the winner wants,
 * restores recorded knobs it no longer wants. A netdev not on USB is left
 * alone unless a profile (one with role "other") matches it or it has a
 * record. Returns the number of knobs changed, or -1 on an error (logged).
 */
int engine_apply(struct engine *e, const struct usbeth_dev *dev);
/* The record of ifindex, NULL if none. */
struct rec *engine_find(struct engine *e, uint32_t ifindex);
/* Forget a device (it went away). */
void engine_drop(struct engine *e, uint32_t ifindex);
/* A device was renamed (udev's enx<MAC>): its record follows. */
void engine_rename(struct engine *e, uint32_t ifindex, const char *ifname);
/* Adds the records kept in e->state_dir (state.h); the number, or -errno. */
int engine_load_state(struct engine *e);
/* Drops records of devices not in devs[] (after a resync dump). */
void engine_prune(struct engine *e, const struct usbeth_dev *devs, size_t n);
/* Puts every recorded original back (on stop); drops the records. */
void engine_restore_all(struct engine *e);
size_t engine_nrecs(const struct engine *e);

/* Between records.c and apply.c. */
/* The record of d: found (its name updated), or a new one (*fresh: to be
 * listed once applied; with keep_records only), or tmp. NULL: no memory.
 */
struct rec *rec_for(struct engine *e, const struct usbeth_dev *d,
		    struct rec *tmp, bool *fresh);
/* The record on disk follows r (written, or removed without originals).
 * 0, or -errno (logged).
 */
int rec_persist(struct engine *e, struct rec *r);

#endif /* USBETHD_APPLY_H */
