// SPDX-License-Identifier: GPL-2.0
/*
 * cdc_ncm backend: NTB sizes and the TX coalescing timer.
 *
 * cdc_ncm (and the drivers built on it: cdc_mbim, huawei_cdc_ncm) puts its
 * knobs in the "cdc_ncm" sysfs group of the netdev. usbeth calls the show
 * and store functions of those very attributes, so every value goes through
 * the driver's own validated path: rx_max sends SET_NTB_INPUT_SIZE to the
 * device and resizes the RX URBs, tx_max flushes and resizes the TX buffer,
 * tx_timer_usecs re-arms the driver's hrtimer. Nothing is written behind
 * the driver's back, and no driver struct layout is assumed.
 *
 * A cdc_ncm that speaks ethtool for these knobs (upstream/0006: coalesce
 * tx-aggr-max-bytes and tx-aggr-time-usecs, ringparam rx-buf-len) is
 * driven through those operations instead, as ethtool's netlink requests
 * drive them, and ethtool's listeners hear of each change. Which path a
 * device takes is read from its driver's ethtool_ops, not from the kernel
 * version. The device's NTB maxima have no ethtool name and stay sysfs.
 */
#include <linux/device.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/gfp.h>
#include <linux/mutex.h>
#include <linux/stringify.h>
#include <linux/usb.h>
#include <linux/usb/cdc.h>
#include <linux/usb/cdc_ncm.h>
#include "usbeth.h"

static struct device_attribute *ncm_attr(struct net_device *dev,
					 const char *name)
{
	const struct attribute_group *grp = dev->sysfs_groups[0];
	struct attribute **a;

	if (!grp || !grp->name || strcmp(grp->name, "cdc_ncm") || !grp->attrs)
		return NULL;
	for (a = grp->attrs; *a; a++)
		if (!strcmp((*a)->name, name))
			return container_of(*a, struct device_attribute, attr);
	return NULL;
}

bool usbeth_ncm_present(struct net_device *dev)
{
	static const char * const needed[] = {
		"rx_max", "tx_max", "tx_timer_usecs",
		"dwNtbInMaxSize", "dwNtbOutMaxSize",
	};
	struct device_attribute *da;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(needed); i++) {
		da = ncm_attr(dev, needed[i]);
		if (!da || !da->show)
			return false;
	}
	return true;
}

/*
 * show() may use sysfs_emit(), which wants a whole page: one page serves
 * every read, under its own lock (reads run with and without rtnl).
 */
static char *ncm_page;
static DEFINE_MUTEX(ncm_page_lock);

int usbeth_ncm_init(void)
{
	ncm_page = (char *)get_zeroed_page(GFP_KERNEL);
	return ncm_page ? 0 : -ENOMEM;
}

void usbeth_ncm_exit(void)
{
	free_page((unsigned long)ncm_page);
}

int usbeth_ncm_read(struct net_device *dev, const char *name, u32 *val)
{
	struct device_attribute *da = ncm_attr(dev, name);
	ssize_t n;
	int err;

	if (!da || !da->show)
		return -EOPNOTSUPP;
	mutex_lock(&ncm_page_lock);
	n = da->show(&dev->dev, da, ncm_page);
	if (n < 0) {
		err = n;
	} else {
		ncm_page[clamp_t(ssize_t, n, 0, PAGE_SIZE - 1)] = '\0';
		err = kstrtou32(strim(ncm_page), 0, val);
	}
	mutex_unlock(&ncm_page_lock);
	return err;
}

static int ncm_write(struct net_device *dev, const char *name, u32 val)
{
	struct device_attribute *da = ncm_attr(dev, name);
	char buf[16];
	ssize_t n;
	int len;

	if (!da || !da->store)
		return -EOPNOTSUPP;
	len = scnprintf(buf, sizeof(buf), "%u", val);
	n = da->store(&dev->dev, da, buf, len);
	return n < 0 ? n : 0;
}

#ifdef ETHTOOL_COALESCE_TX_AGGR
#define NCM_ETHTOOL_COAL	(ETHTOOL_COALESCE_TX_AGGR_MAX_BYTES | \
				 ETHTOOL_COALESCE_TX_AGGR_TIME_USECS)
#else	/* before 6.3: no TX aggregation in ethtool */
#define NCM_ETHTOOL_COAL	0
#endif

/*
 * Whether the driver offers knob attr through a standard ethtool operation:
 * then reading it calls the driver's ops (usbeth_knob's wakes)
 */
static bool ncm_ethtool(struct net_device *dev, int attr)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;

	if (!ops)
		return false;
	if (attr == USBETH_A_NTB_RX_MAX)
		return ops->get_ringparam && ops->set_ringparam &&
		       ops->supported_ring_params & ETHTOOL_RING_USE_RX_BUF_LEN;
	return NCM_ETHTOOL_COAL && ops->get_coalesce && ops->set_coalesce &&
	       (ops->supported_coalesce_params & NCM_ETHTOOL_COAL) ==
	       NCM_ETHTOOL_COAL;
}

/*
 * Whether usbeth drives dev's NCM knobs through ethtool operations, which
 * (like ethtool's own requests) it calls under rtnl: usbeth_needs_rtnl().
 */
bool usbeth_ncm_ethtool(struct net_device *dev)
{
	return usbeth_ncm_present(dev) &&
	       (ncm_ethtool(dev, USBETH_A_NTB_RX_MAX) ||
		ncm_ethtool(dev, USBETH_A_NTB_TX_MAX));
}

static u32 *ncm_coal_field(struct kernel_ethtool_coalesce *kec, int attr)
{
#ifdef ETHTOOL_COALESCE_TX_AGGR
	return attr == USBETH_A_NTB_TX_MAX ? &kec->tx_aggr_max_bytes :
	       &kec->tx_aggr_time_usecs;
#else
	return NULL;	/* never: ncm_ethtool() is false */
#endif
}

struct ncm_coal_set {
	int attr;
	u32 val;
};

static void ncm_coal_edit(struct ethtool_coalesce *ec,
			  struct kernel_ethtool_coalesce *kec, const void *arg)
{
	const struct ncm_coal_set *c = arg;

	*ncm_coal_field(kec, c->attr) = c->val;
}

/*
 * Reads knob attr through the driver's ethtool operations into *val, or,
 * with req, writes *val and reads back into *val what the driver holds
 * then, as ethtool's own requests call them: tx_max and the timer through
 * coalesce.c's read and change of the whole coalesce setting, rx_max
 * through ringparam, each inside one usbeth_ethtool_begin() and
 * _complete(): the whole setting read, the one field changed (unless the
 * driver holds it already), ethtool's listeners told, the result read.
 * cdc_ncm's netdevs are not ops-locked (usbnet asks for no instance lock),
 * so no caller holds that lock, not even the NETDEV_REGISTER notifier, and
 * taking it here cannot deadlock; a device that needs it is refused rather
 * than risk that. Writes under rtnl (usbeth_ncm_ethtool()), as ethtool
 * core makes them.
 */
static int ncm_ethtool_rw(struct net_device *dev, int attr, u32 *val,
			  const struct usbeth_req *req)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	struct kernel_ethtool_ringparam kring = {};
	struct kernel_ethtool_coalesce kec;
	struct ethtool_ringparam ring = {};
	struct ethtool_coalesce ec;
	int err;

	if (WARN_ON_ONCE(usbeth_need_ops_lock(dev)))
		return -EOPNOTSUPP;
	if (attr != USBETH_A_NTB_RX_MAX) {
		const struct ncm_coal_set c = { .attr = attr, .val = *val };

		if (req)
			err = usbeth_coalesce_update(dev, ncm_coal_edit, &c,
						     req->extack, &kec);
		else
			err = usbeth_coalesce_read(dev, &ec, &kec, false);
		if (!err)
			*val = *ncm_coal_field(&kec, attr);
		return err;
	}

	if (req)
		ASSERT_RTNL();
	err = usbeth_ethtool_begin(dev, false);
	if (err)
		return err;
	ops->get_ringparam(dev, &ring, &kring, NULL);
	if (req && kring.rx_buf_len != *val) {
		kring.rx_buf_len = *val;
		err = ops->set_ringparam(dev, &ring, &kring, req->extack);
		if (!err) {
			usbeth_ethtool_notify(dev, ETHTOOL_MSG_RINGS_NTF);
			memset(&ring, 0, sizeof(ring));
			memset(&kring, 0, sizeof(kring));
			ops->get_ringparam(dev, &ring, &kring, NULL);
		}
	}
	if (!err)
		*val = kring.rx_buf_len;
	usbeth_ethtool_complete(dev, false);
	return err;
}

static const char *ncm_file(int attr)
{
	switch (attr) {
	case USBETH_A_NTB_RX_MAX:
		return "rx_max";
	case USBETH_A_NTB_TX_MAX:
		return "tx_max";
	default:
		return "tx_timer_usecs";
	}
}

/* Knob attr as the driver holds it: through ethtool if it offers it */
static int ncm_knob_read(struct net_device *dev, int attr, u32 *val)
{
	if (ncm_ethtool(dev, attr))
		return ncm_ethtool_rw(dev, attr, val, NULL);
	return usbeth_ncm_read(dev, ncm_file(attr), val);
}

/*
 * Writes knob attr through the driver's interface and reads back into *now
 * what the driver holds then (through ethtool, inside the same begin and
 * complete).
 */
static int ncm_knob_write(const struct usbeth_req *req, int attr, u32 val,
			  u32 *now)
{
	int err;

	if (ncm_ethtool(req->dev, attr)) {
		*now = val;
		return ncm_ethtool_rw(req->dev, attr, now, req);
	}
	err = ncm_write(req->dev, ncm_file(attr), val);
	return err ?: usbeth_ncm_read(req->dev, ncm_file(attr), now);
}

/*
 * Whether the driver said why it refused a value (cdc_ncm's ethtool
 * operations do, with the range it accepts): its words stand, pointed at
 * the request's attribute; the sysfs stores give no reason.
 */
static bool ncm_driver_said(const struct usbeth_req *req,
			    const struct nlattr *attr)
{
	if (!req->extack || !req->extack->_msg)
		return false;
	NL_SET_BAD_ATTR(req->extack, attr);
	return true;
}

/*
 * The largest NTB the driver will accept in each direction, as
 * cdc_ncm_check_rx_max() and cdc_ncm_check_tx_max() bound it (6.1 to 7.3):
 * RX at most the device's dwNtbInMaxSize and 64 KiB, but never below the
 * NTB minimum of 2048, to which cdc_ncm raises a smaller dwNtbInMaxSize (a
 * spec violation it warns about and works with); TX the device's
 * dwNtbOutMaxSize clamped to the NTB minimum and cdc_ncm's maximum, or that
 * maximum when the device sets none.
 */
static int ncm_max(struct net_device *dev, bool rx, u32 *max)
{
	u32 dev_max;
	int err;

	err = usbeth_ncm_read(dev, rx ? "dwNtbInMaxSize" : "dwNtbOutMaxSize",
			      &dev_max);
	if (err)
		return err;
	if (rx)
		*max = max_t(u32, min_t(u32, dev_max, CDC_NCM_NTB_MAX_SIZE_RX),
			     USB_CDC_NCM_NTB_MIN_IN_SIZE);
	else if (!dev_max)
		*max = CDC_NCM_NTB_MAX_SIZE_TX;
	else
		*max = clamp_t(u32, dev_max, USB_CDC_NCM_NTB_MIN_OUT_SIZE,
			       CDC_NCM_NTB_MAX_SIZE_TX);
	return 0;
}

static u32 bulk_out_maxp(struct usb_interface *intf)
{
	struct usb_host_interface *alt = intf->cur_altsetting;
	unsigned int e;

	for (e = 0; alt && e < alt->desc.bNumEndpoints; e++)
		if (usb_endpoint_is_bulk_out(&alt->endpoint[e].desc))
			return usb_endpoint_maxp(&alt->endpoint[e].desc);
	return 0;
}

/*
 * The interface number a CDC Union descriptor among the control interface's
 * class-specific descriptors names as its first subordinate (the data
 * interface), -1 without one. Read here rather than through usbcore's
 * parser, which would make usbeth load usbcore on machines with no USB.
 */
static int union_data_ifnum(const struct usb_host_interface *alt)
{
	const struct usb_cdc_union_desc *u;
	const u8 *p = alt->extra;
	int left = alt->extralen;

	while (left >= 2 && p[0] >= 2 && p[0] <= left) {
		u = (const struct usb_cdc_union_desc *)p;
		if (p[0] >= sizeof(*u) && u->bDescriptorType == USB_DT_CS_INTERFACE &&
		    u->bDescriptorSubType == USB_CDC_UNION_TYPE)
			return u->bSlaveInterface0;
		left -= p[0];
		p += p[0];
	}
	return -1;
}

/*
 * The bulk OUT packet size of dev's data interface: the one the control
 * interface's CDC Union descriptor names, as cdc_ncm finds it (a device
 * with two NCM or MBIM functions has two data interfaces, whose sizes may
 * differ at full speed). Without a Union descriptor, the first other
 * interface the driver holds that has a bulk OUT endpoint.
 */
static u32 ncm_out_maxp(struct net_device *dev)
{
	struct usb_interface *ctrl = to_usb_interface(dev->dev.parent);
	struct usb_device *udev = interface_to_usbdev(ctrl);
	struct usb_host_config *cfg = udev->actconfig;
	int ifnum = ctrl->cur_altsetting ?
		    union_data_ifnum(ctrl->cur_altsetting) : -1;
	struct usb_interface *data;
	u32 mp, first = 0;
	unsigned int i;

	for (i = 0; cfg && i < cfg->desc.bNumInterfaces; i++) {
		data = cfg->interface[i];
		if (!data || data == ctrl || !data->cur_altsetting ||
		    data->dev.driver != ctrl->dev.driver)
			continue;
		mp = bulk_out_maxp(data);
		if (data->cur_altsetting->desc.bInterfaceNumber == ifnum)
			return mp;
		if (!first)
			first = mp;
	}
	return first;
}

/*
 * tx_max in the driver's terms. cdc_ncm pads a tx_max that is a multiple of
 * the bulk OUT packet size by one byte (unless it is dwNtbOutMaxSize), and
 * shows the padded value; its store refuses values above the maximum, so the
 * padded form of the maximum (65536 -> 65537) could not be written back as
 * GET shows it. usbeth writes the unpadded form of a value and compares in
 * the padded one, so any value GET reported can be set, put back and
 * restored, and setting the value the driver already holds, in either
 * form, changes nothing.
 */
static u32 tx_pad(struct net_device *dev, u32 val)
{
	u32 mp = ncm_out_maxp(dev), dev_max;

	if (!mp || val % mp || usbeth_ncm_read(dev, "dwNtbOutMaxSize", &dev_max) ||
	    val == dev_max)
		return val;
	return val + 1;
}

static u32 tx_unpad(struct net_device *dev, u32 val)
{
	return val > 1 && tx_pad(dev, val - 1) == val ? val - 1 : val;
}

static bool tx_same(struct net_device *dev, u32 now, u32 val)
{
	return now == tx_pad(dev, tx_unpad(dev, val));
}

static int ntb_check(const struct usbeth_req *req, const struct nlattr *attr,
		     u32 val, bool rx)
{
	const char *knob = rx ? "ntb-rx-max" : "ntb-tx-max";
	u32 min = rx ? USB_CDC_NCM_NTB_MIN_IN_SIZE : USB_CDC_NCM_NTB_MIN_OUT_SIZE;
	u32 max;
	int err;

	if (!rx)
		val = tx_unpad(req->dev, val);
	err = ncm_max(req->dev, rx, &max);
	if (err) {
		usbeth_extack_msg(req->extack, attr,
				  "cannot read the device's NTB maximum",
				  "%s: cannot read the NTB maximum of %s (%d)",
				  knob, req->name, err);
		return err;
	}
	if (val > max) {
		usbeth_extack_msg(req->extack, attr,
				  "NTB size above the device's maximum (cdc_ncm/dwNtbInMaxSize, dwNtbOutMaxSize)",
				  "%s %u is above the maximum of %s: %u",
				  knob, val, req->name, max);
		return -ERANGE;
	}
	if (val < min) {
		usbeth_extack_msg(req->extack, attr,
				  "NTB size below the minimum",
				  "%s %u is below the minimum NTB size %u",
				  knob, val, min);
		return -ERANGE;
	}
	return 0;
}

static int ntb_rx_check(const struct usbeth_req *req,
			const struct nlattr *attr, u32 val)
{
	return ntb_check(req, attr, val, true);
}

static int ntb_tx_check(const struct usbeth_req *req,
			const struct nlattr *attr, u32 val)
{
	return ntb_check(req, attr, val, false);
}

static int ncm_get(struct net_device *dev, int attr, unsigned int queue,
		   u32 *val)
{
	return ncm_knob_read(dev, attr, val);
}

static int ntb_set(const struct usbeth_req *req, const struct nlattr *attr,
		   u32 val, bool rx)
{
	const char *knob = rx ? "ntb-rx-max" : "ntb-tx-max";
	int knob_attr = rx ? USBETH_A_NTB_RX_MAX : USBETH_A_NTB_TX_MAX;
	u32 want = rx ? val : tx_pad(req->dev, tx_unpad(req->dev, val));
	u32 now;
	int err;

	err = ncm_knob_write(req, knob_attr,
			     rx ? val : tx_unpad(req->dev, val), &now);
	if (err) {
		if (!ncm_driver_said(req, attr))
			usbeth_extack_msg(req->extack, attr,
					  "the driver refused the NTB size",
					  "%s %u: %s refused it (%d)", knob,
					  val, req->name, err);
		return err;
	}
	/* rx_max only changes when the device accepted SET_NTB_INPUT_SIZE */
	if (now != want) {
		usbeth_extack_msg(req->extack, attr,
				  "the device did not accept the new NTB size",
				  "%s %u: %s refused it, kept %u",
				  knob, val, req->name, now);
		return -EIO;
	}
	return 0;
}

static int ntb_rx_set(const struct usbeth_req *req, int attr,
		      unsigned int queue, u32 val, const struct nlattr *nla)
{
	return ntb_set(req, nla, val, true);
}

static int ntb_tx_set(const struct usbeth_req *req, int attr,
		      unsigned int queue, u32 val, const struct nlattr *nla)
{
	return ntb_set(req, nla, val, false);
}

static int timer_check(const struct usbeth_req *req,
		       const struct nlattr *attr, u32 val)
{
	if (val && (val < USBETH_TX_TIMER_MIN_USECS ||
		    val > USBETH_TX_TIMER_MAX_USECS)) {
		usbeth_extack_msg(req->extack, attr,
				  "tx-timer-usecs: must be 0 (off) or "
				  __stringify(USBETH_TX_TIMER_MIN_USECS) ".."
				  __stringify(USBETH_TX_TIMER_MAX_USECS),
				  "tx-timer-usecs %u: must be 0 (off) or %u..%u",
				  val, USBETH_TX_TIMER_MIN_USECS,
				  USBETH_TX_TIMER_MAX_USECS);
		return -ERANGE;
	}
	return 0;
}

static int timer_set(const struct usbeth_req *req, int attr,
		     unsigned int queue, u32 val, const struct nlattr *nla)
{
	u32 now;
	int err = ncm_knob_write(req, attr, val, &now);

	if (err) {
		if (!ncm_driver_said(req, nla))
			usbeth_extack_msg(req->extack, nla,
					  "tx-timer-usecs: the driver refused it",
					  "tx-timer-usecs %u: %s refused it (%d)",
					  val, req->name, err);
		return err;
	}
	/* cdc_ncm keeps the timer in ns: what it holds reads back exactly */
	if (now != val) {
		usbeth_extack_msg(req->extack, nla,
				  "tx-timer-usecs: the driver kept another value",
				  "tx-timer-usecs %u: %s kept %u", val,
				  req->name, now);
		return -EIO;
	}
	return 0;
}

const struct usbeth_knob usbeth_ncm_knobs[3] = {
	{
		.attr = USBETH_A_NTB_RX_MAX, .name = "ntb-rx-max",
		.flag = USBETH_KNOB_BIT_NTB_RX_MAX,
		.cap = USBETH_CAP_NTB, .check = ntb_rx_check,
		.get = ncm_get, .set = ntb_rx_set, .wakes = ncm_ethtool,
	}, {
		.attr = USBETH_A_NTB_TX_MAX, .name = "ntb-tx-max",
		.flag = USBETH_KNOB_BIT_NTB_TX_MAX,
		.cap = USBETH_CAP_NTB, .check = ntb_tx_check,
		.get = ncm_get, .set = ntb_tx_set, .same = tx_same,
		.wakes = ncm_ethtool,
	}, {
		.attr = USBETH_A_TX_TIMER_USECS, .name = "tx-timer-usecs",
		.flag = USBETH_KNOB_BIT_TX_TIMER_USECS,
		.cap = USBETH_CAP_TX_TIMER, .check = timer_check,
		.get = ncm_get, .set = timer_set, .wakes = ncm_ethtool,
	},
};

/* The device's own NTB maxima, which no knob writes */
static int ncm_prepare(struct net_device *dev, struct usbeth_state *st)
{
	u32 val;

	if (!(st->id.caps & USBETH_CAP_NTB))
		return 0;
	if (!usbeth_ncm_read(dev, "dwNtbInMaxSize", &val))
		usbeth_state_add(st, USBETH_A_NTB_DEV_RX_MAX, val);
	if (!usbeth_ncm_read(dev, "dwNtbOutMaxSize", &val))
		usbeth_state_add(st, USBETH_A_NTB_DEV_TX_MAX, val);
	return 0;
}

const struct usbeth_backend usbeth_ncm_backend = {
	.name = "ncm", .knobs = usbeth_ncm_knobs,
	.n = ARRAY_SIZE(usbeth_ncm_knobs), .nextra = 2,
	.prepare = ncm_prepare,
};
