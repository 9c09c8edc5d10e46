/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One place for kernel API differences, force-included into every kmod/
 * source file by Kbuild. Each entry names the kernel version it is for.
 *
 * Built and tested: 6.1 (Debian 12). Written for, not built here: 6.2 and
 * later up to mainline, where the entries below switch to the native API.
 */
#ifndef _USBETH_COMPAT_H
#define _USBETH_COMPAT_H

#include <linux/version.h>
#include <linux/netlink.h>
#include <linux/netdevice.h>

/*
 * Formatted extack messages: NL_SET_ERR_MSG_FMT arrived in 6.2 with a buffer
 * inside struct netlink_ext_ack. Before that the message must outlive the
 * handler (the ack is built after it returns), so it is formatted into one
 * of a ring of module buffers; the last byte of each is never written, so a
 * concurrent reader always finds a terminated string.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define usbeth_extack_msg(extack, attr, fmt, ...)			\
	NL_SET_ERR_MSG_ATTR_FMT(extack, attr, fmt, ##__VA_ARGS__)
#else
__printf(3, 4)
void usbeth_extack_msg(struct netlink_ext_ack *extack,
		       const struct nlattr *attr, const char *fmt, ...);
#define USBETH_COMPAT_EXTACK_RING 1
#endif

/*
 * Tracked netdev references: netdev_hold()/netdev_put() since 6.0 (5.17 had
 * dev_hold_track()/dev_put_track(), earlier kernels plain dev_hold()).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 0, 0)
#define netdev_hold(dev, tracker, gfp)	dev_hold(dev)
#define netdev_put(dev, tracker)	dev_put(dev)
#endif

/*
 * Generic netlink: per-op policies (.policy/.maxattr in struct genl_ops)
 * since 5.10, and still accepted next to the split ops of 6.2+; dumps see
 * the parsed request through genl_dumpit_info(cb)->attrs until 6.7, where
 * the info moved to genl_info_dump(cb)->attrs.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define usbeth_dump_attrs(cb)	(genl_info_dump(cb)->attrs)
#else
#define usbeth_dump_attrs(cb)	(genl_dumpit_info(cb)->attrs)
#endif

/*
 * ethtool coalesce ops gained struct kernel_ethtool_coalesce and extack in
 * 5.15; the module needs 5.15 or later for that and for per-op policies.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
#error "usbeth needs Linux 5.15 or later"
#endif

/*
 * hrtimer: the TX coalescing timer usbeth tunes is cdc_ncm's own
 * (tx_timer_usecs); usbeth runs no hrtimer itself, so hrtimer_setup() (6.13,
 * replacing hrtimer_init + .function) does not concern it.
 *
 * BQL: struct dql keeps limit, num_queued, num_completed, min_limit,
 * max_limit and slack_hold_time (jiffies) from 3.3 to mainline (6.10 added
 * stall fields beside them). usbnet does BQL accounting from 6.19; usbeth
 * reports what the counters show rather than a list of drivers.
 *
 * Symbols of u_ether (gether_get_qmult, gether_set_qmult) are taken with
 * __symbol_get() so that the module has no hard dependency on the gadget
 * stack; from 6.6 symbol_get() only resolves GPL exports, which these are.
 */

#endif /* _USBETH_COMPAT_H */
