// SPDX-License-Identifier: GPL-2.0
/*
 * connect_stall: a test helper of the usbeth selftests, never shipped.
 *
 * Holds a USB gadget's connect at one point: u_ether's gether_connect() has
 * sized its request pools from qmult and is about to raise the carrier
 * (netif_carrier_on() of its netdev), inside the composite driver's
 * set_alt(), under the composite device's lock, interrupts off. A kprobe
 * on netif_carrier_on() stops there, once, for the gadget netdev named in
 * parameters/ifname, after letting parameters/skip of them through, if
 * that connect runs on CPU parameters/cpu:
 *
 *   echo 0 > parameters/cpu          hold only a connect on CPU 0
 *   echo 1 > parameters/skip         hold the second connect from now
 *   echo usb0 > parameters/ifname    arm it for usb0 (the next carrier-on)
 *   echo 1 > parameters/wait         returns once the connect is held;
 *                                    EXDEV: it ran on another CPU, not
 *                                    held; ETIMEDOUT: none in 30 s
 *   echo 1 > parameters/release      lets it go on
 *
 * The held CPU spins with interrupts off: what is to run meanwhile must be
 * on another CPU already (taskset), and must not wait for an RCU grace
 * period or an IPI. It lets go by itself after 2 s (the host's control
 * request times out after 5), so a test that blocks on the lock the
 * connect holds does not block for good. Reading
 * parameters/held gives 1 while it holds the connect, parameters/seen the
 * connects of the netdev since it was armed.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/ptrace.h>

#define STALL_MAX_MS 2000

static char target[IFNAMSIZ];	/* under the module's param lock */
static int hold_cpu = -1;	/* -1: any */
static int skip;
static atomic_t seen;
static bool armed;		/* set under the param lock, cleared once */
static bool released;
static bool held;
static bool missed;
static DECLARE_COMPLETION(entered);

static int carrier_on_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct net_device *dev =
		(struct net_device *)regs_get_kernel_argument(regs, 0);
	unsigned int ms;

	if (!READ_ONCE(armed) || !dev->dev.type || !dev->dev.type->name ||
	    strcmp(dev->dev.type->name, "gadget") ||
	    strncmp(dev->name, target, IFNAMSIZ))
		return 0;
	if (atomic_inc_return(&seen) <= READ_ONCE(skip))
		return 0;
	if (cmpxchg(&armed, true, false) != true)
		return 0;
	if (hold_cpu >= 0 && smp_processor_id() != hold_cpu) {
		WRITE_ONCE(missed, true);
		complete(&entered);
		return 0;
	}
	WRITE_ONCE(held, true);
	complete(&entered);
	for (ms = 0; ms < STALL_MAX_MS && !READ_ONCE(released); ms++)
		mdelay(1);
	WRITE_ONCE(held, false);
	pr_info("connect of %s held %u ms on CPU %d, %s\n", dev->name, ms,
		smp_processor_id(), ms < STALL_MAX_MS ? "released" : "timed out");
	return 0;
}

static struct kprobe kp = {
	.symbol_name = "netif_carrier_on",
	.pre_handler = carrier_on_pre,
};

static int ifname_set(const char *val, const struct kernel_param *kp)
{
	size_t n = strcspn(val, "\n");

	if (!n || n >= IFNAMSIZ)
		return -EINVAL;
	WRITE_ONCE(armed, false);
	memset(target, 0, sizeof(target));
	memcpy(target, val, n);
	reinit_completion(&entered);
	WRITE_ONCE(released, false);
	WRITE_ONCE(missed, false);
	atomic_set(&seen, 0);
	smp_wmb();	/* the name and the reset state before arming */
	WRITE_ONCE(armed, true);
	return 0;
}

static int ifname_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", target);
}

static const struct kernel_param_ops ifname_ops = {
	.set = ifname_set,
	.get = ifname_get,
};
module_param_cb(ifname, &ifname_ops, NULL, 0600);
MODULE_PARM_DESC(ifname, "hold the next carrier-on of this netdev");

module_param_named(cpu, hold_cpu, int, 0600);
MODULE_PARM_DESC(cpu, "hold only a connect on this CPU (-1: any)");
module_param(skip, int, 0600);
MODULE_PARM_DESC(skip, "connects of the netdev let through before one is held");

static int seen_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&seen));
}

static const struct kernel_param_ops seen_ops = {
	.get = seen_get,
};
module_param_cb(seen, &seen_ops, NULL, 0400);
MODULE_PARM_DESC(seen, "connects of the netdev since it was armed");

static int wait_set(const char *val, const struct kernel_param *kp)
{
	if (!wait_for_completion_timeout(&entered, 30 * HZ))
		return -ETIMEDOUT;
	return READ_ONCE(missed) ? -EXDEV : 0;
}

static const struct kernel_param_ops wait_ops = {
	.set = wait_set,
};
module_param_cb(wait, &wait_ops, NULL, 0200);
MODULE_PARM_DESC(wait, "write: returns once the connect is held");

static int release_set(const char *val, const struct kernel_param *kp)
{
	WRITE_ONCE(released, true);
	return 0;
}

static const struct kernel_param_ops release_ops = {
	.set = release_set,
};
module_param_cb(release, &release_ops, NULL, 0200);
MODULE_PARM_DESC(release, "write: the held connect goes on");

static int held_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(held));
}

static const struct kernel_param_ops held_ops = {
	.get = held_get,
};
module_param_cb(held, &held_ops, NULL, 0400);
MODULE_PARM_DESC(held, "1 while a connect is held");

static int __init connect_stall_init(void)
{
	return register_kprobe(&kp);
}
module_init(connect_stall_init);

static void __exit connect_stall_exit(void)
{
	WRITE_ONCE(released, true);
	unregister_kprobe(&kp);
}
module_exit(connect_stall_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("usbeth selftest helper: hold a gadget's connect before its carrier-on");
