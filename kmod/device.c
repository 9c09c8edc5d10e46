// SPDX-License-Identifier: GPL-2.0
/*
 * Device classification (role, USB identity, capabilities), the records
 * usbeth keeps for gadget netdevs, and the netdev notifier.
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
 * identity as last read (gadget_ident()). Records are only touched under
 * rtnl.
 */
#include <linux/ethtool.h>
#include <linux/kallsyms.h>
#include <linux/list.h>
#include <linux/pm.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/usb.h>
#include <linux/usb/gadget.h>
#include "usbeth.h"

struct usbeth_gadget_rec {
	struct list_head list;
	struct net_device *dev;
	netdevice_tracker tracker;
	int connect;		/* carrier_up_count of the connect recorded */
	u32 qmult;		/* qmult of that connect's pools, 0: none */
	/* the gadget's identity as last read (gadget_ident()) */
	unsigned long id_when;	/* jiffies of that read; id_valid: any */
	bool id_valid;
	const void *id_parent;	/* the netdev's parent then: compared only */
	int id_up, id_down;	/* the netdev's carrier counts then */
	u32 id_speed, id_max_speed;
	char id_udc[sizeof_field(struct usbeth_ident, udc)];
};

static LIST_HEAD(gadget_recs);

/*
 * Whether dev is a USB host-side netdev: its parent is a USB interface.
 * This follows the parent, so it must not see a u_ether netdev, whose
 * parent u_ether moves (and a UDC removal then frees) with no lock held
 * here: callers rule out is_usb_gadget_side() first, which looks at the
 * netdev alone.
 */
static bool is_usb_host_side(struct net_device *dev)
{
	struct device *parent = dev->dev.parent;

	return parent && parent->bus && parent->bus->name &&
	       !strcmp(parent->bus->name, "usb") && parent->type &&
	       parent->type->name && !strcmp(parent->type->name, "usb_interface");
}

/*
 * Whether dev is a u_ether netdev: its device type is the one u_ether names
 * "gadget" and its transmit routine is u_ether's. The type name alone is
 * not enough: usbeth hands gadget netdevs to u_ether's exports, which take
 * netdev_priv() as u_ether's own struct, so a foreign netdev whose type
 * happens to be called "gadget" must never get there. u_ether's types and
 * ops are static; the kernel's symbol table names the module a function
 * belongs to, which is how it is told here (Debian's kernels have
 * KALLSYMS; without it no netdev passes and gadget knobs are not offered).
 */
static bool is_usb_gadget_side(struct net_device *dev)
{
	char sym[KSYM_SYMBOL_LEN];
	const char *mod;

	if (!dev->dev.type || !dev->dev.type->name ||
	    strcmp(dev->dev.type->name, "gadget") || !dev->netdev_ops ||
	    !dev->netdev_ops->ndo_start_xmit)
		return false;
	sprint_symbol(sym, (unsigned long)dev->netdev_ops->ndo_start_xmit);
	mod = strchr(sym, '[');
	if (mod)
		return !strcmp(mod, "[u_ether]");
	/* u_ether built in: its transmit routine by name */
	return !strncmp(sym, "eth_start_xmit+", strlen("eth_start_xmit+"));
}

static u32 speed_of(enum usb_device_speed s)
{
	switch (s) {
	case USB_SPEED_LOW:
		return USBETH_USB_SPEED_LOW;
	case USB_SPEED_FULL:
		return USBETH_USB_SPEED_FULL;
	case USB_SPEED_HIGH:
		return USBETH_USB_SPEED_HIGH;
	case USB_SPEED_WIRELESS:
		return USBETH_USB_SPEED_WIRELESS;
	case USB_SPEED_SUPER:
		return USBETH_USB_SPEED_SUPER;
	case USB_SPEED_SUPER_PLUS:
		return USBETH_USB_SPEED_SUPER_PLUS;
	default:
		return USBETH_USB_SPEED_UNKNOWN;
	}
}

/*
 * Whether usbeth must hold rtnl to work on dev. Gadget netdevs: yes, u_ether
 * moves them between parents under rtnl and their qmult records live under
 * it. Drivers with ethtool coalesce ops: yes, ethtool calls those under
 * rtnl. Other netdevs than USB host-side ones: yes, nothing is known of
 * them. USB host-side netdevs otherwise do without: their knobs are the
 * driver's own sysfs attributes and the TX queues' BQL limits, which sysfs
 * reads and writes without rtnl, and the reference usbeth holds keeps the
 * driver bound (its disconnect waits in unregister_netdev() for every
 * reference), hence the USB interface and device alive. This keeps a
 * profile applied on hotplug from queueing behind the rtnl work the hotplug
 * itself sets off (registration, the peer's link watch, IPv6 autoconf).
 */
bool usbeth_needs_rtnl(struct net_device *dev)
{
	return is_usb_gadget_side(dev) || !is_usb_host_side(dev) ||
	       usbeth_coalesce_caps(dev);
}

/*
 * The driver's name as ethtool -i shows it. For USB host-side netdevs that
 * is the USB interface driver's (usbnet takes its name from there), read
 * without calling into ethtool ops, so it works without rtnl.
 */
const char *usbeth_driver_name(struct net_device *dev, char *buf, size_t len)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	struct device *parent;

	/*
	 * Not u_ether's get_drvinfo(): it tests its gadget pointer, then reads
	 * it again, while gether_detach_gadget() clears it without any lock
	 * usbeth (or ethtool) could hold; a GET racing an unbind oopsed there
	 * on 7.3 (NULL gadget->name). Its driver name is the constant it
	 * reports. Decided before anything follows the parent (see
	 * is_usb_host_side()).
	 */
	if (is_usb_gadget_side(dev)) {
		strscpy(buf, "g_ether", len);
		return buf;
	}
	parent = dev->dev.parent;
	if (is_usb_host_side(dev) && parent->driver && parent->driver->name) {
		strscpy(buf, parent->driver->name, len);
		return buf;
	}
	/* as ethtool -i calls it: device awake, present, inside begin */
	if (ops && ops->get_drvinfo && !usbeth_ethtool_begin(dev)) {
		struct ethtool_drvinfo info = {};

		ops->get_drvinfo(dev, &info);
		usbeth_ethtool_complete(dev);
		if (info.driver[0]) {
			strscpy(buf, info.driver, len);
			return buf;
		}
	}
	if (parent && parent->driver && parent->driver->name)
		strscpy(buf, parent->driver->name, len);
	else
		strscpy(buf, "", len);
	return buf;
}

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
	id->speed = speed_of(g->speed);
	id->max_speed = speed_of(g->max_speed);
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
static void gadget_ident(struct net_device *dev, struct usbeth_ident *id)
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

void usbeth_ident(struct net_device *dev, struct usbeth_ident *id)
{
	memset(id, 0, sizeof(*id));
	id->role = USBETH_ROLE_OTHER;

	/* gadget first: its parent is touched only inside gadget_copy() */
	if (is_usb_gadget_side(dev)) {
		id->role = USBETH_ROLE_USB_GADGET;
		gadget_ident(dev, id);
		if (usbeth_gadget_qmult_available())
			id->caps |= USBETH_CAP_QMULT;
	} else if (is_usb_host_side(dev)) {
		struct usb_interface *intf = to_usb_interface(dev->dev.parent);
		struct usb_device *udev = interface_to_usbdev(intf);

		id->role = USBETH_ROLE_USB_HOST;
		id->speed = speed_of(udev->speed);
		id->vid = le16_to_cpu(udev->descriptor.idVendor);
		id->pid = le16_to_cpu(udev->descriptor.idProduct);
		id->busnum = udev->bus->busnum;
		id->usb_path = dev_name(&udev->dev);
		if (usbeth_ncm_present(dev))
			id->caps |= USBETH_CAP_NTB | USBETH_CAP_TX_TIMER;
	}
	id->caps |= usbeth_coalesce_caps(dev);
	if (usbeth_bql_capable(dev))
		id->caps |= USBETH_CAP_BQL;
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

static int usbeth_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	bool usb = is_usb_gadget_side(dev) || is_usb_host_side(dev);
	struct usbeth_gadget_rec *rec;

	switch (event) {
	case NETDEV_REGISTER:
		if (usb)
			usbeth_notify_dev(dev, USBETH_CMD_NEW_NTF);
		break;
	case NETDEV_UNREGISTER:
		if (usb)
			usbeth_notify_dev(dev, USBETH_CMD_DEL_NTF);
		/*
		 * Whatever the device looks like now: the record's reference
		 * must go when the device really goes (not on a netns move).
		 */
		rec = rec_find(dev);
		if (rec && dev->reg_state != NETREG_REGISTERED)
			rec_free(rec);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block usbeth_netdev_nb = {
	.notifier_call = usbeth_netdev_event,
};

int usbeth_device_init(void)
{
	return register_netdevice_notifier(&usbeth_netdev_nb);
}

void usbeth_device_exit(void)
{
	struct usbeth_gadget_rec *rec, *tmp;

	unregister_netdevice_notifier(&usbeth_netdev_nb);
	rtnl_lock();
	list_for_each_entry_safe(rec, tmp, &gadget_recs, list)
		rec_free(rec);
	rtnl_unlock();
}
