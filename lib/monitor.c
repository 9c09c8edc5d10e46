// SPDX-License-Identifier: GPL-2.0
/*
 * libusbeth: the monitor, a handle of its own whose socket only listens to
 * the family's "monitor" group and to nlctrl's, to follow the module being
 * unloaded and loaded again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "priv.h"

int usbeth_monitor_open(struct usbeth_mon **out)
{
	struct usbeth_mon *m;
	struct usbeth *u;
	unsigned int grp;
	int ret;

	*out = NULL;
	ret = usbeth_open(&u);
	if (ret)
		return ret;
	grp = u->fam.mcgrp;
	if (!grp) {
		ret = -EPROTO;
		goto fail;
	}
	if (mnl_socket_setsockopt(u->s.nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		ret = -errno;
		goto fail;
	}
	/* nlctrl's "notify" group: families coming and going (the module
	 * unloaded, loaded again). Its id is nlctrl's own family id, fixed
	 * by the kernel (genl_ctrl's mcgrp_offset).
	 */
	grp = GENL_ID_CTRL;
	if (mnl_socket_setsockopt(u->s.nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		ret = -errno;
		goto fail;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		ret = -ENOMEM;
		goto fail;
	}
	m->u = u;
	*out = m;
	return 0;
fail:
	usbeth_close(u);
	return ret;
}

void usbeth_monitor_close(struct usbeth_mon *m)
{
	if (!m)
		return;
	usbeth_close(m->u);
	free(m);
}

int usbeth_monitor_fd(const struct usbeth_mon *m)
{
	return m->u->s.fd;
}

int usbeth_monitor_refresh(struct usbeth_mon *m)
{
	struct usbeth_family old = m->u->fam;
	struct usbeth *u;
	unsigned int grp;
	int ret = usbeth_open(&u);	/* resolves the family as it is now */

	if (ret && ret != -ENOENT)
		return ret;
	if (!ret && !u->fam.mcgrp) {
		usbeth_close(u);
		ret = -EPROTO;
	}
	if (old.mcgrp && (ret || old.mcgrp != u->fam.mcgrp)) {
		grp = old.mcgrp;
		mnl_socket_setsockopt(m->u->s.nl, NETLINK_DROP_MEMBERSHIP,
				      &grp, sizeof(grp));
	}
	memset(&m->u->fam, 0, sizeof(m->u->fam));
	if (ret)
		return ret;	/* -ENOENT: its NEWFAMILY will be followed */
	grp = u->fam.mcgrp;
	/* joining a group it is in already changes nothing */
	if (mnl_socket_setsockopt(m->u->s.nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		ret = -errno;
		usbeth_close(u);
		return ret;
	}
	m->u->fam = u->fam;
	usbeth_close(u);
	return 0;
}

/*
 * An nlctrl notification. About usbeth: DELFAMILY (the module unloaded)
 * forgets the family, NEWFAMILY (loaded again) takes its new id and joins
 * its new "monitor" group; either is returned (-ENOLINK, -ERESTART) for
 * the caller to act on. Other families: 0.
 */
static int family_event(struct usbeth *u, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct usbeth_family f;
	unsigned int grp;

	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    (g->cmd != CTRL_CMD_NEWFAMILY && g->cmd != CTRL_CMD_DELFAMILY) ||
	    usbeth_parse_family(nlh, &f))
		return 0;
	if (g->cmd == CTRL_CMD_DELFAMILY) {
		if (u->fam.id && f.id != u->fam.id)
			return 0;
		if (u->fam.mcgrp) {
			grp = u->fam.mcgrp;
			mnl_socket_setsockopt(u->s.nl, NETLINK_DROP_MEMBERSHIP,
					      &grp, sizeof(grp));
		}
		memset(&u->fam, 0, sizeof(u->fam));
		return -ENOLINK;
	}
	if (!f.mcgrp)
		return -EPROTO;
	if (u->fam.id == f.id && u->fam.mcgrp == f.mcgrp)
		return 0;	/* the one we joined at open */
	if (u->fam.mcgrp) {
		grp = u->fam.mcgrp;
		mnl_socket_setsockopt(u->s.nl, NETLINK_DROP_MEMBERSHIP, &grp,
				      sizeof(grp));
	}
	grp = f.mcgrp;
	if (mnl_socket_setsockopt(u->s.nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0)
		return -errno;
	u->fam = f;
	return -ERESTART;
}

struct mon_ctx {
	struct usbeth *u;
	usbeth_monitor_cb cb;
	void *arg;
	bool bad;		/* this datagram broke the contract */
};

static int mon_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct mon_ctx *c = arg;
	struct usbeth_dev d;
	int cmd, ret;

	if (!nlh) {		/* the datagram's end */
		ret = c->bad ? -EBADMSG : 0;
		c->bad = false;
		return ret;
	}
	if (nlh->nlmsg_type == GENL_ID_CTRL)
		return family_event(c->u, nlh);
	if (!c->u->fam.id || nlh->nlmsg_type != c->u->fam.id)
		return 0;
	cmd = usbeth_parse_dev(nlh, &d);
	if (cmd == -ENOMEM)
		return cmd;
	if (cmd == -EPROTO)
		return 0;	/* a command we do not know */
	if (cmd < 0) {
		c->bad = true;
		return 0;
	}
	if (cmd != USBETH_CMD_NEW_NTF && cmd != USBETH_CMD_DEL_NTF &&
	    cmd != USBETH_CMD_CHANGE_NTF) {
		usbeth_dev_free(&d);
		return 0;
	}
	ret = c->cb ? c->cb(c->arg, cmd, &d) : 0;
	usbeth_dev_free(&d);
	return ret;
}

int usbeth_monitor_read(struct usbeth_mon *m, usbeth_monitor_cb cb, void *arg)
{
	struct mon_ctx c = { m->u, cb, arg, false };

	return usbeth_nl_drain(&m->u->s, mon_msg, &c);
}
