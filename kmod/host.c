// SPDX-License-Identifier: GPL-2.0
/*
 * USB host-side netdevs worked on without rtnl (usbeth_needs_rtnl() false):
 * what keeps such a device where a GET or SET found it, and its name.
 *
 * Staying put. A request on such a device holds the read side of the
 * device's slot in host_sems (picked by the device's address) from the
 * moment it finds the device listed in the requester's netns until its
 * reply or CHANGE is sent. usbeth's netdev notifier takes the write side at
 * NETDEV_UNREGISTER, which a netns move and the real unregistration both
 * send under rtnl, after they unlist the device and before the rest of them:
 * a move's switch of netns, the removal of the device's sysfs groups, and
 * (usbnet_disconnect() unregisters the netdev before it unbinds) the
 * driver's teardown all come later. So while a request holds the read side,
 * the device stays in the requester's netns, registered and bound to its
 * driver, and the driver's show/store functions (cdc_ncm's sysfs group,
 * which usbeth calls directly, without the active reference kernfs takes
 * around its own calls) and data stay valid; the caller's CAP_NET_ADMIN over
 * that netns, which genetlink checked, is over the device's netns; and the
 * CHANGE a SET sends goes to that netns, ahead of the DEL the notifier sends
 * there next. The notifier runs ahead of notifier.c's (priority) for that.
 * The other way round, a device moved in is listed before the notifiers
 * hear of it: a request enters it only once a second notifier, behind
 * notifier.c's NEW, has marked its record live in that netns (until then it
 * takes rtnl, which the move holds), so a CHANGE never precedes the NEW.
 * A request holding the read side must not take rtnl: the notifier holds
 * rtnl while it waits for the write side. The cost: a move or unregistration
 * of such a device waits, under rtnl, for the requests in flight on the
 * devices of its slot (a SET_NTB_INPUT_SIZE is a control transfer of up to
 * 5 s); requests on a device with a record never wait for rtnl.
 *
 * The name. A rename (under rtnl) writes dev->name and only then tells the
 * notifiers (NETDEV_CHANGENAME), so without rtnl dev->name may be read half
 * old, half new. Such devices get a record here, keyed by the device, whose
 * copy of the name the notifier sets under rtnl and host_name_lock at
 * NETDEV_REGISTER (registration, and the end of a netns move, which may
 * rename) and NETDEV_CHANGENAME; requests read it under host_name_lock
 * (between a rename's write and its NETDEV_CHANGENAME they get the old
 * name, whole). A
 * record lives from the device's NETDEV_REGISTER (registering the notifier
 * replays it for the devices already there) to its real NETDEV_UNREGISTER
 * (a move's keeps reg_state NETREG_REGISTERED); a device without one is
 * worked on under rtnl.
 */
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/rwsem.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include "usbeth.h"

#define HOST_SEM_BITS 5
static struct rw_semaphore host_sems[1 << HOST_SEM_BITS];

struct host_rec {
	struct hlist_node node;
	struct net_device *dev;
	bool live;		/* NEW sent in its netns; no UNREGISTER since */
	char name[IFNAMSIZ];
	struct rcu_head rcu;
};

static DEFINE_HASHTABLE(host_recs, 6);	/* changed under rtnl, read under RCU */
static DEFINE_SEQLOCK(host_name_lock);	/* host_rec.name */

static struct rw_semaphore *host_sem(const struct net_device *dev)
{
	return &host_sems[hash_ptr(dev, HOST_SEM_BITS)];
}

static struct host_rec *host_rec_find(const struct net_device *dev)
{
	struct host_rec *rec;

	hash_for_each_possible_rcu(host_recs, rec, node, (unsigned long)dev,
				   lockdep_rtnl_is_held())
		if (rec->dev == dev)
			return rec;
	return NULL;
}

/*
 * dev's name as the notifier last set it; false: dev has no record, or
 * (live) one not live
 */
static bool host_name(const struct net_device *dev, char *name, bool live)
{
	struct host_rec *rec;
	unsigned int seq;

	rcu_read_lock();
	rec = host_rec_find(dev);
	/*
	 * Pairs with the smp_store_release() in host_netdev_live(): a request
	 * that sees live comes after the NEW notifier.c sent before it.
	 */
	if (rec && live && !smp_load_acquire(&rec->live))
		rec = NULL;
	if (rec) {
		do {
			seq = read_seqbegin(&host_name_lock);
			memcpy(name, rec->name, IFNAMSIZ);
		} while (read_seqretry(&host_name_lock, seq));
		name[IFNAMSIZ - 1] = '\0';
	}
	rcu_read_unlock();
	return rec;
}

/*
 * Enters dev for a request from net (see the top of the file) and copies
 * its name. 0: entered, leave with usbeth_host_leave(); -ENODEV: dev is not
 * (or no longer) listed in net; -EAGAIN: dev has no live record (its
 * registration or move is not through the notifiers yet, or there was no
 * memory for one): work on it under rtnl instead.
 */
int usbeth_host_enter(struct net *net, struct net_device *dev, char *name)
{
	bool listed;

	down_read(host_sem(dev));
	rcu_read_lock();
	listed = dev_get_by_index_rcu(net, READ_ONCE(dev->ifindex)) == dev;
	rcu_read_unlock();
	if (listed && host_name(dev, name, true))
		return 0;
	up_read(host_sem(dev));
	return listed ? -EAGAIN : -ENODEV;
}

void usbeth_host_leave(struct net_device *dev)
{
	lockdep_assert_held_read(host_sem(dev));
	up_read(host_sem(dev));
}

/* dev's name again, for a request that entered it: it may have been renamed */
void usbeth_host_name(struct net_device *dev, char *name)
{
	lockdep_assert_held_read(host_sem(dev));
	host_name(dev, name, false);
}

static void host_rec_set_name(struct host_rec *rec, struct net_device *dev)
{
	write_seqlock(&host_name_lock);
	strscpy(rec->name, dev->name, IFNAMSIZ);
	write_sequnlock(&host_name_lock);
}

static void host_registered(struct net_device *dev)
{
	struct host_rec *rec = host_rec_find(dev);

	if (rec) {
		host_rec_set_name(rec, dev);
		return;
	}
	if (usbeth_needs_rtnl(dev))
		return;
	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return;		/* its requests take rtnl */
	rec->dev = dev;
	strscpy(rec->name, dev->name, IFNAMSIZ);
	hash_add_rcu(host_recs, &rec->node, (unsigned long)dev);
}

static int host_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct host_rec *rec;

	switch (event) {
	case NETDEV_REGISTER:
		ASSERT_RTNL();
		host_registered(dev);
		break;
	case NETDEV_CHANGENAME:
		rec = host_rec_find(dev);
		if (rec)
			host_rec_set_name(rec, dev);
		break;
	case NETDEV_UNREGISTER:
		rec = host_rec_find(dev);
		if (!rec)
			break;
		/* every request that found dev listed is done with it */
		down_write(host_sem(dev));
		rec->live = false;
		up_write(host_sem(dev));
		if (dev->reg_state != NETREG_REGISTERED) {
			hash_del_rcu(&rec->node);
			kfree_rcu(rec, rcu);
		}
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block host_netdev_nb = {
	.notifier_call = host_netdev_event,
	.priority = 1,	/* ahead of notifier.c's, which sends DEL */
};

static int host_netdev_live(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct host_rec *rec;

	if (event != NETDEV_REGISTER)
		return NOTIFY_DONE;
	rec = host_rec_find(dev);
	if (rec)	/* after notifier.c's NEW: pairs with host_name()'s acquire */
		smp_store_release(&rec->live, true);
	return NOTIFY_DONE;
}

static struct notifier_block host_live_nb = {
	.notifier_call = host_netdev_live,
	.priority = -1,	/* behind notifier.c's, which sends NEW */
};

static void usbeth_host_exit_recs(void)
{
	struct hlist_node *tmp;
	struct host_rec *rec;
	unsigned int bkt;

	unregister_netdevice_notifier(&host_netdev_nb);
	rtnl_lock();
	hash_for_each_safe(host_recs, bkt, tmp, rec, node) {
		hash_del_rcu(&rec->node);
		kfree_rcu(rec, rcu);
	}
	rtnl_unlock();
	rcu_barrier();
}

int usbeth_host_init(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(host_sems); i++)
		init_rwsem(&host_sems[i]);
	err = register_netdevice_notifier(&host_netdev_nb);
	if (err)
		return err;
	err = register_netdevice_notifier(&host_live_nb);
	if (err)
		usbeth_host_exit_recs();
	return err;
}

/* after the family is gone: no request is left to enter a device */
void usbeth_host_exit(void)
{
	unregister_netdevice_notifier(&host_live_nb);
	usbeth_host_exit_recs();
}
