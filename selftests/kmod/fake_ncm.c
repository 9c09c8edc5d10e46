// SPDX-License-Identifier: GPL-2.0
/*
 * fake_ncm: a test helper of the usbeth selftests, never shipped.
 *
 * Registers one netdev, "fakencm0", under the control interface of the
 * first USB device cdc_ncm drives (the test's NCM link), with a "cdc_ncm"
 * sysfs group of its own as cdc_ncm has: usbeth takes it for a cdc_ncm
 * host side and writes its knobs through these attributes. The values are
 * only kept here. Writes are counted (stores, writable to restart the
 * count) and fail with EIO on demand: write number fail_from to fail_to
 * (counted from 1; 0: none). That is how a test makes one knob of a SET
 * fail, with its put-back failing too or not.
 */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/usb.h>

static int stores, fail_from, fail_to;
module_param(stores, int, 0644);
MODULE_PARM_DESC(stores, "writes so far (attempts)");
module_param(fail_from, int, 0644);
MODULE_PARM_DESC(fail_from, "first write that fails (from 1; 0: none)");
module_param(fail_to, int, 0644);
MODULE_PARM_DESC(fail_to, "last write that fails");

static DEFINE_MUTEX(fake_lock);
static u32 rx_max = 16384, tx_max = 16384, timer_usecs = 400;

static u32 *fake_val(const char *name)
{
	if (!strcmp(name, "rx_max"))
		return &rx_max;
	if (!strcmp(name, "tx_max"))
		return &tx_max;
	if (!strcmp(name, "tx_timer_usecs"))
		return &timer_usecs;
	return NULL;
}

static ssize_t fake_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	u32 *v = fake_val(attr->attr.name), val = 16384;

	mutex_lock(&fake_lock);
	if (v)
		val = *v;
	mutex_unlock(&fake_lock);
	return sysfs_emit(buf, "%u\n", val);
}

static ssize_t fake_store(struct device *d, struct device_attribute *attr,
			  const char *buf, size_t len)
{
	u32 *v = fake_val(attr->attr.name), val;
	ssize_t ret = len;

	if (!v || kstrtou32(buf, 0, &val))
		return -EINVAL;
	mutex_lock(&fake_lock);
	stores++;
	if (fail_from && stores >= fail_from && stores <= fail_to)
		ret = -EIO;
	else
		*v = val;
	mutex_unlock(&fake_lock);
	return ret;
}

/* one show and one store for all, named as cdc_ncm names its files */
static struct device_attribute dev_attr_rx_max =
	__ATTR(rx_max, 0644, fake_show, fake_store);
static struct device_attribute dev_attr_tx_max =
	__ATTR(tx_max, 0644, fake_show, fake_store);
static struct device_attribute dev_attr_tx_timer_usecs =
	__ATTR(tx_timer_usecs, 0644, fake_show, fake_store);
static struct device_attribute dev_attr_dwNtbInMaxSize =
	__ATTR(dwNtbInMaxSize, 0444, fake_show, NULL);
static struct device_attribute dev_attr_dwNtbOutMaxSize =
	__ATTR(dwNtbOutMaxSize, 0444, fake_show, NULL);

static struct attribute *fake_attrs[] = {
	&dev_attr_rx_max.attr,
	&dev_attr_tx_max.attr,
	&dev_attr_tx_timer_usecs.attr,
	&dev_attr_dwNtbInMaxSize.attr,
	&dev_attr_dwNtbOutMaxSize.attr,
	NULL,
};

static const struct attribute_group fake_group = {
	.name = "cdc_ncm",
	.attrs = fake_attrs,
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
static struct usb_interface *parent;

/* the first interface of udev that cdc_ncm drives, referenced */
static int find_ncm(struct usb_device *udev, void *data)
{
	struct usb_host_config *cfg = udev->actconfig;
	unsigned int i;

	for (i = 0; !parent && cfg && i < cfg->desc.bNumInterfaces; i++) {
		struct usb_interface *intf = cfg->interface[i];

		if (intf && intf->dev.driver &&
		    !strcmp(intf->dev.driver->name, "cdc_ncm"))
			parent = usb_get_intf(intf);
	}
	return parent ? 1 : 0;
}

static int __init fake_ncm_init(void)
{
	int err;

	usb_for_each_dev(NULL, find_ncm);
	if (!parent)
		return -ENODEV;
	fake = alloc_netdev(0, "fakencm%d", NET_NAME_ENUM, ether_setup);
	if (!fake) {
		usb_put_intf(parent);
		return -ENOMEM;
	}
	fake->netdev_ops = &fake_ops;
	fake->sysfs_groups[0] = &fake_group;
	eth_hw_addr_random(fake);
	SET_NETDEV_DEV(fake, &parent->dev);
	err = register_netdev(fake);
	if (err) {
		free_netdev(fake);
		usb_put_intf(parent);
	}
	return err;
}

static void __exit fake_ncm_exit(void)
{
	unregister_netdev(fake);
	free_netdev(fake);
	usb_put_intf(parent);
}

module_init(fake_ncm_init);
module_exit(fake_ncm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("usbeth selftest helper: a cdc_ncm-like netdev whose writes fail on demand");
