// SPDX-License-Identifier: GPL-2.0
/*
 * u_ether backend: the TX/RX request queue multiplier of USB gadget
 * Ethernet functions (ncm, ecm, eem, subset, rndis).
 *
 * u_ether exports gether_get_qmult()/gether_set_qmult(); usbeth takes them
 * with __symbol_get() for the duration of one call, so it loads and works on
 * systems without the gadget stack, and never pins u_ether. u_ether sizes its
 * request pools from qmult when the host connects (gether_connect), so a new
 * value takes effect at the next connect; gadget_rec.c keeps the value in
 * effect when usbeth changes it on a connected gadget.
 *
 * u_ether's own writer, the function's configfs qmult, refuses while the
 * function is in a configuration, because gether_connect() reads qmult
 * without a lock of u_ether's. It runs under a lock all the same: every
 * u_ether function (ncm, ecm, eem, rndis, subset) calls gether_connect()
 * from its set_alt() only, and the composite core calls set_alt() only
 * under its device's spinlock (cdev->lock, in composite_setup() for
 * SET_CONFIGURATION and SET_INTERFACE; 6.1 to 7.3 alike). usbeth writes
 * qmult under that same lock, reached as the gadget's driver data under
 * dpm_list_mtx (gadget_rec.c), so a connect reads the value either before
 * the write or after it, never during, and the write knows which: the carrier
 * and the connect count it sees under the lock are that connect's. Nothing
 * else of u_ether reads qmult. Unbound, the netdev has no gadget, and none
 * can connect it until u_ether attaches it to one, which waits for
 * dpm_list_mtx.
 */
#include <linux/module.h>
#include <linux/usb/composite.h>
#include <linux/usb/gadget.h>
#include "usbeth.h"

typedef unsigned int (*gether_get_qmult_t)(struct net_device *net);
typedef void (*gether_set_qmult_t)(struct net_device *net, unsigned int qmult);

bool usbeth_gadget_qmult_available(void)
{
	void *get = __symbol_get("gether_get_qmult");

	if (!get)
		return false;
	__symbol_put("gether_get_qmult");
	return true;
}

int usbeth_gadget_get_qmult(struct net_device *dev, u32 *val)
{
	gether_get_qmult_t get = __symbol_get("gether_get_qmult");

	if (!get)
		return -EOPNOTSUPP;
	*val = get(dev);
	__symbol_put("gether_get_qmult");
	return 0;
}

static int qmult_get(struct net_device *dev, int attr, unsigned int queue,
		     u32 *val)
{
	return usbeth_gadget_get_qmult(dev, val);
}

struct qmult_write {
	gether_get_qmult_t get;
	gether_set_qmult_t set;
	u32 val;
	struct usbeth_qmult_change c;
	int err;
};

/* What the change sees of the connect, and the change itself. */
static void qmult_swap(struct net_device *dev, struct qmult_write *w)
{
	w->c.carrier = netif_carrier_ok(dev);
	w->c.connect = atomic_read(&dev->carrier_up_count);
	w->c.old = w->get(dev);
	w->set(dev, w->val);
	w->err = 0;
}

/*
 * Under dpm_list_mtx (usbeth_with_gadget()); g: the gadget, NULL unbound,
 * when no connect can run. Bound, under the lock every connect runs under.
 */
static void qmult_write(struct net_device *dev, struct usb_gadget *g,
			void *arg)
{
	struct qmult_write *w = arg;
	struct usb_composite_dev *cdev;
	unsigned long flags;

	if (!g) {
		qmult_swap(dev, w);
		return;
	}
	cdev = get_gadget_data(g);
	if (!cdev) {
		w->err = -EBUSY;	/* not attached by a bound function */
		return;
	}
	spin_lock_irqsave(&cdev->lock, flags);
	qmult_swap(dev, w);
	spin_unlock_irqrestore(&cdev->lock, flags);
}

static int qmult_set(const struct usbeth_req *req, int attr, unsigned int queue,
		     u32 val, const struct nlattr *nla)
{
	struct qmult_write w = { .val = val, .err = -ENODEV };
	int err;

	w.get = __symbol_get("gether_get_qmult");
	w.set = __symbol_get("gether_set_qmult");
	if (!w.get || !w.set) {
		usbeth_extack_msg(req->extack, nla, "qmult: u_ether is not loaded",
				  "qmult: u_ether is not loaded for %s",
				  req->name);
		err = -EOPNOTSUPP;
		goto out;
	}
	err = usbeth_qmult_will_change(req->dev);
	if (err)
		goto out;
	usbeth_with_gadget(req->dev, qmult_write, &w);
	err = w.err;
	if (err == -ENODEV)
		usbeth_extack_msg(req->extack, nla, "qmult: the device is going away",
				  "qmult: %s is going away", req->name);
	else if (err)
		usbeth_extack_msg(req->extack, nla,
				  "qmult: the gadget is being bound or unbound",
				  "qmult: %s's gadget is being bound or unbound",
				  req->name);
	else
		usbeth_qmult_changed(req->dev, &w.c);
out:
	if (w.get)
		__symbol_put("gether_get_qmult");
	if (w.set)
		__symbol_put("gether_set_qmult");
	return err;
}

const struct usbeth_knob usbeth_gadget_knobs[1] = {
	{
		.attr = USBETH_A_QMULT, .name = "qmult",
		.flag = USBETH_KNOB_BIT_QMULT,
		.cap = USBETH_CAP_QMULT,
		.get = qmult_get, .set = qmult_set,
	},
};

/* The qmult the connect in place was sized with, beside the knob */
static int gadget_prepare(struct net_device *dev, struct usbeth_state *st)
{
	u32 val;

	if ((st->id.caps & USBETH_CAP_QMULT) && usbeth_qmult_active(dev, &val))
		usbeth_state_add(st, USBETH_A_QMULT_ACTIVE, val);
	return 0;
}

const struct usbeth_backend usbeth_gadget_backend = {
	.name = "gadget", .knobs = usbeth_gadget_knobs,
	.n = ARRAY_SIZE(usbeth_gadget_knobs), .nextra = 1,
	.prepare = gadget_prepare,
};
