/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd's record of a device: what the engine remembers of a device it
 * changed (records.c keeps the list, apply.c fills it, state.c writes it
 * to disk). See apply.h for the engine, state.h for the files.
 */
#ifndef USBETHD_RECORDS_H
#define USBETHD_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
	char driver[USBETH_DRIVER_LEN];	/* "" when not known (an older
					 * usbethd's record) */
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
	uint32_t theirs;		/* knobs someone else changed since
					 * usbethd set them: never set again
					 * nor restored while the record lasts
					 * (apply.c diff(), usbethd(8)) */
	bool on_disk;			/* its file exists (state.h) */
	bool unverified;		/* loaded from disk, not yet matched
					 * against the device (rec_for) */
};

struct engine;
struct usbeth_dev;

/* The engine's (apply.h) list of records, kept by records.c. */

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

#endif /* USBETHD_RECORDS_H */
