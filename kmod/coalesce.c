// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool coalesce backend: tx-usecs, tx-frames, rx-usecs, rx-frames of any
 * driver with coalesce ops, limited to what the driver declares in
 * supported_coalesce_params. Like ethtool's own set path, a SET wakes the
 * device, reads the whole current setting, modifies every field the SET
 * names and hands it back to the driver once, then tells ethtool listeners
 * (only when that changed the setting). A GET does not wake the device: it
 * leaves out the values of one whose parent is runtime-suspended.
 */
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/pm_runtime.h>
#include "usbeth.h"

static const struct {
	int attr;
	u32 ethtool_bit;
	u32 cap;
} coal_map[] = {
	{ USBETH_A_COAL_TX_USECS, ETHTOOL_COALESCE_TX_USECS,
	  USBETH_CAP_COAL_TX_USECS },
	{ USBETH_A_COAL_TX_FRAMES, ETHTOOL_COALESCE_TX_MAX_FRAMES,
	  USBETH_CAP_COAL_TX_FRAMES },
	{ USBETH_A_COAL_RX_USECS, ETHTOOL_COALESCE_RX_USECS,
	  USBETH_CAP_COAL_RX_USECS },
	{ USBETH_A_COAL_RX_FRAMES, ETHTOOL_COALESCE_RX_MAX_FRAMES,
	  USBETH_CAP_COAL_RX_FRAMES },
};

u32 usbeth_coalesce_caps(struct net_device *dev)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	u32 caps = 0;
	unsigned int i;

	if (!ops || !ops->get_coalesce || !ops->set_coalesce)
		return 0;
	for (i = 0; i < ARRAY_SIZE(coal_map); i++)
		if (ops->supported_coalesce_params & coal_map[i].ethtool_bit)
			caps |= coal_map[i].cap;
	return caps;
}

static u32 *coal_field(struct ethtool_coalesce *ec, int attr)
{
	switch (attr) {
	case USBETH_A_COAL_TX_USECS:
		return &ec->tx_coalesce_usecs;
	case USBETH_A_COAL_TX_FRAMES:
		return &ec->tx_max_coalesced_frames;
	case USBETH_A_COAL_RX_USECS:
		return &ec->rx_coalesce_usecs;
	default:
		return &ec->rx_max_coalesced_frames;
	}
}

/*
 * Around the driver's ops, in ethtool core's order (ethnl_ops_begin() and
 * the set and get paths around it, 6.1 to 7.3): the device's ops lock
 * first, where it has one (compat.h), unless the caller holds it (ops_held:
 * the NETDEV_REGISTER notifier); then wake the parent (a runtime-suspended
 * NIC may have detached its netdev, and ops may touch its registers), check
 * the device is there, then the driver's begin. usbeth_ethtool_complete()
 * undoes it in reverse: the driver's complete, the parent let go, the lock
 * dropped. A read that must not wake the device holds the parent awake
 * first (usbeth_awake_get()), so that the wake here finds it awake.
 */
int usbeth_ethtool_begin(struct net_device *dev, bool ops_held)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	int err = -ENODEV;

	if (!ops_held)
		usbeth_lock_ops(dev);
	if (dev->dev.parent)
		pm_runtime_get_sync(dev->dev.parent);
	if (netif_device_present(dev) &&
	    READ_ONCE(dev->reg_state) == NETREG_REGISTERED) {
		err = ops->begin ? ops->begin(dev) : 0;
		if (!err)
			return 0;
	}
	if (dev->dev.parent)
		pm_runtime_put(dev->dev.parent);
	if (!ops_held)
		usbeth_unlock_ops(dev);
	return err;
}

void usbeth_ethtool_complete(struct net_device *dev, bool ops_held)
{
	if (dev->ethtool_ops->complete)
		dev->ethtool_ops->complete(dev);
	if (dev->dev.parent)
		pm_runtime_put(dev->dev.parent);
	if (!ops_held)
		usbeth_unlock_ops(dev);
}

/*
 * For reads that must not wake dev: a GET or a dump (any user may ask for
 * every netdev of its netns) and the notifications. Keeps the device that
 * a wake of dev's parent would resume awake, if it is, in *held until
 * usbeth_awake_put(): the parent, or, while the parent is suspended but has
 * no runtime PM callbacks of its own (a USB interface: waking it costs only
 * its USB device's wake), the nearest ancestor that has them. 0: awake (or
 * no runtime PM to respect: no parent, runtime PM disabled, no CONFIG_PM),
 * the driver's ops are called as ethtool calls them; -EAGAIN: asleep
 * (runtime-suspended, or suspending, or resuming), and left so: the caller
 * calls no op that would wake it. Follows dev's parent: not for a gadget
 * netdev (see is_usb_host_side()).
 */
int usbeth_awake_get(struct net_device *dev, struct device **held)
{
	struct device *d;
	int ret;

	*held = NULL;
	for (d = dev->dev.parent; d; d = d->parent) {
		ret = usbeth_pm_get_if_active(d);
		if (ret > 0) {
			*held = d;
			return 0;
		}
		if (ret < 0)	/* disabled: a wake would not pass it */
			return 0;
#ifdef CONFIG_PM
		if (!d->power.no_callbacks)
			return -EAGAIN;
#endif
	}
	return 0;
}

void usbeth_awake_put(struct device *held)
{
	if (held)
		pm_runtime_put(held);
}

/* Between usbeth_ethtool_begin() and usbeth_ethtool_complete(). */
static int coal_read(struct net_device *dev, struct ethtool_coalesce *ec,
		     struct kernel_ethtool_coalesce *kec)
{
	memset(ec, 0, sizeof(*ec));
	memset(kec, 0, sizeof(*kec));
	return dev->ethtool_ops->get_coalesce(dev, ec, kec, NULL);
}

/*
 * One get_coalesce() call, with the device awake and the driver told: the
 * whole setting, ethtool's classic fields in ec and the newer ones (e.g.
 * the TX aggregation of ncm.c's cdc_ncm) in kec.
 */
int usbeth_coalesce_read(struct net_device *dev, struct ethtool_coalesce *ec,
			 struct kernel_ethtool_coalesce *kec, bool ops_held)
{
	int err;

	err = usbeth_ethtool_begin(dev, ops_held);
	if (err)
		return err;
	err = coal_read(dev, ec, kec);
	usbeth_ethtool_complete(dev, ops_held);
	return err;
}

/*
 * One change of dev's coalesce setting, as ethtool -C makes it: the whole
 * setting read, edit(ec, kec, arg) changes its fields, one set_coalesce()
 * (the driver validates the whole new setting, never an intermediate one),
 * one notification, told to listeners under the ops lock as ethtool does.
 * When the edit leaves the setting as the driver holds it, the driver is
 * not called and nothing is told (ethnl's "mod"). after: NULL, or where the
 * newer fields are read back once the driver took the change, inside the
 * same begin and complete (what it holds then, which it may have rounded).
 * Under rtnl, as ethtool's set path.
 */
int usbeth_coalesce_update(struct net_device *dev, usbeth_coalesce_edit_t edit,
			   const void *arg, struct netlink_ext_ack *extack,
			   struct kernel_ethtool_coalesce *after)
{
	struct kernel_ethtool_coalesce kec, old_kec;
	struct ethtool_coalesce ec, old_ec;
	int err;

	ASSERT_RTNL();
	err = usbeth_ethtool_begin(dev, false);
	if (err)
		return err;
	err = coal_read(dev, &ec, &kec);
	if (err)
		goto out;
	/* copies with their padding (coal_read() zeroed it), for memcmp() */
	memcpy(&old_ec, &ec, sizeof(ec));
	memcpy(&old_kec, &kec, sizeof(kec));
	edit(&ec, &kec, arg);
	/* as ethnl: a setting the driver holds already is neither set nor told */
	if (!memcmp(&ec, &old_ec, sizeof(ec)) &&
	    !memcmp(&kec, &old_kec, sizeof(kec))) {
		if (after)
			*after = old_kec;
		goto out;
	}
	err = dev->ethtool_ops->set_coalesce(dev, &ec, &kec, extack);
	if (err)
		goto out;
	usbeth_ethtool_notify(dev, ETHTOOL_MSG_COALESCE_NTF);
	if (after) {
		err = coal_read(dev, &ec, &kec);
		if (!err)
			*after = kec;
	}
out:
	usbeth_ethtool_complete(dev, false);
	return err;
}

/*
 * Every coalesce knob's value from one get_coalesce() call, so that they
 * come from one moment: vals[i] is usbeth_coalesce_knobs[i]'s.
 */
int usbeth_coalesce_get_all(struct net_device *dev, u32 *vals, bool ops_held)
{
	struct kernel_ethtool_coalesce kec;
	struct ethtool_coalesce ec;
	unsigned int i;
	int err;

	err = usbeth_coalesce_read(dev, &ec, &kec, ops_held);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(usbeth_coalesce_knobs); i++)
		vals[i] = *coal_field(&ec, usbeth_coalesce_knobs[i].attr);
	return 0;
}

static int coal_get(struct net_device *dev, int attr, unsigned int queue,
		    u32 *val)
{
	struct kernel_ethtool_coalesce kec;
	struct ethtool_coalesce ec;
	int err;

	err = usbeth_coalesce_read(dev, &ec, &kec, false);
	if (!err)
		*val = *coal_field(&ec, attr);
	return err;
}

static const char *coal_name(int attr)
{
	switch (attr) {
	case USBETH_A_COAL_TX_USECS:
		return "tx-usecs";
	case USBETH_A_COAL_TX_FRAMES:
		return "tx-frames";
	case USBETH_A_COAL_RX_USECS:
		return "rx-usecs";
	default:
		return "rx-frames";
	}
}

struct coal_group {
	const int *attrs;
	const u32 *vals;
	unsigned int n;
};

static void coal_group_edit(struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec, const void *arg)
{
	const struct coal_group *g = arg;
	unsigned int i;

	for (i = 0; i < g->n; i++)
		*coal_field(ec, g->attrs[i]) = g->vals[i];
}

/*
 * One SET's coalesce knobs in one change (usbeth_coalesce_update()), so
 * the driver judges them together: e.g. stmmac refuses tx-usecs 0 with
 * tx-frames 0.
 */
static int coal_set_group(const struct usbeth_req *req, const int *attrs,
			  const u32 *vals, unsigned int n,
			  const struct nlattr *nla)
{
	const struct coal_group g = { .attrs = attrs, .vals = vals, .n = n };
	int err;

	err = usbeth_coalesce_update(req->dev, coal_group_edit, &g,
				     req->extack, NULL);
	if (!err)
		return 0;

	if (req->extack && req->extack->_msg)
		return err;	/* the driver said why */
	/* the first knob of the group, and how many came with it */
	if (n > 1)
		usbeth_extack_msg(req->extack, nla,
				  "the driver refused the coalesce values",
				  "%s %u (and more): %s refused them (%d)",
				  coal_name(attrs[0]), vals[0],
				  req->name, err);
	else
		usbeth_extack_msg(req->extack, nla,
				  "the driver refused the coalesce values",
				  "%s %u: %s refused it (%d)", coal_name(attrs[0]),
				  vals[0], req->name, err);
	return err;
}

const struct usbeth_knob usbeth_coalesce_knobs[4] = {
	{ .attr = USBETH_A_COAL_TX_USECS, .name = "tx-usecs",
	  .flag = USBETH_KNOB_BIT_COAL_TX_USECS,
	  .cap = USBETH_CAP_COAL_TX_USECS,
	  .get = coal_get, .set_group = coal_set_group },
	{ .attr = USBETH_A_COAL_TX_FRAMES, .name = "tx-frames",
	  .flag = USBETH_KNOB_BIT_COAL_TX_FRAMES,
	  .cap = USBETH_CAP_COAL_TX_FRAMES,
	  .get = coal_get, .set_group = coal_set_group },
	{ .attr = USBETH_A_COAL_RX_USECS, .name = "rx-usecs",
	  .flag = USBETH_KNOB_BIT_COAL_RX_USECS,
	  .cap = USBETH_CAP_COAL_RX_USECS,
	  .get = coal_get, .set_group = coal_set_group },
	{ .attr = USBETH_A_COAL_RX_FRAMES, .name = "rx-frames",
	  .flag = USBETH_KNOB_BIT_COAL_RX_FRAMES,
	  .cap = USBETH_CAP_COAL_RX_FRAMES,
	  .get = coal_get, .set_group = coal_set_group },
};

const struct usbeth_backend usbeth_coalesce_backend = {
	.name = "coalesce", .knobs = usbeth_coalesce_knobs,
	.n = ARRAY_SIZE(usbeth_coalesce_knobs),
	.read_all = usbeth_coalesce_get_all,
};
