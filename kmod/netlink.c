// SPDX-License-Identifier: GPL-2.0
/*
 * The usbeth generic netlink family: GET (do, dump), SET, notifications.
 * uapi/usbeth.yaml documents the contract. Here: the family, its
 * policies, the table of backends and the handlers' entry points. The
 * rest, the way net/ethtool/ splits its netlink code: access.c (lookup,
 * hold, the SET mutexes), state.c (a device's state and message), set.c
 * (the SET transaction), notify.c (notifications). Lock order: usbeth.h.
 * Dumps walk the netns's device list under rtnl.
 */
#include <linux/rtnetlink.h>
#include <net/sock.h>
#include "usbeth.h"

/*
 * Every backend, in the order a SET applies their knobs and a message
 * carries their values (see struct usbeth_backend).
 */
const struct usbeth_backend *const usbeth_backends[] = {
	&usbeth_gadget_backend,
	&usbeth_ncm_backend,
	&usbeth_bql_backend,
	&usbeth_coalesce_backend,
	NULL
};

/*
 * What the rest of the file takes for granted of the table: a backend's
 * knobs fit the stack arrays a group is read into, a device's values fit
 * its state, and a set_group knob can be read with the rest of its group.
 */
static bool usbeth_backends_valid(void)
{
	const struct usbeth_backend *const *b;
	const struct usbeth_knob *k;
	unsigned int nvals = 0;

	for (b = usbeth_backends; *b; b++) {
		if ((*b)->n > USBETH_BACKEND_KNOBS)
			return false;
		nvals += (*b)->n + (*b)->nextra;
		for (k = (*b)->knobs; k < (*b)->knobs + (*b)->n; k++)
			if (k->set_group && (k->per_queue || !(*b)->read_all))
				return false;
	}
	return nvals <= USBETH_STATE_VALS;
}

static usbeth_range_const struct netlink_range_validation ntb_range = {
	.min = USBETH_NTB_MIN, .max = USBETH_NTB_MAX,
};

static usbeth_range_const struct netlink_range_validation tx_timer_range = {
	.max = USBETH_TX_TIMER_MAX_USECS,
};

static usbeth_range_const struct netlink_range_validation bql_limit_range = {
	.max = USBETH_BQL_LIMIT_MAX,
};

static usbeth_range_const struct netlink_range_validation bql_hold_range = {
	.max = USBETH_BQL_HOLD_TIME_MAX,
};

static const struct nla_policy usbeth_get_nl_policy[USBETH_A_IFNAME + 1] = {
	[USBETH_A_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[USBETH_A_IFNAME]	= { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
};

static const struct nla_policy usbeth_set_nl_policy[USBETH_A_BQL_HOLD_TIME + 1] = {
	[USBETH_A_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[USBETH_A_IFNAME]	= { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[USBETH_A_QMULT]	= NLA_POLICY_RANGE(NLA_U32, USBETH_QMULT_MIN,
						   USBETH_QMULT_MAX),
	[USBETH_A_NTB_RX_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ntb_range),
	[USBETH_A_NTB_TX_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ntb_range),
	[USBETH_A_TX_TIMER_USECS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							  &tx_timer_range),
	[USBETH_A_COAL_TX_USECS]	= { .type = NLA_U32 },
	[USBETH_A_COAL_TX_FRAMES]	= { .type = NLA_U32 },
	[USBETH_A_COAL_RX_USECS]	= { .type = NLA_U32 },
	[USBETH_A_COAL_RX_FRAMES]	= { .type = NLA_U32 },
	[USBETH_A_BQL_QUEUE_INDEX] = NLA_POLICY_MAX(NLA_U32,
						    USBETH_BQL_QUEUE_MAX),
	[USBETH_A_BQL_LIMIT_MIN] = NLA_POLICY_FULL_RANGE(NLA_U32, &bql_limit_range),
	[USBETH_A_BQL_LIMIT_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &bql_limit_range),
	[USBETH_A_BQL_HOLD_TIME] = NLA_POLICY_FULL_RANGE(NLA_U32, &bql_hold_range),
};

static int usbeth_nl_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct usbeth_state st;
	struct usbeth_hold h;
	struct sk_buff *msg;
	int err;

	err = usbeth_hold(genl_info_net(info), info->attrs, false, info->extack,
			  &h);
	if (err)
		return err;
	err = usbeth_prepare(h.dev, true, false, &st);
	usbeth_hold_name(&h);
	usbeth_release(&h);
	/* the device is no longer held: st and h.name are copies */
	msg = err ? ERR_PTR(err) :
	      usbeth_msg(&st, h.name, info->snd_portid, info->snd_seq,
			 USBETH_CMD_GET, 0);
	usbeth_state_free(&st);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	return genlmsg_reply(msg, info);
}

/*
 * A dump's every chunk can take the largest device message of the netns
 * (one that does not fit an empty chunk would end the dump).
 */
static int usbeth_nl_get_dump_start(struct netlink_callback *cb)
{
	struct net *net = sock_net(cb->skb->sk);
	struct net_device *dev;
	size_t max = 0;

	rcu_read_lock();
	for_each_netdev_rcu(net, dev)
		max = max(max, usbeth_msg_size(dev));
	rcu_read_unlock();
	cb->min_dump_alloc = min_t(size_t, max, U32_MAX);
	return 0;
}

static int usbeth_nl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	unsigned int h, s_h = cb->args[0];
	long idx = 0, s_idx = cb->args[1];
	struct nlattr **attrs = usbeth_dump_attrs(cb);
	struct usbeth_state st;
	struct net_device *dev;
	struct nlmsghdr *nlh;
	int err = 0, a;

	/* attrs has the GET policy's size, not USBETH_A_MAX + 1 */
	for (a = 1; attrs && a < (int)ARRAY_SIZE(usbeth_get_nl_policy); a++) {
		if (attrs[a]) {
			NL_SET_ERR_MSG_ATTR(cb->extack, attrs[a],
					    "a dump takes no attributes");
			return -EINVAL;
		}
	}

	rtnl_lock();
	cb->seq = net->dev_base_seq;
	for (h = s_h; h < NETDEV_HASHENTRIES; h++, s_idx = 0) {
		idx = 0;
		hlist_for_each_entry(dev, &net->dev_index_head[h], index_hlist) {
			if (idx < s_idx)
				goto next;
			err = usbeth_prepare(dev, true, false, &st);
			if (err)
				goto out;
			/* where this device's message starts */
			nlh = (struct nlmsghdr *)skb_tail_pointer(skb);
			err = usbeth_fill(skb, &st, dev->name,
					  NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, NLM_F_MULTI,
					  USBETH_CMD_GET, 0);
			usbeth_state_free(&st);
			if (err)
				goto out;
			/*
			 * It wants the user header genlmsg_put() returned, and
			 * flags the message that header belongs to.
			 */
			genl_dump_check_consistent(cb, genlmsg_data(nlmsg_data(nlh)));
next:
			idx++;
		}
	}
out:
	rtnl_unlock();
	cb->args[0] = h;
	cb->args[1] = idx;
	/* a device that does not fit an empty message is an error */
	if (err && !skb->len)
		return err;
	return skb->len;
}

static int usbeth_nl_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct usbeth_hold h;
	int err;

	err = usbeth_hold(genl_info_net(info), info->attrs, true, info->extack,
			  &h);
	if (err)
		return err;
	err = usbeth_set(&h, info);
	usbeth_release(&h);
	return err;
}

static const struct genl_ops usbeth_nl_ops[] = {
	{
		.cmd	= USBETH_CMD_GET,
		.doit	= usbeth_nl_get_doit,
		.start	= usbeth_nl_get_dump_start,
		.dumpit	= usbeth_nl_get_dumpit,
		.policy	= usbeth_get_nl_policy,
		.maxattr = ARRAY_SIZE(usbeth_get_nl_policy) - 1,
	}, {
		.cmd	= USBETH_CMD_SET,
		.doit	= usbeth_nl_set_doit,
		.policy	= usbeth_set_nl_policy,
		.maxattr = ARRAY_SIZE(usbeth_set_nl_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
};

static const struct genl_multicast_group usbeth_nl_mcgrps[] = {
	{ .name = USBETH_MCGRP_MONITOR },
};

struct genl_family usbeth_family __ro_after_init = {
	.name		= USBETH_GENL_NAME,
	.version	= USBETH_GENL_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,		/* see access.c */
	.module		= THIS_MODULE,
	.ops		= usbeth_nl_ops,
	.n_ops		= ARRAY_SIZE(usbeth_nl_ops),
	.mcgrps		= usbeth_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(usbeth_nl_mcgrps),
};

int usbeth_netlink_init(void)
{
	int err;

	if (WARN_ON(!usbeth_backends_valid()))
		return -EINVAL;
	usbeth_access_init();
	err = genl_register_family(&usbeth_family);
	if (!err)
		usbeth_notify_start();
	return err;
}

void usbeth_netlink_exit(void)
{
	usbeth_notify_stop();
	genl_unregister_family(&usbeth_family);
}
