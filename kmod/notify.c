// SPDX-License-Identifier: GPL-2.0
/*
 * The family's notifications to its monitor group: NEW and DEL from the
 * netdev notifier, CHANGE after a SET, and the loss of one that could not
 * be built.
 */
#include <linux/rtnetlink.h>
#include "usbeth.h"

static bool usbeth_family_live;	/* notifications may go out */

/* From the family's registration on, notifications go out. */
void usbeth_notify_start(void)
{
	WRITE_ONCE(usbeth_family_live, true);
}

/*
 * Before the family is unregistered. Under rtnl, which the netdev notifier
 * runs under: once it is dropped no notifier is past the check, so nothing
 * multicasts on a family being unregistered.
 */
void usbeth_notify_stop(void)
{
	rtnl_lock();
	WRITE_ONCE(usbeth_family_live, false);
	rtnl_unlock();
}

/*
 * A notification that could not be built (no memory for the device's state
 * or the message) is reported to the monitor group as lost: each listener's
 * next read fails with ENOBUFS, as an overflow of its socket would, and it
 * reads the devices back instead of never hearing of the change. rtnetlink
 * does the same with a link message it cannot build (rtnl_set_sk_err()).
 */
static void usbeth_notify_lost(struct net *net)
{
	genl_set_err(&usbeth_family, net, 0, 0, -ENOBUFS);
}

/* NEW and DEL notifications, from the netdev notifier (under rtnl). */
void usbeth_notify_dev(struct net_device *dev, u8 cmd)
{
	struct usbeth_state st;
	struct sk_buff *skb;
	int err;

	ASSERT_RTNL();
	might_sleep();
	if (!READ_ONCE(usbeth_family_live))
		return;
	err = usbeth_prepare(dev, cmd != USBETH_CMD_DEL_NTF,
			     cmd == USBETH_CMD_NEW_NTF, &st);
	skb = err ? NULL : usbeth_msg(&st, dev->name, 0, 0, cmd, 0);
	usbeth_state_free(&st);
	if (IS_ERR_OR_NULL(skb)) {
		usbeth_notify_lost(dev_net(dev));
		return;
	}
	genlmsg_multicast_netns(&usbeth_family, dev_net(dev), skb, 0, 0,
				GFP_KERNEL);
}

/*
 * CHANGE: what a SET left the device with, to the monitor group (and to
 * the requester if it asked for an echo). left: the knobs a refused SET
 * could not put back (left-changed); the requester gets that message
 * whether it asked for an echo or not, before its error. Returns 0, or
 * -ENOBUFS when such a message owed to the requester could not be built or
 * queued (it is told in its error's message instead). Not inlined: the
 * daemon's benchmarks time a SET's effect by a kprobe here
 * (selftests/bench/usbeth_kprobes.sh).
 */
noinline int usbeth_notify_change(struct net_device *dev, const char *name,
				  struct genl_info *info, u32 left)
{
	bool owed = left && !(info->nlhdr->nlmsg_flags & NLM_F_ECHO);
	struct sk_buff *msg, *req_msg = NULL;
	struct usbeth_state st;
	int err;

	might_sleep();
	err = usbeth_prepare(dev, true, false, &st);
	msg = err ? ERR_PTR(err) :
	      usbeth_msg(&st, name, info->snd_portid, info->snd_seq,
			 USBETH_CMD_CHANGE_NTF, left);
	usbeth_state_free(&st);
	if (IS_ERR(msg)) {
		usbeth_notify_lost(genl_info_net(info));
		return owed ? -ENOBUFS : 0;
	}
	if (owed) {
		req_msg = skb_clone(msg, GFP_KERNEL);
		if (!req_msg)
			err = -ENOBUFS;
	}
	genl_notify(&usbeth_family, msg, info, 0, GFP_KERNEL);
	if (req_msg &&
	    genlmsg_unicast(genl_info_net(info), req_msg, info->snd_portid))
		err = -ENOBUFS;
	return err;
}
