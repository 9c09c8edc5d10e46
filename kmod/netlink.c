// SPDX-License-Identifier: GPL-2.0
/*
 * The usbeth generic netlink family: GET (do, dump), SET, notifications.
 * uapi/usbeth.yaml documents the contract.
 *
 * A GET or SET looks the device up in the caller's netns, holds a reference
 * on it and keeps it registered in that netns, bound to its driver, until
 * the reply and any CHANGE are sent: under rtnl where the device needs it
 * (usbeth_needs_rtnl()), re-checking there that it is registered in that
 * netns; else inside usbeth_host_enter() (host.c), which checks that it is
 * still listed there. Names in replies are copied where renames cannot
 * tear them: under rtnl, or from host.c's record. SETs of one device are
 * serialised (rtnl, or a per-device mutex for the rest: usbeth_set_locks);
 * one validates every attribute before it applies any, and puts back what
 * it applied when a later one fails. Dumps walk the netns's device list
 * under rtnl.
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/sock.h>
#include "usbeth.h"

static struct genl_family usbeth_family;
static bool usbeth_family_live;	/* notifications may go out */

/*
 * SETs of one device are serialised: by rtnl for the devices that need it
 * (usbeth_needs_rtnl()), else (USB host-side netdevs) by one of these
 * mutexes, picked by the device's address, taken before host.c's read side
 * (and before rtnl, for a device host.c has no record of). Nothing waits for
 * one of them holding rtnl, so a slow host-side SET (SET_NTB_INPUT_SIZE is a
 * USB control transfer of up to 5 s) holds up only the SETs of host-side
 * devices hashed alike, and a netns move or unregistration of that very
 * device (host.c), never rtnl otherwise.
 */
#define USBETH_SET_LOCK_BITS 5
static struct mutex usbeth_set_locks[1 << USBETH_SET_LOCK_BITS];

static struct mutex *usbeth_set_lock(struct net_device *dev)
{
	return &usbeth_set_locks[hash_ptr(dev, USBETH_SET_LOCK_BITS)];
}

/*
 * Every backend, in the order a SET applies their knobs and a message
 * carries their values (see struct usbeth_backend).
 */
const struct usbeth_backend *const usbeth_backends[] = {
	&usbeth_gadget_backend,
	&usbeth_ncm_backend,
	&usbeth_bql_backend,
	&usbeth_coalesce_backend,
	NULL
};

/*
 * What the rest of the file takes for granted of the table: a backend's
 * knobs fit the stack arrays a group is read into, a device's values fit
 * its state, and a set_group knob can be read with the rest of its group.
 */
static bool usbeth_backends_valid(void)
{
	const struct usbeth_backend *const *b;
	const struct usbeth_knob *k;
	unsigned int nvals = 0;

	for (b = usbeth_backends; *b; b++) {
		if ((*b)->n > USBETH_BACKEND_KNOBS)
			return false;
		nvals += (*b)->n + (*b)->nextra;
		for (k = (*b)->knobs; k < (*b)->knobs + (*b)->n; k++)
			if (k->set_group && (k->per_queue || !(*b)->read_all))
				return false;
	}
	return nvals <= USBETH_STATE_VALS;
}

static usbeth_range_const struct netlink_range_validation ntb_range = {
	.min = USBETH_NTB_MIN, .max = USBETH_NTB_MAX,
};

static usbeth_range_const struct netlink_range_validation tx_timer_range = {
	.max = USBETH_TX_TIMER_MAX_USECS,
};

static usbeth_range_const struct netlink_range_validation bql_limit_range = {
	.max = USBETH_BQL_LIMIT_MAX,
};

static usbeth_range_const struct netlink_range_validation bql_hold_range = {
	.max = USBETH_BQL_HOLD_TIME_MAX,
};

static const struct nla_policy usbeth_get_nl_policy[USBETH_A_IFNAME + 1] = {
	[USBETH_A_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[USBETH_A_IFNAME]	= { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
};

static const struct nla_policy usbeth_set_nl_policy[USBETH_A_BQL_HOLD_TIME + 1] = {
	[USBETH_A_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[USBETH_A_IFNAME]	= { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[USBETH_A_QMULT]	= NLA_POLICY_RANGE(NLA_U32, USBETH_QMULT_MIN,
						   USBETH_QMULT_MAX),
	[USBETH_A_NTB_RX_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ntb_range),
	[USBETH_A_NTB_TX_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ntb_range),
	[USBETH_A_TX_TIMER_USECS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							  &tx_timer_range),
	[USBETH_A_COAL_TX_USECS]	= { .type = NLA_U32 },
	[USBETH_A_COAL_TX_FRAMES]	= { .type = NLA_U32 },
	[USBETH_A_COAL_RX_USECS]	= { .type = NLA_U32 },
	[USBETH_A_COAL_RX_FRAMES]	= { .type = NLA_U32 },
	[USBETH_A_BQL_QUEUE_INDEX] = NLA_POLICY_MAX(NLA_U32,
						    USBETH_BQL_QUEUE_MAX),
	[USBETH_A_BQL_LIMIT_MIN] = NLA_POLICY_FULL_RANGE(NLA_U32, &bql_limit_range),
	[USBETH_A_BQL_LIMIT_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &bql_limit_range),
	[USBETH_A_BQL_HOLD_TIME] = NLA_POLICY_FULL_RANGE(NLA_U32, &bql_hold_range),
};

/* The caps of b's knobs, any of which makes b concern a device */
static u32 usbeth_backend_caps(const struct usbeth_backend *b)
{
	unsigned int i;
	u32 caps = 0;

	for (i = 0; i < b->n; i++)
		caps |= b->knobs[i].cap;
	return caps;
}

void usbeth_state_add(struct usbeth_state *st, int attr, u32 val)
{
	if (!WARN_ON_ONCE(st->nvals >= ARRAY_SIZE(st->vals))) {
		st->vals[st->nvals].attr = attr;
		st->vals[st->nvals].val = val;
		st->nvals++;
	}
}

/*
 * dev's state, every value as the driver holds it now; the identity only
 * unless full (a DEL). Called where dev is held the way usbeth_hold()
 * holds it, or from the netdev notifier (rtnl). NEW is sent from the
 * NETDEV_REGISTER notifier, which the kernel calls with dev's instance
 * lock held where its driver asked for one (7.3: at registration and at
 * the end of a netns move): ops_held then, and the driver's ops are called
 * without taking it again, which would wait for good on this very task.
 *
 * It reads; it does not wake dev (any user may dump every netdev of its
 * netns): a device whose parent is runtime-suspended gets no value that
 * only the driver's ethtool ops could give (usbeth_awake_get()); one whose
 * parent is awake is kept awake while it is read.
 */
int usbeth_prepare(struct net_device *dev, bool full, bool ops_held,
		   struct usbeth_state *st)
{
	const struct usbeth_backend *const *bp;
	u32 vals[USBETH_BACKEND_KNOBS];
	struct usbeth_ident *id = &st->id;
	const struct usbeth_knob *k;
	struct device *held;
	int awake, err = 0;
	u32 val;

	memset(st, 0, sizeof(*st));
	st->ifindex = dev->ifindex;
	usbeth_ident(dev, id);
	if (!full)
		return 0;
	st->full = true;
	/*
	 * Not a gadget's parent: u_ether moves and a UDC removal frees it with
	 * no lock held here (gadget_rec.c); u_ether has no op that wakes.
	 */
	held = NULL;
	awake = 0;
	if (id->role != USBETH_ROLE_USB_GADGET)
		awake = usbeth_awake_get(dev, &held);
	usbeth_driver_name(dev, st->drv, sizeof(st->drv), ops_held);

	/* per queue: the backend's prepare(); set_group: read_all(), below */
	for (bp = usbeth_backends; *bp; bp++) {
		for (k = (*bp)->knobs; k < (*bp)->knobs + (*bp)->n; k++) {
			if (!(id->caps & k->cap) || k->per_queue || k->set_group)
				continue;
			if (awake < 0 && k->wakes && k->wakes(dev, k->attr))
				continue;
			if (!k->get(dev, k->attr, 0, &val))
				usbeth_state_add(st, k->attr, val);
		}
	}
	for (bp = usbeth_backends; *bp && awake >= 0; bp++) {
		if (!(*bp)->read_all || !(usbeth_backend_caps(*bp) & id->caps) ||
		    (*bp)->read_all(dev, vals, ops_held))
			continue;
		for (k = (*bp)->knobs; k < (*bp)->knobs + (*bp)->n; k++)
			if (k->set_group && (id->caps & k->cap))
				usbeth_state_add(st, k->attr,
						 vals[k - (*bp)->knobs]);
	}
	for (bp = usbeth_backends; *bp && !err; bp++)
		if ((*bp)->prepare)
			err = (*bp)->prepare(dev, st);
	usbeth_awake_put(held);
	return err;
}

void usbeth_state_free(struct usbeth_state *st)
{
	kvfree(st->queues);
	st->queues = NULL;
}

/*
 * The size of st's attributes, name its device's name (usbeth_fill()):
 * what genlmsg_new() takes.
 */
static size_t usbeth_state_size(const struct usbeth_state *st,
				const char *name)
{
	const struct usbeth_backend *const *bp;
	const struct usbeth_ident *id = &st->id;
	size_t len = nla_total_size(sizeof(u32)) +
		     nla_total_size(strlen(name) + 1) +
		     nla_total_size(sizeof(u32));	/* ifindex, name, role */

	if (!st->full)
		return len;
	len += nla_total_size(strlen(st->drv) + 1) +
	       nla_total_size(sizeof(u32));		/* driver, caps */
	if (id->role == USBETH_ROLE_USB_HOST)
		len += 2 * nla_total_size(sizeof(u32)) +
		       2 * nla_total_size(sizeof(u16)) +
		       nla_total_size(strlen(id->usb_path) + 1);
	if (id->role == USBETH_ROLE_USB_GADGET)
		len += 2 * nla_total_size(sizeof(u32)) +
		       (id->udc[0] ? nla_total_size(strlen(id->udc) + 1) : 0);
	len += st->nvals * nla_total_size(sizeof(u32));
	for (bp = usbeth_backends; *bp; bp++)
		if ((*bp)->size)
			len += (*bp)->size(st);
	return len + nla_total_size(sizeof(u32));	/* left-changed */
}

/*
 * st's message, with no lock taken and no driver called. name: the
 * device's, copied where it cannot tear (rtnl, or host.c). left: the knobs
 * a refused SET left changed (left-changed), or 0.
 */
static int usbeth_fill(struct sk_buff *skb, const struct usbeth_state *st,
		       const char *name, u32 portid, u32 seq, int flags,
		       u8 cmd, u32 left)
{
	const struct usbeth_backend *const *bp;
	const struct usbeth_ident *id = &st->id;
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &usbeth_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, USBETH_A_IFINDEX, st->ifindex) ||
	    nla_put_string(skb, USBETH_A_IFNAME, name) ||
	    nla_put_u32(skb, USBETH_A_ROLE, id->role))
		goto cancel;
	if (!st->full)
		goto done;

	if (nla_put_string(skb, USBETH_A_DRIVER, st->drv) ||
	    nla_put_u32(skb, USBETH_A_CAPS, id->caps))
		goto cancel;
	if (id->role == USBETH_ROLE_USB_HOST &&
	    (nla_put_u32(skb, USBETH_A_USB_SPEED, id->speed) ||
	     nla_put_u16(skb, USBETH_A_USB_VID, id->vid) ||
	     nla_put_u16(skb, USBETH_A_USB_PID, id->pid) ||
	     nla_put_u32(skb, USBETH_A_USB_BUSNUM, id->busnum) ||
	     nla_put_string(skb, USBETH_A_USB_PATH, id->usb_path)))
		goto cancel;
	if (id->role == USBETH_ROLE_USB_GADGET &&
	    (nla_put_u32(skb, USBETH_A_USB_SPEED, id->speed) ||
	     nla_put_u32(skb, USBETH_A_GADGET_MAX_SPEED, id->max_speed) ||
	     (id->udc[0] &&
	      nla_put_string(skb, USBETH_A_GADGET_UDC, id->udc))))
		goto cancel;
	for (i = 0; i < st->nvals; i++)
		if (nla_put_u32(skb, st->vals[i].attr, st->vals[i].val))
			goto cancel;
	for (bp = usbeth_backends; *bp; bp++)
		if ((*bp)->fill && (*bp)->fill(skb, st))
			goto cancel;
	if (left && nla_put_u32(skb, USBETH_A_LEFT_CHANGED, left))
		goto cancel;
done:
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * st's message in an skb of its own: ERR_PTR(-ENOMEM), or -EMSGSIZE
 * should usbeth_state_size() be short (a bug).
 */
static struct sk_buff *usbeth_msg(const struct usbeth_state *st,
				  const char *name, u32 portid, u32 seq,
				  u8 cmd, u32 left)
{
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(usbeth_state_size(st, name), GFP_KERNEL);
	if (!msg)
		return ERR_PTR(-ENOMEM);
	err = usbeth_fill(msg, st, name, portid, seq, 0, cmd, left);
	if (WARN_ON_ONCE(err)) {
		nlmsg_free(msg);
		return ERR_PTR(err);
	}
	return msg;
}

/*
 * An upper bound of a device's message, before its state is gathered (a
 * dump's chunk size): everything but what the backends' fill() adds (the
 * TX queues' BQL state) fits in NLMSG_GOODSIZE.
 */
static size_t usbeth_msg_size(const struct net_device *dev)
{
	const struct usbeth_backend *const *bp;
	size_t len = NLMSG_GOODSIZE;

	for (bp = usbeth_backends; *bp; bp++)
		if ((*bp)->max_size)
			len += (*bp)->max_size(dev);
	return len;
}

/*
 * A notification that could not be built (no memory for the device's state
 * or the message) is reported to the monitor group as lost: each listener's
 * next read fails with ENOBUFS, as an overflow of its socket would, and it
 * reads the devices back instead of never hearing of the change. rtnetlink
 * does the same with a link message it cannot build (rtnl_set_sk_err()).
 */
static void usbeth_notify_lost(struct net *net)
{
	genl_set_err(&usbeth_family, net, 0, 0, -ENOBUFS);
}

/* NEW and DEL notifications, from the netdev notifier (under rtnl). */
void usbeth_notify_dev(struct net_device *dev, u8 cmd)
{
	struct usbeth_state st;
	struct sk_buff *skb;
	int err;

	if (!READ_ONCE(usbeth_family_live))
		return;
	err = usbeth_prepare(dev, cmd != USBETH_CMD_DEL_NTF,
			     cmd == USBETH_CMD_NEW_NTF, &st);
	skb = err ? NULL : usbeth_msg(&st, dev->name, 0, 0, cmd, 0);
	usbeth_state_free(&st);
	if (IS_ERR_OR_NULL(skb)) {
		usbeth_notify_lost(dev_net(dev));
		return;
	}
	genlmsg_multicast_netns(&usbeth_family, dev_net(dev), skb, 0, 0,
				GFP_KERNEL);
}

/* A device a GET or SET works on, and how it is held. */
struct usbeth_hold {
	struct net_device *dev;
	netdevice_tracker tracker;
	bool rtnl;		/* under rtnl */
	bool host;		/* inside usbeth_host_enter() */
	struct mutex *lock;	/* a SET's usbeth_set_lock(), where taken */
	char name[IFNAMSIZ];	/* dev's name, see usbeth_hold_name() */
};

static void usbeth_release(struct usbeth_hold *h)
{
	if (h->host)
		usbeth_host_leave(h->dev);
	if (h->rtnl)
		rtnl_unlock();
	if (h->lock)
		mutex_unlock(h->lock);
	netdev_put(h->dev, &h->tracker);
}

/* The held device's name now (it may have been renamed since usbeth_hold()) */
static const char *usbeth_hold_name(struct usbeth_hold *h)
{
	if (h->host)
		usbeth_host_name(h->dev, h->name);
	else
		strscpy(h->name, h->dev->name, sizeof(h->name));
	return h->name;
}

/*
 * Exactly one of IFINDEX / IFNAME, in the caller's netns. On success the
 * device is referenced and stays registered in that netns until
 * usbeth_release(): under rtnl, or inside usbeth_host_enter() for the
 * devices that do without rtnl, where a SET (set) first takes the device's
 * usbeth_set_lock(). h->name holds its name.
 */
static int usbeth_hold(struct net *net, struct nlattr **tb, bool set,
		       struct netlink_ext_ack *extack, struct usbeth_hold *h)
{
	struct nlattr *idx = tb[USBETH_A_IFINDEX], *name = tb[USBETH_A_IFNAME];
	struct net_device *dev;
	int err;

	if (!!idx == !!name) {
		NL_SET_ERR_MSG(extack,
			       "give exactly one of ifindex and ifname");
		return -EINVAL;
	}
	rcu_read_lock();
	if (idx)
		dev = dev_get_by_index_rcu(net, nla_get_u32(idx));
	else
		dev = dev_get_by_name_rcu(net, nla_data(name));
	if (dev)
		netdev_hold(dev, &h->tracker, GFP_ATOMIC);
	rcu_read_unlock();
	if (dev) {
		h->dev = dev;
		h->rtnl = false;
		h->host = false;
		h->lock = NULL;
		if (!usbeth_needs_rtnl(dev)) {
			if (set) {
				h->lock = usbeth_set_lock(dev);
				mutex_lock(h->lock);
			}
			err = usbeth_host_enter(net, dev, h->name);
			h->host = !err;
			if (!err)
				return 0;
			if (err == -ENODEV)
				goto gone;
		}
		h->rtnl = true;
		rtnl_lock();
		/* it may have gone or moved while we waited */
		if (READ_ONCE(dev->reg_state) == NETREG_REGISTERED &&
		    net_eq(dev_net(dev), net)) {
			usbeth_hold_name(h);
			return 0;
		}
gone:
		usbeth_release(h);
	}
	if (idx)
		usbeth_extack_msg(extack, idx, "no device with that ifindex",
				  "no device with ifindex %u",
				  nla_get_u32(idx));
	else
		usbeth_extack_msg(extack, name, "no device with that name",
				  "no device named '%s'",
				  (char *)nla_data(name));
	return -ENODEV;
}

static int usbeth_nl_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct usbeth_state st;
	struct usbeth_hold h;
	struct sk_buff *msg;
	int err;

	err = usbeth_hold(genl_info_net(info), info->attrs, false, info->extack,
			  &h);
	if (err)
		return err;
	err = usbeth_prepare(h.dev, true, false, &st);
	usbeth_hold_name(&h);
	usbeth_release(&h);
	/* the device is no longer held: st and h.name are copies */
	msg = err ? ERR_PTR(err) :
	      usbeth_msg(&st, h.name, info->snd_portid, info->snd_seq,
			 USBETH_CMD_GET, 0);
	usbeth_state_free(&st);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	return genlmsg_reply(msg, info);
}

/*
 * A dump's every chunk can take the largest device message of the netns
 * (one that does not fit an empty chunk would end the dump).
 */
static int usbeth_nl_get_dump_start(struct netlink_callback *cb)
{
	struct net *net = sock_net(cb->skb->sk);
	struct net_device *dev;
	size_t max = 0;

	rcu_read_lock();
	for_each_netdev_rcu(net, dev)
		max = max(max, usbeth_msg_size(dev));
	rcu_read_unlock();
	cb->min_dump_alloc = min_t(size_t, max, U32_MAX);
	return 0;
}

static int usbeth_nl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	unsigned int h, s_h = cb->args[0];
	long idx = 0, s_idx = cb->args[1];
	struct nlattr **attrs = usbeth_dump_attrs(cb);
	struct usbeth_state st;
	struct net_device *dev;
	struct nlmsghdr *nlh;
	int err = 0, a;

	/* attrs has the GET policy's size, not USBETH_A_MAX + 1 */
	for (a = 1; attrs && a < (int)ARRAY_SIZE(usbeth_get_nl_policy); a++) {
		if (attrs[a]) {
			NL_SET_ERR_MSG_ATTR(cb->extack, attrs[a],
					    "a dump takes no attributes");
			return -EINVAL;
		}
	}

	rtnl_lock();
	cb->seq = net->dev_base_seq;
	for (h = s_h; h < NETDEV_HASHENTRIES; h++, s_idx = 0) {
		idx = 0;
		hlist_for_each_entry(dev, &net->dev_index_head[h], index_hlist) {
			if (idx < s_idx)
				goto next;
			err = usbeth_prepare(dev, true, false, &st);
			if (err)
				goto out;
			/* where this device's message starts */
			nlh = (struct nlmsghdr *)skb_tail_pointer(skb);
			err = usbeth_fill(skb, &st, dev->name,
					  NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, NLM_F_MULTI,
					  USBETH_CMD_GET, 0);
			usbeth_state_free(&st);
			if (err)
				goto out;
			/*
			 * It wants the user header genlmsg_put() returned, and
			 * flags the message that header belongs to.
			 */
			genl_dump_check_consistent(cb, genlmsg_data(nlmsg_data(nlh)));
next:
			idx++;
		}
	}
out:
	rtnl_unlock();
	cb->args[0] = h;
	cb->args[1] = idx;
	/* a device that does not fit an empty message is an error */
	if (err && !skb->len)
		return err;
	return skb->len;
}

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

/* How many of sv[i..nsv) share sv[i]'s set_group (at least 1). */
static unsigned int usbeth_group_len(const struct usbeth_saved *sv,
				     unsigned int i, unsigned int nsv)
{
	unsigned int j = i + 1;

	if (sv[i].knob->set_group)
		while (j < nsv && sv[j].knob->set_group == sv[i].knob->set_group)
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
			for (s = i; s > 0 && sv[s - 1].knob->set_group ==
					     sv[i].knob->set_group; s--)
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
 * CHANGE: what a SET left the device with, to the monitor group (and to
 * the requester if it asked for an echo). left: the knobs a refused SET
 * could not put back (left-changed); the requester gets that message
 * whether it asked for an echo or not, before its error. Not inlined: the
 * daemon's benchmarks time a SET's effect by a kprobe here
 * (selftests/bench/usbeth_kprobes.sh).
 */
static noinline void usbeth_notify_change(struct net_device *dev,
					  const char *name,
					  struct genl_info *info, u32 left)
{
	struct sk_buff *msg, *req_msg = NULL;
	struct usbeth_state st;
	int err;

	err = usbeth_prepare(dev, true, false, &st);
	msg = err ? ERR_PTR(err) :
	      usbeth_msg(&st, name, info->snd_portid, info->snd_seq,
			 USBETH_CMD_CHANGE_NTF, left);
	usbeth_state_free(&st);
	if (IS_ERR(msg)) {
		usbeth_notify_lost(genl_info_net(info));
		return;
	}
	if (left && !(info->nlhdr->nlmsg_flags & NLM_F_ECHO))
		req_msg = skb_clone(msg, GFP_KERNEL);
	genl_notify(&usbeth_family, msg, info, 0, GFP_KERNEL);
	if (req_msg)
		genlmsg_unicast(genl_info_net(info), req_msg, info->snd_portid);
}

/*
 * The reply to a SET that left knobs changed says so: the message names
 * the device, the knob refused and the knob left changed (or how many),
 * and the CHANGE sent to the requester carries them all (left-changed).
 */
static void usbeth_extack_left(struct netlink_ext_ack *extack,
			       const struct usbeth_saved *failed,
			       const char *ifname, u32 left, int err)
{
	const struct usbeth_backend *const *bp;
	const struct usbeth_knob *k;
	const char *knob_left = NULL;

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

static int usbeth_nl_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	struct usbeth_saved *sv = NULL;
	struct usbeth_req req = { .tb = tb, .extack = extack, .bql_queue = -1 };
	const struct usbeth_backend *const *bp, *group_read = NULL;
	u32 vals[USBETH_BACKEND_KNOBS];
	const struct usbeth_knob *k;
	struct usbeth_ident id;
	struct usbeth_hold h;
	unsigned int i, q, len, n = 0, nsv = 0;
	bool changed = false;
	u32 left;
	char drv[32];
	int err;

	err = usbeth_hold(genl_info_net(info), tb, true, extack, &h);
	if (err)
		return err;
	req.dev = h.dev;
	req.name = h.name;
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
				goto unlock;
			}
			if (k->check) {
				err = k->check(&req, a, nla_get_u32(a));
				if (err)
					goto unlock;
			}
		}
	}
	for (bp = usbeth_backends; *bp; bp++) {
		if ((*bp)->validate) {
			err = (*bp)->validate(&req);
			if (err)
				goto unlock;
		}
	}
	if (!n) {
		NL_SET_ERR_MSG(extack, "nothing to set");
		err = -EINVAL;
		goto unlock;
	}

	/* 2. remember what the driver holds now */
	sv = kcalloc(n, sizeof(*sv), GFP_KERNEL);
	if (!sv) {
		err = -ENOMEM;
		goto unlock;
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
		const struct usbeth_knob *k = sv[i].knob;
		u32 val = nla_get_u32(sv[i].attr);
		bool called;

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
		usbeth_notify_change(req.dev, usbeth_hold_name(&h), info, 0);
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
		usbeth_extack_left(extack, &sv[i], req.name, left, err);
		usbeth_notify_change(req.dev, usbeth_hold_name(&h), info, left);
	}
free:
	for (i = 0; i < nsv; i++) {
		kfree(sv[i].old);
		bitmap_free(sv[i].written);
	}
	kfree(sv);
unlock:
	usbeth_release(&h);
	return err;
}

static const struct genl_ops usbeth_nl_ops[] = {
	{
		.cmd	= USBETH_CMD_GET,
		.doit	= usbeth_nl_get_doit,
		.start	= usbeth_nl_get_dump_start,
		.dumpit	= usbeth_nl_get_dumpit,
		.policy	= usbeth_get_nl_policy,
		.maxattr = ARRAY_SIZE(usbeth_get_nl_policy) - 1,
	}, {
		.cmd	= USBETH_CMD_SET,
		.doit	= usbeth_nl_set_doit,
		.policy	= usbeth_set_nl_policy,
		.maxattr = ARRAY_SIZE(usbeth_set_nl_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
};

static const struct genl_multicast_group usbeth_nl_mcgrps[] = {
	{ .name = USBETH_MCGRP_MONITOR },
};

static struct genl_family usbeth_family __ro_after_init = {
	.name		= USBETH_GENL_NAME,
	.version	= USBETH_GENL_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,		/* see usbeth_hold(), usbeth_set_locks */
	.module		= THIS_MODULE,
	.ops		= usbeth_nl_ops,
	.n_ops		= ARRAY_SIZE(usbeth_nl_ops),
	.mcgrps		= usbeth_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(usbeth_nl_mcgrps),
};

int usbeth_netlink_init(void)
{
	unsigned int i;
	int err;

	if (WARN_ON(!usbeth_backends_valid()))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(usbeth_set_locks); i++)
		mutex_init(&usbeth_set_locks[i]);
	err = genl_register_family(&usbeth_family);

	if (!err)
		WRITE_ONCE(usbeth_family_live, true);
	return err;
}

void usbeth_netlink_exit(void)
{
	/*
	 * Under rtnl, which the netdev notifier runs under: once it is
	 * dropped no notifier is past the check, so nothing multicasts on a
	 * family being unregistered.
	 */
	rtnl_lock();
	WRITE_ONCE(usbeth_family_live, false);
	rtnl_unlock();
	genl_unregister_family(&usbeth_family);
}
