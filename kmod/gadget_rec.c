// SPDX-License-Identifier: GPL-2.0
/*
 * The records usbeth keeps for gadget netdevs, and the gadget reached
 * under the lock its netdev moves under.
 *
 * The qmult in effect: u_ether sizes its request pools from qmult in
 * gether_connect(), right before netif_carrier_on(), and frees them on
 * disconnect. While a gadget is bound, only usbeth can change qmult (its
 * configfs file refuses), and it does so under the lock every connect
 * runs under (gadget.c), so a change lands either before a connect, which
 * then uses it, or after one. A change on a connected gadget is recorded
 * with the old value and the device's carrier_up_count, which counts
 * every connect, whether or not the netdev was up to see it: the pools of
 * that connect are the old value's. A record holds a tracked reference on
 * the netdev, released at the real NETDEV_UNREGISTER (a netns move also
 * sends UNREGISTER, with reg_state still NETREG_REGISTERED: the record
 * survives it) and at module exit. A record also keeps the gadget's
 * identity as last read (usbeth_gadget_ident()). Records are only touched
 * under rtnl.
 */
#include <linux/list.h>
#include <linux/pm.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/usb/gadget.h>
#include "usbeth.h"

struct usbeth_gadget_rec {
	struct list_head list;
	struct net_device *dev;
	netdevice_tracker tracker;
	int connect;		/* carrier_up_count of the connect recorded */
	u32 qmult;		/* qmult of that connect's pools, 0: none */
	/* the gadget's identity as last read (usbeth_gadget_ident()) */
	unsigned long id_when;	/* jiffies of that read; id_valid: any */
	bool id_valid;
	const void *id_parent;	/* the netdev's parent then: compared only */
	int id_up, id_down;	/* the netdev's carrier counts then */
	u32 id_speed, id_max_speed;
	char id_udc[sizeof_field(struct usbeth_ident, udc)];
};

static LIST_HEAD(gadget_recs);

/*
 * A gadget netdev's parent is its usb_gadget while bound to a UDC, moved by
 * u_ether's gether_attach_gadget()/gether_detach_gadget() with
 * device_move(), which takes neither rtnl nor anything of the netdev's:
 * only the driver core's dpm_list_mtx, held across the whole move. Unbind
 * plus UDC removal can free the gadget right after the move, so usbeth
 * touches the gadget only under that mutex, reached through the one export
 * that holds it (dpm_for_each_dev(), which walks the list of devices: a
 * gadget's netdev is on it). While the mutex is held and the netdev's
 * parent is the gadget, the gadget has not been deleted (its device_del()
 * takes the mutex too, after the unbind that moves the netdev), hence not
 * freed; nor has the UDC, its parent; nor has the gadget driver's data (the
 * composite device), which is set before the function's bind attaches the
 * netdev and cleared after its unbind detached it. While the mutex is held
 * and the netdev has no parent, no gadget can be attached to it.
 */
struct gadget_visit {
	struct device *netdev;
	void (*fn)(struct net_device *dev, struct usb_gadget *g, void *arg);
	void *arg;
	bool found;
};

static void gadget_visit_one(struct device *d, void *data)
{
	struct gadget_visit *v = data;

	if (d != v->netdev)
		return;
	v->found = true;
	v->fn(to_net_dev(d),
	      d->parent ? container_of(d->parent, struct usb_gadget, dev) : NULL,
	      v->arg);
}

/*
 * Calls fn(dev, g, arg) under dpm_list_mtx, with g the gadget dev is bound
 * to, NULL when unbound. fn must not sleep long: every device's power
 * transitions wait for the mutex. Returns false without calling fn when dev
 * is not a registered device (being unregistered).
 */
bool usbeth_with_gadget(struct net_device *dev,
			void (*fn)(struct net_device *dev, struct usb_gadget *g,
				   void *arg),
			void *arg)
{
	struct gadget_visit v = { .netdev = &dev->dev, .fn = fn, .arg = arg };

	dpm_for_each_dev(&v, gadget_visit_one);
	return v.found;
}

static void gadget_copy(struct net_device *dev, struct usb_gadget *g,
			void *arg)
{
	struct usbeth_ident *id = arg;

	if (!g)
		return;
	id->speed = usbeth_usb_speed(g->speed);
	id->max_speed = usbeth_usb_speed(g->max_speed);
	if (g->dev.parent)
		strscpy(id->udc, dev_name(g->dev.parent), sizeof(id->udc));
}

static struct usbeth_gadget_rec *rec_find(struct net_device *dev)
{
	struct usbeth_gadget_rec *rec;

	list_for_each_entry(rec, &gadget_recs, list)
		if (rec->dev == dev)
			return rec;
	return NULL;
}

static struct usbeth_gadget_rec *rec_get(struct net_device *dev)
{
	struct usbeth_gadget_rec *rec = rec_find(dev);

	if (rec)
		return rec;
	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return NULL;
	rec->dev = dev;
	netdev_hold(dev, &rec->tracker, GFP_KERNEL);
	list_add(&rec->list, &gadget_recs);
	return rec;
}

/*
 * How long a gadget's identity is answered from the last read. Reading it
 * walks every device of the system under dpm_list_mtx, which every
 * device's addition, removal and power transition waits for, and any user
 * may send GETs in a loop: at most one walk per gadget netdev per this
 * long, unless the netdev changed parent (a bind or an unbind) or carrier
 * (a connect or a disconnect: a new speed) since, which reads again.
 */
#define GADGET_IDENT_TTL	(HZ / 10)

/* Under rtnl (a gadget netdev's every GET, SET and notification). */
void usbeth_gadget_ident(struct net_device *dev, struct usbeth_ident *id)
{
	const void *parent = READ_ONCE(dev->dev.parent);
	int up = atomic_read(&dev->carrier_up_count);
	int down = atomic_read(&dev->carrier_down_count);
	struct usbeth_gadget_rec *rec;

	ASSERT_RTNL();
	rec = rec_get(dev);
	if (rec && rec->id_valid && rec->id_parent == parent &&
	    rec->id_up == up && rec->id_down == down &&
	    time_before(jiffies, rec->id_when + GADGET_IDENT_TTL)) {
		id->speed = rec->id_speed;
		id->max_speed = rec->id_max_speed;
		strscpy(id->udc, rec->id_udc, sizeof(id->udc));
		return;
	}
	usbeth_with_gadget(dev, gadget_copy, id);
	if (!rec)
		return;		/* no memory for the copy: read every time */
	rec->id_valid = true;
	rec->id_when = jiffies;
	rec->id_parent = parent;
	rec->id_up = up;
	rec->id_down = down;
	rec->id_speed = id->speed;
	rec->id_max_speed = id->max_speed;
	strscpy(rec->id_udc, id->udc, sizeof(rec->id_udc));
}

/*
 * The qmult the pools of the current connect were sized with. Under rtnl,
 * which every usbeth change holds: a connect after the reads below used
 * the current value, as did any connect without a record.
 */
bool usbeth_qmult_active(struct net_device *dev, u32 *qmult)
{
	struct usbeth_gadget_rec *rec;

	ASSERT_RTNL();
	if (!netif_carrier_ok(dev))
		return false;	/* disconnected: no request pools */
	rec = rec_find(dev);
	if (rec && rec->qmult &&
	    rec->connect == atomic_read(&dev->carrier_up_count)) {
		*qmult = rec->qmult;
		return true;
	}
	return !usbeth_gadget_get_qmult(dev, qmult);
}

/*
 * Around a qmult change (gadget.c): before it, the record the change may
 * need, so that noting it cannot fail once the value is written; after
 * it, what the change saw under the connect's lock: whether a connect was
 * up, its count, and the value it was sized with.
 */
int usbeth_qmult_will_change(struct net_device *dev)
{
	ASSERT_RTNL();
	return rec_get(dev) ? 0 : -ENOMEM;
}

void usbeth_qmult_changed(struct net_device *dev,
			  const struct usbeth_qmult_change *c)
{
	struct usbeth_gadget_rec *rec;

	ASSERT_RTNL();
	rec = rec_find(dev);
	if (!rec || !c->carrier)
		return;		/* the next connect takes the new value */
	if (rec->qmult && rec->connect == c->connect)
		return;		/* changed before in this connect: sized earlier */
	rec->connect = c->connect;
	rec->qmult = c->old;
}

static void rec_free(struct usbeth_gadget_rec *rec)
{
	list_del(&rec->list);
	netdev_put(rec->dev, &rec->tracker);
	kfree(rec);
}

/* At NETDEV_UNREGISTER: the record's reference goes when dev really goes. */
void usbeth_gadget_rec_unregister(struct net_device *dev)
{
	struct usbeth_gadget_rec *rec;

	ASSERT_RTNL();
	rec = rec_find(dev);
	if (rec && dev->reg_state != NETREG_REGISTERED)
		rec_free(rec);
}

/* At module exit, after the notifier is gone: no record is made any more. */
void usbeth_gadget_recs_exit(void)
{
	struct usbeth_gadget_rec *rec, *tmp;

	rtnl_lock();
	list_for_each_entry_safe(rec, tmp, &gadget_recs, list)
		rec_free(rec);
	rtnl_unlock();
}
