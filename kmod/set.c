// SPDX-License-Identifier: GPL-2.0
/*
 * The SET transaction, on a device usbeth_hold() holds for a SET (so SETs
 * of one device are serialised: rtnl, or its usbeth_set_lock()). It
 * validates every attribute before it applies any; remembers what the
 * driver holds of each knob it will write; applies them in the order of
 * usbeth_backends[], a group of set_group knobs in one driver call, and
 * skips a value the driver holds already; and when one is refused, puts
 * back in reverse what it wrote, tells the requester which knobs it could
 * not put back (left-changed) and sends the CHANGE a partial change is.
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "usbeth.h"

struct usbeth_saved {
	const struct usbeth_backend *backend;
	const struct usbeth_knob *knob;
	const struct nlattr *attr;
	unsigned int first, last;	/* TX queues, [first, last) */
	u32 *old;
	/* per queue, from first: this SET wrote the request's value there */
	unsigned long *written;
};

/*
 * Writes the group of knobs sv[0..n) (one set_group, see usbeth.h) in one
 * driver call: the values of the request, those the driver does not hold
 * already (put_back false), or the saved ones of the knobs the SET wrote
 * (put_back true). Marks what the driver took as written; *changed tells
 * whether the driver was called.
 */
static int usbeth_set_group(const struct usbeth_req *req,
			    struct usbeth_saved *sv, unsigned int n,
			    bool put_back, bool *changed)
{
	int attrs[USBETH_BACKEND_KNOBS];
	u32 vals[USBETH_BACKEND_KNOBS];
	bool in[USBETH_BACKEND_KNOBS];
	unsigned int i, m = 0;
	int err;

	for (i = 0; i < n; i++) {
		const struct usbeth_knob *k = sv[i].knob;
		u32 val = put_back ? sv[i].old[0] : nla_get_u32(sv[i].attr);

		if (put_back)
			in[i] = test_bit(0, sv[i].written);
		else
			in[i] = !(k->same ? k->same(req->dev, sv[i].old[0], val) :
				  sv[i].old[0] == val);
		if (!in[i])
			continue;
		attrs[m] = k->attr;
		vals[m++] = val;
	}
	*changed = m > 0;
	if (!m)
		return 0;
	err = sv[0].knob->set_group(req, attrs, vals, m, sv[0].attr);
	if (err) {
		/* refused as a whole: nothing of it was written */
		*changed = false;
		return err;
	}
	for (i = 0; i < n; i++)
		if (in[i] && !put_back)
			set_bit(0, sv[i].written);
	return 0;
}

/*
 * Whether a and b are of one group: one backend's knobs with one
 * set_group, so a group never has more knobs than its backend, whose
 * count usbeth_set_group()'s arrays are sized by (USBETH_BACKEND_KNOBS).
 */
static bool usbeth_same_group(const struct usbeth_saved *a,
			      const struct usbeth_saved *b)
{
	return a->knob->set_group && a->backend == b->backend &&
	       a->knob->set_group == b->knob->set_group;
}

/* How many of sv[i..nsv) share sv[i]'s set_group (at least 1). */
static unsigned int usbeth_group_len(const struct usbeth_saved *sv,
				     unsigned int i, unsigned int nsv)
{
	unsigned int j = i + 1;

	while (j < nsv && usbeth_same_group(&sv[i], &sv[j]))
		j++;
	return j - i;
}

/*
 * Puts back what a failed SET wrote, in reverse order, without an extack
 * (the reply names the failure): only the knobs and queues it wrote. A
 * value that cannot be put back is logged; returns the USBETH_KNOB_BIT_* bits
 * of the knobs left changed.
 */
static u32 usbeth_put_back(const struct usbeth_req *req,
			   struct usbeth_saved *sv, unsigned int n)
{
	struct usbeth_req quiet = *req;
	unsigned int i, q, s;
	u32 left = 0;
	bool called;
	int err;

	quiet.extack = NULL;
	for (i = n; i-- > 0;) {
		if (sv[i].knob->set_group) {
			for (s = i; s > 0 && usbeth_same_group(&sv[s - 1], &sv[i]);
			     s--)
				;
			err = usbeth_set_group(&quiet, sv + s, i + 1 - s, true,
					       &called);
			if (err) {
				for (q = s; q <= i; q++)
					if (test_bit(0, sv[q].written))
						left |= sv[q].knob->flag;
				net_warn_ratelimited("usbeth: %s: cannot put %s and the rest of its group back: %d\n",
						     req->name,
						     sv[s].knob->name, err);
			}
			i = s;
			continue;
		}
		for_each_set_bit(q, sv[i].written, sv[i].last - sv[i].first) {
			u32 old = sv[i].old[q];

			err = sv[i].knob->set(&quiet, sv[i].knob->attr,
					      sv[i].first + q, old, sv[i].attr);
			if (!err)
				continue;
			left |= sv[i].knob->flag;
			net_warn_ratelimited("usbeth: %s: cannot put %s back to %u (queue %u): %d\n",
					     req->name, sv[i].knob->name,
					     old, sv[i].first + q, err);
		}
	}
	return left;
}

/*
 * The reply to a SET that left knobs changed says so: the message names
 * the device, the knob refused and the knob left changed (or how many),
 * and the CHANGE sent to the requester carries them all (left-changed).
 * unsent: that CHANGE could not be built or queued, and the message tells
 * the requester to read the device back instead.
 */
static void usbeth_extack_left(struct netlink_ext_ack *extack,
			       const struct usbeth_saved *failed,
			       const char *ifname, u32 left, int err,
			       bool unsent)
{
	const struct usbeth_backend *const *bp;
	const struct usbeth_knob *k;
	const char *knob_left = NULL;

	if (unsent) {
		usbeth_extack_msg(extack, failed->attr,
				  "refused, the device is left partly changed: read it back",
				  "%s: %s refused (%d), its state unsent: read back",
				  ifname, failed->knob->name, err);
		return;
	}
	for (bp = usbeth_backends; *bp; bp++)
		for (k = (*bp)->knobs; k < (*bp)->knobs + (*bp)->n; k++)
			if (k->flag == left)
				knob_left = k->name;
	if (knob_left)
		usbeth_extack_msg(extack, failed->attr,
				  "refused, and the device is left partly changed",
				  "%s: %s refused, %s left changed (%d)",
				  ifname, failed->knob->name, knob_left, err);
	else
		usbeth_extack_msg(extack, failed->attr,
				  "refused, and the device is left partly changed",
				  "%s: %s refused, %u knobs left changed (%d)",
				  ifname, failed->knob->name, hweight32(left),
				  err);
}

/*
 * Remembers in s what the driver holds now of knob k (of backend b) on the
 * TX queues the request touches. The set_group knobs of b come from one
 * read_all() into vals, made for the first of them: *read is the backend
 * vals was read for.
 */
static int usbeth_save(const struct usbeth_req *req,
		       const struct usbeth_backend *b,
		       const struct usbeth_knob *k, struct usbeth_saved *s,
		       const struct usbeth_backend **read, u32 *vals)
{
	unsigned int q;
	int err = 0;

	s->backend = b;
	s->knob = k;
	s->attr = req->tb[k->attr];
	s->first = 0;
	s->last = 1;
	if (k->per_queue) {
		s->first = req->bql_queue >= 0 ? req->bql_queue : 0;
		s->last = req->bql_queue >= 0 ? req->bql_queue + 1 :
			  req->dev->real_num_tx_queues;
	}
	s->old = kcalloc(max(s->last - s->first, 1U), sizeof(u32), GFP_KERNEL);
	s->written = bitmap_zalloc(max(s->last - s->first, 1U), GFP_KERNEL);
	if (!s->old || !s->written)
		return -ENOMEM;
	for (q = s->first; q < s->last; q++) {
		/* a group's knobs from one read (as usbeth_prepare() does) */
		if (k->set_group && *read != b) {
			err = b->read_all(req->dev, vals, false);
			if (!err)
				*read = b;
		}
		if (k->set_group && !err)
			s->old[0] = vals[k - b->knobs];
		else if (!err)
			err = k->get(req->dev, k->attr, q,
				     &s->old[q - s->first]);
		if (err) {
			usbeth_extack_msg(req->extack, s->attr,
					  "cannot read the current value from the driver",
					  "%s: cannot read the current value from %s (%d)",
					  k->name, req->name, err);
			return err;
		}
	}
	return 0;
}

/*
 * A SET of the device h holds (usbeth_hold() with set): the request is
 * info's. The caller releases h.
 */
int usbeth_set(struct usbeth_hold *h, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	struct usbeth_saved *sv = NULL;
	struct usbeth_req req = { .tb = tb, .extack = extack, .bql_queue = -1 };
	const struct usbeth_backend *const *bp, *group_read = NULL;
	u32 vals[USBETH_BACKEND_KNOBS];
	const struct usbeth_knob *k;
	struct usbeth_ident id;
	unsigned int i, q, len, n = 0, nsv = 0;
	bool changed = false;
	u32 left;
	char drv[32];
	int err;

	/* SETs of one device are serialised (usbeth.h): rtnl, or its mutex */
	lockdep_assert(h->rtnl || h->lock);
	if (h->rtnl)
		ASSERT_RTNL();
	if (h->lock)
		lockdep_assert_held(h->lock);
	might_sleep();

	req.dev = h->dev;
	req.name = h->name;
	usbeth_ident(req.dev, &id);
	req.caps = id.caps;
	if (tb[USBETH_A_BQL_QUEUE_INDEX])
		req.bql_queue = nla_get_u32(tb[USBETH_A_BQL_QUEUE_INDEX]);

	/* 1. validate everything; nothing is applied yet */
	for (bp = usbeth_backends; *bp; bp++) {
		for (k = (*bp)->knobs; k < (*bp)->knobs + (*bp)->n; k++) {
			struct nlattr *a = tb[k->attr];

			if (!a)
				continue;
			n++;
			if (!(req.caps & k->cap)) {
				usbeth_extack_msg(extack, a,
						  "knob not supported by this device",
						  "%s is not supported by %s (driver %.16s)",
						  k->name, req.name,
						  usbeth_driver_name(req.dev, drv,
								     sizeof(drv),
								     false));
				err = -EOPNOTSUPP;
				return err;
			}
			if (k->check) {
				err = k->check(&req, a, nla_get_u32(a));
				if (err)
					return err;
			}
		}
	}
	for (bp = usbeth_backends; *bp; bp++) {
		if ((*bp)->validate) {
			err = (*bp)->validate(&req);
			if (err)
				return err;
		}
	}
	if (!n) {
		NL_SET_ERR_MSG(extack, "nothing to set");
		err = -EINVAL;
		return err;
	}

	/* 2. remember what the driver holds now */
	sv = kcalloc(n, sizeof(*sv), GFP_KERNEL);
	if (!sv) {
		err = -ENOMEM;
		return err;
	}
	for (bp = usbeth_backends; *bp; bp++) {
		for (k = (*bp)->knobs; k < (*bp)->knobs + (*bp)->n; k++) {
			if (!tb[k->attr])
				continue;
			/* counted first: the cleanup frees what it holds */
			err = usbeth_save(&req, *bp, k, &sv[nsv++], &group_read,
					  vals);
			if (err)
				goto free;
		}
	}

	/*
	 * 3. apply in order; on failure put back what was applied. Like
	 * ethtool's set path, a value the driver already holds is not written
	 * again.
	 */
	for (i = 0; i < nsv; i += len) {
		u32 val = nla_get_u32(sv[i].attr);
		bool called;

		k = sv[i].knob;
		len = usbeth_group_len(sv, i, nsv);
		if (k->set_group) {
			err = usbeth_set_group(&req, sv + i, len, false, &called);
			changed |= called;
			if (err)
				goto refused;
			continue;
		}
		for (q = sv[i].first; q < sv[i].last; q++) {
			u32 old = sv[i].old[q - sv[i].first];

			if (k->same ? k->same(req.dev, old, val) : old == val)
				continue;
			err = k->set(&req, k->attr, q, val, sv[i].attr);
			if (err)
				goto refused;
			set_bit(q - sv[i].first, sv[i].written);
			changed = true;
		}
	}
	err = 0;
	if (changed)
		usbeth_notify_change(req.dev, usbeth_hold_name(h), info, 0);
	goto free;

refused:
	if (!extack || !extack->_msg)
		usbeth_extack_msg(extack, sv[i].attr,
				  "the device refused the value",
				  "%s %u: %s refused it (%d)",
				  sv[i].knob->name, nla_get_u32(sv[i].attr),
				  req.name, err);
	/* a device left changed is a change too, and the requester is told */
	left = usbeth_put_back(&req, sv, i + len);
	if (left) {
		bool unsent = usbeth_notify_change(req.dev, usbeth_hold_name(h),
						   info, left) < 0;

		usbeth_extack_left(extack, &sv[i], req.name, left, err, unsent);
	}
free:
	for (i = 0; i < nsv; i++) {
		kfree(sv[i].old);
		bitmap_free(sv[i].written);
	}
	kfree(sv);
	return err;
}
