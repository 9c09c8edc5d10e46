// SPDX-License-Identifier: GPL-2.0
/*
 * Access to the device a GET or SET works on: the lookup, the hold that
 * keeps it where it was found, and the mutexes that serialise the SETs of
 * devices worked on without rtnl. Lock order: usbeth.h.
 *
 * A GET or SET looks the device up in the caller's netns, holds a reference
 * on it and keeps it registered in that netns, bound to its driver, until
 * the reply and any CHANGE are sent: under rtnl where the device needs it
 * (usbeth_needs_rtnl()), re-checking there that it is registered in that
 * netns; else inside usbeth_host_enter() (host.c), which checks that it is
 * still listed there. Names in replies are copied where renames cannot
 * tear them: under rtnl, or from host.c's record.
 */
#include <linux/hash.h>
#include <linux/rtnetlink.h>
#include "usbeth.h"

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

void usbeth_access_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(usbeth_set_locks); i++)
		mutex_init(&usbeth_set_locks[i]);
}

void usbeth_release(struct usbeth_hold *h)
{
	if (h->rtnl)
		ASSERT_RTNL();
	if (h->lock)
		lockdep_assert_held(h->lock);
	if (h->host)
		usbeth_host_leave(h->dev);
	if (h->rtnl)
		rtnl_unlock();
	if (h->lock)
		mutex_unlock(h->lock);
	netdev_put(h->dev, &h->tracker);
}

/* The held device's name now (it may have been renamed since usbeth_hold()) */
const char *usbeth_hold_name(struct usbeth_hold *h)
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
int usbeth_hold(struct net *net, struct nlattr **tb, bool set,
		struct netlink_ext_ack *extack, struct usbeth_hold *h)
{
	struct nlattr *idx = tb[USBETH_A_IFINDEX], *name = tb[USBETH_A_IFNAME];
	struct net_device *dev;
	int err;

	might_sleep();
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
