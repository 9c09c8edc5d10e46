/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One place for kernel API differences, force-included into every kmod/
 * source file by Kbuild. Each entry names the kernel version it is for.
 *
 * Built and tested (the kernel matrix, scripts/kernels.conf): 6.1 (Debian
 * 12), 6.12 (Debian 13), 7.3 (Debian 13 backports). Each boundary below was
 * found by building against those kernels' headers and read in the
 * kernel's history; kernels between them are built here only where the
 * matrix has them.
 */
#ifndef _USBETH_COMPAT_H
#define _USBETH_COMPAT_H

#include <linux/version.h>
#include <linux/netlink.h>
#include <linux/netdevice.h>
#include <linux/ethtool_netlink.h>
#include <linux/rtnetlink.h>

/*
 * The floor: 6.1, the oldest kernel this module is built and tested on
 * (Debian 12). Older kernels lack what the code below takes for granted:
 * netdev_hold()/netdev_put() with netdevice_tracker (6.0; 5.17 had
 * dev_hold_track()), struct kernel_ethtool_coalesce and the extack argument
 * of the coalesce ops (5.15), per-op policies in struct genl_ops (5.10).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "usbeth needs Linux 6.1 or later"
#endif

/*
 * Extack messages: usbeth_extack_msg(extack, attr, msg, fmt, ...) points at
 * attr and says fmt formatted, or, where the kernel cannot keep a formatted
 * message, the static msg. NL_SET_ERR_MSG_FMT arrived in 6.2 (6.4 added
 * NL_SET_ERR_MSG_ATTR_FMT), formatting into a buffer inside struct
 * netlink_ext_ack that lives until the ack is built. Before 6.2 the message
 * must be a string that outlives the handler; a module buffer would be
 * shared by concurrent requests (parallel_ops) of every netns, so 6.1 gets
 * the static text (the CLI names the device, knob and value itself). The
 * arguments stay type-checked and used there through no_printk().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define usbeth_extack_msg(extack, attr, msg, fmt, ...) do {		\
	struct netlink_ext_ack *__ue_extack = (extack);			\
									\
	NL_SET_ERR_MSG_FMT(__ue_extack, fmt, ##__VA_ARGS__);		\
	NL_SET_BAD_ATTR(__ue_extack, attr);				\
} while (0)
#else
#define usbeth_extack_msg(extack, attr, msg, fmt, ...) do {		\
	if (0)								\
		no_printk(fmt, ##__VA_ARGS__);				\
	NL_SET_ERR_MSG_ATTR(extack, attr, msg);				\
} while (0)
#endif

/*
 * Generic netlink: dumps see the parsed request through
 * genl_dumpit_info(cb)->attrs until 6.6, where genl_info_dump(cb) gave them
 * a struct genl_info (and genl_dumpit_info lost ->attrs).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define usbeth_dump_attrs(cb)	(genl_info_dump(cb)->attrs)
#else
#define usbeth_dump_attrs(cb)	(genl_dumpit_info(cb)->attrs)
#endif

/*
 * struct nla_policy points at its range as const in 6.12's headers, not in
 * 6.1's. The cut-over is taken as 6.4 (the 2023 change, not checked on a 6.4
 * tree); any version between 6.2 and 6.12 builds right on the matrix, whose
 * W=1 builds would flag a wrong side as a discarded qualifier.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define usbeth_range_const	const
#else
#define usbeth_range_const
#endif

/*
 * Lockless TX (no BQL for such devices, bql.c): NETIF_F_LLTX left the
 * feature bits in 6.12 for the dev->lltx bit.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define usbeth_dev_lltx(dev)	((dev)->lltx)
#else
#define usbeth_dev_lltx(dev)	(!!((dev)->features & NETIF_F_LLTX))
#endif

/*
 * The netdev instance lock: drivers that ask for it (dev->request_ops_lock
 * or queue management ops; netdevsim among them) have their ethtool ops and
 * ethtool notifications called under dev->lock, as ethtool's own paths do
 * (netdev_lock_ops(), inside rtnl). Its helpers live in net/netdev_lock.h,
 * which came with the 2025 instance-lock series (6.12's headers have none,
 * 7.3's do); Kbuild asks the tree whether the header is there rather than
 * trust a version number. Seen on the debug kernel: without it, netdevsim's
 * coalesce NTF trips netdev_assert_locked_ops_compat() in ethnl_notify().
 */
#ifdef USBETH_HAVE_NETDEV_LOCK_H
#include <net/netdev_lock.h>
#define usbeth_lock_ops(dev)	netdev_lock_ops(dev)
#define usbeth_unlock_ops(dev)	netdev_unlock_ops(dev)
#define usbeth_need_ops_lock(dev)	netdev_need_ops_lock(dev)
#else
static inline bool usbeth_need_ops_lock(const struct net_device *dev)
{
	return false;
}

static inline void usbeth_lock_ops(struct net_device *dev)
{
}

static inline void usbeth_unlock_ops(struct net_device *dev)
{
}
#endif

/*
 * pm_runtime_get_if_active(): a usage reference on a device only if it is
 * runtime-active, whatever its usage count; it lost its ign_usage_count
 * argument in 6.9 (6.1's header has it, 6.12's has not), where passing
 * true was that meaning.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define usbeth_pm_get_if_active(dev)	pm_runtime_get_if_active(dev)
#else
#define usbeth_pm_get_if_active(dev)	pm_runtime_get_if_active(dev, true)
#endif

/*
 * ethtool_notify() wants rtnl, as ethtool's own set paths hold it (6.1
 * asserts it; 7.3 asserts the instance lock instead for ops-locked devices,
 * which usbeth_ethtool_begin() takes inside rtnl). It lost its unused data
 * argument in 6.17.
 */
static inline void usbeth_ethtool_notify(struct net_device *dev,
					 unsigned int cmd)
{
	ASSERT_RTNL();
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	ethtool_notify(dev, cmd);
#else
	ethtool_notify(dev, cmd, NULL);
#endif
}

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
