// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's rtnetlink event source: RTM_NEWLINK and RTM_DELLINK of the
 * netns, for what the usbeth family does not announce: a gadget's carrier
 * coming up (a connect), renames (udev's), netdevs not on USB coming and
 * going. See daemon.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include "daemon.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* linux/if.h: the carrier */
#endif

/*
 * The usbeth family announces only USB netdevs. One not on USB (matched by
 * a role "other" profile) is looked at when it appears in the netns
 * (registered or moved in: RTM_NEWLINK with every change bit set), and its
 * record dropped when it goes (RTM_DELLINK).
 */
static void other_link(struct daemon *dm, const struct nlmsghdr *nlh,
		       const struct ifinfomsg *ifi, struct rec *r)
{
	if (nlh->nlmsg_type == RTM_DELLINK) {
		if (r && !usbeth_role_is_usb(r->role))
			engine_drop(&dm->e, r->ifindex);
		return;
	}
	if (r || !dm->other || ifi->ifi_change != ~0U)
		return;
	get_async(dm, (uint32_t)ifi->ifi_index);	/* see gets_read */
}

/* The IFLA_IFNAME of a link message (a name a netdev can have), or NULL. */
static const char *link_name(const struct nlmsghdr *nlh)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg)) {
		const char *name;

		if (mnl_attr_get_type(a) != IFLA_IFNAME ||
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			continue;
		name = mnl_attr_get_str(a);
		return name[0] && strlen(name) < IF_NAMESIZE ? name : NULL;
	}
	return NULL;
}

/*
 * udev renames a USB NIC (Debian: enx<MAC>, 73-usb-net-by-mac.link) right
 * after the NEW that named it usb0: the record follows, and the device is
 * evaluated again, as a profile may match the new name ("ifname" globs).
 */
static bool renamed(struct daemon *dm, const char *name, struct rec *r)
{
	if (!name || !strcmp(name, r->ifname))
		return false;
	engine_rename(&dm->e, r->ifindex, name);
	get_async(dm, r->ifindex);	/* evaluated in gets_read */
	return true;
}

/*
 * A netdev without a record renamed (udev's eth0 -> enp0s3): a role
 * "other" profile may match the new name ("ifname" globs), so it is
 * evaluated again. A USB one too: its NEW named it before the rename.
 * The names are known from the last dump and rtnetlink since.
 */
static void other_renamed(struct daemon *dm, const char *name,
			  const struct ifinfomsg *ifi, const struct rec *r)
{
	int how;

	if (!name)
		return;
	how = name_note(dm, (uint32_t)ifi->ifi_index, name);
	if (how < 0) {
		ulog(LOG_P_WARNING, "%s: out of memory: resync", name);
		if (!dm->retry_at)
			dm->retry_at = now_us();
		return;
	}
	if (how == NAME_RENAMED && !r && ifi->ifi_change != ~0U) {
		ulog(LOG_P_DEBUG, "%s: renamed (ifindex %u, no record): "
		     "evaluating it", name, ifi->ifi_index);
		get_async(dm, (uint32_t)ifi->ifi_index);
	}
}

/*
 * A gadget netdev outlives its UDC binding: no NEW comes when the cable
 * goes in again, yet the speed it will run at is known only while bound.
 * So a gadget is evaluated again when its carrier comes up (the connect);
 * what it sets (qmult) takes effect from the next connect.
 */
static int link_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct daemon *dm = arg;
	const struct ifinfomsg *ifi;
	const char *name;
	struct rec *r;
	int up;

	if ((nlh->nlmsg_type != RTM_NEWLINK &&
	     nlh->nlmsg_type != RTM_DELLINK) ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return MNL_CB_OK;
	ifi = mnl_nlmsg_get_payload(nlh);
	r = engine_find(&dm->e, (uint32_t)ifi->ifi_index);
	other_link(dm, nlh, ifi, r);
	if (nlh->nlmsg_type != RTM_NEWLINK) {
		name_forget(dm, (uint32_t)ifi->ifi_index);
		return MNL_CB_OK;
	}
	r = engine_find(&dm->e, (uint32_t)ifi->ifi_index);
	name = link_name(nlh);
	other_renamed(dm, name, ifi, r);
	if (r && renamed(dm, name, r))
		return MNL_CB_OK;
	if (!r || r->role != USBETH_ROLE_USB_GADGET)
		return MNL_CB_OK;
	up = !!(ifi->ifi_flags & IFF_LOWER_UP);
	if (up == r->carrier)
		return MNL_CB_OK;
	r->carrier = up;
	if (!up)
		return MNL_CB_OK;
	get_async(dm, r->ifindex);	/* evaluated in gets_read */
	return MNL_CB_OK;
}

int links_open(struct daemon *dm)
{
	dm->links = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC |
				     SOCK_NONBLOCK);
	if (!dm->links ||
	    mnl_socket_bind(dm->links, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
		ulog(LOG_P_ERR, "rtnetlink: %s", strerror(errno));
		return -1;
	}
	return set_rcvbuf(mnl_socket_get_fd(dm->links), "rtnetlink");
}

/*
 * Reads every link event queued. A datagram is as large as the kernel
 * made it (a netdev with many altnames or VFs makes RTM_NEWLINKs of
 * several pages): its size is peeked first and the buffer grows to it,
 * so none is truncated and taken for the end of the queue. Only the
 * kernel's are read (another process may send to our port).
 */
void links_read(struct daemon *dm)
{
	int fd = mnl_socket_get_fd(dm->links);

	for (;;) {
		struct sockaddr_nl sa;
		socklen_t salen = sizeof(sa);
		ssize_t n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC |
				 MSG_DONTWAIT);

		if (n >= 0 && (size_t)n > dm->lbuf_len) {
			size_t len = ((size_t)n + 4095) & ~(size_t)4095;
			char *b = realloc(dm->lbuf, len);

			if (b) {
				dm->lbuf = b;
				dm->lbuf_len = len;
			}
		}
		if (n >= 0)
			n = recvfrom(fd, dm->lbuf, dm->lbuf_len,
				     MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&sa, &salen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				ulog(LOG_P_WARNING, "link events lost "
				     "(ENOBUFS): resync");
				recover(dm, "link overrun");
			}
			return;	/* EAGAIN: drained */
		}
		if ((size_t)n > dm->lbuf_len) {	/* no memory to grow */
			ulog(LOG_P_WARNING, "a link event of %zd bytes could "
			     "not be read whole: resync", n);
			recover(dm, "link event too large");
			return;
		}
		if (salen != sizeof(sa) || sa.nl_family != AF_NETLINK ||
		    sa.nl_pid != 0)
			continue;	/* not the kernel's */
		mnl_cb_run(dm->lbuf, (size_t)n, 0, 0, link_cb, dm);
	}
}

/* Reads and drops every link event queued (see recover()). */
void links_drain(struct daemon *dm)
{
	int fd = mnl_socket_get_fd(dm->links);
	char buf[64];
	int i;

	/* (bounded: a storm refilling the queue does not hold it for ever) */
	for (i = 0; i < 65536; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0 && errno != EINTR && errno != ENOBUFS)
			return;	/* EAGAIN: drained */
	}
}
