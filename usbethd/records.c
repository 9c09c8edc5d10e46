// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's engine, its records: what it remembers of each device (keyed
 * on ifindex), following renames, kept on disk (state.h) so that the
 * originals outlive the process. See records.h and apply.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#include "apply.h"
#include "state.h"

void engine_init(struct engine *e, struct usbeth *u, const struct profset *s)
{
	memset(e, 0, sizeof(*e));
	e->lock_fd = -1;
	e->u = u;
	e->set = s;
	e->out = stdout;
}

static void rec_free(struct rec *r)
{
	free(r->bql);
	free(r);
}

void engine_fini(struct engine *e)
{
	struct rec *r, *n;

	for (r = e->recs; r; r = n) {
		n = r->next;
		rec_free(r);
	}
	e->recs = NULL;
	nlc_close(&e->nl);
}

size_t engine_nrecs(const struct engine *e)
{
	const struct rec *r;
	size_t n = 0;

	for (r = e->recs; r; r = r->next)
		n++;
	return n;
}

struct rec *engine_find(struct engine *e, uint32_t ifindex)
{
	struct rec *r;

	for (r = e->recs; r; r = r->next)
		if (r->ifindex == ifindex)
			return r;
	return NULL;
}

/* state.lock around a write of the daemon's: --apply --force writes the
 * same files (see state.h).
 */
static void rec_lock(struct engine *e, int op)
{
	if (e->lock_fd < 0)
		return;
	while (flock(e->lock_fd, op) && errno == EINTR)
		;
}

void engine_drop(struct engine *e, uint32_t ifindex)
{
	struct rec **pp, *r;

	for (pp = &e->recs; (r = *pp); pp = &r->next)
		if (r->ifindex == ifindex) {
			*pp = r->next;
			ulog(LOG_P_INFO, "%s: gone, record dropped (profile "
			     "%s)", r->ifname, r->profile[0] ? r->profile :
			     "none");
			if (e->state_dir && !e->dry_run) {
				rec_lock(e, LOCK_EX);
				state_remove(e->state_dir, ifindex);
				rec_lock(e, LOCK_UN);
			}
			rec_free(r);
			return;
		}
}

void engine_prune(struct engine *e, const struct usbeth_dev *devs, size_t n)
{
	struct rec *r, *next;
	size_t i;

	for (r = e->recs; r; r = next) {
		next = r->next;
		/* by ifindex alone: udev renames a USB NIC (enx<MAC>) right
		 * after its NEW, and a record must survive that
		 */
		for (i = 0; i < n; i++)
			if (devs[i].ifindex == r->ifindex)
				break;
		if (i == n)
			engine_drop(e, r->ifindex);
	}
}

/* The record on disk follows the one in memory (see state.h). */
int rec_persist(struct engine *e, struct rec *r)
{
	int err;

	if (!e->state_dir || e->dry_run ||
	    (!r->orig_has && !r->theirs && !r->on_disk))
		return 0;
	rec_lock(e, LOCK_EX);
	err = state_save(e->state_dir, r);
	rec_lock(e, LOCK_UN);
	if (err) {
		ulog(LOG_P_ERR, "%s: cannot record the originals in %s: %s "
		     "(a restarted daemon will not restore them)", r->ifname,
		     e->state_dir, strerror(-err));
		e->errors++;
		return err;
	}
	r->on_disk = (r->orig_has | r->theirs) != 0;
	return 0;
}

void engine_rename(struct engine *e, uint32_t ifindex, const char *ifname)
{
	struct rec *r = engine_find(e, ifindex);

	if (!r || !strcmp(r->ifname, ifname))
		return;
	ulog(LOG_P_INFO, "%s: renamed (was %s)", ifname, r->ifname);
	snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
	rec_persist(e, r);
}

static void load_warn(const char *path, const char *why)
{
	ulog(LOG_P_WARNING, "%s: record dropped: %s", path, why);
}

int engine_load_state(struct engine *e)
{
	struct rec *list = NULL, *r, *next;
	int n;

	n = state_load_all(e->state_dir, &list, load_warn, !e->dry_run);
	if (n < 0) {
		ulog(LOG_P_ERR, "%s: cannot read the records: %s",
		     e->state_dir, strerror(-n));
		return n;
	}
	for (r = list; r; r = next) {
		next = r->next;
		if (engine_find(e, r->ifindex)) {
			rec_free(r);
			continue;
		}
		r->on_disk = true;
		r->unverified = true;
		r->next = e->recs;
		e->recs = r;
	}
	return n;
}

/*
 * Whether a record loaded from disk is d's: an ifindex names a device only
 * within a boot and a netns, and `ip link add ... index N` reuses one at
 * will, so the record's name (state.c checked it at load, against the
 * device of that ifindex then), role and driver must be the device's too.
 * A record of another device is dropped: its originals are not this
 * device's.
 */
static bool rec_is_dev(const struct rec *r, const struct usbeth_dev *d)
{
	return !strcmp(r->ifname, d->ifname) && r->role == d->role &&
	       (!r->driver[0] || !strcmp(r->driver, d->driver));
}

/* The record of d: found, or new (kept in the list when fresh), or tmp. */
struct rec *rec_for(struct engine *e, const struct usbeth_dev *d,
		    struct rec *tmp, bool *fresh)
{
	struct rec *r = engine_find(e, d->ifindex);

	*fresh = false;
	if (r && r->unverified && !rec_is_dev(r, d)) {
		ulog(LOG_P_WARNING, "%s: the record of ifindex %u names "
		     "another device (%s, driver %s): dropped, its originals "
		     "not put back", d->ifname, d->ifindex, r->ifname,
		     r->driver[0] ? r->driver : "unknown");
		engine_drop(e, d->ifindex);
		r = NULL;
	}
	if (r)
		r->unverified = false;
	if (r) {
		if (strcmp(r->ifname, d->ifname))
			snprintf(r->ifname, sizeof(r->ifname), "%s",
				 d->ifname);
	} else {
		if (e->keep_records && !e->dry_run) {
			r = calloc(1, sizeof(*r));
			if (!r)
				return NULL;
			*fresh = true;
		} else {
			memset(tmp, 0, sizeof(*tmp));
			r = tmp;
		}
		r->ifindex = d->ifindex;
		r->carrier = -1;
		snprintf(r->ifname, sizeof(r->ifname), "%s", d->ifname);
	}
	r->role = d->role;
	snprintf(r->driver, sizeof(r->driver), "%s", d->driver);
	return r;
}
