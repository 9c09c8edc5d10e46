// SPDX-License-Identifier: GPL-2.0
/*
 * usbeth: a generic netlink family for tuning USB and embedded Ethernet
 * links per device.
 *
 * Init order: the family is registered last and unregistered first, so it is
 * never reachable while the module is half set up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>
#include <linux/usbeth.h>

static const struct genl_multicast_group usbeth_mcgrps[] = {
	{ .name = USBETH_MCGRP_MONITOR },
};

static struct genl_family usbeth_family __ro_after_init = {
	.name		= USBETH_GENL_NAME,
	.version	= USBETH_GENL_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.mcgrps		= usbeth_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(usbeth_mcgrps),
};

static int __init usbeth_init(void)
{
	int err;

	err = genl_register_family(&usbeth_family);
	if (err)
		return err;
	pr_info("family %s version %u registered\n", USBETH_GENL_NAME,
		USBETH_GENL_VERSION);
	return 0;
}

static void __exit usbeth_exit(void)
{
	genl_unregister_family(&usbeth_family);
}

module_init(usbeth_init);
module_exit(usbeth_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Per-device tuning of USB and embedded Ethernet links");
MODULE_ALIAS_GENL_FAMILY(USBETH_GENL_NAME);
