// SPDX-License-Identifier: GPL-2.0
/*
 * Device classification: a netdev's role (USB host side, USB gadget,
 * other), its USB identity, its capabilities and its driver's name. A
 * gadget's own identity is read in gadget_rec.c, under the lock its netdev
 * moves under.
 */
#include <linux/ethtool.h>
#include <linux/kallsyms.h>
#include <linux/pm_runtime.h>
#include <linux/usb.h>
#include "usbeth.h"

/*
 * Whether dev is a USB host-side netdev: its parent is a USB interface.
 * This follows the parent, so it must not see a u_ether netdev, whose
 * parent u_ether moves (and a UDC removal then frees) with no lock held
 * here: callers rule out usbeth_is_gadget() first, which looks at the
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
bool usbeth_is_gadget(struct net_device *dev)
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

u32 usbeth_usb_speed(enum usb_device_speed s)
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
 * Whether usbeth must hold rtnl to work on dev. Gadget netdevs: yes, their
 * records live under it (gadget_rec.c; u_ether moves them between parents
 * with device_move(), which takes no rtnl: their gadget is touched under
 * dpm_list_mtx instead). Drivers with ethtool coalesce ops, or a cdc_ncm
 * whose NTB knobs are ethtool settings (ncm.c): yes, ethtool calls those
 * under rtnl.
 * Other netdevs than USB host-side ones: yes, nothing is known of
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
	return usbeth_is_gadget(dev) || !is_usb_host_side(dev) ||
	       usbeth_coalesce_caps(dev) || usbeth_ncm_ethtool(dev);
}

/*
 * The driver's name as ethtool -i shows it, read without waking the device
 * (a GET must not: usbeth_awake_get()). For USB host-side netdevs that is
 * the USB interface driver's (usbnet takes its name from there), read
 * without calling into ethtool ops, so it works without rtnl. For the
 * others it is the name of the driver bound to the parent device, which is
 * what get_drvinfo() reports for the usual bus drivers (PCI, platform,
 * virtio); only a netdev with no bound parent is asked through
 * get_drvinfo(), inside ethtool's begin/complete bracket, and not while its
 * parent is runtime-suspended (that bracket would wake it).
 */
const char *usbeth_driver_name(struct net_device *dev, char *buf, size_t len,
			       bool ops_held)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	const struct device_driver *drv;
	struct device *parent;

	/*
	 * Not u_ether's get_drvinfo(): it tests its gadget pointer, then reads
	 * it again, while gether_detach_gadget() clears it without any lock
	 * usbeth (or ethtool) could hold; a GET racing an unbind oopsed there
	 * on 7.3 (NULL gadget->name). Its driver name is the constant it
	 * reports. Decided before anything follows the parent (see
	 * is_usb_host_side()).
	 */
	if (usbeth_is_gadget(dev)) {
		strscpy(buf, "g_ether", len);
		return buf;
	}
	parent = dev->dev.parent;
	drv = parent ? READ_ONCE(parent->driver) : NULL;
	if (drv && drv->name) {
		strscpy(buf, drv->name, len);
		return buf;
	}
	strscpy(buf, "", len);
	if (ops && ops->get_drvinfo &&
	    (!parent || !pm_runtime_suspended(parent)) &&
	    !usbeth_ethtool_begin(dev, ops_held)) {
		struct ethtool_drvinfo info = {};

		ops->get_drvinfo(dev, &info);
		usbeth_ethtool_complete(dev, ops_held);
		strscpy(buf, info.driver, len);
	}
	return buf;
}

/* Whether dev is a USB NIC, either end: what usbeth announces. */
bool usbeth_is_usb(struct net_device *dev)
{
	return usbeth_is_gadget(dev) || is_usb_host_side(dev);
}

void usbeth_ident(struct net_device *dev, struct usbeth_ident *id)
{
	memset(id, 0, sizeof(*id));
	id->role = USBETH_ROLE_OTHER;

	/* gadget first: its parent is touched only inside gadget_copy() */
	if (usbeth_is_gadget(dev)) {
		id->role = USBETH_ROLE_USB_GADGET;
		usbeth_gadget_ident(dev, id);
		if (usbeth_gadget_qmult_available())
			id->caps |= USBETH_CAP_QMULT;
	} else if (is_usb_host_side(dev)) {
		struct usb_interface *intf = to_usb_interface(dev->dev.parent);
		struct usb_device *udev = interface_to_usbdev(intf);

		id->role = USBETH_ROLE_USB_HOST;
		id->speed = usbeth_usb_speed(udev->speed);
		id->vid = le16_to_cpu(udev->descriptor.idVendor);
		id->pid = le16_to_cpu(udev->descriptor.idProduct);
		id->busnum = udev->bus->busnum;
		strscpy(id->usb_path, dev_name(&udev->dev),
			sizeof(id->usb_path));
		if (usbeth_ncm_present(dev))
			id->caps |= USBETH_CAP_NTB | USBETH_CAP_TX_TIMER;
	}
	id->caps |= usbeth_coalesce_caps(dev);
	if (usbeth_bql_capable(dev))
		id->caps |= USBETH_CAP_BQL;
}
