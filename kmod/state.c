// SPDX-License-Identifier: GPL-2.0
/*
 * A device's state and its message, the way ethtool's netlink requests
 * keep a reply's data (net/ethtool/netlink.c: prepare_data, reply_size,
 * fill_reply): usbeth_prepare() gathers it, walking usbeth_backends[],
 * under the device's locks; usbeth_state_size() and usbeth_fill() size
 * and write the message from it alone, with no lock taken and no driver
 * called.
 */
#include <linux/slab.h>
#include "usbeth.h"

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

	might_sleep();
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
int usbeth_fill(struct sk_buff *skb, const struct usbeth_state *st,
		const char *name, u32 portid, u32 seq, int flags, u8 cmd,
		u32 left)
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
struct sk_buff *usbeth_msg(const struct usbeth_state *st, const char *name,
			   u32 portid, u32 seq, u8 cmd, u32 left)
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
size_t usbeth_msg_size(const struct net_device *dev)
{
	const struct usbeth_backend *const *bp;
	size_t len = NLMSG_GOODSIZE;

	for (bp = usbeth_backends; *bp; bp++)
		if ((*bp)->max_size)
			len += (*bp)->max_size(dev);
	return len;
}
