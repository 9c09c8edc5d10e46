// SPDX-License-Identifier: GPL-2.0
/*
 * fake_coal: a test helper of the usbeth selftests, never shipped.
 *
 * Registers one netdev, "fakecoal0", whose ethtool ops take all four
 * coalesce parameters usbeth knows (tx/rx usecs and frames) and count how
 * they are called (module parameters, writable to restart the count):
 * get_coalesce calls (gets), get_drvinfo calls (drvinfos) and get_drvinfo
 * calls made outside the ops' begin/complete bracket (drvinfo_unbracketed),
 * which ethtool's own paths never make.
 *
 * parent_of=IFNAME: fakecoal0 takes the parent device of that netdev (of
 * the initial netns) as its own; the parent of a USB NIC is its USB
 * interface, and usbeth then takes fakecoal0 for a USB NIC too.
 * ops_lock=1: the netdev asks for its instance lock around its ops
 * (request_ops_lock), where the kernel has one; ops_locked says whether
 * it does.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>

static int gets, drvinfos, drvinfo_unbracketed;
module_param(gets, int, 0644);
MODULE_PARM_DESC(gets, "get_coalesce calls");
module_param(drvinfos, int, 0644);
MODULE_PARM_DESC(drvinfos, "get_drvinfo calls");
module_param(drvinfo_unbracketed, int, 0644);
MODULE_PARM_DESC(drvinfo_unbracketed, "get_drvinfo calls outside begin/complete");
static char *parent_of;
module_param(parent_of, charp, 0444);
MODULE_PARM_DESC(parent_of, "a netdev whose parent device fakecoal0 takes");
static bool ops_lock, ops_locked;
module_param(ops_lock, bool, 0444);
MODULE_PARM_DESC(ops_lock, "ask for the instance lock around the ops");
module_param(ops_locked, bool, 0444);
MODULE_PARM_DESC(ops_locked, "whether the netdev has its instance lock");

static DEFINE_MUTEX(fake_lock);
static struct ethtool_coalesce fake_ec = {
	.tx_coalesce_usecs = 10, .tx_max_coalesced_frames = 20,
	.rx_coalesce_usecs = 30, .rx_max_coalesced_frames = 40,
};

static int in_begin;

static int fake_begin(struct net_device *dev)
{
	mutex_lock(&fake_lock);
	in_begin++;
	mutex_unlock(&fake_lock);
	return 0;
}

static void fake_complete(struct net_device *dev)
{
	mutex_lock(&fake_lock);
	in_begin--;
	mutex_unlock(&fake_lock);
}

static void fake_get_drvinfo(struct net_device *dev,
			     struct ethtool_drvinfo *info)
{
	mutex_lock(&fake_lock);
	drvinfos++;
	if (!in_begin)
		drvinfo_unbracketed++;
	mutex_unlock(&fake_lock);
	strscpy(info->driver, "fake_coal", sizeof(info->driver));
}

static int fake_get_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	mutex_lock(&fake_lock);
	gets++;
	ec->tx_coalesce_usecs = fake_ec.tx_coalesce_usecs;
	ec->tx_max_coalesced_frames = fake_ec.tx_max_coalesced_frames;
	ec->rx_coalesce_usecs = fake_ec.rx_coalesce_usecs;
	ec->rx_max_coalesced_frames = fake_ec.rx_max_coalesced_frames;
	mutex_unlock(&fake_lock);
	return 0;
}

static int fake_set_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	mutex_lock(&fake_lock);
	fake_ec.tx_coalesce_usecs = ec->tx_coalesce_usecs;
	fake_ec.tx_max_coalesced_frames = ec->tx_max_coalesced_frames;
	fake_ec.rx_coalesce_usecs = ec->rx_coalesce_usecs;
	fake_ec.rx_max_coalesced_frames = ec->rx_max_coalesced_frames;
	mutex_unlock(&fake_lock);
	return 0;
}

static const struct ethtool_ops fake_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES,
	.begin = fake_begin,
	.complete = fake_complete,
	.get_drvinfo = fake_get_drvinfo,
	.get_coalesce = fake_get_coalesce,
	.set_coalesce = fake_set_coalesce,
};

static netdev_tx_t fake_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops fake_ops = {
	.ndo_start_xmit = fake_xmit,
};

static struct net_device *fake;
static struct device *parent;

static int __init fake_coal_init(void)
{
	struct net_device *other;
	int err;

	fake = alloc_netdev(0, "fakecoal%d", NET_NAME_ENUM, ether_setup);
	if (!fake)
		return -ENOMEM;
	fake->netdev_ops = &fake_ops;
	fake->ethtool_ops = &fake_ethtool_ops;
	eth_hw_addr_random(fake);
	if (parent_of) {
		err = -ENODEV;
		other = dev_get_by_name(&init_net, parent_of);
		if (!other)
			goto free;
		parent = get_device(other->dev.parent);
		dev_put(other);
		if (!parent)
			goto free;
		SET_NETDEV_DEV(fake, parent);
	}
#ifdef USBETH_HAVE_NETDEV_LOCK_H
	fake->request_ops_lock = ops_lock;
	ops_locked = ops_lock;
#endif
	err = register_netdev(fake);
	if (!err)
		return 0;
free:
	free_netdev(fake);
	put_device(parent);
	return err;
}

static void __exit fake_coal_exit(void)
{
	unregister_netdev(fake);
	free_netdev(fake);
	put_device(parent);
}

module_init(fake_coal_init);
module_exit(fake_coal_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("usbeth selftest helper: a netdev whose ethtool ops count their calls");
