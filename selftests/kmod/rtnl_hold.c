// SPDX-License-Identifier: GPL-2.0
/*
 * rtnl_hold: a test helper of the usbeth selftests, never shipped.
 *
 * Writing 1 to /sys/module/rtnl_hold/parameters/hold starts a kernel thread
 * that takes the rtnl lock and keeps it; the write returns once the lock is
 * held. Writing 0 makes the thread let go and returns once it has. Reading
 * gives 1 while the lock is held. The lock is held by a kernel thread, not
 * across a return to user space, and dropped at module unload.
 */
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>

static struct task_struct *holder;	/* under the module's param lock */
static DECLARE_COMPLETION(taken);

static int holder_fn(void *data)
{
	rtnl_lock();
	complete(&taken);
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	rtnl_unlock();
	return 0;
}

static int hold_set(const char *val, const struct kernel_param *kp)
{
	struct task_struct *t;
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err)
		return err;
	if (on == !!holder)
		return 0;
	if (!on) {
		kthread_stop(holder);
		holder = NULL;
		return 0;
	}
	reinit_completion(&taken);
	t = kthread_run(holder_fn, NULL, "rtnl_hold");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wait_for_completion(&taken);
	holder = t;
	return 0;
}

static int hold_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", !!holder);
}

static const struct kernel_param_ops hold_ops = {
	.set = hold_set,
	.get = hold_get,
};
module_param_cb(hold, &hold_ops, NULL, 0600);
MODULE_PARM_DESC(hold, "1: a kernel thread holds rtnl; 0: it lets go");

static void __exit rtnl_hold_exit(void)
{
	if (holder)
		kthread_stop(holder);
}
module_exit(rtnl_hold_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("usbeth selftest helper: hold the rtnl lock on demand");
