// SPDX-License-Identifier: GPL-2.0
/*
 * u_ether backend: the TX/RX request queue multiplier of USB gadget
 * Ethernet functions (ncm, ecm, eem, subset, rndis).
 *
 * u_ether exports gether_get_qmult()/gether_set_qmult(); usbeth takes them
 * with __symbol_get() for the duration of one call, so it loads and works on
 * systems without the gadget stack, and never pins u_ether. u_ether sizes its
 * request pools from qmult when the host connects (gether_connect), so a new
 * value takes effect at the next connect; device.c keeps the value in effect
 * when usbeth changes it on a connected gadget.
 */
#include <linux/module.h>
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

static int qmult_set(const struct usbeth_req *req, int attr, unsigned int queue,
		     u32 val, const struct nlattr *nla)
{
	gether_set_qmult_t set = __symbol_get("gether_set_qmult");
	struct usbeth_qmult_change c;

	if (!set) {
		usbeth_extack_msg(req->extack, nla, "qmult: u_ether is not loaded",
				  "qmult: u_ether is not loaded for %s",
				  req->dev->name);
		return -EOPNOTSUPP;
	}
	usbeth_qmult_will_change(req->dev, &c);
	set(req->dev, val);
	usbeth_qmult_changed(req->dev, &c);
	__symbol_put("gether_set_qmult");
	return 0;
}

const struct usbeth_knob usbeth_gadget_knobs[1] = {
	{
		.attr = USBETH_A_QMULT, .name = "qmult",
		.flag = USBETH_KNOB_BIT_QMULT,
		.cap = USBETH_CAP_QMULT,
		.get = qmult_get, .set = qmult_set,
	},
};
