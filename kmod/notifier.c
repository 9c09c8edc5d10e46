// SPDX-License-Identifier: GPL-2.0
/*
 * The netdev notifier: NEW when a USB NIC (either end) registers in a
 * netns, at registration or at the end of a move; DEL when it leaves one;
 * a gadget record released when its netdev really goes. Runs under rtnl,
 * and for drivers that asked for it under the device's instance lock too
 * (usbeth_prepare()).
 */
#include <linux/netdevice.h>
#include "usbeth.h"

static int usbeth_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	bool usb = usbeth_is_usb(dev);

	switch (event) {
	case NETDEV_REGISTER:
		if (usb)
			usbeth_notify_dev(dev, USBETH_CMD_NEW_NTF);
		break;
	case NETDEV_UNREGISTER:
		if (usb)
			usbeth_notify_dev(dev, USBETH_CMD_DEL_NTF);
		/*
		 * Whatever the device looks like now (a netns move also sends
		 * UNREGISTER, and leaves the record)
		 */
		usbeth_gadget_rec_unregister(dev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block usbeth_netdev_nb = {
	.notifier_call = usbeth_netdev_event,
};

int usbeth_notifier_init(void)
{
	return register_netdevice_notifier(&usbeth_netdev_nb);
}

void usbeth_notifier_exit(void)
{
	unregister_netdevice_notifier(&usbeth_netdev_nb);
	usbeth_gadget_recs_exit();
}
