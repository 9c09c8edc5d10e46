// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's engine, applying: a device's current values, the diff against
 * what its profile wants, the sets (usbeth, rtnetlink, ethtool netlink),
 * restoring. The records it keeps are records.c's. See apply.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "netlink.h"
#include "testhooks.h"

#define BIT(k) (1U << (k))

/* usbeth_set(), timed. */
static int timed_set(struct engine *e, const struct usbeth_set *s,
		     struct usbeth_dev *echo)
{
	uint64_t t0 = now_us();
	int err;

	if (!e->set_first)
		e->set_first = t0;
	err = usbeth_set(e->u, s, echo);
	e->set_us += now_us() - t0;
	return err;
}

/* ------------------------------------------------------- values ---- */

struct cur {
	uint32_t has;		/* knobs read */
	uint32_t mixed;		/* BQL: the queues differ */
	uint32_t v[K_COUNT];
	/* offloads: feats[] bits the kernel knows, changeable, wanted, active */
	uint32_t f_known, f_hw, f_wanted, f_active;
	int f_err;		/* why they could not be read, or 0 */
};

static void read_cur(struct engine *e, const struct usbeth_dev *d,
		     uint32_t need, struct cur *c)
{
	struct link_vals lv;
	int k;

	memset(c, 0, sizeof(*c));
	/* the usbeth knobs: the first USBETH_KNOB_COUNT, as libusbeth's
	 * table has them
	 */
	for (k = 0; k < USBETH_KNOB_COUNT; k++) {
		bool mixed;

		if (!knob_supported(k, d) ||
		    !usbeth_knob_value(d, k, &c->v[k], &mixed))
			continue;
		c->has |= BIT(k);
		if (mixed)
			c->mixed |= BIT(k);
	}
	if ((need & (BIT(K_MTU) | BIT(K_TXQUEUELEN))) &&
	    !link_get(&e->nl, d->ifindex, &lv)) {
		if (lv.has_mtu) {
			c->v[K_MTU] = lv.mtu;
			c->has |= BIT(K_MTU);
		}
		if (lv.has_txqlen) {
			c->v[K_TXQUEUELEN] = lv.txqlen;
			c->has |= BIT(K_TXQUEUELEN);
		}
	}
	if (need & (BIT(K_SG) | BIT(K_GSO) | BIT(K_TSO))) {
		c->f_err = features_get(&e->nl, d->ifindex, &c->f_known, &c->f_hw,
					&c->f_wanted, &c->f_active);
		for (k = K_SG; k <= K_TSO && !c->f_err; k++) {
			int f = feat_primary(k);

			if (!(c->f_known & BIT(f)))
				continue;	/* a kernel without it */
			c->v[k] = !!(c->f_active & BIT(f));
			c->has |= BIT(k);
		}
	}
}

/* ------------------------------------------------------ applying --- */

struct step {
	uint32_t has;		/* knobs to change */
	uint32_t restore;	/* of which: back to the original */
	uint32_t v[K_COUNT];
};

static const char *fmt_val(int k, uint32_t v, char *buf, size_t len)
{
	if (knob_table[k].boolean)
		snprintf(buf, len, "%s", v ? "on" : "off");
	else
		snprintf(buf, len, "%u", v);
	return buf;
}

static void log_change(const struct rec *r, const char *what, int k,
		       uint32_t old, bool mixed, uint32_t new, uint32_t got)
{
	char a[16], b[16], g[16];

	if (mixed)
		snprintf(a, sizeof(a), "(per queue)");
	else
		fmt_val(k, old, a, sizeof(a));
	fmt_val(k, new, b, sizeof(b));
	if (got != new)
		ulog(LOG_P_NOTICE, "%s: %s: %s: %s -> %s (driver set %s)",
		     r->ifname, what, knob_table[k].name, a, b,
		     fmt_val(k, got, g, sizeof(g)));
	else
		ulog(LOG_P_NOTICE, "%s: %s: %s: %s -> %s", r->ifname, what,
		     knob_table[k].name, a, b);
}

static bool is_bql(int k)
{
	return k >= K_BQL_LIMIT_MIN && k <= K_BQL_HOLD_TIME;
}

static void set_failed(struct engine *e, const struct rec *r,
		       const char *what, int k, uint32_t v, int err)
{
	const char *msg = knob_table[k].kind == KIND_USBETH ?
			  usbeth_errmsg(e->u) : e->nl.err;
	char b[16];

	if (err == -ENODEV) {	/* it went away meanwhile: not an error */
		ulog(LOG_P_DEBUG, "%s: %s: %s: device gone", r->ifname, what,
		     knob_table[k].name);
		return;
	}
	e->errors++;
	ulog(LOG_P_ERR, "%s: %s: %s: cannot set %s: %s%s%s", r->ifname, what,
	     knob_table[k].name, fmt_val(k, v, b, sizeof(b)),
	     strerror(-err), msg && *msg ? ": " : "", msg ? msg : "");
}

static void fill_set(struct usbeth_set *s, const struct rec *r, int k,
		     uint32_t v)
{
	if (!s->ifindex) {
		s->ifindex = r->ifindex;
		s->ifname = NULL;
	}
	usbeth_set_value(s, knob_table[k].attr, v);
}

/*
 * What the driver holds of each knob of mask after a SET: the echoed
 * CHANGE's value, or, where the SET changed nothing (the kernel skips a
 * value its driver treats as the one held, and sends no CHANGE) or the
 * echo lacks it, one GET's. Where neither says (the GET failed), what was
 * asked for.
 */
static void held_after_set(struct engine *e, const struct rec *r,
			   uint32_t mask, const struct usbeth_dev *echo,
			   const struct step *st, uint32_t got[K_COUNT])
{
	struct usbeth_dev now;
	uint32_t left = 0, v;
	bool mixed;
	int k;

	for (k = 0; k < K_COUNT; k++) {
		if (!(mask & BIT(k)))
			continue;
		got[k] = st->v[k];
		if (echo && echo->present &&
		    usbeth_knob_value(echo, k, &v, &mixed) && !mixed)
			got[k] = v;
		else
			left |= BIT(k);
	}
	if (!left || usbeth_get(e->u, r->ifindex, NULL, &now))
		return;
	for (k = 0; k < K_COUNT; k++)
		if ((left & BIT(k)) && usbeth_knob_value(&now, k, &v, &mixed) &&
		    !mixed)
			got[k] = v;
	usbeth_dev_free(&now);
}

/* Does the usbeth part of a step: all at once (atomic), else knob by knob
 * so that what the device takes is applied. Returns the mask done.
 */
static uint32_t do_usbeth(struct engine *e, struct rec *r,
			  const struct step *st, const struct cur *c,
			  const char *what_apply, const char *what_restore)
{
	struct usbeth_set s = { 0 };
	struct usbeth_dev echo;
	uint32_t mask = 0, done = 0;
	int k, err;

	for (k = 0; k < K_COUNT; k++)
		if ((st->has & BIT(k)) && knob_table[k].kind == KIND_USBETH &&
		    !(is_bql(k) && (st->restore & BIT(k)))) {
			fill_set(&s, r, k, st->v[k]);
			mask |= BIT(k);
		}
	if (!mask)
		return 0;
	err = timed_set(e, &s, &echo);
	if (!err) {
		uint32_t got[K_COUNT];

		test_kill_at("after-first-set");
		held_after_set(e, r, mask, &echo, st, got);
		usbeth_dev_free(&echo);
		for (k = 0; k < K_COUNT; k++) {
			if (!(mask & BIT(k)))
				continue;
			r->req[k] = st->v[k];
			r->got[k] = got[k];
			r->got_has |= BIT(k);
			log_change(r, st->restore & BIT(k) ? what_restore :
				   what_apply, k, c->v[k], c->mixed & BIT(k),
				   st->v[k], got[k]);
		}
		return mask;
	}
	if (err == -ENODEV) {
		ulog(LOG_P_DEBUG, "%s: gone before it could be set",
		     r->ifname);
		return 0;
	}
	/* one at a time: a refused knob does not hold back the others */
	for (k = 0; k < K_COUNT; k++) {
		uint32_t got[K_COUNT];

		if (!(mask & BIT(k)))
			continue;
		memset(&s, 0, sizeof(s));
		fill_set(&s, r, k, st->v[k]);
		err = timed_set(e, &s, &echo);
		if (err) {
			set_failed(e, r, st->restore & BIT(k) ? what_restore :
				   what_apply, k, st->v[k], err);
			if (err == -ENODEV)
				return done;
			continue;
		}
		test_kill_at("after-first-set");
		held_after_set(e, r, BIT(k), &echo, st, got);
		usbeth_dev_free(&echo);
		r->req[k] = st->v[k];
		r->got[k] = got[k];
		r->got_has |= BIT(k);
		log_change(r, st->restore & BIT(k) ? what_restore : what_apply,
			   k, c->v[k], c->mixed & BIT(k), st->v[k], got[k]);
		done |= BIT(k);
	}
	return done;
}

/* Whether TX queues a and b have the same originals of the knobs in mask. */
static bool bql_same(const struct bql_orig *a, const struct bql_orig *b,
		     uint32_t mask)
{
	return (!(mask & BIT(K_BQL_LIMIT_MIN)) ||
		a->limit_min == b->limit_min) &&
	       (!(mask & BIT(K_BQL_LIMIT_MAX)) ||
		a->limit_max == b->limit_max) &&
	       (!(mask & BIT(K_BQL_HOLD_TIME)) ||
		a->hold_time == b->hold_time);
}

/* One SET of the knobs in mask to q's originals: on TX queue q->index, or
 * on every TX queue (all).
 */
static int bql_set(struct engine *e, const struct rec *r, uint32_t mask,
		   const struct bql_orig *q, bool all)
{
	struct usbeth_set s = { 0 };

	s.ifindex = r->ifindex;
	if (!all)
		usbeth_set_value(&s, USBETH_A_BQL_QUEUE_INDEX, q->index);
	if (mask & BIT(K_BQL_LIMIT_MIN))
		usbeth_set_value(&s, USBETH_A_BQL_LIMIT_MIN, q->limit_min);
	if (mask & BIT(K_BQL_LIMIT_MAX))
		usbeth_set_value(&s, USBETH_A_BQL_LIMIT_MAX, q->limit_max);
	if (mask & BIT(K_BQL_HOLD_TIME))
		usbeth_set_value(&s, USBETH_A_BQL_HOLD_TIME, q->hold_time);
	return timed_set(e, &s, NULL);
}

/*
 * Puts the per-queue BQL originals of the knobs in mask back, with as few
 * SETs as the family allows: a SET names one TX queue or every one, and
 * each SET that changes something sends a CHANGE carrying every queue
 * (about 53 KB at 1024 queues; one SET per queue was O(queues^2) bytes of
 * multicast, which overran every monitor). Where the record has every
 * queue the device has now (0..n-1), one SET gives every queue the
 * originals most of them share (atomic: all or none), then one SET per
 * queue whose originals differ; shipped kernels give every queue the same
 * defaults, so a restore is one SET. Otherwise (the device's queues changed
 * since they were recorded) one SET per recorded queue, as only those are
 * usbethd's to put back.
 */
static uint32_t do_bql_restore(struct engine *e, struct rec *r,
			       const struct usbeth_dev *d, uint32_t mask,
			       const struct cur *c, const char *what)
{
	const struct bql_orig *base = NULL;
	bool whole = r->n_bql > 0 && r->n_bql == d->n_bql_queues;
	size_t i, votes = 0;
	int k, err = 0;

	for (i = 0; whole && i < r->n_bql; i++)
		whole = r->bql[i].index == i;
	/* the originals most queues share, if most share any (Boyer-Moore
	 * majority vote); any queue's otherwise
	 */
	for (i = 0; whole && i < r->n_bql; i++) {
		if (!votes)
			base = &r->bql[i];
		if (bql_same(base, &r->bql[i], mask))
			votes++;
		else
			votes--;
	}
	if (base)
		err = bql_set(e, r, mask, base, true);
	for (i = 0; !err && i < r->n_bql; i++)
		if (!base || !bql_same(base, &r->bql[i], mask))
			err = bql_set(e, r, mask, &r->bql[i], false);
	if (err) {
		for (k = K_BQL_LIMIT_MIN; k <= K_BQL_HOLD_TIME; k++)
			if (mask & BIT(k)) {
				set_failed(e, r, what, k, r->orig[k], err);
				break;
			}
		return 0;
	}
	for (k = K_BQL_LIMIT_MIN; k <= K_BQL_HOLD_TIME; k++)
		if (mask & BIT(k))
			log_change(r, what, k, c->v[k], c->mixed & BIT(k),
				   r->orig[k], r->orig[k]);
	return mask;
}

/* The offloads of a step, in one FEATURES_SET (one feature update in the
 * kernel: sg and tso turned on together work in either order).
 */
static uint32_t do_ethtool(struct engine *e, struct rec *r,
			   const struct step *st, const struct cur *c,
			   const char *what_apply, const char *what_restore)
{
	uint32_t mask = 0, val = 0, refused = 0, back = 0, done = 0;
	size_t i;
	int k, err;

	for (i = 0; i < NFEATS; i++) {
		k = feats[i].knob;
		if (!(st->has & BIT(k)) || !(c->f_hw & BIT(i)))
			continue;
		mask |= BIT(i);
		/* a restore puts back each feature's own wanted state */
		if (st->restore & BIT(k) ? r->f_orig & BIT(i) : st->v[k])
			val |= BIT(i);
	}
	if (!mask)
		return 0;
	err = features_set(&e->nl, r->ifindex, mask, val, &refused);
	if (!err)
		test_kill_at("after-first-set");
	for (k = K_SG; k <= K_TSO; k++) {
		const char *what = st->restore & BIT(k) ? what_restore :
				   what_apply;

		if (!(st->has & BIT(k)))
			continue;
		if (err) {
			set_failed(e, r, what, k, st->v[k], err);
			continue;
		}
		if (refused & BIT(feat_primary(k))) {
			/* wanted, yet not active (a dependency, the
			 * driver): a skip; its wanted state goes back
			 */
			back |= feat_mask(k) & mask;
			if (!(r->skip_logged & BIT(k)))
				ulog(LOG_P_INFO, "%s: %s: %s: skipped (the "
				     "device keeps it %s)", r->ifname, what,
				     knob_table[k].name,
				     st->v[k] ? "off" : "on");
			r->skip_logged |= BIT(k);
			continue;
		}
		r->req[k] = st->v[k];
		r->got[k] = st->v[k];
		r->got_has |= BIT(k);
		log_change(r, what, k, c->v[k], false, st->v[k], st->v[k]);
		done |= BIT(k);
	}
	if (back) {
		err = features_set(&e->nl, r->ifindex, back, c->f_wanted & back,
				   &refused);
		if (err && err != -ENODEV)
			ulog(LOG_P_WARNING, "%s: cannot put the wanted "
			     "offloads back: %s%s%s", r->ifname,
			     strerror(-err), e->nl.err[0] ? ": " : "",
			     e->nl.err);
	}
	return done;
}

/* MTU, txqueuelen (rtnetlink), then the offloads (ethtool netlink). */
static uint32_t do_other(struct engine *e, struct rec *r,
			 const struct step *st, const struct cur *c,
			 const char *what_apply, const char *what_restore)
{
	uint32_t done = 0;
	int k;

	for (k = K_MTU; k <= K_TXQUEUELEN; k++) {
		const char *what = st->restore & BIT(k) ? what_restore :
				   what_apply;
		uint32_t v = st->v[k];
		int err;

		if (!(st->has & BIT(k)))
			continue;
		err = link_set(&e->nl, r->ifindex, k == K_MTU, v);
		if (err) {
			set_failed(e, r, what, k, v, err);
			continue;
		}
		test_kill_at("after-first-set");
		r->req[k] = v;
		r->got[k] = v;
		r->got_has |= BIT(k);
		log_change(r, what, k, c->v[k], false, v, v);
		done |= BIT(k);
	}
	return done | do_ethtool(e, r, st, c, what_apply, what_restore);
}

static void skip_once(struct engine *e, struct rec *r, const char *pname,
		      int k, const char *why)
{
	if (e->dry_run) {
		fprintf(e->out, "  %-15s skipped: %s\n", knob_table[k].name,
			why);
		return;
	}
	if (r->skip_logged & BIT(k))
		return;
	r->skip_logged |= BIT(k);
	ulog(LOG_P_INFO, "%s: profile %s: %s: skipped: %s", r->ifname, pname,
	     knob_table[k].name, why);
}

/*
 * What the driver treats as the value asked for: the value itself, or
 * what the driver makes of it. BQL keeps the hold time in jiffies
 * (msecs_to_jiffies() rounds up, and a jiffy is at most 10 ms: HZ >= 100),
 * so 10 ms reads back as 12 at HZ=250; cdc_ncm pads a tx_max that is a
 * multiple of the OUT endpoint's packet size (8 bytes at the least) by one
 * byte, so 8192 reads back as 8193. Pure: no I/O, shared by apply and
 * restore.
 */
static bool driver_equal(int k, uint32_t req, uint32_t held)
{
	if (held == req)
		return true;
	if (k == K_BQL_HOLD_TIME)
		return held > req && held - req < 10;
	if (k == K_NTB_TX_MAX)
		return req % 8 == 0 && held == req + 1;
	return false;
}

/*
 * Whether k still holds what usbethd set: what the driver answered
 * (got), or what it treats as the value asked for (a record written
 * ahead of a set, by a daemon killed before it read the answer).
 */
static bool still_ours(const struct rec *r, const struct cur *c, int k)
{
	if (!(r->got_has & BIT(k)) || (c->mixed & BIT(k)))
		return false;	/* usbethd set every queue alike */
	return c->v[k] == r->got[k] || driver_equal(k, r->req[k], c->v[k]);
}

/*
 * Whether someone else changed k since usbethd set it (an admin's
 * `usbeth link set`, `ip link set`): the device no longer holds what
 * usbethd asked for, nor what the driver made of it. A record without
 * that (written by an older usbethd) is restored as before.
 */
static bool not_ours(const struct rec *r, const struct cur *c, int k)
{
	return (r->got_has & BIT(k)) && !still_ours(r, c, k);
}

/*
 * k holds someone else's value (not_ours): theirs from then on, on every
 * evaluation (a reload, a gadget's reconnect, a rename, a resync) as on
 * stop: never set again, its original not put back, while the record
 * lasts (usbethd(8)). Said once.
 */
static void left_alone(struct engine *e, struct rec *r, int k,
		       const struct cur *c, const char *what)
{
	char now[16], set[16], orig[16];

	if (c->mixed & BIT(k))
		snprintf(now, sizeof(now), "(per queue)");
	else
		fmt_val(k, c->v[k], now, sizeof(now));
	fmt_val(k, r->got[k], set, sizeof(set));
	fmt_val(k, r->orig[k], orig, sizeof(orig));
	r->theirs |= BIT(k);
	r->orig_has &= ~BIT(k);
	if (e->dry_run) {
		fprintf(e->out, "  %-15s left alone: %s, not the %s usbethd "
			"set (original %s)\n", knob_table[k].name, now, set,
			orig);
		return;
	}
	ulog(LOG_P_NOTICE, "%s: %s: %s: left alone: someone changed it "
	     "to %s since usbethd set %s (original %s not put back)",
	     r->ifname, what, knob_table[k].name, now, set, orig);
}

/*
 * The diff: from what the profile wants (w), what the device has now (c)
 * and the record (r), the step that brings the device there: values to
 * set, and originals to put back for knobs the profile no longer sets.
 * Knobs that cannot be set are logged once per device. No I/O.
 */
static void diff(struct engine *e, struct rec *r, const struct profile *p,
		 const struct wanted *w, const struct cur *c, struct step *st)
{
	int k;

	memset(st, 0, sizeof(*st));
	for (k = 0; k < K_COUNT; k++) {
		uint32_t want = w->v[k];

		if (w->no_max & BIT(k)) {
			skip_once(e, r, p->name, k, "the device reports no "
				  "maximum");
			continue;
		}
		if ((w->unsupported & BIT(k)) ||
		    ((w->has & BIT(k)) && !(c->has & BIT(k)))) {
			char why[96];
			const char *cap = usbeth_cap_name(knob_table[k].cap);

			if (knob_table[k].kind == KIND_ETHTOOL && c->f_err)
				snprintf(why, sizeof(why), "cannot read the "
					 "offloads (ethtool netlink): %s",
					 strerror(-c->f_err));
			else
				snprintf(why, sizeof(why), "the device does "
					 "not support it%s%s%s",
					 cap ? " (no " : "", cap ? cap : "",
					 cap ? " capability)" : "");
			skip_once(e, r, p->name, k, why);
			continue;
		}
		if (r->theirs & BIT(k))
			continue;	/* someone else's: see left_alone() */
		if (w->has & BIT(k)) {
			/* held already, as the driver holds the value */
			if (driver_equal(k, want, c->v[k]) &&
			    !(c->mixed & BIT(k)))
				continue;
			if (knob_table[k].kind == KIND_ETHTOOL &&
			    !(c->f_hw & BIT(feat_primary(k)))) {
				skip_once(e, r, p->name, k, c->v[k] ?
					  "the device keeps it on (fixed)" :
					  "the device keeps it off (fixed)");
				continue;
			}
			/* what the driver made of it, when usbethd set it */
			if (r->req[k] == want && still_ours(r, c, k))
				continue;
			/* usbethd's change in force, and someone changed it
			 * (the original back is a set that never happened:
			 * a daemon killed before it, see testhooks.h)
			 */
			if ((r->orig_has & BIT(k)) && not_ours(r, c, k) &&
			    (c->v[k] != r->orig[k] || (c->mixed & BIT(k)))) {
				char what[PROFILE_NAME_MAX + 16];

				snprintf(what, sizeof(what), "profile %s",
					 p->name);
				left_alone(e, r, k, c, what);
				continue;
			}
			st->has |= BIT(k);
			st->v[k] = want;
		} else if (r->orig_has & BIT(k)) {
			if (!(c->has & BIT(k)))
				continue;
			if (!is_bql(k) && (c->v[k] == r->orig[k] ||
			    ((r->got_has & BIT(k)) && r->req[k] == r->orig[k] &&
			     r->got[k] == c->v[k]))) {
				r->orig_has &= ~BIT(k);	/* back already */
				continue;
			}
			/* per queue, BQL goes back whenever it may differ */
			if (not_ours(r, c, k) && !(is_bql(k) &&
			    !(c->mixed & BIT(k)) && c->v[k] == r->orig[k])) {
				left_alone(e, r, k, c, "restore");
				continue;
			}
			st->has |= BIT(k);
			st->restore |= BIT(k);
			st->v[k] = r->orig[k];
		}
	}
}

/*
 * One device, one way: select the profile, resolve what it wants of this
 * device, read the current values it needs, diff, apply, record.
 */
int engine_apply(struct engine *e, const struct usbeth_dev *d)
{
	const struct profile *p;
	struct rec tmp, *r;
	char what_apply[PROFILE_NAME_MAX + 16], what_restore[PROFILE_NAME_MAX + 64];
	struct wanted w;
	struct step st;
	struct cur c;
	uint32_t done = 0, newly = 0, sets, got_has0;
	uint32_t req0[K_COUNT], got0[K_COUNT];
	int k, changed = 0;
	bool fresh;

	/* select: not on USB, only what a role "other" profile matches */
	p = profset_select(e->set, d);
	if (!usbeth_role_is_usb(d->role) && !p &&
	    !engine_find(e, d->ifindex)) {
		if (e->dry_run)
			fprintf(e->out, "  (nothing to change)\n");
		return 0;
	}
	r = rec_for(e, d, &tmp, &fresh);
	if (!r) {
		ulog(LOG_P_ERR, "%s: out of memory", d->ifname);
		e->errors++;
		return -1;
	}
	snprintf(what_apply, sizeof(what_apply), "profile %s",
		 p ? p->name : "(none)");
	if (e->stopping)
		snprintf(what_restore, sizeof(what_restore),
			 "restore (stopping)");
	else if (r->profile[0] && (!p || strcmp(r->profile, p->name)))
		snprintf(what_restore, sizeof(what_restore),
			 "restore (profile %s no longer applies)", r->profile);
	else
		snprintf(what_restore, sizeof(what_restore),
			 "restore (profile %s no longer sets it)",
			 r->profile[0] ? r->profile : "?");

	/* resolve, read, diff */
	profile_resolve(p, d, &w);
	read_cur(e, d, w.has | r->orig_has, &c);
	e->read_done = now_us();
	diff(e, r, p, &w, &c, &st);

	if (e->dry_run) {
		for (k = 0; k < K_COUNT; k++) {
			char a[16], b[16];

			if (!(st.has & BIT(k)))
				continue;
			fprintf(e->out, "  %-15s %s -> %s%s\n",
				knob_table[k].name,
				c.mixed & BIT(k) ? "(per queue)" :
				fmt_val(k, c.v[k], a, sizeof(a)),
				fmt_val(k, st.v[k], b, sizeof(b)),
				st.restore & BIT(k) ? " (restore)" : "");
		}
		if (!st.has)
			fprintf(e->out, "  (nothing to change)\n");
		return __builtin_popcount(st.has);
	}

	/* record originals before the first change of each knob */
	for (k = 0; k < K_COUNT; k++) {
		if (!(st.has & BIT(k)) || (st.restore & BIT(k)) ||
		    (r->orig_has & BIT(k)))
			continue;
		r->orig[k] = c.v[k];
		r->orig_has |= BIT(k);
		newly |= BIT(k);
		if (knob_table[k].kind == KIND_ETHTOOL) {
			uint32_t fm = feat_mask(k);

			r->f_orig = (r->f_orig & ~fm) | (c.f_wanted & fm);
		}
		if (is_bql(k) && !r->bql && d->n_bql_queues) {
			size_t i;

			r->bql = calloc(d->n_bql_queues, sizeof(*r->bql));
			if (r->bql) {
				r->n_bql = d->n_bql_queues;
				for (i = 0; i < r->n_bql; i++) {
					const struct usbeth_bql_queue *q =
						&d->bql_queues[i];

					r->bql[i].index = q->index;
					r->bql[i].limit_min = q->limit_min;
					r->bql[i].limit_max = q->limit_max;
					r->bql[i].hold_time = q->hold_time_ms;
				}
			}
		}
	}

	/*
	 * Write ahead: the originals, and the values about to be set, reach
	 * the runtime directory before the first change, so that a daemon
	 * killed in the middle (kill -9, the OOM killer, a crash) leaves
	 * what a restarted one needs to put them back. The driver's answer
	 * replaces the value asked for once known (got[]).
	 */
	sets = st.has & ~st.restore;
	got_has0 = r->got_has;
	memcpy(req0, r->req, sizeof(req0));
	memcpy(got0, r->got, sizeof(got0));
	for (k = 0; k < K_COUNT; k++)
		if (sets & BIT(k)) {
			r->req[k] = st.v[k];
			r->got[k] = st.v[k];
			r->got_has |= BIT(k);
		}
	if (sets) {
		snprintf(r->profile, sizeof(r->profile), "%s",
			 p ? p->name : "");
		if (rec_persist(e, r)) {
			ulog(LOG_P_ERR, "%s: left as it is: what it holds "
			     "could not be recorded first", r->ifname);
			r->orig_has &= ~newly;
			r->got_has = got_has0;
			memcpy(r->req, req0, sizeof(req0));
			memcpy(r->got, got0, sizeof(got0));
			st.has &= ~sets;
			newly = 0;
		}
		e->recorded = now_us();
	}

	if (st.has) {
		uint32_t bqlr = st.restore & (BIT(K_BQL_LIMIT_MIN) |
					      BIT(K_BQL_LIMIT_MAX) |
					      BIT(K_BQL_HOLD_TIME));

		if (sets)
			test_kill_at("before-first-set");

		done |= do_usbeth(e, r, &st, &c, what_apply, what_restore);
		if (bqlr)
			done |= do_bql_restore(e, r, d, bqlr, &c,
					       what_restore);
		done |= do_other(e, r, &st, &c, what_apply, what_restore);
	}
	/* forget originals that are back, or of changes that did not happen
	 * (and what was to be set, for those)
	 */
	r->orig_has &= ~(done & st.restore);
	r->orig_has &= ~(newly & ~done);
	for (k = 0; k < K_COUNT; k++)
		if ((sets & ~done) & BIT(k)) {
			r->req[k] = req0[k];
			r->got[k] = got0[k];
			r->got_has = (r->got_has & ~BIT(k)) |
				     (got_has0 & BIT(k));
		}
	if (!(r->orig_has & (BIT(K_BQL_LIMIT_MIN) | BIT(K_BQL_LIMIT_MAX) |
			     BIT(K_BQL_HOLD_TIME)))) {
		free(r->bql);
		r->bql = NULL;
		r->n_bql = 0;
	}
	changed = __builtin_popcount(done);
	e->changes += (unsigned long)changed;
	snprintf(r->profile, sizeof(r->profile), "%s", p ? p->name : "");
	rec_persist(e, r);
	if (p)
		ulog(LOG_P_INFO, "%s: profile %s applied (%d changed)",
		     r->ifname, p->name, changed);
	else
		ulog(LOG_P_INFO, "%s: no profile matches (%d restored)",
		     r->ifname, changed);

	if (fresh) {
		r->next = e->recs;
		e->recs = r;
	}
	return changed;
}

void engine_restore_all(struct engine *e)
{
	struct rec *r;

	for (r = e->recs; r; r = r->next) {
		struct usbeth_dev d;
		const struct profset *saved = e->set;
		struct profset none = { 0 };
		int err;

		if (!r->orig_has)
			continue;
		err = usbeth_get(e->u, r->ifindex, NULL, &d);
		if (err) {
			if (err != -ENODEV)
				ulog(LOG_P_ERR, "%s: cannot read it to "
				     "restore: %s", r->ifname, strerror(-err));
			continue;
		}
		/* with no profiles, evaluation restores every original */
		e->set = &none;
		e->stopping = true;
		engine_apply(e, &d);
		e->stopping = false;
		e->set = saved;
		usbeth_dev_free(&d);
	}
}
