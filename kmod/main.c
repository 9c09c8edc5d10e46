// SPDX-License-Identifier: GPL-2.0
/*
 * usbeth: a generic netlink family for tuning USB and embedded Ethernet
 * links per device.
 *
 * Init order: device state and the netdev notifier first, the family last,
 * so the family is never reachable while the module is half set up; exit
 * in reverse.
 */
#include <linux/module.h>
#include "usbeth.h"

static int __init usbeth_init(void)
{
	int err;

	err = usbeth_ncm_init();
	if (err)
		return err;
	err = usbeth_host_init();
	if (err)
		goto err_ncm;
	err = usbeth_notifier_init();
	if (err)
		goto err_host;
	err = usbeth_netlink_init();
	if (err)
		goto err_device;
	pr_info(KBUILD_MODNAME ": family %s version %u registered\n", USBETH_GENL_NAME,
		USBETH_GENL_VERSION);
	return 0;

err_device:
	usbeth_notifier_exit();
err_host:
	usbeth_host_exit();
err_ncm:
	usbeth_ncm_exit();
	return err;
}

static void __exit usbeth_exit(void)
{
	usbeth_netlink_exit();
	usbeth_notifier_exit();
	usbeth_host_exit();
	usbeth_ncm_exit();
}

module_init(usbeth_init);
module_exit(usbeth_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Per-device tuning of USB and embedded Ethernet links");
MODULE_ALIAS_GENL_FAMILY(USBETH_GENL_NAME);
