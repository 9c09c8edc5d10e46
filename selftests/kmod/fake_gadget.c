// SPDX-License-Identifier: GPL-2.0
/*
 * fake_gadget: a test helper of the usbeth selftests, never shipped.
 *
 * Registers one Ethernet netdev, "fakegadget0", that is not u_ether's but
 * whose device type is named "gadget", as u_ether names its own, and whose
 * private area is far smaller than u_ether's. usbeth must not take it for a
 * USB gadget: u_ether's exports would read its private area as their own.
 */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>

static const struct device_type fake_type = {
	.name = "gadget",
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

static int __init fake_gadget_init(void)
{
	int err;

	fake = alloc_netdev(sizeof(u8), "fakegadget%d", NET_NAME_ENUM,
			    ether_setup);
	if (!fake)
		return -ENOMEM;
	fake->netdev_ops = &fake_ops;
	eth_hw_addr_random(fake);
	SET_NETDEV_DEVTYPE(fake, &fake_type);
	err = register_netdev(fake);
	if (err)
		free_netdev(fake);
	return err;
}

static void __exit fake_gadget_exit(void)
{
	unregister_netdev(fake);
	free_netdev(fake);
}

module_init(fake_gadget_init);
module_exit(fake_gadget_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("usbeth selftest helper: a netdev whose type is named gadget");
