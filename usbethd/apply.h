/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd's engine (records.h: the records; apply.c: the flow of one
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
#include "records.h"

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
	uint64_t read_done;		/* the last apply's current values
					 * read (rtnetlink, ethtool), us */
	uint64_t recorded;		/* its originals written ahead (0:
					 * none to write), us */
};

void engine_init(struct engine *e, struct usbeth *u, const struct profset *s);
void engine_fini(struct engine *e);

/* Evaluates dev against the profile set: applies what the winner wants,
 * restores recorded knobs it no longer wants. A netdev not on USB is left
 * alone unless a profile (one with role "other") matches it or it has a
 * record. Returns the number of knobs changed, or -1 on an error (logged).
 */
int engine_apply(struct engine *e, const struct usbeth_dev *dev);
/* Puts every recorded original back (on stop); drops the records. */
void engine_restore_all(struct engine *e);

#endif /* USBETHD_APPLY_H */
